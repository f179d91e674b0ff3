#!/usr/bin/env bash
# What a GPU machine (an H100 with 16 cores) has to show, in parts that
# each fit in a few minutes, figures into OUT_DIR (default bench-out/gpu):
#   check    gpu-check: the GPU search against the reference on 10,000
#            seeded random ranges and the edges; its rate; kernel-bench
#   serve    the server with its GPU worker: a workload answered right
#            while GPU and CPU workers are killed mid-lease (chaos.sh)
#   final    the course's final workload (500 requests, 30M, 20% repeats,
#            600 ms, lambda 1.5) on GPU+CPU: score and efficiency
#   cpu16    the same on the CPUs alone, 16 workers: the ratio to final
#   scale    scripts/scale.sh: 1, 2, 4, 8, 16 CPU workers
# The binaries are built on another machine and carried: master/master,
# revhash-bench, kernel-bench, gpu-check, worker/revhash-gpu.
#   scripts/gpu-verify.sh PART... [--seed S] [--out DIR]
set -u
. "$(dirname "$0")/lib.sh"

SEED=20261124 DIR=${OUT:-$ROOT/bench-out/gpu} PARTS=()
while [ $# -gt 0 ]; do
	case $1 in
	--seed) SEED=$2; shift ;;
	--out) DIR=$2; shift ;;
	check | serve | final | cpu16 | scale) PARTS+=("$1") ;;
	*) fail "unknown part or option $1" ;;
	esac
	shift
done
[ ${#PARTS[@]} -gt 0 ] || fail "name a part: check, serve, final, cpu16, scale"
need_built
OUT=$DIR
mkdir -p "$OUT"
say "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs;" \
	"$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo 'no nvidia-smi')"

# final_on NAME MASTER_ARGS...: the final workload on one server, its rate
# calibrated first (replay_row, into OUT/NAME.*); then revhash-bench's
# summary lines.
final_on() {
	local name=$1
	shift
	row_header
	OWN_RATE=1 REPLAY_SEED=$SEED replay_row "$name" 500 30000000 600000 "$@" || exit 1
	grep -E '^(Results|hash rate|ideal|best policy|latency)' "$OUT/$name.txt"
}

for part in "${PARTS[@]}"; do
	case $part in
	check)
		"$ROOT/gpu-check" --seed "$SEED" --cases 10000 | tee "$OUT/gpu-check.txt" ||
			fail "gpu-check found differences"
		"$ROOT/gpu-check" --bench 10 | tee "$OUT/gpu-bench.txt"
		"$ROOT/kernel-bench" --seconds 1 | tee "$OUT/kernel-bench.txt" ;;
	serve)
		"$ROOT/scripts/chaos.sh" --seed "$SEED" --requests 200 --delay-us 100000 \
			--difficulty 3000000000 --workers 4 | tee "$OUT/chaos.txt" ||
			fail "the server lost or botched a request under chaos" ;;
	final)
		final_on final-gpu --workers 16 --gpu auto | tee "$OUT/final-gpu.summary" ;;
	cpu16)
		final_on final-cpu16 --workers 16 --gpu off | tee "$OUT/final-cpu16.summary"
		if [ -f "$OUT/final-gpu.txt" ]; then
			awk '/^Results:/ { s[FILENAME] = $3 } END { for (f in s) if (f ~ /gpu/) g = s[f]; else c = s[f]
			     if (g > 0) printf "GPU+CPU scores %.1fx better than 16 CPU workers\n", c / g }' \
				"$OUT/final-gpu.txt" "$OUT/final-cpu16.txt" | tee -a "$OUT/final-cpu16.summary"
		fi ;;
	scale)
		"$ROOT/scripts/scale.sh" --counts "1 2 4 8 16" | tee "$OUT/scale.txt" ;;
	esac
done
