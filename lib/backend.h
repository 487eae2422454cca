/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Backends: how an operation reaches the kernel.  Like fio's ioengines, a backend is a table of
 * operations; a workload calls them and never a syscall directly, so the same workload runs
 * through plain syscalls, io_uring or NFS.  Paths are relative to the backend's root directory.
 * Every operation returns 0 (or a byte count) on success and -errno on failure.  An operation a
 * backend cannot express is NULL: a workload names what it needs (struct mgb_workload.needs_ops)
 * and the runner makes a cell whose backend lacks one "unsupported" before it makes the target.
 * Workloads call operations through the mgb_be_*() wrappers at the end of this file (fio's
 * td_io_*()), never through be->ops directly.
 */
#ifndef MGB_BACKEND_H
#define MGB_BACKEND_H

#include "serve.h"

#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

struct mgb_ts {
	int64_t sec;
	uint32_t nsec;
};

static inline int64_t mgb_ts_ns(struct mgb_ts t)
{
	return t.sec * 1000000000LL + t.nsec;
}

/* What a stat asks for and what it got back: statx's own bits, so the sync backend passes them
 * through untranslated, plus one of ours. */
enum {
	MGB_STAT_CTIME = STATX_CTIME,
	MGB_STAT_MTIME = STATX_MTIME,
	MGB_STAT_ATIME = STATX_ATIME,
	MGB_STAT_BTIME = STATX_BTIME,
	MGB_STAT_SIZE = STATX_SIZE,
	MGB_STAT_CHANGE = 1u << 30, /* NFSv4 change attribute; not a statx bit */
	MGB_STAT_STATX = MGB_STAT_CTIME | MGB_STAT_MTIME | MGB_STAT_ATIME | MGB_STAT_BTIME | MGB_STAT_SIZE,
	MGB_STAT_TIMES = MGB_STAT_CTIME | MGB_STAT_MTIME,
};

struct mgb_stat {
	unsigned mask; /* MGB_STAT_* that are valid */
	struct mgb_ts ctime, mtime, atime, btime;
	uint64_t size;
	uint64_t change;
	uint64_t ino;
	unsigned dev_major, dev_minor;
};

struct mgb_file {
	int fd;     /* sync and io_uring backends */
	void *priv; /* backend-private handle (e.g. struct nfsfh) */
};

struct mgb_backend;
struct mgb_option;

struct mgb_backend_ops {
	const char *name;
	const char *summary;
	/* Declared like a workload's options (lib/workload.h): run parses them into a params_size
	 * struct, --help and list show them, each cell records them as backend.options. */
	const struct mgb_option *options; /* terminated by a zero entry, or NULL */
	size_t params_size;
	/* How it reaches the target (see lib/serve.h): local, or a protocol whose server the target side
	 * starts for the cell (or someone else runs), init's root then being the server's URL. */
	enum mgb_reach reach;
	/* Over NFS through the kernel's own client (nfs3-mount, nfs4-mount): the target side mounts
	 * the server's export and init gets the mount point, not the URL. */
	bool kernel_client;
	int (*init)(struct mgb_backend *be, const char *root, char *err);
	void (*fini)(struct mgb_backend *be);

	int (*open)(struct mgb_backend *be, const char *path, int flags, mode_t mode, struct mgb_file *f);
	int (*close)(struct mgb_backend *be, struct mgb_file *f);
	ssize_t (*pwrite)(struct mgb_backend *be, struct mgb_file *f, const void *buf, size_t len, off_t off);
	ssize_t (*pread)(struct mgb_backend *be, struct mgb_file *f, void *buf, size_t len, off_t off);
	int (*fstat)(struct mgb_backend *be, struct mgb_file *f, unsigned want, struct mgb_stat *st);
	/* A change and its query as one operation: the round most workloads do.  A backend may do
	 * it in one step (io_uring links the two in one submission); returns like pwrite. */
	ssize_t (*pwrite_fstat)(struct mgb_backend *be, struct mgb_file *f, const void *buf, size_t len, off_t off,
				unsigned want, struct mgb_stat *st);
	int (*stat)(struct mgb_backend *be, const char *path, unsigned want, struct mgb_stat *st);
	int (*fsync)(struct mgb_backend *be, struct mgb_file *f);
	int (*ftruncate)(struct mgb_backend *be, struct mgb_file *f, off_t len);
	int (*fchmod)(struct mgb_backend *be, struct mgb_file *f, mode_t mode);
	int (*fsetxattr)(struct mgb_backend *be, struct mgb_file *f, const char *name, const void *val, size_t len);
	int (*futimens_now)(struct mgb_backend *be, struct mgb_file *f);
	int (*fallocate)(struct mgb_backend *be, struct mgb_file *f, off_t off, off_t len);
	int (*rename)(struct mgb_backend *be, const char *from, const char *to);
	int (*link)(struct mgb_backend *be, const char *from, const char *to);
	int (*unlink)(struct mgb_backend *be, const char *path);
	int (*mkdir)(struct mgb_backend *be, const char *path, mode_t mode);
	int (*rmdir)(struct mgb_backend *be, const char *path);

	/* count unqueried writes of the same buffer; a backend may keep several in flight
	 * (io_uring --depth).  Returns 0 or the first -errno (a short write is -EIO).  NULL: the
	 * workload loops over pwrite. */
	int (*pwrite_n)(struct mgb_backend *be, struct mgb_file *f, const void *buf, size_t len, off_t off,
			uint64_t count);
	/* count queries of one file, results in st[0..count-1] in completion order. */
	int (*fstat_n)(struct mgb_backend *be, struct mgb_file *f, unsigned want, struct mgb_stat *st, unsigned count);
	/* What the backend measured during the cell (io_uring: requests, punts), as a JSON object
	 * for cell.backend_metrics; NULL when it has nothing to say. */
	json_t *(*cell_metrics)(struct mgb_backend *be);
	/* Optional: the backend's event counts since it was opened, as a JSON object of integers
	 * (null where unknown), for a workload to subtract over a window of its own (cost's
	 * phases); io_uring: requests, punted, writes, writes_punted. */
	json_t *(*counts)(struct mgb_backend *be);
	/* After a failed cell: what the backend found it cannot do (io_uring: the opcode the kernel
	 * lacks), making the cell "unsupported"; NULL when nothing. */
	const char *(*unsupported)(struct mgb_backend *be);
};

struct mgb_backend {
	const struct mgb_backend_ops *ops;
	const void *params; /* the backend's options (ops->params_size bytes), or NULL: defaults */
	void *priv;
};

/* All backends built into this binary, NULL-terminated. */
extern const struct mgb_backend_ops *const mgb_backends[];

const struct mgb_backend_ops *mgb_backend_find(const char *name);
/* The first built-in backend's option of that name (backends may share an option). */
const struct mgb_option *mgb_backend_option_first(const char *name);
/* params may be NULL for the defaults; it must outlive the open backend. */
int mgb_backend_open(struct mgb_backend *be, const struct mgb_backend_ops *ops, const void *params,
		     const char *root, char *err);
void mgb_backend_close(struct mgb_backend *be);
/* After a write that stored only done of len bytes: the errno the rest gets (ENOSPC, EFBIG ...),
 * negative; -EIO if the rest is stored after all.  A short write is an error, never a round. */
int mgb_short_write_errno(struct mgb_backend *be, struct mgb_file *f, const void *buf, size_t len, off_t off,
			  size_t done);

/*
 * One bit per operation a workload may need (struct mgb_workload.needs_ops), named as the
 * member of struct mgb_backend_ops it stands for.  The optional operations a workload can do
 * without (pwrite_fstat, pwrite_n, fstat_n, counts) have bits too, for mgb_be_has().
 */
enum mgb_op {
	MGB_OP_OPEN = 1u << 0,
	MGB_OP_CLOSE = 1u << 1,
	MGB_OP_PWRITE = 1u << 2,
	MGB_OP_PREAD = 1u << 3,
	MGB_OP_FSTAT = 1u << 4,
	MGB_OP_PWRITE_FSTAT = 1u << 5,
	MGB_OP_STAT = 1u << 6,
	MGB_OP_FSYNC = 1u << 7,
	MGB_OP_FTRUNCATE = 1u << 8,
	MGB_OP_FCHMOD = 1u << 9,
	MGB_OP_FSETXATTR = 1u << 10,
	MGB_OP_FUTIMENS_NOW = 1u << 11,
	MGB_OP_FALLOCATE = 1u << 12,
	MGB_OP_RENAME = 1u << 13,
	MGB_OP_LINK = 1u << 14,
	MGB_OP_UNLINK = 1u << 15,
	MGB_OP_MKDIR = 1u << 16,
	MGB_OP_RMDIR = 1u << 17,
	MGB_OP_PWRITE_N = 1u << 18,
	MGB_OP_FSTAT_N = 1u << 19,
	MGB_OP_COUNTS = 1u << 20,
};

/* The operations of mask that ops lacks (NULL members); 0 when it has them all. */
unsigned mgb_backend_lacks(const struct mgb_backend_ops *ops, unsigned mask);
/* The member name of the lowest operation in mask ("fchmod"), for "backend 'X' cannot fchmod". */
const char *mgb_op_name(unsigned mask);
/* -1 with "backend 'X' cannot <op>" in err (the first op of needs that ops lacks), else 0. */
int mgb_backend_require(const struct mgb_backend_ops *ops, unsigned needs, char *err);

/* The backend as cell.backend: {"name": ..., "options": {...}}. */
json_t *mgb_backend_to_json(const struct mgb_backend_ops *ops, const void *params);
extern const struct mgb_backend_ops mgb_backend_sync;
#ifdef HAVE_LIBURING
extern const struct mgb_backend_ops mgb_backend_uring;
#endif
#ifdef HAVE_LIBNFS
extern const struct mgb_backend_ops mgb_backend_nfs3, mgb_backend_nfs4;
extern const struct mgb_backend_ops mgb_backend_nfs3_mount, mgb_backend_nfs4_mount;
#endif
/*
 * How the target side must serve a cell of this backend with these parameters (lib/serve.h):
 * the backend's reach, and for a remote one the server someone else runs (--nfs-url) or the one
 * to start for the cell (the kernel's nfsd with --nfs-server knfsd, else the embedded
 * nfs-ganesha), whether the kernel's client mounts it, and its --nfs-timeout.
 */
struct mgb_serve_how mgb_backend_serve_how(const struct mgb_backend_ops *ops, const void *params);

/* Whether ops has the one operation op: a constant op folds to one NULL test, cheap in a loop. */
static inline bool mgb_ops_have(const struct mgb_backend_ops *ops, unsigned op)
{
	switch (op) {
	case MGB_OP_OPEN:
		return ops->open;
	case MGB_OP_CLOSE:
		return ops->close;
	case MGB_OP_PWRITE:
		return ops->pwrite;
	case MGB_OP_PREAD:
		return ops->pread;
	case MGB_OP_FSTAT:
		return ops->fstat;
	case MGB_OP_PWRITE_FSTAT:
		return ops->pwrite_fstat;
	case MGB_OP_STAT:
		return ops->stat;
	case MGB_OP_FSYNC:
		return ops->fsync;
	case MGB_OP_FTRUNCATE:
		return ops->ftruncate;
	case MGB_OP_FCHMOD:
		return ops->fchmod;
	case MGB_OP_FSETXATTR:
		return ops->fsetxattr;
	case MGB_OP_FUTIMENS_NOW:
		return ops->futimens_now;
	case MGB_OP_FALLOCATE:
		return ops->fallocate;
	case MGB_OP_RENAME:
		return ops->rename;
	case MGB_OP_LINK:
		return ops->link;
	case MGB_OP_UNLINK:
		return ops->unlink;
	case MGB_OP_MKDIR:
		return ops->mkdir;
	case MGB_OP_RMDIR:
		return ops->rmdir;
	case MGB_OP_PWRITE_N:
		return ops->pwrite_n;
	case MGB_OP_FSTAT_N:
		return ops->fstat_n;
	case MGB_OP_COUNTS:
		return ops->counts;
	}
	return false;
}

/*
 * The calls a workload makes (fio's td_io_*()): each returns -EOPNOTSUPP where the backend
 * lacks the operation, so a missing one is an error code, never a NULL call.  They add
 * nothing else: a short write is returned as the byte count, for the caller to judge.
 * mgb_be_has() asks about one optional operation (MGB_OP_PWRITE_N ...) a workload can do without.
 */
static inline bool mgb_be_has(const struct mgb_backend *be, unsigned op)
{
	return mgb_ops_have(be->ops, op);
}

static inline int mgb_be_open(struct mgb_backend *be, const char *path, int flags, mode_t mode, struct mgb_file *f)
{
	return be->ops->open ? be->ops->open(be, path, flags, mode, f) : -EOPNOTSUPP;
}

static inline int mgb_be_close(struct mgb_backend *be, struct mgb_file *f)
{
	return be->ops->close ? be->ops->close(be, f) : -EOPNOTSUPP;
}

static inline ssize_t mgb_be_pwrite(struct mgb_backend *be, struct mgb_file *f, const void *buf, size_t len,
				    off_t off)
{
	return be->ops->pwrite ? be->ops->pwrite(be, f, buf, len, off) : -EOPNOTSUPP;
}

static inline ssize_t mgb_be_pread(struct mgb_backend *be, struct mgb_file *f, void *buf, size_t len, off_t off)
{
	return be->ops->pread ? be->ops->pread(be, f, buf, len, off) : -EOPNOTSUPP;
}

static inline int mgb_be_fstat(struct mgb_backend *be, struct mgb_file *f, unsigned want, struct mgb_stat *st)
{
	return be->ops->fstat ? be->ops->fstat(be, f, want, st) : -EOPNOTSUPP;
}

static inline ssize_t mgb_be_pwrite_fstat(struct mgb_backend *be, struct mgb_file *f, const void *buf, size_t len,
					  off_t off, unsigned want, struct mgb_stat *st)
{
	return be->ops->pwrite_fstat ? be->ops->pwrite_fstat(be, f, buf, len, off, want, st) : -EOPNOTSUPP;
}

static inline int mgb_be_stat(struct mgb_backend *be, const char *path, unsigned want, struct mgb_stat *st)
{
	return be->ops->stat ? be->ops->stat(be, path, want, st) : -EOPNOTSUPP;
}

static inline int mgb_be_fsync(struct mgb_backend *be, struct mgb_file *f)
{
	return be->ops->fsync ? be->ops->fsync(be, f) : -EOPNOTSUPP;
}

static inline int mgb_be_ftruncate(struct mgb_backend *be, struct mgb_file *f, off_t len)
{
	return be->ops->ftruncate ? be->ops->ftruncate(be, f, len) : -EOPNOTSUPP;
}

static inline int mgb_be_fchmod(struct mgb_backend *be, struct mgb_file *f, mode_t mode)
{
	return be->ops->fchmod ? be->ops->fchmod(be, f, mode) : -EOPNOTSUPP;
}

static inline int mgb_be_fsetxattr(struct mgb_backend *be, struct mgb_file *f, const char *name, const void *val,
				   size_t len)
{
	return be->ops->fsetxattr ? be->ops->fsetxattr(be, f, name, val, len) : -EOPNOTSUPP;
}

static inline int mgb_be_futimens_now(struct mgb_backend *be, struct mgb_file *f)
{
	return be->ops->futimens_now ? be->ops->futimens_now(be, f) : -EOPNOTSUPP;
}

static inline int mgb_be_fallocate(struct mgb_backend *be, struct mgb_file *f, off_t off, off_t len)
{
	return be->ops->fallocate ? be->ops->fallocate(be, f, off, len) : -EOPNOTSUPP;
}

static inline int mgb_be_rename(struct mgb_backend *be, const char *from, const char *to)
{
	return be->ops->rename ? be->ops->rename(be, from, to) : -EOPNOTSUPP;
}

static inline int mgb_be_link(struct mgb_backend *be, const char *from, const char *to)
{
	return be->ops->link ? be->ops->link(be, from, to) : -EOPNOTSUPP;
}

static inline int mgb_be_unlink(struct mgb_backend *be, const char *path)
{
	return be->ops->unlink ? be->ops->unlink(be, path) : -EOPNOTSUPP;
}

static inline int mgb_be_mkdir(struct mgb_backend *be, const char *path, mode_t mode)
{
	return be->ops->mkdir ? be->ops->mkdir(be, path, mode) : -EOPNOTSUPP;
}

static inline int mgb_be_rmdir(struct mgb_backend *be, const char *path)
{
	return be->ops->rmdir ? be->ops->rmdir(be, path) : -EOPNOTSUPP;
}

static inline int mgb_be_pwrite_n(struct mgb_backend *be, struct mgb_file *f, const void *buf, size_t len, off_t off,
				  uint64_t count)
{
	return be->ops->pwrite_n ? be->ops->pwrite_n(be, f, buf, len, off, count) : -EOPNOTSUPP;
}

static inline int mgb_be_fstat_n(struct mgb_backend *be, struct mgb_file *f, unsigned want, struct mgb_stat *st,
				 unsigned count)
{
	return be->ops->fstat_n ? be->ops->fstat_n(be, f, want, st, count) : -EOPNOTSUPP;
}

/* The backend's event counts (see counts above), or NULL where it keeps none. */
static inline json_t *mgb_be_counts(struct mgb_backend *be)
{
	return be->ops->counts ? be->ops->counts(be) : NULL;
}

#endif
