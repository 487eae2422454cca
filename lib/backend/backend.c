#include "config.h"
#include "backend.h"
#include "util.h"

#include <errno.h>
#include <string.h>

const struct mgb_backend_ops *const mgb_backends[] = {
	&mgb_backend_sync,
	NULL,
};

const struct mgb_backend_ops *mgb_backend_find(const char *name)
{
	for (size_t i = 0; mgb_backends[i]; i++)
		if (!strcmp(mgb_backends[i]->name, name))
			return mgb_backends[i];
	return NULL;
}

int mgb_backend_open(struct mgb_backend *be, const struct mgb_backend_ops *ops, const char *root, char *err)
{
	be->ops = ops;
	be->priv = NULL;
	return ops->init(be, root, err);
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
