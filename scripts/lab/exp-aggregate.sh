#!/usr/bin/env bash
# Sum up the repetitions of the lab's runs: a CSV whose first three
# columns name a configuration, as one row per configuration in order:
# exp, scenario, config, n, then each other column averaged (text, and
# prefix: the first rep's; reliability: the lowest), and KEY_best and
# KEY_worst (lowest and highest) at the end. The rep column goes.
#   scripts/lab/exp-aggregate.sh KEY FILE.csv
set -eu
[ $# -eq 2 ] || { echo "usage: exp-aggregate.sh KEY FILE.csv" >&2; exit 2; }
awk -F, -v key="$1" '
function isnum(v) { return v ~ /^-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/ }
NR == 1 {
	for (i = 1; i <= NF; i++) { name[i] = $i; if ($i == key) kcol = i }
	if (!kcol) { print "exp-aggregate.sh: no column " key > "/dev/stderr"; exit 2 }
	printf "exp,scenario,config,n"
	for (i = 4; i <= NF; i++) if (name[i] != "rep") printf ",%s", name[i]
	printf ",%s_best,%s_worst\n", key, key
	nf = NF; next
}
{
	g = $1 "," $2 "," $3
	if (!(g in n)) { order[++groups] = g; n[g] = 0 }
	n[g]++
	for (i = 4; i <= nf; i++) {
		if (!((g, i) in first)) first[g, i] = $i
		if (!isnum($i)) continue
		sum[g, i] += $i; cnt[g, i]++
		if (!((g, i) in lo) || $i < lo[g, i]) lo[g, i] = $i
		if (!((g, i) in hi) || $i > hi[g, i]) hi[g, i] = $i
	}
}
function trim(s) { if (s ~ /\./) { sub(/0+$/, "", s); sub(/\.$/, "", s) } return s }
function out(g, i) {
	if (name[i] == "reliability" && (g, i) in lo) return lo[g, i]
	if (cnt[g, i]) return trim(sprintf("%.4f", sum[g, i] / cnt[g, i]))
	return first[g, i]
}
END {
	for (k = 1; k <= groups; k++) {
		g = order[k]
		printf "%s,%d", g, n[g]
		for (i = 4; i <= nf; i++) if (name[i] != "rep") printf ",%s", out(g, i)
		printf ",%s,%s\n", lo[g, kcol], hi[g, kcol]
	}
}' "$2"
