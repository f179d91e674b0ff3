#!/usr/bin/env bash
# What a GPU machine (an H100 with 16 cores) has to show, in parts, figures
# into --out DIR (default bench-out/gpu). docs/gpu.md says which parts go
# in which device call (three of at most 10 minutes):
#   check  gpu-check on every kernel variant: 10,000 seeded random ranges
#          and the edges (the answer at either end, across 2^32, up to
#          2^64-1, none, stops, false candidates); zero differences
#   bench  gpu-check --bench: every variant's G hashes/s side by side, small
#          searches spinning and sleeping, the stop latency; kernel-bench
#   sass   what each variant's sm_90 loop runs per value: cuobjdump -sass
#          counted, beside worker/gpu/sass-count's reading of the cubins
#   small  an idle server with the GPU: p50 of 100,000-value requests
#          against cache hits (goal: at most 40 us more)
#   serve  chaos.sh with the GPU worker among its victims, then the GPU
#          worker killed mid-lease again and again under a workload: every
#          request answered right
#   final  the course's final workload (500 requests, 30M, 20% repeats,
#          600 ms, lambda 1.5; seed --seed) on 16 CPU workers + the GPU
#   cpu16  the same on the 16 CPU workers alone
#   ratio  (anywhere, once both are in DIR) cpu16's score over final's
#   scale  scripts/scale.sh: 1, 2, 4, 8, 16 CPU workers
# The binaries are built on another machine and carried: master/master,
# revhash-bench, kernel-bench, gpu-check, worker/revhash-gpu, and build/
# worker/gpu (the cubins and sass-count of `make gpu-sass`). A part that
# breaks a promise is said and the others still run; the exit is 1 then.
# GPU_WORKER=worker/revhash-gpu-standin tries the script's own plumbing on
# a machine without a GPU (small, serve's kills, final): no figure of it
# says anything of a GPU.
#   scripts/gpu-verify.sh [--seed S] [--out DIR] PART...
set -u
. "$(dirname "$0")/lib.sh"

SEED=20261124 DIR=$ROOT/bench-out/gpu
opts "--seed=SEED --out=DIR --rest" "$@"
[ ${#ARGS[@]} -gt 0 ] || fail "name a part: check bench sass small serve final cpu16 ratio scale"
for part in "${ARGS[@]}"; do
	case $part in
	check | bench | sass | small | serve | final | cpu16 | ratio | scale) ;;
	*) fail "unknown part $part" ;;
	esac
done
OUT=$DIR
mkdir -p "$OUT"
WITH_GPU=(--gpu auto ${GPU_WORKER:+--gpu-worker "$GPU_WORKER"})
BROKEN=()
broke() { say "BROKEN: $*" >&2; BROKEN+=("$*"); }

machine() {
	say "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs;" \
		"$(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit \
			--format=csv,noheader 2>/dev/null || echo 'no nvidia-smi')"
}

# final_on NAME MASTER_ARGS...: the final workload on one server, its rate
# calibrated first (replay_row, into OUT/NAME.*); then revhash-bench's
# summary lines.
final_on() {
	local name=$1
	shift
	row_header
	OWN_RATE=1 REPLAY_SEED=$SEED replay_row "$name" $(preset final) "$@" ||
		{ broke "$name: the workload was not answered right"; return; }
	grep -E '^(Results|hash rate|ideal|best policy|latency)' "$OUT/$name.txt"
}

# sass_loop: from cuobjdump -sass of one kernel on stdin, the opcodes of
# its per-value loop (the largest backward branch's span with the fewest
# LDG: the loop of every thread but the poller), one "count OPCODE" a line.
sass_loop() {
	awk '
	/^\.L_x_[0-9]+:/ { label[substr($1, 1, length($1) - 1)] = n; next }
	match($0, /\/\*[0-9a-f]+\*\/ +/) {
		s = substr($0, RSTART + RLENGTH); sub(/^@!?U?P[0-9T] +/, "", s)
		split(s, w, /[ ;]/); op[n] = w[1]; sub(/\..*/, "", op[n])
		if (op[n] == "BRA" && match(s, /\.L_x_[0-9]+/)) to[n] = substr(s, RSTART, RLENGTH)
		n++ }
	END {
		for (b in to) if ((t = label[to[b]]) != "" && t <= b + 0 && b - t >= 255) {
			ldg = 0; for (i = t; i <= b; i++) ldg += op[i] == "LDG"
			if (best == "" || ldg < bl) { best = t; end = b + 0; bl = ldg } }
		if (best == "") exit 1
		for (i = best; i <= end; i++) c[op[i]]++
		for (o in c) print c[o], o
		print end - best + 1, "per-value-loop" }' | sort -k2
}

part_sass() {
	local c found=0
	for c in "$ROOT"/build/worker/gpu/gpu_kernel-*.cubin; do
		[ -f "$c" ] || continue
		found=1
		"$ROOT/build/worker/gpu/sass-count" "$c"
		if command -v cuobjdump >/dev/null; then
			echo "cuobjdump -sass, the same loop:"
			cuobjdump -sass "$c" | sass_loop | tr '\n' ' ' | sed 's/ $/\n/'
		fi
	done
	[ $found = 1 ] || broke "sass: no cubins (make gpu-sass, then carry build/worker/gpu)"
	command -v cuobjdump >/dev/null || say "no cuobjdump here: sass-count's figures only"
}

# p50_us FILE: the p50 of a revhash-bench closed-loop run, in us.
p50_us() { awk '/^latency: p50/ { printf "%.0f", $3 * 1000 }' "$1"; }

part_small() {
	local port hit miss
	port=$(free_port)
	start_master "$port" "$OUT/small.log" "${WITH_GPU[@]}"
	wait_gpu "$port" || { broke "small: no GPU worker came"; stop_master "$MASTER_PID" 60; return; }
	"$BENCH" 127.0.0.1 "$port" --concurrency 1 --duration 10 --cached >"$OUT/small-hit.txt"
	"$BENCH" 127.0.0.1 "$port" --concurrency 1 --duration 10 --difficulty 100000 \
		>"$OUT/small-100k.txt"
	status_json "$port" >"$OUT/small-status.json"
	stop_master "$MASTER_PID" 60
	hit=$(p50_us "$OUT/small-hit.txt") miss=$(p50_us "$OUT/small-100k.txt")
	if [ -z "$hit" ] || [ -z "$miss" ]; then
		broke "small: no latency figures"
		return
	fi
	say "small: p50 of a 100,000-value request $miss us, of a cache hit $hit us:" \
		"$((miss - hit)) us more (goal: at most 40)"
}

# wait_gpu PORT: 0 once the GPU worker shows in its slot (after measuring
# its variants), 1 when none has in 30 s.
wait_gpu() {
	local tries=300
	while [ $tries -gt 0 ]; do
		status_json "$1" | grep -q '"kind":"gpu","pid":[1-9]' && return 0
		sleep 0.1
		tries=$((tries - 1))
	done
	return 1
}

# gpu_pid PORT: the GPU worker's pid when it is hashing, else nothing.
gpu_pid() {
	status_json "$1" | grep -o '"kind":"gpu","pid":[0-9]*,"state":"hashing"' |
		head -n 1 | sed 's/.*"pid":\([0-9]*\).*/\1/'
}

# The GPU worker killed mid-lease every half second or so, under a
# workload of 30M requests; revhash-bench fails on a wrong or lost answer.
gpu_kills() {
	local port bench kills=0 pid
	port=$(free_port)
	start_master "$port" "$OUT/kills.log" --workers 4 "${WITH_GPU[@]}"
	wait_gpu "$port" || { broke "serve: no GPU worker came"; stop_master "$MASTER_PID" 60; return; }
	"$BENCH" 127.0.0.1 "$port" "$SEED" 200 0 30000000 20 100000 1.5 --no-calibrate \
		>"$OUT/kills-bench.txt" 2>&1 &
	bench=$!
	while kill -0 "$bench" 2>/dev/null; do
		pid=$(gpu_pid "$port")
		[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null && kills=$((kills + 1))
		sleep 0.5
	done
	wait "$bench" || broke "serve: answers wrong or lost with the GPU worker killed"
	stop_master "$MASTER_PID" 60
	say "serve: the GPU worker killed $kills times while hashing"
	[ "$kills" -ge 10 ] || broke "serve: the GPU worker was killed mid-lease only $kills times"
}

part_ratio() {
	local g c
	g=$(awk '/^Results:/ { print $3 }' "$OUT/final-gpu.txt" 2>/dev/null)
	c=$(awk '/^Results:/ { print $3 }' "$OUT/final-cpu16.txt" 2>/dev/null)
	if [ -z "$g" ] || [ -z "$c" ]; then
		broke "ratio: final and cpu16 not both in $OUT"
		return
	fi
	awk -v g="$g" -v c="$c" 'BEGIN { printf "final workload: score %s with the GPU, %s on " \
		"16 CPU workers: %.1fx better (goal: 10x)\n", g, c, c / g }' | tee "$OUT/ratio.txt"
}

machine | tee "$OUT/machine.txt"
for part in "${ARGS[@]}"; do
	case $part in
	check)
		"$ROOT/gpu-check" --seed "$SEED" --cases 10000 | tee "$OUT/gpu-check.txt"
		[ "${PIPESTATUS[0]}" -eq 0 ] || broke "check: gpu-check found differences" ;;
	bench)
		"$ROOT/gpu-check" --bench 5 | tee "$OUT/gpu-bench.txt"
		[ "${PIPESTATUS[0]}" -eq 0 ] || broke "bench: gpu-check --bench failed"
		"$ROOT/kernel-bench" --seconds 1 | tee "$OUT/kernel-bench.txt" ;;
	sass) part_sass > >(tee "$OUT/sass.txt") 2>&1 ;;
	small) part_small > >(tee "$OUT/small.txt") 2>&1 ;;
	serve)
		"$ROOT/scripts/chaos.sh" --seed "$SEED" --requests 200 --delay-us 100000 \
			--difficulty 3000000000 --workers 4 --gpu auto | tee "$OUT/chaos.txt"
		[ "${PIPESTATUS[0]}" -eq 0 ] || broke "serve: chaos.sh: a request lost or botched"
		gpu_kills > >(tee "$OUT/kills.txt") 2>&1 ;;
	final) final_on final-gpu --workers 16 "${WITH_GPU[@]}" > >(tee "$OUT/final-gpu.summary") ;;
	cpu16) final_on final-cpu16 --workers 16 --gpu off > >(tee "$OUT/final-cpu16.summary") ;;
	ratio) part_ratio ;;
	scale) "$ROOT/scripts/scale.sh" --counts "1 2 4 8 16" | tee "$OUT/scale.txt" ;;
	esac
done
[ ${#BROKEN[@]} -eq 0 ] || fail "${#BROKEN[@]} broken: ${BROKEN[*]}"
say "every part kept its promises; figures in $OUT"
