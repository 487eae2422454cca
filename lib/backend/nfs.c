/*
 * The NFS backends, nfs3 and nfs4: every operation as NFS calls through libnfs (sync API), the
 * query being a GETATTR.  The root given to init is an nfs:// URL: the embedded server's
 * (lib/target/ganesha.c, started by the runner) or --nfs-url's, where a new subdirectory is made
 * and removed again.
 *
 * One libnfs context per thread that uses the backend, each its own TCP connection and (v4) its
 * own client id: a workload's threads are separate NFS clients, as revalidate's writer and
 * poller must be.  A file opened by one thread is opened again on another thread's context when
 * that thread first uses it (never twice on one context: libnfs 4.0.0 shares one open-owner per
 * context, and a second OPEN+CLOSE kills the other handle's stateid).
 *
 * libnfs 4.0.0's NFSv4 limits are handled here: a WRITE compound is encoded into a fixed 4 KiB
 * buffer, so writes go out in pieces of NFS4_WRITE_MAX bytes; READ is split at 1 MiB; and the
 * change attribute, which struct nfs_stat_64 lacks, comes from a raw COMPOUND (PUTFH, GETATTR)
 * that is the v4 query itself, so ctime and change are one consistent snapshot.  Leases are
 * never renewed by 4.0.0: the server is told Lease_Lifetime = 120 s, and every WRITE renews.
 *
 * Timeouts: each context has --nfs-timeout (libnfs's nfs_set_timeout) and no automatic
 * reconnect, so a server that dies or stops answering fails the call within that time.
 */
#include "config.h"
#include "backend.h"
#include "stop.h"
#include "util.h"
#include "workload.h"

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

#define NFS_MAX_CLIENTS 80   /* stat: up to 64 query threads + a writer, with room */
#define NFS_MAX_HANDLES NFS_MAX_CLIENTS
#define NFS4_WRITE_MAX 3072  /* libnfs 4.0.0 fails WRITE compounds above ~3.9 KB */
#define NFS4_READ_MAX (1u << 20)
#define NFS_MAX_COMPONENTS 32

struct nfs_params {
	const char *url;
	uint64_t timeout_s;
};

static const struct mgb_workload_option nfs_options[] = {
	{ "nfs-url", MGB_OPT_STRING, offsetof(struct nfs_params, url), NULL,
	  "nfs: use this server (nfs://host/export[?args]) instead of an embedded nfs-ganesha", 0, 0, NULL,
	  NULL },
	{ "nfs-timeout", MGB_OPT_U64, offsetof(struct nfs_params, timeout_s), "5",
	  "nfs: seconds an NFS call may take before the cell fails", 1, 600, NULL, NULL },
	{ 0 },
};

/* What one raw COMPOUND returned, decoded in its callback (the reply lives only there). */
struct raw_result {
	int done;          /* 0 pending, 1 finished */
	int err;           /* -errno */
	nfsstat4 status;
	char *fh;          /* GETFH */
	unsigned fh_len;
	struct mgb_stat st; /* GETATTR */
};

struct nfs_client {
	pthread_t owner;
	struct nfs_context *nfs;
	struct raw_result raw; /* outlives a timed-out call whose callback comes at destroy */
	bool broken;           /* a raw call timed out: the connection's state is unknown */
};

struct nfs_priv {
	int version;
	char *url;         /* what each context parses */
	char *export_path; /* the URL's path: "/export" */
	char *subdir;      /* --nfs-url: our directory under the export ("/mgbench.XXXXXX"), else "" */
	bool made_subdir;
	int timeout_ms;
	uint64_t tag;
	pthread_mutex_t lock; /* guards clients */
	unsigned nclients;
	struct nfs_client *clients[NFS_MAX_CLIENTS];
	atomic_uint_fast64_t rpcs;
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

static __thread struct nfs_priv *tls_priv;
static __thread uint64_t tls_tag;
static __thread struct nfs_client *tls_client;

static struct nfs_priv *priv_of(struct mgb_backend *be)
{
	return be->priv;
}

/*
 * libnfs returns -errno from most calls, -1 from some failures to queue and -EINTR for a call
 * that timed out.  A client whose connection failed or timed out is not used again: each later
 * call (the close at teardown included) would wait out the timeout once more.
 */
static int cerr(struct nfs_client *c, int r)
{
	if (r >= 0)
		return 0;
	if (r == -1)
		r = -EIO;
	if (r == -EINTR && !mgb_stop_requested())
		r = -ETIMEDOUT;
	if (r == -ETIMEDOUT || r == -EIO || r == -ECONNRESET || r == -EPIPE || r == -ENOTCONN)
		c->broken = true;
	return r;
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
		nfs_destroy_context(nfs);
		return NULL;
	}
	if (!p->export_path)
		p->export_path = strdup(u->path);
	nfs_destroy_url(u);
	return nfs;
}

/* This thread's client, connected on first use; NULL with *e = -errno. */
static struct nfs_client *client_of(struct nfs_priv *p, int *e)
{
	struct nfs_client *c = NULL;
	pthread_t self = pthread_self();
	char err[MGB_ERR_LEN];

	if (tls_priv == p && tls_tag == p->tag)
		return tls_client;
	pthread_mutex_lock(&p->lock);
	for (unsigned i = 0; i < p->nclients && !c; i++)
		if (pthread_equal(p->clients[i]->owner, self))
			c = p->clients[i];
	if (!c && p->nclients < NFS_MAX_CLIENTS && (c = calloc(1, sizeof(*c)))) {
		c->nfs = context_new(p, p->nclients, err);
		if (!c->nfs) {
			free(c);
			c = NULL;
			*e = -ECONNREFUSED;
		} else {
			c->owner = self;
			p->clients[p->nclients++] = c;
		}
	} else if (!c) {
		*e = -ENOMEM;
	}
	pthread_mutex_unlock(&p->lock);
	if (c) {
		tls_priv = p;
		tls_tag = p->tag;
		tls_client = c;
	}
	return c;
}

#define CLIENT(p, c)                                   \
	struct nfs_client *c;                          \
	do {                                           \
		int e_ = -EIO;                         \
		if (!(c = client_of(p, &e_)))          \
			return e_;                     \
		if (c->broken)                         \
			return -ENOTCONN;              \
		atomic_fetch_add(&(p)->rpcs, 1);       \
	} while (0)

static char *full_path(struct nfs_priv *p, const char *path)
{
	char *s;

	if (asprintf(&s, "%s/%s", p->subdir, path) < 0)
		return NULL;
	return s;
}

/* ---- raw NFSv4 COMPOUNDs: LOOKUP to a file handle, GETATTR with the change attribute ---- */

static uint64_t get_be64(const unsigned char *b)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | b[i];
	return v;
}

static uint32_t get_be32(const unsigned char *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* libnfs 4.0.0's decoder may leave its arrays unaligned (UBSan sees it): words are copied out. */
static bool has_attr(const bitmap4 *m, unsigned a)
{
	uint32_t w;

	if (a / 32 >= m->bitmap4_len)
		return false;
	memcpy(&w, (const char *)m->bitmap4_val + a / 32 * sizeof(w), sizeof(w));
	return w >> (a % 32) & 1;
}

/* Decode the attributes we ask for, in bitmap order (RFC 7530 §5.1); -1 on a short reply. */
static int decode_fattr4(const fattr4 *fa, struct mgb_stat *st)
{
	const unsigned char *b = (const unsigned char *)fa->attr_vals.attrlist4_val;
	size_t len = fa->attr_vals.attrlist4_len, off = 0;
	static const unsigned order[] = { FATTR4_CHANGE, FATTR4_SIZE, FATTR4_FILEID, FATTR4_TIME_ACCESS,
					  FATTR4_TIME_METADATA, FATTR4_TIME_MODIFY };

	memset(st, 0, sizeof(*st));
	for (size_t i = 0; i < MGB_ARRAY_SIZE(order); i++) {
		unsigned a = order[i];
		size_t need = a >= FATTR4_TIME_ACCESS ? 12 : 8;
		struct mgb_ts t;

		if (!has_attr(&fa->attrmask, a))
			continue;
		if (off + need > len)
			return -1;
		if (need == 12)
			t = (struct mgb_ts){ (int64_t)get_be64(b + off), get_be32(b + off + 8) };
		switch (a) {
		case FATTR4_CHANGE:
			st->change = get_be64(b + off);
			st->mask |= MGB_STAT_CHANGE;
			break;
		case FATTR4_SIZE:
			st->size = get_be64(b + off);
			st->mask |= MGB_STAT_SIZE;
			break;
		case FATTR4_FILEID:
			st->ino = get_be64(b + off);
			break;
		case FATTR4_TIME_ACCESS:
			st->atime = t;
			st->mask |= MGB_STAT_ATIME;
			break;
		case FATTR4_TIME_METADATA:
			st->ctime = t;
			st->mask |= MGB_STAT_CTIME;
			break;
		case FATTR4_TIME_MODIFY:
			st->mtime = t;
			st->mask |= MGB_STAT_MTIME;
			break;
		}
		off += need;
	}
	return 0;
}

static int nfs4_errno(nfsstat4 s)
{
	switch (s) {
	case NFS4_OK:
		return 0;
	case NFS4ERR_NOENT:
		return -ENOENT;
	case NFS4ERR_ACCESS:
	case NFS4ERR_PERM:
		return -EACCES;
	case NFS4ERR_STALE:
	case NFS4ERR_BADHANDLE:
	case NFS4ERR_FHEXPIRED:
		return -ESTALE;
	case NFS4ERR_NOTSUPP:
		return -EOPNOTSUPP;
	default:
		return -EIO;
	}
}

static void raw_cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
	struct raw_result *res = priv;
	COMPOUND4res *r = data;

	res->done = 1;
	if (status != RPC_STATUS_SUCCESS) {
		res->err = status == RPC_STATUS_TIMEOUT ? -ETIMEDOUT : -EIO;
		return;
	}
	res->status = r->status;
	res->err = nfs4_errno(r->status);
	if (r->status != NFS4_OK || !r->resarray.resarray_len)
		return;
	for (u_int i = 0; i < r->resarray.resarray_len; i++) {
		nfs_resop4 op_copy, *op = &op_copy;

		memcpy(&op_copy, (const char *)r->resarray.resarray_val + i * sizeof(op_copy), sizeof(op_copy));

		if (op->resop == OP_GETFH) {
			nfs_fh4 *fh = &op->nfs_resop4_u.opgetfh.GETFH4res_u.resok4.object;

			res->fh = malloc(fh->nfs_fh4_len ? fh->nfs_fh4_len : 1);
			if (!res->fh) {
				res->err = -ENOMEM;
				return;
			}
			memcpy(res->fh, fh->nfs_fh4_val, fh->nfs_fh4_len);
			res->fh_len = fh->nfs_fh4_len;
		} else if (op->resop == OP_GETATTR &&
			   decode_fattr4(&op->nfs_resop4_u.opgetattr.GETATTR4res_u.resok4.obj_attributes, &res->st) < 0) {
			res->err = -EBADMSG;
		}
	}
}

/* Send one COMPOUND on c and wait for it (libnfs's timeout, with our own deadline behind it). */
static int raw_call(struct nfs_priv *p, struct nfs_client *c, nfs_argop4 *ops, unsigned nops)
{
	COMPOUND4args args;
	int64_t deadline = mgb_clock_ns(CLOCK_MONOTONIC) + ((int64_t)p->timeout_ms + 1000) * 1000000;

	if (c->broken)
		return -EIO;
	memset(&args, 0, sizeof(args));
	memset(&c->raw, 0, sizeof(c->raw));
	args.minorversion = 0;
	args.argarray.argarray_len = nops;
	args.argarray.argarray_val = ops;
	if (rpc_nfs4_compound_async(nfs_get_rpc_context(c->nfs), raw_cb, &args, &c->raw) != 0)
		return -EIO;
	while (!c->raw.done) {
		struct pollfd pfd = { .fd = nfs_get_fd(c->nfs), .events = (short)nfs_which_events(c->nfs) };
		int n = poll(&pfd, 1, 100);

		/* With revents 0 too: that is where libnfs times calls out. */
		if ((n < 0 && errno != EINTR) || nfs_service(c->nfs, n > 0 ? pfd.revents : 0) < 0) {
			c->broken = true;
			return -ECONNRESET;
		}
		if (mgb_clock_ns(CLOCK_MONOTONIC) > deadline) {
			c->broken = true;
			return -ETIMEDOUT;
		}
	}
	if (c->raw.err == -ETIMEDOUT || c->raw.err == -EIO)
		c->broken = true;
	return c->raw.err;
}

static void set_component(nfs_argop4 *op, const char *name, size_t len)
{
	op->argop = OP_LOOKUP;
	op->nfs_argop4_u.oplookup.objname.utf8string_len = (u_int)len;
	op->nfs_argop4_u.oplookup.objname.utf8string_val = (char *)name;
}

static const uint32_t getattr_mask[2] = {
	1u << FATTR4_CHANGE | 1u << FATTR4_SIZE | 1u << FATTR4_FILEID,
	1u << (FATTR4_TIME_ACCESS - 32) | 1u << (FATTR4_TIME_METADATA - 32) | 1u << (FATTR4_TIME_MODIFY - 32),
};

static void set_getattr(nfs_argop4 *op)
{
	op->argop = OP_GETATTR;
	op->nfs_argop4_u.opgetattr.attr_request.bitmap4_len = 2;
	op->nfs_argop4_u.opgetattr.attr_request.bitmap4_val = (uint32_t *)getattr_mask;
}

/* PUTROOTFH, one LOOKUP per component of export + path, then last (GETFH or GETATTR). */
static int raw_lookup(struct nfs_priv *p, struct nfs_client *c, const char *path, nfs_opnum4 last)
{
	nfs_argop4 ops[NFS_MAX_COMPONENTS + 2];
	char *joined;
	unsigned n = 0;
	int r;

	if (asprintf(&joined, "%s/%s", p->export_path, path) < 0)
		return -ENOMEM;
	memset(ops, 0, sizeof(ops));
	ops[n++].argop = OP_PUTROOTFH;
	for (char *s = joined; *s;) {
		size_t len = strcspn(s, "/");

		if (len && n == NFS_MAX_COMPONENTS + 1) {
			free(joined);
			return -ENAMETOOLONG;
		}
		if (len)
			set_component(&ops[n++], s, len);
		s += len;
		s += *s == '/';
	}
	if (last == OP_GETATTR)
		set_getattr(&ops[n++]);
	else
		ops[n++].argop = OP_GETFH;
	r = raw_call(p, c, ops, n);
	free(joined);
	return r;
}

static int raw_fstat(struct nfs_priv *p, struct nfs_client *c, const char *fh, unsigned fh_len, struct mgb_stat *st)
{
	nfs_argop4 ops[2];
	int r;

	memset(ops, 0, sizeof(ops));
	ops[0].argop = OP_PUTFH;
	ops[0].nfs_argop4_u.opputfh.object.nfs_fh4_len = fh_len;
	ops[0].nfs_argop4_u.opputfh.object.nfs_fh4_val = (char *)fh;
	set_getattr(&ops[1]);
	r = raw_call(p, c, ops, 2);
	if (r == 0)
		*st = c->raw.st;
	return r;
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
		struct nfs_client *c = client_of(p, &e);

		if (c && !c->broken)
			remove_tree(c->nfs, p->subdir, 0);
	}
	for (unsigned i = 0; i < p->nclients; i++) {
		nfs_destroy_context(p->clients[i]->nfs);
		free(p->clients[i]->raw.fh);
		free(p->clients[i]);
	}
	if (tls_priv == p)
		tls_priv = NULL;
	pthread_mutex_destroy(&p->lock);
	free(p->url);
	free(p->export_path);
	free(p->subdir);
	free(p);
	be->priv = NULL;
}

static int nfs_init_be(struct mgb_backend *be, int version, const char *root, char *err)
{
	const struct nfs_params *par = be->params;
	struct nfs_priv *p = calloc(1, sizeof(*p));
	const char *v;
	int e = 0;

	if (!p)
		return mgb_err(err, "out of memory");
	be->priv = p;
	pthread_mutex_init(&p->lock, NULL);
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
	{
		struct nfs_client *c = calloc(1, sizeof(*c));

		if (!c || !(c->nfs = context_new(p, 0, err))) {
			free(c);
			nfs_fini_be(be);
			return -1;
		}
		c->owner = pthread_self();
		p->clients[p->nclients++] = c;
	}
	if (par && par->url) {
		/* An existing server: work in a new directory of our own. */
		char name[32];
		uint32_t rnd;

		for (int i = 0; i < 5; i++) {
			if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
				rnd = (uint32_t)mgb_clock_ns(CLOCK_MONOTONIC);
			snprintf(name, sizeof(name), "/mgbench.%08x", rnd);
			e = nfs_mkdir2(p->clients[0]->nfs, name, 0700);
			if (e != -EEXIST)
				break;
		}
		if (e != 0) {
			mgb_err(err, "%s: cannot make a directory %s: %s", root, name, nfs_get_error(p->clients[0]->nfs));
			nfs_fini_be(be);
			return -1;
		}
		free(p->subdir);
		p->subdir = strdup(name);
		p->made_subdir = true;
	}
	(void)client_of(p, &e); /* the thread-local pointer for the main thread */
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

#define HANDLE(be, f, p, c, fh, slot)                                         \
	struct nfs_priv *p = priv_of(be);                                     \
	struct nfs_file *nf_ = (f)->priv;                                     \
	struct nfsfh *fh;                                                     \
	unsigned slot = 0;                                                    \
	CLIENT(p, c);                                                         \
	do {                                                                  \
		int e_ = -EIO;                                                \
		if (!(fh = handle_of(p, c, nf_, &slot, &e_)))                 \
			return e_;                                            \
	} while (0)

static int nfs_open_be(struct mgb_backend *be, const char *path, int flags, mode_t mode, struct mgb_file *f)
{
	struct nfs_priv *p = priv_of(be);
	struct nfs_file *nf;
	struct nfsfh *fh = NULL;
	int r;
	CLIENT(p, c);

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
		 * with the shortest timeout, where a dead socket does not fail it at once. */
		if (c->broken)
			nfs_set_timeout(c->nfs, 1000);
		e = cerr(c, nfs_close(c->nfs, nf->h[i].fh));
		if (c->broken)
			e = 0;

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
	HANDLE(be, f, p, c, fh, slot);

	(void)slot;
	max = p->version == 4 ? NFS4_WRITE_MAX : len;
	do {
		size_t n = len - done < max ? len - done : max;
		int r = nfs_pwrite(c->nfs, fh, (uint64_t)off + done, n, (char *)buf + done);

		if (r < 0)
			return done ? (ssize_t)done : cerr(c, r);
		done += (size_t)r;
		if ((size_t)r < n)
			break;
	} while (done < len);
	return (ssize_t)done;
}

static ssize_t nfs_pread_be(struct mgb_backend *be, struct mgb_file *f, void *buf, size_t len, off_t off)
{
	size_t done = 0, max;
	HANDLE(be, f, p, c, fh, slot);

	(void)slot;
	max = p->version == 4 ? NFS4_READ_MAX : len;
	/* libnfs 4.0.0 keeps whole pages of a v3 file in a per-handle cache despite
	 * nfs_set_pagecache(0), and serves later reads from it: another client's writes would
	 * never be seen.  Every read goes to the server. */
	if (p->version == 3)
		nfs_pagecache_invalidate(c->nfs, fh);
	do {
		size_t n = len - done < max ? len - done : max;
		int r = nfs_pread(c->nfs, fh, (uint64_t)off + done, n, (char *)buf + done);

		if (r < 0)
			return done ? (ssize_t)done : cerr(c, r);
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
	HANDLE(be, f, p, c, fh, slot);

	if (p->version == 4) {
		struct nfs_file *nf = f->priv;

		if (!nf->h[slot].fh4) {
			/* The handle libnfs holds is opaque: ask the server once for the same one. */
			r = raw_lookup(p, c, nf->path, OP_GETFH);
			if (r < 0)
				return r;
			nf->h[slot].fh4 = c->raw.fh;
			nf->h[slot].fh4_len = c->raw.fh_len;
			c->raw.fh = NULL;
		}
		return raw_fstat(p, c, nf->h[slot].fh4, nf->h[slot].fh4_len, st);
	}
	r = nfs_fstat64(c->nfs, fh, &s);
	if (r < 0)
		return cerr(c, r);
	from_stat64(&s, st);
	return 0;
}

static int nfs_stat_be(struct mgb_backend *be, const char *path, unsigned want, struct mgb_stat *st)
{
	struct nfs_priv *p = priv_of(be);
	struct nfs_stat_64 s;
	char *full;
	int r;
	CLIENT(p, c);

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
	HANDLE(be, f, p, c, fh, slot);

	(void)slot;
	return cerr(c, nfs_fsync(c->nfs, fh));
}

static int nfs_ftruncate_be(struct mgb_backend *be, struct mgb_file *f, off_t len)
{
	HANDLE(be, f, p, c, fh, slot);

	(void)slot;
	return cerr(c, nfs_ftruncate(c->nfs, fh, (uint64_t)len));
}

static int nfs_fchmod_be(struct mgb_backend *be, struct mgb_file *f, mode_t mode)
{
	HANDLE(be, f, p, c, fh, slot);

	(void)slot;
	return cerr(c, nfs_fchmod(c->nfs, fh, (int)mode));
}

/* v3 only: libnfs has no futimes, and on v4 a path-based SETATTR kills the open handles. */
static int nfs3_futimens_now(struct mgb_backend *be, struct mgb_file *f)
{
	struct nfs_file *nf = f->priv;
	HANDLE(be, f, p, c, fh, slot);

	(void)slot;
	(void)fh;
	return cerr(c, nfs_utimes(c->nfs, nf->path, NULL)); /* NULL: the server's time */
}

/* Path operations; fn gets the client's context and the full path(s). */
static int nfs_path2(struct mgb_backend *be, const char *a, const char *b,
		     int (*fn)(struct nfs_context *, const char *, const char *))
{
	struct nfs_priv *p = priv_of(be);
	char *fa, *fb;
	int r = -ENOMEM;
	CLIENT(p, c);

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
	CLIENT(p, c);

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

static json_t *nfs_cell_metrics(struct mgb_backend *be)
{
	struct nfs_priv *p = priv_of(be);

	return json_pack("{s:i, s:I, s:I, s:i}", "clients", (int)p->nclients, "calls", (json_int_t)atomic_load(&p->rpcs),
			 "write_call_max_bytes", (json_int_t)(p->version == 4 ? NFS4_WRITE_MAX : 0),
			 "timeout_ms", p->timeout_ms);
}

const char *mgb_backend_nfs_url(const struct mgb_backend_ops *ops, const void *params)
{
	const struct nfs_params *par = params;

	return ops->nfs_version && par ? par->url : NULL;
}

#define NFS_COMMON_OPS                                  \
	.options = nfs_options,                         \
	.params_size = sizeof(struct nfs_params),       \
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
	.nfs_version = 3,
	.init = nfs3_init,
	.futimens_now = nfs3_futimens_now,
	NFS_COMMON_OPS,
};

const struct mgb_backend_ops mgb_backend_nfs4 = {
	.name = "nfs4",
	.summary = "NFSv4.0 via libnfs; queries read the change attribute",
	.nfs_version = 4,
	.init = nfs4_init,
	NFS_COMMON_OPS,
};
