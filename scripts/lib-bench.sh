# The benchmark's and the lab's helpers (sourced, not run): the rows of
# bench.sh and scale.sh, and what exp-*.sh and plot-*.sh share.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# --- the benchmark's rows (scripts/bench.sh, scripts/scale.sh) ---

# calibrate [MASTER ARGS...]: RATE, the M hashes/s of a master started with
# these arguments, by revhash-bench's calibration. Logs go to $OUT.
calibrate() {
	start_free "$OUT/calibrate.log" "$@"
	RATE=$("$BENCH" 127.0.0.1 "$PORT" 1 1 0 1000 0 0 1.5 --quiet --json 2>/dev/null |
		jq -r 'select(.rate_from == "calibrated") | .rate_mhs')
	stop_master "$MASTER_PID" 60
	[ -n "$RATE" ] || fail "calibration failed"
}

# preset NAME: "TOTAL DIFFICULTY DELAY_US" of revhash-bench's workload
# preset NAME (bench/workload.c), its delay at RATE where it follows it.
preset() {
	local w
	w=$("$BENCH" --preset "$1" --rate "${RATE:-1}e6" --json) || fail "no preset $1"
	jq -r '"\(.total) \(.difficulty) \(.delay_us)"' <<<"$w"
}

# delay_for DIFFICULTY LOAD: the client's delay (us) that keeps a server of
# RATE about LOAD busy (a request costs half its range, a fifth repeat).
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
# (seed REPLAY_SEED, else 3435245; 20% repeats, lambda 1.5) rated at RATE,
# or with OWN_RATE=1 at its own, and again at the rate its workers hashed
# at during the run (no neighbour moves that): one row_header line. Files
# go to $OUT.
replay_row() {
	local name=$1 total=$2 diff=$3 delay=$4 out rate policy wl
	shift 4
	out=$OUT/$name.txt
	wl=("${REPLAY_SEED:-3435245}" "$total" 0 "$diff" 20 "$delay" 1.5)
	# shellcheck disable=SC2207 # bench_policy's words are options
	policy=($(bench_policy "$@"))
	rate=(--rate "${RATE}e6")
	[ -n "${OWN_RATE:-}" ] && rate=("${policy[@]}")
	start_free "$OUT/$name.log" "$@"
	"$BENCH" 127.0.0.1 "$PORT" "${wl[@]}" --quiet "${rate[@]}" --csv "$OUT/$name.csv" \
		--json="$OUT/$name.json" >"$out" 2>&1
	local rc=$? status busy score p50 p99 eff eff_best eff_busy
	status=$(status_json "$PORT")
	busy=$(json_num "$status" busy_rate)
	stop_master "$MASTER_PID" 60
	[ $rc -eq 0 ] || { cat "$out" >&2; fail "$name: wrong or missing answers"; }
	# the columns of BENCH_COLUMNS wanted here
	IFS=, read -r _ score p50 p99 _ _ eff _ _ eff_best _ <<<"$(bench_summary "$OUT/$name.json")"
	eff_busy=$(eff_at "$busy" "$OUT/$name.csv" "$OUT/$name-busy.txt" "${wl[@]}" "${policy[@]}")
	printf '%-10s %6s %9s %8s %8s %9s %7s %6.1f %8s %9s %9s %7s  %s\n' "$name" "$total" \
		"$diff" "$delay" "$score" "$eff" "$eff_best" \
		"$(awk -v b="${busy:-0}" 'BEGIN { print b / 1e6 }')" "$eff_busy" "$p50" "$p99" \
		"$(wakeups_line "$status")" "$(stage_line "$status")"
}

# --- the experiment lab's helpers (scripts/lab/exp-*.sh, plot-*.sh) ---

# need_gnuplot: gnuplot is there, or gets installed (install-deps.sh --plot).
need_gnuplot() { need_tool gnuplot --plot || fail "gnuplot is missing"; }

# panel_args SCRIPT "$@": a plot's arguments, OUT.png TITLE LABEL FILE
# [LABEL FILE]..., checked; sets OUT, TITLE and PANELS (a panel a pair).
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
workers_asked() { policy_columns "$@" | cut -d, -f1; }

# bench_policy MASTER_ARGS...: the revhash-bench options of the policy of
# a master started with these arguments, so its ideal follows it.
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
	w=$(nproc) # what --workers auto comes to
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

# eff_at RATE CSV OUT WORKLOAD_AND_POLICY_ARGS...: score the replay CSV
# recorded again at RATE (revhash-bench --rescore, its output into OUT,
# its JSON into OUT.json) and print the efficiency, or n/a.
eff_at() {
	local rate=$1 csv=$2 out=$3 eff=""
	shift 3
	[ "${rate:-0}" -gt 0 ] && "$BENCH" x 1 "$@" --rescore "$csv" --rate "$rate" \
		--json="$out.json" >"$out" 2>&1 && eff=$(jq -r '.ideal.own.efficiency' "$out.json")
	echo "${eff:-n/a}"
}

# The figures bench_summary prints, in its order.
BENCH_COLUMNS=reliability,score,p50_ms,p99_ms,rate,ideal,eff,best_ideal,best_policy,eff_best,first_n,first_ms,first_score,repeat_n,repeat_ms,repeat_score

# bench_summary FILE: a revhash-bench replay's --json as one CSV line
# (BENCH_COLUMNS); a figure not given is empty, an efficiency n/a is n/a.
bench_summary() {
	jq -r 'def eff: if . then .efficiency // "n/a" else null end;
		[.reliability_pct, .score, .latency_ms.p50, .latency_ms.p99,
		(.ideal.rate_mhs | if . then . * 1e6 | round else . end), .ideal.own.score,
		(.ideal.own | eff), .ideal.best.score, (.ideal.best.policy // "" | gsub(", "; "/")),
		(.ideal.best | eff), .first.n, .first.mean_ms, .first.score, .repeated.n,
		.repeated.mean_ms, .repeated.score] | map(. // "" | tostring) | join(",")' "$1"
}

# proc_ticks PID...: the CPU time these processes used so far, user and
# system, in clock ticks (prtstat: ps counts whole seconds, a search
# costs microseconds).
proc_ticks() {
	local p
	for p in "$@"; do prtstat -r "$p" 2>/dev/null; done |
		awk '{ for (i = 1; i < NF; i++) if ($i ~ /^[us]time:$/) t += $(i + 1) } END { print t + 0 }'
}

# proc_hwm_kb PID: the process's peak resident set (VmHWM), in kB, which
# ps does not give (its rss is the present one).
proc_hwm_kb() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status" 2>/dev/null; }

# sample_status PORT OUT.csv PID: while PID lives, every 100 ms, and once
# after, a row of the master's --status: seconds, jobs in the table, jobs
# queued, workers hashing, workers. One jq reads them all (a jq a sample
# would cost 20 ms of CPU each).
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
