#!/bin/sh
# Run the Check test binaries named on the command line (from $B/tests), the
# short chaos run when RUN_CHAOS is set, the experiment lab's smoke run
# when RUN_LAB is set and the cluster test when RUN_CLUSTER is set, and
# finish with one summary line, "N passed, M skipped, K failed". Integration
# tests find the server binary through REVHASH_MASTER.
set -u
B=${B:-build}
BIN=${BIN:-.}
REVHASH_MASTER=${REVHASH_MASTER:-$BIN/master/master}
REVHASH_BENCH=${REVHASH_BENCH:-$BIN/revhash-bench}
REVHASH_TEST_LOGS=${REVHASH_TEST_LOGS:-$B/test-logs}
export REVHASH_MASTER REVHASH_BENCH REVHASH_TEST_LOGS
mkdir -p "$REVHASH_TEST_LOGS"

passed=0 skipped=0 failed=0 broken=""
for t in "$@"; do
	out=$(mktemp)
	"$B/tests/$t" 2>&1 | tee "$out"
	line=$(grep -E '^[0-9]+%: Checks: ' "$out" | tail -n 1)
	rm -f "$out"
	if [ -z "$line" ]; then
		broken="$broken $t"
		failed=$((failed + 1))
		continue
	fi
	n=$(echo "$line" | sed -E 's/.*Checks: ([0-9]+).*/\1/')
	f=$(echo "$line" | sed -E 's/.*Failures: ([0-9]+).*/\1/')
	e=$(echo "$line" | sed -E 's/.*Errors: ([0-9]+).*/\1/')
	passed=$((passed + n - f - e))
	failed=$((failed + f + e))
	[ $((f + e)) -gt 0 ] && broken="$broken $t"
done
# The short crash-injection run counts as one more test.
if [ -n "${RUN_CHAOS:-}" ]; then
	if "$(dirname "$0")/chaos.sh"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		broken="$broken chaos.sh"
	fi
fi
# The lab's report generator on its smoke preset (seconds): every section,
# table, finding and plot must be there. One more test.
if [ -n "${RUN_LAB:-}" ]; then
	lab=$(mktemp -d /tmp/revhash-lab.XXXXXX)
	if "$(dirname "$0")/experiments.sh" --preset smoke --out "$lab" &&
		"$(dirname "$0")/exp-check.sh" "$lab"; then
		passed=$((passed + 1))
		rm -rf "$lab"
	else
		failed=$((failed + 1))
		broken="$broken lab-smoke(kept:$lab)"
	fi
fi
# The cluster behind HAProxy: one more test, skipped (exit 77, "SKIP: ...")
# where haproxy cannot be had, which is not a pass.
if [ -n "${RUN_CLUSTER:-}" ]; then
	"$(dirname "$0")/cluster-test.sh"
	case $? in
	0) passed=$((passed + 1)) ;;
	77) skipped=$((skipped + 1)) ;;
	*) failed=$((failed + 1))
	   broken="$broken cluster-test.sh" ;;
	esac
fi
[ -n "$broken" ] && echo "failing:$broken"
echo "$passed passed, $skipped skipped, $failed failed"
[ "$failed" -eq 0 ]
