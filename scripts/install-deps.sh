#!/bin/sh
# Install the system packages revhash needs, if any are missing (Debian and
# Ubuntu: apt-get, through sudo when not root). Says what it does; does
# nothing when everything is already there. Packages that bring a system
# service (haproxy, prometheus) are installed with service starts held
# back (a policy-rc.d of its own for the install, where the host has
# none), so that nothing starts that the user did not ask for.
#   scripts/install-deps.sh            compiler, make, pkg-config, OpenSSL, Check, ps,
#                                      libmicrohttpd (the metrics exporter), libseccomp
#                                      (the workers' sandbox), curl, jq, python3 and envsubst
#                                      (the scripts)
#   scripts/install-deps.sh --sanitize  also clang (make sanitize, make fuzz)
#   scripts/install-deps.sh --plot      also gnuplot (scripts/lab/plot.sh)
#   scripts/install-deps.sh --cluster   also haproxy (scripts/cluster/cluster.sh)
#   scripts/install-deps.sh --prometheus  also prometheus and promtool
#                                      (scripts/metrics-test.sh)
#   scripts/install-deps.sh --cross-arm64  also an aarch64 cross compiler,
#                                      the arm64 libraries (Debian
#                                      multiarch: the arm64 architecture is
#                                      added) and qemu-user
#                                      (scripts/cross-arm64.sh)
# It never removes a package: where an install would, it stops and says so
# (apt-get --no-remove), and the host's own packages stay as they were.
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
need iproute2 command -v ss # who listens where (lib.sh listening, pid_listens)
need curl command -v curl # the scripts' HTTP client (lib.sh http_get)
need jq command -v jq     # the scripts' JSON reader (lib.sh json_num)
need python3 command -v python3 # chaos.sh's idle clients, trip.sh's requests
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
	*) echo "install-deps.sh: unknown option $arg" >&2; exit 2 ;;
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
	# Exit 101: "action forbidden", which invoke-rc.d and
	# deb-systemd-invoke honour; removed again whatever happens: at the
	# exit, and at a signal (which ends the script after the removal:
	# the EXIT trap then has nothing left to do).
	trap '$sudo rm -f "$policy"' EXIT
	trap '$sudo rm -f "$policy"; trap - EXIT; exit 130' INT
	trap '$sudo rm -f "$policy"; trap - EXIT; exit 143' TERM
	trap '$sudo rm -f "$policy"; trap - EXIT; exit 129' HUP
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
