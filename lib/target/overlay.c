/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What an overlay does with a file's stamps when it copies the file up (the seeds' patch 2/6:
 * overlayfs copies ctime from the real inode, which under the 2023 series carried its QUERIED
 * flag in tv_nsec).  On a scratch overlay target, before the workload: a file made in the lower
 * layer with known stamps is changed through the overlay (chmod: a metadata copy-up), then
 * written; each time the overlay's stamps are read beside the upper inode's, read directly.
 */
#include "config.h"
#include "target.h"
#include "util.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PROBE ".mgbench-copyup"
#define LOWER_SEC 1000000000LL /* 2001-09-09: a stamp no change today can give */
#define LOWER_NSEC 123456789L

static bool read_stamps(const char *path, struct statx *sx)
{
	return statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, STATX_MTIME | STATX_CTIME, sx) == 0;
}

static bool same(const struct statx_timestamp *a, const struct statx_timestamp *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* Until the coarse clock passes ts: a change in the same tick would get ts again, new or not. */
static void wait_coarse_past(const struct statx_timestamp *ts)
{
	const struct timespec nap = { 0, 1000000 };
	struct timespec now;

	for (int i = 0; i < 1000 && !clock_gettime(CLOCK_REALTIME_COARSE, &now); i++) {
		if (now.tv_sec > ts->tv_sec || (now.tv_sec == ts->tv_sec && now.tv_nsec > (long)ts->tv_nsec))
			return;
		nanosleep(&nap, NULL);
	}
}

/* Every tv_nsec a stamp can carry is below 1e9; a flag kept in its high bits is not. */
static bool nsec_ok(const struct statx *sx)
{
	return sx->stx_mtime.tv_nsec < 1000000000u && sx->stx_ctime.tv_nsec < 1000000000u;
}

void mgb_overlay_copy_up_probe(struct mgb_target *t)
{
	struct mgb_copy_up *c = &t->copy_up;
	char lower[PATH_MAX], upper[PATH_MAX], merged[PATH_MAX];
	struct timespec ts[2] = { { LOWER_SEC, LOWER_NSEC }, { LOWER_SEC, LOWER_NSEC } };
	struct statx lo, m, u;
	int fd;

	memset(c, 0, sizeof(*c));
	snprintf(lower, sizeof(lower), "%s/lower/" PROBE, t->mnt);
	snprintf(upper, sizeof(upper), "%s/upper/" PROBE, t->mnt);
	snprintf(merged, sizeof(merged), "%s/" PROBE, t->path);
	fd = open(lower, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, "lower\n", 6) != 6 || futimens(fd, ts) || close(fd) || !read_stamps(lower, &lo)) {
		if (fd >= 0)
			close(fd);
		return;
	}
	c->probed = true;
	/* before any change the overlay shows the lower file, whose stamps it must show as they are */
	c->lower_shown = read_stamps(merged, &m) && same(&m.stx_mtime, &lo.stx_mtime) &&
			 same(&m.stx_ctime, &lo.stx_ctime) && access(upper, F_OK) != 0;
	c->nsec_ok = nsec_ok(&lo) && nsec_ok(&m);
	/* a metadata change: the file is copied up, its mtime kept, its ctime new */
	wait_coarse_past(&lo.stx_ctime);
	if (chmod(merged, 0640) || !read_stamps(merged, &m) || !read_stamps(upper, &u))
		return;
	c->copied_up = true;
	c->mtime_kept = same(&m.stx_mtime, &lo.stx_mtime);
	c->ctime_moved = !same(&m.stx_ctime, &lo.stx_ctime);
	c->matches_upper = same(&m.stx_mtime, &u.stx_mtime) && same(&m.stx_ctime, &u.stx_ctime);
	c->nsec_ok &= nsec_ok(&m) && nsec_ok(&u);
	/* a data change through the overlay, queried: the upper inode's fine stamps, shown as they are */
	fd = open(merged, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || write(fd, "x", 1) != 1 || close(fd) || !read_stamps(merged, &m) || !read_stamps(upper, &u))
		return;
	c->written = true;
	c->matches_upper &= same(&m.stx_mtime, &u.stx_mtime) && same(&m.stx_ctime, &u.stx_ctime);
	c->nsec_ok &= nsec_ok(&m) && nsec_ok(&u);
	unlink(merged); /* a whiteout over the lower file: the workload's directory starts as it was */
}
