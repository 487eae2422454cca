/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Scratch filesystems and --dir targets: make, mount, describe and tear down. */
#include "config.h"
#include "target.h"
#include "proc.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const mkfs_ext4[] = { "mkfs.ext4", "-F", "-q", "-E", "lazy_itable_init=0,lazy_journal_init=0", NULL };
static const char *const mkfs_xfs[] = { "mkfs.xfs", "-f", "-q", NULL };
static const char *const mkfs_btrfs[] = { "mkfs.btrfs", "-f", "-q", NULL };
/* 256-byte inodes keep nanoseconds; mounted as ext2, ext4's driver leaves FS_MGTIME off. */
static const char *const mkfs_ext2[] = { "mkfs.ext2", "-F", "-q", "-I", "256", NULL };

/* Sizes: mkfs.xfs refuses images under about 300 MB, mkfs.btrfs needs 109 MiB. */
const struct mgb_fs_type mgb_fs_types[] = {
	{ .name = "ext4", .loop = true, .image_mib = 256, .mkfs = mkfs_ext4, .multigrain_expected = true },
	{ .name = "xfs", .loop = true, .image_mib = 512, .mkfs = mkfs_xfs, .multigrain_expected = true },
	{ .name = "btrfs", .loop = true, .image_mib = 256, .mkfs = mkfs_btrfs, .multigrain_expected = true },
	{ .name = "tmpfs", .mount_options = "size=256m", .multigrain_expected = true },
	{ .name = "ramfs" },
	/* Not multigrain, like ramfs, but with file handles: the control an NFS server can export. */
	{ .name = "ext2", .loop = true, .image_mib = 256, .mkfs = mkfs_ext2 },
	/* overlayfs over each multigrain filesystem: stamps are the upper layer's (seeds' patch 2/6) */
	{ .name = "overlay-ext4", .loop = true, .image_mib = 256, .mkfs = mkfs_ext4, .multigrain_expected = true,
	  .overlay_on = "ext4" },
	{ .name = "overlay-xfs", .loop = true, .image_mib = 512, .mkfs = mkfs_xfs, .multigrain_expected = true,
	  .overlay_on = "xfs" },
	{ .name = "overlay-btrfs", .loop = true, .image_mib = 256, .mkfs = mkfs_btrfs, .multigrain_expected = true,
	  .overlay_on = "btrfs" },
	{ .name = "overlay-tmpfs", .mount_options = "size=256m", .multigrain_expected = true,
	  .overlay_on = "tmpfs" },
};
const unsigned mgb_fs_type_count = MGB_ARRAY_SIZE(mgb_fs_types);

const struct mgb_fs_type *mgb_fs_type_find(const char *name)
{
	for (unsigned i = 0; i < mgb_fs_type_count; i++)
		if (!strcmp(mgb_fs_types[i].name, name))
			return &mgb_fs_types[i];
	return NULL;
}

/*
 * The mount that holds path, from mountinfo: the longest mount point that prefixes its real path.
 * Its major:minor is the superblock's s_dev, which tracepoints report (statx may differ: btrfs
 * gives each subvolume an anonymous device).
 */
/* mountinfo writes space, tab, newline and backslash in paths as \ooo octal: undo that in place. */
static void unescape_octal(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' && s[3] >= '0' &&
		    s[3] <= '7') {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

/* The mount holding path: its type, device and super options (malloc'd, or NULL). */
static int mount_of(const char *path, char type[64], unsigned *major, unsigned *minor, char **superopts)
{
	char real[PATH_MAX], *line = NULL;
	size_t best_len = 0, cap = 0;
	bool found = false;
	FILE *f;

	*superopts = NULL;
	snprintf(type, 64, "unknown");
	if (!realpath(path, real) || !(f = fopen("/proc/self/mountinfo", "re")))
		return -1;
	/* getline: a line is never split, however long its paths or options. */
	while (getline(&line, &cap, f) > 0) {
		unsigned maj, min;
		char *fields[5], *sep = strstr(line, " - "), *save = NULL, *ftype, *opts;
		size_t len, n = 0;

		if (!sep)
			continue;
		*sep = '\0';
		for (char *tok = strtok_r(line, " ", &save); tok && n < 5; tok = strtok_r(NULL, " ", &save))
			fields[n++] = tok;
		ftype = strtok_r(sep + 3, " \n", &save);
		strtok_r(NULL, " \n", &save); /* the source */
		opts = strtok_r(NULL, " \n", &save);
		/* id, parent, major:minor, root, mount point */
		if (n < 5 || !ftype || sscanf(fields[2], "%u:%u", &maj, &min) != 2)
			continue;
		unescape_octal(fields[4]);
		len = strlen(fields[4]);
		if (strncmp(real, fields[4], len) || (real[len] != '/' && real[len] != '\0' && len > 1))
			continue;
		if (len >= best_len) { /* later lines are mounted on top: >= keeps the topmost */
			best_len = len;
			snprintf(type, 64, "%s", ftype);
			*major = maj;
			*minor = min;
			free(*superopts);
			*superopts = opts ? strdup(opts) : NULL;
			found = true;
		}
	}
	free(line);
	fclose(f);
	return found ? 0 : -1;
}

/* upperdir=PATH from an overlay's super options (commas and backslashes in it are escaped). */
static char *overlay_upperdir(const char *opts)
{
	const char *u = opts ? strstr(opts, "upperdir=") : NULL;
	char *out, *o;

	if (!u || (u != opts && u[-1] != ','))
		return NULL;
	u += 9;
	if (!(out = o = malloc(strlen(u) + 1)))
		return NULL;
	for (; *u && *u != ','; u++)
		*o++ = *u == '\\' && u[1] ? *++u : *u;
	*o = '\0';
	unescape_octal(out);
	return out;
}

/*
 * The type and device of the mount holding path.  Its major:minor is the superblock's s_dev,
 * which tracepoints report (statx may differ: btrfs gives each subvolume an anonymous device).
 * On an overlay the inodes stamped are the upper layer's: the device watched is that layer's,
 * and the overlay's own is kept beside it.
 */
static void describe_mount(const char *path, struct mgb_target *t)
{
	char type[64], *opts = NULL, *upper;

	mount_of(path, type, &t->sb_dev_major, &t->sb_dev_minor, &opts);
	t->fstype = strdup(type);
	if (!strcmp(type, "overlay") && (upper = overlay_upperdir(opts))) {
		char utype[64], *uopts = NULL;
		unsigned maj, min;

		t->overlay_dev_major = t->sb_dev_major;
		t->overlay_dev_minor = t->sb_dev_minor;
		if (!mount_of(upper, utype, &maj, &min, &uopts)) {
			t->sb_dev_major = maj;
			t->sb_dev_minor = min;
			free(t->upper_fstype);
			t->upper_fstype = strdup(utype);
		}
		if (!t->overlay_options)
			t->overlay_options = strdup(opts);
		free(uopts);
		free(upper);
	}
	free(opts);
}

/* argv as one line, with the image's path (the last argument) written IMAGE. */
static char *join_argv(const char *const argv[])
{
	size_t len = 1, n = 0;
	char *s;

	while (argv[n])
		len += strlen(argv[n++]) + 1;
	s = malloc(len + sizeof("IMAGE"));
	if (!s)
		return NULL;
	s[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		strcat(s, i + 1 == n ? "IMAGE" : argv[i]);
		if (i + 1 < n)
			strcat(s, " ");
	}
	return s;
}

static int make_image(const struct mgb_fs_type *fs, struct mgb_target *t, char *err)
{
	const char *argv[16];
	char mkfs[64];
	size_t n = 0;
	int fd;

	fd = open(t->image, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return mgb_err(err, "create %s: %s", t->image, strerror(errno));
	if (ftruncate(fd, (off_t)fs->image_mib << 20) < 0) {
		close(fd);
		return mgb_err(err, "size %s: %s", t->image, strerror(errno));
	}
	close(fd);
	if (mgb_find_system_program(fs->mkfs[0], mkfs, sizeof(mkfs)) < 0)
		return mgb_err(err, "%s not found in /usr/sbin, /usr/bin, /sbin or /bin (run ./bootstrap to install it)",
			       fs->mkfs[0]);
	argv[n++] = mkfs;
	for (; fs->mkfs[n] && n < MGB_ARRAY_SIZE(argv) - 2; n++)
		argv[n] = fs->mkfs[n];
	argv[n++] = t->image;
	argv[n] = NULL;
	/* The document names the binary that ran. */
	t->mkfs_cmd = join_argv(argv);
	return mgb_run_program(argv, err);
}

/* overlayfs on the fresh filesystem at t->mnt: lower, upper and work beside the merged directory
 * the workload uses.  -EOPNOTSUPP with err when this kernel has no overlayfs. */
static int mount_overlay(struct mgb_target *t, char *err)
{
	static const char *const dirs[] = { "lower", "upper", "work", "merged" };
	char p[PATH_MAX], data[3 * PATH_MAX];

	for (size_t i = 0; i < MGB_ARRAY_SIZE(dirs); i++) {
		snprintf(p, sizeof(p), "%s/%s", t->mnt, dirs[i]);
		if (mkdir(p, 0755) < 0)
			return mgb_err(err, "mkdir %s: %s", p, strerror(errno));
	}
	snprintf(data, sizeof(data), "lowerdir=%s/lower,upperdir=%s/upper,workdir=%s/work", t->mnt, t->mnt, t->mnt);
	if (mount("overlay", p, "overlay", 0, data) < 0) {
		int e = errno;

		mgb_err(err, "mount overlay on %s: %s%s", p, strerror(e),
			e == ENODEV ? " (this kernel has no overlayfs)" : "");
		return e == ENODEV ? -EOPNOTSUPP : -1;
	}
	t->overlay_mounted = true;
	t->overlay_options = strdup(data);
	t->path = strdup(p);
	return 0;
}

int mgb_target_scratch(struct mgb_session *s, const struct mgb_fs_type *fs, struct mgb_target *t, char *err)
{
	const struct mgb_fs_type *over = fs;
	const char *source;
	int64_t t0 = mgb_clock_ns(CLOCK_MONOTONIC);
	int loopfd = -1;

	memset(t, 0, sizeof(*t));
	t->fs = over;
	t->label = strdup(over->name);
	if (over->overlay_on) {
		if (!mgb_kernel_has_fs("overlay")) {
			mgb_err(err, "this kernel has no overlayfs (CONFIG_OVERLAY_FS, or its module)");
			return -EOPNOTSUPP;
		}
		fs = mgb_fs_type_find(over->overlay_on); /* the layers' filesystem, made as its own row is */
	}
	source = fs->name;
	if (!s->tmpdir)
		return mgb_err(err, "no scratch session");
	s->serial++;
	if (asprintf(&t->mnt, "%s/%s-%u", s->tmpdir, fs->name, s->serial) < 0)
		return mgb_err(err, "out of memory");
	if (mkdir(t->mnt, 0700) < 0)
		return mgb_err(err, "mkdir %s: %s", t->mnt, strerror(errno));
	if (fs->loop) {
		if (asprintf(&t->image, "%s.img", t->mnt) < 0)
			return mgb_err(err, "out of memory");
		if (make_image(fs, t, err) < 0)
			return -1;
		loopfd = mgb_loop_attach(t->image, &t->loopdev, err);
		if (loopfd < 0)
			return -1;
		source = t->loopdev;
	}
	if (mount(source, t->mnt, fs->name, 0, fs->mount_options) < 0) {
		mgb_err(err, "mount %s (%s) on %s: %s", source, fs->name, t->mnt, strerror(errno));
		if (loopfd >= 0)
			close(loopfd); /* autoclear detaches the unused device on this close */
		return -1;
	}
	t->mounted = true;
	if (loopfd >= 0)
		close(loopfd); /* the mount now holds the device; it detaches when unmounted */
	if (over->overlay_on) {
		int r = mount_overlay(t, err);

		if (r < 0)
			return r;
		mgb_overlay_copy_up_probe(t);
	} else {
		t->path = strdup(t->mnt);
	}
	describe_mount(t->path, t);
	t->setup_s = (mgb_clock_ns(CLOCK_MONOTONIC) - t0) / 1e9;
	return 0;
}

#define UNMOUNT_BUSY_NS (10 * MGB_NSEC_PER_SEC)

int mgb_target_remount(struct mgb_target *t, char *err)
{
	const struct mgb_fs_type *fs = t->fs;
	int loopfd;

	if (!fs || !fs->loop || fs->overlay_on || !t->mounted || !t->image)
		return mgb_err(err, "only a loop-mounted scratch filesystem can be mounted again");
	/* Exported, it may stay busy a moment: nfsd's export caches let go of the mount after an RCU
	 * grace period, and a file an nfsd thread closed is released by a work queue.  Never a lazy
	 * unmount: the image must not be mounted again while its old superblock lives. */
	for (int64_t deadline = mgb_clock_ns(CLOCK_MONOTONIC) + UNMOUNT_BUSY_NS; umount2(t->mnt, 0) < 0; usleep(20000))
		if (errno != EBUSY || mgb_clock_ns(CLOCK_MONOTONIC) > deadline)
			return mgb_err(err, "unmount %s: %s", t->mnt, strerror(errno));
	t->mounted = false;
	/* autoclear detached the loop device with the unmount: attach the image again */
	free(t->loopdev);
	t->loopdev = NULL;
	loopfd = mgb_loop_attach(t->image, &t->loopdev, err);
	if (loopfd < 0)
		return -1;
	if (mount(t->loopdev, t->mnt, fs->name, 0, fs->mount_options) < 0) {
		mgb_err(err, "mount %s (%s) on %s again: %s", t->loopdev, fs->name, t->mnt, strerror(errno));
		close(loopfd);
		return -1;
	}
	close(loopfd);
	t->mounted = true;
	/* a new superblock: its device may differ */
	free(t->fstype);
	free(t->upper_fstype);
	t->upper_fstype = NULL;
	describe_mount(t->path, t);
	return 0;
}

/*
 * The run's directory under --dir is made and then held open, with the directory it was made in:
 * the workload, the probes and the teardown reach it through those descriptors, so whoever owns a
 * directory above --dir can rename things around it but never make root write or remove anywhere
 * else.  Where nobody else can change the path (mgb_check_trusted_dir), the path is given out as
 * is, absolute (an NFS server resolves it itself); elsewhere as /proc/PID/fd/N, the held directory
 * whatever its path has become, and no server is started on it.
 */
int mgb_target_dir(const char *dir, struct mgb_target *t, char *err)
{
	char trust_err[MGB_ERR_LEN], *real;
	struct stat st;

	memset(t, 0, sizeof(*t));
	t->parentfd = t->dirfd = -1;
	t->label = strdup("dir");
	t->parentfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (t->parentfd < 0)
		return mgb_err(err, "--dir %s: %s", dir, errno == ENOTDIR ? "not a directory" : strerror(errno));
	{
		char name[32];

		if (mgb_mkdir_random_at(t->parentfd, "mgbench.", name, sizeof(name)))
			return mgb_err(err, "--dir %s: cannot create a subdirectory: %s", dir,
				       errno == EEXIST ? "no free name" : strerror(errno));
		if (!(t->name = strdup(name)))
			return mgb_err(err, "out of memory");
	}
	t->dirfd = openat(t->parentfd, t->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	/* ours: made by us a moment ago, unless someone swapped it in between */
	if (t->dirfd < 0 || fstat(t->dirfd, &st) || st.st_uid != geteuid() || (st.st_mode & 07777) != 0700) {
		mgb_err(err, "--dir %s: the subdirectory %s was replaced as it was made", dir, t->name);
		if (t->dirfd >= 0)
			close(t->dirfd);
		t->dirfd = -1;
		free(t->name);
		t->name = NULL; /* not ours to remove */
		return -1;
	}
	t->made_path = true;
	t->dir_dev = st.st_dev;
	t->dir_ino = st.st_ino;
	t->untrusted = mgb_check_trusted_dir(dir, true, trust_err) < 0;
	if (!t->untrusted && (real = realpath(dir, NULL))) {
		if (asprintf(&t->path, "%s/%s", strcmp(real, "/") ? real : "", t->name) < 0)
			t->path = NULL;
		free(real);
	} else {
		t->untrusted = true;
		if (asprintf(&t->path, "/proc/%d/fd/%d", (int)getpid(), t->dirfd) < 0)
			t->path = NULL;
	}
	if (!t->path)
		return mgb_err(err, "out of memory");
	describe_mount(t->path, t);
	return 0;
}

/* The --dir subdirectory: emptied through its descriptor, then removed from the directory it was
 * made in only if that name still holds it. */
static void remove_dir_target(struct mgb_target *t)
{
	struct stat st = { .st_dev = t->dir_dev, .st_ino = t->dir_ino };

	if (t->dirfd >= 0) {
		mgb_remove_contents(t->dirfd);
		close(t->dirfd);
		t->dirfd = -1;
	}
	if (t->parentfd >= 0 && t->name && mgb_rmdir_if_same(t->parentfd, t->name, &st))
		fprintf(stderr, "mgbench: %s is no longer where mgbench made it: left in place\n", t->name);
}

void mgb_target_down(struct mgb_target *t)
{
	if (t->made_path)
		remove_dir_target(t);
	if (t->parentfd > 0)
		close(t->parentfd);
	if (t->overlay_mounted && t->path && umount2(t->path, 0) < 0) {
		fprintf(stderr, "mgbench: unmounting %s: %s; detaching it lazily\n", t->path, strerror(errno));
		umount2(t->path, MNT_DETACH);
	}
	t->overlay_mounted = false;
	if (t->mounted) {
		/* Busy: say so, and detach it lazily (the namespace removes it at exit anyway). */
		if (umount2(t->mnt, 0) < 0) {
			fprintf(stderr, "mgbench: unmounting %s: %s; detaching it lazily\n", t->mnt, strerror(errno));
			umount2(t->mnt, MNT_DETACH);
		}
		t->mounted = false;
	}
	if (t->mnt)
		rmdir(t->mnt);
	if (t->image)
		unlink(t->image);
	free(t->label);
	free(t->mnt);
	free(t->image);
	free(t->loopdev);
	free(t->path);
	free(t->fstype);
	free(t->mkfs_cmd);
	free(t->name);
	free(t->upper_fstype);
	free(t->overlay_options);
	memset(t, 0, sizeof(*t));
}
