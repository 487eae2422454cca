/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Integration: `revalidate` on scratch ext4, xfs, btrfs, tmpfs and ramfs made by mgbench.
 * --sequenced: multigrain filesystems miss nothing; ramfs (coarse stamps) misses most versions,
 * all for granularity, none announced before the stat (impossible by construction).  Free-running:
 * the run works and reports the three classes (announced, in-flight, granularity); the races are
 * timing-dependent and not asserted, but a multigrain filesystem never misses for granularity,
 * and the threads are pinned to two CPUs.  Announced misses are called ordering misses
 * (announced_implies_ordering) on the local multigrain filesystems and never on ramfs.  An older
 * document, with the class under its old name "ordering", still compares column for column.
 * Confined to one CPU, the threads cannot run side by side: the cells come back with a handful of
 * fresh polls and are inconclusive (NO in the table, conclusive false, exit 1 under --check),
 * never a clean 0.  SIGINT stops the handshake cleanly, bad options are usage errors, and the
 * host is left as it was.
 */
#include "config.h"
#include "helpers.h"

#include <math.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const mg[] = { "ext4", "xfs", "btrfs", "tmpfs" };

static bool is_integer(json_t *cell, const char *key)
{
	return json_is_integer(json_object_get(json_object_get(cell, "metrics"), key));
}

/* Run revalidate on every filesystem; returns the document (NULL after a recorded failure). */
static json_t *run(const char *mode, const char *rounds)
{
	const char *path = t_result_path(mode ? "sequenced.json" : "free.json");
	const char *const args[] = { "run", "revalidate", "--fs", T_FS_ALL, "--rounds", rounds, "-o", path,
				     mode, NULL };
	struct t_output o;
	json_t *doc;

	t_mgbench(&o, args);
	T_CHECK(o.status == 0, "exit %d: %s", o.status, o.err);
	T_CHECK(strstr(o.out, "gran/frsh") && strstr(o.out, "ann/read") && strstr(o.out, "ramfs"),
		"table printed:\n%s", o.out);
	for (const char *line = o.out; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "")
		T_CHECK(strcspn(line, "\n") <= 72, "table line over 72 columns: %.*s", (int)strcspn(line, "\n"), line);
	fprintf(stderr, "revalidate %s --rounds %s:\n%s", mode ? mode : "(free-running)", rounds, o.out);
	t_output_free(&o);
	doc = t_load(path);
	T_CHECK(doc != NULL, "result document written");
	return doc;
}

/*
 * A class per opportunity: the opportunities that found a miss are at most the opportunities and
 * at most the versions missed, none exactly when no version was missed, and the ratio is the one
 * over the other (null with no opportunity).
 */
static void check_per_opportunity(json_t *cell, const char *fs, const char *versions, const char *events,
				  const char *trials, const char *ratio)
{
	double v = t_metric(cell, versions), e = t_metric(cell, events), n = t_metric(cell, trials);
	json_t *r = json_object_get(json_object_get(cell, "metrics"), ratio);

	T_CHECK(is_integer(cell, events), "%s: %s is a count", fs, events);
	T_CHECK(e <= n && e <= v && (e == 0) == (v == 0), "%s: %s %g, of %s %g, for %g versions missed", fs, events, e,
		trials, n, v);
	if (n > 0)
		T_CHECK(json_is_real(r) && fabs(json_real_value(r) - e / n) < 1e-12, "%s: %s is %s / %s", fs, ratio,
			events, trials);
	else
		T_CHECK(json_is_null(r), "%s: %s is null without an opportunity", fs, ratio);
}

/*
 * Announced misses are ordering misses only where the inference is sound: a multigrain
 * filesystem reached locally (these cells: sync), never on ramfs's coarse stamps.  The old
 * names are gone.
 */
static void check_implies_ordering(json_t *cell, const char *fs)
{
	json_t *m = json_object_get(cell, "metrics"), *implies = json_object_get(m, "announced_implies_ordering");
	const char *why = json_string_value(json_object_get(m, "announced_implies_ordering_reason"));
	bool multigrain = strcmp(fs, "ramfs") != 0;

	T_CHECK(json_is_boolean(implies) && why && *why, "%s: announced_implies_ordering and its reason", fs);
	T_CHECK(json_is_true(implies) == multigrain, "%s: announced_implies_ordering %s (%s)", fs,
		json_is_true(implies) ? "true" : "false", why ?: "no reason");
	T_CHECK(!json_object_get(m, "misses_ordering") && !json_object_get(m, "ordering_miss_ratio") &&
			!json_object_get(m, "rereads_missed_ordering"),
		"%s: no metric keeps the old name", fs);
}

/* What every cell must show, whatever the mode. */
static json_t *check_cell(json_t *doc, const char *fs, double rounds)
{
	json_t *cell = t_cell(doc, "revalidate", fs);

	T_CHECK(cell != NULL, "%s cell present", fs);
	if (!cell)
		return NULL;
	T_CHECK(!strcmp(json_string_value(json_object_get(cell, "status")), "ok"), "%s ok", fs);
	T_CHECK(!strcmp(json_string_value(json_object_get(json_object_get(cell, "target"), "fstype")), fs),
		"%s really mounted as %s", fs, fs);
	T_CHECK(t_metric(cell, "versions_written") == rounds, "%s versions %g", fs, t_metric(cell, "versions_written"));
	T_CHECK(t_metric(cell, "polls") >= 1, "%s polls %g", fs, t_metric(cell, "polls"));
	T_CHECK(is_integer(cell, "misses_granularity") && is_integer(cell, "misses_announced") &&
		is_integer(cell, "misses_inflight") && is_integer(cell, "stale_polls"), "%s: miss counts are integers", fs);
	T_CHECK(json_is_boolean(json_object_get(json_object_get(cell, "metrics"), "conclusive")), "%s: conclusive", fs);
	if (sysconf(_SC_NPROCESSORS_ONLN) >= 2)
		T_CHECK(json_is_boolean(json_object_get(json_object_get(cell, "metrics"), "pinned")) &&
			json_is_true(json_object_get(json_object_get(cell, "metrics"), "pinned")) ==
				!json_is_true(json_object_get(json_object_get(cell, "params"), "sequenced")),
			"%s: free-running threads pinned to two CPUs, sequenced ones not", fs);
	T_CHECK(t_metric(cell, "misses_granularity_per_s") >= 0 && t_metric(cell, "misses_announced_per_s") >= 0,
		"%s: miss rates present", fs);
	T_CHECK(t_metric(cell, "misses_granularity") + t_metric(cell, "misses_announced") +
		t_metric(cell, "misses_inflight") <= rounds,
		"%s: a version is missed at most once", fs);
	T_CHECK(t_metric(cell, "elapsed_ns") > 0, "%s elapsed", fs);
	check_per_opportunity(cell, fs, "misses_granularity", "fresh_polls_missed_granularity", "fresh_polls",
			      "granularity_miss_ratio");
	check_per_opportunity(cell, fs, "misses_announced", "rereads_missed_announced", "rereads",
			      "announced_miss_ratio");
	check_implies_ordering(cell, fs);
	check_per_opportunity(cell, fs, "misses_inflight", "rereads_missed_inflight", "rereads", "inflight_miss_ratio");
	return cell;
}

static void sequenced(void)
{
	json_t *doc = run("--sequenced", "2000"), *cell;

	if (!doc)
		return;
	for (size_t i = 0; i < 4; i++) {
		cell = check_cell(doc, mg[i], 2000);
		if (!cell)
			continue;
		/* A poll after every write, every one sees a new stamp and re-reads. */
		T_CHECK(t_metric(cell, "polls") == 2000, "%s polls %g", mg[i], t_metric(cell, "polls"));
		T_CHECK(t_metric(cell, "rereads") == 2000, "%s rereads %g", mg[i], t_metric(cell, "rereads"));
		T_CHECK(t_metric(cell, "stale_polls") == 0, "%s stale polls %g", mg[i], t_metric(cell, "stale_polls"));
		T_CHECK(t_metric(cell, "misses_granularity") == 0, "%s granularity misses %g", mg[i],
			t_metric(cell, "misses_granularity"));
		T_CHECK(t_metric(cell, "misses_announced") == 0, "%s announced misses %g", mg[i],
			t_metric(cell, "misses_announced"));
		T_CHECK(t_metric(cell, "misses_inflight") == 0, "%s in-flight misses %g", mg[i],
			t_metric(cell, "misses_inflight"));
		T_CHECK(json_is_true(json_object_get(json_object_get(cell, "metrics"), "conclusive")),
			"%s: a poll per version is conclusive", mg[i]);
	}
	cell = check_cell(doc, "ramfs", 2000);
	if (cell) {
		/* Coarse stamps: the ctime moves once per tick or floor move, so the client re-reads
		 * at most that often.  2000 handshakes take ~50 ms, a dozen 4 ms ticks: measured ~1988
		 * misses; assert over half, unless others' fine stamps moved the floor that often
		 * (a parallel make check), which lifts ramfs stamps too. */
		if (t_check_coarse_bound(doc, cell, "revalidate --sequenced on ramfs", t_metric(cell, "rereads"), 2000) <
		    500)
		{
			T_CHECK(t_metric(cell, "misses_granularity") > 1000, "ramfs granularity misses %g, want > 1000",
				t_metric(cell, "misses_granularity"));
			T_CHECK(t_metric(cell, "granularity_miss_ratio") > 0.5,
				"ramfs: over half the fresh polls find a granularity miss (%g)",
				t_metric(cell, "granularity_miss_ratio"));
		}
		else
			T_NOT_JUDGED("ramfs --sequenced misses: the floor moved too often (others' fine stamps)");
		T_CHECK(t_metric(cell, "misses_announced") == 0 && t_metric(cell, "misses_inflight") == 0,
			"ramfs announced misses %g, in-flight %g", t_metric(cell, "misses_announced"),
			t_metric(cell, "misses_inflight"));
	}
	json_decref(doc);
}

/* The verdict of one metric of the first cell of a compare --format json document, or "". */
static const char *verdict_of(json_t *cmp, const char *metric, const char **kind)
{
	json_t *m;
	size_t i;

	json_array_foreach(json_object_get(json_array_get(json_object_get(cmp, "cells"), 0), "metrics"), i, m)
		if (!strcmp(json_string_value(json_object_get(m, "metric")) ?: "", metric)) {
			*kind = json_string_value(json_object_get(m, "kind")) ?: "";
			return json_string_value(json_object_get(json_array_get(json_object_get(m, "against_base"), 1),
								 "verdict")) ?: "";
		}
	*kind = "";
	return "";
}

/* The metrics object of the first cell of a compare --format json document's metric, or NULL. */
static json_t *compared(json_t *cmp, const char *metric)
{
	json_t *m;
	size_t i;

	json_array_foreach(json_object_get(json_array_get(json_object_get(cmp, "cells"), 0), "metrics"), i, m)
		if (!strcmp(json_string_value(json_object_get(m, "metric")) ?: "", metric))
			return m;
	return NULL;
}

/*
 * A document written before the class was renamed (the same cell with its old keys) against a
 * new one: compare reads the old names, so the announced ratio has values on both sides.
 */
static void compare_old_names(const char *new_path)
{
	static const char *const renamed[][2] = {
		{ "misses_announced", "misses_ordering" },
		{ "misses_announced_per_s", "misses_ordering_per_s" },
		{ "rereads_missed_announced", "rereads_missed_ordering" },
		{ "announced_miss_ratio", "ordering_miss_ratio" },
	};
	char old_path[512];
	json_t *doc = t_load(new_path), *m, *cmp, *values;
	struct t_output o;

	if (!doc)
		return;
	m = json_object_get(json_array_get(json_object_get(doc, "cells"), 0), "metrics");
	for (size_t i = 0; i < sizeof(renamed) / sizeof(renamed[0]); i++) {
		json_object_set(m, renamed[i][1], json_object_get(m, renamed[i][0]));
		json_object_del(m, renamed[i][0]);
	}
	json_object_del(m, "announced_implies_ordering");
	json_object_del(m, "announced_implies_ordering_reason");
	snprintf(old_path, sizeof(old_path), "%s", t_result_path("cmp-old-names.json"));
	T_CHECK(json_dump_file(doc, old_path, JSON_INDENT(1)) == 0, "old-named document written");
	json_decref(doc);
	{
		const char *const args[] = { "compare", "--format", "json", old_path, new_path, NULL };

		t_mgbench(&o, args);
	}
	T_CHECK(o.status == 0, "compare old names against new: exit %d %s", o.status, o.err);
	cmp = json_loads(o.out, 0, NULL);
	t_output_free(&o);
	T_CHECK(cmp != NULL, "compare of an old-named document parses");
	values = json_object_get(compared(cmp, "announced_miss_ratio"), "values");
	T_CHECK(json_is_number(json_object_get(json_array_get(values, 0), "value")) &&
			json_is_number(json_object_get(json_array_get(values, 1), "value")) &&
			json_is_number(json_object_get(json_array_get(values, 0), "events")),
		"the old document's ordering_miss_ratio is read as announced_miss_ratio");
	json_decref(cmp);
}

/*
 * compare judges the classes per opportunity: ramfs against tmpfs, --sequenced, where ramfs's
 * coarse stamps miss most fresh polls and tmpfs none.  Before, compare tested missed versions out
 * of versions written; now the granularity ratio is tested as fresh polls out of fresh polls, and
 * the announced ratio as re-reads out of re-reads.
 */
static void compare_per_opportunity(void)
{
	char a[512], b[512];
	const char *kind, *v;
	struct t_output o;
	json_t *cmp, *cell, *doc;

	snprintf(a, sizeof(a), "%s", t_result_path("cmp-ramfs.json"));
	snprintf(b, sizeof(b), "%s", t_result_path("cmp-tmpfs.json"));
	{
		const char *const ra[] = { "run", "revalidate", "--sequenced", "--fs", "ramfs", "--rounds", "2000", "-q",
					   "-o", a, NULL };
		const char *const rb[] = { "run", "revalidate", "--sequenced", "--fs", "tmpfs", "--rounds", "2000", "-q",
					   "-o", b, NULL };
		const char *const cmp_args[] = { "compare", "--format", "json", a, b, NULL };

		t_mgbench(&o, ra);
		T_CHECK(o.status == 0, "ramfs run: %s", o.err);
		t_output_free(&o);
		t_mgbench(&o, rb);
		T_CHECK(o.status == 0, "tmpfs run: %s", o.err);
		t_output_free(&o);
		t_mgbench(&o, cmp_args);
	}
	T_CHECK(o.status == 0, "compare: exit %d %s", o.status, o.err);
	cmp = json_loads(o.out, 0, NULL);
	t_output_free(&o);
	T_CHECK(cmp != NULL, "compare --format json parses");
	if (!cmp)
		return;
	v = verdict_of(cmp, "announced_miss_ratio", &kind);
	T_CHECK(!strcmp(kind, "proportion"), "announced misses per re-read judged as a proportion (%s)", kind);
	v = verdict_of(cmp, "granularity_miss_ratio", &kind);
	T_CHECK(!strcmp(kind, "proportion"), "granularity misses per fresh poll judged as a proportion (%s)", kind);
	doc = t_load(a);
	cell = doc ? t_cell(doc, "revalidate", "ramfs") : NULL;
	if (cell && t_check_coarse_bound(doc, cell, "compare ramfs/tmpfs", t_metric(cell, "rereads"), 2000) < 500)
		T_CHECK(!strcmp(v, "better"), "tmpfs against ramfs: granularity per fresh poll better (%s)", v);
	else
		T_NOT_JUDGED("compare ramfs/tmpfs: the floor moved too often (others' fine stamps) for ramfs's misses");
	json_decref(doc);
	json_decref(cmp);
	compare_old_names(b);
}

/* One CPU for both threads: they take turns, so the poller sees new data a few times only. */
static void one_cpu(void)
{
	const char *path = t_result_path("one-cpu.json");
	const char *const args[] = { "run", "revalidate", "--fs", "tmpfs,ramfs", "--rounds", "10000", "--check",
				     "-o", path, NULL };
	cpu_set_t old, one;
	struct t_output o;
	json_t *doc;

	if (sched_getaffinity(0, sizeof(old), &old) < 0)
		return;
	CPU_ZERO(&one);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &old)) {
			CPU_SET(c, &one);
			break;
		}
	T_CHECK(sched_setaffinity(0, sizeof(one), &one) == 0, "confine to one CPU");
	t_mgbench(&o, args); /* the child inherits the affinity */
	sched_setaffinity(0, sizeof(old), &old);
	fprintf(stderr, "revalidate on one CPU:\n%s%s", o.out, o.err);
	T_CHECK(o.status == 1, "one CPU --check: exit %d, want 1 (inconclusive)", o.status);
	T_CHECK(strstr(o.err, "conclusive = false") != NULL, "--check names the inconclusive cell: %s", o.err);
	T_CHECK(strstr(o.out, " NO") != NULL, "table says NO:\n%s", o.out);
	doc = t_load(path);
	for (size_t i = 0; doc && i < 2; i++) {
		json_t *cell = t_cell(doc, "revalidate", i ? "ramfs" : "tmpfs");
		json_t *m = json_object_get(cell, "metrics");

		T_CHECK(cell != NULL, "one CPU: cell present");
		T_CHECK(json_is_false(json_object_get(m, "conclusive")), "one CPU: conclusive false (fresh %g, min %g)",
			t_metric(cell, "fresh_polls"), t_metric(cell, "min_fresh_polls"));
		T_CHECK(json_is_false(json_object_get(m, "pinned")), "one CPU: not pinned, and says so");
	}
	json_decref(doc);
	t_output_free(&o);
}

static void free_running(void)
{
	json_t *doc = run(NULL, "5000"), *cell;

	if (!doc)
		return;
	for (size_t i = 0; i < 4; i++) {
		cell = check_cell(doc, mg[i], 5000);
		/* Not a race: each stat arms the flag, so any stamp update after it moves the stamp. */
		if (cell)
			T_CHECK(t_metric(cell, "misses_granularity") == 0, "%s free-running granularity misses %g",
				mg[i], t_metric(cell, "misses_granularity"));
	}
	check_cell(doc, "ramfs", 5000);
	json_decref(doc);
}

/* SIGINT while writer and poller wait on each other: both stop, the partial result is kept. */
static void interrupt_sequenced(void)
{
	const char *path = t_result_path("interrupted.json");
	const char *args[] = { "run", "revalidate", "--sequenced", "--fs", "tmpfs", "--rounds", "1000000000", "-o",
			       path, "-q", NULL };
	int status = 0, waited;
	json_t *doc, *cell;
	pid_t pid = t_mgbench_start(args, NULL, NULL);

	T_CHECK(t_wait_workload(pid, "revalidate"), "the run reached the workload");
	usleep(200 * 1000);
	kill(pid, SIGINT);
	for (waited = 0; waitpid(pid, &status, WNOHANG) == 0; waited++) {
		if (waited == 500) { /* 10 s: hung */
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			break;
		}
		usleep(20 * 1000);
	}
	T_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 130, "exit status %d (want 130)",
		WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status));
	doc = t_load(path);
	cell = doc ? t_cell(doc, "revalidate", "tmpfs") : NULL;
	T_CHECK(cell != NULL, "partial result kept");
	if (cell) {
		T_CHECK(!strcmp(json_string_value(json_object_get(cell, "status")), "interrupted"), "cell interrupted");
		T_CHECK(t_metric(cell, "versions_written") > 0, "partial versions %g", t_metric(cell, "versions_written"));
		T_CHECK(t_metric(cell, "polls") == t_metric(cell, "versions_written"), "every written version polled");
	}
	json_decref(doc);
}

/* A size that is not a whole number of words: the version lives in the whole words. */
static void odd_size(void)
{
	const char *path = t_result_path("odd.json");
	const char *const args[] = { "run", "revalidate", "--sequenced", "--size", "12", "--fs", "tmpfs", "--rounds",
				     "500", "-o", path, NULL };
	struct t_output o;
	json_t *doc, *cell;

	t_mgbench(&o, args);
	T_CHECK(o.status == 0, "--size 12: exit %d: %s", o.status, o.err);
	t_output_free(&o);
	doc = t_load(path);
	cell = doc ? t_cell(doc, "revalidate", "tmpfs") : NULL;
	T_CHECK(cell && t_metric(cell, "versions_written") == 500 && t_metric(cell, "stale_polls") == 0,
		"--size 12: 500 versions, nothing stale");
	json_decref(doc);
}

static void bad_options(void)
{
	static const struct {
		const char *args[6];
		const char *names;
	} cases[] = {
		{ { "run", "revalidate", "--size", "4", NULL }, "--size" },
		{ { "run", "revalidate", "--size", "128m", NULL }, "--size" },
		{ { "run", "revalidate", "--size", "lots", NULL }, "--size" },
		{ { "run", "revalidate", "--sequenced=yes", NULL }, "--sequenced" },
		{ { "run", "revalidate", "--rounds", "0", NULL }, "--rounds" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct t_output o;

		t_mgbench(&o, cases[i].args);
		T_CHECK(o.status == 2, "%s %s: exit %d, want 2", cases[i].args[2], cases[i].args[3] ? cases[i].args[3] : "",
			o.status);
		T_CHECK(strstr(o.err, cases[i].names) != NULL, "message does not name '%s': %s", cases[i].names, o.err);
		t_output_free(&o);
	}
}

int main(void)
{
	struct t_host before;

	t_require(&(struct t_needs){ .root = true, .filesystems = T_FS_ALL });
	t_host_snapshot(&before);
	T_RUN(sequenced());
	T_RUN(compare_per_opportunity());
	T_RUN(free_running());
	T_RUN(one_cpu());
	T_RUN(interrupt_sequenced());
	T_RUN(odd_size());
	T_RUN(bad_options());
	t_case("nothing left on the host");
	t_host_check_clean(&before, "after revalidate");
	t_cleanup();
	return t_result();
}
