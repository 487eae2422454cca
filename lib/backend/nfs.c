/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The NFS backends, nfs3 and nfs4: every operation as NFS calls through libnfs (sync API), the
 * query being a GETATTR.  The root given to init is an nfs:// URL: the server's the runner
 * started for the cell (--nfs-server: lib/target/ganesha.c, or the kernel's nfsd in a guest,
 * lib/target/knfsd.c) or --nfs-url's, where a new subdirectory is made and removed again.
 *
 * One libnfs context per thread that uses the backend, each its own TCP connection and (v4) its
 * own client id: a workload's threads are separate NFS clients, as revalidate's writer and
 * poller must be.  A file opened by one thread is opened again on another thread's context when
 * that thread first uses it (never twice on one context: libnfs 4.0.0 shares one open-owner per
 * context, and a second OPEN+CLOSE kills the other handle's stateid).
 *
 * libnfs 4.0.0's NFSv4 limits are handled here: a WRITE compound is encoded into a fixed 4 KiB
 * buffer, so writes go out in pieces of NFS4_WRITE_MAX bytes; READ is split at 1 MiB; and the
 * change attribute, which struct nfs_stat_64 lacks, comes from a raw COMPOUND (nfs4_raw.c: PUTFH, GETATTR)
 * that is the v4 query itself, so ctime and change are one consistent snapshot.  Leases are
 * never renewed by 4.0.0: the server is told Lease_Lifetime = 120 s, and every WRITE renews.
 *
 * Timeouts: each context has --nfs-timeout (libnfs's nfs_set_timeout) and no automatic
 * reconnect, so a server that dies or stops answering fails the call within that time.
 */
#include "config.h"
#include "nfs4_raw.h"
#include "nfs_params.h"
#include "perthread.h"
#include "backend.h"
#include "stop.h"
#include "util.h"
#include "options.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/time.h> /* before libnfs.h, which uses struct timeval */
#include <unistd.h>

#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>
#include <nfsc/libnfs-raw-nfs4.h>
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>
#endif

#define NFS_MAX_HANDLES MGB_PERTHREAD_MAX /* one per client */
#define NFS4_WRITE_MAX 3072  /* libnfs 4.0.0 fails WRITE compounds above ~3.9 KB */
#define NFS4_READ_MAX (1u << 20)

const char *const mgb_nfs_servers[] = { "ganesha", "knfsd", NULL };

const struct mgb_option mgb_nfs_options[] = {
	{ .name = "nfs-url", .type = MGB_OPT_STRING, .offset = offsetof(struct mgb_nfs_params, url),
	  .help = "nfs: use this server (nfs://host/export[?args]) instead of an embedded nfs-ganesha" },
	{ .name = "nfs-timeout", .type = MGB_OPT_U64, .offset = offsetof(struct mgb_nfs_params, timeout_s),
	  .defval = "5", .help = "nfs: seconds an NFS call may take before the cell fails", .min = 1,
	  .max = 600 },
	{ .name = "nfs-server", .type = MGB_OPT_CHOICE, .offset = offsetof(struct mgb_nfs_params, server),
	  .defval = "ganesha",
	  .help = "nfs: the server started for each cell: ganesha (an embedded nfs-ganesha) or knfsd (the kernel's "
	  "nfsd, inside a guest of mgbench vm only)",
	  .choices = mgb_nfs_servers },
	{ 0 },
};

struct nfs_client {
	struct nfs_context *nfs;
	struct nfs4_raw_result raw; /* where a raw call's reply lands */
	bool broken;           /* a call failed or timed out: the connection's state is unknown */
};

struct nfs_priv {
	int version;
	char *url;         /* what each context parses */
	char *export_path; /* the URL's path: "/export" */
	char *subdir;      /* --nfs-url: our directory under the export ("/mgbench.XXXXXX"), else "" */
	bool made_subdir;
	int timeout_ms;
	uint64_t tag;
	struct mgb_perthread clients; /* each thread's connection (perthread.h) */
	atomic_uint_fast64_t rpcs;
	/* v4: the last query's change attribute and ctime, for the cell to show what the server
	 * builds change from (see nfs_cell_metrics) */
	pthread_mutex_t last_lock;
	bool have_last;
	uint64_t last_change;
	struct mgb_ts last_ctime;
};

/* An open file: its path, and a handle per client that has used it. */
struct nfs_file {
	char *path; /* full path under the export, for libnfs */
	int flags;
	pthread_mutex_t lock;
	unsigned n;
	struct {
		struct nfs_client *c;
		struct nfsfh *fh;
		char *fh4; /* v4 file handle for raw GETATTR, fetched on first query */
		unsigned fh4_len;
	} h[NFS_MAX_HANDLES];
};

static struct nfs_priv *priv_of(struct mgb_backend *be)
{
	return be->priv;
}

/*
 * Is a call still queued on c's context?  A synchronous libnfs call that returns early (the
 * connection reset, a signal interrupting its poll) leaves its request queued, and the request's
 * callback data was on that call's stack frame: any later call on the context, its destroy
 * included, runs the callback into a dead frame (sahlberg/libnfs#305).
 */
static bool context_busy(struct nfs_context *nfs)
{
	return rpc_queue_length(nfs_get_rpc_context(nfs)) > 0;
}

static bool in_flight(struct nfs_client *c)
{
	return context_busy(c->nfs);
}

/* Memory left to a context that can never be called again (see context_end), not forgotten. */
static void leak_on_purpose(const void *p)
{
#ifdef __SANITIZE_ADDRESS__
	__lsan_ignore_object(p);
#else
	(void)p;
#endif
}

/*
 * The end of a context.  One with a call in flight is abandoned, never destroyed: destroy would
 * run the call's callback into a dead stack frame.  Its socket is closed (nothing calls into the
 * context again) and its memory deliberately leaked, a few KiB per failed client.
 */
static void context_end(struct nfs_context *nfs)
{
	int fd;

	if (!context_busy(nfs)) {
		nfs_destroy_context(nfs);
		return;
	}
	fd = nfs_get_fd(nfs);
	if (fd >= 0)
		close(fd);
	leak_on_purpose(nfs);
}

/*
 * libnfs returns -errno from most calls, -1 from some failures to queue and -EINTR for a call
 * that timed out.  A client whose connection failed or timed out, or that has a call in flight,
 * is not used again: each later call would wait out the timeout once more, or worse, see above.
 * While a stop is requested any failure is the stop's doing: the signal that asked for it ended
 * libnfs's poll, which it reports as -EIO (or -1), and the cell is interrupted, not failed.
 */
static int cerr(struct nfs_client *c, int r)
{
	if (r >= 0)
		return 0;
	if (mgb_stop_requested())
		r = -EINTR;
	else if (r == -1)
		r = -EIO;
	else if (r == -EINTR)
		r = -ETIMEDOUT;
	if (r == -ETIMEDOUT || r == -EIO || r == -ECONNRESET || r == -EPIPE || r == -ENOTCONN || r == -EINTR ||
	    in_flight(c))
		c->broken = true;
	return r;
}

static void client_free(struct nfs_client *c)
{
	context_end(c->nfs);
	free(c->raw.fh);
	free(c);
}

static struct nfs_context *context_new(struct nfs_priv *p, unsigned serial, char *err)
{
	struct nfs_context *nfs = nfs_init_context();
	struct nfs_url *u;
	char name[96];

	if (!nfs)
		return mgb_err(err, "libnfs: cannot make a context"), NULL;
	u = nfs_parse_url_dir(nfs, p->url);
	if (!u) {
		mgb_err(err, "%s: %s", p->url, nfs_get_error(nfs));
		nfs_destroy_context(nfs);
		return NULL;
	}
	nfs_set_version(nfs, p->version);
	nfs_set_timeout(nfs, p->timeout_ms);
	nfs_set_autoreconnect(nfs, 0); /* a dead server fails the call; it is not waited for */
	nfs_set_dircache(nfs, 0);      /* every lookup and query goes to the server */
	nfs_set_pagecache(nfs, 0);
	nfs_set_readahead(nfs, 0);
	/* Separate clients to the server, not one client reconnecting. */
	snprintf(name, sizeof(name), "mgbench-%d-%llx-%u", (int)getpid(), (unsigned long long)p->tag, serial);
	nfs4_set_client_name(nfs, name); /* leaks libnfs's default name: tests/lsan.supp */
	if (nfs_mount(nfs, u->server, u->path) != 0) {
		/* libnfs says "nfs_service failed" for a refused connection: say what that means */
		mgb_err(err, "mount %s (NFSv%d): %s%s", p->url, p->version, nfs_get_error(nfs),
			strstr(nfs_get_error(nfs), "nfs_service failed") ? " (no NFS server answers there)" : "");
		nfs_destroy_url(u);
		context_end(nfs); /* a signal may have cut the mount short */
		return NULL;
	}
	if (!p->export_path)
		p->export_path = strdup(u->path);
	nfs_destroy_url(u);
	return nfs;
}

/* A new thread's client (perthread.h's make): a context of its own, connected now. */
static void *client_make(void *ctx, unsigned index, int *e, char *err)
{
	struct nfs_priv *p = ctx;
	struct nfs_client *c = calloc(1, sizeof(*c));

	if (!c) {
		*e = -ENOMEM;
		mgb_err(err, "out of memory");
		return NULL;
	}
	if (!(c->nfs = context_new(p, index, err))) {
		free(c);
		*e = -ECONNREFUSED;
		return NULL;
	}
	return c;
}

static void client_free_v(void *c)
{
	client_free(c);
}

/* This thread's client, counting the call: 0, or -errno when there is none or it is broken. */
static int get_client(struct nfs_priv *p, struct nfs_client **c)
{
	int e = -EIO;

	if (!(*c = mgb_perthread_get(&p->clients, &e, NULL)))
		return e;
	if ((*c)->broken)
		return -ENOTCONN;
	atomic_fetch_add(&p->rpcs, 1);
	return 0;
}

static char *full_path(struct nfs_priv *p, const char *path)
{
	char *s;

	if (asprintf(&s, "%s/%s", p->subdir, path) < 0)
		return NULL;
	return s;
}

/* ---- raw NFSv4 COMPOUNDs (nfs4_raw.c) on this client's connection ---- */

static struct nfs4_conn conn_of(struct nfs_priv *p, struct nfs_client *c)
{
	return (struct nfs4_conn){ .nfs = c->nfs, .timeout_ms = p->timeout_ms, .broken = &c->broken, .res = &c->raw };
}

static int raw_lookup(struct nfs_priv *p, struct nfs_client *c, const char *path, nfs_opnum4 last)
{
	struct nfs4_conn conn = conn_of(p, c);

	return nfs4_raw_lookup(&conn, p->export_path, path, last);
}

static int raw_fstat(struct nfs_priv *p, struct nfs_client *c, const char *fh, unsigned fh_len, struct mgb_stat *st)
{
	struct nfs4_conn conn = conn_of(p, c);

	return nfs4_raw_getattr(&conn, fh, fh_len, st);
}

/* ---- init, fini ---- */

static void from_stat64(const struct nfs_stat_64 *s, struct mgb_stat *st)
{
	memset(st, 0, sizeof(*st));
	st->mask = MGB_STAT_CTIME | MGB_STAT_MTIME | MGB_STAT_ATIME | MGB_STAT_SIZE;
	st->ctime = (struct mgb_ts){ (int64_t)s->nfs_ctime, (uint32_t)s->nfs_ctime_nsec };
	st->mtime = (struct mgb_ts){ (int64_t)s->nfs_mtime, (uint32_t)s->nfs_mtime_nsec };
	st->atime = (struct mgb_ts){ (int64_t)s->nfs_atime, (uint32_t)s->nfs_atime_nsec };
	st->size = s->nfs_size;
	st->ino = s->nfs_ino;
}

/* Remove what we made under our --nfs-url subdirectory, then the subdirectory itself. */
static void remove_tree(struct nfs_context *nfs, const char *dir, int depth)
{
	struct nfsdir *d;
	struct nfsdirent *e;

	if (depth > 8 || nfs_opendir(nfs, dir, &d) != 0)
		return;
	while ((e = nfs_readdir(nfs, d))) {
		char *child;

		if (!strcmp(e->name, ".") || !strcmp(e->name, "..") || asprintf(&child, "%s/%s", dir, e->name) < 0)
			continue;
		if (S_ISDIR(e->mode))
			remove_tree(nfs, child, depth + 1);
		else
			nfs_unlink(nfs, child);
		free(child);
	}
	nfs_closedir(nfs, d);
	nfs_rmdir(nfs, dir);
}

static void nfs_fini_be(struct mgb_backend *be)
{
	struct nfs_priv *p = be->priv;
	int e;

	if (!p)
		return;
	if (p->made_subdir) {
		struct nfs_client *c = mgb_perthread_get(&p->clients, &e, NULL);

		if (c && !c->broken)
			remove_tree(c->nfs, p->subdir, 0);
	}
	mgb_perthread_destroy(&p->clients, client_free_v);
	pthread_mutex_destroy(&p->last_lock);
	free(p->url);
	free(p->export_path);
	free(p->subdir);
	free(p);
	be->priv = NULL;
}

static int nfs_init_be(struct mgb_backend *be, int version, const char *root, char *err)
{
	const struct mgb_nfs_params *par = be->params;
	struct nfs_priv *p = calloc(1, sizeof(*p));
	struct nfs_client *first;
	const char *v;
	int e = 0;

	if (!p)
		return mgb_err(err, "out of memory");
	be->priv = p;
	mgb_perthread_init(&p->clients, client_make, p);
	pthread_mutex_init(&p->last_lock, NULL);
	p->version = version;
	p->timeout_ms = (int)((par ? par->timeout_s : 5) * 1000);
	p->url = strdup(root);
	p->subdir = strdup("");
	if (getrandom(&p->tag, sizeof(p->tag), 0) != sizeof(p->tag))
		p->tag = (uint64_t)mgb_clock_ns(CLOCK_MONOTONIC);
	if (!p->url || !p->subdir) {
		nfs_fini_be(be);
		return mgb_err(err, "out of memory");
	}
	if (strncmp(root, "nfs://", 6) != 0) {
		nfs_fini_be(be);
		return mgb_err(err, "backend nfs%d needs an nfs:// URL, not '%s'", version, root);
	}
	v = strstr(root, "version=");
	if (v && atoi(v + 8) != version) {
		nfs_fini_be(be);
		return mgb_err(err, "%s asks for NFS version %d but the backend is nfs%d", root, atoi(v + 8), version);
	}
	/* Connect this thread's client now: a server that does not answer fails here, clearly. */
	if (!(first = mgb_perthread_get(&p->clients, &e, err))) {
		nfs_fini_be(be);
		return -1;
	}
	if (par && par->url) {
		/* An existing server: work in a new directory of our own. */
		char name[32];
		uint32_t rnd;

		for (int i = 0; i < 5; i++) {
			if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
				rnd = (uint32_t)mgb_clock_ns(CLOCK_MONOTONIC);
			snprintf(name, sizeof(name), "/mgbench.%08x", rnd);
			e = nfs_mkdir2(first->nfs, name, 0700);
			if (e != -EEXIST)
				break;
		}
		if (e != 0) {
			mgb_err(err, "%s: cannot make a directory %s: %s", root, name, nfs_get_error(first->nfs));
			nfs_fini_be(be);
			return -1;
		}
		free(p->subdir);
		p->subdir = strdup(name);
		p->made_subdir = true;
	}
	return 0;
}

static int nfs3_init(struct mgb_backend *be, const char *root, char *err)
{
	return nfs_init_be(be, 3, root, err);
}

static int nfs4_init(struct mgb_backend *be, const char *root, char *err)
{
	return nfs_init_be(be, 4, root, err);
}

/* ---- files ---- */

/* The calling client's handle of f, opened on first use; NULL with *e. */
static struct nfsfh *handle_of(struct nfs_priv *p, struct nfs_client *c, struct nfs_file *nf, unsigned *slot, int *e)
{
	struct nfsfh *fh = NULL;
	unsigned i;

	pthread_mutex_lock(&nf->lock);
	for (i = 0; i < nf->n; i++)
		if (nf->h[i].c == c) {
			fh = nf->h[i].fh;
			break;
		}
	pthread_mutex_unlock(&nf->lock);
	if (fh) {
		*slot = i;
		return fh;
	}
	/* Another client's first use: open the existing file, without creating or truncating. */
	*e = cerr(c, nfs_open(c->nfs, nf->path, nf->flags & ~(O_CREAT | O_EXCL | O_TRUNC), &fh));
	if (*e < 0)
		return NULL;
	pthread_mutex_lock(&nf->lock);
	if (nf->n == NFS_MAX_HANDLES) {
		pthread_mutex_unlock(&nf->lock);
		nfs_close(c->nfs, fh);
		*e = -EMFILE;
		return NULL;
	}
	*slot = nf->n;
	nf->h[nf->n].c = c;
	nf->h[nf->n].fh = fh;
	nf->n++;
	pthread_mutex_unlock(&nf->lock);
	return fh;
}

/* What an operation on an open file works with: this thread's client and its handle of it. */
struct nfs_call {
	struct nfs_priv *p;
	struct nfs_client *c;
	struct nfsfh *fh;
	unsigned slot; /* the handle's index in the file's h[] */
};

/* 0 with k filled in, or -errno: no usable client, or the file cannot be opened on it. */
static int file_call(struct mgb_backend *be, struct mgb_file *f, struct nfs_call *k)
{
	int e;

	k->p = priv_of(be);
	k->slot = 0;
	e = get_client(k->p, &k->c);
	if (e)
		return e;
	e = -EIO;
	k->fh = handle_of(k->p, k->c, f->priv, &k->slot, &e);
	return k->fh ? 0 : e;
}

static int nfs_open_be(struct mgb_backend *be, const char *path, int flags, mode_t mode, struct mgb_file *f)
{
	struct nfs_priv *p = priv_of(be);
	struct nfs_file *nf;
	struct nfsfh *fh = NULL;
	int r;
	struct nfs_client *c;
	int ce = get_client(p, &c);

	if (ce)
		return ce;

	nf = calloc(1, sizeof(*nf));
	if (!nf || !(nf->path = full_path(p, path))) {
		free(nf);
		return -ENOMEM;
	}
	r = flags & O_CREAT ? nfs_create(c->nfs, nf->path, flags, (int)mode, &fh) : nfs_open(c->nfs, nf->path, flags, &fh);
	if (r < 0) {
		free(nf->path);
		free(nf);
		return cerr(c, r);
	}
	pthread_mutex_init(&nf->lock, NULL);
	nf->flags = flags;
	nf->h[0].c = c;
	nf->h[0].fh = fh;
	nf->n = 1;
	f->fd = -1;
	f->priv = nf;
	return 0;
}

/* Every client's handle, each on its own context (the threads that used them have finished). */
static int nfs_close_be(struct mgb_backend *be, struct mgb_file *f)
{
	struct nfs_file *nf = f->priv;
	int r = 0;

	if (!nf)
		return 0;
	for (unsigned i = 0; i < nf->n; i++) {
		struct nfs_client *c = nf->h[i].c;
		int e;

		/* A broken client's close fails, but it is the only way to free libnfs's handle:
		 * with the shortest timeout, where a dead socket does not fail it at once.  With a
		 * call in flight, not even that (see in_flight()): the handle goes with the context. */
		if (c->broken && in_flight(c)) {
			leak_on_purpose(nf->h[i].fh); /* the context does not hold it: it is ours to leak */
			e = 0;
		} else {
			if (c->broken)
				nfs_set_timeout(c->nfs, 1000);
			e = cerr(c, nfs_close(c->nfs, nf->h[i].fh));
			if (c->broken)
				e = 0;
		}

		if (r == 0)
			r = e;
		free(nf->h[i].fh4);
	}
	pthread_mutex_destroy(&nf->lock);
	free(nf->path);
	free(nf);
	f->priv = NULL;
	return r;
}

static ssize_t nfs_pwrite_be(struct mgb_backend *be, struct mgb_file *f, const void *buf, size_t len, off_t off)
{
	size_t done = 0, max;
	struct nfs_call k;
	int ke = file_call(be, f, &k);

	if (ke)
		return ke;

	max = k.p->version == 4 ? NFS4_WRITE_MAX : len;
	do {
		size_t n = len - done < max ? len - done : max;
		int r = nfs_pwrite(k.c->nfs, k.fh, (uint64_t)off + done, n, (char *)buf + done);

		/* A failed piece fails the write, not a short count: the cell says why (timed out),
		 * and the client is broken, so the next call does not wait again. */
		if (r < 0)
			return cerr(k.c, r);
		done += (size_t)r;
		if ((size_t)r < n)
			break;
	} while (done < len);
	return (ssize_t)done;
}

static ssize_t nfs_pread_be(struct mgb_backend *be, struct mgb_file *f, void *buf, size_t len, off_t off)
{
	size_t done = 0, max;
	struct nfs_call k;
	int ke = file_call(be, f, &k);

	if (ke)
		return ke;

	max = k.p->version == 4 ? NFS4_READ_MAX : len;
	/* libnfs 4.0.0 keeps whole pages of a v3 file in a per-handle cache despite
	 * nfs_set_pagecache(0), and serves later reads from it: another client's writes would
	 * never be seen.  Every read goes to the server. */
	if (k.p->version == 3)
		nfs_pagecache_invalidate(k.c->nfs, k.fh);
	do {
		size_t n = len - done < max ? len - done : max;
		int r = nfs_pread(k.c->nfs, k.fh, (uint64_t)off + done, n, (char *)buf + done);

		if (r < 0)
			return cerr(k.c, r);
		done += (size_t)r;
		if ((size_t)r < n)
			break;
	} while (done < len);
	return (ssize_t)done;
}

static int nfs_fstat_be(struct mgb_backend *be, struct mgb_file *f, unsigned want, struct mgb_stat *st)
{
	struct nfs_stat_64 s;
	int r;
	struct nfs_call k;
	int ke = file_call(be, f, &k);

	if (ke)
		return ke;

	if (k.p->version == 4) {
		struct nfs_file *nf = f->priv;

		if (!nf->h[k.slot].fh4) {
			/* The handle libnfs holds is opaque: ask the server once for the same one. */
			r = raw_lookup(k.p, k.c, nf->path, OP_GETFH);
			if (r < 0)
				return r;
			nf->h[k.slot].fh4 = k.c->raw.fh;
			nf->h[k.slot].fh4_len = k.c->raw.fh_len;
			k.c->raw.fh = NULL;
		}
		r = raw_fstat(k.p, k.c, nf->h[k.slot].fh4, nf->h[k.slot].fh4_len, st);
		if (r == 0 && (st->mask & MGB_STAT_CHANGE) && (st->mask & MGB_STAT_CTIME)) {
			pthread_mutex_lock(&k.p->last_lock);
			k.p->have_last = true;
			k.p->last_change = st->change;
			k.p->last_ctime = st->ctime;
			pthread_mutex_unlock(&k.p->last_lock);
		}
		return r;
	}
	r = nfs_fstat64(k.c->nfs, k.fh, &s);
	if (r < 0)
		return cerr(k.c, r);
	from_stat64(&s, st);
	return 0;
}

static int nfs_stat_be(struct mgb_backend *be, const char *path, unsigned want, struct mgb_stat *st)
{
	struct nfs_priv *p = priv_of(be);
	struct nfs_stat_64 s;
	char *full;
	int r;
	struct nfs_client *c;
	int ce = get_client(p, &c);

	if (ce)
		return ce;

	full = full_path(p, path);
	if (!full)
		return -ENOMEM;
	if (p->version == 4) {
		r = raw_lookup(p, c, full, OP_GETATTR);
		if (r == 0)
			*st = c->raw.st;
	} else {
		r = cerr(c, nfs_lstat64(c->nfs, full, &s));
		if (r == 0)
			from_stat64(&s, st);
	}
	free(full);
	return r;
}

static int nfs_fsync_be(struct mgb_backend *be, struct mgb_file *f)
{
	struct nfs_call k;
	int ke = file_call(be, f, &k);

	if (ke)
		return ke;

	return cerr(k.c, nfs_fsync(k.c->nfs, k.fh));
}

static int nfs_ftruncate_be(struct mgb_backend *be, struct mgb_file *f, off_t len)
{
	struct nfs_call k;
	int ke = file_call(be, f, &k);

	if (ke)
		return ke;

	return cerr(k.c, nfs_ftruncate(k.c->nfs, k.fh, (uint64_t)len));
}

static int nfs_fchmod_be(struct mgb_backend *be, struct mgb_file *f, mode_t mode)
{
	struct nfs_call k;
	int ke = file_call(be, f, &k);

	if (ke)
		return ke;

	return cerr(k.c, nfs_fchmod(k.c->nfs, k.fh, (int)mode));
}

/* v3 only: libnfs has no futimes, and on v4 a path-based SETATTR kills the open handles. */
static int nfs3_futimens_now(struct mgb_backend *be, struct mgb_file *f)
{
	struct nfs_file *nf = f->priv;
	struct nfs_call k;
	int ke = file_call(be, f, &k);

	if (ke)
		return ke;

	return cerr(k.c, nfs_utimes(k.c->nfs, nf->path, NULL)); /* NULL: the server's time */
}

/* Path operations; fn gets the client's context and the full path(s). */
static int nfs_path2(struct mgb_backend *be, const char *a, const char *b,
		     int (*fn)(struct nfs_context *, const char *, const char *))
{
	struct nfs_priv *p = priv_of(be);
	char *fa, *fb;
	int r = -ENOMEM;
	struct nfs_client *c;
	int ce = get_client(p, &c);

	if (ce)
		return ce;

	fa = full_path(p, a);
	fb = full_path(p, b);
	if (fa && fb)
		r = cerr(c, fn(c->nfs, fa, fb));
	free(fa);
	free(fb);
	return r;
}

static int nfs_rename_be(struct mgb_backend *be, const char *from, const char *to)
{
	return nfs_path2(be, from, to, nfs_rename);
}

static int nfs_link_be(struct mgb_backend *be, const char *from, const char *to)
{
	return nfs_path2(be, from, to, nfs_link);
}

static int nfs_path1(struct mgb_backend *be, const char *a, int mode, int op)
{
	struct nfs_priv *p = priv_of(be);
	char *fa;
	int r;
	struct nfs_client *c;
	int ce = get_client(p, &c);

	if (ce)
		return ce;

	fa = full_path(p, a);
	if (!fa)
		return -ENOMEM;
	r = op == 0 ? nfs_unlink(c->nfs, fa) : op == 1 ? nfs_mkdir2(c->nfs, fa, mode) : nfs_rmdir(c->nfs, fa);
	free(fa);
	return cerr(c, r);
}

static int nfs_unlink_be(struct mgb_backend *be, const char *path)
{
	return nfs_path1(be, path, 0, 0);
}

static int nfs_mkdir_be(struct mgb_backend *be, const char *path, mode_t mode)
{
	return nfs_path1(be, path, (int)mode, 1);
}

static int nfs_rmdir_be(struct mgb_backend *be, const char *path)
{
	return nfs_path1(be, path, 0, 2);
}

/*
 * The last v4 query's change attribute beside the same reply's ctime as Linux nfsd's
 * nfsd4_change_attribute() mixes it into i_version (seconds << 30 + nanoseconds): their
 * difference is the i_version where the server adds i_version to the ctime, and far off where
 * it sends i_version alone or another encoding: time_to_chattr()'s (seconds << 32) + nanoseconds
 * (knfsd without a change cookie: xfs since 6.13), ganesha's ctime in nanoseconds.  An
 * observation of the wire beside knfsd's rule-based server.change_attribute.
 */
static const char *change_looks_like(uint64_t change, struct mgb_ts ct, uint64_t chattr)
{
	if (change == chattr)
		return "ctime (sec << 30 + nsec)";
	if (change > chattr && change - chattr < (1ull << 32))
		return "i_version + ctime (sec << 30 + nsec)";
	if (change == (((uint64_t)ct.sec << 32) | ct.nsec))
		return "ctime (sec << 32 | nsec)";
	if (change == (uint64_t)ct.sec * 1000000000ull + ct.nsec)
		return "ctime in nanoseconds";
	if (change < (1ull << 40))
		return "a counter (i_version alone)";
	return "none of these";
}

static json_t *change_sample(struct nfs_priv *p)
{
	uint64_t change, chattr;
	struct mgb_ts ct;
	bool have;

	pthread_mutex_lock(&p->last_lock);
	have = p->have_last;
	change = p->last_change;
	ct = p->last_ctime;
	pthread_mutex_unlock(&p->last_lock);
	if (!have)
		return json_null();
	chattr = ((uint64_t)ct.sec << 30) + ct.nsec;
	return json_pack("{s:I, s:I, s:I, s:s}", "change", (json_int_t)change, "ctime_chattr", (json_int_t)chattr,
			 "change_minus_ctime_chattr", (json_int_t)(change - chattr), "looks_like",
			 change_looks_like(change, ct, chattr));
}

static json_t *nfs_cell_metrics(struct mgb_backend *be)
{
	struct nfs_priv *p = priv_of(be);

	return json_pack("{s:i, s:I, s:I, s:i, s:o}", "clients", (int)mgb_perthread_count(&p->clients), "calls", (json_int_t)atomic_load(&p->rpcs),
			 "write_call_max_bytes", (json_int_t)(p->version == 4 ? NFS4_WRITE_MAX : 0),
			 "timeout_ms", p->timeout_ms, "change_sample", change_sample(p));
}

struct mgb_serve_how mgb_backend_serve_how(const struct mgb_backend_ops *ops, const void *params)
{
	const struct mgb_nfs_params *par = ops->reach != MGB_REACH_LOCAL ? params : NULL;

	return (struct mgb_serve_how){ .reach = ops->reach,
				       .url = par ? par->url : NULL,
				       .knfsd = par && par->server == MGB_NFS_SERVER_KNFSD,
				       .kernel_client = ops->kernel_client,
				       .timeout_s = par ? (unsigned)par->timeout_s : 0 };
}

#define NFS_COMMON_OPS                                  \
	.options = mgb_nfs_options,                     \
	.params_size = sizeof(struct mgb_nfs_params),   \
	.fini = nfs_fini_be,                            \
	.open = nfs_open_be,                            \
	.close = nfs_close_be,                          \
	.pwrite = nfs_pwrite_be,                        \
	.pread = nfs_pread_be,                          \
	.fstat = nfs_fstat_be,                          \
	.stat = nfs_stat_be,                            \
	.fsync = nfs_fsync_be,                          \
	.ftruncate = nfs_ftruncate_be,                  \
	.fchmod = nfs_fchmod_be,                        \
	.rename = nfs_rename_be,                        \
	.link = nfs_link_be,                            \
	.unlink = nfs_unlink_be,                        \
	.mkdir = nfs_mkdir_be,                          \
	.rmdir = nfs_rmdir_be,                          \
	.cell_metrics = nfs_cell_metrics

const struct mgb_backend_ops mgb_backend_nfs3 = {
	.name = "nfs3",
	.summary = "NFSv3 via libnfs, to an embedded nfs-ganesha or --nfs-url",
	.reach = MGB_REACH_NFS3,
	.init = nfs3_init,
	.futimens_now = nfs3_futimens_now,
	NFS_COMMON_OPS,
};

const struct mgb_backend_ops mgb_backend_nfs4 = {
	.name = "nfs4",
	.summary = "NFSv4.0 via libnfs; queries read the change attribute",
	.reach = MGB_REACH_NFS4,
	.init = nfs4_init,
	NFS_COMMON_OPS,
};
