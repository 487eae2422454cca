/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's own NFS server for one target, inside a guest that `mgbench vm` booted (its
 * initramfs carries nfs-kernel-server's rpc.nfsd, exportfs and rpc.mountd, rpcbind and their
 * libraries, and marks itself with /etc/mgbench-guest).  Never on a host: nfsd's exports and
 * threads belong to the machine, and reconfiguring them would disturb its own NFS service.
 *
 * Start: mount the nfsd filesystem on /proc/fs/nfsd, fresh tmpfs over /var/lib/nfs (etab,
 * rmtab, nfsdcld's database, rpc_pipefs) and /run (rpcbind's socket and lock), rpcbind,
 * exportfs of a new directory in the target to 127.0.0.1, rpc.mountd on a fixed port, nfsdcld
 * (the v4 client tracker), rpc.nfsd with v3 and v4.0, then no v4 grace period (v4_end_grace)
 * rather than one waited out.  Stop: rpc.nfsd 0 (no threads), exportfs -ua, the daemons
 * stopped, the mounts undone.  Everything happens in
 * the run's private mount namespace, inside a guest that ends with the run.
 */
#include "config.h"
#include "target.h"
#include "proc.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#define NFSD_DIR "/proc/fs/nfsd"
#define STATE_DIR "/var/lib/nfs"
#define PIPEFS_DIR STATE_DIR "/rpc_pipefs"
#define MOUNTD_PORT 20048
#define NFS_PORT 2049
#define NFS_PROGRAM 100003
#define MOUNT_PROGRAM 100005
#define RPCBIND_PROGRAM 100000
#define READY_TIMEOUT_NS (10 * MGB_NSEC_PER_SEC)
#define STOP_TIMEOUT_NS (2 * MGB_NSEC_PER_SEC)
#define GUEST_MARK "/etc/mgbench-guest"
#ifndef STATX_ATTR_CHANGE_MONOTONIC
#define STATX_ATTR_CHANGE_MONOTONIC 0x02000000
#endif

static const char *const prog_nfsd = "/usr/sbin/rpc.nfsd", *const prog_exportfs = "/usr/sbin/exportfs",
		  *const prog_mountd = "/usr/sbin/rpc.mountd", *const prog_rpcbind = "/usr/sbin/rpcbind",
		  *const prog_cld = "/usr/sbin/nfsdcld";

/* The first line of a file, trimmed (malloc'd), or NULL. */
static char *read_line(const char *path)
{
	char buf[512];
	FILE *f = fopen(path, "re");
	char *r = NULL;

	if (!f)
		return NULL;
	if (fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, "\n")] = '\0';
		r = strdup(buf);
	}
	fclose(f);
	return r;
}

static int write_text(const char *path, const char *text, char *err)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return mgb_err(err, "open %s: %s", path, strerror(errno));
	n = write(fd, text, strlen(text));
	if (n != (ssize_t)strlen(text)) {
		int e = n < 0 ? errno : EIO;

		close(fd);
		return mgb_err(err, "write '%s' to %s: %s", text, path, strerror(e));
	}
	return close(fd) ? mgb_err(err, "write %s: %s", path, strerror(errno)) : 0;
}

/* Run a helper to its end; 0, or -1 with err naming it and its output's first line. */
static int run(const char *const argv[], char *err)
{
	char *out = NULL, e[MGB_ERR_LEN];
	int st = mgb_capture(argv, NULL, &out, e);

	if (st < 0)
		return mgb_err(err, "%s: %s", argv[0], e);
	if (st > 0) {
		if (out)
			out[strcspn(out, "\n")] = '\0';
		mgb_err(err, "%s %s failed (status %d): %s", argv[0], argv[1] ? argv[1] : "", st,
			out && out[0] ? out : "(no output)");
	}
	free(out);
	return st ? -1 : 0;
}

/* A daemon as our child, its output appended to log; 0 or -1 with err. */
static int spawn(const char *const argv[], const char *log, pid_t *pid, char *err)
{
	int fd = log ? open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600) : -1;
	struct mgb_proc_spec spec = { .argv = argv, .out = fd >= 0 ? MGB_PROC_FD : MGB_PROC_NULL, .out_fd = fd,
				      .err = MGB_PROC_WITH_OUT, .death_signal = SIGTERM };
	struct mgb_proc child;
	int r = mgb_proc_start(&spec, &child, err);

	if (fd >= 0)
		close(fd);
	if (r < 0)
		return -1;
	*pid = child.pid;
	return 0;
}

/* The last line of a daemon's log, appended to err when it says something. */
static void add_log_tail(const char *log, char *err)
{
	char line[200], last[200] = "";
	FILE *f = log ? fopen(log, "re") : NULL;
	size_t n = strlen(err);

	while (f && fgets(line, sizeof(line), f))
		if (line[0] != '\n')
			snprintf(last, sizeof(last), "%s", line);
	if (f)
		fclose(f);
	last[strcspn(last, "\n")] = '\0';
	if (last[0] && n + 4 < MGB_ERR_LEN)
		snprintf(err + n, MGB_ERR_LEN - n, " (%s)", last);
}

/* The loopback up: the server and its client meet on 127.0.0.1 (a guest's init may not have
 * raised it). */
static int loopback_up(char *err)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), r = 0;

	if (fd < 0)
		return mgb_err(err, "socket: %s", strerror(errno));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		r = mgb_err(err, "the loopback interface: %s", strerror(errno));
	else if (!(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
		if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
			r = mgb_err(err, "bring the loopback up: %s", strerror(errno));
	}
	close(fd);
	return r;
}

static bool child_alive(pid_t pid)
{
	siginfo_t si = { 0 };

	return pid > 0 && waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == 0;
}

/* Wait until prog/vers answers on port while pid (if any) lives; 0, or -1 with err. */
static int wait_service(const char *what, pid_t pid, unsigned port, int prog, int vers, char *err)
{
	int64_t deadline = mgb_clock_ns(CLOCK_MONOTONIC) + READY_TIMEOUT_NS;

	while (mgb_clock_ns(CLOCK_MONOTONIC) < deadline) {
		if (pid && !child_alive(pid))
			return mgb_err(err, "%s exited while starting", what);
		if (mgb_rpc_answers(port, prog, vers))
			return 0;
		usleep(10000);
	}
	return mgb_err(err, "%s did not answer on 127.0.0.1:%u within %lld s", what, port,
		       (long long)(READY_TIMEOUT_NS / MGB_NSEC_PER_SEC));
}

static int mount_tmpfs(const char *dir, bool *mounted, char *err)
{
	char e[MGB_ERR_LEN];

	if (mgb_mkdirs(dir, e))
		return mgb_err(err, "%s", e);
	if (mount("mgbench-knfsd", dir, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") < 0)
		return mgb_err(err, "mount tmpfs on %s: %s", dir, strerror(errno));
	*mounted = true;
	return 0;
}

/*
 * What nfsd4_change_attribute() builds the v4 change attribute from, for a file on this
 * filesystem under this kernel, decided from the kernel's version and whether the superblock
 * has SB_I_VERSION (which userspace cannot read: it follows from the fs type and version, as
 * mainline sets it), and the STATX_ATTR_CHANGE_MONOTONIC a statx of the export reports.
 *   before 6.3: SB_I_VERSION: ctime (sec << 30 + nsec) + i_version; else ctime.
 *   6.3 on:     the fs reports STATX_CHANGE_COOKIE: i_version, plus the ctime for a regular
 *               file unless the fs reports CHANGE_MONOTONIC; else ctime.
 * Without i_version the change is time_to_chattr(ctime), (sec << 32) + nsec.  xfs stopped
 * reporting the cookie in 6.13, when it took multigrain timestamps ("stop setting
 * STATX_CHANGE_COOKIE in getattr, since the ctime should give us better semantics now").
 */
static void decide_change(struct mgb_knfsd *k, const char *fstype, const char *dir)
{
	unsigned maj = 0, min = 0;
	bool iv = false, mono = false, after63;
	const char *why;
	struct statx stx;

	sscanf(k->release ? k->release : "", "%u.%u", &maj, &min);
	after63 = maj > 6 || (maj == 6 && min >= 3);
	if (!fstype)
		why = "unknown filesystem type: assumed without SB_I_VERSION";
	else if (!strcmp(fstype, "ext4")) {
		iv = maj > 6 || (maj == 6 && min >= 2);
		why = iv ? "ext4 sets SB_I_VERSION unconditionally since 6.2"
			 : "ext4 before 6.2 sets SB_I_VERSION only with -o i_version (not used)";
	} else if (!strcmp(fstype, "xfs")) {
		iv = !(maj > 6 || (maj == 6 && min >= 13));
		why = iv ? "xfs sets SB_I_VERSION on v5 (crc) superblocks, mkfs.xfs's default, and reports the "
			   "change cookie before 6.13"
			 : "xfs reports no change cookie since 6.13 (multigrain ctime instead)";
	} else if (!strcmp(fstype, "btrfs")) {
		iv = true;
		why = "btrfs always sets SB_I_VERSION";
	} else if (!strcmp(fstype, "tmpfs")) {
		iv = maj > 6 || (maj == 6 && min >= 6);
		why = iv ? "tmpfs sets SB_I_VERSION since 6.6" : "tmpfs has no i_version before 6.6";
	} else
		why = "a filesystem mgbench has no rule for: assumed without SB_I_VERSION";
	/* nfsd looks at CHANGE_MONOTONIC for regular files: ask about one */
	{
		char *probe = NULL;
		int fd = asprintf(&probe, "%s/.mgbench-statx-probe", dir) < 0 ? -1
			 : open(probe, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600);

		if (fd >= 0) {
			if (statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &stx) == 0)
				mono = stx.stx_attributes_mask & stx.stx_attributes & STATX_ATTR_CHANGE_MONOTONIC;
			close(fd);
			unlink(probe);
		}
		free(probe);
	}
	k->change_source = iv ? "i_version" : "ctime";
	if (asprintf(&k->change_reason,
		     "kernel %u.%u, %s: %s; nfsd4_change_attribute %s; statx CHANGE_MONOTONIC on a file %s", maj, min,
		     fstype ? fstype : "?", why,
		     !iv ? "uses time_to_chattr(ctime) ((sec << 32) + nsec)"
		     : !after63 ? "(before 6.3) adds i_version to the ctime (sec << 30 + nsec)"
		     : mono ? "(6.3 on) uses the change cookie (i_version) alone"
			    : "(6.3 on) uses the change cookie (i_version), plus the ctime for a regular file",
		     mono ? "set" : "not set") < 0)
		k->change_reason = NULL;
}

static int export_dir(const char *target, struct mgb_knfsd *k, unsigned fsid, char *err)
{
	char client[4200];

	if (asprintf(&k->export_dir, "%s/nfs-export", target) < 0) {
		k->export_dir = NULL;
		return mgb_err(err, "out of memory");
	}
	if (mkdir(k->export_dir, 0700) < 0 && errno != EEXIST)
		return mgb_err(err, "mkdir %s: %s", k->export_dir, strerror(errno));
	/* secure (a reserved source port, which libnfs binds as root): only root's client gets in,
	 * as with the embedded ganesha.  fsid: tmpfs has no UUID for nfsd to name it by. */
	if (asprintf(&k->export_options, "rw,sync,no_root_squash,no_subtree_check,secure,fsid=%u", fsid) < 0) {
		k->export_options = NULL;
		return mgb_err(err, "out of memory");
	}
	snprintf(client, sizeof(client), "127.0.0.1:%s", k->export_dir);
	{
		const char *argv[] = { prog_exportfs, "-o", k->export_options, client, NULL };

		if (run(argv, err))
			return -1;
	}
	k->exported = true;
	return 0;
}

/*
 * No client has state to reclaim: no grace period.  With nfsdcld and no records, nfsd skips
 * grace by itself, and newer kernels then refuse v4_end_grace (EBUSY: already ended); older
 * ones end it on the write.  Either way the file reads Y after.
 */
static int end_grace(struct mgb_knfsd *k, char *err)
{
	int64_t deadline = mgb_clock_ns(CLOCK_MONOTONIC) + 3 * MGB_NSEC_PER_SEC;
	char e[MGB_ERR_LEN];
	bool wrote = write_text(NFSD_DIR "/v4_end_grace", "Y", e) == 0;

	for (;;) {
		char *v = read_line(NFSD_DIR "/v4_end_grace");
		bool ended = v && v[0] == 'Y';

		free(v);
		if (ended) {
			k->grace = wrote ? "ended by v4_end_grace" : "none (no client records to reclaim)";
			return 0;
		}
		if (mgb_clock_ns(CLOCK_MONOTONIC) > deadline)
			return mgb_err(err, "the NFSv4 grace period did not end (%s; is nfsdcld running?)",
				       wrote ? "v4_end_grace written" : e);
		usleep(20000);
	}
}

/* nfsd's threads, v3 and v4.0 (what libnfs speaks), no UDP, four of them; then no grace period,
 * and the NFS service answering. */
static int start_threads(struct mgb_knfsd *k, char *err)
{
	const char *nfsd[] = { prog_nfsd, "--no-udp", "-V", "3", "-V", "4", "-V", "4.0", "4", NULL };

	k->threads_started = true;
	{
		char *out = NULL, e[MGB_ERR_LEN], *t;
		int st = mgb_capture(nfsd, NULL, &out, e);

		if (out)
			for (char *c = out; *c; c++)
				if (*c == '\n')
					*c = ' ';
		t = read_line(NFSD_DIR "/threads");
		if (st != 0 || !t || atoi(t) <= 0) {
			mgb_err(err, "rpc.nfsd started no threads (status %d, threads %s): %s", st, t ? t : "?",
				st < 0 ? e : out && out[0] ? out : "(no output)");
			free(out);
			free(t);
			return -1;
		}
		free(out);
		free(t);
	}
	if (end_grace(k, err))
		return -1;
	return wait_service("nfsd", 0, NFS_PORT, NFS_PROGRAM, k->nfs_version, err);
}

static int start_daemons(struct mgb_knfsd *k, char *err)
{
	char rlog[] = STATE_DIR "/rpcbind.log", mlog[] = STATE_DIR "/mountd.log", clog[] = STATE_DIR "/nfsdcld.log";
	const char *cld[] = { prog_cld, "-F", "-p", PIPEFS_DIR, "-s", STATE_DIR "/nfsdcld", NULL };
	char port[16];
	const char *rpcbind[] = { prog_rpcbind, "-f", "-d", NULL };
	const char *mountd[] = { prog_mountd, "-F", "-d", "general", "-p", port, "-N", "2", NULL };

	snprintf(port, sizeof(port), "%u", MOUNTD_PORT);
	if (loopback_up(err) || spawn(rpcbind, rlog, &k->rpcbind_pid, err))
		return -1;
	if (wait_service("rpcbind", k->rpcbind_pid, 111, RPCBIND_PROGRAM, 2, err)) {
		add_log_tail(rlog, err);
		return -1;
	}
	if (spawn(mountd, mlog, &k->mountd_pid, err))
		return -1;
	if (wait_service("rpc.mountd", k->mountd_pid, MOUNTD_PORT, MOUNT_PROGRAM, 3, err)) {
		add_log_tail(mlog, err);
		return -1;
	}
	/* The v4 client tracker: with it and no client records, nfsd starts without a grace
	 * period; without it (and CONFIG_NFSD_LEGACY_CLIENT_TRACKING off, as in Debian's 7.x), nfsd
	 * has no tracking, a 90 s grace period and refuses to end it early. */
	if (mount("rpc_pipefs", PIPEFS_DIR, "rpc_pipefs", 0, NULL) < 0 && errno != EBUSY)
		return mgb_err(err, "mount rpc_pipefs on %s: %s", PIPEFS_DIR, strerror(errno));
	k->pipefs_mounted = true;
	if (spawn(cld, clog, &k->cld_pid, err))
		return -1;
	return start_threads(k, err);
}

/* Test knob (mgbench vm --test-knfsd-stop): a server that dies under the cell, right after its
 * start: rpc.mountd killed, or nfsd's threads stopped. */
static void test_stop(struct mgb_knfsd *k)
{
	char *what = read_line("/etc/mgbench-test-knfsd-stop"), err[MGB_ERR_LEN];

	if (what && !strcmp(what, "mountd") && k->mountd_pid > 0) {
		siginfo_t si;

		kill(k->mountd_pid, SIGKILL);
		waitid(P_PID, (id_t)k->mountd_pid, &si, WEXITED | WNOWAIT); /* dead, still ours to reap */
	}
	else if (what && !strcmp(what, "nfsd")) {
		const char *argv[] = { prog_nfsd, "0", NULL };

		if (run(argv, err))
			fprintf(stderr, "mgbench: %s\n", err);
	}
	free(what);
}

int mgb_knfsd_start(struct mgb_session *s, const char *export_path, const char *fstype, int nfs_version,
		    struct mgb_knfsd *k, char *err)
{
	const char *const progs[] = { prog_nfsd, prog_exportfs, prog_mountd, prog_rpcbind, prog_cld };
	struct utsname u = { .release = "?" };
	int64_t t0;
	int r;

	memset(k, 0, sizeof(*k));
	k->nfs_version = nfs_version;
	if (uname(&u) == 0)
		k->release = strdup(u.release);
	if (!mgb_kernel_has_fs("nfsd"))
		return mgb_err(err, "kernel %s has no nfsd (no nfsd in /proc/filesystems: CONFIG_NFSD is off "
			       "or its module did not load)", u.release), -EOPNOTSUPP;
	if (access(GUEST_MARK, F_OK) < 0)
		return mgb_err(err, "--nfs-server knfsd runs only inside a guest of `mgbench vm` (it would "
			       "reconfigure this machine's own NFS server): mgbench vm --kernel debian:unstable -- "
			       "run ..."), -EOPNOTSUPP;
	if (fstype && !strcmp(fstype, "ramfs"))
		return mgb_err(err, "nfsd cannot export ramfs (no file handles)"), -EOPNOTSUPP;
	for (size_t i = 0; i < MGB_ARRAY_SIZE(progs); i++)
		if (access(progs[i], X_OK) < 0)
			return mgb_err(err, "%s is missing from the guest: install nfs-kernel-server and rpcbind "
				       "on the host (run ./bootstrap)", progs[i]);
	t0 = mgb_clock_ns(CLOCK_MONOTONIC);
	if (access(NFSD_DIR "/threads", F_OK) == 0) {
		char *t = read_line(NFSD_DIR "/threads");
		bool busy = t && atoi(t) > 0;

		free(t);
		if (busy)
			return mgb_err(err, "nfsd already runs here (%s/threads is not 0): not ours to reconfigure",
				       NFSD_DIR);
	} else {
		if (mount("nfsd", NFSD_DIR, "nfsd", 0, NULL) < 0)
			return mgb_err(err, "mount nfsd on %s: %s", NFSD_DIR, strerror(errno));
		k->nfsd_mounted = true;
	}
	r = mount_tmpfs(STATE_DIR, &k->state_mounted, err);
	if (!r)
		r = mgb_mkdirs(PIPEFS_DIR, err);
	if (!r)
		r = mgb_mkdirs(STATE_DIR "/nfsdcld", err);
	/* the legacy tracker's directory: where nfsdcld is not (yet) heard from, a kernel with
	 * CONFIG_NFSD_LEGACY_CLIENT_TRACKING (Debian's 6.12) tracks clients there, and then lets
	 * v4_end_grace end its grace period */
	if (!r)
		r = mgb_mkdirs(STATE_DIR "/v4recovery", err);
	if (!r)
		r = mount_tmpfs("/run", &k->run_mounted, err);
	if (!r) {
		FILE *f = fopen(STATE_DIR "/etab", "we");

		if (f)
			fclose(f);
		f = fopen(STATE_DIR "/rmtab", "we");
		if (f)
			fclose(f);
		s->serial++;
		r = export_dir(export_path, k, s->serial, err);
	}
	if (!r)
		r = start_daemons(k, err);
	if (!r) {
		k->versions = read_line(NFSD_DIR "/versions");
		k->utils_version = read_line("/etc/mgbench-nfs-utils"); /* written by lib/vm/initramfs.c */
		decide_change(k, fstype, k->export_dir);
		if (nfs_version == 3)
			r = asprintf(&k->url, "nfs://127.0.0.1%s?version=3&nfsport=%u&mountport=%u", k->export_dir,
				     NFS_PORT, MOUNTD_PORT);
		else
			r = asprintf(&k->url, "nfs://127.0.0.1%s?version=4&nfsport=%u", k->export_dir, NFS_PORT);
		if (r < 0) {
			k->url = NULL;
			r = mgb_err(err, "out of memory");
		} else
			r = 0;
	}
	if (r) {
		mgb_knfsd_stop(k);
		return -1;
	}
	k->start_ns = mgb_clock_ns(CLOCK_MONOTONIC) - t0;
	test_stop(k);
	return 0;
}

/*
 * After the exported filesystem was shut down: nfsd lets go of it, so that it can be unmounted.
 * Its threads stop (rpc.nfsd 0): nfsd_shutdown_net purges the export caches, whose entries hold
 * the mount, frees every NFSv4 client's state and closes the files it held.  Less is not enough
 * (seen on 6.12): after exportfs -u, a flush of the caches and unlock_filesystem (which revoked
 * the client's open) the entries were still there, the v4 pseudo-root's over the mount point
 * among them, and the unmount stayed busy.  So this is a server restart, as after a crash; the
 * export stays in etab with its fsid, so a file handle names the same file once it serves again.
 */
int mgb_knfsd_let_go(struct mgb_knfsd *k, char *err)
{
	const char *argv[] = { prog_nfsd, "0", NULL };

	if (run(argv, err))
		return -1;
	k->threads_started = false;
	return 0;
}

/* Once the filesystem is mounted again: nfsd's threads again, and their grace period ended (the
 * clients it knew had state: nfsdcld's records would hold it 90 s). */
int mgb_knfsd_serve_again(struct mgb_knfsd *k, char *err)
{
	return start_threads(k, err);
}

static const char *death_now(const struct mgb_knfsd *k)
{
	char *t;
	bool none;

	if (!child_alive(k->mountd_pid))
		return "rpc.mountd exited";
	if (!child_alive(k->rpcbind_pid))
		return "rpcbind exited";
	if (!child_alive(k->cld_pid))
		return "nfsdcld exited";
	t = read_line(NFSD_DIR "/threads");
	none = !t || atoi(t) <= 0;
	free(t);
	return none ? "the kernel's nfsd has no threads (stopped)" : NULL;
}

const char *mgb_knfsd_death(const struct mgb_knfsd *k)
{
	const char *why = NULL;

	/* A killed daemon's sockets close before it is seen dead: a refused call can come first. */
	for (int i = 0; k->threads_started && !why && i < 20; i++) {
		why = death_now(k);
		if (!why)
			usleep(10000);
	}
	return why;
}

static void stop_child(pid_t *pid)
{
	if (*pid > 0)
		mgb_proc_stop(*pid, NULL, STOP_TIMEOUT_NS, false);
	*pid = 0;
}

void mgb_knfsd_stop(struct mgb_knfsd *k)
{
	char err[MGB_ERR_LEN];

	if (k->threads_started) {
		const char *argv[] = { prog_nfsd, "0", NULL };

		if (run(argv, err))
			fprintf(stderr, "mgbench: %s\n", err);
	}
	if (k->exported) {
		const char *argv[] = { prog_exportfs, "-ua", NULL };

		if (run(argv, err))
			fprintf(stderr, "mgbench: %s\n", err);
	}
	stop_child(&k->mountd_pid);
	stop_child(&k->cld_pid);
	stop_child(&k->rpcbind_pid);
	if (k->pipefs_mounted)
		umount2(PIPEFS_DIR, MNT_DETACH);
	if (k->run_mounted)
		umount2("/run", MNT_DETACH);
	if (k->state_mounted)
		umount2(STATE_DIR, MNT_DETACH);
	if (k->nfsd_mounted)
		umount2(NFSD_DIR, MNT_DETACH);
	free(k->export_dir);
	free(k->export_options);
	free(k->url);
	free(k->release);
	free(k->versions);
	free(k->utils_version);
	free(k->change_reason);
	memset(k, 0, sizeof(*k));
}
