#!/usr/bin/env bash
# The cluster's promises, end to end (cluster.sh, 3 nodes of one worker),
# each numbered step saying its own (docs/testing.md); then what
# cluster.sh trusts (cluster-trust-test.sh). Prints "SKIP: ..." and exits
# 77 where haproxy cannot be had.
#   scripts/cluster/cluster-test.sh [--netns]    (--netns: each node in a namespace)
set -u
. "$(dirname "$0")/../lib.sh"

NODES=3 REPEATS=30 PIECES=12
# Bounds on timings (scripts/cluster/cluster-chaos.sh tightens them).
P99_MS=${P99_MS:-500} DOWN_S=${DOWN_S:-2.5} WAIT_MS=${WAIT_MS:-4000}
# How long the steady client asks around the flood.
STEADY_S=${STEADY_S:-9}
NETNS=()
[ "${1:-}" = --netns ] && NETNS=(--netns)
need_built client
if ! need_tool haproxy --cluster; then
	echo "SKIP: haproxy is missing and could not be installed (scripts/install-deps.sh --cluster)"
	exit 77
fi
CLUSTER=$ROOT/scripts/cluster/cluster.sh
LOGS=${REVHASH_TEST_LOGS:-$ROOT/build/test-logs}
mkdir -p "$LOGS" || fail "cannot create $LOGS"
PORT=$(free_port 1 2 3 100 201 202 203)
P2="" MASTER_PID=""
cleanup() {
	"$CLUSTER" stop --port "$PORT" >/dev/null 2>&1
	[ -n "$P2" ] && "$CLUSTER" stop --port "$P2" >/dev/null 2>&1
	[ -n "$MASTER_PID" ] && alive "$MASTER_PID" && kill -TERM "$MASTER_PID"
}
trap cleanup EXIT

# ask DIGEST START END [OPTIONS]: the cluster's answer (20 s at most).
ask() {
	timeout 20 "$BENCH" 127.0.0.1 "$PORT" --ask "$@" || fail "--ask $* got no answer"
}

# expect_answer X START END [OPTIONS]: the cluster answers X.
expect_answer() {
	local got
	got=$(ask "$(digest_of "$1")" "${@:2}")
	[ "$got" = "$1" ] || fail "asked for $1 in [$2, $3] ${*:4}, got '$got'"
}

# snap: "NODE JOBS CACHE_HITS CANCELLED IN_TABLE" for each node, from its
# --status --json ("-" for a node that is not running).
snap() {
	local i
	for i in $(seq 1 $NODES); do
		status_json $((PORT + i)) |
			jq -r --arg i "$i" '"\($i) \(.jobs) \(.cache_hits) \(.cancelled) \(.jobs_in_table)"' \
				2>/dev/null | grep . || echo "$i - - - -"
	done
}

# deltas BEFORE AFTER: "NODE JOBS CACHE_HITS CANCELLED" each, what each
# counter gained ("-" where the node was not running at either end).
deltas() {
	paste -d' ' <(echo "$1") <(echo "$2") | awk '{
		if ($2 == "-" || $7 == "-") print $1, "-", "-", "-"
		else print $1, $7 - $2, $8 - $3, $9 - $4 }'
}

# view NODE: the node's state as the balancer's statistics say (UP, DOWN...).
view() { haproxy_stats $((PORT + 100)) status | awk -v n="n$1" '$1 == "nodes" && $2 == n { print $3 }'; }

# wait_view NODE STATE SECONDS: until the balancer sees NODE in STATE;
# prints how long that took (s).
wait_view() {
	local t0=$EPOCHREALTIME
	wait_until $(($3 * 20)) 0.05 seen_as "$1" "$2" && { elapsed "$t0"; return 0; }
	fail "node $1 not $2 as the balancer sees it within $3 s (it says '$(view "$1")')"
}

# seen_as NODE STATE: the balancer sees NODE in STATE.
seen_as() { [ "$(view "$1")" = "$2" ]; }

# the_one DELTAS: the one node whose jobs rose by 1 while every other's
# stayed (none had seen the digest); nothing otherwise.
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

# in_flight: the searches in every node's job table, summed ("?" when
# a node does not say).
in_flight() { snap | awk '$5 !~ /^[0-9]+$/ { bad = 1 } { s += $5 } END { print bad ? "?" : s }'; }

# The nodes' user: root's cluster has one of its own (cluster.sh's default).
CLUSTER_USER=""
[ "$(id -u)" = 0 ] && CLUSTER_USER=revhash

# 0. A start whose second node's number a live master of the nodes' user
# holds fails and says which node, leaving nothing; the stranger serves on.
P2=$(free_port 1 2 100 201 202)
"$CLUSTER" config --port "$P2" >/dev/null || fail "config failed" # the nodes' user, made
rmdir "/run/revhash-nodes-$P2" 2>/dev/null # and the socket folder config made: start's
MASTER_USER=$CLUSTER_USER start_master $((P2 + 2)) "$LOGS/cluster-stranger.log" \
	--workers 1 --gpu off
out=$("$CLUSTER" start --nodes 2 --port "$P2" --workers 1 2>&1) &&
	{ "$CLUSTER" stop --port "$P2" >/dev/null; fail "start succeeded beside a stranger on $((P2 + 2))"; }
grep -q "node n2.*port $((P2 + 2))" <<<"$out" || fail "start did not say which node failed: $out"
[ -z "$(NODE_USER=$CLUSTER_USER status_json $((P2 + 1)))" ] || fail "the failed start left node n1 running"
[ -e "$(run_base)/revhash-cluster-$P2" ] && fail "the failed start left its run dir"
[ -e "/run/revhash-nodes-$P2" ] && fail "the failed start left its socket folder"
pgrep -f "revhash-cluster-$P2/haproxy.cfg" >/dev/null && fail "the failed start left haproxy"
alive "$MASTER_PID" || fail "the failed start stopped the stranger"
rm -rf "$(run_base)/revhash-cluster-$P2.logs"
stop_master "$MASTER_PID" 20
MASTER_PID=""
say "a start beside a stranger on a node's port failed, said so, left nothing"

say "port $PORT, $NODES nodes ${NETNS[*]}"
"$CLUSTER" start --nodes $NODES --port "$PORT" --workers 1 "${NETNS[@]}" ||
	fail "the cluster did not start"
NODE_USER=$CLUSTER_USER # status_json asks the nodes as their user
# Start asked each node and the balancer without a connection.
picked=$("$CLUSTER" status --port "$PORT" | awk '$1 ~ /^n[0-9]+$/ { s += $5 } END { print s }')
[ "$picked" = 0 ] || fail "start's probes show: the balancer picked a node $picked time(s)"
ss -Hltn "sport = :$PORT" | awk '{ print $4 }' | grep -qv '^127\.0\.0\.1:' &&
	fail "the balancer listens on an address other than 127.0.0.1"
# Each local node listens on its socket alone, in a 0700 folder of the
# nodes' user, and takes no request without the balancer's PROXY header;
# another user cannot connect. Started as root, nodes, exporters and
# balancer run as the nodes' user.
if [ ${#NETNS[@]} = 0 ]; then
	RUN=$(run_base)/revhash-cluster-$PORT
	socks=$RUN
	[ -n "$CLUSTER_USER" ] && socks=/run/revhash-nodes-$PORT
	for i in $(seq 1 $NODES); do
		listening $((PORT + i)) && fail "node $i listens on TCP port $((PORT + i))"
		sock=$socks/n$i.sock
		[ -S "$sock" ] || fail "node $i has no socket ($sock)"
		own_dir "$(dirname "$sock")" "${CLUSTER_USER:-$(id -un)}" ||
			fail "node $i's socket is not in a 0700 folder of the nodes' user"
	done
	sock=$socks/n1.sock
	[ "$(unix_ask "$sock" "$CLUSTER_USER" "$(digest_of 5)" 0 10)" = none ] ||
		fail "node 1 answered a request without the balancer's header"
	if [ -n "$CLUSTER_USER" ]; then
		[ "$(unix_ask "$sock" nobody "$(digest_of 5)" 0 10)" = refused ] ||
			fail "another user (nobody) reached node 1's socket"
		read -r hap _ <"$RUN/haproxy.pid"
		for p in $hap $(awk '{ print $1 }' "$RUN"/n*.pid); do
			[ "$(ps -o user= -p "$p")" = "$CLUSTER_USER" ] ||
				fail "process $p ($(ps -o comm= -p "$p")) runs as $(ps -o user= -p "$p"), not $CLUSTER_USER"
		done
	fi
	say "the nodes listen on their sockets alone (a 0700 folder of ${CLUSTER_USER:-this user}'s)" \
		"and want the balancer's header there${CLUSTER_USER:+; nobody cannot reach them; nodes, exporters and balancer run as $CLUSTER_USER}"
fi
# Each node's first health check is searched, the next ones are cache
# hits: from then on every job a node counts is ours.
checked() { [ "$(json_num "$(status_json $((PORT + $1)))" cache_hits)" -ge 1 ] 2>/dev/null; }
for i in $(seq 1 $NODES); do wait_until 60 0.05 checked "$i"; done

# 1. Affinity: an exact repeat reaches the node that holds its answer.
X=7777777 LO=7277777 HI=8277777
holder=$(repeats $X $LO $HI) || exit 1
say "affinity: $REPEATS repeats all answered by node $holder, from its cache after the first"

# 2. Spread: pieces of one search (same digest, other ranges) go to
# several nodes, each a job; then as many other questions, whose nodes
# are noted for step 3.
DY=$(digest_of 3333333333)
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

# 3. The holder dies: a request sent at once is answered (a refused
# connection is retried); the node is marked down; its key alone moves.
hpid=$("$CLUSTER" status --port "$PORT" | awk -v n="n$holder" '$1 == n { print $3 }')
kill -KILL "$hpid" || fail "could not kill node $holder (pid $hpid)"
t0=$EPOCHREALTIME
expect_answer $X $LO $HI
say "node $holder killed; a request sent at once answered in $(elapsed "$t0") s"
down=$(wait_view "$holder" DOWN 5) || exit 1
say "node $holder marked down $down s after the kill"
"$CLUSTER" status --port "$PORT" >/dev/null 2>"$LOGS/cluster-status.err" &&
	fail "status exits 0 with node $holder dead"
grep -q "DOWN: node n$holder" "$LOGS/cluster-status.err" || fail "status did not name node $holder"
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

# 4. Back on its port: seen up again, and its key comes home.
"$CLUSTER" node-start "$holder" --port "$PORT" >/dev/null || fail "node $holder did not start again"
up=$(wait_view "$holder" UP 5) || exit 1
before=$(snap)
expect_answer $X $LO $HI
[ "$(owner "$before")" = "$holder" ] || fail "the key did not come back to node $holder"
say "node $holder up again after $up s; its key is back"

# 5. One big question in four pieces: the answer, the three others cancelled.
L=$((1 << 40)) Z=$(((1 << 40) + 5))
before=$(snap)
expect_answer $Z $L $((L + (1 << 32) - 1)) --split 4
cancels() { cancelled=$(deltas "$before" "$(snap)" | awk '{ s += $4 } END { print s }') && [ "$cancelled" -ge "$1" ]; }
wait_until 60 0.05 cancels 3
[ "$cancelled" = 3 ] || fail "--split 4: $cancelled pieces cancelled, not 3"
say "--split 4 answered $Z; the 3 other pieces were cancelled"

# 6. A client that walks away: 10,000 searches of [2^62, 2^63], each
# closed at once, from 127.0.0.1, while 127.0.0.2 asks a small question
# every 100 ms: every one answered, p99 under P99_MS, and nothing the
# flood started runs 10 s after it (64 connections an address, a
# half-closed one ended 5 s on).
before=$(snap)
"$CLIENT" steady 127.0.0.1 "$PORT" "$STEADY_S" --from 127.0.0.2 >"$LOGS/cluster-steady.txt" 2>&1 &
steady=$!
sleep 1
"$CLIENT" flood 127.0.0.1 "$PORT" 10000 | tail -n 1
t0=$EPOCHREALTIME
# The reading that ended the wait is the verdict (a later one could see
# a steady client's search).
for _ in $(seq 1 100); do left=$(in_flight); [ "$left" = 0 ] && break; sleep 0.1; done
after=$(elapsed "$t0")
wait $steady || { cat "$LOGS/cluster-steady.txt"; fail "the steady client lost answers"; }
line=$(tail -n 1 "$LOGS/cluster-steady.txt")
say "$line"
[ "$left" = 0 ] || fail "$left searches still run $after s after the flood"
awk -v b="$P99_MS" '{ for (i = 1; i <= NF; i++) if ($i == "p99") exit !($(i + 1) < b) }' <<<"$line" ||
	fail "p99 of the steady client over $P99_MS ms under the flood"
cancels 1 || fail "the flood's searches were not cancelled"
say "the flood's $cancelled searches were cancelled, none left $after s after it ended"

# 7. A node hangs (SIGSTOP) under four loops asking every 20 ms: marked
# down within DOWN_S, its sessions ended, no client waits WAIT_MS, no
# answer wrong.
"$CLIENT" steady 127.0.0.1 "$PORT" 8 --threads 4 --every 20 --range 200000 \
	>"$LOGS/cluster-hung.txt" 2>&1 &
steady=$!
sleep 2
hung=$(( (holder % NODES) + 1 ))
hpid=$("$CLUSTER" status --port "$PORT" | awk -v n="n$hung" '$1 == n { print $3 }')
kill -STOP "$hpid"
down=$(wait_view "$hung" DOWN 5) || { kill -CONT "$hpid"; exit 1; }
wait $steady || { kill -CONT "$hpid"; cat "$LOGS/cluster-hung.txt"; fail "answers lost or wrong with node $hung hung"; }
line=$(tail -n 1 "$LOGS/cluster-hung.txt")
say "node $hung hung, seen down after $down s; $line"
awk -v d="$down" -v b="$DOWN_S" 'BEGIN { exit !(d <= b) }' ||
	fail "the hung node was seen down after $down s, not $DOWN_S"
awk -v b="$WAIT_MS" '{ for (i = 1; i <= NF; i++) if ($i == "max") exit !($(i + 1) < b) }' <<<"$line" ||
	fail "a client waited $WAIT_MS ms or more on the hung node"

# 8. Status with the balancer dead: exit 1, said. Then stop, the hung
# node still stopped and searches in flight, under 10 s: nothing left but
# the logs, kept where it says.
pids=$("$CLUSTER" status --port "$PORT" | awk '$1 ~ /^n[0-9]+$/ && $3 ~ /^[0-9]+$/ { print $3 }')
"$CLIENT" flood 127.0.0.1 "$PORT" 20 >/dev/null
hap=$(cat "$(run_base)/revhash-cluster-$PORT/haproxy.pid")
kill -KILL "$hap"
"$CLUSTER" status --port "$PORT" >/dev/null 2>"$LOGS/cluster-status.err" &&
	fail "status exits 0 with the balancer dead"
grep -q "DOWN: the balancer" "$LOGS/cluster-status.err" || fail "status did not say the balancer is down"
t0=$EPOCHREALTIME
out=$("$CLUSTER" stop --port "$PORT" 2>&1) || fail "stop did not stop everything cleanly: $out"
took=$(elapsed "$t0")
trap - EXIT
awk -v t="$took" 'BEGIN { exit !(t < 10) }' || fail "stop took $took s"
for p in $pids $hap; do alive "$p" && fail "process $p outlived stop"; done
for p in $pids; do ls /dev/shm/revhash-*-"$p" >/dev/null 2>&1 && fail "node $p's segment outlived stop"; done
kept=$(sed -n 's/.*logs kept in //p' <<<"$out")
[ -s "$kept/haproxy.log.0" ] && [ -s "$kept/n1.log.0" ] || fail "stop did not keep the logs ($out)"
"$CLUSTER" status --port "$PORT" >/dev/null 2>&1 && fail "the cluster still answers status"
ip netns list 2>/dev/null | grep -q "revhash-$PORT-" && fail "a namespace outlived stop"
rm -rf "$kept"
say "stop took $took s with node $hung stopped, left nothing; logs were kept in $kept"

# 9. What cluster.sh trusts.
"$ROOT/scripts/cluster/cluster-trust-test.sh" || fail "scripts/cluster/cluster-trust-test.sh failed"
say "PASS"
