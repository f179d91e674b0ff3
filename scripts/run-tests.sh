#!/bin/sh
# Run the Check test binaries named on the command line (from $B/tests),
# and the scripts RUN_LIB, RUN_CHAOS, RUN_LAB, RUN_GPU_PROOF, RUN_ATTACK
# and RUN_CLUSTER ask for; finish with "N passed, S skipped, F failed".
# The binaries run under REVHASH_EMULATOR where set (qemu-aarch64). A test
# that cannot run here prints "SKIP: test: reason", counted as skipped.
# The last lines name each failing test, where, and its replay (TH_SEED=S
# or chaos's command).
set -u
case ${1:-} in
--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
-*) echo "run-tests.sh: unknown option $1 (--help)" >&2; exit 2 ;;
esac
B=${B:-build}
BIN=${BIN:-.}
export REVHASH_MASTER="${REVHASH_MASTER:-$BIN/master/master}"
export REVHASH_BENCH="${REVHASH_BENCH:-$BIN/revhash-bench}"
export REVHASH_TEST_LOGS="${REVHASH_TEST_LOGS:-$B/test-logs}"
export REVHASH_GPU_STANDIN="${REVHASH_GPU_STANDIN:-$BIN/worker/revhash-gpu-standin}"
export REVHASH_GPU_HOSTDEV="${REVHASH_GPU_HOSTDEV:-$BIN/worker/revhash-gpu-hostdev}"
export REVHASH_METRICS="${REVHASH_METRICS:-$BIN/master/revhash-metrics}"
mkdir -p "$REVHASH_TEST_LOGS"

passed=0 skipped=0 failed=0 broken="" replay="" tests="" times=""
# took NAME: the seconds since the last took (or the start), kept for the
# last line: where the run's time went.
mark=$(date +%s)
took() {
	now=$(date +%s)
	times="$times $1 $((now - mark))"
	mark=$now
}
out=$(mktemp)
beside="" beside_pid=""
trap 'rm -f "$out" "$out.rc"; [ -n "$beside" ] && rm -rf "$beside"; [ -n "$beside_pid" ] && kill "$beside_pid" 2>/dev/null' EXIT

# skips: how many SKIP lines the output in $out holds.
skips() { grep -c '^SKIP: ' "$out"; }
# failing NAME: NAME failed; keep its seed (or chaos's replay line), and
# each of its failed tests as Check reports them (file:line:F:suite:test:
# message) as "test (file:line: message)".
failing() {
	local seed
	broken="$broken $1"
	seed=$(grep -o -E '^seed [0-9]+ \(TH_SEED=[0-9]+|replay: .*' "$out" | tail -n 1)
	[ -n "$seed" ] && replay="$replay
  $1: ${seed#*(}"
	tests="$tests$(awk -v bin="$1" -v seed="${seed#*(}" -F: '
		/^[^ :]+:[0-9]+:[FE]:/ {
			msg = $0
			for (i = 0; i < 6; i++)
				sub(/^[^:]*:/, "", msg)
			sub(/^ /, "", msg)
			printf "\n  %s: %s (%s:%s: %s) %s", bin, $5, $1, $2, msg, seed
		}' "$out")"
}

for t in "$@"; do
	# shellcheck disable=SC2086 # the emulator's command and its arguments
	${REVHASH_EMULATOR:-} "$B/tests/$t" 2>&1 | tee "$out"
	line=$(grep -E '^[0-9]+%: Checks: ' "$out" | tail -n 1)
	if [ -z "$line" ]; then
		failing "$t"
		failed=$((failed + 1))
		continue
	fi
	read -r n f e <<-EOF
	$(echo "$line" | sed -E 's/.*Checks: ([0-9]+).*Failures: ([0-9]+).*Errors: ([0-9]+).*/\1 \2 \3/')
	EOF
	s=$(skips)
	[ "$s" -gt $((n - f - e)) ] && s=$((n - f - e)) # a test that said SKIP, then failed
	passed=$((passed + n - f - e - s))
	skipped=$((skipped + s))
	failed=$((failed + f + e))
	[ $((f + e)) -gt 0 ] && failing "$t"
	took "${t#check_}"
done
# one NAME COMMAND...: COMMAND (a script, its output shown) is one more
# test: passed (exit 0), skipped (77: haproxy or prometheus cannot be
# had, which is not a pass) or failed; the SKIP lines of its parts that
# cannot run here are counted as skips beside it.
one() {
	name=$1
	shift
	{ "$@" 2>&1; echo $? >"$out.rc"; } | tee "$out"
	case $(cat "$out.rc") in
	0) passed=$((passed + 1))
	   skipped=$((skipped + $(skips))) ;;
	77) skipped=$((skipped + 1)) ;;
	*) failing "$name"
	   failed=$((failed + 1))
	   skipped=$((skipped + $(skips))) ;;
	esac
	took "${name%.sh}"
}
S=$(dirname "$0")
export REVHASH_CLUSTER_CLIENT="$B/tests/cluster_client"
# The cluster and exporter tests mostly wait (0.6 of a CPU over their
# minute): they run in the background beside the scripts below, their
# output, status and seconds in $beside/NAME.*, counted once those end.
if [ -n "${RUN_CLUSTER:-}" ]; then
	beside=$(mktemp -d)
	(
		for t in cluster/cluster-test.sh metrics-test.sh; do
			n=$(basename "$t")
			t0=$(date +%s)
			"$S/$t" >"$beside/$n.out" 2>&1
			echo $? >"$beside/$n.rc"
			echo $(($(date +%s) - t0)) >"$beside/$n.s"
		done
	) &
	beside_pid=$!
fi
# replayed NAME: what the background run of NAME printed, and its status.
replayed() {
	cat "$beside/$1.out"
	return "$(cat "$beside/$1.rc")"
}
# The readers lib.sh and lib-bench.sh give the scripts (a second or two).
[ -n "${RUN_LIB:-}" ] && one lib-selftest.sh "$S/lib-selftest.sh"
# The short crash-injection run; a failure keeps its replay line.
[ -n "${RUN_CHAOS:-}" ] && one chaos.sh "$S/chaos.sh"
# lab_smoke: the lab's report generator on its smoke preset (seconds):
# every section, table, finding and plot must be there.
lab_smoke() {
	lab=$(mktemp -d /tmp/revhash-lab.XXXXXX)
	"$S/lab/experiments.sh" --preset smoke --out "$lab" && "$S/lab/exp-check.sh" "$lab" &&
		rm -rf "$lab" && return 0
	echo "kept: $lab"
	return 1
}
[ -n "${RUN_LAB:-}" ] && one lab-smoke lab_smoke
# gpu_dry: gpu-proof.sh --dry-run must pass, name every part in its
# summary and its --help, leave at most the 8 files a device call brings
# back, each part's outputs in its tarball and the summary where the
# repository keeps it.
gpu_dry() {
	dir=$(mktemp -d /tmp/revhash-gpu-proof.XXXXXX)
	ok=1
	"$S/gpu-proof.sh" --dry-run --out "$dir" >"$dir.log" 2>&1 || ok=0
	for part in preflight check memcheck rates stop small kills mix sass; do
		grep -Eq "^$part +(PASS|SKIP) " "$dir/summary.txt" 2>/dev/null || ok=0
		"$S/gpu-proof.sh" --help | grep -q "^  $part " || ok=0
	done
	[ "$(ls "$dir" | wc -l)" -le 8 ] || ok=0
	cmp -s "$dir/summary.txt" "$dir"/bench/results/gpu-*-1/summary.txt || ok=0
	for f in check/check.txt rates/rates.txt small/small-100k.txt small/small-sleep-100k.txt \
		kills/kills-bench.txt mix/mix-cpu.txt mix/mix-auto-poll-1.txt mix/mix-auto-poll-1-floor.txt; do
		tar -tzf "$dir/parts.tar.gz" 2>/dev/null | grep -qx "./$f" || ok=0
	done
	if [ $ok = 1 ]; then
		echo "gpu-proof.sh --dry-run: PASS"
		rm -rf "$dir" "$dir.log"
		return 0
	fi
	cat "$dir.log"
	echo "kept: $dir"
	return 1
}
[ -n "${RUN_GPU_PROOF:-}" ] && one gpu-proof gpu_dry
# The quick attacks (scripts/attack.sh --quick).
[ -n "${RUN_ATTACK:-}" ] && one attack.sh env B="$B" "$S/attack.sh" --quick
if [ -n "$beside_pid" ]; then
	wait "$beside_pid"
	beside_pid=""
	took beside-wait
	for n in cluster-test.sh metrics-test.sh; do
		one "$n" replayed "$n"
		times="${times% *} $(cat "$beside/$n.s")(beside)"
	done
fi
[ -n "$tests" ] && echo "failed tests:$tests"
[ -n "$replay" ] && echo "to replay:$replay"
[ -n "$broken" ] && echo "failing:$broken"
[ -n "$times" ] && echo "seconds:$times"
echo "$passed passed, $skipped skipped, $failed failed"
[ "$failed" -eq 0 ]
