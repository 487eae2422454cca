/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit: cost's warning when a query stream falls far short of --poll-rate.  The phases are
 * written as run_phase records them; what the poller reached is the stream's queries over its
 * windows, judged per polled kind, and never on a stream with room for too few queries to tell.
 */
#include "config.h"
#include "cost.h"
#include "helpers.h"

#include <string.h>

/* One phase of kind with polls queries in window_ms. */
static json_t *phase(const char *kind, double polls, double window_ms)
{
	return json_pack("{s:s, s:I, s:I, s:f}", "kind", kind, "polls", (json_int_t)polls, "window_ns",
			 (json_int_t)(window_ms * 1e6), "polls_per_s", polls / window_ms * 1e3);
}

/* The phases of cycles cycles of none, size, ctime at the given rates (queries per second). */
static json_t *phases(unsigned cycles, double size_rate, double ctime_rate, double window_ms)
{
	json_t *a = json_array();

	for (unsigned c = 0; c < cycles; c++) {
		json_array_append_new(a, phase("none", 0, window_ms));
		json_array_append_new(a, phase("size", size_rate * window_ms / 1e3, window_ms));
		json_array_append_new(a, phase("ctime", ctime_rate * window_ms / 1e3, window_ms));
	}
	return a;
}

static int shortfall(json_t *ph, uint64_t requested, char *msg, size_t len)
{
	int r;

	*msg = 0;
	r = cost_poll_shortfall(ph, requested, msg, len);
	json_decref(ph);
	return r;
}

int main(void)
{
	char msg[300];

	t_case("a rate far above what the poller reached is named, with the rate reached");
	/* as once measured on a VM: 1000000 asked, 33k-44k reached */
	T_CHECK(shortfall(phases(3, 44000, 33000, 500), 1000000, msg, sizeof(msg)) == 1, "1000000 asked, 33k reached");
	T_CHECK(strstr(msg, "--poll-rate 1000000") && strstr(msg, "ctime") && strstr(msg, "33000/s"),
		"the warning names the rate asked, the slower stream and its rate: %s", msg);
	T_CHECK(!strchr(msg, '\n') && strlen(msg) < sizeof(msg) - 1, "one line, not cut: %s", msg);
	/* the size stream alone short */
	T_CHECK(shortfall(phases(1, 1000, 100000, 2000), 100000, msg, sizeof(msg)) == 1 && strstr(msg, "size"),
		"the size stream short: %s", msg);

	t_case("a rate reached, or nearly, is not warned of");
	T_CHECK(shortfall(phases(3, 999000, 1001000, 500), 1000000, msg, sizeof(msg)) == 0, "reached: %s", msg);
	T_CHECK(shortfall(phases(3, 900, 850, 2000), 1000, msg, sizeof(msg)) == 0, "85 %% of it: %s", msg);
	/* max asks for no rate */
	T_CHECK(shortfall(phases(3, 1000, 1000, 500), 0, msg, sizeof(msg)) == 0, "max: %s", msg);

	t_case("too few queries to tell, or no stream, is not judged");
	/* 10/s in 50 ms phases: room for half a query; 0 counted is no shortfall */
	T_CHECK(shortfall(phases(1, 0, 0, 50), 10, msg, sizeof(msg)) == 0, "10/s in 50 ms: %s", msg);
	/* --poll none: no polled phase at all */
	{
		json_t *a = json_array();

		json_array_append_new(a, phase("none", 0, 2000));
		T_CHECK(shortfall(a, 1000000, msg, sizeof(msg)) == 0, "--poll none: %s", msg);
	}
	/* --crosstalk: alone and crosstalk phases, no poller */
	{
		json_t *a = json_array();

		json_array_append_new(a, phase("alone", 0, 2000));
		json_array_append_new(a, phase("crosstalk", 0, 2000));
		T_CHECK(shortfall(a, 1000, msg, sizeof(msg)) == 0, "--crosstalk: %s", msg);
	}
	/* enough queries over several cycles, though each phase alone has few: judged */
	T_CHECK(shortfall(phases(100, 0, 0, 20), 10, msg, sizeof(msg)) == 1, "10/s over 100 x 20 ms, none reached");
	return t_result();
}
