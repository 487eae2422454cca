/* SPDX-License-Identifier: GPL-2.0-or-later */
/* How a workload fails: one place decides when a failure is the cell's "unsupported". */
#include "config.h"
#include "util.h"
#include "workload.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

int mgb_fail(struct mgb_ctx *ctx, int r, const char *fmt, ...)
{
	va_list ap;

	/* The backend or the filesystem cannot do it at all: a fact, reported, not a failed run. */
	if (r == -EOPNOTSUPP)
		ctx->unsupported = true;
	va_start(ap, fmt);
	vsnprintf(ctx->err, sizeof(ctx->err), fmt, ap);
	va_end(ap);
	return -1;
}
