#!/bin/sh
# Install the system packages revhash needs, if any are missing (apt-get,
# through sudo when not root); nothing when all are there. Services the
# packages bring (haproxy, prometheus) are not started (a policy-rc.d of
# its own for the install), and no package is removed (--no-remove).
#   scripts/install-deps.sh     the build's and the scripts' (the list below)
#     --sanitize     also clang (make sanitize, make fuzz)
#     --plot         also gnuplot (the lab)
#     --cluster      also haproxy (scripts/cluster/cluster.sh)
#     --prometheus   also prometheus and promtool (scripts/metrics-test.sh)
#     --cross-arm64  also an aarch64 cross compiler, the arm64 libraries
#                    (multiarch: the architecture is added) and qemu-user
set -eu

missing="" foreign=""
need() { # need PACKAGE TEST...
	pkg=$1; shift
	"$@" >/dev/null 2>&1 || missing="$missing $pkg"
}

need build-essential sh -c 'command -v cc && command -v make'
need pkg-config command -v pkg-config
need libssl-dev sh -c 'pkg-config --exists libcrypto || test -f /usr/include/openssl/sha.h'
need check sh -c 'pkg-config --exists check || test -f /usr/include/check.h'
need procps command -v ps # scripts/chaos.sh finds workers with ps
need psmisc command -v prtstat # a process's CPU ticks (lib-bench.sh proc_ticks)
need iproute2 command -v ss # who listens where (lib.sh listening, pid_listens)
need curl command -v curl # the scripts' HTTP client (lib.sh http_get)
need jq command -v jq     # the scripts' JSON reader (lib.sh json_num)
need python3 command -v python3 # trip.sh's requests, lib.sh unix_ask
need gettext-base command -v envsubst # cluster.sh's configs, the lab's report
need libmicrohttpd-dev sh -c 'pkg-config --exists libmicrohttpd || test -f /usr/include/microhttpd.h'
need libseccomp-dev sh -c 'pkg-config --exists libseccomp || test -f /usr/include/seccomp.h'
for arg in "$@"; do
	case $arg in
	--sanitize) need clang command -v clang
		    # A file of our own to link into: a fixed name in /tmp could be
		    # another user's link.
		    need libclang-rt-dev sh -c 'f=$(mktemp) && echo "int main(void){return 0;}" |
			clang -fsanitize=address,undefined -x c - -o "$f"; r=$?; rm -f "$f"; exit $r' ;;
	--plot) need gnuplot-nox command -v gnuplot ;;
	--cluster) need haproxy command -v haproxy ;;
	--prometheus) need prometheus sh -c 'command -v prometheus && command -v promtool' ;;
	--cross-arm64)
		# On arm64 itself the packages above are the arm64 ones.
		[ "$(dpkg --print-architecture 2>/dev/null)" = arm64 ] && continue
		multi=/usr/lib/aarch64-linux-gnu
		need gcc-aarch64-linux-gnu command -v aarch64-linux-gnu-gcc
		need libc6-dev:arm64 test -f $multi/libc.so
		need libssl-dev:arm64 test -f $multi/pkgconfig/libcrypto.pc
		need check:arm64 test -f $multi/pkgconfig/check.pc
		need libmicrohttpd-dev:arm64 test -f $multi/pkgconfig/libmicrohttpd.pc
		need libseccomp-dev:arm64 test -f $multi/pkgconfig/libseccomp.pc
		need qemu-user command -v qemu-aarch64
		dpkg --print-foreign-architectures 2>/dev/null | grep -qx arm64 || foreign=arm64 ;;
	--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "install-deps.sh: unknown option $arg (--help)" >&2; exit 2 ;;
	esac
done

[ -z "$missing" ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
	echo "install-deps.sh: missing packages:$missing" >&2
	echo "install-deps.sh: no apt-get here; install them with your package manager" >&2
	exit 1
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
	command -v sudo >/dev/null 2>&1 || {
		echo "install-deps.sh: need root (or sudo) to install:$missing" >&2; exit 1; }
	sudo=sudo
fi
echo "install-deps.sh: installing$missing"
policy=/usr/sbin/policy-rc.d
held=""
if [ ! -e "$policy" ]; then
	# Exit 101: "action forbidden" to invoke-rc.d; removed again at the
	# exit or a signal, whatever happens.
	trap '$sudo rm -f "$policy"' EXIT
	for s in INT:130 TERM:143 HUP:129; do
		# shellcheck disable=SC2064 # the exit status now, the rest at the signal
		trap "\$sudo rm -f \"\$policy\"; trap - EXIT; exit ${s#*:}" "${s%:*}"
	done
	printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
	$sudo chmod 755 "$policy"
	held=1
fi
if [ -n "$foreign" ]; then
	echo "install-deps.sh: adding the $foreign architecture (dpkg --add-architecture)"
	$sudo dpkg --add-architecture "$foreign"
fi
$sudo apt-get update -qq
# shellcheck disable=SC2086
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends --no-remove \
	$missing >/dev/null
if [ -n "$held" ]; then
	$sudo rm -f "$policy"
	trap - EXIT INT TERM HUP
	echo "install-deps.sh: done; services of these packages were not started"
else
	echo "install-deps.sh: done (the host's own $policy decided about services)"
fi
