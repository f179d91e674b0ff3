#!/usr/bin/env bash
# Does the master keep many workers fed? The CPU-only server at 1, 2, 4, 8
# and 16 workers (up to the CPUs there are): its calibrated rate, and its
# replay_row on small requests (100k values, 25% load) and large ones
# (30M, 50% load).
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
	for spec in "small 100000 0.25" "large 30000000 0.5"; do
		read -r name diff load <<<"$spec"
		line=$(replay_row "$name-$w" "$REQUESTS" "$diff" "$(delay_for "$diff" "$load")" \
			--workers "$w" --gpu off) || exit 1
		printf '%-8s %12s   %s\n' "$w" "$RATE" "$line"
	done
done | tee "$OUT/scale.txt"
