#!/usr/bin/env bash
# The hash rate of a master with WORKERS workers (split, so that one request
# gets them all), in hashes per second, as revhash-bench calibrates it: the
# fastest of three timings of a request that must hash its whole range.
# Takes a few seconds. The lab measures this once per worker count and
# hands it to each run (--rate), rather than calibrating every run.
#   scripts/lab/exp-rate.sh WORKERS
set -u
. "$(dirname "$0")/../lib.sh"

[ $# -eq 1 ] || fail "usage: exp-rate.sh WORKERS"
need_built
tmp=$(mktemp -d /tmp/revhash-rate.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
port=$(free_port)
start_master "$port" "$tmp/log" --quiet --workers "$1"
# One tiny request: the run is the calibration.
"$BENCH" 127.0.0.1 "$port" 1 1 0 1000 0 0 0 --quiet --json >"$tmp/out" 2>"$tmp/err"
rc=$?
stop_master "$MASTER_PID" 30
[ $rc -eq 0 ] || { cat "$tmp/out" "$tmp/err" >&2; fail "calibration with $1 workers failed"; }
jq -r '.rate_mhs // empty | . * 1e6 | round' "$tmp/out"
