/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sync backend: one plain syscall per operation, relative to a directory fd (the baseline).
 * Its operations are shared (sync.h) with the backends that make the same calls on an NFS mount
 * (nfs_mount.c).
 */
#include "config.h"
#include "backend.h"
#include "sync.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

struct sync_priv {
	int dirfd;
};

static int dirfd_of(struct mgb_backend *be)
{
	return ((struct sync_priv *)be->priv)->dirfd;
}

int mgb_sync_init(struct mgb_backend *be, const char *root, char *err)
{
	struct sync_priv *p = calloc(1, sizeof(*p));

	if (!p)
		return mgb_err(err, "out of memory");
	p->dirfd = open(root, O_DIRECTORY | O_RDONLY | O_CLOEXEC);
	if (p->dirfd < 0) {
		free(p);
		return mgb_err(err, "open %s: %s", root, strerror(errno));
	}
	be->priv = p;
	return 0;
}

void mgb_sync_fini(struct mgb_backend *be)
{
	struct sync_priv *p = be->priv;

	if (p) {
		close(p->dirfd);
		free(p);
	}
	be->priv = NULL;
}

static int ret0(int r)
{
	return r < 0 ? -errno : 0;
}

int mgb_sync_open(struct mgb_backend *be, const char *path, int flags, mode_t mode, struct mgb_file *f)
{
	int fd = openat(dirfd_of(be), path, flags | O_CLOEXEC, mode);

	if (fd < 0)
		return -errno;
	f->fd = fd;
	f->priv = NULL;
	return 0;
}

int mgb_sync_close(struct mgb_backend *be, struct mgb_file *f)
{
	int r = close(f->fd);

	f->fd = -1;
	return ret0(r);
}

ssize_t mgb_sync_pwrite(struct mgb_backend *be, struct mgb_file *f, const void *buf, size_t len, off_t off)
{
	ssize_t n = pwrite(f->fd, buf, len, off);

	return n < 0 ? -errno : n;
}

ssize_t mgb_sync_pread(struct mgb_backend *be, struct mgb_file *f, void *buf, size_t len, off_t off)
{
	ssize_t n = pread(f->fd, buf, len, off);

	return n < 0 ? -errno : n;
}

static unsigned statx_mask(unsigned want)
{
	return want & MGB_STAT_STATX;
}

/* Only what was asked for counts as returned (statx fills its basic fields regardless). */
static void from_statx(const struct statx *sx, unsigned want, struct mgb_stat *st)
{
	st->mask = sx->stx_mask & want & MGB_STAT_STATX;
	st->ctime = (struct mgb_ts){ sx->stx_ctime.tv_sec, sx->stx_ctime.tv_nsec };
	st->mtime = (struct mgb_ts){ sx->stx_mtime.tv_sec, sx->stx_mtime.tv_nsec };
	st->ino = sx->stx_ino;
	st->dev_major = sx->stx_dev_major;
	st->dev_minor = sx->stx_dev_minor;
	/* the rest only when asked: this runs in every measured round */
	if (want & ~MGB_STAT_TIMES) {
		st->atime = (struct mgb_ts){ sx->stx_atime.tv_sec, sx->stx_atime.tv_nsec };
		st->btime = (struct mgb_ts){ sx->stx_btime.tv_sec, sx->stx_btime.tv_nsec };
		st->size = sx->stx_size;
	}
}

int mgb_sync_fstat(struct mgb_backend *be, struct mgb_file *f, unsigned want, struct mgb_stat *st)
{
	struct statx sx;

	if (statx(f->fd, "", AT_EMPTY_PATH, statx_mask(want), &sx) < 0)
		return -errno;
	from_statx(&sx, want, st);
	return 0;
}

/* Two syscalls, one call from the workload: the measuring loop stays close to a bare loop. */
ssize_t mgb_sync_pwrite_fstat(struct mgb_backend *be, struct mgb_file *f, const void *buf, size_t len, off_t off,
				 unsigned want, struct mgb_stat *st)
{
	struct statx sx;
	ssize_t n = pwrite(f->fd, buf, len, off);

	if (n < 0)
		return -errno;
	if (statx(f->fd, "", AT_EMPTY_PATH, statx_mask(want), &sx) < 0)
		return -errno;
	from_statx(&sx, want, st);
	return n;
}

int mgb_sync_stat(struct mgb_backend *be, const char *path, unsigned want, struct mgb_stat *st)
{
	struct statx sx;

	if (statx(dirfd_of(be), path, AT_SYMLINK_NOFOLLOW, statx_mask(want), &sx) < 0)
		return -errno;
	from_statx(&sx, want, st);
	return 0;
}

int mgb_sync_fsync(struct mgb_backend *be, struct mgb_file *f)
{
	return ret0(fsync(f->fd));
}

int mgb_sync_ftruncate(struct mgb_backend *be, struct mgb_file *f, off_t len)
{
	return ret0(ftruncate(f->fd, len));
}

int mgb_sync_fchmod(struct mgb_backend *be, struct mgb_file *f, mode_t mode)
{
	return ret0(fchmod(f->fd, mode));
}

int mgb_sync_fsetxattr(struct mgb_backend *be, struct mgb_file *f, const char *name, const void *val, size_t len)
{
	return ret0(fsetxattr(f->fd, name, val, len, 0));
}

int mgb_sync_futimens_now(struct mgb_backend *be, struct mgb_file *f)
{
	return ret0(futimens(f->fd, NULL));
}

int mgb_sync_fallocate(struct mgb_backend *be, struct mgb_file *f, off_t off, off_t len)
{
	return ret0(fallocate(f->fd, 0, off, len));
}

int mgb_sync_rename(struct mgb_backend *be, const char *from, const char *to)
{
	return ret0(renameat(dirfd_of(be), from, dirfd_of(be), to));
}

int mgb_sync_link(struct mgb_backend *be, const char *from, const char *to)
{
	return ret0(linkat(dirfd_of(be), from, dirfd_of(be), to, 0));
}

int mgb_sync_unlink(struct mgb_backend *be, const char *path)
{
	return ret0(unlinkat(dirfd_of(be), path, 0));
}

int mgb_sync_mkdir(struct mgb_backend *be, const char *path, mode_t mode)
{
	return ret0(mkdirat(dirfd_of(be), path, mode));
}

int mgb_sync_rmdir(struct mgb_backend *be, const char *path)
{
	return ret0(unlinkat(dirfd_of(be), path, AT_REMOVEDIR));
}

const struct mgb_backend_ops mgb_backend_sync = {
	.name = "sync",
	.summary = "plain syscalls: pwrite, statx, renameat, fsetxattr, ...",
	MGB_SYNC_OPS,
};
