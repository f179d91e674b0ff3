#!/usr/bin/env bash
# The readers lib.sh and lib-bench.sh give the other scripts, on JSON made
# to trip them (in under a second, no server): json_num reads the top
# level only, so a master's pid, hashes or rate is its own and never the
# one of a worker listed after it (a greedy sed returned the last "pid" in
# the text); a real number reads as its whole part; a word, a missing key
# or no JSON at all read as nothing; stage_line and wakeups_line read
# their figures whatever the order of the keys; http_get fails at once
# where nothing listens; opts parses through getopt(1).
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
expect "pid" "$(json_num "$json" pid)" 100
expect "hashes" "$(json_num "$json" hashes)" 7
expect "rate" "$(json_num "$json" rate)" 5
expect "busy_rate (a real)" "$(busy_rate "$json")" 1234
expect "a word" "$(json_num "$json" kernel)" ""
expect "a missing key" "$(json_num "$json" jobs)" ""
expect "no JSON" "$(json_num "" pid)" ""
expect "not JSON" "$(json_num 'pid: 3' pid)" ""
expect "stage_line" "$(stage_line "$json")" 2/2/3/4/5/6
expect "stage_line, no JSON" "$(stage_line "")" ""
expect "wakeups_line" "$(wakeups_line "$json")" 1.50
expect "wakeups_line, no requests" "$(wakeups_line '{"wakeups":3}')" -
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
port=$(free_port)
http_get 127.0.0.1 "$port" / >/dev/null 2>&1 && fail "http_get answered from a port nobody listens on"
say "PASS"
