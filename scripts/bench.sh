#!/usr/bin/env bash
# make bench: everything measured side by side in one run, because the
# machine is shared and absolute times drift.
#  1. each search kernel's M hashes/s on one core, and its ratio to OpenSSL;
#  2. the server end to end on the milestone workload, in the default
#     configuration and in a baseline one (1 worker, OpenSSL kernel), with
#     score, efficiency (ideal / measured) and the ratio between them.
# Figures, CSVs and plots go to bench-out/.
#   scripts/bench.sh [--total N] [--seconds S] [--skip-baseline]
set -u
. "$(dirname "$0")/lib.sh"

SEED=3435245 TOTAL=100 START=0 DIFFICULTY=30000000 REP=20 DELAY_US=600000 LAMBDA=1.5
SECONDS_PER_KERNEL=1 BASELINE=1
while [ $# -gt 0 ]; do
	case $1 in
	--total) TOTAL=$2; shift ;;
	--seconds) SECONDS_PER_KERNEL=$2; shift ;;
	--skip-baseline) BASELINE=0 ;;
	*) fail "unknown option $1" ;;
	esac
	shift
done
need_built
OUT=$ROOT/bench-out
mkdir -p "$OUT"

say "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs"
say "1. search kernels, one core each"
"$ROOT/kernel-bench" --seconds "$SECONDS_PER_KERNEL" | tee "$OUT/kernels.txt"
if grep -qw sha_ni /proc/cpuinfo; then
	# OpenSSL uses the SHA extensions here; the ratios a CPU without them
	# would show come from OpenSSL told to ignore them (CPUID.7:EBX bit 29).
	say "1b. the same against OpenSSL ignoring the SHA extensions, as on a CPU without them"
	OPENSSL_ia32cap=":~0x20000000" "$ROOT/kernel-bench" --seconds "$SECONDS_PER_KERNEL" |
		tee "$OUT/kernels-no-sha-openssl.txt"
fi

# run_config NAME ARGS...: serve the milestone workload, print one row.
run_config() {
	local name=$1 port log
	shift
	port=$(free_port)
	log=$OUT/$name.log
	start_master "$port" "$log" "$@"
	"$BENCH" 127.0.0.1 "$port" $SEED $TOTAL $START $DIFFICULTY $REP $DELAY_US $LAMBDA \
		--quiet --csv "$OUT/$name.csv" >"$OUT/$name.txt" 2>&1
	local rc=$?
	stop_master "$MASTER_PID" 60
	[ $rc -eq 0 ] || { cat "$OUT/$name.txt"; fail "$name: wrong or missing answers"; }
	local score eff rate
	score=$(awk '/^Results:/ {print $3}' "$OUT/$name.txt")
	eff=$(sed -n 's/.*efficiency = \([0-9.]*\).*/\1/p' "$OUT/$name.txt")
	rate=$(sed -n 's/^hash rate: \([0-9.]*\) M.*/\1/p' "$OUT/$name.txt" | head -n 1)
	printf '%-10s %-36s %14s %11s %13s\n' "$name" "$*" "$score" "${eff:--}" "${rate:--}"
	eval "SCORE_$name=$score"
}

say "2. server, milestone workload: seed $SEED, $TOTAL requests, difficulty $DIFFICULTY," \
	"rep $REP%, every $DELAY_US us, lambda $LAMBDA"
printf '%-10s %-36s %14s %11s %13s\n' config options score efficiency "M hashes/s"
run_config default
[ "$BASELINE" = 1 ] && run_config baseline --workers 1 --kernel openssl
if [ "$BASELINE" = 1 ]; then
	awk -v b="$SCORE_baseline" -v d="$SCORE_default" \
		'BEGIN { printf "default scores %.1fx better than baseline\n", b / d }'
fi
if command -v gnuplot >/dev/null 2>&1; then
	for f in "$OUT"/default.csv "$OUT"/baseline.csv; do
		[ -f "$f" ] && "$ROOT/scripts/plot.sh" "$f" "${f%.csv}.png"
	done
	say "plots: $OUT/*.png"
else
	say "no gnuplot: no plots (scripts/install-deps.sh --plot installs it)"
fi
