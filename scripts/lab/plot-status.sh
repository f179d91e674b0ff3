#!/usr/bin/env bash
# The master's load over a run, a panel a run, from sample_status's
# samples: the mean jobs in its table and searched, and the share of
# workers hashing, per time bin: the shortest of 0.1 to 60 s that keeps
# the longest run under 100 bins (samples drawn one by one make a comb).
#   scripts/lab/plot-status.sh OUT.png TITLE LABEL FILE.status.csv [LABEL FILE]...
set -u
. "$(dirname "$0")/../lib-bench.sh"

panel_args plot-status.sh "$@"
shift 2
files=()
for ((i = 2; i <= $#; i += 2)); do
	[ -r "${!i}" ] || fail "cannot read ${!i}"
	files+=("${!i}")
done
bin=$(awk -F, 'FNR > 1 && $1 + 0 > t { t = $1 + 0 }
	END { n = split("0.1 0.2 0.5 1 2 5 10 30 60", w, " ")
	      for (i = 1; i < n && t / w[i] > 100; i++) ;
	      print w[i] }' "${files[@]}")
TMP=$(mktemp -d /tmp/revhash-plot.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
# bin_means FILE OUT: per bin, its middle, then the means of the jobs in
# the table, the jobs searched and the share of workers hashing.
bin_means() {
	awk -F, -v w="$bin" 'FNR == 1 { next }
	{ b = int($1 / w); n[b]++; t[b] += $2; q[b] += $3; h[b] += ($5 > 0 ? $4 / $5 : 0)
	  if (b > last) last = b }
	END { for (b = 0; b <= last; b++) if (n[b])
		printf "%.3f,%.3f,%.3f,%.3f\n", (b + 0.5) * w, t[b] / n[b], q[b] / n[b], h[b] / n[b] }' \
		"$1" >"$2"
}
ymax=1
for f in "${files[@]}"; do
	bin_means "$f" "$TMP/$(basename "$f").bins"
	ymax=$(awk -F, -v m="$ymax" '$2 + 0 > m { m = $2 + 0 } END { print m }' "$TMP/$(basename "$f").bins")
done
{
	panel_terminal
	cat <<GP
set key below horizontal
set xlabel "time (s), means per $bin s"
set ylabel "jobs"
set y2label "workers hashing (share)"
set yrange [0:$(awk -v m="$ymax" 'BEGIN { print m * 1.1 }')]
set xrange [0:*]
set y2range [0:1.05]
set ytics nomirror
set y2tics 0.25
set style fill transparent solid 0.25 noborder
GP
	panel_layout
	while [ $# -gt 0 ]; do
		data="$TMP/$(basename "$2").bins"
		echo "set title \"$1\""
		echo "plot \"$data\" using 1:4 axes x1y2 with fillsteps lc rgb \"#999999\" title \"busy\", \\"
		echo "     \"\" using 1:2 with steps lw 1.5 title \"in table\", \\"
		echo "     \"\" using 1:3 with steps title \"searched\""
		shift 2
	done
	echo "unset multiplot"
} | gnuplot || fail "gnuplot failed on $OUT"
