/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Raw NFSv4 COMPOUNDs, which libnfs 4.0.0's sync API does not offer: LOOKUP to a file handle
 * (PUTROOTFH, LOOKUP..., GETFH) and GETATTR with the change attribute (PUTFH, GETATTR), sent
 * asynchronously and serviced here with a deadline, and decoded in the reply's callback (the
 * reply lives only there).  A small protocol library for nfs.c.
 */
#include "config.h"
#include "nfs4_raw.h"
#include "util.h"

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NFS_MAX_COMPONENTS 32

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
	struct nfs4_raw_result *res = priv;
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
static int raw_call(struct nfs4_conn *c, nfs_argop4 *ops, unsigned nops)
{
	COMPOUND4args args;
	int64_t deadline = mgb_clock_ns(CLOCK_MONOTONIC) + ((int64_t)c->timeout_ms + 1000) * 1000000;

	if (*c->broken)
		return -EIO;
	memset(&args, 0, sizeof(args));
	memset(c->res, 0, sizeof(*c->res));
	args.minorversion = 0;
	args.argarray.argarray_len = nops;
	args.argarray.argarray_val = ops;
	if (rpc_nfs4_compound_async(nfs_get_rpc_context(c->nfs), raw_cb, &args, c->res) != 0)
		return -EIO;
	while (!c->res->done) {
		struct pollfd pfd = { .fd = nfs_get_fd(c->nfs), .events = (short)nfs_which_events(c->nfs) };
		int n = poll(&pfd, 1, 100);

		/* With revents 0 too: that is where libnfs times calls out. */
		if ((n < 0 && errno != EINTR) || nfs_service(c->nfs, n > 0 ? pfd.revents : 0) < 0) {
			*c->broken = true;
			return -ECONNRESET;
		}
		if (mgb_clock_ns(CLOCK_MONOTONIC) > deadline) {
			*c->broken = true;
			return -ETIMEDOUT;
		}
	}
	if (c->res->err == -ETIMEDOUT || c->res->err == -EIO)
		*c->broken = true;
	return c->res->err;
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
int nfs4_raw_lookup(struct nfs4_conn *c, const char *export_path, const char *path, nfs_opnum4 last)
{
	nfs_argop4 ops[NFS_MAX_COMPONENTS + 2];
	char *joined;
	unsigned n = 0;
	int r;

	if (asprintf(&joined, "%s/%s", export_path, path) < 0)
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
	r = raw_call(c, ops, n);
	free(joined);
	return r;
}

int nfs4_raw_getattr(struct nfs4_conn *c, const char *fh, unsigned fh_len, struct mgb_stat *st)
{
	nfs_argop4 ops[2];
	int r;

	memset(ops, 0, sizeof(ops));
	ops[0].argop = OP_PUTFH;
	ops[0].nfs_argop4_u.opputfh.object.nfs_fh4_len = fh_len;
	ops[0].nfs_argop4_u.opputfh.object.nfs_fh4_val = (char *)fh;
	set_getattr(&ops[1]);
	r = raw_call(c, ops, 2);
	if (r == 0)
		*st = c->res->st;
	return r;
}
