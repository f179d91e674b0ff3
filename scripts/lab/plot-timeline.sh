#!/usr/bin/env bash
# Latency over time coloured by priority, one panel per replay (the left
# half of plot.sh's picture, side by side for several runs, on one scale).
#   scripts/lab/plot-timeline.sh OUT.png TITLE LABEL FILE.csv [LABEL FILE.csv]...
# FILE.csv: revhash-bench --csv output.
set -u
. "$(dirname "$0")/../lib-bench.sh"

panel_args plot-timeline.sh "$@"
shift 2
{
	panel_terminal
	cat <<GP
set key off
set xlabel "request sent at (s)"
set ylabel "latency (ms)"
set logscale y
set palette defined (1 "#1f77b4", 4 "#2ca02c", 8 "#ff7f0e", 16 "#d62728")
set cbrange [1:16]
set cblabel "priority"
GP
	panel_layout
	while [ $# -gt 0 ]; do
		[ -r "$2" ] || fail "cannot read $2"
		echo "set title \"$1\""
		echo "plot \"$2\" every ::1 using (\$2/1e6):(\$3/1e3 > 0.01 ? \$3/1e3 : 0.01):4 with points pt 7 ps 0.6 palette"
		shift 2
	done
	echo "unset multiplot"
} | gnuplot || fail "gnuplot failed on $OUT"
