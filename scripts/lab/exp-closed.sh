#!/usr/bin/env bash
# One closed-loop run of the lab: CONCURRENCY requests in flight for
# SECONDS on a master with MASTER_ARGS; one CSV line:
#   requests_s,p50_ms,p99_ms,master_cpu,workers_cpu,master_hwm_kb,workers_hwm_kb,errors
# CPU: % of one CPU (the workers' summed) over the middle half of the run;
# peak RSS: VmHWM at the end (the largest worker's). It leaves PREFIX.txt
# and PREFIX.log.
#   scripts/lab/exp-closed.sh PREFIX "MASTER_ARGS" CONCURRENCY SECONDS [BENCH_ARGS...]
# BENCH_ARGS: --cached, --difficulty D, --priority P. Exits 1 when a reply
# was wrong or missing, after printing the line.
set -u
. "$(dirname "$0")/../lib-bench.sh"

[ $# -ge 4 ] || fail "usage: exp-closed.sh PREFIX \"MASTER_ARGS\" CONCURRENCY SECONDS [BENCH_ARGS...]"
prefix=$1 margs=$2 conc=$3 secs=$4
shift 4
need_built
mkdir -p "$(dirname "$prefix")"
[ "$(ulimit -Hn)" = unlimited ] || [ "$(ulimit -Hn)" -ge $((conc + 64)) ] ||
	fail "hard descriptor limit $(ulimit -Hn) is below $((conc + 64))"
ulimit -n "$(ulimit -Hn)"

# shellcheck disable=SC2086
start_free "$prefix.log" --quiet $margs
nworkers=$(workers_asked $margs)
wait_workers "$MASTER_PID" "$nworkers" 10 || fail "the master's $nworkers workers did not start"
workers=$(workers_of "$MASTER_PID")
"$BENCH" 127.0.0.1 "$PORT" --concurrency "$conc" --duration "$secs" "$@" \
	--json="$prefix.json" >"$prefix.txt" 2>&1 &
bench_pid=$!
quarter=$(awk -v s="$secs" 'BEGIN { print s / 4 }')
sleep "$quarter"
t0=$EPOCHREALTIME m0=$(proc_ticks "$MASTER_PID") w0=$(proc_ticks $workers)
sleep "$(awk -v s="$secs" 'BEGIN { print s / 2 }')"
t1=$EPOCHREALTIME m1=$(proc_ticks "$MASTER_PID") w1=$(proc_ticks $workers)
wait "$bench_pid"
rc=$?
mhwm=$(proc_hwm_kb "$MASTER_PID")
whwm=$(for w in $workers; do proc_hwm_kb "$w"; done | sort -n | tail -n 1)
stop_master "$MASTER_PID" 60

jq -r --argjson hz "$(getconf CLK_TCK)" --argjson t "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
	--argjson dm $((m1 - m0)) --argjson dw $((w1 - w0)) --arg mh "$mhwm" --arg wh "$whwm" '
	def pct: 100 * . / $hz / $t * 10 | round / 10;
	[.requests_s, .latency_ms.p50 // "", .latency_ms.p99 // "", ($dm | pct), ($dw | pct), $mh, $wh,
	.wrong + .missing] | map(tostring) | join(",")' "$prefix.json"
[ $rc -eq 0 ] || say "$prefix: bench exited $rc (see $prefix.txt)" >&2
exit $((rc != 0))
