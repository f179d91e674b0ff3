#!/usr/bin/env bash
# What cluster.sh trusts, tested (by cluster-test.sh; alone too), each
# numbered step saying its own: an IPv6 /64 one source; no write through
# a link; no pid taken on its word; a dead node's segment removed, no
# other. Prints "SKIP: ..." for a part that needs root here.
#   scripts/cluster/cluster-trust-test.sh
set -u
. "$(dirname "$0")/../lib.sh"

# sources_check CFG PORT STATS_PORT (run inside `unshare -n`): the
# balancer of CFG (bound to [::]:PORT, one connection per source) with
# connections held from fd00:1::2, then fd00:1::3 (the same /64: refused),
# fd00:2::1, 127.0.0.2 and 127.0.0.3 (each a source of its own: let in).
sources_check() {
	local cfg=$1 port=$2 stats=$3 hap n=0 from to want dcon total
	{ ip link set lo up && ip addr add fd00:1::2/64 dev lo && ip addr add fd00:1::3/64 dev lo &&
		ip addr add fd00:2::1/64 dev lo; } || fail "could not make the test's addresses"
	haproxy -db -f "$cfg" >"$cfg.log" 2>&1 </dev/null &
	hap=$!
	wait_until 100 0.05 frontend "$stats" >/dev/null
	for from in fd00:1::2/0 fd00:1::3/1 fd00:2::1/1 127.0.0.2/1 127.0.0.3/1; do
		want=${from#*/} from=${from%/*} n=$((n + 1))
		if [[ $from == *:* ]]; then to="[::1]"; else to=127.0.0.1; fi
		sleep 3 | curl -sg --max-time 4 --interface "$from" "telnet://$to:$port" >/dev/null 2>&1 &
		wait_until 100 0.03 counted "$stats" $n
		[ "$dcon" = "$want" ] ||
			{ kill "$hap"; fail "from $from: $dcon connection(s) refused so far, not $want"; }
	done
	kill "$hap"
}

# frontend STATS_PORT: "REFUSED TAKEN", the connections the balancer's
# frontend refused by its rules and those it let in, from its statistics.
frontend() {
	haproxy_stats "$1" dcon stot | awk '$1 == "revhash" && $2 == "FRONTEND" { print $3, $4; ok = 1 } END { exit !ok }'
}

# counted STATS_PORT N: the frontend has refused or taken N connections
# (into dcon and total).
counted() { read -r dcon total < <(frontend "$1"); [ $((dcon + total)) -ge "$2" ]; }

if [ "${1:-}" = --sources ]; then
	sources_check "$2" "$3" "$4"
	exit
fi

need_built
need_tool haproxy --cluster || { echo "SKIP: haproxy is missing"; exit 77; }
CLUSTER=$ROOT/scripts/cluster/cluster.sh
TMP=$(mktemp -d /tmp/revhash-trust.XXXXXX)
PORT=$(free_port 1 2 3 4 100 201 202 203 204)
RUN=$(run_base)/revhash-cluster-$PORT
STRANGER=$(free_port)
while [ "$STRANGER" -ge "$PORT" ] && [ "$STRANGER" -le $((PORT + 204)) ]; do STRANGER=$(free_port); done
MASTER_PID="" FAKES=() DECOYS=() LEFT=()
cleanup() {
	local f
	"$CLUSTER" stop --port "$PORT" >/dev/null 2>&1
	for f in "${FAKES[@]}"; do kill "$f" 2>/dev/null; done
	[ -n "$MASTER_PID" ] && alive "$MASTER_PID" && kill -TERM "$MASTER_PID"
	rm -f -- "${DECOYS[@]}" "${LEFT[@]}"
	rm -rf -- "$TMP"
}
trap cleanup EXIT

# 1. The balancer's sources: HAProxy takes the config; where a network
# namespace can be had, two sources of one /64 count as one and IPv4
# addresses apart; elsewhere the config says so.
"$CLUSTER" config --port "$PORT" --bind :: --per-source 1 >"$TMP/haproxy.cfg" ||
	fail "config failed"
haproxy -c -q -f "$TMP/haproxy.cfg" || fail "haproxy refuses the generated config"
if [ "$(id -u)" = 0 ] && unshare -n true 2>/dev/null; then
	unshare -n "$0" --sources "$TMP/haproxy.cfg" "$PORT" $((PORT + 100)) || exit 1
	say "one connection per source: fd00:1::3 refused beside fd00:1::2 (one /64);" \
		"fd00:2::1, 127.0.0.2 and 127.0.0.3 let in"
else
	say "SKIP: two sources of one /64 (needs root and unshare -n); the config is checked"
fi
grep -q 'track-sc0 src,ipmask(32,64)$' "$TMP/haproxy.cfg" ||
	fail "the stick table does not key sources by their /32 (IPv4) and /64 (IPv6)"

# The stranger and the names stop must leave are the nodes' user's, so
# that only what stop checks of them spares them.
NODE_USER=""
[ "$(id -u)" = 0 ] && NODE_USER=revhash
MASTER_USER=$NODE_USER start_master "$STRANGER" "$TMP/stranger.log" --workers 1 --gpu off
"$CLUSTER" start --nodes 4 --port "$PORT" --workers 1 >/dev/null || fail "the cluster did not start"
node_pid() { local r; read -r r _ <"$RUN/n$1.pid" && echo "$r"; }
# kill_node I: SIGKILL node I's master and wait until it is gone.
kill_node() {
	local p
	p=$(node_pid "$1")
	kill -KILL "$p"
	wait_until 100 0.02 gone "$p" ||
		fail "node $1 (pid $p) outlived SIGKILL"
}

# 2. node-start writes through no link: not its log (it refuses), not
# its pid record (it replaces the link); and the segment of the master
# it replaces is gone.
pid1=$(node_pid 1)
kill_node 1
echo precious >"$TMP/victim"
ln -sf "$TMP/victim" "$RUN/n1.log"
"$CLUSTER" node-start 1 --port "$PORT" >/dev/null 2>&1 &&
	fail "node-start started node 1 with its log a link"
[ "$(cat "$TMP/victim")" = precious ] || fail "node-start wrote through the link of n1.log"
rm -f "$RUN/n1.log"
ln -sf "$TMP/victim" "$RUN/n1.pid"
"$CLUSTER" node-start 1 --port "$PORT" >/dev/null || fail "node 1 did not start again"
[ "$(cat "$TMP/victim")" = precious ] || fail "node-start wrote its pid through the link of n1.pid"
{ [ -f "$RUN/n1.pid" ] && [ ! -L "$RUN/n1.pid" ]; } || fail "n1.pid is not a file of its own"
seg1=(/dev/shm/revhash-$((PORT + 1))-"$pid1"*)
[ -e "${seg1[0]}" ] && { LEFT+=("${seg1[@]}"); fail "node 1's old segment ${seg1[0]} outlived node-start"; }
say "node-start refused a linked log, and replaced a linked pid file, writing through neither;" \
	"the old master's segment is gone"

# 2b. node-start gives a node as many workers as start did (its record,
# $RUN/workers), and takes no number from a record that is none.
[ "$(cat "$RUN/workers")" = 1 ] || fail "start did not record its --workers"
for record in 2 '2; touch x'; do
	want=${record%%;*}
	[ "$record" = "$want" ] || want=1
	kill_node 1
	printf '%s\n' "$record" >"$RUN/workers"
	"$CLUSTER" node-start 1 --port "$PORT" >/dev/null || fail "node 1 did not start again"
	wait_workers "$(node_pid 1)" "$want" 5 ||
		fail "node-start ran $(workers_of "$(node_pid 1)" | wc -l) workers for the record '$record', not $want"
done
say "node-start ran start's worker count (2 from its record), and 1 for a record that is no number"

# 3. Node 2 dies (SIGKILL): its segment stays behind. Beside it, names
# like its segment's that stop must leave, each the nodes' user's: a link
# (to a file of ours), a file locked by a live process (as a master holds
# its own), one readable by others; one of another user; and the segment
# of a live master of another port.
pid2=$(node_pid 2)
kill_node 2
seg2=(/dev/shm/revhash-$((PORT + 2))-"$pid2"*)
{ [ ${#seg2[@]} = 1 ] && [ -f "${seg2[0]}" ]; } || fail "node 2 left no segment to test with (${seg2[*]})"
LEFT+=("${seg2[0]}")
decoy=/dev/shm/revhash-$((PORT + 2))-$pid2
echo mine >"$TMP/target"
ln -s "$TMP/target" "$decoy.900"
(umask 077 && : >"$decoy.901")
(exec 9<"$decoy.901" && flock -x 9 && exec sleep 120) &
FAKES+=($!)
for _ in $(seq 1 100); do flock -n "$decoy.901" true || break; sleep 0.02; done
(umask 022 && : >"$decoy.902")
DECOYS+=("$decoy.900" "$decoy.901" "$decoy.902")
[ -n "$NODE_USER" ] && chown -h "$NODE_USER" "$decoy.900" "$decoy.901" "$decoy.902"
if [ "$(id -u)" = 0 ]; then
	(umask 077 && : >"$decoy.903") && chown nobody "$decoy.903"
	DECOYS+=("$decoy.903")
else
	say "SKIP: a segment name of another user's (needs root to make one)"
fi
stranger_seg=(/dev/shm/revhash-"$STRANGER"-"$MASTER_PID"*)
[ -f "${stranger_seg[0]}" ] || fail "the stranger master has no segment"

# 4. Pids reused: node 3's record names a real master of another port
# (the same program, another start time and port), node 4's a program
# named `master`, the balancer's one named `haproxy`; each of those died.
fake() {
	ln -sf "$(command -v sleep)" "$TMP/$1"
	"$TMP/$1" 120 &
	FAKES+=($!)
	# Until it has exec'd, the child is a copy of this shell.
	wait_until 100 0.01 named $! "$1" || fail "the fake $1 is not named $1"
}
named() { [ "$(ps -o comm= -p "$1")" = "$2" ]; }
renumber() { echo "$2" >"$RUN/$1.pid"; }
for n in 3 4; do
	LEFT+=(/dev/shm/revhash-$((PORT + n))-"$(node_pid $n)")
	kill_node $n
done
read -r hap _ <"$RUN/haproxy.pid"
kill -KILL "$hap"
renumber n3 "$MASTER_PID"
fake master
renumber n4 "${FAKES[-1]}"
fake haproxy
renumber haproxy "${FAKES[-1]}"
status=$("$CLUSTER" status --port "$PORT" 2>"$TMP/status.err") &&
	fail "status exits 0 with the balancer and nodes 2-4 dead"
for n in 2 3 4; do
	[ "$(awk -v n="n$n" '$1 == n { print $3 }' <<<"$status")" = gone ] ||
		fail "status takes another process for node $n: $(grep "^n$n " <<<"$status")"
done
grep -q "DOWN: the balancer" "$TMP/status.err" || fail "status takes the fake haproxy for the balancer"

stopped=$("$CLUSTER" stop --port "$PORT" 2>&1)
for f in "${FAKES[@]}"; do alive "$f" || fail "stop killed process $f, not one of the cluster's"; done
alive "$MASTER_PID" || fail "stop killed the master of port $STRANGER"
[ -e "${seg2[0]}" ] && fail "node 2's segment ${seg2[0]} outlived stop ($stopped)"
for f in "${DECOYS[@]}"; do [ -e "$f" ] || [ -L "$f" ] || fail "stop removed $f, not a segment of node 2"; done
[ "$(cat "$TMP/target")" = mine ] || fail "stop wrote through a link"
[ -f "${stranger_seg[0]}" ] || fail "stop removed the live master's segment ${stranger_seg[0]}"
kept=$(sed -n 's/.*logs kept in //p' <<<"$stopped")
[ -d "$kept" ] || fail "stop did not keep the logs ($stopped)"
rm -rf -- "$kept"
say "stop signalled none of 3 processes that came to hold recorded pids, and removed node 2's" \
	"segment alone of ${#DECOYS[@]} names like it and the live master's"
stop_master "$MASTER_PID" 20
MASTER_PID=""
say "PASS"
