#!/usr/bin/env bash
# Does the master keep many workers fed? The CPU-only server at 1, 2, 4, 8
# and 16 workers (those up to the CPUs there are): its calibrated rate, and
# its efficiency on small requests (100k values, about 25% load) and large
# ones (30M, about 50% load), each against the ideal at the rate measured
# before the row (then at the row's busy rate, labelled), with the master's
# wake-ups per request. Written for the 16-core machine; on 2 CPUs it
# shows 1 and 2.
#   scripts/scale.sh [--counts "1 2 4 8 16"] [--requests N]
set -u
. "$(dirname "$0")/lib-bench.sh"

COUNTS="1 2 4 8 16" REQUESTS=100
opts "--counts=COUNTS --requests=REQUESTS" "$@"
need_built
OUT=$ROOT/bench-out/scale
mkdir -p "$OUT"
say "machine: $(cpu_model), $(nproc) CPUs"
printf '%-8s %12s   ' workers "M hashes/s"
row_header
for w in $COUNTS; do
	[ "$w" -le "$(nproc)" ] || { say "$w workers: more than the $(nproc) CPUs, skipped"; continue; }
	calibrate --workers "$w" --gpu off
	for spec in small large; do
		if [ $spec = small ]; then
			line=$(replay_row "small-$w" "$REQUESTS" 100000 "$(delay_for 100000 0.25)" \
				--workers "$w" --gpu off) || exit 1
		else
			line=$(replay_row "large-$w" "$REQUESTS" 30000000 "$(delay_for 30000000 0.5)" \
				--workers "$w" --gpu off) || exit 1
		fi
		printf '%-8s %12s   %s\n' "$w" "$RATE" "$line"
	done
done | tee "$OUT/scale.txt"
