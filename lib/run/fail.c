/* SPDX-License-Identifier: GPL-2.0-or-later */
/* How a workload fails (one place decides when a failure is the cell's "unsupported") or warns. */
#include "config.h"
#include "json_text.h"
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

void mgb_warn(struct mgb_ctx *ctx, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (ctx->warnings)
		json_array_append_new(ctx->warnings, mgb_json_text(msg));
}
