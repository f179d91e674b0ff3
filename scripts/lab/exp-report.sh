#!/usr/bin/env bash
# The experiment lab's report: prints report.md (Markdown) for the runs
# experiments.sh left in DIR (meta.txt, plan.txt, summary.csv,
# closed-summary.csv and the plots). A section per experiment that was
# run, each with what it compares, its workloads, a table and a one-line
# finding computed from the measurements (exp-report.awk), and its plots;
# the findings are gathered in one table at the top.
#   scripts/lab/exp-report.sh DIR > DIR/report.md
set -eu
. "$(dirname "$0")/../lib.sh"

[ $# -eq 1 ] || fail "usage: exp-report.sh DIR"
DIR=$1
AWK=$ROOT/scripts/lab/exp-report.awk
meta() { sed -n "s/^$1=//p" "$DIR/meta.txt" | tail -n 1; }
minutes() { awk -v s="$1" 'BEGIN { printf "%d min %02d s", s / 60, s % 60 }'; }
experiments=$(cut -d'|' -f2 "$DIR/plan.txt" | awk '!seen[$0]++')

summary_of() { [ "$1" = concurrency ] && echo "$DIR/closed-summary.csv" || echo "$DIR/summary.csv"; }
table() { awk -f "$AWK" -v file="$(summary_of "$1")" -v experiment="$1" -v what=table -v spec="$2"; }
finding() { awk -f "$AWK" -v file="$(summary_of "$1")" -v experiment="$1" -v what=finding; }

# title EXP, about EXP: EXP's heading and what it compares (about.md).
ABOUT=$ROOT/scripts/lab/about.md
title() { sed -n "s/^## $1: //p" "$ABOUT"; }
about() { awk -v h="## $1: " 'index($0, "## ") == 1 { on = index($0, h) == 1; next } on && NF' "$ABOUT"; }

SCORE="n:Reps,score:Score (avg),score_best:Best,score_worst:Worst,eff:Efficiency,eff_busy:At busy rate,eff_best:Vs best policy,p99_ms:p99 ms"
spec() {
	case $1 in
	architecture | scheduling) echo "scenario:Scenario,config:Configuration,$SCORE" ;;
	cache) echo "scenario:Repeats,config:Configuration,$SCORE,first_ms:First-time ms,repeat_n:Repeats,repeat_ms:Repeated ms,repeat_score:Repeats' share of score" ;;
	sweeps) echo "scenario:Sweep,config:Value,$SCORE,rate:Hash rate" ;;
	concurrency) echo "scenario:Connections,config:Requests,n:Reps,requests_s:Requests/s,p50_ms:p50 ms,p99_ms:p99 ms,master_cpu:Master CPU,workers_cpu:Workers CPU,master_hwm_kb:Master peak RSS,workers_hwm_kb:Worker peak RSS,errors:Errors" ;;
	named) echo "scenario:Run,config:Configuration,$SCORE,first_ms:First-time ms,repeat_ms:Repeated ms,best_policy:Best policy" ;;
	esac
}

plots() {
	case $1 in
	scheduling) echo scheduling.png scheduling-latency.png scheduling-queue.png ;;
	named) cut -d'|' -f2,3 "$DIR/plan.txt" | awk -F'|' '$1 == "named" && !seen[$2]++ {
		n = $2; gsub(/[^A-Za-z0-9]/, "_", n); print "named-" n ".png named-" n "-queue.png" }' ;;
	*) echo "$1.png" ;;
	esac
}

workloads() { # the distinct workloads of an experiment, as revhash-bench arguments
	awk -F'|' -v e="$1" '$2 != e { next }
		$1 == "closed" { split($6, a, " "); w = $3 " connections, " $4
			args = "--concurrency " a[1] " --duration " a[2]
			for (i = 3; i in a; i++) args = args " " a[i] }
		$1 == "replay" { w = $3 ($2 == "sweeps" ? " = " $4 : ""); args = $6 }
		!seen[w]++ { printf "- %s: `%s`\n", w, args }' "$DIR/plan.txt"
}

took=$(meta took_s)
echo "# revhash experiments"
echo
about intro | fill PRESET="$(meta preset)" REPS="$(meta reps)" DATE="$(meta date)" \
	MACHINE="$(meta machine)" CPUS="$(meta cpus)" COMMIT="$(meta commit)" TOOK="$(minutes "${took:-0}")" \
	EXPECTED="$(minutes "$(meta expected_s)")" RATES="$(sed -n 's/^rate_\([0-9]*\)=\(.*\)/\1 \2/p' \
	"$DIR/meta.txt" | sort -n | awk '{ printf "%s%s worker%s %.1f M/s", (NR > 1 ? ", " : ""), $1,
		($1 == 1 ? "" : "s"), $2 / 1e6 }')"
if [ "$(meta failed_runs)" != 0 ]; then
	echo
	echo "**$(meta failed_runs) run(s) got wrong or missing answers**: the rows whose reliability is below 100:"
	awk -F, 'NR > 1 && $0 ~ /,/ { for (i = 1; i <= NF; i++) if (h[i] == "reliability" && $i + 0 < 100) print "- " $1 ", " $2 ", " $3 ": " $i "%" }
		NR == 1 { for (i = 1; i <= NF; i++) h[i] = $i }' "$DIR/summary.csv"
fi

echo
echo "## Findings"
echo
echo "| Experiment | Finding |"
echo "|---|---|"
for e in $experiments; do
	echo "| $(title "$e") | $(finding "$e") |"
done

for e in $experiments; do
	echo
	echo "## $(title "$e") (\`$e\`)"
	echo
	about "$e"
	echo
	if [ "$e" = concurrency ]; then
		echo "Runs (\`revhash-bench HOST PORT\` options):"
	else
		echo "Workloads (\`revhash-bench HOST PORT SEED TOTAL START DIFFICULTY REP DELAY_US LAMBDA\`):"
	fi
	echo
	workloads "$e"
	echo
	table "$e" "$(spec "$e")"
	echo
	echo "**Finding:** $(finding "$e")"
	for p in $(plots "$e"); do
		echo
		echo "![${p%.png}]($p)"
	done
done
