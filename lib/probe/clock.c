/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"
#include "json_text.h"
#include "probe.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

static int64_t res_ns(clockid_t c)
{
	struct timespec t;

	return clock_getres(c, &t) == 0 ? mgb_timespec_ns(&t) : -1;
}

void mgb_wait_coarse_ticks(unsigned n)
{
	int64_t last = mgb_clock_ns(CLOCK_REALTIME_COARSE);

	while (n > 0) {
		int64_t now = mgb_clock_ns(CLOCK_REALTIME_COARSE);

		if (now != last) {
			last = now;
			n--;
		}
	}
}

void mgb_wait_coarse_past(int64_t t_ns)
{
	int64_t give_up = mgb_clock_ns(CLOCK_MONOTONIC) + 100 * 1000 * 1000;

	while (mgb_clock_ns(CLOCK_REALTIME_COARSE) <= t_ns && mgb_clock_ns(CLOCK_MONOTONIC) < give_up)
		;
}

/* The smallest step of CLOCK_REALTIME_COARSE seen over a few ticks is the tick. */
static int64_t measure_coarse_tick(void)
{
	int64_t best = 0, last = mgb_clock_ns(CLOCK_REALTIME_COARSE);
	int seen = 0;
	int64_t deadline = mgb_clock_ns(CLOCK_MONOTONIC) + 200 * 1000 * 1000;

	while (seen < 5 && mgb_clock_ns(CLOCK_MONOTONIC) < deadline) {
		int64_t now = mgb_clock_ns(CLOCK_REALTIME_COARSE);

		if (now != last) {
			if (seen++ > 0 && (best == 0 || now - last < best))
				best = now - last; /* the first step may be partial: skip it */
			last = now;
		}
	}
	return best;
}

/* What the fine clock reads: tsc, kvm-clock, or hpet/acpi_pm where every read is an exit. */
static void read_clocksource(char *buf, size_t len)
{
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "re");

	buf[0] = '\0';
	if (f && fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	if (f)
		fclose(f);
}

void mgb_clock_probe(struct mgb_clockinfo *ci)
{
	ci->res_realtime_ns = res_ns(CLOCK_REALTIME);
	ci->res_realtime_coarse_ns = res_ns(CLOCK_REALTIME_COARSE);
	ci->res_monotonic_ns = res_ns(CLOCK_MONOTONIC);
	ci->res_monotonic_coarse_ns = res_ns(CLOCK_MONOTONIC_COARSE);
	/*
	 * The kernel reports its tick as the coarse clocks' resolution (TICK_NSEC).  The step seen
	 * is only an upper bound: a prober that loses its CPU across a tick (a busy machine) sees
	 * two ticks as one step, and would halve every per-tick figure.
	 */
	ci->coarse_step_seen_ns = measure_coarse_tick();
	ci->coarse_tick_ns = ci->res_realtime_coarse_ns > 0 ? ci->res_realtime_coarse_ns : ci->coarse_step_seen_ns;
	ci->hz = ci->coarse_tick_ns > 0 ? 1e9 / (double)ci->coarse_tick_ns : 0;
	read_clocksource(ci->clocksource, sizeof(ci->clocksource));
}

json_t *mgb_clock_to_json(const struct mgb_clockinfo *ci)
{
	return MGB_JSON_PACK("{s:o, s:I, s:I, s:f, s:{s:I, s:I, s:I, s:I}}",
			 "clocksource", ci->clocksource[0] ? mgb_json_text(ci->clocksource) : json_null(),
			 "coarse_tick_ns", (json_int_t)ci->coarse_tick_ns,
			 "coarse_step_seen_ns", (json_int_t)ci->coarse_step_seen_ns,
			 "hz_measured", ci->hz,
			 "resolution_ns",
			 "realtime", (json_int_t)ci->res_realtime_ns,
			 "realtime_coarse", (json_int_t)ci->res_realtime_coarse_ns,
			 "monotonic", (json_int_t)ci->res_monotonic_ns,
			 "monotonic_coarse", (json_int_t)ci->res_monotonic_coarse_ns);
}
