#!/usr/bin/env bash
# What the balancer costs: the same workloads sent straight to a node and
# through HAProxy in front of it (cluster.sh --nodes 1), in alternate
# order, each replay on a fresh node with the same seed. For the direct
# runs the same master listens on 127.0.0.1:PORT in place of its socket.
# Prints every run, then the medians side by side, the balancer's CPU
# time per request and the node's hash rate. About a minute a round.
#   scripts/cluster/cluster-bench.sh [--rounds R] [--workers W] [--seed S]
set -u
. "$(dirname "$0")/../lib-bench.sh"

ROUNDS=3 WORKERS=$(nproc) SEED=7
opts "--rounds=ROUNDS --workers=WORKERS --seed=SEED" "$@"
need_built
need_tool haproxy --cluster || fail "haproxy is missing (scripts/install-deps.sh --cluster)"
CLUSTER=$ROOT/scripts/cluster/cluster.sh
PORT=$(free_port 1 100 201)
NODE=$((PORT + 1))
OUT=$(mktemp -d /tmp/revhash-cluster-bench.XXXXXX)
DIRECT_PID=""
trap '[ -n "$DIRECT_PID" ] && stop_master "$DIRECT_PID" 35; "$CLUSTER" stop --port "$PORT" >/dev/null; rm -rf "$OUT"' EXIT
"$CLUSTER" start --nodes 1 --port "$PORT" --workers "$WORKERS" >/dev/null ||
	fail "the cluster did not start"
HAPROXY=$("$CLUSTER" status --port "$PORT" | sed -n 's/.*(pid \([0-9]*\)).*/\1/p')
TICK=$(getconf CLK_TCK)
AS=balancer # what the node on $NODE serves now: balancer (the cluster's), or direct

# node_stop: stop the master on $NODE, the cluster's or the direct one.
node_stop() {
	local pid=$DIRECT_PID
	[ "$AS" = balancer ] && pid=$("$CLUSTER" status --port "$PORT" | awk '$1 == "n1" { print $3 }')
	[ -z "$pid" ] || (stop_master "$pid" 35) || fail "the node did not stop"
	DIRECT_PID=""
}

# node_as TARGET: a fresh node on $NODE for TARGET's runs: the cluster's,
# once the balancer sees it up, or the same master for the direct ones.
n1_up() { "$CLUSTER" status --port "$PORT" | grep -q '^n1 .* UP '; }
node_as() {
	node_stop
	AS=$1
	if [ "$AS" = direct ]; then
		start_master "$NODE" "$OUT/direct.log" --workers "$WORKERS" --no-pin --gpu off \
			--listen 127.0.0.1 || fail "the direct node did not start"
		DIRECT_PID=$MASTER_PID
		return 0
	fi
	"$CLUSTER" node-start 1 --port "$PORT" --workers "$WORKERS" >/dev/null ||
		fail "the node did not start again"
	wait_until 100 0.05 n1_up || fail "the node is not up again after 5 s"
}

# record FIGURE TARGET VALUE: one figure of one run, into $OUT/figures.
record() { echo "$1,$2,$3" >>"$OUT/figures"; printf '  %-38s %-9s %s\n' "$1" "$2" "$3"; }

# closed TARGET PORT LABEL ARGS...: a closed loop of 8 for 3 s; its mean
# latency per request (8 / throughput, in us) and p50, and on the
# balancer its CPU time per request.
closed() {
	local target=$1 port=$2 label=$3 t0 out=$OUT/run
	shift 3
	t0=$(proc_ticks "$HAPROXY")
	"$BENCH" 127.0.0.1 "$port" --concurrency 8 --duration 3 "$@" --json >"$out" ||
		{ cat "$out"; fail "closed loop $label to $target went wrong"; }
	local n rate p50
	read -r n rate p50 < <(jq -r '"\(.requests) \(.requests_s) \(.latency_ms.p50)"' "$out")
	record "$label us/request (8/throughput)" "$target" "$(awk -v r="$rate" 'BEGIN { printf "%.1f", 8e6 / r }')"
	record "$label p50 ms" "$target" "$p50"
	[ "$target" = balancer ] && record "balancer CPU us/request ($label)" "$target" \
		"$(awk -v t="$(($(proc_ticks "$HAPROXY") - t0))" -v k="$TICK" -v n="$n" \
			'BEGIN { printf "%.1f", t / k * 1e6 / n }')"
	return 0
}

# replay TARGET PORT LABEL WORKLOAD...: the public client's workload on a
# fresh node; its score, p50 and mean first-time latency.
replay() {
	local target=$1 port=$2 label=$3 out=$OUT/run
	shift 3
	node_as "$target"
	"$BENCH" 127.0.0.1 "$port" "$SEED" "$@" --no-calibrate --quiet --json >"$out" ||
		{ cat "$out"; fail "replay $label to $target went wrong"; }
	record "$label score" "$target" "$(jq -r .score "$out")"
	record "$label p50 ms" "$target" "$(jq -r .latency_ms.p50 "$out")"
	record "$label first-time mean ms" "$target" "$(jq -r .first.mean_ms "$out")"
}

# round TARGET PORT: every workload once.
round() {
	[ "$AS" = "$1" ] || node_as "$1"
	closed "$1" "$2" "small fresh" --difficulty 1
	closed "$1" "$2" "small cached" --cached
	replay "$1" "$2" "small replay" 2000 0 1000 20 1000 1.5
	replay "$1" "$2" "large replay" 30 0 30000000 20 600000 1.5
	local user="" # the cluster's node is its user's
	[ "$1" = balancer ] && user=$(cat "$(run_base)/revhash-cluster-$PORT/user")
	record "node busy_rate M hashes/s" "$1" \
		"$(awk -v r="$(json_num "$(NODE_USER=$user status_json "$NODE")" busy_rate)" 'BEGIN { printf "%.1f", r / 1e6 }')"
}

say "node: $WORKERS workers on 127.0.0.1:$NODE; balancer on :$PORT; $ROUNDS rounds, seed $SEED"
say "machine: $(cpu_model), $(nproc) CPUs"
for r in $(seq 1 "$ROUNDS"); do
	if [ $((r % 2)) = 1 ]; then order="direct balancer"; else order="balancer direct"; fi
	for target in $order; do
		say "round $r: $target"
		if [ "$target" = direct ]; then round direct "$NODE"; else round balancer "$PORT"; fi
	done
done

say "medians of $ROUNDS rounds:"
printf '  %-38s %10s %10s %10s\n' figure direct balancer difference
# The figures' order from the file, their values in order from sort.
awk -F, 'NR == FNR { if (!($1 in seen)) { seen[$1]; order[++f] = $1 } next }
	{ v[$1, $2, ++n[$1, $2]] = $3 }
	function median(k, t,   m) {
		m = n[k, t]; if (!m) return ""
		return m % 2 ? v[k, t, (m + 1) / 2] : (v[k, t, m / 2] + v[k, t, m / 2 + 1]) / 2 }
	END { for (i = 1; i <= f; i++) { d = median(order[i], "direct"); b = median(order[i], "balancer")
		printf "  %-38s %10s %10s %10s\n", order[i], (d == "" ? "-" : d), b,
			(d == "" ? "-" : sprintf("%+.6g", b - d)) } }' "$OUT/figures" <(sort -t, -k3,3g "$OUT/figures")
