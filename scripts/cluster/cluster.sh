#!/usr/bin/env bash
# A revhash cluster: N masters, each a whole revhash, behind HAProxy in TCP
# mode, which picks a node by a consistent hash of the request's first 48
# bytes (digest, start, end) and checks each node by asking it a question
# whose answer it knows. No coordinator of our own (docs/cluster.md).
#   cluster.sh start [--nodes N] [--port P] [--workers W] [--bind ADDR] [--per-source C]
#                    [--fin-timeout S] [--stats-port S] [--netns | --hosts H:P,...] [--user NAME]
#   cluster.sh status [--port P]     each node as the balancer sees it, its counters and
#                                    exporter; exit 1 when one of them is not serving
#   cluster.sh node-start I [--port P] [--workers W]   local node I again, on its port
#   cluster.sh stop [--port P]       the balancer, then every node at once; the logs kept
#   cluster.sh config [start's options]   print the HAProxy config start would write
#                                    (as root, make the nodes' user and socket folder)
# Where each part listens, the defaults, the options, the run dir, what
# stop keeps and what stop and status believe: docs/cluster.md.
set -u
. "$(dirname "$0")/../lib.sh"

# Absolute: start-stop-daemon's --exec takes a relative path from /.
MASTER=$(realpath -m -- "$MASTER")
METRICS=$(realpath -m -- "${REVHASH_METRICS:-$ROOT/master/revhash-metrics}")
CMD=${1:-}
[ $# -gt 0 ] && shift
NODES=3 PORT=5003 WORKERS="" STATS_PORT="" HOSTS="" NETNS=0 BIND=127.0.0.1
PER_SOURCE=64 FIN_TIMEOUT=5 USER_SAID=""
opts "--nodes=NODES --port=PORT --workers=WORKERS --stats-port=STATS_PORT --hosts=HOSTS \
--bind=BIND --per-source=PER_SOURCE --fin-timeout=FIN_TIMEOUT --user=USER_SAID --netns:NETNS=1 --rest" "$@"
NODE=${ARGS[0]:-}
WORKERS_SAID=${WORKERS:+1}
WORKERS=${WORKERS:-1}
uint() { [[ $1 =~ ^[0-9]+$ ]] && [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }
uint "$NODES" 1 63 || fail "--nodes: 1 .. 63, not '$NODES'"
uint "$PORT" 1 $((65535 - 300)) || fail "--port: 1 .. 65235, not '$PORT'"
uint "$WORKERS" 1 64 || fail "--workers: 1 .. 64, not '$WORKERS'"
uint "$PER_SOURCE" 1 100000 || fail "--per-source: 1 .. 100000, not '$PER_SOURCE'"
uint "$FIN_TIMEOUT" 1 86400 || fail "--fin-timeout: 1 .. 86400 seconds, not '$FIN_TIMEOUT'"
[[ $BIND =~ ^[0-9A-Fa-f.:]+$ ]] || fail "--bind: an IPv4 or IPv6 address, not '$BIND'"
STATS_PORT=${STATS_PORT:-$((PORT + 100))}
uint "$STATS_PORT" 1 65535 || fail "--stats-port: 1 .. 65535, not '$STATS_PORT'"
[ -z "$USER_SAID" ] || [[ $USER_SAID =~ ^[a-z_][a-z0-9_-]*$ ]] ||
	fail "--user: a user name, not '$USER_SAID'"
[ -z "$USER_SAID" ] || [ "$(id -u)" = 0 ] || fail "--user: only root runs the nodes as another user"
RUN=$(run_base)/revhash-cluster-$PORT || exit 1
# Root runs the nodes, exporters and balancer as a user of their own
# (recorded at start); anyone else runs them.
NODE_USER=""
if [ "$(id -u)" = 0 ]; then
	case $CMD in
	start | config) NODE_USER=${USER_SAID:-revhash} ;;
	*) NODE_USER=$(cat "$RUN/user" 2>/dev/null) || NODE_USER=${USER_SAID:-revhash} ;;
	esac
	[[ $NODE_USER =~ ^[a-z_][a-z0-9_-]*$ ]] || fail "$RUN/user: '$NODE_USER' is no user name"
fi
# The nodes' sockets, in a folder only the nodes' user may use: the run
# dir, or for root's, one of theirs in /run that the balancer is chrooted into.
SOCKS=$RUN
[ -n "$NODE_USER" ] && SOCKS=/run/revhash-nodes-$PORT

# --- the run dir ------------------------------------------------------

# put NAME TEXT: TEXT into $RUN/NAME, by a new file renamed over it:
# never written through whatever stands at NAME (a link).
put() {
	local tmp
	tmp=$(mktemp "$RUN/.put.XXXXXX") || fail "cannot write in $RUN"
	if ! { printf '%s\n' "$2" >"$tmp" && mv -f -T -- "$tmp" "$RUN/$1"; }; then
		rm -f -- "$tmp"
		fail "cannot write $RUN/$1"
	fi
}

# appendable PATH: PATH, a log, is absent or a regular file of this user
# (not a link), so appending to it writes nowhere else; fails otherwise.
appendable() {
	{ [ ! -e "$1" ] && [ ! -L "$1" ]; } ||
		[ -n "$(find "$1" -maxdepth 0 -type f -user "$(id -u)")" ] ||
		fail "$1: not a regular file of this user's (a link?): not written"
}

# recorded NAME: the pid in $RUN/NAME.pid (empty, non-zero without one).
recorded() {
	local pid
	pid=$(cat "$RUN/$1.pid" 2>/dev/null) && [[ $pid =~ ^[0-9]+$ ]] && echo "$pid"
}

# running NAME EXE LISTEN: NAME's recorded pid runs EXE (start-stop-daemon
# --exec: the program, not a name anyone may take) and listens at LISTEN:
# a pid reused by another program, or a master of another port, is not.
running() {
	local pid
	pid=$(recorded "$1") && start-stop-daemon --status --pidfile "$RUN/$1.pid" --exec "$2" &&
		pid_listens "$pid" "$3"
}

# signal NAME EXE ARGS...: NAME's recorded pid signalled (--signal S or
# --retry SCHEDULE) only while it runs EXE; non-zero when it outlives a --retry.
signal() { start-stop-daemon --stop --quiet --oknodo --pidfile "$RUN/$1.pid" --exec "$2" "${@:3}"; }

# --- the nodes --------------------------------------------------------

# The balancer's check of a node: the digest of 1, range [0, 2], priority
# 1, whose reply must be 1 (a node's first check searched, the rest cached).
CHECK_REQUEST=$(digest_of 1)0000000000000000000000000000000201
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

# node_ready PID LISTEN PORT: master PID listens at LISTEN and its
# --status names it; asked without a connection, which a counter would see.
node_ready() {
	pid_listens "$1" "$2" && [ "$(json_num "$(status_json "$3")" pid)" = "$1" ]
}

# node_listen NAME PORT KIND: where node NAME listens, as pid_listens
# takes it: unix:SOCKET for a local node, the TCP port for a namespaced one.
node_listen() {
	if [ "$3" = local ]; then echo "unix:$SOCKS/$1.sock"; else echo "$2"; fi
}

# user_ready: the nodes' user exists (made a system user, no login, no
# home) and their socket folder is theirs alone, 0700 (a link, another's
# or an open one fails).
user_ready() {
	[ -n "$NODE_USER" ] || return 0
	if ! id "$NODE_USER" >/dev/null 2>&1; then
		useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin \
			"$NODE_USER" 2>/dev/null || id "$NODE_USER" >/dev/null 2>&1 ||
			fail "could not make the system user $NODE_USER (--user NAME names another)"
		say "made the system user $NODE_USER for the nodes (no login, no home)"
	fi
	[ "$(id -u "$NODE_USER")" != 0 ] || fail "--user $NODE_USER is root"
	[ -e "$SOCKS" ] || [ -L "$SOCKS" ] ||
		install -d -m 700 -o "$NODE_USER" -g "$(id -g "$NODE_USER")" "$SOCKS"
	own_dir "$SOCKS" "$NODE_USER" ||
		fail "$SOCKS: not a folder of $NODE_USER's own, mode 0700 (a link, another's, or open)"
}

# node_start NAME ADDRESS PORT KIND: start the master of a local or
# namespaced node, recorded as $RUN/NAME.pid, and wait until it serves;
# fails, with the end of its log, if it does not (one that runs but does
# not serve is stopped). Why a local node has a socket alone, and the
# PROXY header, --no-pin and --gpu off: docs/cluster.md.
node_start() {
	local name=$1 addr=$2 port=$3 kind=$4 log=$RUN/$1.log pid listen
	local wrap=() args=(--workers "$WORKERS" --no-pin --gpu off)
	listen=$(node_listen "$name" "$port" "$kind")
	if [ "$kind" = netns ]; then
		wrap=(ip netns exec "$(ns_name "${name#n}")")
		# the header from this side of its veth pair alone
		args+=(--listen "$addr" --proxy-from "$(subnet).$((4 * ${name#n} + 1))")
	else
		args+=(--listen "$listen")
	fi
	[ -n "$NODE_USER" ] && args+=(--user "$NODE_USER")
	appendable "$log"
	"${wrap[@]}" "$MASTER" "$port" "${args[@]}" 2>>"$log" >/dev/null </dev/null &
	pid=$!
	put "$name.pid" "$pid"
	wait_alive "$pid" 300 node_ready "$pid" "$listen" "$port" &&
		{ metrics_start "$name" "$port"; return 0; }
	tail -n 3 "$log" >&2
	alive "$pid" || fail "node $name: its master exited at start (port $port taken?" \
		"its log: $log)"
	signal "$name" "$MASTER" --retry TERM/3/KILL/2
	fail "node $name: its master (pid $pid) does not serve port $port after 6 s"
}

# metrics_port NAME: the port of node NAME's exporter.
metrics_port() { echo $((PORT + 200 + ${1#n})); }

# metrics_start NAME PORT: node NAME's Prometheus exporter, where built,
# once it listens; one that does not is said and left out (status: down).
metrics_start() {
	local mport pid
	mport=$(metrics_port "$1")
	[ -x "$METRICS" ] || return 0
	appendable "$RUN/$1-metrics.log"
	user_argv "$NODE_USER" # setpriv execs: the pid is the exporter's
	"${AS_USER[@]}" "$METRICS" "$2" --listen "127.0.0.1:$mport" \
		2>>"$RUN/$1-metrics.log" >/dev/null </dev/null &
	pid=$!
	put "$1-metrics.pid" "$pid"
	wait_alive "$pid" 100 pid_listens "$pid" "$mport" && return 0
	say "WARNING: node $1's exporter does not serve 127.0.0.1:$mport: $(tail -n 1 "$RUN/$1-metrics.log" 2>/dev/null)" >&2
}

# metrics_state NAME: node NAME's exporter: its port when it serves,
# "down" when it was started and does not, "-" when there is none.
metrics_state() {
	recorded "$1-metrics" >/dev/null || { echo -; return; }
	running "$1-metrics" "$METRICS" "$(metrics_port "$1")" && { echo ":$(metrics_port "$1")"; return; }
	echo down
}

# stop_node NAME PORT LISTEN: stop node NAME's master and exporter, each
# only while its record vouches for it (running): a stopped master and its
# workers continued first, SIGTERM, SIGQUIT 3 s on, SIGKILL 2 s later (its
# workers die with it); then the segment a killed master left. Non-zero
# when it had to be killed.
stop_node() {
	local pid rc=0
	running "$1-metrics" "$METRICS" "$(metrics_port "$1")" &&
		signal "$1-metrics" "$METRICS" --retry TERM/2/KILL/1
	pid=$(recorded "$1") || return 0
	if running "$1" "$MASTER" "$3"; then
		start-stop-daemon --stop --quiet --oknodo --ppid "$pid" --exec "$MASTER" --signal CONT
		signal "$1" "$MASTER" --signal CONT
		signal "$1" "$MASTER" --retry TERM/3/QUIT/2 || {
			signal "$1" "$MASTER" --retry KILL/2
			say "node $1: master $pid killed"
			rc=1
		}
	fi
	drop_segments "$2" "$pid"
	return $rc
}

# drop_segments PORT PID: the segments master PID of PORT left in
# /dev/shm (revhash-PORT-PID[.N]), each only a regular file of the nodes'
# user with no group or other bits that nobody holds locked (docs/cluster.md):
# opened without O_CREAT, looked at again under the lock.
drop_segments() {
	local f uid
	uid=$(id -u "${NODE_USER:-$(id -un)}")
	while IFS= read -r -d '' f; do
		# shellcheck disable=SC2016 # the inner shell expands them
		timeout 3 bash -c 'exec 9<"$1" && flock -x -w 1 9 &&
			find "$1" -maxdepth 0 -type f -user "$2" ! -perm /077 -delete' _ "$f" "$uid" ||
			say "$f: in use: left"
	done < <(find /dev/shm -maxdepth 1 -regextype posix-extended \
		-regex "/dev/shm/revhash-$1-$2(\.[0-9]+)?" -type f -user "$uid" ! -perm /077 -print0)
}

# --- the balancer -----------------------------------------------------

# unprivileged: as root, HAProxy gives root up once its ports are bound:
# it becomes the nodes' user, chrooted into their socket folder.
unprivileged() {
	[ -n "$NODE_USER" ] || return 0
	printf '\tuser %s\n\tgroup %s\n\tchroot %s\n' "$NODE_USER" "$(id -gn "$NODE_USER")" "$SOCKS"
}

# config < NODE_TABLE: the HAProxy configuration, haproxy.cfg.in filled
# (an IPv6 --bind as ipv6@ADDR).
config() {
	fill PORT="$PORT" MAXCONN="$(max_connections)" UNPRIVILEGED="$(unprivileged)" \
		FIN_TIMEOUT="$FIN_TIMEOUT" BIND_AT="${BIND/#*:*/ipv6@$BIND}" PER_SOURCE="$PER_SOURCE" \
		CHECK_REQUEST="$CHECK_REQUEST" CHECK_REPLY="$CHECK_REPLY" SERVERS="$(servers)" \
		STATS_PORT="$STATS_PORT" <"$ROOT/scripts/cluster/haproxy.cfg.in"
}

# servers < NODE_TABLE: the balancer's server lines: a local node at its
# socket (inside root's chroot), others at their address; the nodes this
# script starts take a PROXY header, checks included.
servers() {
	local name addr port kind at
	while read -r name addr port kind; do
		case $kind in
		remote) printf '\tserver %s %s:%s\n' "$name" "$addr" "$port"; continue ;;
		local) at=unix@$SOCKS/$name.sock; [ -z "$NODE_USER" ] || at=unix@/$name.sock ;;
		*) at=$addr:$port ;;
		esac
		printf '\tserver %s %s send-proxy-v2 check-send-proxy\n' "$name" "$at"
	done
}

# max_connections: HAProxy's connections: two descriptors each within
# this shell's hard limit, at most 20,000.
max_connections() {
	local hard
	hard=$(ulimit -Hn)
	[[ $hard =~ ^[0-9]+$ ]] || hard=40200
	hard=$(((hard - 200) / 2))
	echo $((hard < 20000 ? hard : 20000))
}

# prometheus_config < NODE_TABLE: a Prometheus config that scrapes every
# local node's exporter and the balancer's own /metrics.
prometheus_config() {
	local targets="" name
	while read -r name _ _ kind; do
		[ "$kind" = remote ] || targets+="${targets:+, }'127.0.0.1:$(metrics_port "$name")'"
	done
	fill PORT="$PORT" RUN="$RUN" TARGETS="$targets" STATS_PORT="$STATS_PORT" \
		<"$ROOT/scripts/cluster/prometheus.yml.in"
}

# balancer_view: "NAME STATUS PICKED" for each node, as HAProxy's stats
# say (UP, DOWN, UP_1/2...; connections sent there); non-zero when silent.
balancer_view() {
	local rows
	rows=$(haproxy_stats "$STATS_PORT" status lbtot) || return 1
	awk '$1 == "nodes" && $2 != "BACKEND" { print $2, $3, $4 }' <<<"$rows"
}

# all_up N: the balancer sees N nodes UP.
all_up() { [ "$(balancer_view | awk '$2 == "UP"' | wc -l)" = "$1" ]; }

# balancer_start: HAProxy on $RUN/haproxy.cfg, recorded as
# $RUN/haproxy.pid, ready once its statistics answer (a probe on its own
# port would be a connection handed to a node).
balancer_start() {
	local pid
	haproxy -c -q -f "$RUN/haproxy.cfg" || fail "haproxy refused $RUN/haproxy.cfg"
	appendable "$RUN/haproxy.log"
	haproxy -db -f "$RUN/haproxy.cfg" >>"$RUN/haproxy.log" 2>&1 </dev/null &
	pid=$!
	put haproxy.pid "$pid"
	wait_alive "$pid" 300 balancer_view >/dev/null && return 0
	alive "$pid" || { tail -n 5 "$RUN/haproxy.log" >&2; fail "haproxy exited at start" \
		"(port $PORT or $STATS_PORT taken?)"; }
	fail "haproxy's statistics did not answer on 127.0.0.1:$STATS_PORT within 6 s"
}

# --- the commands -----------------------------------------------------

# stop_all: stop what $RUN says runs: the balancer (in flight has 3 s),
# then every node at once; the logs into $RUN.logs (savelog keeps three of
# each), the run dir removed. Goes on past what would not stop, and fails.
stop_all() {
	local rc=0 pid name port kind hap f i logs=$RUN.logs stops=() nets=()
	hap=$(command -v haproxy)
	if running haproxy "$hap" "$PORT"; then
		signal haproxy "$hap" --signal CONT
		signal haproxy "$hap" --retry USR1/4 ||
			{ signal haproxy "$hap" --retry KILL/2; say "haproxy $(recorded haproxy) killed"; rc=1; }
	fi
	# Waited for by pid: a failed start's jobs include what it started.
	while read -r name _ port kind; do
		[ "$kind" = remote ] && continue
		[ "$kind" = netns ] && nets+=("${name#n}")
		stop_node "$name" "$port" "$(node_listen "$name" "$port" "$kind")" &
		stops+=($!)
	done < <(cat "$RUN/nodes" 2>/dev/null)
	for pid in "${stops[@]}"; do wait "$pid" || rc=1; done
	for i in "${nets[@]}"; do netns_down "$i"; done
	# Root's socket folder, the nodes' user's (what a killed node left).
	[ "$SOCKS" != "$RUN" ] &&
		[ -n "$(find "$SOCKS" -maxdepth 0 -type d -user "$NODE_USER" 2>/dev/null)" ] &&
		rm -rf -- "$SOCKS"
	if own_dir "$logs"; then
		for f in "$RUN"/*.log; do
			[ -f "$f" ] && mv -f -T -- "$f" "$logs/${f##*/}" && savelog -q -l -c 3 "$logs/${f##*/}"
		done
		say "logs kept in $logs"
	else
		say "$logs: not a folder of this user's own, mode 0700: the logs are lost" >&2
		rc=1
	fi
	rm -rf -- "$RUN"
	return $rc
}

start() {
	[ -e "$RUN" ] && fail "$RUN exists: a cluster runs on port $PORT, or was not" \
		"stopped (scripts/cluster/cluster.sh stop --port $PORT)"
	need_built
	need_tool haproxy --cluster || fail "haproxy is missing (scripts/install-deps.sh --cluster)"
	if [ "$NETNS" = 1 ] && [ -n "$HOSTS" ]; then
		fail "--netns and --hosts: choose one"
	elif [ "$NETNS" = 1 ] && ! { [ "$(id -u)" = 0 ] && ip netns list >/dev/null 2>&1; }; then
		say "--netns needs root and ip netns (iproute2): skipped, the nodes run on 127.0.0.1"
		NETNS=0
	elif [ "$NETNS" = 1 ] && ip -4 -o addr show | grep -q " $(subnet)\."; then
		fail "--netns: $(subnet).0/24 is in use here"
	fi
	mkdir -m 700 "$RUN" || fail "cannot create $RUN"
	trap 'stop_all; exit 1' INT TERM
	trap '[ -e "$RUN/started" ] || stop_all' EXIT # undo a start that failed
	put user "$NODE_USER"
	user_ready
	put nodes "$(node_table)"
	put workers "$WORKERS" # node-start's, unless it is told another
	put stats-port "$STATS_PORT"
	while read -r name addr port kind; do
		[ "$kind" = netns ] && netns_up "${name#n}"
		[ "$kind" = remote ] || node_start "$name" "$addr" "$port" "$kind"
	done <"$RUN/nodes"
	put haproxy.cfg "$(config <"$RUN/nodes")"
	put prometheus.yml "$(prometheus_config <"$RUN/nodes")"
	balancer_start
	if ! wait_until 50 0.1 all_up "$(wc -l <"$RUN/nodes")"; then
		[ -n "$HOSTS" ] || { status; fail "not every node came up within 5 s"; }
		say "not every node is up yet (--hosts: are they serving?)"
	fi
	put started ""
	# The cluster serves: an exporter that does not is said, not a failure.
	status serving
}

# counter KEY: KEY in the node's --status --json ($json), or - without it.
counter() { local v; v=$(json_num "$json" "$1"); echo "${v:--}"; }

# status [serving]: the balancer and each node; non-zero, with a line on
# stderr for each, when the balancer, a node or an exporter (unless
# `serving`: then only said) is not serving.
status() {
	local name addr port kind pid view state picked json bad=() hpid exporter shown
	local said=()
	[ -e "$RUN/nodes" ] || fail "no cluster on port $PORT ($RUN)"
	STATS_PORT=$(cat "$RUN/stats-port")
	hpid=$(recorded haproxy)
	running haproxy "$(command -v haproxy)" "$PORT" || bad+=("the balancer (pid ${hpid:-?}) is not running")
	view=$(balancer_view) || bad+=("the balancer's statistics do not answer on :$STATS_PORT")
	say "balancer $BIND:$PORT (pid ${hpid:-?}), stats" \
		"http://127.0.0.1:$STATS_PORT/stats, run dir $RUN"
	printf '%-5s %-21s %-8s %-8s %7s %9s %10s %9s %9s %-8s\n' node address pid balancer \
		picked requests cache_hits jobs answered metrics
	while read -r name addr port kind; do
		pid=- json="" exporter=- state="" picked=""
		if [ "$kind" != remote ]; then
			pid=gone
			running "$name" "$MASTER" "$(node_listen "$name" "$port" "$kind")" && pid=$(recorded "$name")
			json=$(status_json "$port")
			exporter=$(metrics_state "$name")
		fi
		read -r _ state picked < <(grep "^$name " <<<"$view")
		shown=$addr:$port
		[ "$kind" = local ] && shown=unix:$name.sock
		printf '%-5s %-21s %-8s %-8s %7s %9s %10s %9s %9s %-8s\n' "$name" "$shown" \
			"$pid" "${state:-?}" "${picked:-?}" "$(counter requests)" \
			"$(counter cache_hits)" "$(counter jobs)" "$(counter answered)" "$exporter"
		[ "$pid" = gone ] && bad+=("node $name: its master is not running")
		[ "$exporter" = down ] && said+=("node $name: its exporter does not serve :$(metrics_port "$name")")
		[ -n "$view" ] && [ "$state" != UP ] && bad+=("node $name: ${state:-unknown} to the balancer")
	done <"$RUN/nodes"
	for b in "${bad[@]}" "${said[@]}"; do say "DOWN: $b" >&2; done
	[ ${#bad[@]} = 0 ] && { [ ${#said[@]} = 0 ] || [ "${1:-}" = serving ]; }
}

node_again() {
	local name addr port kind pid w
	[ -e "$RUN/nodes" ] || fail "no cluster on port $PORT ($RUN)"
	read -r name addr port kind < <(grep "^n${NODE:-0} " "$RUN/nodes") ||
		fail "node-start: no node '${NODE:-}' (1 .. $(wc -l <"$RUN/nodes"))"
	[ "$kind" = remote ] && fail "node-start: $name is on another host"
	# As many workers as start gave it (checked again), unless told.
	w=$(cat "$RUN/workers" 2>/dev/null)
	[ -z "$WORKERS_SAID" ] && uint "$w" 1 64 && WORKERS=$w
	running "$name" "$MASTER" "$(node_listen "$name" "$port" "$kind")" &&
		fail "node-start: $name still runs (pid $(recorded "$name"))"
	# The dead master's segment (its successor's sweep misses it while a
	# worker still exits); its exporter gone before the successor binds.
	pid=$(recorded "$name") && drop_segments "$port" "$pid"
	running "$name-metrics" "$METRICS" "$(metrics_port "$name")" &&
		signal "$name-metrics" "$METRICS" --retry TERM/2/KILL/1
	user_ready
	node_start "$name" "$addr" "$port" "$kind"
	say "$name serves again on $addr:$port (pid $(recorded "$name"))"
}

case $CMD in
start) start ;;
stop)
	[ -e "$RUN" ] || { say "no cluster on port $PORT"; exit 0; }
	stop_all || fail "not everything stopped cleanly"
	say "stopped the cluster on port $PORT" ;;
status) status ;;
node-start) node_again ;;
config) user_ready && node_table | config ;;
*) fail "usage: $0 start|stop|status|node-start I|config [options] (see the top of $0)" ;;
esac
