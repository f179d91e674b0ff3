#!/usr/bin/env bash
# Two master binaries raced side by side: for each row (a workload preset)
# revhash-bench --race plays it on A and B in rounds of alternating order,
# each run rated at a probe of its own (the machine's speed drifts), and
# gives B's score over A's with a 95% interval, stopping once decided
# (docs/race.md). Outputs go to bench-out/ab/; last, each master's CPU per
# search and wake-ups per request; exit 1 when an answer was wrong or lost.
#   scripts/ab.sh --b PATH [--a PATH] [--rounds N] [--only ROWS] [-- ARGS...]
#   ROWS: a comma list of milestone,final,1M,300k,100k (default 1M,300k,100k)
#   ARGS: given to both masters (e.g. --workers 2)
set -u
. "$(dirname "$0")/lib-bench.sh"

A=$MASTER B="" ROUNDS=20 ONLY=1M,300k,100k
opts "--a=A --b=B --rounds=ROUNDS --only=ONLY --rest" "$@"
set -- "${ARGS[@]}"
[ -x "$A" ] && [ -x "$B" ] || fail "--a and --b must be master binaries (--b is required)"
need_built
need_gnuplot
OUT=$ROOT/bench-out/ab
mkdir -p "$OUT"
PIDS=""
stop_all() {
	local p
	for p in $PIDS; do stop_master "$p" 60; done
}
trap stop_all EXIT
PORT_A=$(free_port)
MASTER=$A start_master "$PORT_A" "$OUT/a.log" "$@"
PIDS=$MASTER_PID
# A's workers poll for a second after they start: B timing its kernels
# meanwhile could pick a slower one, and the race compare kernels.
sleep 2
PORT_B=$(free_port)
MASTER=$B start_master "$PORT_B" "$OUT/b.log" "$@"
PIDS="$PIDS $MASTER_PID"
kernel_of() { sed -n 's/.*listening on .*(kernel \([a-z0-9]*\)).*/\1/p' "$1"; }
[ "$(kernel_of "$OUT/a.log")" = "$(kernel_of "$OUT/b.log")" ] ||
	fail "the masters chose different kernels (A $(kernel_of "$OUT/a.log"), B $(kernel_of "$OUT/b.log")): run again, or give both --kernel NAME"
say "A = $A, B = $B${*:+, both with $*}, up to $ROUNDS rounds a row"
status=0
for row in ${ONLY//,/ }; do
	say "$row"
	"$BENCH" --race "A=127.0.0.1:$PORT_A" "B=127.0.0.1:$PORT_B" "$row" \
		--rounds "$ROUNDS" --until-decided --csv "$OUT/$row.csv" --plot "$OUT/$row.png" |
		tee "$OUT/$row.txt"
	case ${PIPESTATUS[0]} in
	0) ;;
	1) status=1 ;;
	*) fail "$row: the race did not start" ;;
	esac
done
# What each master's own process cost over every row.
for side in A B; do
	if [ $side = A ]; then bin=$A port=$PORT_A pid=${PIDS%% *}; else bin=$B port=$PORT_B pid=${PIDS##* }; fi
	json=$(MASTER=$bin status_json "$port")
	jobs=$(json_num "$json" jobs) requests=$(json_num "$json" requests)
	wakeups=$(json_num "$json" wakeups) ticks=$(proc_ticks "$pid")
	awk -v s=$side -v j="${jobs:-0}" -v r="${requests:-0}" -v w="${wakeups:-0}" -v t="${ticks:-0}" \
		-v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%s: master CPU %.1f us a search (%d searches), " \
		"%.2f wake-ups a request (%d requests)\n", s, j ? t / hz * 1e6 / j : 0, j,
		r ? w / r : 0, r }' | tee -a "$OUT/masters.txt"
done
exit $status
