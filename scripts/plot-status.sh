#!/usr/bin/env bash
# The master's live state over a run, one panel per run: jobs in its table
# and jobs queued for a worker (left axis), and the fraction of workers
# hashing (right axis, 0 to 1), as sample_status (lib.sh) recorded them.
#   scripts/plot-status.sh OUT.png TITLE LABEL FILE.status.csv [LABEL FILE]...
set -u
. "$(dirname "$0")/lib.sh"

[ $# -ge 4 ] && [ $(($# % 2)) -eq 0 ] ||
	fail "usage: plot-status.sh OUT.png TITLE LABEL FILE.status.csv [LABEL FILE]..."
out=$1 title=$2
shift 2
need_gnuplot
panels=$(($# / 2))
# One scale for every panel, at least 1 (an idle run has only zeros).
ymax=$(for ((i = 2; i <= $#; i += 2)); do cat "${!i}"; done |
	awk -F, '$2 + 0 > m { m = $2 + 0 } END { print (m < 1 ? 1 : m) * 1.1 }')
{
	cat <<GP
set terminal pngcairo size $((460 * panels + 80)),460 font ",9"
set output "$out"
set datafile separator ","
set key below horizontal
set xlabel "time (s)"
set ylabel "jobs"
set y2label "workers hashing (fraction)"
set yrange [0:$ymax]
set xrange [0:*]
set y2range [0:1.05]
set ytics nomirror
set y2tics 0.25
set multiplot layout 1,$panels title "$title"
GP
	while [ $# -gt 0 ]; do
		[ -r "$2" ] || fail "cannot read $2"
		echo "set title \"$1\""
		echo "plot \"$2\" every ::1 using 1:2 with steps lw 1.5 title \"in table\", \\"
		echo "     \"\" every ::1 using 1:3 with steps title \"queued\", \\"
		echo "     \"\" every ::1 using 1:(\$5 > 0 ? \$4 / \$5 : 0) axes x1y2 with lines lc rgb \"#999999\" title \"busy\""
		shift 2
	done
	echo "unset multiplot"
} | gnuplot || fail "gnuplot failed on $out"
