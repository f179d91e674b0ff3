#!/usr/bin/env bash
# What cluster.sh trusts, tested (called by scripts/cluster-test.sh; runs
# alone too): the balancer counts an IPv6 /64 as one source and an IPv4
# address as one (its config passes `haproxy -c`; behind `unshare -n`,
# where addresses can be made, a second connection from the /64 of a
# held one is refused, one from another /64 or IPv4 address is not).
# Prints "SKIP: ..." for a part this machine cannot run (root for the
# namespace).
#   scripts/cluster-trust-test.sh
set -u
. "$(dirname "$0")/lib.sh"

# sources_check CFG PORT STATS_PORT (run inside `unshare -n`): the
# balancer of CFG (bound to [::]:PORT, one connection per source) with
# connections held from fd00:1::2, then fd00:1::3 (the same /64: refused),
# fd00:2::1, 127.0.0.2 and 127.0.0.3 (each a source of its own: let in).
sources_check() {
	local cfg=$1 port=$2 stats=$3 hap n=0 from to want dcon total
	{ ip link set lo up && ip addr add fd00:1::2/64 dev lo && ip addr add fd00:1::3/64 dev lo &&
		ip addr add fd00:2::1/64 dev lo; } || fail "could not make the test's addresses"
	haproxy -db -f "$cfg" >"$cfg.log" 2>&1 </dev/null &
	hap=$!
	for _ in $(seq 1 100); do frontend "$stats" >/dev/null && break; sleep 0.05; done
	for from in fd00:1::2/0 fd00:1::3/1 fd00:2::1/1 127.0.0.2/1 127.0.0.3/1; do
		want=${from#*/} from=${from%/*} n=$((n + 1))
		if [[ $from == *:* ]]; then to="[::1]"; else to=127.0.0.1; fi
		sleep 3 | curl -sg --max-time 4 --interface "$from" "telnet://$to:$port" >/dev/null 2>&1 &
		for _ in $(seq 1 100); do
			read -r dcon total < <(frontend "$stats")
			[ "$((dcon + total))" -ge $n ] && break
			sleep 0.03
		done
		[ "$dcon" = "$want" ] ||
			{ kill "$hap"; fail "from $from: $dcon connection(s) refused so far, not $want"; }
	done
	kill "$hap"
}

# frontend STATS_PORT: "REFUSED TAKEN", the connections the balancer's
# frontend refused by its rules and those it let in, from its statistics.
frontend() {
	curl -sf --max-time 2 "http://127.0.0.1:$1/stats;csv" | awk -F, '
		NR == 1 { sub(/^# /, ""); for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == "revhash" && $2 == "FRONTEND" { print $col["dcon"], $col["stot"]; ok = 1 }
		END { exit !ok }'
}

if [ "${1:-}" = --sources ]; then
	sources_check "$2" "$3" "$4"
	exit
fi

need_tool haproxy --cluster || { echo "SKIP: haproxy is missing"; exit 77; }
CLUSTER=$ROOT/scripts/cluster.sh
TMP=$(mktemp -d /tmp/revhash-trust.XXXXXX)
PORT=$(free_port 100)
trap 'rm -rf -- "$TMP"' EXIT

# 1. The balancer's sources: HAProxy takes the config; where a network
# namespace can be had, two sources of one /64 count as one and IPv4
# addresses apart; elsewhere the config says so.
"$CLUSTER" config --port "$PORT" --bind :: --per-source 1 >"$TMP/haproxy.cfg" ||
	fail "config failed"
haproxy -c -q -f "$TMP/haproxy.cfg" || fail "haproxy refuses the generated config"
if [ "$(id -u)" = 0 ] && unshare -n true 2>/dev/null; then
	unshare -n "$0" --sources "$TMP/haproxy.cfg" "$PORT" $((PORT + 100)) || exit 1
	say "one connection per source: fd00:1::3 refused beside fd00:1::2 (one /64);" \
		"fd00:2::1, 127.0.0.2 and 127.0.0.3 let in"
else
	say "SKIP: two sources of one /64 (needs root and unshare -n); the config is checked"
fi
grep -q 'track-sc0 src,ipmask(32,64)$' "$TMP/haproxy.cfg" ||
	fail "the stick table does not key sources by their /32 (IPv4) and /64 (IPv6)"

say "PASS"
