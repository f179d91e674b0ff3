#!/usr/bin/env bash
# The Prometheus exporter's promises beside one master, each numbered
# step saying its own (docs/testing.md). Prints "SKIP: ..." and exits 77
# where prometheus cannot be had.
#   scripts/metrics-test.sh
set -u
. "$(dirname "$0")/lib.sh"

need_built client
[ -x "$METRICS" ] || fail "$METRICS not built (run make)"
if ! need_tool promtool --prometheus || ! command -v prometheus >/dev/null; then
	echo "SKIP: metrics-test: prometheus is missing and could not be installed" \
		"(scripts/install-deps.sh --prometheus)"
	exit 77
fi
PORT=$(free_port 200 300)
MPORT=$((PORT + 200)) PROM=$((PORT + 300))
OUT=$(mktemp -d /tmp/revhash-metrics-test.XXXXXX)
EXPORTER_PID="" PROMETHEUS="" BACKGROUND=""
cleanup() {
	[ -n "$PROMETHEUS" ] && kill "$PROMETHEUS" 2>/dev/null && wait "$PROMETHEUS" 2>/dev/null
	[ -n "$BACKGROUND" ] && kill $BACKGROUND 2>/dev/null
	[ -n "$EXPORTER_PID" ] && kill "$EXPORTER_PID" 2>/dev/null
	[ -n "${MASTER_PID:-}" ] && alive "$MASTER_PID" && (stop_master "$MASTER_PID" 20)
	rm -rf "$OUT"
}
trap cleanup EXIT

# scrape: the exporter's /metrics, or fail.
scrape() { http_get 127.0.0.1 "$MPORT" /metrics || fail "the exporter did not answer /metrics"; }

# histograms FILE: each histogram series of a scrape has 28 buckets,
# bounds rising from 20 us at most to 60 s at least then +Inf, counts
# never falling, +Inf equal to _count; prints "NAME{LABELS} COUNT" a
# series, or says what is wrong and exits 1.
histograms() {
	awk -v buckets=28 '
	function key(s) { sub(/,?le="[^"]*"/, "", s); sub(/_(bucket|count)/, "", s)
			  sub(/\{\}/, "", s); return s }
	function wrong(why) { print FILENAME ": " why ": " $0; bad = 1 }
	$1 == "#" && $2 == "TYPE" && $4 == "histogram" { hist[$3] = 1; next }
	/^#/ { next }
	{ name = $1; sub(/\{.*/, "", name); base = name; sub(/_(bucket|count)$/, "", base) }
	!(base in hist) || name == base { next }
	name ~ /_bucket$/ {
		s = key($1); le = $1; sub(/.*le="/, "", le); sub(/".*/, "", le)
		if (s in inf) wrong("a bucket after +Inf")
		if (n[s] == 0 && le + 0 > 0.00002) wrong("the first bound above 20 us")
		if (n[s] > 0 && le != "+Inf" && le + 0 <= last[s]) wrong("bounds not increasing")
		if (n[s] > 0 && $2 + 0 < seen[s]) wrong("a count smaller than the one below")
		if (le == "+Inf") { inf[s] = $2; if (last[s] < 60) wrong("the top bound under 60 s") }
		last[s] = le + 0; seen[s] = $2 + 0; n[s]++
		next
	}
	name ~ /_count$/ { count[key($1)] = $2 }
	END {
		for (s in count) {
			if (!(s in inf)) { print s ": no +Inf bucket"; bad = 1 }
			else if (inf[s] != count[s]) { print s ": +Inf " inf[s] ", _count " count[s]; bad = 1 }
			if (n[s] != buckets) { print s ": " n[s] " buckets, not " buckets; bad = 1 }
			print s, count[s]
		}
		exit bad }' "$1"
}

# closed LABEL: a closed loop of small requests for 3 s; its latency line.
closed() {
	"$BENCH" 127.0.0.1 "$PORT" --concurrency 2 --duration 3 --difficulty 1000 --json="$OUT/$1.json" \
		>"$OUT/$1.txt" || { cat "$OUT/$1.txt" >&2; fail "$1: wrong or missing answers"; }
	jq -e '.wrong == 0 and .missing == 0' "$OUT/$1.json" >/dev/null && latency_line "$OUT/$1.json" ||
		fail "$1: $(jq -c '{wrong, missing, latency_ms}' "$OUT/$1.json")"
}

# 1. No master yet: up 0.
start_exporter "$PORT" "$MPORT" "$OUT/exporter.log"
scrape | grep -qx 'revhash_up 0' || fail "no master, yet the exporter does not say revhash_up 0"

# 2. A master and some requests; the format is clean.
start_master "$PORT" "$OUT/master.log" --workers 1 --gpu off
# X:END:ANSWER, asked in [0, END]: five found, the last again (the
# cache), and out of its range (not found).
for q in 11:100:11 22:100:22 33:100:33 44:100:44 55:100:55 55:100:55 55:50:0; do
	IFS=: read -r x end want <<<"$q"
	got=$(timeout 20 "$BENCH" 127.0.0.1 "$PORT" --ask "$(digest_of "$x")" 0 "$end")
	[ "$got" = "$want" ] || fail "asked for $x in [0, $end], got '$got', not $want"
done
# (a rendering is kept 200 ms: the first may still be the one without it)
scraped_up() { scrape >"$OUT/metrics.txt" && grep -qx 'revhash_up 1' "$OUT/metrics.txt"; }
wait_until 20 0.1 scraped_up || fail "the exporter does not see the master"
promtool check metrics <"$OUT/metrics.txt" || fail "promtool check metrics found problems"
want=$(json_num "$(status_json "$PORT")" requests)
grep -qx "revhash_requests_total $want" "$OUT/metrics.txt" ||
	fail "revhash_requests_total is not $want (--status)"
# Every number --status --json has at its top level is a metric, with a
# sentence of its own for HELP (not its key again).
json=$(status_json "$PORT")
nkeys=0
for key in $(jq -r 'to_entries[] | select(.value | type == "number") | .key' <<<"$json"); do
	stem=${key%_total}
	case $key in
	*_s) stem=${key%_s}_seconds ;;
	*_count) stem=${key%_count}_entries ;;
	esac
	help=$(grep -E "^# HELP revhash_${stem}(_total)? " "$OUT/metrics.txt" | head -1)
	[ -n "$help" ] || fail "--status --json has $key, /metrics has no revhash_$stem"
	words=${help#\# HELP revhash_* }
	[ "$words" != "$key" ] && [ "${words#* }" != "$words" ] ||
		fail "revhash_$stem's HELP is not a sentence: '$words'"
	nkeys=$((nkeys + 1))
done
[ "$nkeys" -ge 30 ] || fail "only $nkeys numbers in --status --json: $json"
say "/metrics: $(wc -l <"$OUT/metrics.txt") lines, promtool clean, requests $want as --status says, all $nkeys of its numbers there with their own HELP"
# The histograms: every series whole, and each reply under its outcome.
histograms "$OUT/metrics.txt" >"$OUT/histograms.txt" || fail "a histogram is broken"
for series in 'revhash_request_duration_seconds{outcome="found"} 5' \
	'revhash_request_duration_seconds{outcome="cache_hit"} 1' \
	'revhash_request_duration_seconds{outcome="not_found"} 1' \
	'revhash_stage_seconds{stage="hash"} 5'; do
	grep -qxF "$series" "$OUT/histograms.txt" ||
		fail "no '$series' among the histograms: $(cat "$OUT/histograms.txt")"
done
[ "$(grep -c '^revhash_stage_seconds{' "$OUT/histograms.txt")" = 6 ] || fail "not six stages"
grep -qx 'revhash_score_count 7' "$OUT/metrics.txt" || fail "revhash_score_count is not 7 (the replies)"
score0=$(sed -n 's/^revhash_score_sum //p' "$OUT/metrics.txt")
awk -v s="$score0" 'BEGIN { exit !(s > 0) }' || fail "revhash_score_sum is '$score0'"
say "histograms: $(wc -l <"$OUT/histograms.txt") series, buckets increasing to +Inf = _count;" \
	"found 5, cache_hit 1, not_found 1; score $score0 us x priority over 7 replies"

# 3. Eight slow connections from 127.0.0.1 take every place its address
# has; each is closed 5 s after its accept, however it drips, so a real
# Prometheus started beside them scrapes it, its query API agrees with
# --status, and a scrape 8 s into the drip answers within 2 s.
"$CLIENT" drip 127.0.0.1 "$MPORT" 8 --every 4000 >"$OUT/drip.txt" 2>&1 &
BACKGROUND=$!
(sleep 8; curl -s -m 5 -o "$OUT/timed.body" -w '%{time_total}' "http://127.0.0.1:$MPORT/metrics" \
	>"$OUT/timed.txt") &
timed=$!
BACKGROUND="$BACKGROUND $timed"
cat >"$OUT/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: revhash
    static_configs:
      - targets: ['127.0.0.1:$MPORT']
EOF
prometheus --config.file="$OUT/prometheus.yml" --storage.tsdb.path="$OUT/tsdb" \
	--web.listen-address="127.0.0.1:$PROM" >"$OUT/prometheus.log" 2>&1 &
PROMETHEUS=$!
# query PROMQL: the value Prometheus gives for PROMQL now.
query() {
	promtool query instant "http://127.0.0.1:$PROM" "$1" 2>/dev/null |
		sed -n 's/.*=> \([0-9][0-9.e+-]*\) @.*/\1/p'
}
scraped() {
	got=$(query revhash_requests_total)
	[ "$got" = "$want" ] || alive "$PROMETHEUS" ||
		{ tail -n 5 "$OUT/prometheus.log"; fail "prometheus exited"; }
	[ "$got" = "$want" ]
}
wait_until 60 0.5 scraped || fail "prometheus says revhash_requests_total '$got', --status $want"
say "prometheus scraped it past the drip: revhash_requests_total $got, as --status says"
wait "$timed"
t=$(cat "$OUT/timed.txt")
grep -qsx 'revhash_up [01]' "$OUT/timed.body" ||
	fail "a scrape 8 s into the drip of 8 slow connections got no metrics"
awk -v t="$t" 'BEGIN { exit !(t < 2) }' || fail "a scrape 8 s into the drip took $t s (2 s at most)"
say "a scrape 8 s into the drip of 8 slow connections: answered in $t s"

# 4. Hostile scrapers: 1,000 connections held (silent, slow, garbage) and
# a loop of scrapes, while small requests run: every one answered, the
# latency without and with them; a whole scrape after. The scrapers run
# at nice 19: they stand for other machines.
quiet=$(closed quiet) || exit 1
nice -n 19 "$CLIENT" hold 127.0.0.1 "$MPORT" 1000 --every 50 >"$OUT/hold.txt" 2>&1 &
hold=$!
(while alive "$hold"; do http_get 127.0.0.1 "$MPORT" /metrics >/dev/null 2>&1; done) &
loop=$!
renice -n 19 -p "$loop" >/dev/null
BACKGROUND="$BACKGROUND $hold $loop" # a failed loop below leaves them to cleanup
flooded=$(closed flooded) || exit 1
wait "$hold"
wait "$loop"
say "$(cat "$OUT/hold.txt")"
say "small requests, 2 in flight: quiet:   $quiet"
say "small requests, 2 in flight: scraped: $flooded"
alive "$EXPORTER_PID" || fail "the exporter died under the hostile scrapers"
scrape >"$OUT/after.txt"
promtool check metrics <"$OUT/after.txt" || fail "the exporter's scrape after the flood is not clean"
# The score moved with the closed loops' requests, and is theirs.
histograms "$OUT/after.txt" >"$OUT/histograms.txt" || fail "a histogram is broken after the flood"
count=$(sed -n 's/^revhash_score_count //p' "$OUT/after.txt")
score=$(sed -n 's/^revhash_score_sum //p' "$OUT/after.txt")
replies=$(awk '/^revhash_request_duration_seconds\{/ { n += $2 } END { print n + 0 }' "$OUT/histograms.txt")
[ "$count" = "$replies" ] || fail "revhash_score_count $count, but $replies replies in the histograms"
awk -v a="$score0" -v b="$score" -v n="$count" 'BEGIN { exit !(b > a && n > 7) }' ||
	fail "the score did not move: $score0 then $score over $count replies"
say "after the closed loops: score $(awk -v s="$score" -v n="$count" 'BEGIN { printf "%.1f", s / n }')" \
	"(mean us x priority) over $count replies"
# The PromQL of docs/operations.md, on what Prometheus scraped meanwhile.
figures() {
	p99=$(query 'histogram_quantile(0.99, sum by (le) (rate(revhash_request_duration_seconds_bucket[1m])))')
	rated=$(query 'sum(rate(revhash_score_sum[1m])) / sum(rate(revhash_score_count[1m]))')
	[ -n "$p99" ] && [ -n "$rated" ]
}
wait_until 20 0.5 figures || fail "prometheus gives no p99 ('$p99') or score ('$rated')"
say "prometheus over the last minute: p99 $p99 s, score $rated"
say "PASS"
