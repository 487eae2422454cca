/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Backends: how an operation reaches the kernel.  Like fio's ioengines, a backend is a table of
 * operations; a workload calls them and never a syscall directly, so the same workload runs
 * through plain syscalls, io_uring or NFS.  Paths are relative to the backend's root directory.
 * Every operation returns 0 (or a byte count) on success and -errno on failure.  An operation a
 * backend cannot express is NULL; mgb_require_op() turns that into a clear "unsupported" cell.
 */
#ifndef MGB_BACKEND_H
#define MGB_BACKEND_H

#include <jansson.h>
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
struct mgb_workload_option;

/* How a backend reaches its target: struct mgb_backend_ops.reach. */
enum mgb_reach {
	MGB_REACH_LOCAL, /* system calls on the target's path */
	MGB_REACH_NFS3,  /* an nfs:// URL, NFSv3 */
	MGB_REACH_NFS4,  /* an nfs:// URL, NFSv4 */
};

struct mgb_backend_ops {
	const char *name;
	const char *summary;
	/* Declared like a workload's options (lib/workload.h): run parses them into a params_size
	 * struct, --help and list show them, each cell records them as backend.options. */
	const struct mgb_workload_option *options; /* terminated by a zero entry, or NULL */
	size_t params_size;
	/* How it reaches the target (see lib/serve.h): local, or a protocol whose server the target side
	 * starts for the cell (or someone else runs), init's root then being the server's URL. */
	enum mgb_reach reach;
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
const struct mgb_workload_option *mgb_backend_option_first(const char *name);
/* params may be NULL for the defaults; it must outlive the open backend. */
int mgb_backend_open(struct mgb_backend *be, const struct mgb_backend_ops *ops, const void *params,
		     const char *root, char *err);
void mgb_backend_close(struct mgb_backend *be);
/* After a write that stored only done of len bytes: the errno the rest gets (ENOSPC, EFBIG ...),
 * negative; -EIO if the rest is stored after all.  A short write is an error, never a round. */
int mgb_short_write_errno(struct mgb_backend *be, struct mgb_file *f, const void *buf, size_t len, off_t off,
			  size_t done);

/*
 * In a workload: -1 with "backend X cannot <op>" in ctx->err and the cell marked unsupported
 * (a fact about the backend, not a failure) when the backend lacks op, else 0.
 */
#define mgb_require_op(ctx, op)                                                               \
	((ctx)->be->ops->op ? 0                                                               \
			    : ((ctx)->unsupported = true,                                     \
			       mgb_err((ctx)->err, "backend '%s' cannot " #op, (ctx)->be->ops->name)))

/* The backend as cell.backend: {"name": ..., "options": {...}}. */
json_t *mgb_backend_to_json(const struct mgb_backend_ops *ops, const void *params);
extern const struct mgb_backend_ops mgb_backend_sync;
#ifdef HAVE_LIBURING
extern const struct mgb_backend_ops mgb_backend_uring;
#endif
#ifdef HAVE_LIBNFS
extern const struct mgb_backend_ops mgb_backend_nfs3, mgb_backend_nfs4;
#endif
/* The server someone else runs that a remote backend was given (--nfs-url), or NULL (a server
 * started for the cell; a local backend). */
const char *mgb_backend_server_url(const struct mgb_backend_ops *ops, const void *params);

#endif
