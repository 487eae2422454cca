/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Integration: the crash workload on real ext4 and xfs, shut down and mounted again each round:
 * every round is accounted for, a filesystem without the shutdown ioctl (btrfs) or a memory one
 * (tmpfs) is unsupported rather than failed, and the crashes leave no mount or loop device.
 */
#include "config.h"
#include "helpers.h"

#include <string.h>

/* Each cycle is in the document, and the counts are those of the cycles. */
static void check_cycles(json_t *c, const char *fs)
{
	json_t *cycles = json_object_get(json_object_get(c, "metrics"), "cycles"), *y;
	double lost = 0, older = 0, reused = 0, behind = 0;
	size_t i;

	T_CHECK(json_array_size(cycles) == t_metric(c, "rounds"), "%s: one record per cycle: %zu of %g", fs,
		json_array_size(cycles), t_metric(c, "rounds"));
	json_array_foreach(cycles, i, y) {
		json_int_t handed = json_integer_value(json_object_get(y, "handed_ctime_ns"));
		json_int_t back = json_integer_value(json_object_get(y, "back_ctime_ns"));
		json_int_t next = json_integer_value(json_object_get(y, "next_ctime_ns"));
		const char *data = json_string_value(json_object_get(y, "data_back"));

		T_CHECK(json_integer_value(json_object_get(y, "round")) == (json_int_t)i + 1 && handed > 0 && back > 0 &&
				next > 0 && data,
			"%s: cycle %zu has its round, stamps and data", fs, i + 1);
		lost += data && strcmp(data, "written");
		older += back < handed;
		reused += next == handed;
		behind += next < handed;
	}
	T_CHECK(lost == t_metric(c, "writes_lost") && older == t_metric(c, "ctime_came_back_older") &&
			reused == t_metric(c, "handed_ctime_reused") && behind == t_metric(c, "next_ctime_behind"),
		"%s: the counts are the cycles': lost %g older %g reused %g behind %g", fs, lost, older, reused, behind);
}

int main(void)
{
	const char *path = t_result_path("crash.json");
	const char *args[] = { "run", "crash", "--fs", "ext4,xfs,btrfs,tmpfs", "--rounds", "5", "-q", "-o", path, NULL };
	struct t_host before;
	struct t_output o;
	json_t *doc;

	t_require(&(struct t_needs){ .root = true, .filesystems = "ext4,xfs,btrfs,tmpfs" });
	t_host_snapshot(&before);
	t_case("crashes");
	t_mgbench(&o, args);
	T_CHECK(o.status == 0, "run crash: exit %d: %s", o.status, o.err);
	doc = t_load(path);
	for (int i = 0; i < 2; i++) {
		const char *fs = i ? "xfs" : "ext4";
		json_t *c = t_cell(doc, "crash", fs);
		double rounds = t_metric(c, "rounds"), lost = t_metric(c, "writes_lost");
		double older = t_metric(c, "ctime_came_back_older"), stale = t_metric(c, "ctime_kept_data_lost");

		T_CHECK(!strcmp(t_str(c, "status") ?: "", "ok") && rounds == 5, "%s: five crashes: %s %g: %s", fs,
			t_str(c, "status") ?: "?", rounds, t_str(c, "error") ?: "");
		/* a round whose ctime came back older, or the same over lost data, lost its write */
		T_CHECK(older + stale <= lost && lost <= rounds, "%s: lost %g, older %g, stale %g of %g", fs, lost, older,
			stale, rounds);
		/* unflushed, the write is gone: this kernel keeps nothing a shutdown did not write */
		T_CHECK(lost == rounds, "%s: every unflushed write lost: %g of %g", fs, lost, rounds);
		check_cycles(c, fs);
	}
	T_CHECK(!strcmp(t_str(t_cell(doc, "crash", "btrfs"), "status") ?: "", "unsupported"),
		"btrfs (no shutdown ioctl) is unsupported");
	T_CHECK(!strcmp(t_str(t_cell(doc, "crash", "tmpfs"), "status") ?: "", "unsupported"), "tmpfs is unsupported");
	json_decref(doc);
	t_output_free(&o);
	t_case_end();
	t_case("nothing left on the host");
	t_host_check_clean(&before, "after the crashes");
	t_case_end();
	t_cleanup();
	return t_result();
}
