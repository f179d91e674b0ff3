#!/usr/bin/env bash
# What a GPU machine has to show, in one call of at most --budget seconds
# (default 480), each part in its own time box, the most valuable first;
# a part the budget no longer covers is skipped and says so. docs/gpu.md
# tells the parts' goals, their boxes and how a device call carries this;
# --help lists the parts from their table.
# Into --out DIR (default bench-out/gpu-proof): proof.log, summary.txt (a
# PASS, FAIL or SKIP line per part and its figures) and parts.tar.gz; the
# summary again as bench/results/gpu-DATE-N/summary.txt for the repository.
# Exit 1 when a part failed. --dry-run runs every part with the stand-ins
# at a small scale (make check): its goals are printed, not judged.
#   scripts/gpu-proof.sh [--help] [--dry-run] [--out DIR] [--budget S] [--seed S]
#                        [--parts "PART..."] [--variant NAME] [--mix-rounds N]
#                        [--mix "WORKERS[+--OPTION[=N]|+REVHASH_NAME=N]..."]
# --parts: only those; --variant: that one alone; --mix-rounds (2) and --mix
# ("auto 2+--poll 1+--poll"): the mix's rounds and its servers' workers.
set -u
OWN_HELP=1 . "$(dirname "$0")/lib.sh"

# The parts in their order: name, time box, least time worth starting
# it, what it shows.
TABLE="preflight 30 5 the machine, the tools, ldd of every binary, the variants
check 180 30 gpu-check under every variant (those on trial first)
rates 90 20 G hashes/s of the shipped and each variant on trial; small searches, the worker's pick, the CPU kernels
sass 150 10 each variant's sm_90 loop (sass-count, cuobjdump -sass) and ncu
memcheck 60 20 compute-sanitizer memcheck on a quick run of four variants
stop 10 1 the stop latency, stop word to return
small 60 25 p50 of 100,000-value requests against a cache hit's; the calls the GPU worker's sandbox refused
kills 120 30 the GPU worker killed mid-lease again and again: nothing lost
mix 240 60 GPU + CPU workers against CPU workers alone (--mix servers)"
ALL=$(awk '{ printf "%s%s", (NR > 1 ? " " : ""), $1 }' <<<"$TABLE")
CHECK_EACH_S=6 # about 5 s a variant on an H100
SEED=20261124 DIR=$ROOT/bench-out/gpu-proof BUDGET=480 DRY=0 PART="" VARIANT=all PARTS=$ALL
ROUNDS="" MIX="" HELP=0
opts "--help:HELP=1 --dry-run:DRY=1 --out=DIR --budget=BUDGET --seed=SEED --part=PART --parts=PARTS --variant=VARIANT --mix-rounds=ROUNDS --mix=MIX" "$@"
if [ $HELP = 1 ]; then
	sed -n '2,/^set -u/{/^set -u/d; s/^# \{0,1\}//p}' "$0"
	awk '{ printf "  %-9s %3d s  ", $1, $2; $1 = $2 = $3 = ""; sub(/^ +/, ""); print }' <<<"$TABLE"
	exit 0
fi
[ -z "$ROUNDS" ] || [[ $ROUNDS =~ ^[1-9]$ ]] || fail "--mix-rounds needs 1 to 9"
# mix_name CONFIG: a --mix config as a file name: 2+--poll=0.5 is 2-poll0.5.
mix_name() { sed 's/REVHASH_//g; s/+-*/-/g; s/=//g' <<<"$1" | tr 'A-Z' 'a-z'; }
[[ $MIX == *[*?[]* ]] && fail "--mix: no wildcards"
seen=" "
for c in $MIX; do
	[[ $c == *+--workers* || $c == *+--gpu* ]] && fail "--mix: $c: the workers come first, the GPU is the script's"
	[[ $seen == *" $(mix_name "$c") "* ]] && fail "--mix: $c twice (its files: mix-$(mix_name "$c")-*)"
	seen+="$(mix_name "$c") "
	[[ $c =~ ^(auto|[1-9][0-9]{0,2})(\+(REVHASH_[A-Z_]+=[0-9]{1,9}|--[a-z-]+(=[0-9.]+)?))*$ ]] ||
		fail "--mix: $c is not WORKERS[+--OPTION[=N]|+REVHASH_NAME=N...]"
done
[[ $BUDGET =~ ^[0-9]+$ ]] || fail "--budget needs whole seconds"
for p in $PARTS; do [[ " $ALL " == *" $p "* ]] || fail "unknown part $p ($ALL)"; done
CARRY=$ROOT/gpu-carry
# jq and libcrypto travel in the carry: the device's machine may lack them.
[ -x "$CARRY/bin/jq" ] && PATH=$CARRY/bin:$PATH
[ -d "$CARRY/lib" ] && [[ :${LD_LIBRARY_PATH:-}: != *":$CARRY/lib:"* ]] &&
	export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$CARRY/lib

if [ $DRY = 1 ]; then
	GPU_CHECK=$ROOT/gpu-check-standin
	GPU_WORKER=$ROOT/worker/revhash-gpu-standin
	SCALE=(--scale quick) CASES=200 BENCH_S=0.05 WORKER_S=0.2 KBENCH_S=0.1 SMALL_S=0.5
	CPUS=2 KILL_N=8 KILL_DIFF=150000000 KILL_DELAY=100000 KILLS_MIN=3
	MIX_N=8 MIX_DIFF=3000000 MIX_DELAY=100000 MIX_ROUNDS=${ROUNDS:-1} MIX_WORKERS=${MIX:-auto+--poll}
else
	GPU_CHECK=$ROOT/gpu-check
	GPU_WORKER=$ROOT/worker/revhash-gpu
	SCALE=(--scale full) CASES=10000 BENCH_S=1.5 WORKER_S=1 KBENCH_S=0.5 SMALL_S=5
	CPUS=16 KILL_N=40 KILL_DIFF=16000000000 KILL_DELAY=100000 KILLS_MIN=10
	MIX_N=100 MIX_DIFF=30000000 MIX_DELAY=100000 MIX_ROUNDS=${ROUNDS:-2}
	MIX_WORKERS=${MIX:-"auto 2+--poll 1+--poll"}
fi

# variants STANDING: the build's variants that are shipped, timed (by an
# earlier device call) or trial (never timed), as gpu-check lists them.
variants() { "$GPU_CHECK" --list | awk -v k="$1" '$2 == k { print $1 }'; }
# The fastest variant a device has measured, shipped beside base.
BEST=$(variants shipped | grep -m1 -vx base)
# A dry run tests the plumbing: one variant is enough (check_gpu_logic
# checks every variant's host build).
[ $DRY = 1 ] && [ "$VARIANT" = all ] && VARIANT=$BEST
WITH_GPU=(--gpu auto --gpu-worker "$GPU_WORKER")

# --- one part, run by the script itself under its time box -------------
# Each part writes its outputs under W and its figures to stdout, a
# "figure: ..." line each.

# serve NAME MASTER_ARGS...: a master on a free port, PORT, its log
# W/NAME.log; with --gpu auto, once the GPU worker shows in its slot (60
# s at most), else stopped and non-zero.
serve() {
	start_free "$W/$1.log" "${@:2}"
	[[ " $* " != *" --gpu auto "* ]] || wait_until 600 0.1 gpu_shown "$PORT" ||
		{ echo "figure: $1: no GPU worker came"; stop_master "$MASTER_PID" 30; return 1; }
}
gpu_shown() { status_json "$1" | jq -e 'any(.workers[]; .kind == "gpu" and .pid > 0)' >/dev/null; }

# gpu_hashing PORT: the GPU worker's pid while it is hashing, else nothing.
gpu_hashing() {
	status_json "$1" | jq -r 'first(.workers[] | select(.kind == "gpu" and .state == "hashing") | .pid) // empty'
}

# cuda_tool NAME: NAME's path: on the PATH, else where CUDA installs it.
cuda_tool() {
	command -v "$1" || find /usr/local/cuda/bin /usr/local/cuda/nsight-compute* \
		/opt/nvidia/nsight-compute/* -maxdepth 1 -name "$1" -xtype f -executable -print -quit 2>/dev/null
}

# promising NAME...: the variants named, the highest of their lowest sm_90
# bound (ALU, FMA pipe, issue: sass-table.md of make gpu-sass) first.
promising() {
	local table=$CARRY/sass/sass-table.md
	[ -f "$table" ] || { printf '%s\n' "$@"; return; }
	printf '%s\n' "$@" | awk -F'|' 'NR == FNR { if (NF > 11) {
			n = $2; gsub(/ /, "", n)
			b = $10; sub(/.*\(/, "", b); b += 0
			if ($11 + 0 < b) b = $11 + 0
			if ($12 + 0 < b) b = $12 + 0
			bound[n] = b }
		next }
		{ printf "%s %s\n", ($1 in bound ? bound[$1] : 0), $1 }' "$table" - |
		sort -s -k1,1 -g -r | awk '{ print $2 }'
}

# check_variants: what the check part checks, by commas: --variant's, or
# all, those on trial first (if the box runs out, it is on checked ones).
check_variants() {
	[ "$VARIANT" = all ] || { echo "$VARIANT"; return; }
	{ variants trial; variants shipped; variants timed; } | paste -sd,
}

# goal_missed: 0 in a dry run, whose goals are printed, not judged.
goal_missed() { [ $DRY = 1 ]; }

# p50_us FILE: the p50 of a revhash-bench closed-loop run (its --json), in us.
p50_us() { jq -r '.latency_ms.p50 // empty | . * 1000 | round' "$1" 2>/dev/null; }

part_preflight() {
	local b lacks
	echo "figure: cpu $(cpu_model), $(nproc) CPUs"
	if command -v nvidia-smi >/dev/null; then
		nvidia-smi >"$W/nvidia-smi.txt" 2>&1
		echo "figure: gpu $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit,temperature.gpu \
			--format=csv,noheader 2>&1 | head -n 1)"
	else
		echo "figure: gpu none (no nvidia-smi)"
	fi
	echo "figure: cpu idle: driver $(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none)," \
		"states $(cat /sys/devices/system/cpu/cpu0/cpuidle/state*/name 2>/dev/null | tr '\n' ' ')," \
		"governor $(cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor 2>/dev/null || echo none)"
	for b in nvcc cuobjdump compute-sanitizer ncu curl jq; do
		echo "figure: tool $b $(cuda_tool "$b" | grep . || echo missing)"
	done
	command -v jq >/dev/null || { echo "figure: no jq, which reads the JSON (make gpu-carry carries it)"; return 1; }
	echo "figure: $("$GPU_CHECK" --list | wc -l) variants, $(variants trial | wc -l) on trial"
	if [ -z "$(variants timed)" ]; then
		echo "figure: $GPU_CHECK holds the shipped variants alone: make GPU_VARIANTS=all gpu-carry"
		return 1
	fi
	for b in "$MASTER" "$BENCH" "$ROOT/kernel-bench" "$GPU_CHECK" "$GPU_WORKER"; do
		[ -x "$b" ] || { echo "figure: MISSING $b"; return 1; }
		lacks=$(ldd "$b" 2>&1 | tee -a "$W/ldd.txt" | awk '/not found/ { printf "%s ", $1 }')
		[ -z "$lacks" ] || { echo "figure: $b lacks: $lacks"; return 1; }
	done
	echo "figure: every binary's libraries found${LD_LIBRARY_PATH:+ (LD_LIBRARY_PATH=$LD_LIBRARY_PATH)}"
}

part_check() {
	"$GPU_CHECK" --seed "$SEED" --cases "$CASES" "${SCALE[@]}" --variant "$(check_variants)" |
		tee "$W/check.txt"
	local rc=${PIPESTATUS[0]}
	grep -E '^(ok|FAILED):' "$W/check.txt" | sed 's/^/figure: /'
	grep -m1 'the device' "$W/check.txt" | sed 's/^ */figure: /'
	grep 'false candidates:' "$W/check.txt" | sort | uniq -c | sed 's/^ */figure: /'
	return "$rc"
}

part_rates() {
	local rc
	local timed=$BEST
	# The shipped and every variant on trial, the most promising first
	# (the timed ones again would not fit the box).
	# shellcheck disable=SC2046 # the lists are words
	[ $DRY = 1 ] || timed=$(printf '%s\n' $(variants shipped) $(promising $(variants trial)) | paste -sd,)
	echo "figure: timed: $timed"
	"$GPU_CHECK" --bench "$BENCH_S" "${SCALE[@]}" --variant "$timed" | tee "$W/rates.txt"
	rc=${PIPESTATUS[0]}
	grep -E '^(rate|fastest|small|answers|stop latency|cpu)' "$W/rates.txt" | sed 's/^/figure: /'
	awk '/^fastest:/ { r = $3 + 0 } END {
		printf "figure: goal rate >= 19.5 G hashes/s (17.46 so far): %s\n", (r >= 19.5 ? "met" : r > 17.46 ? "faster, 19.5 not met" : "MISSED")
		exit r >= 16 ? 0 : 1 }' "$W/rates.txt" || goal_missed || rc=1
	"$GPU_WORKER" --bench "$WORKER_S" --kernel auto >"$W/worker-bench.txt" 2>&1 || rc=1
	sed 's/^/figure: worker: /' "$W/worker-bench.txt"
	timeout --foreground 40 "$ROOT/kernel-bench" --seconds "$KBENCH_S" >"$W/kernel-bench.txt" 2>&1
	head -n 12 "$W/kernel-bench.txt" | sed 's/^/figure: cpu: /'
	return "$rc"
}

part_stop() {
	local line p50 p99
	grep '^stop latency' "$W/../rates/rates.txt" 2>/dev/null | sed 's/^/figure: /'
	line=$(grep -m1 "^stop latency.*the worker's wait" "$W/../rates/rates.txt" 2>/dev/null)
	read -r p50 p99 < <(sed -n 's/.*p50 \([0-9.]*\) us.*p99 \([0-9.]*\) us.*/\1 \2/p' <<<"$line")
	[ -n "$p99" ] || { echo "figure: no stop latency p50 and p99 in the rates part: $line"; return 1; }
	echo "figure: goal stop within 50 us (the worker's wait): p50 $p50, p99 $p99:" \
		"$(awk -v p="$p50" 'BEGIN { print p <= 50 ? "met" : "MISSED" }')"
	awk -v p="$p50" 'BEGIN { exit !(p <= 50) }' || goal_missed || return 1
	grep -q 'the device polls' <<<"$line" || { echo "figure: the device does not poll the stop word"; return 1; }
}

part_memcheck() {
	local v rc=0 san=()
	if [ $DRY = 0 ]; then
		[ -n "$(cuda_tool compute-sanitizer)" ] || { echo "figure: no compute-sanitizer"; return 3; }
		san=("$(cuda_tool compute-sanitizer)" --tool memcheck --error-exitcode 9 --print-limit 20)
	fi
	# the plain, wpoll, the best, and the first on trial of two values a thread
	for v in base fma-wpoll "$BEST" $(variants trial | grep -m1 -- '-x2'); do
		"${san[@]}" "$GPU_CHECK" --seed "$SEED" --cases 20 --scale quick --variant "$v" \
			>"$W/memcheck-$v.txt" 2>&1
		local r=$?
		echo "figure: $v: exit $r; $(grep -E '^(ok|FAILED):|ERROR SUMMARY' "$W/memcheck-$v.txt" | tr '\n' ' ')"
		[ $r -eq 0 ] || rc=1
	done
	return $rc
}

# stages FILE NAME: the means of NAME's stages, from --status --json in FILE.
stages() {
	local s
	s=$(jq -r '.stages_us // empty | to_entries | map("\(.key) \(.value)") | join(", ")' "$1" 2>/dev/null)
	[ -z "$s" ] || echo "figure: $2: stages, mean us: $s"
}

# small_run NAME: a master of 4 CPU workers and the GPU, one client:
# cache hits, then 100,000-value requests. NAME small-sleep: the GPU
# worker sleeps in its waits, where it spins by default.
small_run() {
	local name=$1 rc=0
	[ "$name" = small-sleep ] && local -x REVHASH_GPU_SPIN_US=0 REVHASH_GPU_IDLE_SPIN_MS=0
	serve "$name" --workers 4 "${WITH_GPU[@]}" || return 1
	"$BENCH" 127.0.0.1 "$PORT" --concurrency 1 --duration "$SMALL_S" --cached \
		--json="$W/$name-hit.json" >"$W/$name-hit.txt" 2>&1 || rc=1
	"$BENCH" 127.0.0.1 "$PORT" --concurrency 1 --duration "$SMALL_S" --difficulty 100000 \
		--json="$W/$name-100k.json" >"$W/$name-100k.txt" 2>&1 || rc=1
	status_json "$PORT" >"$W/$name-status.json"
	stop_master "$MASTER_PID" 30
	stages "$W/$name-status.json" "$name"
	[ $rc = 0 ] || echo "figure: $name: revhash-bench FAILED: a request went wrong or missing"
	# A call of the driver's that the sandbox lacks is logged, and fails.
	local refused
	refused=$(grep -o 'system call [0-9]* refused by its sandbox' "$W/$name.log" |
		awk '{ print $3 }' | sort -un | tr '\n' ' ')
	echo "figure: $name: system calls the GPU worker's sandbox refused: ${refused:-none} (goal: none)"
	[ -z "$refused" ] || rc=1
	return $rc
}

part_small() {
	local hit miss rc=0 met=1 n
	for n in small small-sleep; do
		small_run "$n" || rc=1
		hit=$(p50_us "$W/$n-hit.json") miss=$(p50_us "$W/$n-100k.json")
		[ -n "$hit" ] && [ -n "$miss" ] || { echo "figure: $n: no latency figures"; rc=1; continue; }
		grep -h -E '^(latency|errors)' "$W/$n-hit.txt" "$W/$n-100k.txt" | sed "s/^/figure: $n: /"
		echo "figure: $n: p50 of a 100,000-value request $miss us, of a cache hit $hit us: $((miss - hit)) us more (goal: at most 40)"
		[ $((miss - hit)) -le 40 ] && met=0
	done
	[ $met = 0 ] || goal_missed || rc=1
	return $rc
}

part_kills() {
	local bench kills=0 pid rc=0
	# its kernel named: a replacement starts without measuring them all
	serve kills --workers 4 "${WITH_GPU[@]}" $([ $DRY = 0 ] && echo --gpu-kernel base) || return 1
	"$BENCH" 127.0.0.1 "$PORT" "$SEED" "$KILL_N" 0 "$KILL_DIFF" 20 "$KILL_DELAY" 1.5 --no-calibrate \
		>"$W/kills-bench.txt" 2>&1 &
	bench=$!
	# Let a hashing GPU worker move the work on for 0.1 to 0.3 s, then kill it.
	while kill -0 "$bench" 2>/dev/null; do
		pid=$(gpu_hashing "$PORT")
		if [ -n "$pid" ]; then
			sleep "0.$((1 + RANDOM % 3))"
			[ "$(gpu_hashing "$PORT")" = "$pid" ] && kill -KILL "$pid" 2>/dev/null &&
				kills=$((kills + 1))
		else
			sleep 0.05
		fi
	done
	wait "$bench" || rc=1
	status_json "$PORT" >"$W/kills-status.json"
	stop_master "$MASTER_PID" 30
	grep -E '^(Results|latency)' "$W/kills-bench.txt" | sed 's/^/figure: /'
	echo "figure: the GPU worker killed $kills times while hashing (at least $KILLS_MIN);" \
		"revhash-bench $([ $rc = 0 ] && echo 'found every answer right' || echo 'FAILED: answers wrong or lost')"
	[ "$kills" -ge "$KILLS_MIN" ] || rc=1
	return $rc
}

# mix_run NAME FLOOR MASTER_ARGS...: the mix workload on one master,
# calibrated once every worker is there; with FLOOR "floor", again with
# every answer cached (NAME-floor: what the client and the machine put
# under any score). The GPU's clocks are sampled meanwhile.
mix_run() {
	local name=$1 floor=$2 smi=""
	shift 2
	serve "$name" "$@" || return 1
	[[ " $* " == *" --gpu auto "* ]] || sleep 1 # the CPU workers measure their kernels
	if [ $DRY = 0 ] && command -v nvidia-smi >/dev/null; then
		nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,utilization.gpu \
			--format=csv,noheader,nounits -lms 50 >"$W/$name-clocks.csv" 2>&1 &
		smi=$!
	fi
	"$BENCH" 127.0.0.1 "$PORT" "$SEED" "$MIX_N" 0 "$MIX_DIFF" 20 "$MIX_DELAY" 1.5 \
		--workers "$CPUS" --csv "$W/$name.csv" --json="$W/$name.json" >"$W/$name.txt" 2>&1
	local rc=$?
	[ -n "$smi" ] && kill "$smi" 2>/dev/null && wait "$smi" 2>/dev/null
	if [ "$floor" = floor ]; then
		"$BENCH" 127.0.0.1 "$PORT" "$SEED" "$MIX_N" 0 "$MIX_DIFF" 20 "$MIX_DELAY" 1.5 \
			--no-calibrate --json="$W/$name-floor.json" >"$W/$name-floor.txt" 2>&1 || rc=1
	fi
	status_json "$PORT" >"$W/$name-status.json"
	grep -m1 'listening on port' "$W/$name.log" | sed "s/.*: CPU workers/figure: $name: CPU workers/"
	stop_master "$MASTER_PID" 30
	grep -E '^(Results|hash rate|ideal|latency)' "$W/$name.txt" | sed "s/^/figure: $name: /"
	[ -s "$W/$name-floor.txt" ] && grep -E '^(Results|latency)' "$W/$name-floor.txt" | sed "s/^/figure: $name all cached: /"
	stages "$W/$name-status.json" "$name"
	[ -s "$W/$name-clocks.csv" ] && awk -F', *' '$2 + 0 > 0 { print $2 + 0 }' "$W/$name-clocks.csv" | sort -n |
		awk -v name="$name" '{ c[++n] = $1 } END { if (n) printf "figure: %s: SM clock over the run: min %d, p10 %d, p50 %d MHz (%d samples)\n",
			name, c[1], c[int(n / 10) + 1], c[int(n / 2) + 1], n }'
	return $rc
}

# mix_judge NAME CPU_SCORE: NAME's figures against the goals: the CPU
# workers' score over its own, its efficiency, and that above its floor.
mix_judge() {
	local g f e
	g=$(jq -r '.score // empty' "$W/$1.json" 2>/dev/null)
	f=$(jq -r '.score // empty' "$W/$1-floor.json" 2>/dev/null)
	e=$(jq -r '.ideal.own.score // empty' "$W/$1.json" 2>/dev/null)
	[ -n "$g" ] && [ -n "$2" ] || { echo "figure: $1: no score"; return 1; }
	awk -v n="$1" -v g="$g" -v c="$2" -v f="${f:-0}" -v i="${e:-0}" 'BEGIN {
		e = i / g; ef = g > f ? i / (g - f) : 0
		printf "figure: %s: score %s, %.1fx the CPU workers alone (goal 10x); efficiency at" \
			" the calibrated rate %.3f (goal 0.9); all cached %s, efficiency above that floor %.3f\n",
			n, g, c / g, e, f, ef
		exit (c / g >= 10 && e >= 0.9) ? 0 : 1 }'
}

# The mix: the CPU workers alone, then MIX_ROUNDS rounds of each --mix
# server with the GPU worker, the first with their floors, each judged
# against the CPU workers' score.
part_mix() {
	local c rc=0 met=1 r n floor
	mix_run mix-cpu floor --workers "$CPUS" --gpu off || rc=1
	c=$(jq -r '.score // empty' "$W/mix-cpu.json" 2>/dev/null)
	[ -n "$c" ] || { echo "figure: no score of the CPU workers alone"; rc=1; }
	for r in $(seq 1 "$MIX_ROUNDS"); do
		floor=$([ "$r" = 1 ] && echo floor || echo -)
		for n in $MIX_WORKERS; do
			# the knobs in the environment of this server alone
			(
				IFS=+ read -r -a kv <<<"$n"
				args=()
				for k in "${kv[@]:1}"; do
					if [[ $k == --* ]]; then args+=("$k"); else export "$k"; fi
				done
				[ ${#kv[@]} -gt 1 ] && echo "figure: mix-$(mix_name "$n")-$r: ${kv[*]:1}"
				mix_run "mix-$(mix_name "$n")-$r" "$floor" \
					$([ "${kv[0]}" = auto ] || echo --workers "${kv[0]}") "${WITH_GPU[@]}" \
					${args[@]+"${args[@]}"}
			) || rc=1
			[ -n "$c" ] && mix_judge "mix-$(mix_name "$n")-$r" "$c" && met=0
		done
	done
	[ $met = 0 ] || goal_missed || rc=1
	return $rc
}

# sass_loop: from cuobjdump -sass of one kernel on stdin, the length of
# its per-value loop: the largest backward branch's span (255 or more)
# with the fewest LDG (the loop of the threads that do not poll).
sass_loop() {
	awk '/^[ \t]*\.L_x_[0-9]+:/ { sub(/:.*/, "", $1); label[$1] = n; next }
	match($0, /\/\*[0-9a-f]+\*\/ +/) {
		s = substr($0, RSTART + RLENGTH); sub(/^@!?U?P[0-9T] +/, "", s)
		ldg[n] = s ~ /^LDG[. ;]/
		if (s ~ /^BRA[. ;]/ && match(s, /\.L_x_[0-9]+/)) to[n] = substr(s, RSTART, RLENGTH)
		n++ }
	END { for (b in to) if ((t = label[to[b]]) != "" && t <= b + 0 && b - t >= 255) {
			l = 0; for (i = t; i <= b; i++) l += ldg[i]
			if (len == "" || l < fewest) { len = b - t + 1; fewest = l } }
		if (len == "") exit 1
		print len }'
}

# ncu_figures FILE NAME: variant NAME's figures from an ncu --csv --page
# raw report in FILE (a line of metric names, one of units, then the one
# launch's values): each pipe's share of its peak instructions and of its
# cycles (their ratio: cycles an instruction against full rate), issue
# active, eligible warps, occupancy and the top stalls per issue. 1 when
# it could read none.
ncu_figures() {
	awk -v name="$2" -F'","' '
	function pct(m) { return m in v ? sprintf("%.1f%%", v[m]) : "?" }
	function ratio(a, b) { return a in v && v[b] ? sprintf("%.2f", v[a] / v[b]) : "?" }
	{ sub(/\r$/, ""); sub(/^"/, ""); sub(/"$/, "") }
	$1 == "ID" && !nc { nc = split($0, col, /","/); next }
	nc && !got && $1 ~ /^[0-9]+$/ {
		for (i = 1; i <= nc; i++) { gsub(/,/, "", $i); if ($i != "") v[col[i]] = $i + 0 }
		got = 1 }
	END {
		if (!got) exit 1
		I = "sm__inst_executed_pipe_"; C = "sm__pipe_"; S = ".avg.pct_of_peak_sustained_active"
		E = "smsp__warps_eligible.avg.per_cycle_active"
		for (m in v) if (m ~ /issue_stalled_[a-z_]+_per_issue_active\.ratio$/) {
			r = m; sub(/.*issue_stalled_/, "", r); sub(/_per_issue_active.*/, "", r)
			if (r != "selected") stall[r] = v[m] }
		for (k = 0; k < 4; k++) {
			best = ""; for (r in stall) if (best == "" || stall[r] > stall[best]) best = r
			if (best == "") break
			top = top sprintf("%s%s %.2f", k ? ", " : "", best, stall[best]); delete stall[best] }
		printf "figure: ncu %s: ALU pipe %s of its peak instructions, %s of its cycles; " \
			"fmaheavy %s, %s: %s cycles an instruction against the ALU %s; issue active %s, " \
			"eligible warps %s a cycle, occupancy %s; stalls per issue: %s\n", name,
			pct(I "alu" S), pct(C "alu_cycles_active" S), pct(I "fmaheavy" S),
			pct(C "fmaheavy_cycles_active" S), ratio(C "fmaheavy_cycles_active" S, I "fmaheavy" S),
			ratio(C "alu_cycles_active" S, I "alu" S), pct("smsp__issue_active" S),
			E in v ? sprintf("%.2f", v[E]) : "?",
			pct("sm__warps_active" S), top == "" ? "?" : top
	}' "$1"
}

# ncu_run NAME: ncu on the fourth launch of variant NAME (the first sized
# by its rate) into W/ncu-NAME.csv, gpu-check's output into W/ncu-NAME.txt.
ncu_run() {
	timeout --foreground 60 "$NCU" --clock-control none --launch-skip 3 --launch-count 1 \
		-k regex:search --section SpeedOfLight --section ComputeWorkloadAnalysis \
		--section SchedulerStats --section WarpStateStats --section Occupancy \
		--csv --page raw --log-file "$W/ncu-$1.csv" \
		"$GPU_CHECK" --launches 4 --variant "$1" >"$W/ncu-$1.txt" 2>&1
}

# The parser on a report made up as ncu writes one (for the dry run): 90%
# of fmaheavy's cycles for 45% of its instructions is 2.00 cycles each.
ncu_selftest() {
	local f=$W/ncu-made-up.csv out
	{
		echo '==PROF== Connected to process 1'
		echo '"ID","Kernel Name","sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active","sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active","sm__inst_executed_pipe_fmaheavy.avg.pct_of_peak_sustained_active","sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active","smsp__issue_active.avg.pct_of_peak_sustained_active","smsp__warps_eligible.avg.per_cycle_active","sm__warps_active.avg.pct_of_peak_sustained_active","smsp__average_warps_issue_stalled_wait_per_issue_active.ratio","smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio","smsp__average_warps_issue_stalled_selected_per_issue_active.ratio","smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio"'
		echo '"","","%","%","%","%","%","warp","%","ratio","ratio","ratio","ratio"'
		echo '"0","search","88.10","88.10","45.00","90.00","1,070.5","1.23","74.00","0.55","0.80","1.00","0.30"'
	} >"$f"
	out=$(ncu_figures "$f" made-up) || return 1
	echo "$out (the parser, on a made-up report)"
	[[ $out == *"fmaheavy 45.0%, 90.0%: 2.00 cycles an instruction against the ALU 1.00"* &&
		$out == *"issue active 1070.5%"* && $out == *"stalls per issue: math_pipe_throttle 0.80, wait 0.55, not_selected 0.30" ]]
}

part_sass() {
	local c found=0 v n=0 agree=0 sc co left
	if [ $DRY = 1 ]; then
		ncu_selftest || { echo "figure: the ncu report parser FAILED on a made-up report"; return 1; }
		echo "figure: ncu not run (dry run)"
	fi
	for c in "$CARRY"/sass/gpu_kernel-*.cubin; do
		[ -f "$c" ] || continue
		found=1
		echo "$(basename "$c"):" >>"$W/sass.txt"
		"$CARRY/sass/sass-count" "$c" >>"$W/sass.txt" 2>&1
		[ -n "$(cuda_tool cuobjdump)" ] || continue
		"$(cuda_tool cuobjdump)" -sass "$c" >"$W/$(basename "$c" .cubin).sass" 2>&1
		co=$(sass_loop <"$W/$(basename "$c" .cubin).sass")
		sc=$("$CARRY/sass/sass-count" "$c" | sed -n 's/.*loop of \([0-9]*\) instructions.*/\1/p' | head -n 1)
		echo "cuobjdump -sass, the same loop: ${co:-NOT FOUND} instructions (sass-count: $sc)" >>"$W/sass.txt"
		n=$((n + 1))
		[ "$co" = "$sc" ] && agree=$((agree + 1))
	done
	[ $found = 1 ] || { echo "figure: no cubins in $CARRY/sass (make GPU_VARIANTS=all gpu-carry)"; return 3; }
	sed 's/^/figure: /' "$CARRY/sass/sass-table.md"
	[ $n = 0 ] || echo "figure: cuobjdump -sass: its loop as long as sass-count's in $agree of $n cubins"
	[ $DRY = 0 ] || return 0
	NCU=$(cuda_tool ncu)
	if [ -z "$NCU" ]; then
		echo "figure: ncu not run: none on the PATH, in /usr/local/cuda/bin or an Nsight Compute folder"
		return 0
	fi
	echo "figure: ncu: $NCU, $("$NCU" --version 2>&1 | tail -n 1)"
	# shellcheck disable=SC2046 # the lists are words
	for v in "$BEST" $(promising $(variants trial)); do
		left=$((${PART_BOX:-600} - SECONDS))
		if [ "$left" -lt 25 ]; then
			echo "figure: ncu: not run on $v and what follows it: the part's time box is spent"
			break
		fi
		ncu_run "$v"
		echo "figure: ncu $v: exit $?; $(grep -m1 '^launches' "$W/ncu-$v.txt")"
		ncu_figures "$W/ncu-$v.csv" "$v" || ncu_figures "$W/ncu-$v.txt" "$v" ||
			echo "figure: ncu $v: no figures read; $(grep -h -m2 -E 'ERROR|WARN' "$W/ncu-$v.csv" \
				"$W/ncu-$v.txt" 2>/dev/null | tr '\n' ' ')"
	done
	return 0
}
if [ -n "$PART" ]; then
	W=$DIR
	mkdir -p "$W" || exit 1
	"part_$PART"
	exit $?
fi

# --- the run: each part in its own time box -------------------------

mkdir -p "$DIR" || fail "cannot make $DIR"
rm -f "$DIR/proof.log" "$DIR/summary.txt" "$DIR/parts.tar.gz"
# The summary as the repository keeps it: gpu-DATE-N, N one past the day's highest.
DAY=$(date -u +%F)
N=$(find "$ROOT/bench/results" -maxdepth 1 -name "gpu-$DAY-*" 2>/dev/null | sed 's/.*-//' |
	grep -E '^[0-9]{1,4}$' | sort -n | tail -n 1)
RESULTS=$DIR/bench/results/gpu-$DAY-$((${N:-0} + 1))
mkdir -p "$RESULTS" || fail "cannot make $RESULTS"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/gpu-proof.XXXXXX") || fail "no temporary folder"
trap 'rm -rf "$WORK"' EXIT
exec > >(tee -a "$DIR/proof.log") 2>&1
TEE=$!
T0=$SECONDS
FAILED=0
say "$([ $DRY = 1 ] && echo 'DRY RUN (stand-ins, small scale: no figure here says anything of a GPU); ')budget $BUDGET s, seed $SEED"
echo "gpu-proof.sh$([ $DRY = 1 ] && echo ' --dry-run'), $(date -u '+%F %T') UTC: budget $BUDGET s, seed $SEED," \
	"parts: $PARTS" >"$DIR/summary.txt"

# run_part NAME BOX MIN: part NAME in at most BOX seconds of what is left
# of the budget, skipped when less than MIN is left; its line into the
# summary, its figures under it, its outputs into the tarball.
run_part() {
	local name=$1 box=$2 min=$3 left t rc verdict
	left=$((BUDGET - (SECONDS - T0)))
	[ "$box" -le "$left" ] || box=$left
	if [ "$box" -lt "$min" ]; then
		printf '%-9s SKIP  budget: %d s left, the part needs %d\n' "$name" "$left" "$min" >>"$DIR/summary.txt"
		say "$name: SKIP (the budget has $left s, the part needs $min)"
		return
	fi
	say "$name: at most $box s"
	t=$SECONDS
	mkdir -p "$WORK/$name"
	PART_BOX=$box timeout -k 5 "$box" "$0" --part "$name" --out "$WORK/$name" --seed "$SEED" --variant "$VARIANT" \
		${ROUNDS:+--mix-rounds "$ROUNDS"} ${MIX:+--mix "$MIX"} \
		$([ $DRY = 1 ] && echo --dry-run) >"$WORK/$name.out" 2>&1 </dev/null
	rc=$?
	cat "$WORK/$name.out"
	case $rc in
	0) verdict=PASS ;;
	3) verdict=SKIP ;;
	*) verdict=FAIL; FAILED=1 ;; # 124, 137: its time box ran out
	esac
	{
		printf '%-9s %s  %d s%s\n' "$name" "$verdict" $((SECONDS - t)) \
			"$( [ $rc = 124 ] || [ $rc = 137 ] && echo "  (its time box of $box s ran out)")"
		sed -n 's/^figure: /    /p' "$WORK/$name.out"
	} >>"$DIR/summary.txt"
	cp "$DIR/summary.txt" "$RESULTS/summary.txt"
	say "$name: $verdict in $((SECONDS - t)) s"
	tar -C "$WORK" -czf "$DIR/parts.tar.gz.new" . 2>/dev/null && mv -f "$DIR/parts.tar.gz.new" "$DIR/parts.tar.gz"
	rm -f "$DIR/parts.tar.gz.new"
}

# The mix's box: 30 s a server, the CPU workers' alone and a floor too.
set -- $MIX_WORKERS
MIX_BOX=$((30 * (2 + MIX_ROUNDS * $#) + 30))
CHECK_BOX=$((20 + CHECK_EACH_S * $(check_variants | tr , '\n' | wc -l)))
while read -r name box min _; do
	[ "$name" = mix ] && [ "$MIX_BOX" -gt "$box" ] && box=$MIX_BOX
	[ "$name" = check ] && [ "$CHECK_BOX" -gt "$box" ] && box=$CHECK_BOX
	[[ " $PARTS " == *" $name "* ]] && run_part "$name" "$box" "$min"
done <<<"$TABLE"
say "summary ($((SECONDS - T0)) s of $BUDGET):"
cat "$DIR/summary.txt"
say "the summary, for the repository: ${RESULTS#"$DIR"/}/summary.txt"
exec >/dev/null 2>&1 # the log's last lines are written before the exit
wait "$TEE" 2>/dev/null
[ $FAILED = 0 ] || exit 1
