/* seccomp_probe: can this system load a seccomp filter? Every worker
 * serves under one (worker/sandbox.c), and the master does not start
 * where none loads unless told --no-sandbox. A filter that allows every
 * call is made with libseccomp and loaded; prints what happened; exit 0
 * when it loaded, 1 when not.
 *
 * Every Linux kernel since 3.5 loads it. qemu-user (7.2, Debian 12) does
 * not: it refuses prctl(PR_SET_SECCOMP) and the seccomp system call, since
 * a filter of the guest's calls would be applied to the emulator's own.
 * scripts/cross-arm64.sh runs this under the emulator and, when it fails,
 * checks that the master refuses to start, then runs its masters with
 * --no-sandbox. */
#include <seccomp.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int rc = ctx ? seccomp_load(ctx) : -12;

	seccomp_release(ctx);
	if (rc == 0) {
		printf("a seccomp filter loads\n");
		return 0;
	}
	printf("no seccomp filter loads: seccomp_load: %s\n", strerror(-rc));
	return 1;
}
