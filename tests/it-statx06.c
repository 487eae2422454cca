/*
 * Integration: `statx06` on scratch ext4, xfs, btrfs and tmpfs made by mgbench, with 0 and 1
 * coarse ticks of waiting.  No stamp is ever above the fine clock read after the change
 * (--check agrees), and with no wait a queried change takes a fine stamp above the coarse
 * bracket, which is what broke the old LTP test.  ramfs reports no btime: null, not zero.
 * Bad options are usage errors naming the option.  The host is left as it was.
 */
#include "config.h"
#include "helpers.h"

#include <math.h>
#include <string.h>

static const char *const groups[] = {
	"create.unqueried", "write.unqueried", "write.queried", "chmod.unqueried", "chmod.queried",
};

static double group_metric(json_t *cell, const char *group, const char *key)
{
	char path[96];

	snprintf(path, sizeof(path), "%s.%s", group, key);
	return t_metric(cell, path);
}

static void run_ticks(const char *ticks, const char *rounds)
{
	static const char *const mg[] = { "ext4", "xfs", "btrfs", "tmpfs" };
	const char *path = t_result_path(!strcmp(ticks, "0") ? "statx06-0.json" : "statx06-1.json");
	const char *const args[] = { "run", "statx06", "--fs", "ext4,xfs,btrfs,tmpfs,ramfs", "--ticks", ticks,
				     "--rounds", rounds, "--check", "-o", path, NULL };
	struct t_output o;
	json_t *doc, *cell;

	t_mgbench(&o, args);
	T_CHECK(o.status == 0, "--ticks %s --check: exit %d: %s", ticks, o.status, o.err);
	for (const char *line = o.out; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "")
		T_CHECK(strcspn(line, "\n") <= 72, "table line over 72 columns: %.*s", (int)strcspn(line, "\n"), line);
	doc = t_load(path);
	T_CHECK(doc != NULL, "--ticks %s: result document written", ticks);
	for (size_t i = 0; doc && i < 4; i++) {
		cell = t_cell(doc, "statx06", mg[i]);
		T_CHECK(cell != NULL, "%s cell present", mg[i]);
		if (!cell)
			continue;
		T_CHECK(!strcmp(json_string_value(json_object_get(cell, "status")), "ok"), "%s ok", mg[i]);
		for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
			T_CHECK(group_metric(cell, groups[g], "rounds") == atof(rounds), "%s %s: rounds %g", mg[i],
				groups[g], group_metric(cell, groups[g], "rounds"));
			T_CHECK(group_metric(cell, groups[g], "above_after_fine") == 0,
				"%s %s --ticks %s: %g stamps above the fine clock", mg[i], groups[g], ticks,
				group_metric(cell, groups[g], "above_after_fine"));
			T_CHECK(group_metric(cell, groups[g], "below_before") == 0, "%s %s --ticks %s: below before",
				mg[i], groups[g], ticks);
		}
		T_CHECK(t_metric(cell, "all.above_after_fine") == 0, "%s all.above_after_fine", mg[i]);
		/* Back-to-back queried writes land in one tick: each needs, and gets, a fine stamp. */
		if (!strcmp(ticks, "0"))
			T_CHECK(group_metric(cell, "write.queried", "above_after") > 0,
				"%s: queried writes with no wait should take fine stamps above the coarse clock", mg[i]);
	}
	cell = doc ? t_cell(doc, "statx06", "ramfs") : NULL;
	T_CHECK(cell != NULL, "ramfs cell present");
	if (cell) {
		json_t *create = json_object_get(json_object_get(cell, "metrics"), "create");

		T_CHECK(json_is_null(json_object_get(create, "unqueried")), "ramfs: no btime, so create is null");
		T_CHECK(json_is_false(json_object_get(json_object_get(cell, "metrics"), "btime_reported")),
			"ramfs: btime_reported false");
		T_CHECK(group_metric(cell, "write.queried", "above_after_fine") == 0, "ramfs above_after_fine");
	}
	json_decref(doc);
	t_output_free(&o);
}

static void bad_option(const char *name, const char *value)
{
	const char *const args[] = { "run", "statx06", name, value, "--fs", "tmpfs", NULL };
	struct t_output o;

	t_mgbench(&o, args);
	T_CHECK(o.status == 2, "%s %s: exit %d, want 2", name, value, o.status);
	T_CHECK(strstr(o.err, name) != NULL, "%s %s: message does not name the option: %s", name, value, o.err);
	t_output_free(&o);
}

int main(void)
{
	struct t_host before;

	t_require_root();
	t_host_snapshot(&before);
	run_ticks("0", "100");
	run_ticks("1", "25");
	bad_option("--ticks", "3");
	bad_option("--ticks", "one");
	bad_option("--change", "rename");
	bad_option("--prequery", "maybe");
	t_host_check_clean(&before, "after statx06");
	t_cleanup();
	return t_result();
}
