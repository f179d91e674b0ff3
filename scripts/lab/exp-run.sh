#!/usr/bin/env bash
# One replay run of the lab: a master with MASTER_ARGS, the public
# client's workload on it (revhash-bench, told the master's policy), its
# status sampled meanwhile; one CSV line: BENCH_COLUMNS, busy_rate and
# eff_busy (the efficiency at the rate its workers hashed at). It leaves
# PREFIX.txt, .json, .csv, .busy.txt, .status.csv and .log.
#   scripts/lab/exp-run.sh [--rate HASHES_PER_S] PREFIX "MASTER_ARGS" \
#       SEED TOTAL START DIFFICULTY REP DELAY_US LAMBDA
# Without --rate the bench calibrates (a few seconds). Exits 1 when an
# answer was wrong or missing, after printing the line all the same.
set -u
. "$(dirname "$0")/../lib-bench.sh"

rate=()
[ "${1:-}" = --rate ] && { rate=(--rate "$2"); shift 2; }
[ $# -eq 9 ] || fail "usage: exp-run.sh [--rate R] PREFIX \"MASTER_ARGS\" SEED TOTAL START DIFFICULTY REP DELAY_US LAMBDA"
prefix=$1 margs=$2
shift 2
need_built
mkdir -p "$(dirname "$prefix")"

# shellcheck disable=SC2086 # the master's arguments are words
start_free "$prefix.log" --quiet $margs
# shellcheck disable=SC2046
"$BENCH" 127.0.0.1 "$PORT" "$@" --quiet --csv "$prefix.csv" "${rate[@]}" \
	$(bench_policy $margs) --json="$prefix.json" >"$prefix.txt" 2>&1 &
bench_pid=$!
sample_status "$PORT" "$prefix.status.csv" "$bench_pid" &
sampler_pid=$!
wait "$bench_pid"
rc=$?
wait "$sampler_pid"
busy=$(json_num "$(status_json "$PORT")" busy_rate)
stop_master "$MASTER_PID" 60
# shellcheck disable=SC2046
echo "$(bench_summary "$prefix.json"),${busy:-0},$(eff_at "$busy" "$prefix.csv" "$prefix.busy.txt" \
	"$@" $(bench_policy $margs))"
[ $rc -eq 0 ] || say "$prefix: bench exited $rc (wrong or missing answers: see $prefix.txt)" >&2
exit $((rc != 0))
