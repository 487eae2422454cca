/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel-client backends, nfs3-mount and nfs4-mount: the sync backend's system calls on the
 * cell's NFS export, which the target side mounted with the kernel's own NFS client
 * (lib/target/nfs_mount.c: actimeo=0, soft).  What a `make` or an `rsync` on an NFS mount sees,
 * where nfs3 and nfs4 (libnfs) see the wire: the client's page cache, its flush before a GETATTR,
 * and its own view of ctime.  The server and its options are the NFS backends' (--nfs-server,
 * --nfs-timeout); --nfs-url is not theirs: they mount only the server the cell started.
 */
#include "config.h"
#include "backend.h"
#include "nfs_params.h"
#include "sync.h"

const struct mgb_backend_ops mgb_backend_nfs3_mount = {
	.name = "nfs3-mount",
	.summary = "NFSv3 through the kernel's client: syscalls on a mount (actimeo=0)",
	.reach = MGB_REACH_NFS3,
	.kernel_client = true,
	.options = mgb_nfs_options,
	.params_size = sizeof(struct mgb_nfs_params),
	MGB_SYNC_OPS,
};

const struct mgb_backend_ops mgb_backend_nfs4_mount = {
	.name = "nfs4-mount",
	.summary = "NFSv4.0 through the kernel's client: syscalls on a mount (actimeo=0)",
	.reach = MGB_REACH_NFS4,
	.kernel_client = true,
	.options = mgb_nfs_options,
	.params_size = sizeof(struct mgb_nfs_params),
	MGB_SYNC_OPS,
};
