/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The session: a private mount namespace and a scratch directory, with a tmpfs of its own, for one run. */
#include "config.h"
#include "target.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
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

#define SCRATCH_PREFIX "mgbench-scratch."

/*
 * Our pid namespace's inode number: a pid means something only within its namespace, and a
 * container sharing $TMPDIR has its own.  0 if it cannot be read (then nothing is swept).
 */
static unsigned long pid_namespace(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) == 0 ? (unsigned long)st.st_ino : 0;
}

/* The pid in a scratch directory's name ("mgbench-scratch.<pid>.<pidns>.XXXXXX") if it was made
 * in pid namespace ns, or 0. */
static pid_t scratch_owner(const char *name, unsigned long ns)
{
	char *end;
	long pid;

	if (!ns || strncmp(name, SCRATCH_PREFIX, strlen(SCRATCH_PREFIX)))
		return 0;
	pid = strtol(name + strlen(SCRATCH_PREFIX), &end, 10);
	if (*end != '.' || pid <= 0 || pid > INT32_MAX || strtoul(end + 1, &end, 10) != ns || *end != '.')
		return 0;
	return (pid_t)pid;
}

/*
 * A run killed with SIGKILL leaves its scratch directory behind, empty: the tmpfs on it was only
 * ever mounted in its own namespace.  Remove those of runs that are gone.  A live run's directory
 * is left alone, and so is one made in another pid namespace (whose pids we cannot check):
 * removing a mount point seen from another mount namespace would detach that run's mount.
 */
static void sweep_stale_scratch(const char *base)
{
	unsigned long ns = pid_namespace();
	DIR *d = opendir(base);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		pid_t pid = scratch_owner(e->d_name, ns);

		if (pid && pid != getpid() && kill(pid, 0) < 0 && errno == ESRCH)
			unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR); /* only succeeds when empty */
	}
	closedir(d);
}

int mgb_session_begin(struct mgb_session *s, bool scratch, char *err)
{
	const char *base = getenv("TMPDIR");
	char *real;

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
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		/* a plain chroot: its / is a directory of another mount, which a chroot cannot name */
		if (errno == EINVAL)
			return mgb_err(err, "making mounts private: / is not a mount point here (a chroot?): "
				       "bind-mount the chroot's directory onto itself first (mount --bind DIR DIR)");
		return mgb_err(err, "making mounts private: %s", strerror(errno));
	}
	s->private_ns = true;
	ensure_pseudo_fs("/sys/kernel/debug", "debugfs", DEBUGFS_MAGIC_NUMBER);
	ensure_pseudo_fs("/sys/kernel/tracing", "tracefs", TRACEFS_MAGIC_NUMBER);
	if (!scratch)
		return 0;

	/*
	 * A fresh directory of our own under $TMPDIR with a tmpfs on it, seen only by this
	 * namespace: image files and mount points live there, nothing else under $TMPDIR is hidden
	 * (users keep trees, patch series and kernel builds there), and a SIGKILL leaves at most the
	 * empty directory, which the next run removes.
	 */
	if (!base || !*base)
		base = "/tmp";
	if (!(real = realpath(base, NULL)))
		return mgb_err(err, "TMPDIR %.200s: %s", base, strerror(errno));
	sweep_stale_scratch(real);
	if (asprintf(&s->tmpdir, "%s/" SCRATCH_PREFIX "%d.%lu.XXXXXX", real, (int)getpid(), pid_namespace()) < 0) {
		s->tmpdir = NULL;
		free(real);
		return mgb_err(err, "out of memory");
	}
	free(real);
	if (!mkdtemp(s->tmpdir)) {
		mgb_err(err, "make a scratch directory in TMPDIR %.200s: %s", base, strerror(errno));
		free(s->tmpdir);
		s->tmpdir = NULL;
		return -1;
	}
	if (mount("mgbench", s->tmpdir, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0700") < 0) {
		mgb_err(err, "mount a private tmpfs on %.200s: %s", s->tmpdir, strerror(errno));
		mgb_session_end(s);
		return -1;
	}
	s->tmpdir_mounted = true;
	return 0;
}

void mgb_session_end(struct mgb_session *s)
{
	if (s->tmpdir && s->tmpdir_mounted)
		umount2(s->tmpdir, MNT_DETACH);
	if (s->tmpdir)
		rmdir(s->tmpdir);
	free(s->tmpdir);
	s->tmpdir = NULL;
	s->tmpdir_mounted = false;
}
