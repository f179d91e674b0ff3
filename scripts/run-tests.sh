#!/bin/sh
# Run the Check test binaries named on the command line (from $B/tests), the
# scripts' own readers (lib-selftest.sh) when RUN_LIB is set, the
# short chaos run when RUN_CHAOS is set, the experiment lab's smoke run
# when RUN_LAB is set, the GPU script's dry run when RUN_GPU_PROOF is set,
# the quick attacks when RUN_ATTACK is set and the cluster and exporter
# tests when RUN_CLUSTER is set (beside the other scripts), and
# finish with one summary line, "N passed, S skipped, F failed".
# Integration tests find the server binary through REVHASH_MASTER, the GPU
# worker's stand-ins through REVHASH_GPU_STANDIN and REVHASH_GPU_HOSTDEV, the exporter through
# REVHASH_METRICS. The test binaries run under REVHASH_EMULATOR, a command
# and its arguments, where it is set (scripts/cross-arm64.sh: qemu-aarch64).
#
# A test that cannot run here (a kernel the CPU lacks, no IPv6, not root...)
# says so with a line "SKIP: test: reason": it is counted as skipped, not as
# passed. The last lines name every failing test, where it failed and the
# seed that replays its run (TH_SEED=S), or a failing chaos run's replay
# command, then the summary.
set -u
B=${B:-build}
BIN=${BIN:-.}
REVHASH_MASTER=${REVHASH_MASTER:-$BIN/master/master}
REVHASH_BENCH=${REVHASH_BENCH:-$BIN/revhash-bench}
REVHASH_TEST_LOGS=${REVHASH_TEST_LOGS:-$B/test-logs}
REVHASH_GPU_STANDIN=${REVHASH_GPU_STANDIN:-$BIN/worker/revhash-gpu-standin}
REVHASH_GPU_HOSTDEV=${REVHASH_GPU_HOSTDEV:-$BIN/worker/revhash-gpu-hostdev}
REVHASH_METRICS=${REVHASH_METRICS:-$BIN/master/revhash-metrics}
export REVHASH_MASTER REVHASH_BENCH REVHASH_TEST_LOGS REVHASH_GPU_STANDIN REVHASH_GPU_HOSTDEV \
	REVHASH_METRICS
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
cluster_out="" cluster_pid=""
trap 'rm -f "$out" ${cluster_out:+"$cluster_out"}; [ -n "$cluster_pid" ] && kill "$cluster_pid" 2>/dev/null' EXIT

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
	n=$(echo "$line" | sed -E 's/.*Checks: ([0-9]+).*/\1/')
	f=$(echo "$line" | sed -E 's/.*Failures: ([0-9]+).*/\1/')
	e=$(echo "$line" | sed -E 's/.*Errors: ([0-9]+).*/\1/')
	s=$(skips)
	[ "$s" -gt $((n - f - e)) ] && s=$((n - f - e)) # a test that said SKIP, then failed
	passed=$((passed + n - f - e - s))
	skipped=$((skipped + s))
	failed=$((failed + f + e))
	[ $((f + e)) -gt 0 ] && failing "$t"
	took "${t#check_}"
done
# The cluster behind HAProxy and the Prometheus exporter: one more test
# each, skipped (exit 77, "SKIP: ...") where haproxy or prometheus cannot
# be had, which is not a pass. They wait on what they test (down marks, a
# slow scraper's drip, the exporter's 5 s close) more than they compute
# (about 0.6 of a CPU over their minute): so they run beside the parts
# below, their output kept apart and shown after them, and their counts
# added in at the end.
if [ -n "${RUN_CLUSTER:-}" ]; then
	cluster_out=$(mktemp)
	(
		for t in cluster/cluster-test.sh metrics-test.sh; do
			start=$(date +%s)
			REVHASH_CLUSTER_CLIENT=$B/tests/cluster_client "$(dirname "$0")/$t"
			echo "result: $? $t $(($(date +%s) - start))"
		done
	) >"$cluster_out" 2>&1 &
	cluster_pid=$!
fi
# The readers lib.sh and lib-bench.sh give the scripts (a second or two):
# one more test.
if [ -n "${RUN_LIB:-}" ]; then
	if "$(dirname "$0")/lib-selftest.sh"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		broken="$broken lib-selftest.sh"
	fi
	took lib.sh
fi
# The short crash-injection run counts as one more test (its parts that
# cannot run here as skips beside it).
if [ -n "${RUN_CHAOS:-}" ]; then
	"$(dirname "$0")/chaos.sh" 2>&1 | tee "$out"
	if grep -qx 'chaos.sh: PASS' "$out"; then
		passed=$((passed + 1))
	else
		failing chaos.sh
		failed=$((failed + 1))
	fi
	skipped=$((skipped + $(skips)))
	took chaos
fi
# The lab's report generator on its smoke preset (seconds): every section,
# table, finding and plot must be there. One more test.
if [ -n "${RUN_LAB:-}" ]; then
	lab=$(mktemp -d /tmp/revhash-lab.XXXXXX)
	if "$(dirname "$0")/lab/experiments.sh" --preset smoke --out "$lab" &&
		"$(dirname "$0")/lab/exp-check.sh" "$lab"; then
		passed=$((passed + 1))
		rm -rf "$lab"
	else
		failed=$((failed + 1))
		broken="$broken lab-smoke(kept:$lab)"
	fi
	took lab
fi
# The GPU machine's one script, dry (scripts/gpu-proof.sh --dry-run: the
# stand-ins, every part): it must pass, say every part in its summary, and
# leave at most the 8 files a device call brings back, its tarball holding
# each part's outputs, and the summary again where the repository keeps
# it. One more test.
if [ -n "${RUN_GPU_PROOF:-}" ]; then
	dir=$(mktemp -d /tmp/revhash-gpu-proof.XXXXXX)
	ok=1
	"$(dirname "$0")/gpu-proof.sh" --dry-run --out "$dir" >"$dir.log" 2>&1 || ok=0
	for part in preflight check memcheck rates stop small kills mix sass; do
		grep -Eq "^$part +(PASS|SKIP) " "$dir/summary.txt" 2>/dev/null || ok=0
	done
	[ "$(ls "$dir" | wc -l)" -le 8 ] || ok=0
	cmp -s "$dir/summary.txt" "$dir"/bench/results/gpu-*-1/summary.txt || ok=0
	for f in check/check.txt rates/rates.txt small/small-100k.txt small/small-sleep-100k.txt \
		kills/kills-bench.txt mix/mix-cpu.txt mix/mix-auto-poll-1.txt mix/mix-auto-poll-1-floor.txt; do
		tar -tzf "$dir/parts.tar.gz" 2>/dev/null | grep -qx "./$f" || ok=0
	done
	if [ $ok = 1 ]; then
		passed=$((passed + 1))
		echo "gpu-proof.sh --dry-run: PASS"
		rm -rf "$dir" "$dir.log"
	else
		cat "$dir.log"
		failed=$((failed + 1))
		broken="$broken gpu-proof-dry(kept:$dir)"
	fi
	took gpu-proof
fi
# The quick attacks (scripts/attack.sh --quick): one more test, its
# attacks that cannot run here as skips beside it.
if [ -n "${RUN_ATTACK:-}" ]; then
	B=$B REVHASH_CLUSTER_CLIENT=$B/tests/cluster_client "$(dirname "$0")/attack.sh" --quick \
		2>&1 | tee "$out"
	if grep -qx 'attack.sh: PASS' "$out"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		broken="$broken attack.sh"
	fi
	skipped=$((skipped + $(skips)))
	took attack
fi
if [ -n "$cluster_out" ]; then
	wait "$cluster_pid"
	cluster_pid=""
	grep -v '^result: ' "$cluster_out"
	while read -r _ rc t secs; do
		case $rc in
		0) passed=$((passed + 1)) ;;
		77) skipped=$((skipped + 1)) ;;
		*) failed=$((failed + 1))
		   broken="$broken $t" ;;
		esac
		times="$times $(basename "$t" .sh) $secs(beside)"
	done <<EOF_RESULTS
$(grep '^result: ' "$cluster_out")
EOF_RESULTS
	rm -f "$cluster_out"
	took cluster-wait
fi
[ -n "$tests" ] && echo "failed tests:$tests"
[ -n "$replay" ] && echo "to replay:$replay"
[ -n "$broken" ] && echo "failing:$broken"
[ -n "$times" ] && echo "seconds:$times"
echo "$passed passed, $skipped skipped, $failed failed"
[ "$failed" -eq 0 ]
