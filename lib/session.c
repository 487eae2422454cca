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
	char *tmpl;

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

	if (!base || !*base)
		base = "/tmp";
	if (asprintf(&tmpl, "%s/mgbench.XXXXXX", base) < 0)
		return mgb_err(err, "out of memory");
	if (!mkdtemp(tmpl)) {
		mgb_err(err, "mkdtemp %s: %s", tmpl, strerror(errno));
		free(tmpl);
		return -1;
	}
	s->tmpdir = tmpl;
	/* Images live in this tmpfs: if we are killed, the namespace takes them with it. */
	if (mount("mgbench", s->tmpdir, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0700") < 0) {
		mgb_err(err, "mount tmpfs on %s: %s", s->tmpdir, strerror(errno));
		mgb_session_end(s);
		return -1;
	}
	s->tmpdir_mounted = true;
	return 0;
}

void mgb_session_end(struct mgb_session *s)
{
	if (s->tmpdir) {
		if (s->tmpdir_mounted)
			umount2(s->tmpdir, MNT_DETACH);
		rmdir(s->tmpdir);
		free(s->tmpdir);
	}
	s->tmpdir = NULL;
	s->tmpdir_mounted = false;
}
