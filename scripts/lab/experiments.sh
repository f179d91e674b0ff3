#!/usr/bin/env bash
# The experiment lab: runs the catalogue of named experiments
# (scripts/lab/exp-catalogue.sh), each run repeated, and writes report.md and
# PNG plots into the output folder.
#   scripts/lab/experiments.sh [--quick | --preset smoke|quick|full] [--reps N]
#                              [--only EXPERIMENT] [--out DIR] [--dry-run]
# Presets (docs/lab.md): full (the default; reps 3), quick (under ten
# minutes on 2 CPUs; reps 2) and smoke (tiny, 1 rep: make check's test of
# the report). Steps, each a script that runs alone: exp-catalogue.sh,
# exp-run.sh and exp-closed.sh, exp-aggregate.sh, exp-plots.sh,
# exp-report.sh; the rates by calibrate (lib-bench.sh). Runs go round
# robin over the reps, so a slow spell of the machine falls on no one
# configuration. Exits 1 when a run got a wrong or missing answer (the
# report says which).
set -u
. "$(dirname "$0")/../lib-bench.sh"

PRESET=full REPS="" ONLY="" OUT=$ROOT/bench-out/experiments DRY=0
opts "--quick:PRESET=quick --preset=PRESET --reps=REPS --only=ONLY --out=OUT --dry-run:DRY=1" "$@"
case $PRESET in
smoke) REPS=${REPS:-1} ;;
quick) REPS=${REPS:-2} ;;
full) REPS=${REPS:-3} ;;
*) fail "--preset smoke, quick or full" ;;
esac
[ "$REPS" -ge 1 ] 2>/dev/null || fail "--reps N: a whole number, at least 1"
need_built
[ $DRY = 1 ] || need_gnuplot
mkdir -p "$OUT" || fail "cannot create $OUT"
OUT=$(cd "$OUT" && pwd)
T0=$EPOCHREALTIME
C=$(nproc)

# RATES[W]: the hash rate measured for W workers (measure_rate W).
declare -A RATES
measure_rate() {
	[ -n "${RATES[$1]:-}" ] && return
	if [ "$PRESET" = smoke ] && [ -n "${RATES[$C]:-}" ]; then
		# Seconds count here: scale the default's rate by the CPUs used.
		RATES[$1]=$(awk -v r="${RATES[$C]}" -v w="$1" -v c="$C" \
			'BEGIN { printf "%.0f\n", r * (w < c ? w : c) / c }')
	else
		calibrate --quiet --workers "$1"
		RATES[$1]=$(awk -v r="${RATE:?}" 'BEGIN { printf "%.0f\n", r * 1e6 }')
	fi
	say "hash rate with $1 worker(s): $(awk -v r="${RATES[$1]}" 'BEGIN { printf "%.1f", r / 1e6 }') M hashes/s"
}

say "preset $PRESET, $REPS rep(s)${ONLY:+, only $ONLY}, output in $OUT"
measure_rate "$C"
"$ROOT/scripts/lab/exp-catalogue.sh" --preset "$PRESET" --rate "${RATES[$C]}" \
	${ONLY:+--only "$ONLY"} >"$OUT/plan.txt" || fail "no plan"
while IFS='|' read -r kind _ _ _ margs _ _; do
	[ "$kind" = replay ] && measure_rate "$(workers_asked $margs)"
done <"$OUT/plan.txt"

# The expected duration: a replay its spread or its work, whichever is
# longer, its last request and 0.3 s; a closed run its duration and 1 s.
estimate=$(while IFS='|' read -r kind _ _ _ margs args max; do
	w=$(workers_asked $margs)
	echo "$kind ${RATES[$w]} ${max:-0} $args"
done <"$OUT/plan.txt" | awk -v reps="$REPS" '
	{ n = ($3 && $3 < reps) ? $3 : reps }
	$1 == "replay" { spread = $5 * $9 / 1e6; work = $5 * (99 - $8) / 100 * $7 / 2 / $2
		t += n * (0.3 + (spread > work ? spread : work) + $7 / 2 / $2) }
	$1 == "closed" { t += n * ($5 + 1 + $4 / 3000) }
	END { printf "%.0f\n", t + 5 }')
runs=$(awk -v reps="$REPS" -F'|' '{ n += ($7 && $7 < reps) ? $7 : reps } END { print n }' "$OUT/plan.txt")
say "$runs runs, expected duration about $((estimate / 60)) min $((estimate % 60)) s (measured rates, an idle machine)"
[ $DRY = 1 ] && { cat "$OUT/plan.txt"; exit 0; }

rm -rf "$OUT/runs" "$OUT"/*.csv "$OUT"/*.png "$OUT/report.md" "$OUT/findings"
{
	echo "preset=$PRESET"
	echo "reps=$REPS"
	echo "only=$ONLY"
	echo "machine=$(cpu_model)"
	echo "cpus=$C"
	echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)"
	echo "expected_s=$estimate"
	for w in "${!RATES[@]}"; do echo "rate_$w=${RATES[$w]}"; done
} >"$OUT/meta.txt"
echo "exp,scenario,config,rep,workers,schedule,preempt,split,cache,attach,seed,total,start,difficulty,rep_pct,delay_us,lambda,$BENCH_COLUMNS,busy_rate,eff_busy,prefix" >"$OUT/results.csv"
echo "exp,scenario,config,rep,concurrency,seconds,requests_s,p50_ms,p99_ms,master_cpu,workers_cpu,master_hwm_kb,workers_hwm_kb,errors,prefix" >"$OUT/closed.csv"

failed=0 k=0
for rep in $(seq 1 "$REPS"); do
	while IFS='|' read -r kind exp scen cfg margs args max; do
		[ "${max:-0}" -gt 0 ] && [ "$rep" -gt "$max" ] && continue
		k=$((k + 1))
		id=$(echo "$exp-$scen-$cfg" | tr -c 'A-Za-z0-9.\n-' _)
		prefix=runs/$id/rep$rep
		if [ "$kind" = replay ]; then
			# shellcheck disable=SC2086
			line=$("$ROOT/scripts/lab/exp-run.sh" --rate "${RATES[$(workers_asked $margs)]}" \
				"$OUT/$prefix" "$margs" $args </dev/null) || failed=$((failed + 1))
			echo "$exp,$scen,$cfg,$rep,$(policy_columns $margs),$(echo $args | tr ' ' ,),$line,$prefix" >>"$OUT/results.csv"
			what="score $(echo "$line" | cut -d, -f2)"
		else
			set -- $args
			# shellcheck disable=SC2086
			line=$("$ROOT/scripts/lab/exp-closed.sh" "$OUT/$prefix" "$margs" $args </dev/null) ||
				failed=$((failed + 1))
			echo "$exp,$scen,$cfg,$rep,$1,$2,$line,$prefix" >>"$OUT/closed.csv"
			what="$(echo "$line" | cut -d, -f1) requests/s"
		fi
		say "[$k/$runs] $exp | $scen | $cfg | rep $rep: $what"
	done <"$OUT/plan.txt"
done

"$ROOT/scripts/lab/exp-aggregate.sh" score "$OUT/results.csv" >"$OUT/summary.csv"
"$ROOT/scripts/lab/exp-aggregate.sh" requests_s "$OUT/closed.csv" >"$OUT/closed-summary.csv"
echo "failed_runs=$failed" >>"$OUT/meta.txt"
"$ROOT/scripts/lab/exp-plots.sh" "$OUT" || fail "plots failed"
echo "took_s=$(elapsed "$T0" | cut -d. -f1)" >>"$OUT/meta.txt"
"$ROOT/scripts/lab/exp-report.sh" "$OUT" >"$OUT/report.md" || fail "report failed"
say "report: $OUT/report.md ($(sed -n 's/^took_s=//p' "$OUT/meta.txt") s)"
[ $failed -eq 0 ] || fail "$failed run(s) had wrong or missing answers (see the report)"
