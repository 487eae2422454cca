/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"
#include "progress.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

void mgb_progress_init(struct mgb_progress *p, bool enabled)
{
	memset(p, 0, sizeof(*p));
	p->enabled = enabled;
}

void mgb_progress_begin(struct mgb_progress *p, const char *label)
{
	snprintf(p->label, sizeof(p->label), "%s", label);
	p->start_ns = p->last_ns = mgb_clock_ns(CLOCK_MONOTONIC);
	p->shown = false;
}

void mgb_progress_update(struct mgb_progress *p, uint64_t done, uint64_t total)
{
	int64_t now;

	if (!p || !p->enabled)
		return;
	now = mgb_clock_ns(CLOCK_MONOTONIC);
	if (now - p->start_ns < MGB_NSEC_PER_SEC || now - p->last_ns < MGB_NSEC_PER_SEC / 2)
		return;
	p->last_ns = now;
	p->shown = true;
	fprintf(stderr, "\r%s: %llu/%llu (%.0f%%)  ", p->label, (unsigned long long)done,
		(unsigned long long)total, total ? 100.0 * (double)done / (double)total : 0.0);
}

void mgb_progress_end(struct mgb_progress *p)
{
	if (p && p->shown)
		fprintf(stderr, "\r%*s\r", 60, "");
	if (p)
		p->shown = false;
}
