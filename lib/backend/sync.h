/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sync backend's operations (sync.c), for the backends that make the same system calls
 * somewhere else: nfs_mount.c's, on an export the kernel's NFS client mounted.
 */
#ifndef MGB_BACKEND_SYNC_H
#define MGB_BACKEND_SYNC_H

#include "backend.h"

int mgb_sync_init(struct mgb_backend *be, const char *root, char *err);
void mgb_sync_fini(struct mgb_backend *be);
int mgb_sync_open(struct mgb_backend *be, const char *path, int flags, mode_t mode, struct mgb_file *f);
int mgb_sync_close(struct mgb_backend *be, struct mgb_file *f);
ssize_t mgb_sync_pwrite(struct mgb_backend *be, struct mgb_file *f, const void *buf, size_t len, off_t off);
ssize_t mgb_sync_pread(struct mgb_backend *be, struct mgb_file *f, void *buf, size_t len, off_t off);
int mgb_sync_fstat(struct mgb_backend *be, struct mgb_file *f, unsigned want, struct mgb_stat *st);
ssize_t mgb_sync_pwrite_fstat(struct mgb_backend *be, struct mgb_file *f, const void *buf, size_t len, off_t off,
			      unsigned want, struct mgb_stat *st);
int mgb_sync_stat(struct mgb_backend *be, const char *path, unsigned want, struct mgb_stat *st);
int mgb_sync_fsync(struct mgb_backend *be, struct mgb_file *f);
int mgb_sync_ftruncate(struct mgb_backend *be, struct mgb_file *f, off_t len);
int mgb_sync_fchmod(struct mgb_backend *be, struct mgb_file *f, mode_t mode);
int mgb_sync_fsetxattr(struct mgb_backend *be, struct mgb_file *f, const char *name, const void *val, size_t len);
int mgb_sync_futimens_now(struct mgb_backend *be, struct mgb_file *f);
int mgb_sync_fallocate(struct mgb_backend *be, struct mgb_file *f, off_t off, off_t len);
int mgb_sync_rename(struct mgb_backend *be, const char *from, const char *to);
int mgb_sync_link(struct mgb_backend *be, const char *from, const char *to);
int mgb_sync_unlink(struct mgb_backend *be, const char *path);
int mgb_sync_mkdir(struct mgb_backend *be, const char *path, mode_t mode);
int mgb_sync_rmdir(struct mgb_backend *be, const char *path);

#define MGB_SYNC_OPS                              \
	.init = mgb_sync_init,                    \
	.fini = mgb_sync_fini,                    \
	.open = mgb_sync_open,                    \
	.close = mgb_sync_close,                  \
	.pwrite = mgb_sync_pwrite,                \
	.pread = mgb_sync_pread,                  \
	.fstat = mgb_sync_fstat,                  \
	.pwrite_fstat = mgb_sync_pwrite_fstat,    \
	.stat = mgb_sync_stat,                    \
	.fsync = mgb_sync_fsync,                  \
	.ftruncate = mgb_sync_ftruncate,          \
	.fchmod = mgb_sync_fchmod,                \
	.fsetxattr = mgb_sync_fsetxattr,          \
	.futimens_now = mgb_sync_futimens_now,    \
	.fallocate = mgb_sync_fallocate,          \
	.rename = mgb_sync_rename,                \
	.link = mgb_sync_link,                    \
	.unlink = mgb_sync_unlink,                \
	.mkdir = mgb_sync_mkdir,                  \
	.rmdir = mgb_sync_rmdir

#endif
