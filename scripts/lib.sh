# The harness the scripts share (sourced, not run), as git's
# t/test-lib.sh: messages and failing, options, ports, starting and
# stopping a master, reading its status. The benchmark's and the lab's
# helpers are in lib-bench.sh. `fail` ends the script non-zero.

# ROOT from this file's place: scripts in cluster/ and lab/ source it too.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MASTER=${REVHASH_MASTER:-$ROOT/master/master}
BENCH=${REVHASH_BENCH:-$ROOT/revhash-bench}
METRICS=${REVHASH_METRICS:-$ROOT/master/revhash-metrics}
CLIENT=${REVHASH_CLUSTER_CLIENT:-$ROOT/${B:-build}/tests/cluster_client} # the tests' client

say() { printf '%s: %s\n' "$(basename "$0")" "$*"; }
fail() { say "FAIL: $*" >&2; exit 1; }
# head_comment: the script's head comment, from its second line up to its
# code: its --help. A first argument --help asks for it before the script
# reads any argument, by option or by place (OWN_HELP=1: it has its own).
head_comment() { sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; }
[ "${1:-}" != --help ] || [ -n "${OWN_HELP:-}" ] || { head_comment; exit 0; }

# opts SPEC "$@": the options SPEC names, parsed by getopt(1), into their
# variables; the other arguments into ARGS. SPEC's words: "--name=VAR" (an
# option with a value), "--flag:VAR=VALUE" (a switch that sets VAR), and
# "--rest" (without it, an argument that is no option fails). Where SPEC
# names no --help, --help prints the script's head comment.
opts() {
	local spec=" $1 " long="" w name set rest=0 parsed OPTS_HELP=0
	shift
	[[ $spec == *" --help:"* ]] || spec+="--help:OPTS_HELP=1 "
	for w in $spec; do
		case $w in
		--rest) rest=1 ;;
		*:*) w=${w%%:*}; long+="${w#--}," ;;
		*=*) w=${w%%=*}; long+="${w#--}:," ;;
		esac
	done
	parsed=$(getopt -n "$(basename "$0")" -o "" -l "${long%,}" -- "$@") ||
		fail "bad options ($0 --help lists them)"
	eval "set -- $parsed"
	while [ "$1" != -- ]; do
		case $spec in
		*" $1="*)
			name=${spec#*" $1="}
			printf -v "${name%% *}" '%s' "$2"
			shift 2 ;;
		*" $1:"*)
			set=${spec#*" $1:"}
			set=${set%% *}
			printf -v "${set%%=*}" '%s' "${set#*=}"
			shift ;;
		esac
	done
	shift
	[ $OPTS_HELP = 0 ] || { head_comment; exit 0; }
	[ $# -eq 0 ] || [ $rest = 1 ] || fail "unexpected argument: $1"
	ARGS=("$@")
}

# need_built [client]: the binaries exist (run `make` first), and with
# `client` the tests' client too.
need_built() {
	[ -x "$MASTER" ] || fail "$MASTER not built (run make)"
	[ -x "$BENCH" ] || fail "$BENCH not built (run make)"
	[ -z "${1:-}" ] || [ -x "$CLIENT" ] || fail "$CLIENT not built (make test-binaries)"
}

# listening PORT: something here listens on TCP PORT (ss: no connection
# that a server would count).
listening() { [ -n "$(ss -Hltn "sport = :$1" 2>/dev/null)" ]; }

# free_port [OFFSET...]: print a TCP port P nobody listens on, nor on
# P + each OFFSET (a cluster's nodes and stats).
free_port() {
	local p o busy
	for _ in $(seq 1 50); do
		p=$((20000 + RANDOM % 12000)) # below the ephemeral range, offsets too
		busy=0
		for o in 0 "$@"; do listening $((p + o)) && busy=1; done
		[ $busy = 0 ] && { echo "$p"; return; }
	done
	fail "no free port found"
}

# run_base: a folder of this user's own for the pid files, configs and
# logs scripts trust: $XDG_RUNTIME_DIR, else /run/revhash for root, else
# /tmp/revhash-UID, made 0700. A link, another user's, or one open to
# group or others fails the script: a pid file or link planted in /tmp
# would have a stop kill or delete what it names (docs/security.md).
run_base() {
	local d=/tmp/revhash-$(id -u)
	[ "$(id -u)" = 0 ] && d=/run/revhash
	d=${XDG_RUNTIME_DIR:-$d}
	own_dir "$d" ||
		fail "$d: not a folder of this user's own that only it may use (a link, another's, or open to group or others: chmod 700 it)"
	echo "$d"
}

# own_dir DIR [USER]: DIR is a folder of USER's (this user's) that only
# USER may use (made 0700 where there is none); non-zero for a link,
# another's or an open one.
own_dir() {
	[ -e "$1" ] || [ -L "$1" ] || mkdir -m 700 "$1" 2>/dev/null
	[ -n "$(find "$1" -maxdepth 0 -type d -user "${2:-$(id -u)}" ! -perm /077 2>/dev/null)" ]
}

# wait_until TRIES PAUSE COMMAND...: COMMAND again every PAUSE seconds
# until it succeeds; non-zero when it failed TRIES times.
wait_until() {
	local n=$1 pause=$2
	shift 2
	until "$@"; do
		n=$((n - 1))
		[ $n -gt 0 ] || return 1
		sleep "$pause"
	done
}

# wait_alive PID TRIES COMMAND...: COMMAND again every 0.02 s until it
# succeeds; non-zero once process PID is gone or TRIES failed.
wait_alive() { wait_until "$2" 0.02 done_or_gone "$@" && alive "$1"; }
done_or_gone() { "${@:3}" || gone "$1"; }

# elapsed T0: the seconds since $EPOCHREALTIME was T0, to 0.01 s.
elapsed() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f\n", b - a }'; }

# digest_of X: the hex SHA-256 of X's 8 bytes, little-endian.
digest_of() { perl -e 'print pack "Q<", shift' "$1" | sha256sum | cut -c1-64; }

# haproxy_stats PORT FIELD...: a row of HAProxy's statistics CSV on
# 127.0.0.1:PORT a line, "PXNAME SVNAME FIELD..." (a value's spaces as
# _: status "no check"); non-zero when it does not answer.
haproxy_stats() {
	local csv fields="$*"
	csv=$(http_get 127.0.0.1 "$1" '/stats;csv' 2>/dev/null) && [ -n "$csv" ] || return 1
	awk -F, -v want="pxname svname ${fields#* }" '
		NR == 1 { sub(/^# /, ""); for (i = 1; i <= NF; i++) col[$i] = i; n = split(want, w, " "); next }
		{ for (i = 1; i <= n; i++) { v = $col[w[i]]; gsub(/ /, "_", v); printf "%s%s", v, i < n ? " " : "\n" } }' <<<"$csv"
}

# start_exporter PORT MPORT LOG: revhash-metrics (METRICS) of the master
# of PORT on 127.0.0.1:MPORT in the background, its pid EXPORTER_PID,
# once it listens there.
start_exporter() {
	"$METRICS" "$1" --listen "127.0.0.1:$2" 2>"$3" &
	EXPORTER_PID=$!
	wait_alive "$EXPORTER_PID" 100 pid_listens "$EXPORTER_PID" "$2" ||
		fail "the exporter does not listen on :$2"
}

# wait_listening PORT PID LOG: until process PID (logging to LOG) listens
# on TCP PORT: at most 6 s not counting a GPU probe (`revhash-gpu --probe`,
# which the master bounds: PROBE_MS); fails, with its log, if it exits.
wait_listening() {
	local name left=300
	name=$(ps -o comm= -p "$2")
	while [ $left -gt 0 ]; do
		pid_listens "$2" "$1" && return 0
		kill -0 "$2" 2>/dev/null || { cat "$3" >&2; fail "$name exited at start"; }
		[[ $(ps -o args= --ppid "$2") == *" --probe"* ]] || left=$((left - 1))
		sleep 0.02
	done
	fail "$name did not start listening on port $1"
}

# pid_listens PID PORT: process PID holds the socket listening on TCP
# PORT, or on the Unix socket PATH where PORT is unix:PATH (in PID's
# network namespace as root), asked without a connection: ss gives the
# socket's inode, and one of PID's descriptors links to it. No process
# name is read: ss -p prints them unescaped, and a name can pass for a pid.
pid_listens() {
	local net=() ino
	[ "$(id -u)" = 0 ] && net=(nsenter -t "$1" -n)
	if [[ $2 == unix:* ]]; then
		# the inode follows the path (which ss's filter takes without spaces)
		ino=$("${net[@]}" ss -Hlx src "${2#unix:}" 2>/dev/null | awk '{ print $6 }')
	else
		ino=$("${net[@]}" ss -Hltne "sport = :$2" 2>/dev/null |
			awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^ino:/) { print substr($i, 5); next } }')
	fi
	for ino in $ino; do
		[ -n "$(find "/proc/$1/fd" -lname "socket:\[$ino\]" 2>/dev/null)" ] && return 0
	done
	return 1
}

# user_argv USER: into AS_USER, the words that run a command as USER
# (setpriv, the same process) where USER is set and this shell is root.
user_argv() {
	AS_USER=()
	if [ -n "$1" ] && [ "$(id -u)" = 0 ] && [ "$1" != root ]; then
		AS_USER=(setpriv --reuid "$1" --regid "$(id -g "$1")" --init-groups --)
	fi
}

# http_get HOST PORT PATH: the body of a GET of PATH (5 s at most);
# non-zero, curl's reason on stderr, without a successful answer.
http_get() { curl -fsSg --max-time 5 "http://$1:$2$3"; }

# start_master PORT LOG ARGS...: the master in the background, once it
# listens, as MASTER_USER where set (and this shell is root); sets MASTER_PID.
start_master() {
	local port=$1 log=$2
	shift 2
	user_argv "${MASTER_USER:-}" # setpriv execs: the pid is the master's
	"${AS_USER[@]}" "$MASTER" "$port" "$@" 2>"$log" &
	MASTER_PID=$!
	wait_listening "$port" "$MASTER_PID" "$log"
}

# start_free LOG ARGS...: start_master on a port nobody listens on, PORT.
start_free() {
	PORT=$(free_port)
	start_master "$PORT" "$@"
}

# workers_of PID: the worker pids of master PID, one a line.
workers_of() { ps -o pid= --ppid "$1" | tr -d ' '; }

# wait_workers PID N SECONDS: until master PID has exactly N workers.
wait_workers() { wait_until $(($3 * 20)) 0.05 has_workers "$1" "$2"; }
has_workers() { [ "$(workers_of "$1" | wc -l)" -eq "$2" ]; }

# alive PID: process PID runs (a zombie, exited but not yet reaped by a
# parent that is not this shell, does not); gone PID: it does not.
alive() { local s; s=$(ps -o stat= -p "$1" 2>/dev/null) && [[ $s != Z* ]]; }
gone() { ! alive "$1"; }

# stop_master PID SECONDS: SIGTERM, and make sure it and its workers are gone.
stop_master() {
	local pid=$1 kids
	kids=$(workers_of "$pid")
	kill -TERM "$pid" 2>/dev/null
	if ! wait_until $(($2 * 20)) 0.05 gone "$pid"; then
		kill -KILL "$pid"
		fail "master $pid did not stop within $2 s"
	fi
	wait "$pid" 2>/dev/null
	for k in $kids; do
		alive "$k" && fail "worker $k outlived the master"
	done
	return 0
}

# unix_ask SOCKET USER DIGEST START END: a request straight to a node's
# socket, without the balancer's header, as USER: the answer, "none" for
# a connection closed without one, or "refused".
unix_ask() {
	local py=/usr/bin/python3 # the system's: another user may not reach ours
	[ -x "$py" ] || py=python3
	user_argv "$2"
	"${AS_USER[@]}" "$py" - "$1" "$3" "$4" "$5" <<'EOF'
import socket, struct, sys
path, digest, lo, hi = sys.argv[1], bytes.fromhex(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(path)
except OSError:
    print("refused"); sys.exit(0)
s.settimeout(10)
try:
    s.sendall(digest + struct.pack(">QQB", lo, hi, 1))
    r = s.recv(8)
except OSError:
    r = b""
print(struct.unpack(">Q", r)[0] if len(r) == 8 else "none")
EOF
}

# --- reading a master; the tools the scripts call ---

# cpu_model: the CPU's model name, as lscpu gives it.
cpu_model() { lscpu | sed -n 's/^Model name: *//p' | head -n 1; }

# need_tool COMMAND [OPTION]: COMMAND is there, or gets installed
# (install-deps.sh OPTION); non-zero when it is still missing.
need_tool() {
	command -v "$1" >/dev/null 2>&1 && return 0
	"$ROOT/scripts/install-deps.sh" ${2:+"$2"} >&2
	command -v "$1" >/dev/null 2>&1
}

# fill NAME=VALUE... < TEXT: TEXT with each ${NAME} in it replaced by
# VALUE (envsubst, told those names alone).
fill() {
	# stdin is the text: an install must not read it up
	need_tool envsubst </dev/null || fail "envsubst is missing (scripts/install-deps.sh)"
	# shellcheck disable=SC2016 # the names, as envsubst is told them
	env "$@" envsubst "$(printf '${%s} ' "${@%%=*}")"
}

# status_json PORT: the master's --status --json (empty when it is gone),
# asked as $NODE_USER where set (--status reads its own user's segments).
status_json() {
	user_argv "${NODE_USER:-}"
	"${AS_USER[@]}" "$MASTER" --status "$1" --json 2>/dev/null
}

# json_num JSON KEY: the whole number under KEY at JSON's top level (the
# master's, never a worker's); empty for none.
json_num() { jq -r --arg k "$2" '.[$k] | numbers | floor' <<<"$1" 2>/dev/null; }
# latency_line FILE: a revhash-bench closed loop's --json latencies on a line; fails for none.
latency_line() { jq -er '.latency_ms | to_entries | map("\(.key) \(.value) ms") | join(", ")' "$1" 2>/dev/null; }
