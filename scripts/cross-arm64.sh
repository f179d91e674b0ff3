#!/usr/bin/env bash
# The arm64 build, checked on an x86-64 machine (CI): cross-compiled with
# Debian's multiarch packages into a build folder of its own, then run
# under qemu-user (natively on arm64): the suites that need no timing,
# make kernel-insns, a master answering a workload right, and a short
# chaos.sh. What the emulator cannot do is in docs/testing.md ("arm64").
#   scripts/cross-arm64.sh      (B=DIR: the build folder, default build/arm64)
# The guest runs with QEMU_LD_PREFIX=/, the multiarch libraries it was
# linked against (the cross toolchain's own libc hangs a guest that forks).
set -eu
. "$(dirname "$0")/lib.sh"
[ $# -eq 0 ] || fail "no arguments (--help: what it does; B=DIR: where)"
cd "$ROOT"

B=${B:-build/arm64}
SUITES=(check_proto check_policy check_cache check_ring check_ring_stress check_kernel check_lib
	check_jobs)
mark=$SECONDS times=""
took() { times="$times $1 $((SECONDS - mark))"; mark=$SECONDS; }

if [ "$(uname -m)" = aarch64 ]; then
	CC=${CC:-cc} EMU=""
	scripts/install-deps.sh
else
	CC=aarch64-linux-gnu-gcc EMU=qemu-aarch64
	scripts/install-deps.sh --cross-arm64
	export QEMU_LD_PREFIX=/
	export PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig
fi
took install

make -j"$(nproc)" --no-print-directory B="$B" BIN="$B" CC="$CC" NVCC= all \
	"${SUITES[@]/#/$B/tests/}" "$B/tests/robust_probe" "$B/tests/seccomp_probe" \
	"$B/tests/stop_unlocked"
make --no-print-directory B="$B" BIN="$B" CC="$CC" NVCC= kernel-insns
took build

# Where no seccomp filter loads, the master must say so and not start
# (never serve with workers it meant to confine and could not); the
# masters here then run with --no-sandbox.
sandbox=""
if ! $EMU "$B/tests/seccomp_probe"; then
	out=$(timeout 30 $EMU "$B/master/master" "$(free_port)" --workers 1 --gpu off 2>&1) &&
		{ echo "$out"; fail "the master started with workers it cannot confine"; }
	grep -q 'workers cannot be confined here' <<<"$out" ||
		{ echo "$out"; fail "the master did not say why it would not start"; }
	sandbox=--no-sandbox
	say "skipped for it: the workers' seccomp filter (tests/seccomp_probe): masters run with $sandbox"
fi

# The programs as a script runs them: through the emulator, where one is.
mkdir -p "$B/emu"
for p in master/master revhash-bench kernel-bench tests/stop_unlocked; do
	opt=""
	[ "$p" = master/master ] && opt=$sandbox
	printf '#!/bin/sh\nexec %s "%s" %s "$@"\n' "$EMU" "$PWD/$B/$p" "$opt" >"$B/emu/${p##*/}"
	chmod +x "$B/emu/${p##*/}"
done
MASTER=$PWD/$B/emu/master BENCH=$PWD/$B/emu/revhash-bench
export REVHASH_MASTER=$MASTER REVHASH_BENCH=$BENCH REVHASH_STOP_UNLOCKED=$PWD/$B/emu/stop_unlocked

# A lock whose holder died comes back only where the system keeps a list of
# each thread's robust mutexes; the probe says whether this one does.
if ! $EMU "$B/tests/robust_probe"; then
	export REVHASH_NO_ROBUST_LOCKS="${EMU:-this system} does not give a dead holder's robust mutex back (tests/robust_probe)"
	say "skipped for it: $REVHASH_NO_ROBUST_LOCKS"
fi
"$B/emu/kernel-bench" --seconds 0.2
took probes

# Slower under the emulator: Check's timeouts three times as long.
CK_TIMEOUT_MULTIPLIER=3 B=$B REVHASH_EMULATOR="$EMU" scripts/run-tests.sh "${SUITES[@]}"
took suites

# End to end: a master with 2 workers, and a client's workload (40
# requests of 2M values, a fifth repeated), every answer right.
log=$B/master.log
start_free "$log" --workers 2 --gpu off
wait_workers "$MASTER_PID" 2 30 || fail "the master's 2 workers did not start"
out=$("$BENCH" 127.0.0.1 "$PORT" 4545 40 0 2000000 20 50000 1.5 --no-calibrate --json 2>&1) ||
	{ echo "$out"; cat "$log"; fail "the workload got wrong or missing answers"; }
jq -e '.reliability_pct == 100' <<<"$out" >/dev/null || { echo "$out"; fail "reliability below 100%"; }
say "score $(jq .score <<<"$out"), every answer right"
say "$("$MASTER" --status "$PORT" | head -n 1)"
stop_master "$MASTER_PID" 30
took master

# The crash-injection run, short: 20 requests of 2M values under its blows
# (those that would land inside the lock skipped where the probe failed).
scripts/chaos.sh --requests 20 --difficulty 2000000 | tee "$B/chaos.out"
grep -qx 'chaos.sh: PASS' "$B/chaos.out" || fail "chaos.sh failed"
took chaos

say "seconds:$times"
