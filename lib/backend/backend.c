/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"
#include "backend.h"
#include "util.h"
#include "workload.h"

#include <errno.h>
#include <string.h>

const struct mgb_backend_ops *const mgb_backends[] = {
	&mgb_backend_sync,
#ifdef HAVE_LIBURING
	&mgb_backend_uring,
#endif
#ifdef HAVE_LIBNFS
	&mgb_backend_nfs3,
	&mgb_backend_nfs4,
#endif
	NULL,
};

const struct mgb_workload_option *mgb_backend_option_first(const char *name)
{
	for (size_t i = 0; mgb_backends[i]; i++) {
		const struct mgb_workload_option *o = mgb_option_table_find(mgb_backends[i]->options, name);

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

int mgb_short_write_errno(struct mgb_backend *be, struct mgb_file *f, const void *buf, size_t len, off_t off,
			  size_t done)
{
	ssize_t r = be->ops->pwrite(be, f, (const char *)buf + done, len - done, off + (off_t)done);

	return r < 0 ? (int)r : -EIO;
}

#ifndef HAVE_LIBNFS
const char *mgb_backend_server_url(const struct mgb_backend_ops *ops, const void *params)
{
	return NULL;
}
#endif
