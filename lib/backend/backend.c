/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"
#include "backend.h"
#include "util.h"
#include "options.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

const struct mgb_backend_ops *const mgb_backends[] = {
	&mgb_backend_sync,
#ifdef HAVE_LIBURING
	&mgb_backend_uring,
#endif
#ifdef HAVE_LIBNFS
	&mgb_backend_nfs3,
	&mgb_backend_nfs4,
	&mgb_backend_nfs3_mount,
	&mgb_backend_nfs4_mount,
#endif
	NULL,
};

const struct mgb_option *mgb_backend_option_first(const char *name)
{
	for (size_t i = 0; mgb_backends[i]; i++) {
		const struct mgb_option *o = mgb_option_table_find(mgb_backends[i]->options, name);

		if (o)
			return o;
	}
	return NULL;
}

const struct mgb_backend_ops *mgb_backend_find(const char *name)
{
	for (size_t i = 0; mgb_backends[i]; i++)
		if (!strcmp(mgb_backends[i]->name, name))
			return mgb_backends[i];
	return NULL;
}

int mgb_backend_open(struct mgb_backend *be, const struct mgb_backend_ops *ops, const void *params,
		     const char *root, char *err)
{
	be->ops = ops;
	be->params = params;
	be->priv = NULL;
	return ops->init(be, root, err);
}

json_t *mgb_backend_to_json(const struct mgb_backend_ops *ops, const void *params)
{
	return json_pack("{s:s, s:o}", "name", ops->name,
			 "options", params ? mgb_option_table_to_json(ops->options, params) : json_object());
}

void mgb_backend_close(struct mgb_backend *be)
{
	if (be->ops && be->ops->fini)
		be->ops->fini(be);
	be->ops = NULL;
}

/* Each operation bit and the member it stands for, in bit order (the order mgb_op_name picks). */
static const struct {
	unsigned op;
	const char *name;
} op_names[] = {
	{ MGB_OP_OPEN, "open" },
	{ MGB_OP_CLOSE, "close" },
	{ MGB_OP_PWRITE, "pwrite" },
	{ MGB_OP_PREAD, "pread" },
	{ MGB_OP_FSTAT, "fstat" },
	{ MGB_OP_PWRITE_FSTAT, "pwrite_fstat" },
	{ MGB_OP_STAT, "stat" },
	{ MGB_OP_FSYNC, "fsync" },
	{ MGB_OP_FTRUNCATE, "ftruncate" },
	{ MGB_OP_FCHMOD, "fchmod" },
	{ MGB_OP_FSETXATTR, "fsetxattr" },
	{ MGB_OP_FUTIMENS_NOW, "futimens_now" },
	{ MGB_OP_FALLOCATE, "fallocate" },
	{ MGB_OP_RENAME, "rename" },
	{ MGB_OP_LINK, "link" },
	{ MGB_OP_UNLINK, "unlink" },
	{ MGB_OP_MKDIR, "mkdir" },
	{ MGB_OP_RMDIR, "rmdir" },
	{ MGB_OP_PWRITE_N, "pwrite_n" },
	{ MGB_OP_FSTAT_N, "fstat_n" },
	{ MGB_OP_COUNTS, "counts" },
};

unsigned mgb_backend_lacks(const struct mgb_backend_ops *ops, unsigned mask)
{
	unsigned lacks = 0;

	for (size_t i = 0; i < MGB_ARRAY_SIZE(op_names); i++)
		if ((mask & op_names[i].op) && !mgb_ops_have(ops, op_names[i].op))
			lacks |= op_names[i].op;
	return lacks;
}

const char *mgb_op_name(unsigned mask)
{
	for (size_t i = 0; i < MGB_ARRAY_SIZE(op_names); i++)
		if (mask & op_names[i].op)
			return op_names[i].name;
	return "?";
}

int mgb_backend_require(const struct mgb_backend_ops *ops, unsigned needs, char *err)
{
	unsigned lacks = mgb_backend_lacks(ops, needs);

	return lacks ? mgb_err(err, "backend '%s' cannot %s", ops->name, mgb_op_name(lacks)) : 0;
}

int mgb_short_write_errno(struct mgb_backend *be, struct mgb_file *f, const void *buf, size_t len, off_t off,
			  size_t done)
{
	ssize_t r = be->ops->pwrite(be, f, (const char *)buf + done, len - done, off + (off_t)done);

	return r < 0 ? (int)r : -EIO;
}

#ifndef HAVE_LIBNFS
struct mgb_serve_how mgb_backend_serve_how(const struct mgb_backend_ops *ops, const void *params)
{
	return (struct mgb_serve_how){ .reach = ops->reach };
}
#endif
