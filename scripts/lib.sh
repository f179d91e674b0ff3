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

# live_workers_of PID: those of its workers a signal would reach at once:
# neither stopped nor dead (not yet reaped), one a line.
live_workers_of() { ps -o pid=,stat= --ppid "$1" | awk '$2 !~ /^[TtZX]/ { print $1 }'; }

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

# --- the experiment lab's helpers (scripts/exp-*.sh, plot-*.sh) ---

# ncpus: the CPUs this shell may run on, which is what the master's
# `--workers auto` and revhash-bench's default --workers come to.
ncpus() { nproc; }

# now_s: seconds since the epoch, with microseconds (bash's own clock).
now_s() { echo "$EPOCHREALTIME"; }

# need_gnuplot: gnuplot is there, or gets installed (install-deps.sh --plot).
need_gnuplot() {
	command -v gnuplot >/dev/null 2>&1 && return 0
	"$ROOT/scripts/install-deps.sh" --plot || fail "gnuplot is missing"
}

# workers_asked MASTER_ARGS...: the worker count a master started with these
# arguments runs.
workers_asked() {
	local w
	w=$(ncpus)
	while [ $# -gt 0 ]; do [ "$1" = --workers ] && w=$2; shift; done
	echo "$w"
}

# bench_policy MASTER_ARGS...: the revhash-bench options that describe a
# master started with these arguments, so its ideal follows the same policy.
bench_policy() {
	local out=()
	while [ $# -gt 0 ]; do
		case $1 in
		--schedule | --workers) out+=("$1" "$2"); shift ;;
		--no-preempt | --no-split) out+=("$1") ;;
		esac
		shift
	done
	echo "${out[@]}"
}

# policy_columns MASTER_ARGS...: "workers,schedule,preempt,split,cache,attach"
# for a master started with these arguments (defaults filled in).
policy_columns() {
	local w s=wsrpt p=1 sp=1 c=default a=1
	w=$(ncpus)
	while [ $# -gt 0 ]; do
		case $1 in
		--workers) w=$2; shift ;;
		--schedule) s=$2; shift ;;
		--cache-entries) c=$2; shift ;;
		--no-preempt) p=0 ;;
		--no-split) sp=0 ;;
		--no-attach) a=0 ;;
		esac
		shift
	done
	echo "$w,$s,$p,$sp,$c,$a"
}

# status_json PORT: the master's --status --json (empty when it is gone).
status_json() { "$MASTER" --status "$1" --json 2>/dev/null; }

# busy_rate JSON: from a master's --status --json, the rate its workers
# hashed at per second of their hashing CPU time (hashes/s; 0 when they
# hashed nothing, empty for no JSON).
busy_rate() { sed -n 's/.*"busy_rate":\([0-9]*\).*/\1/p' <<<"$1"; }

# eff_at RATE CSV OUT WORKLOAD_AND_POLICY_ARGS...: score the replay CSV
# recorded again at RATE (revhash-bench --rescore, its output into OUT)
# and print the efficiency, or n/a.
eff_at() {
	local rate=$1 csv=$2 out=$3 eff=n/a
	shift 3
	if [ "${rate:-0}" -gt 0 ] && "$BENCH" x 1 "$@" --rescore "$csv" --rate "$rate" >"$out" 2>&1; then
		IFS=, read -r _ _ _ _ _ _ eff _ <<<"$(bench_summary "$out")"
	fi
	echo "${eff:-n/a}"
}

# The figures bench_summary prints, in its order.
BENCH_COLUMNS=reliability,score,p50_ms,p99_ms,rate,ideal,eff,best_ideal,best_policy,eff_best,first_n,first_ms,first_score,repeat_n,repeat_ms,repeat_score

# bench_summary FILE: the figures of a revhash-bench replay's output as one
# CSV line (BENCH_COLUMNS); a figure the run did not print is left empty,
# an efficiency that is n/a reads n/a. Policies read "wsrpt/preemptive/...".
bench_summary() {
	awk '
	function after(s, re) { return match(s, re) ? substr(s, RSTART + RLENGTH) : "" }
	function num(s) { sub(/[^0-9.].*/, "", s); return s }
	function eff(s) { return s ~ /^ = / ? num(substr(s, 4)) : "n/a" }
	function policy(s) { s = substr(s, 2, index(s, ")") - 2); gsub(/, /, "/", s); return s }
	function part(s, k) { n = split(s, f, /[ ,]+/); v[k "_n"] = f[2]
		v[k "_ms"] = f[6] == "n/a" ? "" : f[6]; v[k "_score"] = f[n] }
	/^Results: / { v["reliability"] = $2; v["score"] = $3 }
	/^latency: p50 / { v["p50_ms"] = $3; v["p99_ms"] = $6 }
	/^hash rate: [0-9]/ { v["rate"] = sprintf("%.0f", $3 * 1e6) }
	/^ideal \(/ { v["ideal"] = num(after($0, "[)]: ")); v["eff"] = eff(after($0, ", efficiency")) }
	/^best policy ideal \(/ { v["best_policy"] = policy(after($0, "^best policy ideal "))
		v["best_ideal"] = num(after($0, "[)]: ")); v["eff_best"] = eff(after($0, "efficiency vs best")) }
	/^first-time: / { part($0, "first") }
	/^repeated: / { part($0, "repeat") }
	END { n = split(cols, c, ","); for (i = 1; i <= n; i++) printf "%s%s", v[c[i]], i < n ? "," : "\n" }
	' cols="$BENCH_COLUMNS" "$1"
}

# proc_ticks PID...: CPU time used so far by these processes, user + system,
# in clock ticks (fields 14 and 15 of /proc/PID/stat, after the name).
proc_ticks() {
	local p t=0 f
	for p in "$@"; do
		f=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null) || continue
		set -- $f
		t=$((t + ${12} + ${13}))
	done
	echo "$t"
}

# proc_hwm_kb PID: the process's peak resident set (VmHWM), in kB.
proc_hwm_kb() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status" 2>/dev/null; }

# sample_status PORT OUT.csv PID: while PID lives, about every 100 ms, and
# once more when it has ended, one row of the master's live status (master
# --status --json): seconds since the sampling began, jobs in the table,
# jobs queued for a worker, workers hashing, workers. At least two rows,
# however short the run; each sample costs about 2 ms of CPU.
sample_status() {
	local port=$1 out=$2 pid=$3 t0=$EPOCHREALTIME alive=1
	echo "t_s,jobs_in_table,jobs_queued,hashing,workers" >"$out"
	while :; do
		status_json "$port" | awk -v t0="$t0" -v t="$EPOCHREALTIME" '
		function field(k) { return match($0, "\"" k "\":[0-9]+") ? substr($0, RSTART + length(k) + 3, RLENGTH - length(k) - 3) : "" }
		{ n = split($0, w, /"state":"/); busy = 0
		  for (i = 2; i <= n; i++) busy += w[i] ~ /^hashing/
		  printf "%.3f,%s,%s,%d,%d\n", t - t0, field("jobs_in_table"), field("jobs_queued"), busy, n - 1 }' >>"$out"
		[ $alive = 1 ] || break
		kill -0 "$pid" 2>/dev/null || alive=0
		[ $alive = 0 ] || sleep 0.1
	done
}
