# Shared helpers for the scripts in this folder (sourced, not run).
# Each helper says what it expects; `fail` ends the script non-zero.

ROOT=$(cd "$(dirname "$0")/.." && pwd)
MASTER=${REVHASH_MASTER:-$ROOT/master/master}
BENCH=${REVHASH_BENCH:-$ROOT/revhash-bench}

say() { printf '%s: %s\n' "$(basename "$0")" "$*"; }
fail() { say "FAIL: $*" >&2; exit 1; }

# opts SPEC "$@": the options SPEC names, into their variables; what
# follows them into ARGS. SPEC's words: "--name=VAR" (an option with a
# value), "--flag:VAR=VALUE" (a switch that sets VAR), and "--rest" (an
# option SPEC does not name starts ARGS; without it, it fails the script).
opts() {
	local spec=" $1 " name set
	shift
	while [ $# -gt 0 ]; do
		case $spec in
		*" $1="*)
			[ $# -ge 2 ] || fail "$1 needs a value"
			name=${spec#*" $1="}
			printf -v "${name%% *}" '%s' "$2"
			shift 2 ;;
		*" $1:"*)
			set=${spec#*" $1:"}
			set=${set%% *}
			printf -v "${set%%=*}" '%s' "${set#*=}"
			shift ;;
		*)
			case $spec in *" --rest "*) break ;; esac
			fail "unknown option $1" ;;
		esac
	done
	ARGS=("$@")
}

# need_built: the binaries exist (run `make` first).
need_built() {
	[ -x "$MASTER" ] || fail "$MASTER not built (run make)"
	[ -x "$BENCH" ] || fail "$BENCH not built (run make)"
}

# listening HOST PORT: something accepts connections there (a refusal
# answers at once; only reachable hosts are asked).
listening() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

# free_port [OFFSET...]: print a TCP port P nobody listens on, nor on
# P + each OFFSET (a cluster's nodes and stats).
free_port() {
	local p o busy
	for _ in $(seq 1 50); do
		p=$((20000 + RANDOM % 12000)) # below the ephemeral range, offsets too
		busy=0
		for o in 0 "$@"; do listening 127.0.0.1 $((p + o)) && busy=1; done
		[ $busy = 0 ] && { echo "$p"; return; }
	done
	fail "no free port found"
}

# run_base: a folder of this user's own for pid files, configs and logs
# that scripts trust: $XDG_RUNTIME_DIR, else /run/revhash for root, else
# /tmp/revhash-UID, made 0700. One that is a symbolic link, not a folder,
# another user's, or writable by group or others fails the script: anyone
# may create names in /tmp, and a planted pid file or link there would
# have a stop kill or delete what it names.
run_base() {
	local d uid
	uid=$(id -u)
	if [ -n "${XDG_RUNTIME_DIR:-}" ]; then
		d=$XDG_RUNTIME_DIR
	elif [ "$uid" = 0 ]; then
		d=/run/revhash
	else
		d=/tmp/revhash-$uid
	fi
	[ -e "$d" ] || [ -L "$d" ] || mkdir -m 700 "$d" 2>/dev/null
	[ -n "$(find "$d" -maxdepth 0 -type d -user "$uid" ! -perm /022 2>/dev/null)" ] ||
		fail "$d: not a folder of this user's own that only it may write (a link, another's, or group/other-writable)"
	echo "$d"
}

# wait_listening HOST PORT PID LOG: until process PID (logging to LOG)
# accepts connections on HOST:PORT: at most 6 s once no child of PID
# probes for GPUs (`revhash-gpu --probe`: CUDA's start can take seconds,
# and the master kills a probe at its own deadline, worker/kind_exec.c's
# PROBE_MS, so that bound is the master's); fails, with its log, if it
# exits first.
wait_listening() {
	local name left=300
	name=$(ps -o comm= -p "$3")
	while [ $left -gt 0 ]; do
		listening "$1" "$2" && return 0
		kill -0 "$3" 2>/dev/null || { cat "$4" >&2; fail "$name exited at start"; }
		probing "$3" || left=$((left - 1))
		sleep 0.02
	done
	fail "$name did not start listening on $1:$2"
}

# probing PID: a child of PID runs with --probe (the master's GPU probe).
probing() {
	local c kids
	read -r -a kids <"/proc/$1/task/$1/children" 2>/dev/null || return 1
	for c in "${kids[@]}"; do
		[[ $(tr '\0' ' ' <"/proc/$c/cmdline" 2>/dev/null) == *" --probe"* ]] && return 0
	done
	return 1
}

# pid_listens PID PORT: process PID holds a socket listening on TCP PORT
# (in its own network namespace), found without connecting to it: the
# port's listening sockets in /proc/PID/net/tcp and tcp6 (state 0A, the
# inode in field 10), and one of them among PID's descriptors. The kernel
# lists every listening socket before any connection, so each table is
# read up to its first connection: on a machine busy with tests the
# whole tables held 34,000 lines, and reading them took up to 0.9 s.
pid_listens() {
	local hex ino fds
	hex=$(printf '%04X' "$2")
	fds=$(ls -l "/proc/$1/fd" 2>/dev/null) || return 1
	for ino in $(awk -v p=":$hex" 'FNR > 1 && $4 != "0A" { nextfile }
		$4 == "0A" && substr($2, length($2) - 4) == p { print $10 }' \
		"/proc/$1/net/tcp" "/proc/$1/net/tcp6" 2>/dev/null); do
		[[ $fds == *"socket:[$ino]"* ]] && return 0
	done
	return 1
}

# http_get HOST PORT PATH: the body of an HTTP GET of PATH (curl, at most
# 5 s in all); non-zero, with curl's reason on stderr, when there is no
# answer or its status is not a success.
http_get() { curl -fsSg --max-time 5 "http://$1:$2$3"; }

# start_master PORT LOG ARGS...: start the master in the background, wait
# until it accepts connections; sets MASTER_PID.
start_master() {
	local port=$1 log=$2
	shift 2
	"$MASTER" "$port" "$@" 2>"$log" &
	MASTER_PID=$!
	wait_listening 127.0.0.1 "$port" "$MASTER_PID" "$log"
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

# alive PID: process PID runs (a zombie, exited but not yet reaped by a
# parent that is not this shell, does not).
alive() { local s; s=$(ps -o stat= -p "$1" 2>/dev/null) && [[ $s != Z* ]]; }

# --- processes known by more than their pid ---
# A pid is reused once its process is gone, and a name (comm) is anyone's:
# a Postfix `master` or the system's HAProxy may come to hold a pid a node
# had. So what a script starts is recorded as "PID START PORT EXE"
# (proc_record), and it is signalled or vouched for only while all four
# still hold (proc_is).

# proc_start PID: when process PID started, in clock ticks since boot:
# field 22 of /proc/PID/stat, counted after the name (which may hold
# spaces and parentheses). Non-zero when PID does not run.
proc_start() {
	local f
	f=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	read -r -a f <<<"${f##*) }"
	[ -n "${f[19]:-}" ] && echo "${f[19]}"
}

# proc_exe PID: the program process PID runs, as /proc/PID/exe names it
# (without " (deleted)": a binary rebuilt while it runs); non-zero when
# that cannot be read (gone, a zombie, another user's).
proc_exe() {
	local e
	e=$(readlink "/proc/$1/exe" 2>/dev/null) && [ -n "$e" ] && echo "${e% (deleted)}"
}

# proc_record PID PORT EXE: the record of process PID, just started to
# run EXE (any path to it) and serve TCP PORT: "PID START PORT EXE", the
# program's real path. Non-zero when PID is already gone.
proc_record() {
	local start exe
	start=$(proc_start "$1") && exe=$(realpath -e -- "$3") && echo "$1 $start $2 $exe"
}

# proc_same PID START EXE: process PID is the one that started at START
# running EXE (no reused pid), whatever it does now.
proc_same() {
	[[ $1 =~ ^[0-9]+$ ]] && [ "$(proc_start "$1")" = "$2" ] && [ "$(proc_exe "$1")" = "$3" ]
}

# proc_is RECORD: the process RECORD names runs, is the one recorded
# (proc_same) and holds a socket listening on its port (pid_listens).
proc_is() {
	local pid start port exe
	read -r pid start port exe <<<"$1"
	proc_same "$pid" "$start" "$exe" && pid_listens "$pid" "$port"
}

# procs PID...: "PID START EXE" of each of these processes that runs: who
# they are now, to signal them later (signal_procs) and reach no other.
procs() {
	local p s e
	for p in "$@"; do
		s=$(proc_start "$p") && e=$(proc_exe "$p") && echo "$p $s $e"
	done
	return 0
}

# signal_procs SIGNAL < PROCS: SIGNAL to each process procs listed that is
# still the one listed.
signal_procs() {
	local p s e
	while read -r p s e; do
		proc_same "$p" "$s" "$e" && kill "-$1" "$p" 2>/dev/null
	done
	return 0
}

# stop_master PID SECONDS: SIGTERM, and make sure it and its workers are gone.
stop_master() {
	local pid=$1 kids i
	kids=$(workers_of "$pid")
	kill -TERM "$pid" 2>/dev/null
	for i in $(seq 1 $(($2 * 20))); do
		alive "$pid" || break
		sleep 0.05
	done
	if alive "$pid"; then
		kill -KILL "$pid"
		fail "master $pid did not stop within $2 s"
	fi
	wait "$pid" 2>/dev/null
	for k in $kids; do
		alive "$k" && fail "worker $k outlived the master"
	done
	return 0
}

# --- the benchmark's rows (scripts/bench.sh, scripts/scale.sh) ---

# calibrate [MASTER ARGS...]: RATE, the M hashes/s of a master started with
# these arguments, from revhash-bench's calibration (a request big enough
# to hide every per-request cost). Logs go to $OUT.
calibrate() {
	local port
	port=$(free_port)
	start_master "$port" "$OUT/calibrate.log" "$@"
	RATE=$("$BENCH" 127.0.0.1 "$port" 1 1 0 1000 0 0 1.5 --quiet 2>/dev/null |
		sed -n 's/^hash rate: \([0-9.]*\) M hashes\/s (calibrated)/\1/p' | head -n 1)
	stop_master "$MASTER_PID" 60
	[ -n "$RATE" ] || fail "calibration failed"
}

# preset NAME: "TOTAL DIFFICULTY DELAY_US" of revhash-bench's workload
# preset NAME (milestone, final, 1M, 300k, 100k; bench/workload.c holds
# the one definition, which the race uses too), its delay at RATE where
# it follows the rate.
preset() {
	local w
	w=$("$BENCH" --preset "$1" --rate "${RATE:-1}e6") || fail "no preset $1"
	awk '{ print $2, $4, $6 }' <<<"$w"
}

# delay_for DIFFICULTY LOAD: the client's delay (us) that keeps a server of
# RATE about LOAD busy: a fresh request costs half its range on average,
# and about a fifth of the requests are repeats.
delay_for() {
	awk -v d="$1" -v l="$2" -v r="$RATE" 'BEGIN { printf "%d", 0.8 * d / 2 / r / l }'
}

# stage_line JSON: the stage means in a master's --status --json, in us
# (empty for no JSON).
stage_line() {
	jq -r '.stages_us // empty | [.read, .dispatch, .wake, .hash, .notify, .reply] | @tsv' \
		<<<"$1" 2>/dev/null | awk -F'\t' '{ printf "%.0f/%.0f/%.0f/%.0f/%.0f/%.0f", $1, $2, $3, $4, $5, $6 }'
}

# wakeups_line JSON: the master's loop wake-ups per request, or - where
# its --status does not count them.
wakeups_line() {
	local w r
	w=$(json_num "$1" wakeups) r=$(json_num "$1" requests)
	awk -v w="$w" -v r="${r:-0}" 'BEGIN { if (w != "" && r > 0) printf "%.2f", w / r; else printf "-" }'
}

# row_header: the names of replay_row's columns.
row_header() {
	printf '%-10s %6s %9s %8s %8s %9s %7s %6s %8s %9s %9s %7s  %s\n' workload total \
		difficulty delay_us score efficiency vs_best busy_M eff@busy p50_ms p99_ms \
		wake/req stages
}

# replay_row NAME TOTAL DIFFICULTY DELAY_US [MASTER ARGS...]: one workload
# on $MASTER (seed REPLAY_SEED, 3435245 unless set; 20% repeats, lambda
# 1.5), rated at RATE, or
# with OWN_RATE=1 (a server that hashes at another rate) at its own,
# calibrated first; and rated again at the rate its workers hashed at
# during the run, which no neighbour on the machine can move between
# calibration and run. One line: score, efficiency at RATE, against the
# best policy, the busy rate and the efficiency at it, p50 and p99, the
# master's wake-ups per request, and the stage means. Files go to $OUT.
replay_row() {
	local name=$1 total=$2 diff=$3 delay=$4 port out rate policy wl
	shift 4
	port=$(free_port)
	out=$OUT/$name.txt
	wl=("${REPLAY_SEED:-3435245}" "$total" 0 "$diff" 20 "$delay" 1.5)
	# shellcheck disable=SC2207 # bench_policy's words are options
	policy=($(bench_policy "$@"))
	rate=(--rate "${RATE}e6")
	[ -n "${OWN_RATE:-}" ] && rate=("${policy[@]}")
	start_master "$port" "$OUT/$name.log" "$@"
	"$BENCH" 127.0.0.1 "$port" "${wl[@]}" --quiet "${rate[@]}" --csv "$OUT/$name.csv" >"$out" 2>&1
	local rc=$? status busy score p50 p99 eff eff_best eff_busy
	status=$(status_json "$port")
	busy=$(busy_rate "$status")
	stop_master "$MASTER_PID" 60
	[ $rc -eq 0 ] || { cat "$out" >&2; fail "$name: wrong or missing answers"; }
	# BENCH_COLUMNS: reliability,score,p50_ms,p99_ms,rate,ideal,eff,
	# best_ideal,best_policy,eff_best,...
	IFS=, read -r _ score p50 p99 _ _ eff _ _ eff_best _ <<<"$(bench_summary "$out")"
	eff_busy=$(eff_at "$busy" "$OUT/$name.csv" "$OUT/$name-busy.txt" "${wl[@]}" "${policy[@]}")
	printf '%-10s %6s %9s %8s %8s %9s %7s %6.1f %8s %9s %9s %7s  %s\n' "$name" "$total" \
		"$diff" "$delay" "$score" "$eff" "$eff_best" \
		"$(awk -v b="${busy:-0}" 'BEGIN { print b / 1e6 }')" "$eff_busy" "$p50" "$p99" \
		"$(wakeups_line "$status")" "$(stage_line "$status")"
}

# --- the experiment lab's helpers (scripts/exp-*.sh, plot-*.sh) ---

# ncpus: the CPUs this shell may run on, which is what the master's
# `--workers auto` and revhash-bench's default --workers come to.
ncpus() { nproc; }

# now_s: seconds since the epoch, with microseconds (bash's own clock).
now_s() { echo "$EPOCHREALTIME"; }

# need_tool COMMAND OPTION: COMMAND is there, or gets installed
# (install-deps.sh OPTION); non-zero when it is still missing.
need_tool() {
	command -v "$1" >/dev/null 2>&1 && return 0
	"$ROOT/scripts/install-deps.sh" "$2" >&2
	command -v "$1" >/dev/null 2>&1
}

# need_gnuplot: gnuplot is there, or gets installed (install-deps.sh --plot).
need_gnuplot() { need_tool gnuplot --plot || fail "gnuplot is missing"; }

# panel_args SCRIPT "$@": the arguments of a plot of one panel per run,
# OUT.png TITLE LABEL FILE [LABEL FILE]..., checked (else SCRIPT's usage
# and fail); sets OUT, TITLE and PANELS; the caller then shifts 2 and
# reads the LABEL FILE pairs.
panel_args() {
	local script=$1
	shift
	[ $# -ge 4 ] && [ $(($# % 2)) -eq 0 ] ||
		fail "usage: $script OUT.png TITLE LABEL FILE [LABEL FILE]..."
	OUT=$1 TITLE=$2 PANELS=$((($# - 2) / 2))
	need_gnuplot
}

# panel_terminal: the gnuplot lines that open a picture of PANELS panels
# side by side into OUT; panel_layout: the one that starts the panels.
panel_terminal() {
	printf 'set terminal pngcairo size %d,460 font ",9"\nset output "%s"\n' \
		$((460 * PANELS + 80)) "$OUT"
	echo 'set datafile separator ","'
}
panel_layout() { echo "set multiplot layout 1,$PANELS title \"$TITLE\""; }

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
# Any of the policy's rule switches counts, as revhash-bench lists them.
bench_policy() {
	local out=() switches
	switches=$("$BENCH" --policy-switches) || fail "$BENCH --policy-switches failed"
	while [ $# -gt 0 ]; do
		case $1 in
		--schedule | --workers) out+=("$1" "$2"); shift ;;
		--no-*) grep -qxF -- "$1" <<<"$switches" && out+=("$1") ;;
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

# json_num JSON KEY: the whole number under KEY at the top level of JSON
# (a master's --status --json: the master's own figure, never a worker's
# of the same name); empty for no JSON or no such number.
json_num() { jq -r --arg k "$2" '.[$k] | numbers | floor' <<<"$1" 2>/dev/null; }

# busy_rate JSON: from a master's --status --json, the rate its workers
# hashed at per second of their hashing CPU time (hashes/s; 0 when they
# hashed nothing, empty for no JSON).
busy_rate() { json_num "$1" busy_rate; }

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
# however short the run. One jq reads every sample (each its time in us,
# then the status): a jq a sample would cost 20 ms of CPU each.
sample_status() {
	local port=$1 out=$2 pid=$3 t0=${EPOCHREALTIME/./} alive=1
	echo "t_s,jobs_in_table,jobs_queued,hashing,workers" >"$out"
	while :; do
		echo $((${EPOCHREALTIME/./} - t0))
		status_json "$port"
		[ $alive = 1 ] || break
		kill -0 "$pid" 2>/dev/null || alive=0
		[ $alive = 0 ] || sleep 0.1
	done | jq -nr 'foreach inputs as $x (0; if ($x | type) == "number" then $x else . end;
		. as $t | $x | objects | [($t / 1000 | round) / 1000, .jobs_in_table, .jobs_queued,
		([.workers[] | select(.state == "hashing")] | length), (.workers | length)] | @csv)' >>"$out"
}
