/* Per-inode tracepoint counts through perf_event_open (counting mode, one fd per CPU). */
#include "config.h"
#include "probe.h"
#include "util.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int event_id(const char *group, const char *event)
{
	char path[256];
	int id = -1;
	FILE *f;

	snprintf(path, sizeof(path), MGB_TRACING_DIR "/events/%s/%s/id", group, event);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &id) != 1)
		id = -1;
	fclose(f);
	return id;
}

bool mgb_tracepoint_exists(const char *group, const char *event)
{
	return event_id(group, event) >= 0;
}

int mgb_tracecount_open(struct mgb_tracecount *tc, const char *group, const char *event,
			unsigned dev_major, unsigned dev_minor, uint64_t ino, char *err)
{
	struct perf_event_attr attr;
	char filter[128];
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	int id = event_id(group, event);

	tc->nfds = 0;
	if (id < 0)
		return mgb_err(err, "tracepoint %s:%s not found under " MGB_TRACING_DIR, group, event);
	if (ncpu > MGB_TRACECOUNT_MAX_CPUS)
		ncpu = MGB_TRACECOUNT_MAX_CPUS;
	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.size = sizeof(attr);
	attr.config = (uint64_t)id;
	attr.disabled = 1;
	/* dev_t inside the kernel is major << 20 | minor */
	snprintf(filter, sizeof(filter), "ino == %llu && dev == %u", (unsigned long long)ino,
		 (dev_major << 20) | dev_minor);
	for (long cpu = 0; cpu < ncpu; cpu++) {
		int fd = (int)syscall(SYS_perf_event_open, &attr, -1, (int)cpu, -1, PERF_FLAG_FD_CLOEXEC);

		if (fd < 0) {
			if (errno == ENODEV || errno == EINVAL)
				continue; /* offline CPU */
			mgb_err(err, "perf_event_open(%s:%s): %s", group, event, strerror(errno));
			mgb_tracecount_close(tc);
			return -1;
		}
		tc->fds[tc->nfds++] = fd;
		if (ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter) < 0) {
			mgb_err(err, "filter on %s:%s: %s", group, event, strerror(errno));
			mgb_tracecount_close(tc);
			return -1;
		}
	}
	if (tc->nfds == 0)
		return mgb_err(err, "perf_event_open(%s:%s): no CPU accepted the event", group, event);
	for (int i = 0; i < tc->nfds; i++)
		ioctl(tc->fds[i], PERF_EVENT_IOC_ENABLE, 0);
	return 0;
}

int64_t mgb_tracecount_read(const struct mgb_tracecount *tc)
{
	int64_t total = 0;

	for (int i = 0; i < tc->nfds; i++) {
		uint64_t v;

		if (read(tc->fds[i], &v, sizeof(v)) != (ssize_t)sizeof(v))
			return -1;
		total += (int64_t)v;
	}
	return tc->nfds ? total : -1;
}

void mgb_tracecount_close(struct mgb_tracecount *tc)
{
	for (int i = 0; i < tc->nfds; i++)
		close(tc->fds[i]);
	tc->nfds = 0;
}
