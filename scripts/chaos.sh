#!/usr/bin/env bash
# Crash injection under load (docs/testing.md): the master with test hooks
# under revhash-bench, while every 200-500 ms a worker is killed, stopped,
# made to die or stop inside the ring's lock, or the workers reloaded;
# hostile clients beside, and once a job-table flood of 4,200 searches.
# Passes only if every answer was right, the master lived, the worker
# count came back, and all it meant to inject was injected. The seed
# drives the workload and the schedule; a failure prints its replay.
# Where a dead holder's lock is not given back (REVHASH_NO_ROBUST_LOCKS,
# under an emulator), no blow lands inside the lock: the lock hooks are
# skipped, and a worker is hit only once REVHASH_STOP_UNLOCKED stopped it
# outside the lock, with SIGKILL (another signal would run its handler).
#   scripts/chaos.sh            short run (about half a minute)
#   scripts/chaos.sh --long     long run (about five minutes)
#   scripts/chaos.sh --requests N --delay-us D --difficulty K --workers W
#   scripts/chaos.sh --seed N   the schedule of an earlier run
#   scripts/chaos.sh --gpu SPEC the master's --gpu (default off: the CPU
#                               workers alone; auto on a GPU machine)
set -u
. "$(dirname "$0")/lib.sh"

REQUESTS="" DELAY_US="" DIFFICULTY=20000000 WORKERS=2 SEED=$RANDOM GPU=off LONG=0
opts "--long:LONG=1 --requests=REQUESTS --delay-us=DELAY_US --difficulty=DIFFICULTY \
--workers=WORKERS --seed=SEED --gpu=GPU" "$@"
[ $LONG = 1 ] && REQUESTS=${REQUESTS:-600} DELAY_US=${DELAY_US:-500000}
REQUESTS=${REQUESTS:-50} DELAY_US=${DELAY_US:-400000}
[[ $SEED =~ ^[0-9]+$ ]] || fail "--seed wants a number, not $SEED"
REPLAY="scripts/chaos.sh --requests $REQUESTS --delay-us $DELAY_US --difficulty $DIFFICULTY \
--workers $WORKERS --gpu $GPU --seed $SEED"
need_built

TMP=$(mktemp -d /tmp/revhash-chaos.XXXXXX)
PORT=$(free_port)
CFG=$TMP/master.conf
LOG=$TMP/master.log
echo "workers = $WORKERS" >"$CFG"
kills=0 lockkills=0 stops=0 lockstops=0 reloads=0 hostile=0 missed=0
HELPERS=() KILLED=()

cleanup() {
	local rc=$?
	for p in "${HELPERS[@]}"; do kill "$p" 2>/dev/null; done
	[ -n "${MASTER_PID:-}" ] && kill -KILL "$MASTER_PID" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$TMP"
	[ "$rc" -eq 0 ] || say "replay: $REPLAY" >&2
}
trap cleanup EXIT

say "port $PORT, $WORKERS workers, $REQUESTS requests of $DIFFICULTY every $DELAY_US us, seed $SEED"
# From here on every draw comes from the seed; free_port's came before,
# as how many it takes depends on which ports are free.
RANDOM=$SEED
# Garbage requests are searches in flight: do not wait 30 s at the stop.
# Every client here is 127.0.0.1, the job-table flood's 4,200 searches
# too: its share is lifted (the caps have tests of their own).
REVHASH_TEST_HOOKS=1 start_master "$PORT" "$LOG" --config "$CFG" --idle-timeout 5 \
	--stop-timeout 2 --gpu "$GPU" --peer-conns 8192 --peer-searches 8192
# The workers: the CPU ones the config asks for, and a GPU worker for each
# device the master found.
GPUS=$(json_num "$(status_json "$PORT")" gpus)
ALL=$((WORKERS + ${GPUS:-0}))
wait_workers "$MASTER_PID" "$ALL" 10 || fail "workers did not start"

"$BENCH" 127.0.0.1 "$PORT" "$SEED" "$REQUESTS" 0 "$DIFFICULTY" 20 "$DELAY_US" 1.5 \
	--no-calibrate --json="$TMP/bench.json" >"$TMP/bench.out" 2>&1 &
BENCH_PID=$!

# Hostile clients for the whole run (curl's telnet:// sends its input as
# it comes; bash's /dev/tcp holds many sockets in one process).
idle_clients() { # hold N connections open for S seconds, a connect that hangs too
	# shellcheck disable=SC2016 # the inner shell expands them
	exec timeout "$2" bash -c 'for ((i = 0; i < $1; i++)); do exec {fd}<>"/dev/tcp/127.0.0.1/$2"; done
		sleep infinity' _ "$1" "$PORT" 2>/dev/null
}
slow_sender() { # one byte a second until dropped
	for _ in $(seq 1 60); do printf x; sleep 1; done 2>/dev/null |
		curl -s -m 61 "telnet://127.0.0.1:$PORT" >/dev/null
}
garbage_sender() { # random bytes (49 or fewer, as sent), then close
	head -c $((RANDOM % 60)) /dev/urandom | curl -s -m 1 "telnet://127.0.0.1:$PORT" >/dev/null
}
idle_clients 300 20 & HELPERS+=($!)
# The flood needs a descriptor per held search, on both sides.
FLOOD=4200
if [ "$(ulimit -Hn)" != unlimited ] && [ "$(ulimit -Hn)" -lt $((FLOOD + 1000)) ]; then
	echo "SKIP: chaos.sh: job-table flood: descriptor limit $(ulimit -Hn), it needs $((FLOOD + 1000))"
	FLOOD=0
fi
if [ "$FLOOD" -gt 0 ]; then
	(sleep 3; "$BENCH" 127.0.0.1 "$PORT" --concurrency 2 --duration 4 --hold "$FLOOD" \
		--json="$TMP/flood.json" >"$TMP/flood.out" 2>&1; echo "rc $?" >>"$TMP/flood.out") & FLOOD_PID=$!
fi
for _ in 1 2 3 4 5; do slow_sender & HELPERS+=($!); done

# pick_victim: a worker a signal reaches at once (neither stopped nor
# dead, not yet reaped), drawn with $RANDOM, into $victim, waiting up to
# 3 s for one; a tick that finds none counts against the run.
some_live() {
	mapfile -t live < <(ps -o pid=,stat= --ppid "$MASTER_PID" | awk '$2 !~ /^[TtZX]/ { print $1 }')
	[ ${#live[@]} -gt 0 ]
}
pick_victim() {
	local live
	wait_until 60 0.05 some_live && { victim=${live[RANDOM % ${#live[@]}]}; return 0; }
	missed=$((missed + 1))
	say "no worker to hit for 3 s"
	return 1
}

signals=(KILL SEGV ABRT)
UNLOCKED=""
if [ -n "${REVHASH_NO_ROBUST_LOCKS:-}" ]; then
	UNLOCKED=${REVHASH_STOP_UNLOCKED:?REVHASH_NO_ROBUST_LOCKS needs REVHASH_STOP_UNLOCKED}
	signals=(KILL)
	echo "SKIP: chaos.sh: deaths and stops inside the lock, SIGSEGV and SIGABRT: $REVHASH_NO_ROBUST_LOCKS"
fi
# hit SIGNAL: send it to $victim, which a SIGSTOP leaves stopped; where no
# blow may land in the lock, only once stop_unlocked stopped it outside.
hit() {
	if [ -n "$UNLOCKED" ]; then
		"$UNLOCKED" "$PORT" "$victim" >/dev/null 2>&1 || return 1
		[ "$1" = STOP ] && return 0
	fi
	kill -"$1" "$victim" 2>/dev/null
}
while kill -0 "$BENCH_PID" 2>/dev/null; do
	sleep "0.$((200 + RANDOM % 300))"
	kill -0 "$MASTER_PID" 2>/dev/null || fail "master died"
	case $((RANDOM % 12)) in
	0) # a worker dies holding the ring's lock
		[ -z "$UNLOCKED" ] && "$MASTER" --hook die-in-lock "$PORT" &&
			lockkills=$((lockkills + 1)) ;;
	1) # a worker stops holding the ring's lock (the watchdog kills it)
		[ -z "$UNLOCKED" ] && "$MASTER" --hook stop-in-lock "$PORT" &&
			lockstops=$((lockstops + 1)) ;;
	2) # a worker stops (a debugger, a frozen cgroup), then maybe resumes
		pause="0.$((RANDOM % 10))"
		if pick_victim && hit STOP; then
			stops=$((stops + 1))
			(sleep "$pause"; kill -CONT "$victim" 2>/dev/null) &
		fi ;;
	3) # reload between 1 and 4 workers
		echo "workers = $((1 + RANDOM % 4))" >"$CFG"
		kill -HUP "$MASTER_PID" && reloads=$((reloads + 1)) ;;
	4) for _ in 1 2 3 4 5; do garbage_sender & done
	   hostile=$((hostile + 5)) ;;
	*) sig=${signals[RANDOM % ${#signals[@]}]}
	   if pick_victim && hit "$sig"; then
		kills=$((kills + 1))
		KILLED+=("$victim")
	   fi ;;
	esac
done
wait "$BENCH_PID"
bench_rc=$?
if [ "$FLOOD" -gt 0 ]; then
	wait "$FLOOD_PID"
	grep -q '^rc 0$' "$TMP/flood.out" || { cat "$TMP/flood.out"; fail "requests under the job-table flood went wrong"; }
	flooded=$(json_num "$(<"$TMP/flood.json")" requests)
fi

# Every lock hook armed must fire: small requests make the workers take
# the lock until none is left, 20 s at most (a respawn backs off).
hooks_armed() { json_num "$(status_json "$PORT")" hooks_armed; }
since=$SECONDS
while armed=$(hooks_armed) && [ "${armed:-0}" -gt 0 ] && [ $((SECONDS - since)) -lt 20 ]; do
	"$BENCH" 127.0.0.1 "$PORT" --concurrency 2 --duration 1 --difficulty 100000 \
		>/dev/null 2>&1 || sleep 1
done

# Back to the configured size.
echo "workers = $WORKERS" >"$CFG"
kill -HUP "$MASTER_PID"
reloads=$((reloads + 1))
wait_workers "$MASTER_PID" "$ALL" 15 || fail "worker count did not return to $ALL"
kill -0 "$MASTER_PID" 2>/dev/null || fail "master died"
status=$("$MASTER" --status "$PORT")

results=$(jq -c '{reliability_pct, score}' "$TMP/bench.json")
for p in "${HELPERS[@]}"; do kill "$p" 2>/dev/null; done
t0=$EPOCHREALTIME
stop_master "$MASTER_PID" 15
say "graceful stop took $(elapsed "$t0") s"
MASTER_PID=""
deaths=$(grep -c 'killed by signal' "$LOG")
# Each worker it killed died of a signal, or had retired (a reload) before.
undead=0
for p in "${KILLED[@]}"; do
	grep -qE "\(pid $p\) (killed by signal|retired)" "$LOG" || undead=$((undead + 1))
done

stalled=$(grep -c 'made no progress' "$LOG")
say "summary: kills $kills (+$lockkills inside the lock), stops $stops" \
	"(+$lockstops inside the lock, $stalled workers killed as stalled), worker deaths seen $deaths" \
	"($undead killed that did not die), ticks without a victim $missed, hooks never fired ${armed:-?}," \
	"reloads $reloads, hostile clients $((hostile + 305)), job-table flood $FLOOD" \
	"(${flooded:-0} requests answered under it), requests $REQUESTS"
say "bench: $results"
echo "$status" | sed -n '/^requests/,$p'
[ "$bench_rc" -eq 0 ] || { tail -n 30 "$LOG" >&2; fail "bench reported wrong or missing answers"; }
jq -e '.reliability_pct == 100' "$TMP/bench.json" >/dev/null || fail "reliability below 100%"
[ "$undead" -eq 0 ] || fail "$undead of the $kills workers it killed did not die of a signal"
[ "$missed" -eq 0 ] || fail "$missed ticks found no worker to kill or stop"
[ "${armed:-}" = 0 ] || fail "lock hooks armed and never fired: ${armed:-unknown (no status)}"
say "PASS"
