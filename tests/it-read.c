/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Integration: the read workload.  On the host's multigrain filesystems every round's read
 * updates the atime (its precondition), and neither the ctime nor, over NFSv4, the change
 * attribute moves with it; a backend without a change attribute gives null, not 0.
 */
#include "config.h"
#include "helpers.h"

#include <string.h>

int main(void)
{
	const char *path = t_result_path("read.json");
	const char *args[] = { "run", "read", "--fs", "ext4,xfs,tmpfs", "--rounds", "2000", "-q", "-o", path, NULL };
	static const char *const fs[] = { "ext4", "xfs", "tmpfs" };
	struct t_output o;
	json_t *doc;

	t_require(&(struct t_needs){ .root = true, .filesystems = "ext4,xfs,tmpfs" });
	t_case("local reads");
	t_mgbench(&o, args);
	T_CHECK(o.status == 0, "run read: exit %d: %s", o.status, o.err);
	doc = t_load(path);
	for (size_t i = 0; i < 3; i++) {
		json_t *c = t_cell(doc, "read", fs[i]);
		double updated = t_metric(c, "atime_updated");

		T_CHECK(t_metric(c, "rounds") == 2000, "%s: 2000 rounds: %g", fs[i], t_metric(c, "rounds"));
		/* a fine mtime from the last round's query is always past the atime: every read updates it
		 * (but the first, whose write may share the file's creation tick) */
		T_CHECK(updated >= 1999, "%s: every read updated the atime: %g", fs[i], updated);
		T_CHECK(t_metric(c, "ctime_moved_by_read") == 0, "%s: no read moved the ctime: %g", fs[i],
			t_metric(c, "ctime_moved_by_read"));
		T_CHECK(json_is_null(json_object_get(json_object_get(c, "metrics"), "change_moved_by_read")),
			"%s: no change attribute through statx: null", fs[i]);
	}
	json_decref(doc);
	t_output_free(&o);
	t_case_end();
#ifdef HAVE_LIBNFS
	t_case("reads over NFSv4");
	{
		const char *nargs[] = { "run", "read", "--fs", "ext4", "--backend", "nfs4", "--rounds", "300", "-q", "-o",
					path, NULL };
		json_t *c;

		t_mgbench(&o, nargs);
		T_CHECK(o.status == 0, "run read over nfs4: exit %d: %s", o.status, o.err);
		doc = t_load(path);
		c = t_cell_backend(doc, "read", "ext4", "nfs4");
		T_CHECK(t_metric(c, "atime_updated") > 0, "reads over nfs4 updated the atime: %g",
			t_metric(c, "atime_updated"));
		T_CHECK(t_metric(c, "change_moved_by_read") == 0, "ganesha's change attribute did not move on a read: %g",
			t_metric(c, "change_moved_by_read"));
		json_decref(doc);
		t_output_free(&o);
	}
	t_case_end();
#endif
	t_cleanup();
	return t_result();
}
