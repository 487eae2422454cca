/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The stop request: SIGINT/SIGTERM ask a run to finish the current round, keep its results and tear down. */
#ifndef MGB_STOP_H
#define MGB_STOP_H

#include <signal.h>
#include <stdbool.h>

/* The one piece of process-wide mutable state: a signal handler can only talk through a global. */
extern volatile sig_atomic_t mgb_stop_signal;

void mgb_stop_install(void);

static inline bool mgb_stop_requested(void)
{
	return mgb_stop_signal != 0;
}

#endif
