#!/usr/bin/env bash
# A request's trip through the master's source files: a traced master
# (build/trip, -finstrument-functions) takes one request down each branch
# of jobs_dispatch (empty range, new job, attached, cache hit), and for
# each prints the files its call path passes, its stops (runs of calls in
# one file) and returns (stops in a file it had left), then their sum.
#   scripts/trip.sh
set -u
. "$(dirname "$0")/lib.sh"

OUT=$ROOT/build/trip
TRACED=$OUT/master/master
make -s -C "$ROOT" B=build/trip BIN=build/trip NVCC= TRACE_OBJS=bench/trip_trace.o \
	EXTRA_CFLAGS="-finstrument-functions -finstrument-functions-exclude-file-list=.h" \
	build/trip/master/master >/dev/null || fail "building the traced master"
command -v addr2line >/dev/null || fail "addr2line (binutils) is needed"
command -v python3 >/dev/null || fail "python3 is needed to send the requests"
rm -f "$OUT/trip.log"
REVHASH_TRIP=$OUT/trip.log MASTER=$TRACED start_free "$OUT/master.log" \
	--workers 1 --gpu off --no-pin
python3 - "$PORT" <<'PY' || fail "sending the requests"
import hashlib, socket, struct, sys, time
port = int(sys.argv[1])
def req(x, lo, hi):
    d = hashlib.sha256(struct.pack('<Q', x)).digest()
    c = socket.create_connection(('127.0.0.1', port))
    c.sendall(d + struct.pack('>QQB', lo, hi, 1))
    return c
def answer(c):
    c.settimeout(10)
    r = c.recv(8)
    c.close()
    return r
assert answer(req(1, 10, 5)) == bytes(8)
assert struct.unpack('>Q', answer(req(12345, 0, 100000)))[0] == 12345
far = (1 << 40, (1 << 40) + (1 << 36))
a = req(7, *far); time.sleep(0.2)
b = req(7, *far); time.sleep(0.2)
for c in (a, b):  # a reset: the clients are gone, the search is cancelled
    c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack('ii', 1, 0))
    c.close()
time.sleep(0.2)
assert struct.unpack('>Q', answer(req(12345, 0, 100000)))[0] == 12345
PY
stop_master "$MASTER_PID" 10
names=("empty range" "new job" "-" "attached" "cache hit") # "-": a second new job
awk -v bin="$TRACED" -v root="$ROOT/" -v names="$(IFS=,; echo "${names[*]}")" '
function file_of(a,   cmd, line) {
	if (!(a in where)) {
		cmd = "addr2line -e " bin " 0x" a
		cmd | getline line
		close(cmd)
		sub(/:[0-9?]+.*$/, "", line)
		sub(root, "", line)
		where[a] = line
	}
	return where[a]
}
# A call is followed once per call site: the calls a function makes to
# one callee again (in a loop, over the slots) add nothing to the path.
function enter(a) {
	if (skip) { skip++; return }
	if ((id[sp] SUBSEP a) in called) { skip = 1; return }
	called[id[sp], a] = 1
	fn[++sp] = a
	id[sp] = ++calls
	visit(file_of(a))
}
function leave() {
	if (skip) { skip--; return }
	sp--
	if (sp > 0)
		visit(file_of(fn[sp]))
}
# Two counts: every file, and those of the master (master/): there a call
# into a lower layer (shm/, lib/, proto/) is a leaf, not a stop.
function visit(f) {
	count(f, 1)
	if (f ~ /^master\//)
		count(f, 2)
}
function count(f, k) {
	if (f == last[k])
		return
	stops[k]++
	if ((k, f) in seen)
		returns[k]++
	seen[k, f] = 1
	path[k] = path[k] (path[k] == "" ? "" : " > ") f
	last[k] = f
}
BEGIN { split(names, label, ","); trip = 1; sp = 0; skip = 0 }
$1 == ">" { enter($2); next }
$1 == "<" { leave(); next }
$1 == "end" && label[trip] == "-" {
	trip++
	delete stops; delete returns; delete path; delete last; delete seen; delete called
	next
}
$1 == "end" {
	printf "%s\n  master/ : stops %2d, returns %2d: %s\n", label[trip], stops[2],
	       returns[2], path[2]
	printf "  all     : stops %2d, returns %2d: %s\n", stops[1], returns[1], path[1]
	total[1] += returns[1]; total[2] += returns[2]; trip++
	delete stops; delete returns; delete path; delete last; delete seen; delete called
	next
}
END {
	printf "returns to a file already left, the four branches: %d in master/, %d in all files\n",
	       total[2], total[1]
}
' "$OUT/trip.log"
