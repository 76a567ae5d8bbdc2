// SPDX-License-Identifier: GPL-2.0
/*
 * peers-read NAME PATH COUNT: what one look at a statistics file costs, in
 * a make bench-peers VM (scripts/bench-peers.sh builds it static, for the
 * busybox initramfs).  One untimed look, which sizes the file, then COUNT
 * timed ones, each an open, reads to the end and a close, as cat(1) does
 * it: a 128 KiB buffer, coreutils cat's.  Under QEMU's -icount shift=0 a
 * nanosecond of CLOCK_MONOTONIC is one guest instruction, so the figure is
 * instructions per look: the system calls, the kernel's formatting of the
 * file and, for cmstat's stats file, the snapshot its open takes, with
 * every vCPU's instructions counted together.
 *
 * Prints, in cmstat_bench's form, "sample peers NAME VCPUS N" and
 * "info peers_NAME_bytes|lines N"; on failure, "error ..." and exit 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BUF_SIZE	(128 * 1024)

static char buf[BUF_SIZE];

/* One look at @path.  Return: bytes read, or -1 with errno set. */
static long look(const char *path, long *lines)
{
	long total = 0;
	ssize_t n, i;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		total += n;
		/* Only in the untimed look: the timed ones read, no more. */
		for (i = 0; lines && i < n; i++)
			*lines += buf[i] == '\n';
	}
	close(fd);
	return n < 0 ? -1 : total;
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	unsigned long long start, ns;
	long bytes, lines = 0, count, i;

	count = argc == 4 ? atol(argv[3]) : 0;
	if (count <= 0) {
		printf("error usage: peers-read NAME PATH COUNT\n");
		return 1;
	}
	bytes = look(argv[2], &lines);
	if (bytes < 0) {
		printf("error peers-read %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	start = now_ns();
	for (i = 0; i < count; i++)
		if (look(argv[2], NULL) < 0) {
			printf("error peers-read %s: %s\n", argv[2],
			       strerror(errno));
			return 1;
		}
	ns = now_ns() - start;
	printf("info peers_%s_bytes %ld\n", argv[1], bytes);
	printf("info peers_%s_lines %ld\n", argv[1], lines);
	printf("sample peers %s %ld %llu.%02llu\n", argv[1],
	       sysconf(_SC_NPROCESSORS_ONLN), ns / count,
	       ns * 100 / count % 100);
	return 0;
}
