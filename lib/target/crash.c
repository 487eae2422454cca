/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A crash of a cell's target and its recovery (lib/serve.h): the shutdown ioctl that fstests
 * uses; then, once nothing is open on the filesystem, nfsd letting go of it where it serves it
 * (its threads stopped), the filesystem mounted again (its log replayed) and served again.
 */
#include "config.h"
#include "serve.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* FS_IOC_SHUTDOWN / XFS_IOC_GOINGDOWN / EXT4_IOC_SHUTDOWN: one number for every filesystem that
 * has it; its flag 2 (NOLOGFLUSH) shuts down without writing the log, as fstests' godown -f. */
#define SHUTDOWN_IOC _IOR('X', 125, uint32_t)
#define SHUTDOWN_LOGFLUSH 1u
#define SHUTDOWN_NOLOGFLUSH 2u

int mgb_target_shutdown(struct mgb_target *t, bool flush_log)
{
	uint32_t flag = flush_log ? SHUTDOWN_LOGFLUSH : SHUTDOWN_NOLOGFLUSH;
	int fd, r = 0;

	if (!t->mounted || !t->mnt)
		return -EINVAL;
	/* the ioctl acts on the superblock: its root directory serves as well as any open file */
	fd = open(t->mnt, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, SHUTDOWN_IOC, &flag) < 0)
		r = -errno;
	close(fd);
	return r;
}

bool mgb_served_can_crash(const struct mgb_served *sv)
{
	const struct mgb_fs_type *fs = sv->target.fs;

	if (!fs || !fs->loop || fs->overlay_on || sv->url)
		return false;
	/* the kernel's own client (nfs4-mount) would keep the data in its page cache, unmeasured */
	return sv->reach == MGB_REACH_LOCAL || (sv->knfsd && !sv->kernel_client);
}

int mgb_served_crash(struct mgb_served *sv, bool flush_log)
{
	return mgb_target_shutdown(&sv->target, flush_log);
}

int mgb_served_recover(struct mgb_served *sv, char *err)
{
#ifdef HAVE_LIBNFS
	if (sv->knfsd && mgb_knfsd_let_go(&sv->kn, err) < 0)
		return -1;
#endif
	if (mgb_target_remount(&sv->target, err) < 0)
		return -1;
#ifdef HAVE_LIBNFS
	if (sv->knfsd && mgb_knfsd_serve_again(&sv->kn, err) < 0)
		return -1;
#endif
	return 0;
}
