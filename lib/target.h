/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Targets: where a workload's files live.
 *
 * A session owns everything a run creates.  It moves the process into a private mount namespace
 * (so the kernel removes every mount, and with it every autoclear loop device, when the run exits,
 * however it exits) and mounts a fresh tmpfs, inside it only, on a new directory of its own under
 * $TMPDIR (mgbench-scratch.PID.NS.XXXXXX) to hold image files and mount points: nothing else under
 * $TMPDIR is hidden, and a SIGKILL leaves at most that empty directory, which the next run removes.
 * A target is one filesystem inside the session: a loop-mounted ext4/xfs/btrfs
 * image, a tmpfs or ramfs, or a subdirectory of an existing directory (--dir).
 */
#ifndef MGB_TARGET_H
#define MGB_TARGET_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct mgb_fs_type {
	const char *name;
	bool loop;                  /* needs an image file and a loop device */
	unsigned image_mib;         /* image size (sparse) */
	const char *const *mkfs;    /* mkfs argv prefix; the image path is appended */
	const char *mount_options;  /* data string passed to mount(2) */
	bool multigrain_expected;   /* FS_MGTIME in mainline 6.13+ */
	/* An overlay type: overlayfs whose lower, upper and work directories are on a fresh
	 * filesystem of this type (the row's loop and sizes are that type's); NULL otherwise. */
	const char *overlay_on;
};

/* What run and info make when --fs is not given: the four multigrain filesystems and the control. */
#define MGB_DEFAULT_FS "ext4,xfs,btrfs,tmpfs,ramfs"

extern const struct mgb_fs_type mgb_fs_types[];
extern const unsigned mgb_fs_type_count;
const struct mgb_fs_type *mgb_fs_type_find(const char *name);

struct mgb_session {
	bool private_ns;    /* running in our own mount namespace */
	char *tmpdir;       /* scratch directory under $TMPDIR, a tmpfs in our namespace only */
	bool tmpdir_mounted;
	unsigned serial;    /* names targets uniquely within the session */
};

/* Enter a private namespace and make the temp dir (needs root).  Without scratch, only the
 * namespace and the debugfs/tracefs mounts are attempted (for --dir runs, where they are optional). */
int mgb_session_begin(struct mgb_session *s, bool scratch, char *err);
void mgb_session_end(struct mgb_session *s);

/* What an overlay did with a file's stamps as it copied the file up (lib/target/overlay.c). */
struct mgb_copy_up {
	bool probed;        /* a file with known stamps was made in the lower layer */
	bool lower_shown;   /* before any change the overlay showed the lower file's stamps */
	bool copied_up;     /* a chmod through the overlay copied it to the upper layer */
	bool mtime_kept;    /* that copy kept the lower file's mtime */
	bool ctime_moved;   /* and gave it a new ctime */
	bool written;       /* then a write through the overlay */
	bool matches_upper; /* after each, the overlay's mtime and ctime are the upper inode's */
	bool nsec_ok;       /* every tv_nsec read, overlay's, upper's and lower's, below 1e9 */
};

struct mgb_target {
	const struct mgb_fs_type *fs; /* NULL for a --dir target */
	char *label;       /* "ext4", or "dir" */
	char *mnt;         /* mount point (scratch) */
	char *image;       /* image file (loop targets) */
	char *loopdev;     /* /dev/loopN while attached */
	char *path;        /* directory the workload uses */
	char *fstype;      /* the fs type actually found at path (from /proc/self/mountinfo) */
	char *mkfs_cmd;    /* the mkfs command line used, for the result document */
	/* the device of the superblock whose inodes are stamped, as tracepoints see it: the
	 * filesystem's own, or under an overlay its upper layer's */
	unsigned sb_dev_major, sb_dev_minor;
	/* an overlay (a scratch overlay-* target, or a --dir on one): its own device, its upper
	 * layer's filesystem type and the mount's options; NULL/0 otherwise */
	unsigned overlay_dev_major, overlay_dev_minor;
	char *upper_fstype;
	char *overlay_options;
	bool overlay_mounted;
	struct mgb_copy_up copy_up; /* a scratch overlay target's copy-up probe */
	bool mounted;
	bool made_path;    /* path was created by us (remove at teardown) */
	/* a --dir target: the directory it was made in and itself, held open (0 in a zeroed struct:
	 * only made_path says they are set) */
	int parentfd, dirfd;
	char *name;        /* its name in parentfd */
	dev_t dir_dev;
	ino_t dir_ino;
	bool untrusted;    /* another user can change a directory above it: path is /proc/PID/fd/N */
	double setup_s;
};

/* Make and mount a fresh filesystem of the given type inside the session. */
int mgb_target_scratch(struct mgb_session *s, const struct mgb_fs_type *fs, struct mgb_target *t, char *err);
/* Use a new subdirectory of an existing directory. */
int mgb_target_dir(const char *dir, struct mgb_target *t, char *err);
/* A loop-mounted scratch filesystem unmounted and mounted again (its log replayed): what a crash
 * workload needs after a shutdown.  Nothing may hold it open. */
int mgb_target_remount(struct mgb_target *t, char *err);
/* Shut a scratch filesystem down as fstests' godown does (FS_IOC_SHUTDOWN: the log written
 * first only with flush_log, the data never), its files left open and dead; 0 or -errno
 * (-ENOTTY: the filesystem has no such ioctl). */
int mgb_target_shutdown(struct mgb_target *t, bool flush_log);
/* Remove files, unmount, detach; safe to call on a half-made target and twice. */
void mgb_target_down(struct mgb_target *t);

/* On a scratch overlay target: copy a file with known stamps up, and compare stamps. */
void mgb_overlay_copy_up_probe(struct mgb_target *t);

/* Attach an image file to a free loop device with autoclear; returns the open loop fd. */
int mgb_loop_attach(const char *image, char **devname, char *err);

/*
 * The embedded NFS server (lib/target/ganesha.c): nfs-ganesha exporting export_path over
 * NFSv3 or NFSv4 on 127.0.0.1, started for one target and stopped with it.
 */
struct mgb_nfs_server {
	int nfs_version;       /* 3 or 4 */
	pid_t pid, rpcbind_pid; /* our children (rpcbind only when none answered), 0 when none */
	char *dir;             /* config, log, pid file, recovery dir: in the session's temp dir */
	char *export_dir;      /* what is exported: a new directory in the target's, both 0700 */
	char *log;
	unsigned nfs_port, mnt_port;
	char *url;             /* for libnfs: nfs://127.0.0.1/export?version=N&nfsport=... */
	char *version;         /* ganesha's, from its log ("4.3"), or NULL */
	int64_t start_ns;      /* from launch until the NULL procedure answered */
};

/* 0, -1 with err, or -EOPNOTSUPP with err when the filesystem cannot be exported at all (ramfs: no file
 * handles), which makes the cell "unsupported". */
int mgb_nfs_server_start(struct mgb_session *s, const char *export_path, int nfs_version,
			 struct mgb_nfs_server *srv, char *err);
bool mgb_nfs_server_alive(const struct mgb_nfs_server *srv);
/* Stop it (SIGTERM, then SIGKILL), and rpcbind if we started it; safe on a zeroed struct. */
void mgb_nfs_server_stop(struct mgb_nfs_server *srv);
/* Does a NULL call to prog/vers on 127.0.0.1:port (TCP) get an answer within a second? */
bool mgb_rpc_answers(unsigned port, int prog, int vers);

/*
 * The kernel's own NFS server (lib/target/knfsd.c), inside a guest booted by `mgbench vm`:
 * nfsd's filesystem mounted, rpcbind, exportfs, rpc.mountd and rpc.nfsd from Debian's
 * nfs-kernel-server exporting export_path to 127.0.0.1, the v4 grace period ended at once;
 * started for one target and stopped with it (no nfsd threads, no exports, no daemons left).
 */
struct mgb_knfsd {
	int nfs_version;        /* what the cell's client speaks: 3 or 4 */
	pid_t mountd_pid, rpcbind_pid, cld_pid; /* our children, 0 when none */
	bool nfsd_mounted, state_mounted, run_mounted, pipefs_mounted, exported, threads_started;
	const char *grace;      /* how the v4 grace period ended */
	char *export_dir;       /* what is exported: a new directory in the target's */
	char *export_options;   /* as given to exportfs -o */
	char *url;
	char *release;          /* uname -r: nfsd is the kernel's */
	char *versions;         /* /proc/fs/nfsd/versions after start ("+3 +4 +4.0 ...") */
	char *utils_version;    /* the nfs-kernel-server package the guest carries */
	const char *change_source;  /* "i_version" or "ctime": what nfsd4_change_attribute uses */
	char *change_reason;    /* how that was decided */
	int64_t start_ns;       /* from the nfsd mount until the NFS and MOUNT services answered */
};

/* Like mgb_nfs_server_start; -EOPNOTSUPP (an "unsupported" cell) outside a guest, on a kernel
 * without nfsd, or for a filesystem nfsd cannot export. */
int mgb_knfsd_start(struct mgb_session *s, const char *export_path, const char *fstype, int nfs_version,
		    struct mgb_knfsd *k, char *err);
/* NULL while it serves, else what stopped: "rpc.mountd exited", "nfsd has no threads". */
const char *mgb_knfsd_death(const struct mgb_knfsd *k);
/* Stop everything started (rpc.nfsd 0, exportfs -ua, mountd, rpcbind, unmounts); safe on a zeroed struct. */
void mgb_knfsd_stop(struct mgb_knfsd *k);
/* After a crash of the exported filesystem: nfsd's threads stopped, its NFSv4 state and export
 * caches gone, so that the filesystem can be unmounted.  0 or -1 with err. */
int mgb_knfsd_let_go(struct mgb_knfsd *k, char *err);
/* Once it is mounted again: the threads again (the same export, the same fsid), no grace
 * period.  0 or -1 with err. */
int mgb_knfsd_serve_again(struct mgb_knfsd *k, char *err);

/*
 * The kernel's own NFS client on a cell's server (lib/target/nfs_mount.c): its URL mounted with
 * actimeo=0 on a new directory of the session's scratch space, for the nfs3-mount and nfs4-mount
 * backends.
 */
struct mgb_nfs_mount {
	char *path;    /* the mount point */
	char *source;  /* "127.0.0.1:/export" */
	char *options; /* the mount(2) data string, as recorded in cell.server.client */
	bool made_dir, mounted;
};

/* 0 when this kernel has an NFS client; else -EOPNOTSUPP with err (an "unsupported" cell). */
int mgb_nfs_mount_check(char *err);
/* Mount the server at url (one of ours: nfs://127.0.0.1/PATH?nfsport=N[&mountport=M]); 0, -1 with
 * err, or -EOPNOTSUPP when the kernel has no NFS client.  Pair with mgb_nfs_unmount. */
int mgb_nfs_mount(struct mgb_session *s, const char *url, int nfs_version, unsigned timeout_s,
		  struct mgb_nfs_mount *m, char *err);
/* Unmount and remove the mount point; safe on a zeroed struct and twice. */
void mgb_nfs_unmount(struct mgb_nfs_mount *m);

#endif
