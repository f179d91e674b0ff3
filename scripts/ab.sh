#!/usr/bin/env bash
# Two master binaries side by side: the same workload rows on each, the two
# alternating run by run (A B A B ...), because the machine is shared and
# its speed drifts within minutes. Both are rated at one rate, calibrated
# on A before the first round (what a user gets), and each run again at its
# own busy rate (labelled); the means per row and binary close the output.
#   scripts/ab.sh --b PATH [--a PATH] [--rounds N] [--only ROWS] [ARGS...]
#   ROWS: a comma list of milestone,1M,300k,100k (default 1M,300k,100k)
#   ARGS: given to both masters (e.g. --workers 2)
set -u
. "$(dirname "$0")/lib.sh"

A=$MASTER B="" ROUNDS=3 ONLY=1M,300k,100k
opts "--a=A --b=B --rounds=ROUNDS --only=ONLY --rest" "$@"
set -- "${ARGS[@]}"
[ -x "$A" ] && [ -x "$B" ] || fail "--a and --b must be master binaries (--b is required)"
need_built
OUT=$ROOT/bench-out/ab
mkdir -p "$OUT"
MASTER=$A calibrate "$@"
say "A = $A, B = $B, rate $RATE M hashes/s (calibrated on A), $ROUNDS rounds"
row_header | sed 's/^/   /' | tee "$OUT/rows.txt"
for ((round = 1; round <= ROUNDS; round++)); do
	for spec in ${ONLY//,/ }; do
		case $spec in
		milestone) total=100 diff=30000000 delay=600000 ;;
		1M) total=200 diff=1000000 delay=$(delay_for 1000000 0.25) ;;
		300k) total=300 diff=300000 delay=$(delay_for 300000 0.25) ;;
		100k) total=300 diff=100000 delay=$(delay_for 100000 0.25) ;;
		*) fail "unknown row $spec" ;;
		esac
		for side in A B; do
			[ "$side" = A ] && MASTER=$A || MASTER=$B
			line=$(replay_row "$spec" "$total" "$diff" "$delay" "$@") || exit 1
			echo "$side  $line" | tee -a "$OUT/rows.txt"
		done
	done
done
say "means over $ROUNDS rounds: efficiency at the calibrated rate, then at each run's busy rate (labelled)"
printf '%-10s %-4s %9s %11s %13s %9s\n' workload side score efficiency "eff@busy rate" wake/req
awk 'function num(v) { return v ~ /^[0-9.]+$/ }
     $1 == "A" || $1 == "B" { k = $2 " " $1; n[k]++; s[k] += $6
       if (num($7)) { e[k] += $7; ne[k]++ } if (num($10)) { b[k] += $10; nb[k]++ }
       if (num($13)) { w[k] += $13; nw[k]++ } }
     function mean(t, c, f) { return c ? sprintf(f, t / c) : "n/a" }
     END { for (k in n) { split(k, p, " ")
             printf "%-10s %-4s %9.0f %11s %13s %9s\n", p[1], p[2], s[k] / n[k],
               mean(e[k], ne[k], "%.3f"), mean(b[k], nb[k], "%.3f"), mean(w[k], nw[k], "%.2f") } }' \
	"$OUT/rows.txt" | sort -k1,1 -k2,2
