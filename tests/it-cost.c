/*
 * Integration: the cost workload's counters read what the filesystem did, and a flag-arming
 * query stream costs ext4 journal handles that the size-only control does not.
 *   50 appending writes each followed by fsync (each changes i_size, so each must reach the log):
 *   ext4 >= 50 jbd2 transactions, xfs >= 50 log forces; btrfs logs fsyncs in its tree log, for
 *   which there is no counter, so it must show >= 50 device writes or commits.
 *   A fast ctime poller: ext4's jbd2 handles per 1000 writes well above the size poller's.
 */
#include "config.h"
#include "helpers.h"

#include <string.h>

static double counter(json_t *cell, const char *key)
{
	json_t *ph = json_array_get(json_object_get(json_object_get(cell, "metrics"), "phases"), 0);
	json_t *v = json_object_get(json_object_get(ph, "counters"), key);

	return json_is_number(v) ? json_number_value(v) : -1;
}

int main(void)
{
	const char *path = t_result_path("fsync.json");
	const char *const fsync_args[] = { "run", "cost", "--fs", "ext4,xfs,btrfs", "--mode", "append", "--sync", "fsync",
					   "--poll", "none", "--cycles", "1", "--rounds", "50", "-q", "-o", path, NULL };
	char path2[600];
	const char *const poll_args[] = { "run", "cost", "--fs", "ext4,xfs,btrfs,tmpfs", "--poll-rate", "100000",
					  "--cycles", "1", "--rounds", "100000", "-o", path2, NULL };
	struct t_host before;
	struct t_output o;
	json_t *doc, *cell;

	t_require_root();
	t_host_snapshot(&before);
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

	snprintf(path2, sizeof(path2), "%s", t_result_path("poll.json"));
	t_mgbench(&o, poll_args);
	T_CHECK(o.status == 0, "cost with pollers: exit %d: %s", o.status, o.err);
	for (const char *l = o.out; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "")
		T_CHECK(strcspn(l, "\n") <= 72, "line over 72 columns: %.*s", (int)strcspn(l, "\n"), l);
	t_output_free(&o);
	doc = t_load(path2);
	for (size_t i = 0; doc && i < json_array_size(json_object_get(doc, "cells")); i++) {
		cell = json_array_get(json_object_get(doc, "cells"), i);
		T_CHECK(!strcmp(json_string_value(json_object_get(cell, "status")), "ok") &&
				t_metric(cell, "ctime_size_ratio") > 0 && t_metric(cell, "ctime_none_ratio") > 0,
			"%s: a complete cell", json_string_value(json_object_get(cell, "fs")));
	}
	cell = doc ? t_cell(doc, "cost", "ext4") : NULL;
	T_CHECK(t_metric(cell, "ctime.journal_per_1000") > 2 * t_metric(cell, "size.journal_per_1000") + 1,
		"ext4: jbd2 handles per 1000 writes with a ctime poller (%g) well above the size poller's (%g)",
		t_metric(cell, "ctime.journal_per_1000"), t_metric(cell, "size.journal_per_1000"));
	json_decref(doc);
	t_host_check_clean(&before, "after cost");
	return t_result();
}
