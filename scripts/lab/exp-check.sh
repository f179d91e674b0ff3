#!/usr/bin/env bash
# Check a lab report against its plan: for every experiment in DIR/plan.txt,
# report.md has its section (a "## ... (`NAME`)" heading), and in it a
# table, a non-empty "**Finding:**" line and at least one plot, and every
# plot the report shows is a PNG file in DIR; the findings table at the top
# has a row per experiment. Says what is missing and exits 1.
#   scripts/lab/exp-check.sh DIR
set -u
. "$(dirname "$0")/../lib.sh"

[ $# -eq 1 ] || fail "usage: exp-check.sh DIR"
DIR=$1 R=$1/report.md
[ -s "$R" ] || fail "no $R"
[ -s "$DIR/plan.txt" ] || fail "no $DIR/plan.txt"
bad=0
miss() { say "$R: $*" >&2; bad=1; }

for e in $(cut -d'|' -f2 "$DIR/plan.txt" | awk '!seen[$0]++'); do
	section=$(awk -v h="(\`$e\`)" 'index($0, "## ") == 1 { on = substr($0, length($0) - length(h) + 1) == h; next } on' "$R")
	[ -n "$section" ] || { miss "no section for $e"; continue; }
	echo "$section" | grep -q '^|---' || miss "$e: no table"
	echo "$section" | grep -Eq '^\*\*Finding:\*\* .{10,}' || miss "$e: no finding"
	echo "$section" | grep -q '^!\[' || miss "$e: no plot"
	n=$((${n:-0} + 1))
done
rows=$(awk '/^## Findings/ { on = 1; next } /^## / { on = 0 } on && /^\| / { n++ } END { print n - 1 }' "$R")
[ "$rows" -ge "${n:-0}" ] || miss "the findings table has $rows rows for ${n:-0} experiments"
for p in $(sed -n 's/^!\[[^]]*\](\(.*\))$/\1/p' "$R"); do
	[ "$(head -c 4 "$DIR/$p" 2>/dev/null | od -An -c | tr -d ' ')" = '211PNG' ] ||
		miss "plot $p is missing or not a PNG"
done
[ $bad = 0 ] || exit 1
say "$R: every experiment has its section, table, finding and plots"
