#!/usr/bin/env bash
# Bars with whiskers, one panel per group: each bar is a configuration's
# average, its whisker runs from its best to its worst repetition.
#   scripts/lab/plot-bars.sh [--logy] DATA.tsv OUT.png TITLE YLABEL
# DATA.tsv: PANEL<TAB>LABEL<TAB>AVERAGE<TAB>BEST<TAB>WORST, rows of a panel
# in the order they are to appear; panels in order of first appearance.
set -u
. "$(dirname "$0")/../lib-bench.sh"

logy="set yrange [0:*]" top="graph 0.08"
[ "${1:-}" = --logy ] && { logy="set logscale y"; top=0; shift; }
[ $# -eq 4 ] || fail "usage: plot-bars.sh [--logy] DATA.tsv OUT.png TITLE YLABEL"
[ -s "$1" ] || fail "no data in $1"
need_gnuplot
blocks=$(mktemp)
trap 'rm -f "$blocks"' EXIT
# gnuplot's data blocks (two blank lines apart), one per panel.
awk -F'\t' '!($1 in at) { at[$1] = ++n; name[n] = $1 } { row[at[$1]] = row[at[$1]] $0 "\n" }
	END { for (i = 1; i <= n; i++) printf "%s%s", row[i], i < n ? "\n\n" : "" }' "$1" >"$blocks"
mapfile -t panels < <(cut -f1 "$1" | awk '!seen[$0]++')
cols=$((${#panels[@]} < 3 ? ${#panels[@]} : 3))
rows=$(((${#panels[@]} + cols - 1) / cols))
{
	cat <<GP
set terminal pngcairo size $((480 * cols)),$((380 * rows + 40)) font ",9"
set output "$2"
set datafile separator "\t"
set style fill solid 0.6 border -1
set boxwidth 0.7
set offsets 0.6, 0.6, $top, 0
set key off
set xtics rotate by 25 right nomirror
set ylabel "$4"
$logy
set multiplot layout $rows,$cols title "$3"
GP
	for i in "${!panels[@]}"; do
		echo "set title \"${panels[i]}\""
		echo "plot \"$blocks\" index $i using 0:3:(\$0 + 1):xtic(2) with boxes lc variable, \\"
		echo "     \"$blocks\" index $i using 0:3:4:5 with yerrorbars lc rgb \"black\" pt -1"
	done
	echo "unset multiplot"
} | gnuplot || fail "gnuplot failed on $1"
