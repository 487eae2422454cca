/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Integration: the cost workload's "journal" on btrfs moves with the inode updates a ctime poller
 * causes.  btrfs commits every 30 s, so its commits read 0 in a phase and made btrfs look free;
 * a timestamp update costs it a transaction join and a delayed-inode update instead, one per
 * ctime change of the file, and nothing when nobody writes.
 *   Every phase's journal count is at least the file's own ctime changes (kernel-counted per
 *   inode), and the idle interval's is 0.
 *   With a ctime poller the journal per 1000 writes exceeds the size poller's by 10 or more.
 *   Measured here (builtin load, 100 kHz poller, 100000 writes a phase, 2 cycles, 3 runs): ctime 119, 145
 *   and 190 per 1000 (single cycles 60 to 200), size 0.6 to 0.9 (one per coarse tick).  10 is
 *   10x the size phase's whole count and a sixth of the lowest ctime cycle; it is judged only when
 *   the poller had a CPU (20 or more query-following writes per 1000), as on a busy machine it
 *   may not.
 */
#include "config.h"
#include "helpers.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MARGIN_PER_1000 10.0

static double num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

int main(void)
{
	const char *path = t_result_path("cost-btrfs.json");
	const char *const args[] = { "run", "cost", "--fs", "btrfs", "--load", "builtin", "--poll-rate", "100000",
				     "--phase-ms", "1000", "--cycles", "2", "-q", "-o", path, NULL };
	struct t_host before;
	struct t_output o;
	json_t *doc, *cell, *ph, *journal;
	char raw[64] = "";
	size_t i;

	t_require(&(struct t_needs){ .root = true, .filesystems = "btrfs" });
	t_host_snapshot(&before);
	t_mgbench(&o, args);
	T_CHECK(o.status == 0, "cost --fs btrfs: exit %d: %s", o.status, o.err);
	t_output_free(&o);
	doc = t_load(path);
	cell = doc ? t_cell(doc, "cost", "btrfs") : NULL;
	T_CHECK(cell != NULL, "a btrfs cell");
	journal = json_object_get(json_object_get(cell, "metrics"), "journal");
	T_CHECK(json_is_string(journal), "btrfs has a journal counter");
	if (json_is_string(journal) && strlen(json_string_value(journal)) > strlen("_per_1000"))
		snprintf(raw, sizeof(raw), "%.*s", (int)(strlen(json_string_value(journal)) - strlen("_per_1000")),
			 json_string_value(journal));

	t_case("each ctime change of the file is a journal count");
	json_array_foreach(json_object_get(json_object_get(cell, "metrics"), "phases"), i, ph) {
		double n = num(json_object_get(ph, "counters"), raw);
		double changes = num(json_object_get(ph, "inode"), "ctime_changes");

		T_CHECK(n >= changes && changes > 0, "%s phase %zu: %s %g for %g ctime changes",
			json_string_value(json_object_get(ph, "kind")), i, raw, n, changes);
	}

	t_case("the journal is still when nobody writes");
	{
		json_t *idle = json_object_get(json_object_get(json_object_get(cell, "metrics"), "idle"), "counters");

		T_CHECK(num(idle, raw) == 0, "idle interval: %s %g", raw, num(idle, raw));
	}

	t_case("a ctime poller costs journal counts the size poller does not");
	{
		double c = t_metric(cell, "ctime.journal_per_1000"), s = t_metric(cell, "size.journal_per_1000");
		double cq = t_metric(cell, "ctime.queried_changes_per_1000");
		json_t *size = t_cost_phase(cell, "size", -1);
		/* unqueried, the size phase's writes share a coarse stamp only while many fall in a tick:
		 * a writer the load slowed to a write a tick changes the ctime each time, as a poller would */
		double sch = 1000 * num(json_object_get(size, "inode"), "ctime_changes") / num(size, "writes");

		T_CHECK(!isnan(c) && !isnan(s), "journal per 1000 writes: ctime %g, size %g", c, s);
		fprintf(stderr, "btrfs: %s per 1000 writes: ctime %g, size %g\n", raw, c, s);
		if (!(cq >= 2 * MARGIN_PER_1000))
			fprintf(stderr, "btrfs: %g query-following writes per 1000 in the ctime phase: the poller "
				"had no CPU (busy machine), journal per 1000 not compared\n", cq);
		else if (!(sch < 500))
			T_NOT_JUDGED("btrfs: the size phase's writer changed the ctime on %g of 1000 writes (a busy "
				     "machine slowed it to a write a tick): journal per 1000 %g against the ctime "
				     "phase's %g not compared", sch, s, c);
		else
			T_CHECK(c > s + MARGIN_PER_1000, "btrfs: journal per 1000 writes with a ctime poller %g, size "
				"poller %g (%g query-following writes per 1000)", c, s, cq);
	}
	t_case_end();
	json_decref(doc);
	t_host_check_clean(&before, "after cost --fs btrfs");
	t_cleanup();
	return t_result();
}
