#!/usr/bin/env bash
# make bench: everything measured side by side in one run, because the
# machine is shared and absolute times drift.
#  1. each search kernel's M hashes/s on one core, against OpenSSL (and
#     OpenSSL without its SHA extensions, where the CPU has them);
#  2. the workload matrix on the default server (replay_row): the
#     milestone, the same at 90% load, a burst, and the presets 1M, 300k
#     and 100k;
#  3. closed-loop throughput, 64 requests in flight: difficulty 1, cache
#     hits, and difficulty 1 with 4,000 searches that never end queued;
#  4. the milestone on a baseline (1 worker, OpenSSL kernel) and the ratio.
# Figures, CSVs and plots go to bench-out/.
#   scripts/bench.sh [--total N] [--seconds S] [--skip-baseline] [--only ROWS]
#   ROWS: a comma list of kernels,milestone,load90,burst,1M,300k,100k,closed
set -u
. "$(dirname "$0")/lib-bench.sh"

TOTAL=100 SECONDS_PER_KERNEL=1 BASELINE=1 ONLY=""
opts "--total=TOTAL --seconds=SECONDS_PER_KERNEL --skip-baseline:BASELINE=0 --only=ONLY" "$@"
[ -n "$ONLY" ] && ONLY=,$ONLY,
need_built
OUT=$ROOT/bench-out
mkdir -p "$OUT"
wanted() { [ -z "$ONLY" ] || case $ONLY in *,"$1",*) return 0 ;; *) return 1 ;; esac; }

say "machine: $(cpu_model), $(nproc) CPUs"
if wanted kernels; then
	say "1. search kernels, one core each"
	"$ROOT/kernel-bench" --seconds "$SECONDS_PER_KERNEL" | tee "$OUT/kernels.txt"
	if lscpu | grep -qw sha_ni; then
		say "1b. against OpenSSL ignoring the SHA extensions, as on a CPU without them"
		OPENSSL_ia32cap=":~0x20000000" "$ROOT/kernel-bench" --seconds "$SECONDS_PER_KERNEL" |
			tee "$OUT/kernels-no-sha-openssl.txt"
	fi
fi

# row NAME TOTAL DIFFICULTY DELAY_US [MASTER ARGS...]: a matrix line.
row() {
	local line
	line=$(replay_row "$@") || exit 1
	tee -a "$OUT/matrix.txt" <<<"$line"
}

calibrate
say "2. workloads on the default server (calibrated at $RATE M hashes/s); busy_M: the M" \
	"hashes/s its workers reached per second of CPU spent hashing during the row, and" \
	"eff@busy the efficiency at that rate; stages in us: read/dispatch/wake/hash/notify/reply"
row_header | tee "$OUT/matrix.txt"
wanted milestone && row milestone "$TOTAL" 30000000 600000
wanted load90 && row load90 "$TOTAL" 30000000 "$(delay_for 30000000 0.9)"
wanted burst && row burst "$TOTAL" 30000000 0
# Each preset, then where the default may hold idle CPUs polling (root),
# again with them left to sleep.
# shellcheck disable=SC2046 # preset's three words
for name in 1M 300k 100k; do
	wanted "$name" || continue
	row "$name" $(preset "$name")
	[ -w /dev/cpu_dma_latency ] && row "$name-sleep" $(preset "$name") --no-low-latency
done

# closed NAME ARGS...: one closed-loop run, 64 requests in flight, 5 s.
# All from one address, the 4,000 held searches too: its share lifted.
closed() {
	local name=$1 f=$OUT/closed-$1
	shift
	start_free "$f.log" --peer-conns 8192 --peer-searches 8192
	"$BENCH" 127.0.0.1 "$PORT" --concurrency 64 --duration 5 "$@" --json="$f.json" >"$f.txt" 2>&1
	local rc=$? rps lat
	stop_master "$MASTER_PID" 60
	[ $rc -eq 0 ] || { cat "$f.txt"; fail "closed $name: wrong or missing"; }
	rps=$(jq -e .requests_s "$f.json") && lat=$(latency_line "$f.json") ||
		fail "closed $name: no requests_s or latency_ms in $f.json"
	printf '%-22s %12s   %s\n' "$name" "$rps" "$lat"
}
if wanted closed; then
	say "3. closed loop, 64 requests in flight, 5 s"
	printf '%-22s %12s   %s\n' requests "requests/s" latency
	closed "difficulty 1"
	closed "cache hits" --cached
	closed "difficulty 1, 4000 held" --hold 4000
fi

if [ "$BASELINE" = 1 ] && wanted milestone; then
	say "4. milestone on a baseline server (--workers 1 --kernel openssl)"
	OWN_RATE=1 row baseline "$TOTAL" 30000000 600000 --workers 1 --kernel openssl
	awk '$1 == "milestone" { d = $5 } $1 == "baseline" { b = $5 }
	     END { if (d > 0) printf "default scores %.1fx better than the baseline\n", b / d }' \
		"$OUT/matrix.txt"
fi
if command -v gnuplot >/dev/null 2>&1; then
	for f in "$OUT"/milestone.csv "$OUT"/baseline.csv; do
		[ -f "$f" ] && "$ROOT/scripts/lab/plot.sh" "$f" "${f%.csv}.png" >/dev/null
	done
	say "plots: $OUT/*.png"
fi
