/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The io_uring backend: every operation as an io_uring request through liburing.
 *
 * One ring per thread that uses the backend (the stat workload's query and writer threads each
 * get their own, as an application would give each thread its ring), made on first use and all
 * released by fini.  Every request carries this backend's tag in the top bits of user_data, so
 * the io_uring:io_uring_queue_async_work tracepoint can be counted for this run's rings only:
 * those are the punts, requests io_uring could not complete inline (IOCB_NOWAIT) and handed to
 * an io-wq worker.  A timestamp update that needs a transaction is one such reason.
 *
 * Options: --depth N keeps N unqueried writes or N queries in flight; --link submits a write and
 * its statx as one linked pair (IOSQE_IO_LINK) in one io_uring_enter; --sqpoll lets a kernel
 * thread submit (IORING_SETUP_SQPOLL), so requests are issued from another task.
 *
 * The kernel's opcodes are probed once (io_uring_get_probe) in init: an operation whose opcode
 * the kernel lacks fails with -EOPNOTSUPP and the cell is "unsupported", naming the opcode.
 * MGBENCH_URING_HIDE=STATX[,WRITE...] (with or without IORING_OP_) hides opcodes from that probe, for tests only.
 */
#include "config.h"
#include "perthread.h"
#include "backend.h"
#include "probe.h"
#include "util.h"
#include "options.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

/* Not in liburing 2.3's enum: Linux 6.9 added it; the number is the kernel's uapi value. */
#define URING_OP_FTRUNCATE 55
#define URING_MAX_OP 64

#define URING_TAG_SHIFT 40 /* user_data = tag << 40 | sequence (fstat_n: | slot) */
#define URING_HIDE_ENV "MGBENCH_URING_HIDE"

struct uring_params {
	uint64_t depth;
	bool link;
	bool sqpoll;
};

static const struct mgb_option uring_options[] = {
	{ .name = "depth", .type = MGB_OPT_U64, .offset = offsetof(struct uring_params, depth), .defval = "1",
	  .help = "io_uring: requests kept in flight by write --query none|K and stat", .min = 1,
	  .max = 4096 },
	{ .name = "link", .type = MGB_OPT_BOOL, .offset = offsetof(struct uring_params, link),
	  .help = "io_uring: a write and its statx as one linked pair (IOSQE_IO_LINK), one io_uring_enter" },
	{ .name = "sqpoll", .type = MGB_OPT_BOOL, .offset = offsetof(struct uring_params, sqpoll),
	  .help = "io_uring: a kernel thread submits (IORING_SETUP_SQPOLL)" },
	{ 0 },
};

static const struct {
	unsigned op;
	const char *name;
} uring_op_names[] = {
	{ IORING_OP_WRITE, "IORING_OP_WRITE" },       { IORING_OP_READ, "IORING_OP_READ" },
	{ IORING_OP_STATX, "IORING_OP_STATX" },       { IORING_OP_FSYNC, "IORING_OP_FSYNC" },
	{ URING_OP_FTRUNCATE, "IORING_OP_FTRUNCATE" }, { IORING_OP_FSETXATTR, "IORING_OP_FSETXATTR" },
	{ IORING_OP_FALLOCATE, "IORING_OP_FALLOCATE" }, { IORING_OP_RENAMEAT, "IORING_OP_RENAMEAT" },
	{ IORING_OP_LINKAT, "IORING_OP_LINKAT" },     { IORING_OP_UNLINKAT, "IORING_OP_UNLINKAT" },
	{ IORING_OP_MKDIRAT, "IORING_OP_MKDIRAT" },   { IORING_OP_OPENAT, "IORING_OP_OPENAT" },
	{ IORING_OP_CLOSE, "IORING_OP_CLOSE" },
};

struct uring_ring {
	struct io_uring ring;
	/* fstat_n's batch, --depth slots: each slot's result, and the slots in the order their
	 * completions came */
	struct statx *sx;
	unsigned *sx_done;
};

struct uring_priv {
	int dirfd;
	struct uring_params par;
	uint64_t tag;
	atomic_uint_fast64_t seq;      /* requests submitted, all rings */
	bool have[URING_MAX_OP];       /* the kernel's opcodes, minus the hidden ones */
	atomic_int missing;            /* first opcode found missing, or -1 */
	struct mgb_perthread rings;    /* each thread's ring (perthread.h) */
	atomic_uint_fast64_t writes;   /* IORING_OP_WRITE requests submitted, all rings */
	struct mgb_tracecount punts, write_punts;
	char punts_reason[MGB_ERR_LEN]; /* why punts are not counted, when they are not */
};

static const char *op_name(unsigned op)
{
	for (size_t i = 0; i < MGB_ARRAY_SIZE(uring_op_names); i++)
		if (uring_op_names[i].op == op)
			return uring_op_names[i].name;
	return "?";
}

static struct uring_priv *priv_of(struct mgb_backend *be)
{
	return be->priv;
}

static int ring_init(struct uring_priv *p, struct io_uring *ring)
{
	struct io_uring_params ip;
	unsigned entries = (unsigned)p->par.depth < 2 ? 2 : (unsigned)p->par.depth;

	memset(&ip, 0, sizeof(ip));
	if (p->par.sqpoll) {
		ip.flags |= IORING_SETUP_SQPOLL;
		ip.sq_thread_idle = 100; /* ms before the poller sleeps */
	}
	return io_uring_queue_init_params(entries, ring, &ip);
}

/* A new thread's ring (perthread.h's make). */
static void *ring_make(void *ctx, unsigned index, int *e, char *err)
{
	struct uring_priv *p = ctx;
	struct uring_ring *r = calloc(1, sizeof(*r));

	(void)index;
	*e = r && (r->sx = calloc(p->par.depth, sizeof(*r->sx))) &&
		     (r->sx_done = calloc(p->par.depth, sizeof(*r->sx_done)))
		     ? ring_init(p, &r->ring)
		     : -ENOMEM;
	if (*e < 0) {
		mgb_err(err, "%s", strerror(-*e));
		if (r) {
			free(r->sx);
			free(r->sx_done);
		}
		free(r);
		return NULL;
	}
	return r;
}

static void ring_free(void *obj)
{
	struct uring_ring *r = obj;

	io_uring_queue_exit(&r->ring);
	free(r->sx);
	free(r->sx_done);
	free(r);
}

/* This thread's ring, made on first use; NULL with *err = -errno when none can be made. */
static struct uring_ring *ring_of(struct uring_priv *p, int *err)
{
	return mgb_perthread_get(&p->rings, err, NULL);
}

/* An opcode the kernel lacks: -EOPNOTSUPP, and remembered so the cell can name it. */
static int need_op(struct uring_priv *p, unsigned op)
{
	int none = -1;

	if (op < URING_MAX_OP && p->have[op])
		return 0;
	atomic_compare_exchange_strong(&p->missing, &none, (int)op);
	return -EOPNOTSUPP;
}

static struct io_uring_sqe *sqe_get(struct uring_priv *p, struct uring_ring *r)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);

	if (!sqe) {
		io_uring_submit(&r->ring);
		sqe = io_uring_get_sqe(&r->ring);
	}
	if (sqe)
		io_uring_sqe_set_data64(sqe, p->tag << URING_TAG_SHIFT | atomic_fetch_add(&p->seq, 1));
	return sqe;
}

/* Every write goes through here, so writes and their punts can be told from the statx calls'
 * (io_uring always hands IORING_OP_STATX to a worker: it is the write's punts that timestamps
 * cause). */
static void prep_write(struct uring_priv *p, struct io_uring_sqe *sqe, int fd, const void *buf, size_t len, off_t off)
{
	io_uring_prep_write(sqe, fd, buf, (unsigned)len, (uint64_t)off);
	atomic_fetch_add(&p->writes, 1);
}

/* Wait for one completion and consume it; a signal does not abandon a request in flight. */
static int reap(struct uring_ring *r, int *res)
{
	struct io_uring_cqe *cqe;
	int e;

	do
		e = io_uring_wait_cqe(&r->ring, &cqe);
	while (e == -EINTR);
	if (e < 0)
		return e;
	*res = cqe->res;
	io_uring_cqe_seen(&r->ring, cqe);
	return 0;
}

static int submit(struct uring_ring *r, unsigned wait)
{
	int e;

	do
		e = io_uring_submit_and_wait(&r->ring, wait);
	while (e == -EINTR);
	return e < 0 ? e : 0;
}

/* What one request works with: the backend, this thread's ring and an SQE on it. */
struct uring_call {
	struct uring_priv *p;
	struct uring_ring *r;
	struct io_uring_sqe *sqe;
};

/* 0 with k filled in for op, or -errno: the kernel lacks op, no ring, or no SQE free. */
static int begin_call(struct mgb_backend *be, unsigned op, struct uring_call *k)
{
	int e;

	k->p = priv_of(be);
	e = need_op(k->p, op);
	if (e < 0)
		return e;
	if (!(k->r = ring_of(k->p, &e)))
		return e;
	if (!(k->sqe = sqe_get(k->p, k->r)))
		return -EBUSY;
	return 0;
}

/* Submit the one prepared request, wait for it, and give its result. */
static int run_one(struct uring_ring *r)
{
	int res = 0, e = submit(r, 1);

	if (e == 0)
		e = reap(r, &res);
	return e < 0 ? e : res;
}

static int ret0(int res)
{
	return res < 0 ? res : 0;
}

static int uring_init(struct mgb_backend *be, const char *root, char *err)
{
	struct uring_priv *p = calloc(1, sizeof(*p));
	struct io_uring_probe *probe;
	struct uring_ring *first;
	const char *hide = getenv(URING_HIDE_ENV);
	char filter[128];
	uint32_t rnd = 0;
	int e;

	if (!p)
		return mgb_err(err, "out of memory");
	if (be->params)
		p->par = *(const struct uring_params *)be->params;
	else
		p->par.depth = 1;
	atomic_init(&p->missing, -1);
	mgb_perthread_init(&p->rings, ring_make, p);
	if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
		rnd = (uint32_t)getpid() ^ (uint32_t)mgb_clock_ns(CLOCK_MONOTONIC);
	/* 24 bits above the 40-bit sequence, 1 to 0xfffffe: never 0, and tag + 1 (the end of the
	 * punt filter's range) does not wrap to 0 */
	p->tag = rnd % 0xfffffe + 1;
	p->dirfd = open(root, O_DIRECTORY | O_RDONLY | O_CLOEXEC);
	if (p->dirfd < 0) {
		e = errno;
		free(p);
		return mgb_err(err, "open %s: %s", root, strerror(e));
	}
	be->priv = p;

	/* The first ring (this thread's) proves io_uring works here before the workload starts. */
	if (!(first = ring_of(p, &e))) {
		mgb_err(err, "io_uring_queue_init (depth %llu%s): %s", (unsigned long long)p->par.depth,
			p->par.sqpoll ? ", sqpoll" : "", strerror(-e));
		be->ops->fini(be);
		return -1;
	}
	probe = io_uring_get_probe_ring(&first->ring);
	if (!probe) {
		mgb_err(err, "io_uring_get_probe: the kernel cannot list its opcodes");
		be->ops->fini(be);
		return -1;
	}
	for (unsigned op = 0; op < URING_MAX_OP; op++)
		p->have[op] = io_uring_opcode_supported(probe, (int)op);
	io_uring_free_probe(probe);
	/* Test-only: pretend the kernel lacks these opcodes. */
	for (const char *s = hide; s && *s;) {
		size_t n;

		if (!strncasecmp(s, "IORING_OP_", 10))
			s += 10;
		n = strcspn(s, ",");
		for (size_t i = 0; i < MGB_ARRAY_SIZE(uring_op_names); i++)
			if (strlen(uring_op_names[i].name + 10) == n && !strncasecmp(s, uring_op_names[i].name + 10, n))
				p->have[uring_op_names[i].op] = false;
		s += n + (s[n] == ',');
	}

	snprintf(filter, sizeof(filter), "user_data >= %llu && user_data < %llu",
		 (unsigned long long)(p->tag << URING_TAG_SHIFT),
		 (unsigned long long)((p->tag + 1) << URING_TAG_SHIFT));
	if (mgb_tracecount_open_filter(&p->punts, "io_uring", "io_uring_queue_async_work", filter,
				       p->punts_reason) < 0)
		p->punts.nfds = 0;
	snprintf(filter + strlen(filter), sizeof(filter) - strlen(filter), " && opcode == %d", IORING_OP_WRITE);
	if (p->punts.nfds && mgb_tracecount_open_filter(&p->write_punts, "io_uring", "io_uring_queue_async_work",
							filter, p->punts_reason) < 0) {
		mgb_tracecount_close(&p->punts);
		p->punts.nfds = 0;
	}
	return 0;
}

static void uring_fini(struct mgb_backend *be)
{
	struct uring_priv *p = be->priv;

	if (!p)
		return;
	mgb_tracecount_close(&p->punts);
	mgb_tracecount_close(&p->write_punts);
	mgb_perthread_destroy(&p->rings, ring_free);
	close(p->dirfd);
	free(p);
	be->priv = NULL;
}

static double ratio_of(int64_t part, uint64_t whole)
{
	return whole ? (double)part / (double)whole : 0.0;
}

/* All requests and their punts, and the writes' alone. */
static json_t *uring_cell_metrics(struct mgb_backend *be)
{
	struct uring_priv *p = priv_of(be);
	uint64_t requests = atomic_load(&p->seq), writes = atomic_load(&p->writes);
	int64_t punted = p->punts.nfds ? mgb_tracecount_read(&p->punts) : -1;
	int64_t wpunted = p->write_punts.nfds ? mgb_tracecount_read(&p->write_punts) : -1;

	if (punted < 0 || wpunted < 0)
		return json_pack("{s:I, s:n, s:n, s:I, s:n, s:n, s:s}", "requests", (json_int_t)requests, "punted",
				 "punted_ratio", "writes", (json_int_t)writes, "writes_punted", "writes_punted_ratio",
				 "punted_reason", p->punts.nfds ? "tracepoint unreadable" : p->punts_reason);
	return json_pack("{s:I, s:I, s:f, s:I, s:I, s:f}", "requests", (json_int_t)requests, "punted",
			 (json_int_t)punted, "punted_ratio", ratio_of(punted, requests), "writes", (json_int_t)writes,
			 "writes_punted", (json_int_t)wpunted, "writes_punted_ratio", ratio_of(wpunted, writes));
}

static json_t *uring_counts(struct mgb_backend *be)
{
	struct uring_priv *p = priv_of(be);
	int64_t punted = p->punts.nfds ? mgb_tracecount_read(&p->punts) : -1;
	int64_t wpunted = p->write_punts.nfds ? mgb_tracecount_read(&p->write_punts) : -1;

	return json_pack("{s:I, s:o, s:I, s:o}", "requests", (json_int_t)atomic_load(&p->seq), "punted",
			 punted < 0 ? json_null() : json_integer(punted), "writes", (json_int_t)atomic_load(&p->writes),
			 "writes_punted", wpunted < 0 ? json_null() : json_integer(wpunted));
}

static const char *uring_unsupported(struct mgb_backend *be)
{
	int op = atomic_load(&priv_of(be)->missing);

	return op < 0 ? NULL : op_name((unsigned)op);
}

static int uring_open(struct mgb_backend *be, const char *path, int flags, mode_t mode, struct mgb_file *f)
{
	struct uring_call k;
	int ke = begin_call(be, IORING_OP_OPENAT, &k);

	if (ke)
		return ke;
	io_uring_prep_openat(k.sqe, k.p->dirfd, path, flags | O_CLOEXEC, mode);
	int fd = run_one(k.r);

	if (fd < 0)
		return fd;
	f->fd = fd;
	f->priv = NULL;
	return 0;
}

static int uring_close(struct mgb_backend *be, struct mgb_file *f)
{
	struct uring_priv *p = priv_of(be);
	struct uring_ring *r;
	struct io_uring_sqe *sqe;
	int e = 0, fd = f->fd;

	f->fd = -1;
	/* A file is closed even when the ring cannot do it: nothing is left open. */
	if (need_op(p, IORING_OP_CLOSE) < 0 || !(r = ring_of(p, &e)) || !(sqe = sqe_get(p, r)))
		return ret0(close(fd) < 0 ? -errno : 0);
	io_uring_prep_close(sqe, fd);
	return ret0(run_one(r));
}

static ssize_t uring_pwrite(struct mgb_backend *be, struct mgb_file *f, const void *buf, size_t len, off_t off)
{
	struct uring_call k;
	int ke = begin_call(be, IORING_OP_WRITE, &k);

	if (ke)
		return ke;
	prep_write(k.p, k.sqe, f->fd, buf, len, off);
	return run_one(k.r);
}

static ssize_t uring_pread(struct mgb_backend *be, struct mgb_file *f, void *buf, size_t len, off_t off)
{
	struct uring_call k;
	int ke = begin_call(be, IORING_OP_READ, &k);

	if (ke)
		return ke;
	io_uring_prep_read(k.sqe, f->fd, buf, (unsigned)len, (uint64_t)off);
	return run_one(k.r);
}

/* Only what was asked for counts as returned (statx fills its basic fields regardless). */
static void from_statx(const struct statx *sx, unsigned want, struct mgb_stat *st)
{
	st->mask = sx->stx_mask & want & MGB_STAT_STATX;
	st->ctime = (struct mgb_ts){ sx->stx_ctime.tv_sec, sx->stx_ctime.tv_nsec };
	st->mtime = (struct mgb_ts){ sx->stx_mtime.tv_sec, sx->stx_mtime.tv_nsec };
	st->atime = (struct mgb_ts){ sx->stx_atime.tv_sec, sx->stx_atime.tv_nsec };
	st->btime = (struct mgb_ts){ sx->stx_btime.tv_sec, sx->stx_btime.tv_nsec };
	st->size = sx->stx_size;
	st->ino = sx->stx_ino;
	st->dev_major = sx->stx_dev_major;
	st->dev_minor = sx->stx_dev_minor;
}

static int uring_fstat(struct mgb_backend *be, struct mgb_file *f, unsigned want, struct mgb_stat *st)
{
	struct statx sx;
	int res;

	struct uring_call k;
	int ke = begin_call(be, IORING_OP_STATX, &k);

	if (ke)
		return ke;
	io_uring_prep_statx(k.sqe, f->fd, "", AT_EMPTY_PATH, want & MGB_STAT_STATX, &sx);
	res = run_one(k.r);
	if (res < 0)
		return res;
	from_statx(&sx, want, st);
	return 0;
}

/*
 * The write and its query.  With --link: one linked pair, one io_uring_enter for both (the
 * statx starts only after the write completed, and fails with -ECANCELED if the write did).
 * Without: two requests, two enters, as two syscalls would be.
 */
static ssize_t uring_pwrite_fstat(struct mgb_backend *be, struct mgb_file *f, const void *buf, size_t len, off_t off,
				  unsigned want, struct mgb_stat *st)
{
	struct uring_priv *p = priv_of(be);
	struct uring_ring *r;
	struct io_uring_sqe *w, *s;
	struct statx sx;
	int e = need_op(p, IORING_OP_WRITE), wres = 0, sres = 0;

	if (!p->par.link) {
		ssize_t n = uring_pwrite(be, f, buf, len, off);
		int sr;

		if (n < 0)
			return n;
		sr = uring_fstat(be, f, want, st);
		return sr < 0 ? sr : n;
	}
	if (e == 0)
		e = need_op(p, IORING_OP_STATX);
	if (e < 0)
		return e;
	if (!(r = ring_of(p, &e)))
		return e;
	w = sqe_get(p, r);
	prep_write(p, w, f->fd, buf, len, off);
	w->flags |= IOSQE_IO_LINK;
	s = sqe_get(p, r);
	io_uring_prep_statx(s, f->fd, "", AT_EMPTY_PATH, want & MGB_STAT_STATX, &sx);
	e = submit(r, 2);
	/* Completions come in link order: the write's, then the statx's. */
	if (e == 0)
		e = reap(r, &wres);
	if (e == 0)
		e = reap(r, &sres);
	if (e < 0)
		return e;
	if (wres < 0)
		return wres;
	if (sres < 0)
		return sres;
	from_statx(&sx, want, st);
	return wres;
}

/* count writes with up to --depth in flight: refill as completions arrive. */
static int uring_pwrite_n(struct mgb_backend *be, struct mgb_file *f, const void *buf, size_t len, off_t off,
			  uint64_t count)
{
	struct uring_priv *p = priv_of(be);
	struct uring_ring *r;
	uint64_t queued = 0, done = 0;
	int e = need_op(p, IORING_OP_WRITE), first = 0;

	if (e < 0)
		return e;
	if (!(r = ring_of(p, &e)))
		return e;
	while (done < count) {
		unsigned inflight = (unsigned)(queued - done);

		while (queued < count && inflight < p->par.depth) {
			struct io_uring_sqe *sqe = sqe_get(p, r);

			if (!sqe)
				break;
			prep_write(p, sqe, f->fd, buf, len, off);
			queued++, inflight++;
		}
		e = submit(r, 1);
		if (e < 0)
			return first ? first : e; /* nothing more can be reaped safely */
		/* reap what is ready, at least one */
		do {
			int res;

			e = reap(r, &res);
			if (e < 0)
				return e;
			if (res != (int)len && !first)
				first = res < 0 ? res : -EIO;
			done++;
		} while (done < queued && io_uring_cq_ready(&r->ring));
		if (first)
			break;
	}
	/* After an error, drain what is still in flight: buf must stay valid until then. */
	while (done < queued) {
		int res;

		if (reap(r, &res) < 0)
			break;
		done++;
	}
	return first;
}

/* count queries with up to --depth in flight; each lands in its own statx buffer. */
/* Which slot of fstat_n's batch a completion is for (its user_data's low bits); batch if none. */
static unsigned slot_of(const struct uring_priv *p, unsigned batch, uint64_t user_data)
{
	uint64_t slot = user_data & ((UINT64_C(1) << URING_TAG_SHIFT) - 1);

	return user_data >> URING_TAG_SHIFT == p->tag && slot < batch ? (unsigned)slot : batch;
}

static int uring_fstat_n(struct mgb_backend *be, struct mgb_file *f, unsigned want, struct mgb_stat *st, unsigned count)
{
	struct uring_priv *p = priv_of(be);
	struct uring_ring *r;
	unsigned depth = (unsigned)p->par.depth, n = 0;
	int e = need_op(p, IORING_OP_STATX), first = 0;

	if (e < 0)
		return e;
	if (!(r = ring_of(p, &e)))
		return e;
	/* In batches of depth: submit all, then reap all; each request has its own slot. */
	while (n < count && !first) {
		unsigned batch = count - n < depth ? count - n : depth, got = 0;

		for (unsigned i = 0; i < batch; i++) {
			struct io_uring_sqe *sqe = sqe_get(p, r);

			io_uring_prep_statx(sqe, f->fd, "", AT_EMPTY_PATH, want & MGB_STAT_STATX, &r->sx[i]);
			/* the tag (the punt filter's) and, for once, the slot instead of a sequence number */
			io_uring_sqe_set_data64(sqe, p->tag << URING_TAG_SHIFT | i);
		}
		e = submit(r, batch);
		if (e < 0) {
			first = e;
			break;
		}
		while (got < batch) {
			struct io_uring_cqe *cqe;

			do
				e = io_uring_wait_cqe(&r->ring, &cqe);
			while (e == -EINTR);
			if (e < 0) {
				first = e;
				break;
			}
			if (cqe->res < 0 && !first)
				first = cqe->res;
			r->sx_done[got] = slot_of(p, batch, cqe->user_data);
			if (r->sx_done[got] >= batch && !first)
				first = -EIO; /* not one of this batch's: cannot happen, but never a wild slot */
			io_uring_cqe_seen(&r->ring, cqe);
			got++;
		}
		/* in completion order, as backend.h promises */
		for (unsigned i = 0; i < batch && !first; i++)
			from_statx(&r->sx[r->sx_done[i]], want, &st[n + i]);
		n += batch;
	}
	return first;
}

static int uring_stat(struct mgb_backend *be, const char *path, unsigned want, struct mgb_stat *st)
{
	struct statx sx;
	int res;

	struct uring_call k;
	int ke = begin_call(be, IORING_OP_STATX, &k);

	if (ke)
		return ke;
	io_uring_prep_statx(k.sqe, k.p->dirfd, path, AT_SYMLINK_NOFOLLOW, want & MGB_STAT_STATX, &sx);
	res = run_one(k.r);
	if (res < 0)
		return res;
	from_statx(&sx, want, st);
	return 0;
}

static int uring_fsync(struct mgb_backend *be, struct mgb_file *f)
{
	struct uring_call k;
	int ke = begin_call(be, IORING_OP_FSYNC, &k);

	if (ke)
		return ke;
	io_uring_prep_fsync(k.sqe, f->fd, 0);
	return ret0(run_one(k.r));
}

static int uring_ftruncate(struct mgb_backend *be, struct mgb_file *f, off_t len)
{
	struct uring_call k;
	int ke = begin_call(be, URING_OP_FTRUNCATE, &k);

	if (ke)
		return ke;
	/* liburing 2.3 has no io_uring_prep_ftruncate (2.6 does): the kernel takes the length from
	 * k.sqe->off and refuses (EINVAL) any other field set, and a reused SQE still holds its last
	 * request's, so the generic prep clears them.  It leaves user_data (our tag) alone. */
	io_uring_prep_rw(URING_OP_FTRUNCATE, k.sqe, f->fd, NULL, 0, (uint64_t)len);
	return ret0(run_one(k.r));
}

static int uring_fsetxattr(struct mgb_backend *be, struct mgb_file *f, const char *name, const void *val, size_t len)
{
	struct uring_call k;
	int ke = begin_call(be, IORING_OP_FSETXATTR, &k);

	if (ke)
		return ke;
	io_uring_prep_fsetxattr(k.sqe, f->fd, name, val, 0, (unsigned)len);
	return ret0(run_one(k.r));
}

static int uring_fallocate(struct mgb_backend *be, struct mgb_file *f, off_t off, off_t len)
{
	struct uring_call k;
	int ke = begin_call(be, IORING_OP_FALLOCATE, &k);

	if (ke)
		return ke;
	io_uring_prep_fallocate(k.sqe, f->fd, 0, (uint64_t)off, (uint64_t)len);
	return ret0(run_one(k.r));
}

static int uring_rename(struct mgb_backend *be, const char *from, const char *to)
{
	struct uring_call k;
	int ke = begin_call(be, IORING_OP_RENAMEAT, &k);

	if (ke)
		return ke;
	io_uring_prep_renameat(k.sqe, k.p->dirfd, from, k.p->dirfd, to, 0);
	return ret0(run_one(k.r));
}

static int uring_link(struct mgb_backend *be, const char *from, const char *to)
{
	struct uring_call k;
	int ke = begin_call(be, IORING_OP_LINKAT, &k);

	if (ke)
		return ke;
	io_uring_prep_linkat(k.sqe, k.p->dirfd, from, k.p->dirfd, to, 0);
	return ret0(run_one(k.r));
}

static int uring_unlink(struct mgb_backend *be, const char *path)
{
	struct uring_call k;
	int ke = begin_call(be, IORING_OP_UNLINKAT, &k);

	if (ke)
		return ke;
	io_uring_prep_unlinkat(k.sqe, k.p->dirfd, path, 0);
	return ret0(run_one(k.r));
}

static int uring_mkdir(struct mgb_backend *be, const char *path, mode_t mode)
{
	struct uring_call k;
	int ke = begin_call(be, IORING_OP_MKDIRAT, &k);

	if (ke)
		return ke;
	io_uring_prep_mkdirat(k.sqe, k.p->dirfd, path, mode);
	return ret0(run_one(k.r));
}

static int uring_rmdir(struct mgb_backend *be, const char *path)
{
	struct uring_call k;
	int ke = begin_call(be, IORING_OP_UNLINKAT, &k);

	if (ke)
		return ke;
	io_uring_prep_unlinkat(k.sqe, k.p->dirfd, path, AT_REMOVEDIR);
	return ret0(run_one(k.r));
}

/* fchmod and futimens have no io_uring opcode (Linux 6.18): NULL, so the cell is unsupported. */
const struct mgb_backend_ops mgb_backend_uring = {
	.name = "uring",
	.summary = "io_uring through liburing (no opcode for fchmod, futimens)",
	.options = uring_options,
	.params_size = sizeof(struct uring_params),
	.init = uring_init,
	.fini = uring_fini,
	.open = uring_open,
	.close = uring_close,
	.pwrite = uring_pwrite,
	.pread = uring_pread,
	.fstat = uring_fstat,
	.pwrite_fstat = uring_pwrite_fstat,
	.stat = uring_stat,
	.fsync = uring_fsync,
	.ftruncate = uring_ftruncate,
	.fsetxattr = uring_fsetxattr,
	.fallocate = uring_fallocate,
	.rename = uring_rename,
	.link = uring_link,
	.unlink = uring_unlink,
	.mkdir = uring_mkdir,
	.rmdir = uring_rmdir,
	.pwrite_n = uring_pwrite_n,
	.fstat_n = uring_fstat_n,
	.cell_metrics = uring_cell_metrics,
	.counts = uring_counts,
	.unsupported = uring_unsupported,
};
