#!/usr/bin/env bash
# CPU and memory against concurrency, from the lab's closed-loop summary
# (exp-aggregate.sh of closed.csv): the master's and the workers' CPU %
# and peak RSS for each request kind, beside the figures published for an
# epoll server (7.9 / 42.3 / 71.5 % CPU at 500 / 1000 / 3000 clients,
# 1.66 MB), which come from another machine and workload: context only.
#   scripts/lab/plot-concurrency.sh CLOSED_SUMMARY.csv OUT.png
set -u
. "$(dirname "$0")/../lib-bench.sh"

[ $# -eq 2 ] || fail "usage: plot-concurrency.sh CLOSED_SUMMARY.csv OUT.png"
[ -r "$1" ] || fail "cannot read $1"
need_gnuplot
data=$(mktemp)
trap 'rm -f "$data"' EXIT
# One block per request kind: concurrency, master %, workers %, master MB, worker MB.
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	!($3 in at) { at[$3] = ++n; name[n] = $3 }
	{ row[at[$3]] = row[at[$3]] sprintf("%s\t%s\t%s\t%.2f\t%.2f\n", $c["concurrency"],
		$c["master_cpu"], $c["workers_cpu"], $c["master_hwm_kb"] / 1024, $c["workers_hwm_kb"] / 1024) }
	END { for (i = 1; i <= n; i++) printf "# %s\n%s%s", name[i], row[i], i < n ? "\n\n" : "" }' \
		"$1" >"$data"
mapfile -t kinds < <(tail -n +2 "$1" | cut -d, -f3 | awk '!seen[$0]++') # the blocks' order
[ ${#kinds[@]} -gt 0 ] || fail "no runs in $1"
plot_kinds() { # COLUMN WHAT
	local i
	for i in "${!kinds[@]}"; do
		printf '"%s" index %d using 1:%d with linespoints pt 7 title "%s, %s", ' \
			"$data" "$i" "$1" "$2" "${kinds[$i]}"
	done
}
gnuplot <<GP || fail "gnuplot failed"
set terminal pngcairo size 1200,500 font ",9"
set output "$2"
set datafile separator "\t"
set key below horizontal
set xlabel "concurrent connections"
set logscale x
\$pub << EOD
500	7.9
1000	42.3
3000	71.5
EOD
set multiplot layout 1,2 title "closed loop: CPU and memory against concurrency (published epoll figures: another machine and workload)"
set title "CPU (% of one CPU)"
set ylabel "CPU %"
set yrange [0:*]
plot $(plot_kinds 2 master) $(plot_kinds 3 "workers (sum)") \
     \$pub using 1:2 with linespoints pt 5 dt 2 lc rgb "black" title "published epoll server"
set title "peak resident set (VmHWM)"
set ylabel "MB"
plot $(plot_kinds 4 master) $(plot_kinds 5 "largest worker") \
     1.66 with lines dt 2 lc rgb "black" title "published epoll server (1.66 MB)"
unset multiplot
GP
