/* The session: a private mount namespace and a private tmpfs-backed temp directory for one run. */
#include "config.h"
#include "target.h"
#include "util.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#define DEBUGFS_MAGIC_NUMBER 0x64626720
#define TRACEFS_MAGIC_NUMBER 0x74726163

/* Mount a pseudo filesystem where the kernel expects it, but only inside our namespace. */
static void ensure_pseudo_fs(const char *dir, const char *type, long magic)
{
	struct statfs sfs;

	if (statfs(dir, &sfs) == 0 && sfs.f_type == magic)
		return;
	mount("none", dir, type, 0, NULL); /* best effort: probes report what is missing */
}

int mgb_session_begin(struct mgb_session *s, bool scratch, char *err)
{
	const char *base = getenv("TMPDIR");

	memset(s, 0, sizeof(*s));
	if (geteuid() != 0) {
		if (scratch)
			return mgb_err(err, "making scratch filesystems needs root "
				       "(or use --dir PATH to run in an existing directory)");
		return 0;
	}
	if (unshare(CLONE_NEWNS) < 0)
		return mgb_err(err, "unshare(CLONE_NEWNS): %s", strerror(errno));
	/* Private propagation: nothing we mount is seen by, or survives, the host. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return mgb_err(err, "making mounts private: %s", strerror(errno));
	s->private_ns = true;
	ensure_pseudo_fs("/sys/kernel/debug", "debugfs", DEBUGFS_MAGIC_NUMBER);
	ensure_pseudo_fs("/sys/kernel/tracing", "tracefs", TRACEFS_MAGIC_NUMBER);
	if (!scratch)
		return 0;

	/*
	 * A fresh tmpfs over $TMPDIR, seen only by this namespace: image files and mount points
	 * live there and the host's directory is never written, so even a SIGKILL leaves nothing
	 * behind.  (Paths the run needs from the host, like the result file, are opened before.)
	 */
	/* Only a real temp directory: a tmpfs over "/" or a relative path would hide what the run needs. */
	if (!base || base[0] != '/' || base[strspn(base, "/")] == '\0')
		base = "/tmp";
	if (mount("mgbench", base, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0700") < 0)
		return mgb_err(err, "mount a private tmpfs on %s: %s", base, strerror(errno));
	s->tmpdir_mounted = true;
	if (asprintf(&s->tmpdir, "%s", base) < 0)
		return mgb_err(err, "out of memory");
	return 0;
}

void mgb_session_end(struct mgb_session *s)
{
	if (s->tmpdir && s->tmpdir_mounted)
		umount2(s->tmpdir, MNT_DETACH);
	free(s->tmpdir);
	s->tmpdir = NULL;
	s->tmpdir_mounted = false;
}
