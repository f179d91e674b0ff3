#!/usr/bin/env bash
# A revhash cluster: N masters, each a whole revhash, behind HAProxy in TCP
# mode, which picks a node by a consistent hash of the request's first 48
# bytes (digest, start, end) and checks each node by asking it a question
# whose answer it knows. No coordinator of our own (docs/cluster.md).
#   scripts/cluster.sh start [--nodes N] [--port P] [--workers W]
#                            [--stats-port S] [--netns | --hosts H:P,...]
#   scripts/cluster.sh status [--port P]     each node as the balancer sees it,
#                                            and its counters
#   scripts/cluster.sh node-start I [--port P]  start local node I (1..N)
#                                            again, on its port
#   scripts/cluster.sh stop [--port P]       the balancer, then the nodes
#   scripts/cluster.sh config [start's options]  print the HAProxy config
#                                            start would write, start nothing
# The balancer listens on P (default 5003) on every address, the nodes on
# 127.0.0.1:P+1 .. P+N (default 3 nodes of 1 worker), its statistics on
# 127.0.0.1:S (default P+100: /stats, /stats;csv, /metrics for Prometheus).
# --netns runs each node in a network namespace of its own behind a veth
# pair, with its own address (10.X.Y.4i+2, X.Y from P), as separate hosts
# would be (root and `ip netns` only; otherwise said, and nodes run on
# 127.0.0.1). --hosts starts no node: the balancer goes to the masters
# already serving at H:P, ... (other machines). The config, pid files and
# logs live in $XDG_RUNTIME_DIR/revhash-cluster-P (else /tmp/...).
set -u
. "$(dirname "$0")/lib.sh"

CMD=${1:-}
[ $# -gt 0 ] && shift
NODES=3 PORT=5003 WORKERS=1 STATS_PORT="" HOSTS="" NETNS=0 NODE=""
while [ $# -gt 0 ]; do
	case $1 in
	--nodes) NODES=$2; shift ;;
	--port) PORT=$2; shift ;;
	--workers) WORKERS=$2; shift ;;
	--stats-port) STATS_PORT=$2; shift ;;
	--hosts) HOSTS=$2; shift ;;
	--netns) NETNS=1 ;;
	[0-9]*) NODE=$1 ;;
	*) fail "unknown option $1 (see the top of $0)" ;;
	esac
	shift
done
uint() { [[ $1 =~ ^[0-9]+$ ]] && [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }
uint "$NODES" 1 63 || fail "--nodes: 1 .. 63, not '$NODES'"
uint "$PORT" 1 $((65535 - 100)) || fail "--port: 1 .. 65435, not '$PORT'"
uint "$WORKERS" 1 64 || fail "--workers: 1 .. 64, not '$WORKERS'"
STATS_PORT=${STATS_PORT:-$((PORT + 100))}
uint "$STATS_PORT" 1 65535 || fail "--stats-port: 1 .. 65535, not '$STATS_PORT'"
RUN=${XDG_RUNTIME_DIR:-/tmp}/revhash-cluster-$PORT

# --- the nodes --------------------------------------------------------

# The request the balancer checks a node with: the digest of x = 1 (its 8
# bytes little-endian), range [0, 2], priority 1, whose reply must be 1.
# Only a node's first check is searched; the rest are cache hits.
check_request() {
	local digest
	digest=$(printf '\001\0\0\0\0\0\0\0' | sha256sum | cut -c1-64)
	echo "${digest}0000000000000000000000000000000201"
}
CHECK_REPLY=0000000000000001

# ns_name I, veth_name I: node I's network namespace and its veth's end
# on this side (at most 15 characters).
ns_name() { echo "revhash-$PORT-$1"; }
veth_name() { echo "rh${PORT}n$1"; }
# subnet: the /24 of the namespaced nodes, 10.X.Y.0 with X.Y from the port;
# node I's link is 10.X.Y.4I/30: .4I+1 this side, .4I+2 the node.
subnet() { echo "10.$((PORT >> 8 & 255)).$((PORT & 255))"; }

# node_table: one line per node, "NAME ADDRESS PORT KIND", KIND local,
# netns or remote (--hosts).
node_table() {
	local i=0 hp
	if [ -n "$HOSTS" ]; then
		for hp in ${HOSTS//,/ }; do
			i=$((i + 1))
			[[ $hp =~ ^[A-Za-z0-9.-]+:[0-9]+$ ]] || fail "--hosts: HOST:PORT, not '$hp'"
			echo "n$i ${hp%:*} ${hp##*:} remote"
		done
		return
	fi
	for i in $(seq 1 "$NODES"); do
		if [ "$NETNS" = 1 ]; then
			echo "n$i $(subnet).$((4 * i + 2)) $((PORT + i)) netns"
		else
			echo "n$i 127.0.0.1 $((PORT + i)) local"
		fi
	done
}

# netns_ok: this machine lets us give each node a namespace of its own.
netns_ok() {
	[ "$(id -u)" = 0 ] && command -v ip >/dev/null 2>&1 && ip netns list >/dev/null 2>&1
}

# netns_up I: node I's namespace, veth pair and addresses.
netns_up() {
	local ns veth net i=$1
	net=$(subnet)
	ns=$(ns_name "$i")
	veth=$(veth_name "$i")
	ip netns add "$ns" &&
		ip link add "$veth" type veth peer name eth0 netns "$ns" &&
		ip addr add "$net.$((4 * i + 1))/30" dev "$veth" &&
		ip link set "$veth" up &&
		ip -n "$ns" addr add "$net.$((4 * i + 2))/30" dev eth0 &&
		ip -n "$ns" link set eth0 up &&
		ip -n "$ns" link set lo up ||
		fail "could not set up namespace $ns"
}

# netns_down I: remove node I's namespace and veth pair, if there.
netns_down() {
	ip netns del "$(ns_name "$1")" 2>/dev/null
	ip link del "$(veth_name "$1")" 2>/dev/null
	return 0
}

# node_start NAME ADDRESS PORT KIND: start the master of a local or
# namespaced node; its pid into $RUN/NAME.pid. Co-located nodes share the
# CPUs, so the scheduler places their workers (--no-pin): pinned, every
# node's first worker would sit on the first CPU. They would share a GPU
# too, each running a worker on device 0: they run none (--gpu off).
node_start() {
	local name=$1 addr=$2 port=$3 kind=$4 log=$RUN/$1.log pid
	local wrap=()
	[ "$kind" = netns ] && wrap=(ip netns exec "$(ns_name "${name#n}")")
	"${wrap[@]}" "$MASTER" "$port" --workers "$WORKERS" --no-pin --gpu off \
		2>>"$log" >/dev/null </dev/null &
	pid=$!
	echo "$pid" >"$RUN/$name.pid"
	wait_listening "$addr" "$port" "$pid" "$log"
}

# --- the balancer -----------------------------------------------------

# config < NODE_TABLE: the HAProxy configuration.
config() {
	cat <<EOF
# revhash cluster, balancer on port $PORT: written by scripts/cluster.sh
# (docs/cluster.md explains each line).
global
	log stderr format short local0 notice
	hard-stop-after 10s

defaults
	mode tcp
	log global
	option tcplog
	timeout connect 2s
	timeout client 24h
	timeout server 24h
	timeout check 1s
	retries 1
	option redispatch

frontend revhash
	bind :$PORT
	tcp-request inspect-delay 5s
	tcp-request content set-var(txn.key) req.payload(0,48) if { req.len ge 49 }
	tcp-request content accept if { req.len ge 49 }
	default_backend nodes

backend nodes
	balance hash var(txn.key)
	hash-type consistent
	option tcp-check
	tcp-check send-binary $(check_request)
	tcp-check expect binary $CHECK_REPLY
	default-server check inter 500ms fastinter 250ms downinter 500ms fall 2 rise 2
EOF
	while read -r name addr port _; do
		printf '\tserver %s %s:%s\n' "$name" "$addr" "$port"
	done
	cat <<EOF

frontend stats
	mode http
	bind 127.0.0.1:$STATS_PORT
	http-request use-service prometheus-exporter if { path /metrics }
	stats enable
	stats uri /stats
	stats refresh 5s
EOF
}

# http_get HOST PORT PATH: the body of an HTTP GET, with bash alone. HAProxy
# sends its pages chunked: "SIZE" (hex), SIZE bytes, an empty line, until
# a size of 0. Each read waits at most 2 s; non-zero unless the status is 200.
http_get() {
	local fd line size chunk LC_ALL=C
	{ exec {fd}<>"/dev/tcp/$1/$2"; } 2>/dev/null || return 1
	printf 'GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n' "$3" "$1" >&"$fd"
	IFS= read -r -t 2 -u "$fd" line && [[ $line == *" 200 "* ]] || { exec {fd}<&-; return 1; }
	while IFS= read -r -t 2 -u "$fd" line && [ -n "${line%$'\r'}" ]; do :; done
	while IFS= read -r -t 2 -u "$fd" size && size=${size%$'\r'} &&
		[[ $size =~ ^[0-9a-fA-F]+$ ]] && ((16#$size > 0)); do
		IFS= read -r -N $((16#$size)) -t 2 -u "$fd" chunk || break
		printf '%s' "$chunk"
		read -r -t 2 -u "$fd" line
	done
	exec {fd}<&-
}

# balancer_view: "NAME STATUS PICKED" for each node, as HAProxy sees it
# (its stats CSV: status UP, DOWN, or on the way "UP_1/2", ...; picked:
# how many connections it sent there).
balancer_view() {
	http_get 127.0.0.1 "$STATS_PORT" '/stats;csv' | awk -F, '
		NR == 1 { sub(/^# /, ""); for (i = 1; i <= NF; i++) col[$i] = i; next }
		$col["pxname"] == "nodes" && $col["svname"] != "BACKEND" {
			s = $col["status"]; gsub(/ /, "_", s)
			print $col["svname"], s, $col["lbtot"] }'
}

# wait_up SECONDS: until the balancer sees every node UP; non-zero when
# it does not within SECONDS.
wait_up() {
	local n
	n=$(wc -l <"$RUN/nodes")
	for _ in $(seq 1 $(($1 * 10))); do
		[ "$(balancer_view | awk '$2 == "UP"' | wc -l)" = "$n" ] && return 0
		sleep 0.1
	done
	return 1
}

# --- the commands -----------------------------------------------------

# stop_all: stop what $RUN says runs, remove $RUN. Goes on past a process
# that would not stop, and says so in its status.
stop_all() {
	local rc=0 pid name addr port kind
	pid=$(cat "$RUN/haproxy.pid" 2>/dev/null)
	if pid_is "$pid" haproxy; then
		kill -USR1 "$pid" # soft stop: sessions end first (hard-stop-after)
		for _ in $(seq 1 150); do alive "$pid" || break; sleep 0.1; done
		alive "$pid" && { kill -KILL "$pid"; say "haproxy $pid killed"; rc=1; }
	fi
	while read -r name addr port kind; do
		pid=$(cat "$RUN/$name.pid" 2>/dev/null)
		pid_is "$pid" master && { (stop_master "$pid" 35) || rc=1; }
		[ "$kind" = netns ] && netns_down "${name#n}"
	done < <(cat "$RUN/nodes" 2>/dev/null)
	rm -rf "$RUN"
	return $rc
}

start() {
	[ -e "$RUN" ] && fail "$RUN exists: a cluster runs on port $PORT, or was not" \
		"stopped (scripts/cluster.sh stop --port $PORT)"
	need_built
	need_tool haproxy --cluster || fail "haproxy is missing (scripts/install-deps.sh --cluster)"
	if [ "$NETNS" = 1 ] && [ -n "$HOSTS" ]; then
		fail "--netns and --hosts: choose one"
	elif [ "$NETNS" = 1 ] && ! netns_ok; then
		say "--netns needs root and ip netns (iproute2): skipped, the nodes run on 127.0.0.1"
		NETNS=0
	elif [ "$NETNS" = 1 ] && ip -4 -o addr show | grep -q " $(subnet)\."; then
		fail "--netns: $(subnet).0/24 is in use here"
	fi
	mkdir -m 700 "$RUN" || fail "cannot create $RUN"
	trap 'stop_all; exit 1' INT TERM
	trap '[ -e "$RUN/started" ] || stop_all' EXIT # undo a start that failed
	node_table >"$RUN/nodes"
	echo "$STATS_PORT" >"$RUN/stats-port"
	while read -r name addr port kind; do
		[ "$kind" = netns ] && netns_up "${name#n}"
		[ "$kind" = remote ] || node_start "$name" "$addr" "$port" "$kind"
	done <"$RUN/nodes"
	config <"$RUN/nodes" >"$RUN/haproxy.cfg"
	haproxy -c -q -f "$RUN/haproxy.cfg" || fail "haproxy refused $RUN/haproxy.cfg"
	haproxy -db -f "$RUN/haproxy.cfg" >>"$RUN/haproxy.log" 2>&1 </dev/null &
	echo $! >"$RUN/haproxy.pid"
	wait_listening 127.0.0.1 "$PORT" $! "$RUN/haproxy.log"
	if ! wait_up 5; then
		[ -n "$HOSTS" ] || { status; fail "not every node came up within 5 s"; }
		say "not every node is up yet (--hosts: are they serving?)"
	fi
	touch "$RUN/started"
	status
}

# counter KEY: KEY in the node's --status --json ($json), or - without it.
counter() { local v; v=$(json_num "$json" "$1"); echo "${v:--}"; }

status() {
	local name addr port kind pid view state picked json
	[ -e "$RUN/nodes" ] || fail "no cluster on port $PORT ($RUN)"
	STATS_PORT=$(cat "$RUN/stats-port")
	view=$(balancer_view) || say "the balancer's statistics did not answer"
	say "balancer :$PORT (pid $(cat "$RUN/haproxy.pid")), stats" \
		"http://127.0.0.1:$STATS_PORT/stats, run dir $RUN"
	printf '%-5s %-21s %-8s %-8s %7s %9s %10s %9s %9s\n' node address pid balancer \
		picked requests cache_hits jobs answered
	while read -r name addr port kind; do
		pid=-
		[ "$kind" = remote ] || pid=$(cat "$RUN/$name.pid" 2>/dev/null)
		[ "$pid" = - ] || pid_is "$pid" master || pid=gone
		read -r _ state picked < <(grep "^$name " <<<"$view")
		json=""
		[ "$kind" = remote ] || json=$(status_json "$port")
		printf '%-5s %-21s %-8s %-8s %7s %9s %10s %9s %9s\n' "$name" "$addr:$port" \
			"$pid" "${state:-?}" "${picked:-?}" "$(counter requests)" \
			"$(counter cache_hits)" "$(counter jobs)" "$(counter answered)"
	done <"$RUN/nodes"
}

node_again() {
	local name addr port kind pid
	[ -e "$RUN/nodes" ] || fail "no cluster on port $PORT ($RUN)"
	read -r name addr port kind < <(grep "^n${NODE:-0} " "$RUN/nodes") ||
		fail "node-start: no node '${NODE:-}' (1 .. $(wc -l <"$RUN/nodes"))"
	[ "$kind" = remote ] && fail "node-start: $name is on another host"
	pid=$(cat "$RUN/$name.pid" 2>/dev/null)
	pid_is "$pid" master && fail "node-start: $name still runs (pid $pid)"
	node_start "$name" "$addr" "$port" "$kind"
	say "$name serves again on $addr:$port (pid $(cat "$RUN/$name.pid"))"
}

case $CMD in
start) start ;;
stop)
	[ -e "$RUN" ] || { say "no cluster on port $PORT"; exit 0; }
	stop_all || fail "not everything stopped cleanly"
	say "stopped the cluster on port $PORT" ;;
status) status ;;
node-start) node_again ;;
config) node_table | config ;;
*) fail "usage: $0 start|stop|status|node-start I|config [options] (see the top of $0)" ;;
esac
