/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The options of every backend that reaches its target over NFS: nfs.c's (libnfs) and
 * nfs_mount.c's (the kernel's client).  One struct, so the runner's questions about the server
 * (mgb_backend_serve_how) read any of them.
 */
#ifndef MGB_BACKEND_NFS_PARAMS_H
#define MGB_BACKEND_NFS_PARAMS_H

#include "options.h"

#include <stdint.h>

struct mgb_nfs_params {
	const char *url;    /* --nfs-url, libnfs backends only */
	uint64_t timeout_s; /* --nfs-timeout */
	unsigned server;    /* --nfs-server: index in mgb_nfs_servers */
};

/* Their options, one table: --help shows it once for all four. */
extern const struct mgb_option mgb_nfs_options[];
/* --nfs-server's choices, in index order: 0 the embedded nfs-ganesha, 1 the kernel's nfsd. */
extern const char *const mgb_nfs_servers[];
#define MGB_NFS_SERVER_KNFSD 1

#endif
