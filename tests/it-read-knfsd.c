/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Integration: the read workload through the kernel's own NFS server in a debian:6.12 guest
 * (TCG), the article's case.  The file is made by an NFSv4 create that leaves its atime in the
 * future (knfsd keeps an exclusive create's verifier there); the workload sets it to now, so
 * reads update the atime on ext4 and xfs alike (before, none did).  Then on 6.12 xfs moves the
 * change attribute with every atime update (i_version bumped by any logged inode change once
 * queried) and ext4 does not; neither moves the ctime.
 *
 * The same boot runs crash through knfsd: each cycle the client is handed a change attribute
 * for an UNSTABLE write, the exported filesystem is shut down unflushed and brought back under
 * the same export, and the file is read back.  nfsd on 6.12 builds a regular file's change
 * attribute from i_version plus the ctime (nfsd4_change_attribute): a write lost with the log
 * takes its i_version increment and its ctime with it, so a ctime that came back older comes
 * with a smaller change attribute.
 */
#include "config.h"
#include "helpers.h"

#include <stdint.h>
#include <string.h>

#define ROUNDS 10
#define ROUNDS_ARG "10"
/* crash runs in the same boot with the same --rounds: a cycle takes about a second under TCG,
 * a read round far less, so both take few */
#define CRASH_ROUNDS ROUNDS

/* Each cycle records the change attributes, and the counts are the cycles'. */
static void check_crash_cycles(json_t *c, const char *fs)
{
	json_t *cycles = json_object_get(json_object_get(c, "metrics"), "cycles"), *y;
	double smaller = 0, stale = 0, reused = 0, behind = 0, older_not_smaller = 0;
	size_t i;

	T_CHECK(json_array_size(cycles) == t_metric(c, "rounds"), "%s: one record per cycle: %zu of %g", fs,
		json_array_size(cycles), t_metric(c, "rounds"));
	json_array_foreach(cycles, i, y) {
		json_t *h = json_object_get(y, "handed_change"), *b = json_object_get(y, "back_change"),
		       *n = json_object_get(y, "next_change");
		uint64_t handed = (uint64_t)json_integer_value(h), back = (uint64_t)json_integer_value(b),
			 next = (uint64_t)json_integer_value(n);
		const char *data = json_string_value(json_object_get(y, "data_back"));
		bool lost = data && strcmp(data, "written");

		T_CHECK(json_is_integer(h) && json_is_integer(b) && json_is_integer(n) && handed && back && next,
			"%s: cycle %zu has the change attribute handed, back and next", fs, i + 1);
		smaller += back < handed;
		stale += back == handed && lost;
		reused += next == handed;
		behind += next < handed;
		older_not_smaller += json_integer_value(json_object_get(y, "back_ctime_ns")) <
					     json_integer_value(json_object_get(y, "handed_ctime_ns")) &&
				     back >= handed;
	}
	T_CHECK(smaller == t_metric(c, "change_came_back_smaller") && stale == t_metric(c, "change_kept_data_lost") &&
			reused == t_metric(c, "handed_change_reused") && behind == t_metric(c, "next_change_behind"),
		"%s: the change counts are the cycles': smaller %g stale %g reused %g behind %g", fs, smaller, stale,
		reused, behind);
	T_CHECK(older_not_smaller == 0, "%s on 6.12: a ctime that came back older brought a smaller change "
		"attribute (i_version + ctime): %g cycles did not", fs, older_not_smaller);
}

/* crash through knfsd: every cycle done, every unflushed write lost, the change attribute kept. */
static void check_crash(json_t *doc, const char *fs)
{
	json_t *c = t_cell_backend(doc, "crash", fs, "nfs4");
	double rounds = t_metric(c, "rounds"), lost = t_metric(c, "writes_lost");

	T_CHECK(c && !strcmp(t_str(c, "status") ?: "", "ok") && rounds == CRASH_ROUNDS, "crash %s: ok, %d cycles: %s %g (%s)",
		fs, CRASH_ROUNDS, t_str(c, "status") ?: "?", rounds, t_str(c, "error") ?: "");
	if (!c || strcmp(t_str(c, "status") ?: "", "ok"))
		return;
	/* the write was UNSTABLE and nothing committed it before the shutdown, which wrote no log */
	T_CHECK(lost == rounds, "crash %s: every uncommitted write lost: %g of %g", fs, lost, rounds);
	check_crash_cycles(c, fs);
}

int main(void)
{
	const char *path = t_result_path("read-knfsd.json");
	const char *args[] = { "vm", "--quiet", "--kernel", "debian:6.12", "-o", path, "--", "run", "read,crash", "--fs",
			       "ext4,xfs", "--backend", "nfs4", "--nfs-server", "knfsd", "--rounds", ROUNDS_ARG, NULL };
	static const char *const fs[] = { "ext4", "xfs" };
	struct t_host before;
	struct t_output o;
	json_t *doc;

	t_require(&(struct t_needs){ .root = true, .libnfs = true, .slow = true,
				     .programs = (const char *const[]){ "qemu-system-x86_64", "/usr/sbin/rpc.nfsd",
									"/usr/sbin/rpc.mountd", "/usr/sbin/nfsdcld",
									"/usr/sbin/rpcbind", NULL }, .max_runtime_s = 3600 });
	t_host_snapshot(&before);
	t_case("reads through knfsd on 6.12");
	t_mgbench(&o, args);
	T_CHECK(o.status == 0, "vm read: exit %d: %s", o.status, o.err);
	t_output_free(&o);
	doc = t_load(path);
	for (size_t i = 0; doc && i < 2; i++) {
		json_t *c = t_cell_backend(doc, "read", fs[i], "nfs4");
		double updated = t_metric(c, "atime_updated"), moved = t_metric(c, "change_moved_by_read");

		T_CHECK(c && !strcmp(t_str(c, "status"), "ok"), "%s: ok, not %s (%s)", fs[i], t_str(c, "status"),
			t_str(c, "error"));
		if (!c || strcmp(t_str(c, "status"), "ok"))
			continue;
		T_CHECK(json_is_number(json_object_get(json_object_get(c, "metrics"), "created_atime_ahead_s")),
			"%s: how far ahead the created atime was is recorded", fs[i]);
		/* a round is many ticks under TCG: most reads find the tick moved on */
		T_CHECK(updated >= ROUNDS / 4, "%s: reads updated the atime: %g of %d (created %g s ahead)", fs[i],
			updated, ROUNDS, t_metric(c, "created_atime_ahead_s"));
		T_CHECK(t_metric(c, "ctime_moved_by_read") == 0, "%s: no read moved the ctime: %g", fs[i],
			t_metric(c, "ctime_moved_by_read"));
		if (updated <= 0)
			continue;
		if (!strcmp(fs[i], "xfs"))
			T_CHECK(moved == updated, "xfs on 6.12: every atime update moved the change attribute: %g of %g",
				moved, updated);
		else
			T_CHECK(moved == 0, "ext4 on 6.12: no atime update moved the change attribute: %g of %g", moved,
				updated);
	}
	t_case_end();
	t_case("crashes through knfsd on 6.12");
	for (size_t i = 0; doc && i < 2; i++)
		check_crash(doc, fs[i]);
	json_decref(doc);
	t_case_end();
	t_case("nothing left on the host");
	t_host_check_clean(&before, "after the guest");
	t_case_end();
	t_cleanup();
	return t_result();
}
