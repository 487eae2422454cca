/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Integration: the read workload through the kernel's own NFS server in a debian:6.12 guest
 * (TCG), the article's case.  The file is made by an NFSv4 create that leaves its atime in the
 * future (knfsd keeps an exclusive create's verifier there); the workload sets it to now, so
 * reads update the atime on ext4 and xfs alike (before, none did).  Then on 6.12 xfs moves the
 * change attribute with every atime update (i_version bumped by any logged inode change once
 * queried) and ext4 does not; neither moves the ctime.
 */
#include "config.h"
#include "helpers.h"

#include <string.h>

#define ROUNDS 100
#define ROUNDS_ARG "100"

int main(void)
{
	const char *path = t_result_path("read-knfsd.json");
	const char *args[] = { "vm", "--quiet", "--kernel", "debian:6.12", "-o", path, "--", "run", "read", "--fs",
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
	json_decref(doc);
	t_case_end();
	t_case("nothing left on the host");
	t_host_check_clean(&before, "after the guest");
	t_case_end();
	t_cleanup();
	return t_result();
}
