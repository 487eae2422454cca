/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"
#include "stop.h"

#include <string.h>

volatile sig_atomic_t mgb_stop_signal;

static void on_stop_signal(int sig)
{
	mgb_stop_signal = sig;
}

void mgb_stop_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a blocking wait should return so the run can notice the request. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}
