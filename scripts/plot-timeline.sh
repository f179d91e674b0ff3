#!/usr/bin/env bash
# Latency over time coloured by priority, one panel per replay (the left
# half of plot.sh's picture, side by side for several runs, on one scale).
#   scripts/plot-timeline.sh OUT.png TITLE LABEL FILE.csv [LABEL FILE.csv]...
# FILE.csv: revhash-bench --csv output.
set -u
. "$(dirname "$0")/lib.sh"

[ $# -ge 4 ] && [ $(($# % 2)) -eq 0 ] ||
	fail "usage: plot-timeline.sh OUT.png TITLE LABEL FILE.csv [LABEL FILE.csv]..."
out=$1 title=$2
shift 2
need_gnuplot
panels=$(($# / 2))
{
	cat <<GP
set terminal pngcairo size $((460 * panels + 80)),460 font ",9"
set output "$out"
set datafile separator ","
set key off
set xlabel "request sent at (s)"
set ylabel "latency (ms)"
set logscale y
set palette defined (1 "#1f77b4", 4 "#2ca02c", 8 "#ff7f0e", 16 "#d62728")
set cbrange [1:16]
set cblabel "priority"
set multiplot layout 1,$panels title "$title"
GP
	while [ $# -gt 0 ]; do
		[ -r "$2" ] || fail "cannot read $2"
		echo "set title \"$1\""
		echo "plot \"$2\" every ::1 using (\$2/1e6):(\$3/1e3 > 0.01 ? \$3/1e3 : 0.01):4 with points pt 7 ps 0.6 palette"
		shift 2
	done
	echo "unset multiplot"
} | gnuplot || fail "gnuplot failed on $out"
