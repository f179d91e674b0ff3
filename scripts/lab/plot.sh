#!/usr/bin/env bash
# Turn `revhash-bench --csv` output into one PNG: latency over time coloured
# by priority, and the latency distribution of each priority.
#   scripts/lab/plot.sh FILE.csv OUT.png
set -eu
[ $# -eq 2 ] || { echo "usage: scripts/lab/plot.sh FILE.csv OUT.png" >&2; exit 2; }
[ -r "$1" ] || { echo "plot.sh: cannot read $1" >&2; exit 1; }
command -v gnuplot >/dev/null 2>&1 || "$(dirname "$0")/../install-deps.sh" --plot
gnuplot <<GP
set terminal pngcairo size 1400,560 font ",10"
set output "$2"
set datafile separator ","
set key off
set multiplot layout 1,2 title "$(basename "$1"): latency by priority"
set title "latency over time"
set xlabel "request sent at (s)"
set ylabel "latency (ms)"
set logscale y
set cblabel "priority"
set palette defined (1 "#1f77b4", 4 "#2ca02c", 8 "#ff7f0e", 16 "#d62728")
set cbrange [1:16]
plot "$1" every ::1 using (\$2/1e6):(\$3/1e3 > 0.01 ? \$3/1e3 : 0.01):4 with points pt 7 ps 0.6 palette
set title "latency distribution per priority"
set xlabel "priority"
set xrange [0:17]
set key top right
plot "$1" every ::1 using 4:(\$3/1e3 > 0.01 ? \$3/1e3 : 0.01) title "request" with points pt 7 ps 0.5 lc rgb "#555555", \
     "$1" every ::1 using 4:(\$3/1e3 > 0.01 ? \$3/1e3 : 0.01) title "mean" smooth unique with linespoints lw 2 lc rgb "#d62728"
unset multiplot
GP
echo "plot.sh: wrote $2"
