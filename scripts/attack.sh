#!/usr/bin/env bash
# The attack suite: what a hostile peer, local user or worker would try,
# each against a fresh master (or cluster), as a user would make it
# (docs/security.md: each defence and the test that fails without it).
#   scripts/attack.sh            every attack (about a minute)
#   scripts/attack.sh --quick    the quick ones (make check: 6 s)
#   scripts/attack.sh NAME...    those named (see ATTACKS below)
# Each prints "attack NAME: PASS (what was measured)", "SKIP: attack NAME:
# why" where it cannot run, or fails the script.
set -u
. "$(dirname "$0")/lib.sh"

B=${B:-build}
# shellcheck disable=SC2034 # --quick picks it by name (the others' Check twins run in make check)
QUICK="flood fifo squat cut"
ATTACKS="flood host wait escape fifo squat cut segment lies fields cluster"
LOGS=$(mktemp -d)
KEEP_PID="" KEEPS=()
trap 'cleanup' EXIT

cleanup() {
	[ -n "$KEEP_PID" ] && kill "$KEEP_PID" 2>/dev/null
	[ -n "${MASTER_PID:-}" ] && alive "$MASTER_PID" && kill -KILL "$MASTER_PID" 2>/dev/null
	for k in "${KEEPS[@]}"; do kill "$k" 2>/dev/null; done
	rm -rf "$LOGS"
}

pass() { say "attack $1: PASS ($2)"; }
skip() { echo "SKIP: attack $1: $2"; }

# fresh NAME [ARGS...]: a master of its own on a free port, PORT, its log
# LOG ($LOGS/NAME.log); fresh_1024 NAME: one of 2 workers and 1,024 descriptors.
fresh() {
	LOG=$LOGS/$1.log
	start_free "$LOG" "${@:2}"
}
fresh_1024() {
	PORT=$(free_port) LOG=$LOGS/$1.log
	(ulimit -n 1024 && exec "$MASTER" "$PORT" --workers 2 --gpu off) 2>"$LOG" &
	MASTER_PID=$!
	wait_listening "$PORT" "$MASTER_PID" "$LOG"
}

# flood: one peer holds more connections than the master has descriptors,
# each a search that never ends; another peer's requests are all answered
# right, p99 under 50 ms.
attack_flood() {
	local out p99 refused
	fresh_1024 flood
	"$CLIENT" keep 127.0.0.1 "$PORT" 1200 >"$LOGS/keep.out" &
	KEEP_PID=$!
	wait_until 100 0.1 grep -q '^keep: ' "$LOGS/keep.out"
	out=$("$CLIENT" steady 127.0.0.1 "$PORT" 3 --from 127.0.0.2 --every 50 --range 10000) ||
		fail "attack flood: another peer got wrong or no answers: $out"
	p99=$(sed -n 's/.* p99 \([0-9.]*\) ms.*/\1/p' <<<"$out")
	refused=$(grep -c "over its peer's connection cap" "$LOG")
	kill "$KEEP_PID"
	wait "$KEEP_PID" 2>/dev/null
	KEEP_PID=""
	[ -n "$p99" ] || fail "attack flood: no p99 in: $out"
	awk -v p="$p99" 'BEGIN { exit !(p < 50) }' ||
		fail "attack flood: another peer's p99 $p99 ms (at most 50)"
	[ "$refused" -gt 0 ] || fail "attack flood: the master logged no refusal"
	stop_master "$MASTER_PID" 10
	pass flood "1,200 connections held against 1,024 descriptors; another peer's p99 $p99 ms"
}

# keep_from ADDR N LOG: N searches of every value held from ADDR in the
# background (its pid in KEEPS), once sent.
keep_from() {
	"$CLIENT" keep "$([[ $1 == *:* ]] && echo ::1 || echo 127.0.0.1)" "$PORT" "$2" --from "$1" \
		--all 1 >"$3" &
	KEEPS+=($!)
	wait_until 100 0.1 grep -qs '^keep: ' "$3" || fail "attack host: the client from $1 did not send its searches"
}

# host: one host from three addresses (127.0.0.1, its IPv6 twin ::1,
# and 127.0.0.3) holds 300 searches of every 64-bit value from each, at
# ulimit -n 1024 (896 connections, 112 a peer); another client's
# requests are all answered, and none was refused for a full master.
attack_host() {
	local out full peer k
	fresh_1024 host
	KEEPS=()
	keep_from 127.0.0.1 300 "$LOGS/keep1.out"
	keep_from ::1 300 "$LOGS/keep6.out"
	keep_from 127.0.0.3 300 "$LOGS/keep3.out"
	out=$("$CLIENT" steady 127.0.0.1 "$PORT" 3 --from 127.0.0.2 --every 50 --range 10000)
	local rc=$?
	full=$(json_num "$(status_json "$PORT")" refused_full)
	peer=$(json_num "$(status_json "$PORT")" refused_peer_conns)
	for k in "${KEEPS[@]}"; do kill "$k"; wait "$k" 2>/dev/null; done
	stop_master "$MASTER_PID" 10
	[ $rc = 0 ] || fail "attack host: another client got wrong or no answers: $out"
	[ "$full" = 0 ] || fail "attack host: $full connections refused for a full master"
	[ "$peer" -ge $((900 - 224)) ] ||
		fail "attack host: $peer refused by peer (127.0.0.1 and ::1 not one, or the share too big)"
	out=$(sed -n 's/.*\(p99 [0-9.]* ms\).*/\1/p' <<<"$out")
	pass host "900 searches of everything from 127.0.0.1, ::1, 127.0.0.3: $peer refused by peer, none for a full master; another client's $out"
}

# wait: a search that cannot end (2^40 values, no answer) against
# --max-wait 1: the client's connection is closed unanswered (no false
# "not found") after a second, counted as expired.
attack_wait() {
	local t0 rc expired
	fresh wait --workers 1 --gpu off --max-wait 1
	t0=$EPOCHREALTIME
	"$BENCH" 127.0.0.1 "$PORT" --ask "$(digest_of 1)" 2 $((1 << 40)) --timeout 10 >/dev/null 2>&1
	rc=$?
	local took
	took=$(elapsed "$t0")
	expired=$(json_num "$(status_json "$PORT")" expired)
	stop_master "$MASTER_PID" 10
	[ $rc = 1 ] || fail "attack wait: --ask got a reply (exit $rc) for a search that cannot end"
	[ "$expired" = 1 ] || fail "attack wait: expired is '$expired', not 1"
	awk -v t="$took" 'BEGIN { exit !(t >= 0.9 && t < 5) }' ||
		fail "attack wait: the connection was closed after $took s, not about 1"
	pass wait "a search of 2^40 values closed unanswered after $took s, counted as expired"
}

# sigsys_seen LOG N: LOG says at least N workers died of SIGSYS.
sigsys_seen() { [ "$(grep -c 'killed by signal 31' "$1")" -ge "$2" ]; }

# escape: a worker tries to stop its master (kill(getppid(), SIGTERM)),
# then another to reopen the segment and truncate it (test hooks): its
# sandbox refuses both, the worker dies of SIGSYS and is replaced, the
# master serves on, its segment whole.
attack_escape() {
	local hook seg size x w
	REVHASH_TEST_HOOKS=1 fresh escape --workers 2 --gpu off
	seg=$(ls /dev/shm/revhash-"$PORT"-"$MASTER_PID"*)
	size=$(stat -c %s "$seg")
	local n=0
	for hook in signal-master truncate-segment; do
		n=$((n + 1))
		"$MASTER" --hook "$hook" "$PORT" || fail "attack escape: --hook $hook"
		w=$(workers_of "$MASTER_PID" | head -n 1)
		kill -KILL "$w"
		wait_until 100 0.05 sigsys_seen "$LOG" $n
	done
	wait_workers "$MASTER_PID" 2 5 || fail "attack escape: the workers were not replaced"
	x=$("$BENCH" 127.0.0.1 "$PORT" --ask "$(digest_of 4242)" 4000 5000 --timeout 10 2>/dev/null)
	local refused sigsys
	refused=$(grep -c 'refused by its sandbox' "$LOG")
	sigsys=$(grep -c 'killed by signal 31' "$LOG")
	alive "$MASTER_PID" || fail "attack escape: the master died: $(tail -n 3 "$LOG")"
	grep -q 'stopping' "$LOG" && fail "attack escape: the master began to stop (it got the SIGTERM)"
	stop_master "$MASTER_PID" 10
	[ "$x" = 4242 ] || fail "attack escape: the master answered '$x'"
	[ "$(stat -c %s "$seg" 2>/dev/null || echo "$size")" = "$size" ] ||
		fail "attack escape: the segment was truncated"
	[ "$refused" -ge 2 ] && [ "$sigsys" -ge 2 ] ||
		fail "attack escape: $refused refusals, $sigsys deaths by SIGSYS (not 2 each)"
	pass escape "kill(master) and a truncate of the segment refused (SIGSYS, replaced); the master answered"
}

# fifo: a FIFO named like a segment must not hang --status.
attack_fifo() {
	local port t0 took name
	port=$(free_port)
	name=/dev/shm/revhash-$port-1
	mkfifo "$name" || fail "attack fifo: mkfifo $name"
	t0=$EPOCHREALTIME
	timeout 10 "$MASTER" --status "$port" >/dev/null 2>&1
	took=$(elapsed "$t0")
	rm -f "$name"
	awk -v t="$took" 'BEGIN { exit !(t < 3) }' || fail "attack fifo: --status took $took s"
	pass fifo "--status returned at once"
}

# squat: another user takes the segment names of the next 300 pids; the
# master starts and serves.
attack_squat() {
	local port last i name log=$LOGS/squat.log x
	[ "$(id -u)" = 0 ] || { skip squat "needs root to make another user's files"; return; }
	id nobody >/dev/null 2>&1 || { skip squat "no user nobody"; return; }
	port=$(free_port)
	last=$(sysctl -n kernel.ns_last_pid)
	for i in $(seq 1 300); do
		name=/dev/shm/revhash-$port-$((last + i))
		install -o nobody -m 600 /dev/null "$name"
	done
	start_master "$port" "$log" --workers 1 --gpu off
	x=$("$BENCH" 127.0.0.1 "$port" --ask "$(digest_of 1234)" 1000 2000 2>/dev/null)
	rm -f /dev/shm/revhash-"$port"-*
	[ "$x" = 1234 ] || fail "attack squat: the master answered '$x'"
	stop_master "$MASTER_PID" 10
	pass squat "300 names taken; the master started and answered"
}

# check_case ATTACK CASE TEST: Check case CASE (every case: "") of the
# test binary TEST passed, and ran; its output into out.
check_case() {
	out=$(env ${2:+"CK_RUN_CASE=$2"} "$ROOT/$B/tests/$3" 2>&1) || fail "attack $1: $out"
	grep -q '100%: Checks: [1-9]' <<<"$out" || fail "attack $1: no check ran: $out"
}

# segment: random writes over the segment while the master serves, by
# its Check test (which knows the layout).
attack_segment() {
	check_case segment "worker writes" check_hostile
	pass segment "2,000 random writes while serving; every reply right"
}

# cut: the master's segment cut to one page, the exporter beside it:
# --status and a scrape answer or refuse, neither dies of SIGBUS; the
# master mends its segment, says so, answers right, --status reads it whole.
attack_cut() {
	local mport name mpid rc code x
	mport=$(free_port)
	fresh cut --workers 1 --gpu off
	name=$(cd /dev/shm && ls -d "revhash-$PORT-$MASTER_PID"* 2>/dev/null | head -n 1)
	[ -n "$name" ] || fail "attack cut: no segment of the master in /dev/shm"
	[ -x "$METRICS" ] && start_exporter "$PORT" "$mport" "$LOGS/cut-metrics.log" && mpid=$EXPORTER_PID
	truncate -s 4096 "/dev/shm/$name"
	timeout 10 "$MASTER" --status "$PORT" >/dev/null 2>&1
	rc=$?
	[ $rc -lt 124 ] || fail "attack cut: --status of the cut segment ended with $rc"
	if [ -n "${mpid:-}" ]; then
		code=$(curl -s -m 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$mport/metrics")
		alive "$mpid" || fail "attack cut: the exporter died (a scrape got '$code')"
	fi
	x=$(timeout 20 "$BENCH" 127.0.0.1 "$PORT" --ask "$(digest_of 4321)" 4000 5000 2>/dev/null)
	[ "$x" = 4321 ] || fail "attack cut: the master answered '$x'$(alive "$MASTER_PID" ||
		echo ", and is dead")"
	grep -q "cut short" "$LOG" || fail "attack cut: the master did not say its segment was cut"
	"$MASTER" --status "$PORT" >/dev/null 2>&1 || fail "attack cut: --status after the mend failed"
	[ -n "${mpid:-}" ] && kill "$mpid" 2>/dev/null && wait "$mpid" 2>/dev/null
	stop_master "$MASTER_PID" 10
	pass cut "segment cut to 4 KB: --status ended $rc, a scrape got ${code:-no exporter}, then the master answered and --status read it whole"
}

# lies: a worker's lies, by its Check case (wrong answers, a lock owner
# written over or not a worker, the cache all "used"): the master blames
# nobody, breaks or remakes the lock, and answers right.
attack_lies() {
	check_case lies "worker lies" check_hostile
	pass lies "a search $(grep -o 'answered after [0-9]* lies, [0-9]* ms' <<<"$out"); a lock \
held by none of ours made anew, $(sed -n 's/.*made_anew: \(answered in [0-9]* ms\).*/\1/p' <<<"$out"); \
500 requests over an all-used cache: $(sed -n 's/.* \([0-9]* ms of the master.s CPU\).*/\1/p' <<<"$out")"
}

# fields: each field of the segment written with the values that matter,
# each followed by a request answered right (check_fields).
attack_fields() {
	check_case fields "" check_fields
	pass fields "$(grep -o '[0-9]* writes, .*' <<<"$out")"
}

# cluster: stop, run without XDG_RUNTIME_DIR from an operator's folder
# that holds "victim", deletes nothing but its own: not the names beside
# its run dir that, split at their space, would name "victim" (an
# unquoted rm). The nodes' sockets are cluster-test.sh's.
attack_cluster() {
	local port here run rc=0
	command -v haproxy >/dev/null || { skip cluster "haproxy is not installed"; return; }
	port=$(free_port 1 2 100 201 202)
	here=$(mktemp -d)
	mkdir "$here/victim"
	run=$(env -u XDG_RUNTIME_DIR bash -c ". '$ROOT/scripts/lib.sh' && run_base")/revhash-cluster-$port
	mkdir -p "$run victim" "$run.logs victim"
	(cd "$here" && env -u XDG_RUNTIME_DIR "$ROOT/scripts/cluster/cluster.sh" start --nodes 2 \
		--port "$port" --workers 1 >"$LOGS/cluster.log" 2>&1) || rc=1
	(cd "$here" && env -u XDG_RUNTIME_DIR "$ROOT/scripts/cluster/cluster.sh" stop --port "$port" \
		>>"$LOGS/cluster.log" 2>&1)
	rm -rf "$run victim" "$run.logs victim" "$run.logs"
	# both removed, the folder left as it was: else stop deleted victim (or wrote there)
	rmdir "$here/victim" "$here" || fail "attack cluster: the operator's folder $here was changed"
	[ $rc = 0 ] || fail "attack cluster: the cluster did not start: $(tail -n 3 "$LOGS/cluster.log")"
	pass cluster "stop, run from a folder holding victim beside names that split into it, deleted none"
}

SET=ATTACKS
opts "--quick:SET=QUICK --rest" "$@"
RUN=${ARGS[*]:-${!SET}}
need_built client
for a in $RUN; do
	case " $ATTACKS " in *" $a "*) ;; *) fail "no attack $a (there are: $ATTACKS)" ;; esac
	"attack_$a"
done
say PASS
