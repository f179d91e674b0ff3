#!/usr/bin/env bash
# The readers lib.sh and lib-bench.sh give the other scripts, on JSON made
# to trip them, and opts, http_get, pid_listens and run_base
# (docs/testing.md); and install-deps.sh stopped by a signal leaves no
# policy-rc.d (root only).
#   scripts/lib-selftest.sh
set -u
. "$(dirname "$0")/lib-bench.sh"
command -v jq >/dev/null && command -v curl >/dev/null ||
	fail "jq or curl is missing (scripts/install-deps.sh)"

# expect WHAT GOT WANT: GOT is WANT, or fail saying WHAT.
expect() { [ "$2" = "$3" ] || fail "$1: '$2', not '$3'"; }

# One line, as the master prints it: the workers after the master's own.
json='{"pid":100,"hashes":7,"rate":5,"busy_rate":1234.567,"kernel":"shani",'
json+='"workers":[{"slot":0,"pid":201,"hashes":90,"rate":80},{"slot":1,"pid":202,"hashes":91,"rate":81}],'
json+='"stages_us":{"timed":3,"reply":6.4,"notify":5,"hash":4,"wake":3,"dispatch":2,"read":1.5},'
json+='"requests":8,"wakeups":12}'
# KEY=WANT: the master's own, busy_rate a real, kernel a word, jobs missing.
for kv in pid=100 hashes=7 rate=5 busy_rate=1234 kernel= jobs=; do
	expect "json_num ${kv%=*}" "$(json_num "$json" "${kv%=*}")" "${kv#*=}"
done
expect "no JSON" "$(json_num "" pid)" ""
expect "not JSON" "$(json_num 'pid: 3' pid)" ""
expect "stage_line" "$(stage_line "$json")" 2/2/3/4/5/6
expect "stage_line, no JSON" "$(stage_line "")" ""
expect "wakeups_line" "$(wakeups_line "$json")" 1.50
expect "wakeups_line, no requests" "$(wakeups_line '{"wakeups":3}')" -
expect latency_line "$(latency_line <(echo '{"latency_ms":{"p50":0.5,"max":2}}'))" "p50 0.5 ms, max 2 ms"
latency_line <(echo '{"latency_ms":null}') && fail "latency_line took no latencies"
# opts, over getopt(1): both forms of a value, a switch, a prefix, what
# follows -- kept whole; an unknown option or a stray argument fails.
(
	A="" B="" SW=0
	opts "--alpha=A --beta=B --switch:SW=1 --rest" --alpha 1 --beta=two --sw x -- --gpu off
	expect "opts --alpha 1" "$A" 1
	expect "opts --beta=two" "$B" two
	expect "opts, a switch by its prefix" "$SW" 1
	expect "opts, the rest" "${ARGS[*]}" "x --gpu off"
) || exit 1
( opts "--alpha=A" --gamma 1 ) 2>/dev/null && fail "opts took an unknown option"
( opts "--alpha=A" stray ) 2>/dev/null && fail "opts took a stray argument without --rest"
( opts "--alpha=A" --alpha ) 2>/dev/null && fail "opts took an option without its value"
# --help: the script's head comment, from its second line up to its code.
expect "opts --help" "$( (opts "--alpha=A" --help) | sed -n '1p;$p')" \
	"$(printf '%s\n' "The readers lib.sh and lib-bench.sh give the other scripts, on JSON made" \
		"  scripts/lib-selftest.sh")"
# A script that reads its arguments by place answers --help the same,
# before it reads them; cross-arm64.sh would otherwise install and build.
expect "exp-run.sh --help" "$("$ROOT/scripts/lab/exp-run.sh" --help | head -n 1)" \
	"One replay run of the lab: a master with MASTER_ARGS, the public"
timeout 10 "$ROOT/scripts/cross-arm64.sh" --help >/dev/null || fail "cross-arm64.sh --help did not just print its help"
port=$(free_port)
http_get 127.0.0.1 "$port" / >/dev/null 2>&1 && fail "http_get answered from a port nobody listens on"
# pid_listens reads no process name: a listener named to pass for the
# pid of another (ss -p would print x",pid=N,) does not make N listen.
(
	sleep 30 &
	decoy=$!
	python3 -c 'import socket, sys, time
open("/proc/self/comm", "w").write(sys.argv[2])
s = socket.socket()
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen()
time.sleep(30)' "$port" "x\",pid=$decoy," &
	named=$!
	trap 'kill "$decoy" "$named"' EXIT
	wait_alive "$named" 250 pid_listens "$named" "$port" || fail "pid_listens: the listener not seen"
	pid_listens "$decoy" "$port" && fail "pid_listens took a listener's name for pid $decoy"
	exit 0
) || exit 1
# deps_interrupted: install-deps.sh, with jq looked for on a PATH that
# lacks it and an apt-get that waits, is sent TERM once its policy-rc.d
# is there; it must be gone after. Said SKIP where it cannot run.
deps_interrupted() {
	local bin t rc=0
	if [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null; then
		echo "SKIP: lib-selftest.sh: install-deps.sh interrupted: needs root and unshare -m"
		return 0
	fi
	bin=$(mktemp -d)
	for t in sh bash cc make pkg-config ps curl python3 id tee chmod rm sleep cat; do
		ln -s "$(command -v "$t")" "$bin/$t" 2>/dev/null
	done
	rm -f "$bin/apt-get"
	printf '#!/bin/sh\nexec sleep 1\n' >"$bin/apt-get" && chmod 755 "$bin/apt-get"
	# shellcheck disable=SC2016 # the inner shell expands them
	unshare -m bash -c 'mount -t tmpfs none /usr/sbin || exit 3
		PATH=$1 "$2" >/dev/null 2>&1 &
		pid=$!
		for _ in $(seq 1 100); do [ -e /usr/sbin/policy-rc.d ] && break; sleep 0.05; done
		[ -e /usr/sbin/policy-rc.d ] || exit 4
		kill -TERM "$pid"; wait "$pid"
		[ ! -e /usr/sbin/policy-rc.d ] || exit 5' _ "$bin" "$ROOT/scripts/install-deps.sh" || rc=$?
	rm -rf "$bin"
	[ $rc = 0 ] || fail "install-deps.sh interrupted: $([ $rc = 5 ] && echo "its policy-rc.d was left behind" || echo "the test could not run it (rc $rc)")"
}
deps_interrupted
# run_base takes a folder of this user's own of mode 0700, and no other:
# not 0755, not 0701, not a link to a good one.
(
	d=$(mktemp -d)
	trap 'rm -rf "$d"' EXIT
	mkdir -m 700 "$d/ok" && ln -s ok "$d/link" && mkdir -m 755 "$d/open" && mkdir -m 701 "$d/x"
	expect "run_base of a 0700 folder" "$(XDG_RUNTIME_DIR=$d/ok run_base)" "$d/ok"
	for bad in open x link; do
		( XDG_RUNTIME_DIR=$d/$bad run_base ) >/dev/null 2>&1 && fail "run_base took $bad"
	done
	exit 0
) || exit 1
say "PASS"
