/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Per-inode tracepoint counts through perf_event_open (counting mode, one fd per CPU). */
#include "config.h"
#include "probe.h"
#include "util.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
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

/*
 * The online CPUs, from the kernel's own list ("0-3,5,7-8"): perf counts a tracepoint per CPU,
 * so each must be named, and a CPU we skip is hits we miss.  More than max is an error, not a
 * silent cut.
 */
static int online_cpus(int *cpus, int max, char *err)
{
	char list[4096], *p = list, *end;
	int n = 0;
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");

	if (!f)
		return mgb_err(err, "/sys/devices/system/cpu/online: %s", strerror(errno));
	if (!fgets(list, sizeof(list), f)) {
		fclose(f);
		return mgb_err(err, "/sys/devices/system/cpu/online is empty");
	}
	fclose(f);
	while (*p && *p != '\n') {
		long lo = strtol(p, &end, 10), hi = lo;

		if (end == p || lo < 0)
			return mgb_err(err, "cannot parse /sys/devices/system/cpu/online: %s", list);
		if (*end == '-') {
			p = end + 1;
			hi = strtol(p, &end, 10);
			if (end == p || hi < lo)
				return mgb_err(err, "cannot parse /sys/devices/system/cpu/online: %s", list);
		}
		for (long c = lo; c <= hi; c++) {
			if (n == max)
				return mgb_err(err, "more than %d online CPUs: per-CPU tracepoint counting is capped there",
					       max);
			cpus[n++] = (int)c;
		}
		p = *end == ',' ? end + 1 : end;
	}
	return n;
}

bool mgb_tracepoint_exists(const char *group, const char *event)
{
	return event_id(group, event) >= 0;
}

int mgb_tracecount_open(struct mgb_tracecount *tc, const char *group, const char *event,
			unsigned dev_major, unsigned dev_minor, uint64_t ino, char *err)
{
	char filter[128];

	/*
	 * dev_t inside the kernel is major << 20 | minor.  (dev, ino) names one inode on the
	 * filesystems mgbench makes; on btrfs with several subvolumes inode numbers repeat under one
	 * superblock, so a count there could include another subvolume's inode of the same number.
	 */
	snprintf(filter, sizeof(filter), "ino == %llu && dev == %u", (unsigned long long)ino,
		 (dev_major << 20) | dev_minor);
	return mgb_tracecount_open_filter(tc, group, event, filter, err);
}

int mgb_tracecount_open_filter(struct mgb_tracecount *tc, const char *group, const char *event, const char *filter,
			       char *err)
{
	struct perf_event_attr attr;
	int cpus[MGB_TRACECOUNT_MAX_CPUS], ncpu;
	int id = event_id(group, event);

	tc->nfds = 0;
	if (id < 0)
		return mgb_err(err, "tracepoint %s:%s not found under " MGB_TRACING_DIR, group, event);
	ncpu = online_cpus(cpus, MGB_TRACECOUNT_MAX_CPUS, err);
	if (ncpu < 0)
		return -1;
	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.size = sizeof(attr);
	attr.config = (uint64_t)id;
	attr.disabled = 1;
	for (int i = 0; i < ncpu; i++) {
		int fd = (int)syscall(SYS_perf_event_open, &attr, -1, cpus[i], -1, PERF_FLAG_FD_CLOEXEC);

		if (fd < 0) {
			mgb_err(err, "perf_event_open(%s:%s) on CPU %d: %s", group, event, cpus[i], strerror(errno));
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
	for (int i = 0; i < tc->nfds; i++)
		if (ioctl(tc->fds[i], PERF_EVENT_IOC_ENABLE, 0) < 0) {
			mgb_err(err, "enabling %s:%s: %s", group, event, strerror(errno));
			mgb_tracecount_close(tc);
			return -1;
		}
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

static void open_or_leave_closed(struct mgb_tracecount *tc, const char *event, const struct mgb_target *t,
				 uint64_t ino)
{
	if (mgb_tracecount_open(tc, "timestamp", event, t->sb_dev_major, t->sb_dev_minor, ino, NULL) < 0)
		tc->nfds = 0;
}

void mgb_ctime_changes_open(struct mgb_ctime_changes *cc, const struct mgb_target *t, uint64_t ino, bool want_mg)
{
	cc->mg.nfds = cc->other.nfds = 0;
	if (want_mg)
		open_or_leave_closed(&cc->mg, "ctime_ns_xchg", t, ino);
	open_or_leave_closed(&cc->other, "inode_set_ctime_to_ts", t, ino);
}

void mgb_ctime_changes_read(const struct mgb_ctime_changes *cc, int64_t *mg, int64_t *other)
{
	*mg = cc->mg.nfds ? mgb_tracecount_read(&cc->mg) : -1;
	*other = cc->other.nfds ? mgb_tracecount_read(&cc->other) : -1;
}

int64_t mgb_ctime_changes_total(const struct mgb_ctime_changes *cc, uint64_t writes, int multigrain)
{
	int64_t mg, other;

	mgb_ctime_changes_read(cc, &mg, &other);
	if ((mg < 0 && other < 0) || (mg <= 0 && other <= 0 && writes > 0 && !(multigrain == 0 && other == 0)))
		return -1;
	return (mg > 0 ? mg : 0) + (other > 0 ? other : 0);
}

void mgb_ctime_changes_close(struct mgb_ctime_changes *cc)
{
	mgb_tracecount_close(&cc->mg);
	mgb_tracecount_close(&cc->other);
}
