/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A progress line on stderr, only when stderr is a terminal and a run lasts more than a second. */
#ifndef MGB_PROGRESS_H
#define MGB_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

struct mgb_progress {
	bool enabled;
	bool shown;
	int64_t start_ns, last_ns;
	char label[48];
};

void mgb_progress_init(struct mgb_progress *p, bool enabled);
void mgb_progress_begin(struct mgb_progress *p, const char *label);
/* Call every few thousand rounds; prints at most twice a second. */
void mgb_progress_update(struct mgb_progress *p, uint64_t done, uint64_t total);
void mgb_progress_end(struct mgb_progress *p);

#endif
