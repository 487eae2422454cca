/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Integration: the cost workload's counters read what the filesystem did, and a flag-arming
 * query stream costs ext4 journal handles that the size-only control does not.
 *   50 appending writes each followed by fsync (each changes i_size, so each must reach the log):
 *   ext4 >= 50 jbd2 transactions, xfs >= 50 log forces; btrfs logs fsyncs in its tree log, for
 *   which there is no counter, so it must show >= 50 device writes or commits.
 *   A fast ctime poller on ext4, judged on what the cell records rather than on rates: each ctime
 *   change of the file took a jbd2 handle, the ctime poller's query-following writes (counted per
 *   inode by the kernel) outnumber the size poller's, and each of them took a handle.  Comparing
 *   handles per 1000 writes with the size phase's alone failed on a busy machine: the poller and
 *   the writer time-slice one CPU, so queries bunch up and few writes follow one, and other
 *   processes' fine stamps lift the global floor, which changes the unqueried file's ctime (and
 *   costs handles) in the size and none phases too.
 *   Phases sized by time (--phase-ms): each wrote for its time, its rate is its writes over that
 *   time, the order rotates between cycles, the ratios are the medians of each cycle's pair,
 *   the background is taken out by time, and phases under a second are flagged.
 *   --crosstalk: nobody queries the measured file, yet while another process does write+statx on
 *   a tmpfs, its ctime changes many times a tick (the global floor) and ext4 pays a handle each.
 */
#include "config.h"
#include "helpers.h"
#include "result.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double counter(json_t *cell, const char *key)
{
	json_t *ph = json_array_get(json_object_get(json_object_get(cell, "metrics"), "phases"), 0);
	json_t *v = json_object_get(json_object_get(ph, "counters"), key);

	return json_is_number(v) ? json_number_value(v) : -1;
}

/* A warning of the cell contains text. */
static bool warns(json_t *cell, const char *text)
{
	json_t *w;
	size_t i;

	json_array_foreach(json_object_get(cell, "warnings"), i, w)
		if (strstr(json_string_value(w) ?: "", text))
			return true;
	return false;
}

/* The first phase of a kind. */
#define phase(cell, kind) t_cost_phase(cell, kind, -1)

/* A number in a sub-object (or the object itself: sub NULL) of a phase; -1 if none. */
static double num(json_t *ph, const char *sub, const char *key)
{
	json_t *v = sub ? json_object_get(json_object_get(ph, sub), key) : json_object_get(ph, key);

	return json_is_number(v) ? json_number_value(v) : -1;
}

/*
 * The share of a crosstalk phase's window in which its writer and the other process certainly ran
 * side by side (their CPU times less the window): the floor the other process lifts meets the
 * measured file only when its writer runs at the same time; taking turns on one CPU (a busy
 * machine), only once a turn.
 */
static double side_by_side(json_t *x)
{
	double window = num(x, NULL, "window_ns");

	return window > 0 ? (num(x, "cpu_ns", "writer") + num(x, "other_process", "cpu_ns") - window) / window : -1;
}

/*
 * --poll-rate 100,max: one cell per rate, in that order; the flat-out poller reaches many times
 * the paced one's rate and so arms the flag before far more writes; plot draws the sweep by
 * default.
 */
static void poll_rate_sweep(void)
{
	char path[600], txt[600];
	const char *const args[] = { "run", "cost", "--load", "builtin", "--fs", "ext4", "--poll-rate",
				     "100,max", "--phase-ms", "300", "--cycles", "1", "-q", "-o", path, NULL };
	const char *const plot[] = { "plot", path, "-o", txt, NULL };
	struct t_output o;
	json_t *doc, *slow, *fast;
	double fast_room, overlap;
	char *picture;

	snprintf(path, sizeof(path), "%s", t_result_path("sweep.json"));
	snprintf(txt, sizeof(txt), "%s", t_result_path("sweep.txt"));
	t_mgbench(&o, args);
	T_CHECK(o.status == 0, "cost --poll-rate 100,max: exit %d: %s", o.status, o.err);
	t_output_free(&o);
	doc = t_load(path);
	slow = json_array_get(json_object_get(doc, "cells"), 0);
	fast = json_array_get(json_object_get(doc, "cells"), 1);
	T_CHECK(json_array_size(json_object_get(doc, "cells")) == 2 &&
			json_integer_value(mgb_json_path(slow, "params.poll-rate")) == 100 &&
			!strcmp(json_string_value(mgb_json_path(fast, "params.poll-rate")) ?: "", "max"),
		"one cell per rate, 100 then max");
	/* paced at 100 Hz over a window of 300 ms and a little more: never faster; slower only where
	 * the machine did not wake the poller in time (26/s beside the suite at load 25), and then the
	 * cell says the rate was not reached */
	double paced = t_metric(slow, "ctime.polls_per_s");

	T_CHECK(paced > 0 && paced < 150, "the paced poller: %g queries/s, asked 100", paced);
	T_CHECK(paced >= 75 || warns(slow, "--poll-rate 100 was not reached"),
		"the paced poller ran at %g queries/s, and its cell %s", paced,
		warns(slow, "--poll-rate 100 was not reached") ? "says the rate was not reached" : "does not say so");
	/* a write follows a query at most as often as either happened: both need the CPU */
	fast_room = fmin(json_number_value(json_object_get(phase(fast, "ctime"), "writes")),
			 json_number_value(json_object_get(phase(fast, "ctime"), "polls")));
	/*
	 * and many writes follow a query only while the two threads run side by side: taking turns
	 * on one CPU (a busy machine), a query precedes only the first write of each turn.  The time
	 * they certainly overlapped is their CPU times less the window.
	 */
	overlap = num(phase(fast, "ctime"), "cpu_ns", "writer") + num(phase(fast, "ctime"), "cpu_ns", "poller") -
		       num(phase(fast, "ctime"), NULL, "window_ns");
	if (t_metric(fast, "ctime.polls_per_s") < 1000 ||
	    fast_room < 10 * num(phase(slow, "ctime"), "inode", "queried_changes"))
		T_NOT_JUDGED("the max poller or its writer had no CPU (%g queries/s, room for %g query-following "
			     "writes): its writes against the paced poller's", t_metric(fast, "ctime.polls_per_s"),
			     fast_room);
	else if (overlap < 0.2 * num(phase(fast, "ctime"), NULL, "window_ns"))
		T_NOT_JUDGED("the max poller and its writer ran side by side for %.0f ms of %.0f at most (CPU %.0f + "
			     "%.0f ms; they took turns): %g query-following writes against the paced poller's %g",
			     fmax(overlap, 0) / 1e6, num(phase(fast, "ctime"), NULL, "window_ns") / 1e6,
			     num(phase(fast, "ctime"), "cpu_ns", "writer") / 1e6,
			     num(phase(fast, "ctime"), "cpu_ns", "poller") / 1e6,
			     num(phase(fast, "ctime"), "inode", "queried_changes"),
			     num(phase(slow, "ctime"), "inode", "queried_changes"));
	else
		T_CHECK(num(phase(fast, "ctime"), "inode", "queried_changes") >
				5 * num(phase(slow, "ctime"), "inode", "queried_changes"),
			"flat out, more writes follow a query: %g against %g",
			num(phase(fast, "ctime"), "inode", "queried_changes"),
			num(phase(slow, "ctime"), "inode", "queried_changes"));
	json_decref(doc);
	t_mgbench(&o, plot);
	T_CHECK(o.status == 0, "plot of the sweep: exit %d: %s", o.status, o.err);
	t_output_free(&o);
	picture = t_slurp(txt);
	T_CHECK(picture && strstr(picture, "per query rate") && strstr(picture, "ext4"),
		"plot draws the sweep by default, a line per filesystem");
	free(picture);
}

/* --phase-ms 600 --cycles 2: time-sized, rotated, paired, background-corrected, flagged short. */
static void timed_phases(json_t *cell, const char *fs)
{
	json_t *m = json_object_get(cell, "metrics"), *ph, *spread = json_object_get(m, "ctime_size_ratio_spread");
	double r0 = num(t_cost_phase(cell, "ctime", 0), NULL, "writes_per_s") / num(t_cost_phase(cell, "size", 0), NULL, "writes_per_s");
	double r1 = num(t_cost_phase(cell, "ctime", 1), NULL, "writes_per_s") / num(t_cost_phase(cell, "size", 1), NULL, "writes_per_s");
	json_t *rates = mgb_json_path(m, "idle.counters_per_s");
	const char *first0 = NULL, *first1 = NULL;
	bool any_short = false;
	size_t i;

	json_array_foreach(json_object_get(m, "phases"), i, ph) {
		double load = num(ph, NULL, "load_ns"), writes = num(ph, NULL, "writes");

		/* the builtin loop checks the clock before each write: it stops within one write, unless
		 * the machine kept it off the CPU (its CPU time tells) */
		T_CHECK(load >= 600e6, "%s phase %zu wrote for %g ms of 600", fs, i, load / 1e6);
		if (load >= 600e6 + 100e6 && load - num(ph, "cpu_ns", "writer") >= 100e6)
			T_NOT_JUDGED("%s phase %zu wrote for %g ms of 600, off the CPU for %g ms of them: when it stops",
				     fs, i, load / 1e6, (load - num(ph, "cpu_ns", "writer")) / 1e6);
		else
			T_CHECK(load < 600e6 + 100e6, "%s phase %zu wrote for %g ms of 600 (%g ms on the CPU)", fs, i,
				load / 1e6, num(ph, "cpu_ns", "writer") / 1e6);
		T_CHECK(fabs(num(ph, NULL, "writes_per_s") - writes / load * 1e9) < 1e-6 * writes / load * 1e9,
			"%s phase %zu: the rate is its %g writes over its %g ms", fs, i, writes, load / 1e6);
		/* asked 600 ms, a phase is short: unless the load stretched it past a second (1241 ms seen) */
		T_CHECK(json_is_true(json_object_get(ph, "short")) == (load < 1e9), "%s phase %zu: %g ms is %sshort", fs,
			i, load / 1e6, load < 1e9 ? "" : "not ");
		any_short = any_short || load < 1e9;
		if (num(ph, NULL, "position") == 0)
			*(num(ph, NULL, "cycle") == 0 ? &first0 : &first1) = json_string_value(json_object_get(ph, "kind"));
	}
	T_CHECK(first0 && first1 && strcmp(first0, first1), "%s: the order rotates (cycle 0 starts with %s, 1 with %s)",
		fs, first0 ?: "?", first1 ?: "?");
	/* the ratio is the median of the cycles' own ratios, not a ratio of medians */
	T_CHECK(num(spread, NULL, "n") == 2 && fabs(num(spread, NULL, "min") - fmin(r0, r1)) < 1e-9 &&
			fabs(num(spread, NULL, "max") - fmax(r0, r1)) < 1e-9 &&
			fabs(t_metric(cell, "ctime_size_ratio") - (r0 + r1) / 2) < 1e-9,
		"%s: ctime/size %g is the median of the cycles' %g and %g", fs, t_metric(cell, "ctime_size_ratio"), r0, r1);
	T_CHECK(!any_short || (json_is_array(json_object_get(cell, "warnings")) &&
			       strstr(json_string_value(json_array_get(json_object_get(cell, "warnings"),
								       json_array_size(json_object_get(cell, "warnings")) - 1)) ?: "",
				      "phases wrote for under")),
		"%s: the short phases are in the cell's warnings", fs);
	/* the background by time: the corrected figure is the raw one less the idle rate x window */
	ph = t_cost_phase(cell, "ctime", 0);
	T_CHECK(json_is_object(rates) &&
			(json_is_number(json_object_get(rates, "block_writes_per_s")) || !strcmp(fs, "tmpfs")),
		"%s: the idle background as rates per second (tmpfs has no device)", fs);
	if (json_is_number(json_object_get(rates, "block_writes_per_s")))
		T_CHECK(fabs(num(ph, "background_corrected", "block_writes_per_1000") -
			     1000 * (num(ph, "counters", "block_writes") -
				     json_number_value(json_object_get(rates, "block_writes_per_s")) * num(ph, NULL, "window_ns") / 1e9) /
				     num(ph, NULL, "writes")) < 1e-6,
			"%s: block writes less the background by time (%g raw, %g corrected per 1000)", fs,
			num(ph, "counters", "block_writes_per_1000"), num(ph, "background_corrected", "block_writes_per_1000"));
}

int main(void)
{
	const char *path = t_result_path("fsync.json");
	const char *const fsync_args[] = { "run", "cost", "--fs", "ext4,xfs,btrfs", "--mode", "append", "--sync", "fsync",
					   "--poll", "none", "--load", "builtin", "--cycles", "1", "--rounds", "50", "-q", "-o", path, NULL };
	char path2[600];
	const char *const poll_args[] = { "run", "cost", "--load", "builtin", "--fs", T_FS_MULTIGRAIN, "--poll-rate", "100000",
					  "--cycles", "2", "--phase-ms", "600", "-o", path2, NULL };
	const char *const cross_args[] = { "run", "cost", "--load", "builtin", "--crosstalk", "--fs", "ext4,ramfs", "--cycles",
					   "1", "--rounds", "100000", "-q", "-o", path2, NULL };
	struct t_host before;
	struct t_output o;
	json_t *doc, *cell;
	char name[64];

	static const char *const programs[] = { GNUPLOT_PATH, NULL }; /* the sweep's plot */

	t_require(&(struct t_needs){ .root = true, .filesystems = T_FS_MULTIGRAIN, .slow = true, .programs = programs });
	t_host_snapshot(&before);
	t_case("fsync: counters move");
	t_mgbench(&o, fsync_args);
	T_CHECK(o.status == 0, "cost --sync fsync: exit %d: %s", o.status, o.err);
	t_output_free(&o);
	doc = t_load(path);
	cell = doc ? t_cell(doc, "cost", "ext4") : NULL;
	T_CHECK(counter(cell, "jbd2_transactions") >= 50, "ext4: %g jbd2 transactions for 50 fsyncs",
		counter(cell, "jbd2_transactions"));
	T_CHECK(counter(cell, "jbd2_handles") >= 50, "ext4: %g jbd2 handles", counter(cell, "jbd2_handles"));
	/* Each journal commit flushes the loop device's cache: the stat file's flush field moves. */
	T_CHECK(counter(cell, "block_flushes") >= 50, "ext4: %g device flushes for 50 fsyncs",
		counter(cell, "block_flushes"));
	cell = doc ? t_cell(doc, "cost", "xfs") : NULL;
	T_CHECK(counter(cell, "xfs_log_forces") >= 50, "xfs: %g log forces for 50 fsyncs", counter(cell, "xfs_log_forces"));
	cell = doc ? t_cell(doc, "cost", "btrfs") : NULL;
	T_CHECK(counter(cell, "btrfs_commits") >= 0 && counter(cell, "btrfs_commits") + counter(cell, "block_writes") >= 50,
		"btrfs: %g commits and %g device writes for 50 fsyncs", counter(cell, "btrfs_commits"),
		counter(cell, "block_writes"));
	json_decref(doc);

	t_case("pollers");
	snprintf(path2, sizeof(path2), "%s", t_result_path("poll.json"));
	t_mgbench(&o, poll_args);
	T_CHECK(o.status == 0, "cost with pollers: exit %d: %s", o.status, o.err);
	for (const char *l = o.out; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "")
		T_CHECK(strcspn(l, "\n") <= 72, "line over 72 columns: %.*s", (int)strcspn(l, "\n"), l);
	t_output_free(&o);
	doc = t_load(path2);
	for (size_t i = 0; doc && i < json_array_size(json_object_get(doc, "cells")); i++) {
		cell = json_array_get(json_object_get(doc, "cells"), i);
		snprintf(name, sizeof(name), "%s: a complete cell, timed phases", json_string_value(json_object_get(cell, "fs")));
		t_case(name);
		T_CHECK(!strcmp(json_string_value(json_object_get(cell, "status")), "ok") &&
				t_metric(cell, "ctime_size_ratio") > 0 && t_metric(cell, "ctime_none_ratio") > 0,
			"%s: a complete cell", json_string_value(json_object_get(cell, "fs")));
		timed_phases(cell, json_string_value(json_object_get(cell, "fs")));
		T_CHECK(num(phase(cell, "ctime"), "write_clat_ns", "p50") > 0 &&
				num(phase(cell, "ctime"), "write_clat_ns", "p99") >= num(phase(cell, "ctime"), "write_clat_ns", "p50"),
			"%s: the builtin load's write latencies (p50 %g, p99 %g ns)",
			json_string_value(json_object_get(cell, "fs")), num(phase(cell, "ctime"), "write_clat_ns", "p50"),
			num(phase(cell, "ctime"), "write_clat_ns", "p99"));
		t_case_end();
	}
	t_case("ext4: a ctime poller costs handles");
	cell = doc ? t_cell(doc, "cost", "ext4") : NULL;
	{
		json_t *c = phase(cell, "ctime"), *sz = phase(cell, "size");
		double handles = num(c, "counters", "jbd2_handles"), changes = num(c, "inode", "ctime_changes");
		double cq = num(c, "inode", "queried_changes"), sq = num(sz, "inode", "queried_changes");

		T_CHECK(handles >= changes && changes > 0, "ext4: %g jbd2 handles for %g ctime changes", handles, changes);
		T_CHECK(cq > sq && cq > 0, "ext4: query-following writes: ctime poller %g, size poller %g", cq, sq);
		T_CHECK(handles >= cq, "ext4: each query-following write took a handle (%g handles, %g writes)", handles,
			cq);
		json_t *load = json_object_get(json_object_get(json_object_get(cell, "metrics"), "load"), "name");

		T_CHECK(json_is_string(load) && !strcmp(json_string_value(load), "builtin"),
			"ext4: the builtin load recorded");
		/* The rate comparison is only fair when the poller had a CPU: say so when it did not */
		if (cq < 2 * num(sz, "inode", "ctime_changes") + 10)
			T_NOT_JUDGED("ext4: %g query-following writes against %g size-phase ctime changes: handles per "
				     "1000 writes against the size poller's (busy machine)", cq, num(sz, "inode", "ctime_changes"));
		else
			T_CHECK(t_metric(cell, "ctime.journal_per_1000") > t_metric(cell, "size.journal_per_1000"),
				"ext4: jbd2 handles per 1000 writes with a ctime poller (%g) above the size poller's (%g)",
				t_metric(cell, "ctime.journal_per_1000"), t_metric(cell, "size.journal_per_1000"));
	}
	json_decref(doc);

	t_case("crosstalk");
	snprintf(path2, sizeof(path2), "%s", t_result_path("crosstalk.json"));
	t_mgbench(&o, cross_args);
	T_CHECK(o.status == 0, "cost --crosstalk: exit %d: %s", o.status, o.err);
	t_output_free(&o);
	doc = t_load(path2);
	cell = doc ? t_cell(doc, "cost", "ext4") : NULL;
	{
		json_t *al = phase(cell, "alone"), *x = phase(cell, "crosstalk");
		double xch = num(x, "inode", "ctime_changes_per_s"), ach = num(al, "inode", "ctime_changes_per_s");
		double stirred = num(x, "other_process", "ctime_changes_per_s");
		double xwrites = json_number_value(json_object_get(x, "writes_per_s"));

		T_CHECK(stirred >= 0, "ext4: the crosstalk phase records the other process's own counts");
		/*
		 * Its fine stamps can lift the floor at most as often as it got one, so the measured file
		 * cannot see 2500 changes/s unless it made well over that (twice, here): when it had no
		 * CPU (a busy two-CPU machine), the precondition did not happen and nothing is judged.
		 */
		if (stirred < 2 * 2500)
			T_NOT_JUDGED("ext4 crosstalk: the other process saw only %g ctime changes per second (%g "
				     "rounds/s; %g on the measured file alone, %g with it)", stirred,
				num(x, "other_process", "rounds_per_s"), ach, xch);
		/* nor can it change more often than its own writer, which needs the CPU too */
		else if (xwrites < 2 * 2500)
			T_NOT_JUDGED("ext4 crosstalk: the measured file was written only %g times a second", xwrites);
		/* and only when the machine's other processes did not already move the floor that often */
		else if (ach > 2500 / 2)
			T_NOT_JUDGED("ext4 crosstalk: the measured file changed %g times per second alone (other "
				     "processes on the machine move the floor), %g with ours", ach, xch);
		else if (side_by_side(x) < 0.2)
			T_NOT_JUDGED("ext4 crosstalk: its writer and the other process ran side by side for at most "
				     "%.0f %% of the window (CPU %.0f and %.0f ms of %.0f; they took turns): %g changes/s "
				     "with it, %g alone", 100 * fmax(side_by_side(x), 0), num(x, "cpu_ns", "writer") / 1e6,
				     num(x, "other_process", "cpu_ns") / 1e6, num(x, NULL, "window_ns") / 1e6, xch, ach);
		else
			T_CHECK(xch > 2 * ach && xch > 2500, "ext4: the unqueried file's ctime changes per second: %g "
				"with the other process (which saw %g of its own), %g alone", xch, stirred, ach);
		T_CHECK(num(x, "inode", "queried_changes") <= 1 && num(al, "inode", "queried_changes") <= 1,
			"ext4: nobody queried the measured file (%g, %g query-following writes)",
			num(x, "inode", "queried_changes"), num(al, "inode", "queried_changes"));
		T_CHECK(num(x, "counters", "jbd2_handles") >= num(x, "inode", "ctime_changes"),
			"ext4 crosstalk: each ctime change took a handle (%g, %g)", num(x, "counters", "jbd2_handles"),
			num(x, "inode", "ctime_changes"));
		T_CHECK(t_metric(cell, "crosstalk_alone_ratio") > 0, "ext4: crosstalk/alone IOPS ratio recorded");
	}
	t_case("ramfs follows the floor, counted exactly");
	cell = doc ? t_cell(doc, "cost", "ramfs") : NULL;
	{
		json_t *al = phase(cell, "alone"), *x = phase(cell, "crosstalk");
		double ach = num(al, "inode", "ctime_changes_per_s"), xch = num(x, "inode", "ctime_changes_per_s");
		double stirred = num(x, "other_process", "ctime_changes_per_s");
		/* the file changes at most as often as it is written: its writer needs the CPU too */
		double xwrites = json_number_value(json_object_get(x, "writes_per_s"));

		/* not multigrain: counted where the kernel sets its ctime (inode_set_ctime_to_ts) */
		T_CHECK(json_is_integer(json_object_get(json_object_get(al, "inode"), "ctime_changes")) &&
				num(al, "inode", "ctime_changes") > 0,
			"ramfs: the file's ctime changes are counted (%g alone)", num(al, "inode", "ctime_changes"));
		if (stirred < 2 * 2500 || ach > 2500 / 2 || xwrites < 2 * 2500 || side_by_side(x) < 0.2)
			T_NOT_JUDGED("ramfs floor: the other process saw %g changes/s, the file alone changed %g "
				     "times a second, was written %g times a second with it, the two ran side by side "
				     "for at most %.0f %% of the window: %g changes/s with it", stirred, ach, xwrites,
				     100 * fmax(side_by_side(x), 0), xch);
		else
			T_CHECK(xch > 2 * ach && xch > 2500, "ramfs: the floor lifts its coarse stamps too: %g changes/s "
				"with the other process, %g alone", xch, ach);
	}
	json_decref(doc);
	T_RUN(poll_rate_sweep());
	t_case("nothing left on the host");
	t_host_check_clean(&before, "after cost");
	return t_result();
}
