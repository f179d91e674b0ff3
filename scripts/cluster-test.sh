#!/usr/bin/env bash
# The cluster's promises, end to end (scripts/cluster.sh, 3 nodes of one
# worker): exact repeats reach one node and are answered from its cache;
# pieces of one search (same digest, other ranges) spread; a node killed
# with SIGKILL (the one holding the cached answer) is marked down within
# 5 s, a request sent at once is answered elsewhere, its keys move to one
# other node and nobody else's move; brought back on its port, it is seen
# up again and its keys return; a --split 4 question finds its answer and
# the three pieces left are cancelled; stop leaves nothing behind. Prints
# "SKIP: ..." and exits 77 where haproxy cannot be had.
#   scripts/cluster-test.sh [--netns]    (--netns: each node in a namespace)
set -u
. "$(dirname "$0")/lib.sh"

NODES=3 REPEATS=30 PIECES=12
NETNS=()
[ "${1:-}" = --netns ] && NETNS=(--netns)
need_built
if ! need_tool haproxy --cluster; then
	echo "SKIP: haproxy is missing and could not be installed (scripts/install-deps.sh --cluster)"
	exit 77
fi
CLUSTER=$ROOT/scripts/cluster.sh
PORT=$(free_port 1 2 3 100)
trap '"$CLUSTER" stop --port "$PORT" >/dev/null 2>&1' EXIT

# digest X: the hex SHA-256 of X's 8 bytes, little-endian (X below 2^63).
digest() {
	local i esc=""
	for i in 0 1 2 3 4 5 6 7; do esc+=$(printf '\\0%03o' $(($1 >> 8 * i & 255))); done
	printf '%b' "$esc" | sha256sum | cut -c1-64
}

# ask DIGEST START END [OPTIONS]: the cluster's answer (20 s at most).
ask() {
	timeout 20 "$BENCH" 127.0.0.1 "$PORT" --ask "$@" || fail "--ask $* got no answer"
}

# expect_answer X START END [OPTIONS]: the cluster answers X.
expect_answer() {
	local got
	got=$(ask "$(digest "$1")" "${@:2}")
	[ "$got" = "$1" ] || fail "asked for $1 in [$2, $3] ${*:4}, got '$got'"
}

# snap: "NODE JOBS CACHE_HITS CANCELLED" for each node, from its --status
# --json ("-" for a node that is not running).
snap() {
	local i j
	for i in $(seq 1 $NODES); do
		j=$(status_json $((PORT + i)))
		echo "$i $(json_num "$j" jobs) $(json_num "$j" cache_hits) $(json_num "$j" cancelled)" |
			awk 'NF == 1 { print $1, "-", "-", "-"; next } 1'
	done
}

# deltas BEFORE AFTER: "NODE JOBS CACHE_HITS CANCELLED" each, what each
# counter gained ("-" where the node was not running at either end).
deltas() {
	paste -d' ' <(echo "$1") <(echo "$2") | awk '{
		if ($2 == "-" || $6 == "-") print $1, "-", "-", "-"
		else print $1, $6 - $2, $7 - $3, $8 - $4 }'
}

# view NODE: the node's state as the balancer sees it (UP, DOWN, ...).
view() { "$CLUSTER" status --port "$PORT" | awk -v n="n$1" '$1 == n { print $4 }'; }

# wait_view NODE STATE SECONDS: until the balancer sees NODE in STATE;
# prints how long that took (s).
wait_view() {
	local t0=$EPOCHREALTIME
	for _ in $(seq 1 $(($3 * 20))); do
		[ "$(view "$1")" = "$2" ] && { awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f\n", b - a }'; return 0; }
		sleep 0.05
	done
	fail "node $1 not $2 as the balancer sees it within $3 s (it says '$(view "$1")')"
}

# the_one DELTAS: the one node whose jobs rose by 1 while every other's
# stayed (each request that reached another node would be a job there:
# none had seen the digest); fails otherwise.
the_one() {
	awk '$2 == 1 { n++; who = $1 } $2 != 1 && $2 != 0 && $2 != "-" { bad = 1 }
	     END { if (n == 1 && !bad) print who }' <<<"$1"
}

# repeats X START END: ask REPEATS times; the node that answered them all.
repeats() {
	local before after one
	before=$(snap)
	for _ in $(seq 1 $REPEATS); do expect_answer "$@"; done
	after=$(snap)
	one=$(the_one "$(deltas "$before" "$after")")
	[ -n "$one" ] || fail "$REPEATS repeats did not all reach one node:" \
		"$(deltas "$before" "$after" | tr '\n' ';')"
	awk -v n="$one" -v r=$REPEATS '$1 == n && $3 < r - 1 { exit 1 }' <<<"$(deltas "$before" "$after")" ||
		fail "node $one answered the repeats without its cache"
	echo "$one"
}

# owner: the node whose jobs rose between snap BEFORE and now.
owner() { the_one "$(deltas "$1" "$(snap)")"; }

say "port $PORT, $NODES nodes ${NETNS[*]}"
"$CLUSTER" start --nodes $NODES --port "$PORT" --workers 1 "${NETNS[@]}" ||
	fail "the cluster did not start"
# Each node's first health check is searched, the next ones are cache
# hits: from then on every job a node counts is ours.
for i in $(seq 1 $NODES); do
	for _ in $(seq 1 60); do
		[ "$(json_num "$(status_json $((PORT + i)))" cache_hits)" -ge 1 ] 2>/dev/null && break
		sleep 0.05
	done
done

# 1. Affinity: an exact repeat reaches the node that holds its answer.
X=7777777 LO=7277777 HI=8277777
holder=$(repeats $X $LO $HI) || exit 1
say "affinity: $REPEATS repeats all answered by node $holder, from its cache after the first"

# 2. Spread: pieces of one search (same digest, other ranges) go to
# several nodes. Each piece alone, to see where it lands (an answer not
# found is not cached: each is a job). Then as many other questions, with
# answers, whose nodes are noted for step 3.
DY=$(digest 3333333333)
for p in $(seq 0 $((PIECES - 1))); do
	before=$(snap)
	[ "$(ask "$DY" $((p * 100000)) $((p * 100000 + 99999)))" = 0 ] || fail "piece $p found an answer"
	piece_on[p]=$(owner "$before")
	[ -n "${piece_on[p]}" ] || fail "piece $p was not searched by exactly one node"
done
spread=$(printf '%s\n' "${piece_on[@]}" | sort | uniq -c | awk '{ printf "%s node %s: %s", (NR > 1 ? "," : ""), $2, $1 }')
[ "$(printf '%s\n' "${piece_on[@]}" | sort -u | wc -l)" -ge 2 ] || fail "$PIECES pieces all on one node"
say "spread: $PIECES pieces of one digest:$spread"
for k in $(seq 1 $PIECES); do
	before=$(snap)
	expect_answer $((5000000 + 1000 * k)) $((5000000 + 1000 * k - 100)) $((5000000 + 1000 * k + 100))
	key_on[k]=$(owner "$before")
	[ -n "${key_on[k]}" ] || fail "question $k was not searched by exactly one node"
done

# 3. The holder dies. A request sent at once is answered (the balancer
# retries a refused connection on another node); the node is marked down;
# its key moves to one other node, and the other keys stay where they were.
hpid=$("$CLUSTER" status --port "$PORT" | awk -v n="n$holder" '$1 == n { print $3 }')
kill -KILL "$hpid" || fail "could not kill node $holder (pid $hpid)"
t0=$EPOCHREALTIME
expect_answer $X $LO $HI
say "node $holder killed; a request sent at once answered in" \
	"$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }') s"
down=$(wait_view "$holder" DOWN 5) || exit 1
say "node $holder marked down $down s after the kill"
heir=$(repeats $X $LO $HI) || exit 1
[ "$heir" != "$holder" ] || fail "the dead node answered"
moved=0 before=$(snap)
for k in $(seq 1 $PIECES); do
	expect_answer $((5000000 + 1000 * k)) $((5000000 + 1000 * k - 100)) $((5000000 + 1000 * k + 100))
	[ "${key_on[k]}" = "$holder" ] && moved=$((moved + 1))
done
searched=$(deltas "$before" "$(snap)" | awk '$2 != "-" { s += $2 } END { print s + 0 }')
[ "$searched" = "$moved" ] || fail "after the death $searched of $PIECES questions were searched" \
	"again, but only $moved had been on the dead node: keys of live nodes moved"
say "its key moved to node $heir alone; of $PIECES other questions, only its $moved moved"

# 4. Back on its port: seen up again, and its key comes home (a job there:
# its cache died with it).
"$CLUSTER" node-start "$holder" --port "$PORT" >/dev/null || fail "node $holder did not start again"
up=$(wait_view "$holder" UP 5) || exit 1
before=$(snap)
expect_answer $X $LO $HI
[ "$(owner "$before")" = "$holder" ] || fail "the key did not come back to node $holder"
say "node $holder up again after $up s; its key is back"

# 5. One big question in four pieces: the answer, and the three pieces
# left searching are reset, which cancels them (each alone would take
# seconds).
L=$((1 << 40)) Z=$(((1 << 40) + 5))
before=$(snap)
expect_answer $Z $L $((L + (1 << 32) - 1)) --split 4
for _ in $(seq 1 60); do
	cancelled=$(deltas "$before" "$(snap)" | awk '{ s += $4 } END { print s }')
	[ "$cancelled" -ge 3 ] && break
	sleep 0.05
done
[ "$cancelled" = 3 ] || fail "--split 4: $cancelled pieces cancelled, not 3"
say "--split 4 answered $Z; the 3 other pieces were cancelled"

# 6. Stop: nothing left running, no run dir, no namespace.
pids=$("$CLUSTER" status --port "$PORT" | awk '$1 ~ /^n[0-9]+$/ && $3 ~ /^[0-9]+$/ { print $3 }')
pids="$pids $("$CLUSTER" status --port "$PORT" | sed -n 's/.*(pid \([0-9]*\)).*/\1/p')"
"$CLUSTER" stop --port "$PORT" >/dev/null || fail "stop did not stop everything cleanly"
trap - EXIT
for p in $pids; do alive "$p" && fail "process $p outlived stop"; done
"$CLUSTER" status --port "$PORT" >/dev/null 2>&1 && fail "the cluster still answers status"
ip netns list 2>/dev/null | grep -q "revhash-$PORT-" && fail "a namespace outlived stop"
say "PASS"
