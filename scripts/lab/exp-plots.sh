#!/usr/bin/env bash
# The lab's plots (docs/lab.md lists them), from the files experiments.sh
# leaves in DIR; single runs show the first repetition.
#   scripts/lab/exp-plots.sh DIR
# Exits non-zero when a plot could not be drawn.
set -eu
. "$(dirname "$0")/../lib.sh"

[ $# -eq 1 ] || fail "usage: exp-plots.sh DIR"
DIR=$1
S=$ROOT/scripts/lab
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# rows EXP [COLUMNS [FILTER]]: "scenario<TAB>config" and each of COLUMNS
# (default prefix), tab-separated, of EXP's configurations in summary.csv;
# FILTER an awk condition on scenario (s) and config (c).
rows() {
	awk -F, -v e="$1" -v want="${2:-prefix}" '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; n = split(want, w, " "); next }
		$1 == e { s = $2; cf = $3; if ('"${3:-1}"') { printf "%s\t%s", s, cf
			for (i = 1; i <= n; i++) printf "\t%s", $c[w[i]]; print "" } }' "$DIR/summary.csv"
}
has() { [ -n "$(rows "$1")" ]; }

bars() { # EXP TITLE [--logy]
	rows "$1" "score score_best score_worst" >"$tmp/$1.tsv"
	"$S/plot-bars.sh" ${3:-} "$tmp/$1.tsv" "$DIR/$1.png" "$2" "score (mean latency x priority)"
}

# The scheduling scenario whose runs are drawn one by one.
pick_scenario() {
	rows scheduling | cut -f1 | awk '!seen[$0]++' |
		awk '/heavy/ && /λ=1\.5$/ { print; found = 1; exit } NR == 1 { first = $0 }
			END { if (!found) print first }'
}

per_run() { # PLOTTER OUT TITLE SUFFIX EXP SCENARIO
	local args=() s c p
	while IFS=$'\t' read -r s c p; do
		case $c in *"run to completion"*) continue ;; esac
		args+=("$c" "$DIR/$p$4")
	done < <(rows "$5" prefix "s == \"$6\"")
	[ ${#args[@]} -gt 0 ] || return 0
	"$S/$1" "$2" "$3" "${args[@]}"
}

if has architecture; then bars architecture "architecture: score by configuration"; fi
if has scheduling; then
	bars scheduling "scheduling: score by policy"
	scen=$(pick_scenario)
	per_run plot-timeline.sh "$DIR/scheduling-latency.png" \
		"scheduling, $scen: latency over time by priority (rep 1)" .csv scheduling "$scen"
	per_run plot-status.sh "$DIR/scheduling-queue.png" \
		"scheduling, $scen: the master's queue and busy workers (rep 1)" .status.csv scheduling "$scen"
fi
if has cache; then bars cache "cache: score by configuration"; fi
if has sweeps; then bars sweeps "sweeps: score (log scale)" --logy; fi
if [ "$(wc -l <"$DIR/closed-summary.csv")" -gt 1 ]; then
	"$S/plot-concurrency.sh" "$DIR/closed-summary.csv" "$DIR/concurrency.png"
fi
while IFS=$'\t' read -r s c p; do
	name=$(echo "$s" | tr -c 'A-Za-z0-9\n' _)
	"$S/plot.sh" "$DIR/$p.csv" "$DIR/named-$name.png" >/dev/null
	"$S/plot-status.sh" "$DIR/named-$name-queue.png" "$s: the master's queue and busy workers" \
		"$s" "$DIR/$p.status.csv"
done < <(rows named)
