/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A workload's file that starts in an overlay's lower layer, so that the workload's first change
 * through the overlay is a copy-up (workloads/lower.c).
 */
#ifndef MGB_LOWER_H
#define MGB_LOWER_H

#include "workload.h"

/*
 * Open name as mgb_be_open would.  On a scratch overlay target reached locally, the file is first
 * made in the lower layer, empty and with old stamps, and opened without O_TRUNC (it is empty):
 * the open for writing copies it up.  ctx->metrics.copy_up counts those files, the copy-ups, and
 * whether each copy kept the lower mtime and atime and got a new ctime.  Not for O_EXCL: a creation cannot
 * start in the lower layer.
 */
int mgb_open_from_lower(struct mgb_ctx *ctx, const char *name, int flags, mode_t mode, struct mgb_file *f);

#endif
