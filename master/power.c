/* PM QoS (see power.h): writing a latency of 0 to /dev/cpu_dma_latency
 * keeps the CPUs in their shallowest idle state until the file is closed. */
#include "master/power.h"
#include "master/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

int power_low_latency(void)
{
	int32_t zero = 0;
	int fd = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC), err;

	if (fd >= 0 && write(fd, &zero, sizeof zero) == (ssize_t)sizeof zero) {
		log_info("low latency: CPUs held out of deep idle while serving");
		return fd;
	}
	err = errno;
	if (fd >= 0)
		close(fd);
	log_warn("--low-latency: /dev/cpu_dma_latency: %s; CPUs may idle deeply",
		 strerror(err));
	return -err;
}
