/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Files that start in an overlay's lower layer.  overlayfs copies a lower file up when it is
 * first opened for writing: the upper copy keeps the lower file's mtime and atime and gets a new
 * ctime.  The lower file is made while the overlay is mounted, under a name the overlay has not
 * looked up yet (a fresh target), and the overlay is asked whether it shows it before the open.
 */
#include "config.h"
#include "json_text.h"
#include "lower.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOWER_SEC 1000000000LL /* 2001-09-09: a stamp no change today can give */
#define LOWER_NSEC 987654321L

/* A served target's files are in a directory the server's side made through the overlay: it
 * exists in the upper layer only, and a lower file under it would never be seen. */
static bool starts_in_lower(const struct mgb_ctx *ctx)
{
	const struct mgb_target *t = ctx->target;

	return t->fs && t->fs->overlay_on && t->mnt && t->path && ctx->local_dir &&
	       !strcmp(ctx->local_dir, t->path);
}

static void count(struct mgb_ctx *ctx, const char *key, bool yes)
{
	json_t *c = json_object_get(ctx->metrics, "copy_up");

	if (!c) {
		c = MGB_JSON_PACK("{s:i, s:i, s:i, s:i, s:i, s:i}", "files", 0, "shown", 0, "copied_up", 0,
				  "mtime_kept", 0, "atime_kept", 0, "ctime_new", 0);
		json_object_set_new(ctx->metrics, "copy_up", c);
	}
	if (yes)
		json_object_set_new(c, key, json_integer(json_integer_value(json_object_get(c, key)) + 1));
}

static void why_not(struct mgb_ctx *ctx, const char *why)
{
	if (!json_object_get(ctx->metrics, "copy_up"))
		json_object_set_new(ctx->metrics, "copy_up", MGB_JSON_PACK("{s:s}", "not_in_lower", why));
}

static int open_dir(const char *base, const char *sub)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s%s%s", base, sub ? "/" : "", sub ? sub : "");
	return open(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* The lower file: empty, with stamps no change made now could give. */
static int make_lower(int lowerfd, const char *name, mode_t mode, struct stat *st)
{
	const struct timespec ts[2] = { { LOWER_SEC, LOWER_NSEC }, { LOWER_SEC, LOWER_NSEC } };
	int fd = openat(lowerfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	int r = 0;

	if (fd < 0)
		return -errno;
	if (futimens(fd, ts) || fstat(fd, st))
		r = -errno;
	close(fd);
	return r;
}

static bool stamp_is(const struct mgb_ts *a, int64_t sec, long nsec)
{
	return a->sec == sec && a->nsec == (uint32_t)nsec;
}

int mgb_open_from_lower(struct mgb_ctx *ctx, const char *name, int flags, mode_t mode, struct mgb_file *f)
{
	const struct mgb_target *t = ctx->target;
	int lowerfd = -1, upperfd = -1, mergedfd = -1, r;
	struct stat lo, m, u;
	struct mgb_stat st;
	bool shown;

	if (!t->fs || !t->fs->overlay_on)
		return mgb_be_open(ctx->be, name, flags, mode, f);
	if (!starts_in_lower(ctx)) {
		why_not(ctx, "behind a server: its files are in a directory made through the overlay, in the upper layer only");
		return mgb_be_open(ctx->be, name, flags, mode, f);
	}
	lowerfd = open_dir(t->mnt, "lower");
	upperfd = open_dir(t->mnt, "upper");
	mergedfd = open_dir(t->path, NULL);
	if (lowerfd < 0 || upperfd < 0 || mergedfd < 0 || make_lower(lowerfd, name, mode, &lo) < 0) {
		why_not(ctx, "the lower layer could not be written");
		r = mgb_be_open(ctx->be, name, flags, mode, f);
		goto out;
	}
	count(ctx, "files", true);
	/* a copy in the same tick would get the lower ctime again, new or not */
	mgb_wait_coarse_past((int64_t)lo.st_ctim.tv_sec * 1000000000 + lo.st_ctim.tv_nsec);
	shown = !fstatat(mergedfd, name, &m, AT_SYMLINK_NOFOLLOW) && m.st_mtim.tv_sec == LOWER_SEC &&
		m.st_mtim.tv_nsec == LOWER_NSEC && fstatat(upperfd, name, &u, AT_SYMLINK_NOFOLLOW) < 0;
	count(ctx, "shown", shown);
	/* empty already: O_TRUNC would change the stamps the copy-up is judged by */
	r = mgb_be_open(ctx->be, name, flags & ~O_TRUNC, mode, f);
	if (r < 0)
		goto out;
	count(ctx, "copied_up", shown && !fstatat(upperfd, name, &u, AT_SYMLINK_NOFOLLOW));
	/* one query before the workload's own baseline, which every workload makes anyway */
	if (shown && mgb_be_fstat(ctx->be, f, MGB_STAT_TIMES | MGB_STAT_ATIME, &st) == 0) {
		count(ctx, "mtime_kept", stamp_is(&st.mtime, LOWER_SEC, LOWER_NSEC));
		count(ctx, "atime_kept", (st.mask & MGB_STAT_ATIME) && stamp_is(&st.atime, LOWER_SEC, LOWER_NSEC));
		count(ctx, "ctime_new", mgb_ts_ns(st.ctime) > (int64_t)lo.st_ctim.tv_sec * 1000000000 + lo.st_ctim.tv_nsec);
	}
out:
	if (lowerfd >= 0)
		close(lowerfd);
	if (upperfd >= 0)
		close(upperfd);
	if (mergedfd >= 0)
		close(mergedfd);
	return r;
}
