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

/*
 * Only a real temp directory (resolved, so "/./" is "/"): a tmpfs over the root or a system
 * directory would hide from the run itself the tools, devices and counters it needs.
 */
static bool usable_tmpdir(const char *dir)
{
	static const char *const system_dirs[] = { "/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64",
						   "/libx32", "/proc", "/sbin", "/sys", "/usr" };
	static const char *const system_tops[] = { "/", "/run", "/var", "/home", "/root" };

	for (size_t i = 0; i < MGB_ARRAY_SIZE(system_tops); i++)
		if (!strcmp(dir, system_tops[i]))
			return false;
	for (size_t i = 0; i < MGB_ARRAY_SIZE(system_dirs); i++) {
		size_t n = strlen(system_dirs[i]);

		if (!strncmp(dir, system_dirs[i], n) && (dir[n] == '\0' || dir[n] == '/'))
			return false;
	}
	return true;
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
	if (!base || !*base)
		base = "/tmp";
	s->tmpdir = realpath(base, NULL);
	if (!s->tmpdir)
		return mgb_err(err, "TMPDIR %.200s: %s", base, strerror(errno));
	if (!usable_tmpdir(s->tmpdir))
		return mgb_err(err, "TMPDIR %.200s is %s, which a private tmpfs over it would hide from the run: "
			       "use a temp directory such as /tmp", base, s->tmpdir);
	if (mount("mgbench", s->tmpdir, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0700") < 0)
		return mgb_err(err, "mount a private tmpfs on %s: %s", s->tmpdir, strerror(errno));
	s->tmpdir_mounted = true;
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
