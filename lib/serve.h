/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A cell's target as its backend reaches it (lib/target/serve.c): the target's own path for a
 * local backend; for a remote one, an export of the target by a server started for the cell
 * (the embedded nfs-ganesha), or a server someone else runs (--nfs-url, no local target).  The
 * runner asks here, and knows nothing of the protocol.
 */
#ifndef MGB_SERVE_H
#define MGB_SERVE_H

#include "target.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

/* How a backend reaches its target: struct mgb_backend_ops.reach. */
enum mgb_reach {
	MGB_REACH_LOCAL, /* system calls on the target's path */
	MGB_REACH_NFS3,  /* an nfs:// URL, NFSv3 */
	MGB_REACH_NFS4,  /* an nfs:// URL, NFSv4 */
};

struct mgb_served {
	struct mgb_target target;   /* zeroed when a server someone else runs is the target */
	enum mgb_reach reach;
	const char *url;            /* that server's URL, or NULL */
	const char *root;           /* what the backend's init opens: the target's path, or a URL */
	struct mgb_nfs_server nfs;  /* the nfs-ganesha started for the cell, if any */
	bool knfsd;                 /* the kernel's nfsd serves the cell instead (--nfs-server knfsd) */
	struct mgb_knfsd kn;        /* and what was started for it */
	bool kernel_client;         /* the kernel's NFS client mounts the export (nfs3-mount, nfs4-mount) */
	struct mgb_nfs_mount mnt;   /* that mount: root is its path */
	bool unsupported;           /* a failure that is the filesystem's, not the run's (ramfs) */
};

/* How the cell's backend reaches its target: the backend's answer (mgb_backend_serve_how). */
struct mgb_serve_how {
	enum mgb_reach reach;
	const char *url;     /* a server someone else runs (--nfs-url), or NULL */
	bool knfsd;          /* --nfs-server knfsd */
	bool kernel_client;  /* mount the export with the kernel's client */
	unsigned timeout_s;  /* --nfs-timeout, for that mount */
};

/*
 * Make the cell's target (a scratch fs, a --dir subdirectory, or none for url) and serve it as
 * how says; 0, or -1 with err (and sv->unsupported where it applies).  Always pair with
 * mgb_serve_down, which undoes whatever was done.
 */
int mgb_serve_up(struct mgb_session *s, const struct mgb_fs_type *fs, const char *dir,
		 const struct mgb_serve_how *how, struct mgb_served *sv, char *err);
void mgb_serve_down(struct mgb_served *sv);

/*
 * A crash of the cell's target, for the crash workload: a loop-mounted scratch filesystem reached
 * locally, or exported by the kernel's nfsd in a guest.  mgb_served_crash shuts the filesystem
 * down (0 or -errno); once the backend's files are closed and the backend itself is,
 * mgb_served_recover brings it back: nfsd lets go of it (its threads stop), it is mounted again
 * (its log replayed) and nfsd serves it again under the same export.  The backend may then open
 * sv->root again.
 */
bool mgb_served_can_crash(const struct mgb_served *sv);
int mgb_served_crash(struct mgb_served *sv, bool flush_log);
int mgb_served_recover(struct mgb_served *sv, char *err);

/* cell.server: what served a remote cell; NULL for a local one. */
json_t *mgb_served_server_json(const struct mgb_served *sv);
/* What the multigrain evidence, probed on the target's path, is about. */
const char *mgb_served_evidence_about(const struct mgb_served *sv);
/* After a failed workload: why, if the server the cell started has died ("the NFS server
 * exited", "rpc.mountd exited"), else NULL. */
const char *mgb_served_death(const struct mgb_served *sv);
/* The directory the backend's files are in, as this host sees it: the target's path, or the
 * export of a server started for the cell; NULL for a server someone else runs (--nfs-url). */
const char *mgb_served_local_dir(const struct mgb_served *sv);
/* From the server's launch until it answered; 0 when none was started. */
int64_t mgb_served_start_ns(const struct mgb_served *sv);

#endif
