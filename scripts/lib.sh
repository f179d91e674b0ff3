# Shared helpers for the scripts in this folder (sourced, not run).
# Each helper says what it expects; `fail` ends the script non-zero.

ROOT=$(cd "$(dirname "$0")/.." && pwd)
MASTER=${REVHASH_MASTER:-$ROOT/master/master}
BENCH=${REVHASH_BENCH:-$ROOT/revhash-bench}

say() { printf '%s: %s\n' "$(basename "$0")" "$*"; }
fail() { say "FAIL: $*" >&2; exit 1; }

# need_built: the binaries exist (run `make` first).
need_built() {
	[ -x "$MASTER" ] || fail "$MASTER not built (run make)"
	[ -x "$BENCH" ] || fail "$BENCH not built (run make)"
}

# free_port: print a TCP port nobody listens on.
free_port() {
	local p
	for _ in $(seq 1 50); do
		p=$((20000 + RANDOM % 12000)) # below the ephemeral range
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
	done
	fail "no free port found"
}

# start_master PORT LOG ARGS...: start the master in the background, wait
# until it accepts connections; sets MASTER_PID.
start_master() {
	local port=$1 log=$2
	shift 2
	"$MASTER" "$port" "$@" 2>"$log" &
	MASTER_PID=$!
	for _ in $(seq 1 300); do
		(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
		kill -0 "$MASTER_PID" 2>/dev/null || { cat "$log" >&2; fail "master exited at start"; }
		sleep 0.02
	done
	fail "master did not start listening on $port"
}

# workers_of PID: the worker pids of master PID, one a line.
workers_of() { ps -o pid= --ppid "$1" | tr -d ' '; }

# wait_workers PID N SECONDS: until master PID has exactly N workers.
wait_workers() {
	local i
	for i in $(seq 1 $(($3 * 20))); do
		[ "$(workers_of "$1" | wc -l)" -eq "$2" ] && return 0
		sleep 0.05
	done
	return 1
}

# stop_master PID SECONDS: SIGTERM, and make sure it and its workers are gone.
stop_master() {
	local pid=$1 kids i
	kids=$(workers_of "$pid")
	kill -TERM "$pid" 2>/dev/null
	for i in $(seq 1 $(($2 * 20))); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid"
		fail "master $pid did not stop within $2 s"
	fi
	wait "$pid" 2>/dev/null
	for k in $kids; do
		kill -0 "$k" 2>/dev/null && fail "worker $k outlived the master"
	done
	return 0
}
