#!/usr/bin/env bash
# The experiment lab's catalogue: prints the runs of a preset, one a line,
#   KIND|EXPERIMENT|SCENARIO|CONFIG|MASTER_ARGS|ARGS|MAX_REPS
# KIND replay: ARGS are revhash-bench's SEED TOTAL START DIFFICULTY REP
# DELAY_US LAMBDA; KIND closed: CONCURRENCY SECONDS and bench options.
# MAX_REPS caps the repetitions of that run (0: as many as asked).
# experiments.sh runs them; this only plans.
#   scripts/lab/exp-catalogue.sh --preset smoke|quick|full --rate HASHES_PER_S [--only EXPERIMENT]
# RATE, the default server's, sets the client delays to a chosen load: a
# first-time request costs D/2 hashes, a repeat (REP% + 1) none, so one
# every DELAY s is a load of (99 - REP)/100 * D/2 / (RATE * DELAY). Light
# is 25% (no queue), heavy 90% (a queue behind long requests, where the
# orders differ), stress 150% (the backlog grows all run).
set -u
. "$(dirname "$0")/../lib-bench.sh"

PRESET="" RATE="" ONLY=""
opts "--preset=PRESET --rate=RATE --only=ONLY" "$@"
[ -n "$RATE" ] || fail "--rate HASHES_PER_S is needed"
C=$(nproc)
MILESTONE="3435245 %s 0 30000000 20 %s 1.5" # TOTAL DELAY_US
case $PRESET in
smoke) # every experiment with two configurations, tiny requests
	MS_N=3 RAPID_N=6 SCHED_N=6 SCHED_D=300000 CACHE_N=8 CACHE_D=300000
	SWEEP_N=4 STRESS_N=4 DIFF_N=4 CLOSED_S=0.3 ;;
quick)
	MS_N=8 RAPID_N=100 SCHED_N=30 SCHED_D=5000000 CACHE_N=100 CACHE_D=1000000
	SWEEP_N=6 STRESS_N=20 DIFF_N=10 CLOSED_S=1.5 ;;
full)
	MS_N=100 RAPID_N=500 SCHED_N=100 SCHED_D=30000000 CACHE_N=300 CACHE_D=10000000
	SWEEP_N=100 STRESS_N=200 DIFF_N=100 CLOSED_S=5 ;;
*) fail "--preset smoke, quick or full" ;;
esac

# delay_for LOAD DIFFICULTY REP: the client delay (us) that makes that load.
delay_for() {
	awk -v l="$1" -v d="$2" -v r="$3" -v rate="$RATE" \
		'BEGIN { printf "%d\n", (99 - r) / 100 * d / 2 / (rate * l) * 1e6 }'
}
milestone() { printf "$MILESTONE" "$1" "$2"; }
run() { # KIND EXPERIMENT SCENARIO CONFIG MASTER_ARGS ARGS [MAX_REPS]
	echo "$1|$2|$3|$4|$5|$6|${7:-0}"
}

architecture() {
	local cfgs=("1 worker|--workers 1" "$C workers (1/core)|--workers $C") scen args cfg
	[ "$PRESET" = smoke ] || cfgs+=("$((2 * C)) workers (2/core)|--workers $((2 * C))"
		"$C workers no split|--workers $C --no-split" "$C workers no low latency|--workers $C --no-low-latency")
	[ "$PRESET" = full ] && cfgs+=("$((2 * C)) workers no split|--workers $((2 * C)) --no-split")
	for scen in milestone rapid; do
		[ "$PRESET" = smoke ] && [ $scen = rapid ] && continue
		args=$(milestone "$MS_N" 600000)
		[ $scen = rapid ] && args="3435245 $RAPID_N 0 1000000 20 20000 1.5"
		for cfg in "${cfgs[@]}"; do
			run replay architecture "$scen" "${cfg%%|*}" "${cfg#*|}" "$args"
		done
	done
}

scheduling() {
	local loads=(heavy light) lambdas=(0 1.5 0.3) orders=(fifo priority wsrpt) load l o pct d
	[ "$PRESET" = full ] && lambdas=(0 1.0 1.5 0.3)
	[ "$PRESET" = smoke ] && { loads=(heavy) lambdas=(1.5) orders=(fifo wsrpt); }
	for load in "${loads[@]}"; do
		case $load in heavy) pct=90 ;; light) pct=25 ;; esac
		d=$(delay_for "0.$pct" "$SCHED_D" 20)
		for l in "${lambdas[@]}"; do
			for o in "${orders[@]}"; do
				run replay scheduling "$load $pct% λ=$l" "$o" "--schedule $o" \
					"3435245 $SCHED_N 0 $SCHED_D 20 $d $l"
			done
			# Run to completion: everywhere in the full catalogue, at
			# the milestone's lambda under heavy load in the quick one.
			case $PRESET/$load/$l in full/* | quick/heavy/1.5) ;; *) continue ;; esac
			for o in "${orders[@]}"; do
				run replay scheduling "$load $pct% λ=$l" "$o run to completion" \
					"--schedule $o --no-preempt" "3435245 $SCHED_N 0 $SCHED_D 20 $d $l"
			done
		done
	done
}

cache() {
	# One delay for every repeat level: 50% load when nothing repeats, so
	# the only thing that changes is how much work the repeats save.
	local d reps=(0 20 80) r cfg
	local caches=("no cache|--cache-entries 0" "50 entries|--cache-entries 50" "default cache|")
	d=$(delay_for 0.5 "$CACHE_D" 0)
	[ "$PRESET" = smoke ] && { reps=(80) caches=("no cache|--cache-entries 0" "default cache|"); }
	for r in "${reps[@]}"; do
		for cfg in "${caches[@]}"; do
			run replay cache "$r% repeats" "${cfg%%|*}" "${cfg#*|}" \
				"3435245 $CACHE_N 0 $CACHE_D $r $d 1.5"
			[ "$PRESET" = smoke ] && continue
			run replay cache "$r% repeats" "${cfg%%|*} no attach" "$(echo ${cfg#*|} --no-attach)" \
				"3435245 $CACHE_N 0 $CACHE_D $r $d 1.5"
		done
	done
}

sweeps() {
	local w delays=(400000 500000 600000 700000 800000) diffs=(100000 1000000 3000000 10000000 30000000) x
	[ "$PRESET" = quick ] && { delays=(400000 600000 800000) diffs=(100000 1000000 10000000 30000000); }
	for w in $(seq 1 $((2 * C))); do
		[ "$PRESET" = smoke ] && [ "$w" -gt 2 ] && break
		run replay sweeps workers "$w" "--workers $w" "$(milestone "$SWEEP_N" 600000)"
	done
	[ "$PRESET" = smoke ] && return
	for x in "${delays[@]}"; do
		run replay sweeps "client delay (us)" "$x" "" "$(milestone "$SWEEP_N" "$x")"
	done
	x=$(delay_for 1.5 30000000 20)
	run replay sweeps "client delay (us)" "$x (stress 150%)" "" "$(milestone "$STRESS_N" "$x")"
	# The milestone's load at every size: the delay shrinks with the range.
	for x in "${diffs[@]}"; do
		run replay sweeps difficulty "$x" "" \
			"3435245 $DIFF_N 0 $x 20 $((600000 * (x / 100000) / 300)) 1.5"
	done
}

concurrency() {
	local n mode sizes=(500 1000 3000)
	[ "$PRESET" = smoke ] && sizes=(20 50)
	for n in "${sizes[@]}"; do
		for mode in "difficulty 1|--difficulty 1" "cached|--cached"; do
			[ "$PRESET" = smoke ] && [ "${mode%%|*}" != cached ] && continue
			run closed concurrency "$n" "${mode%%|*}" "" "$n $CLOSED_S ${mode#*|}"
		done
	done
}

named() {
	# The course's own settings, exactly; once each in --quick, where the
	# milestone's 100 requests alone take a minute.
	local cap=0
	[ "$PRESET" = full ] || cap=1
	if [ "$PRESET" = smoke ]; then
		run replay named "milestone ($MS_N requests)" default "" "$(milestone "$MS_N" 600000)" 1
		return
	fi
	run replay named milestone default "" "$(milestone 100 600000)" $cap
	[ "$PRESET" = full ] && run replay named final default "" "$(milestone 500 600000)"
	return 0
}

# The experiments, each planned by its function of that name.
EXPERIMENTS="architecture scheduling cache sweeps concurrency named"
[[ -z $ONLY || " $EXPERIMENTS " == *" $ONLY "* ]] || fail "--only: one of $EXPERIMENTS"
for e in ${ONLY:-$EXPERIMENTS}; do "$e"; done
