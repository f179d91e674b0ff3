#!/bin/sh
# What each search kernel's block loop runs per value, counted from its
# machine code: for a CPU the lab cannot run on (arm64 under an emulator,
# whose timings mean nothing), what the kernels cost side by side.
#
#   scripts/lab/kernel-insns.sh [--objdump CMD] KERNEL.o...
#   (CMD: the target's objdump, e.g. aarch64-linux-gnu-objdump; `make
#   kernel-insns` passes the kernels of the build)
#
# The block loop is range_search's smallest backward-branch loop that
# holds half the function or more; its instructions (those of the
# object's functions it calls too), divided by the lanes of the struct
# kernel (the unsigned after its name), are per value; beside them the SHA
# instructions and the loads and stores. Static counts, not a profile:
# the loop runs straight through but for a candidate (one in 2^32).
set -eu
OBJDUMP=objdump
if [ "${1:-}" = --objdump ]; then
	OBJDUMP=$2
	shift 2
fi
[ $# -gt 0 ] || { echo "usage: kernel-insns.sh [--objdump CMD] KERNEL.o..." >&2; exit 2; }

# hex(s): the number the hex digits s write (mawk has no strtonum).
HEX='function hex(s,   v, i) {
	v = 0
	for (i = 1; i <= length(s); i++)
		v = 16 * v + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v
}'

printf '%-10s %5s %10s %10s %10s %10s\n' kernel lanes loop/block per-value sha/value mem/value
for obj in "$@"; do
	# The struct kernel: its symbol's section and offset, then the 4
	# bytes 8 past it (little-endian: arm64 and x86 alike), by the
	# objcopy beside CMD.
	sym=$("$OBJDUMP" -t "$obj" | awk '$NF ~ /^kernel_/ && $(NF - 2) ~ /data/ {
		print $(NF - 2), $1, substr($NF, 8); exit }')
	[ -n "$sym" ] || { echo "kernel-insns.sh: no struct kernel in $obj" >&2; exit 1; }
	section=${sym%% *}
	name=${sym##* }
	offset=${sym#* }
	offset=${offset%% *}
	lanes=$("${OBJDUMP%objdump}objcopy" --dump-section "$section=/dev/stdout" "$obj" /dev/null |
		od -An -tu4 -j $((0x$offset + 8)) -N 4 | tr -d ' ')
	case $lanes in
	[1-9] | [12][0-9] | 3[0-2]) ;;
	*) echo "kernel-insns.sh: $obj: lanes $lanes read from its struct kernel" >&2; exit 1 ;;
	esac
	"$OBJDUMP" -d --no-show-raw-insn "$obj" | awk -v name="$name" -v lanes="$lanes" "$HEX"'
		/^[0-9a-f]+ <.*>:$/ { fn = substr($2, 2, length($2) - 3); next }
		!/^ *[0-9a-f]+:\t/ { next }
		{
			split($0, f, "\t")
			sub(/^ +/, "", f[1])
			split(f[2], w, " ")
			size[fn]++
			shas[fn] += (w[1] ~ /^sha/)
			mems[fn] += (w[1] ~ /^(ld|st)/ || f[2] f[3] ~ /\(/)
		}
		fn != "range_search" { next }
		{
			n++; addr[n] = hex(substr(f[1], 1, length(f[1]) - 1))
			op[n] = w[1]; args[n] = f[2] f[3]
			# A call of a function of this object (a part the compiler
			# kept out of line): its instructions count where it is called.
			if (op[n] ~ /^(bl|call)/ && match(args[n], /<[a-z_0-9]+>$/))
				callee[n] = substr(args[n], RSTART + 1, RLENGTH - 2)
			# A branch back within the function: a loop from its target.
			else if (match(args[n], /[0-9a-f]+ <range_search\+0x/)) {
				to = substr(args[n], RSTART, RLENGTH)
				to = hex(substr(to, 1, index(to, " ") - 1))
				if (to < addr[n]) { loops++; from[loops] = to; upto[loops] = addr[n] }
			}
		}
		END {
			best = 0
			for (l = 1; l <= loops; l++) {
				span = upto[l] - from[l]
				if (span * 2 >= addr[n] - addr[1] && (!best || span < bestspan)) {
					best = l; bestspan = span
				}
			}
			if (!best) { printf "%-10s no block loop found\n", name; exit 1 }
			for (i = 1; i <= n; i++) {
				if (addr[i] < from[best] || addr[i] > upto[best])
					continue
				total++
				if (op[i] ~ /^sha/) sha++
				if (op[i] ~ /^(ld|st)/ || args[i] ~ /\(/) mem++
				if (i in callee) {
					total += size[callee[i]]
					sha += shas[callee[i]]
					mem += mems[callee[i]]
				}
			}
			printf "%-10s %5d %10d %10.1f %10.1f %10.1f\n", name, lanes, total,
				total / lanes, sha / lanes, mem / lanes
		}'
done
