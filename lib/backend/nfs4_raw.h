/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Raw NFSv4 COMPOUNDs on a libnfs connection: the handle of a path, and GETATTR with the change
 * attribute.  Internal to lib/backend/ (nfs.c).
 */
#ifndef MGB_BACKEND_NFS4_RAW_H
#define MGB_BACKEND_NFS4_RAW_H

#include "backend.h"

#include <stdbool.h>
#include <sys/time.h> /* before libnfs.h, which uses struct timeval */

#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>
#include <nfsc/libnfs-raw-nfs4.h>

/* What one raw COMPOUND returned, decoded in its callback (the reply lives only there). */
struct nfs4_raw_result {
	int done;           /* 0 pending, 1 finished */
	int err;            /* -errno */
	nfsstat4 status;
	char *fh;           /* GETFH; the caller takes it and frees it */
	unsigned fh_len;
	struct mgb_stat st; /* GETATTR */
};

/* The connection a call goes out on, the caller's: its deadline, its broken flag (set when a
 * call fails or times out, and then no call is sent) and where the reply lands. */
struct nfs4_conn {
	struct nfs_context *nfs;
	int timeout_ms;
	bool *broken;
	struct nfs4_raw_result *res;
};

/* LOOKUP export_path/path from the root, ending with GETFH (last = OP_GETFH: the handle in
 * res->fh) or GETATTR (OP_GETATTR: res->st).  0 or -errno. */
int nfs4_raw_lookup(struct nfs4_conn *c, const char *export_path, const char *path, nfs_opnum4 last);
/* GETATTR of a file handle, change attribute included: 0 with *st, or -errno. */
int nfs4_raw_getattr(struct nfs4_conn *c, const char *fh, unsigned fh_len, struct mgb_stat *st);

#endif
