/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Integration: `mgbench ab` with two Debian kernels under qemu, three boots a side: the boots
 * alternate and each document says which it was; the report is written; running it again keeps
 * every boot; an interrupted ab keeps its finished boots and the next one redoes only the rest;
 * a kernel that does not boot is named, with the boots before it kept.
 */
#include "config.h"
#include "helpers.h"
#include "util.h"

#include <glob.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define RUN "run", "write", "--fs", "tmpfs", "--rounds", "2000"

static char dir[600], dir2[600];

/* The boots' documents in d, as glob names them (sorted). */
static size_t boots(const char *d, glob_t *g)
{
	char pat[700];

	snprintf(pat, sizeof(pat), "%s/boots/*.json", d);
	memset(g, 0, sizeof(*g));
	glob(pat, 0, NULL, g);
	return g->gl_pathc;
}

static void alternated(void)
{
	const char *args[] = { "ab", "debian:6.12", "debian:unstable", "--boots", "3", "-o", dir,
			       "--fail-on-regression", "distinct", "--", RUN, NULL };
	struct t_output o;
	glob_t g;

	t_mgbench(&o, args);
	/* 6.12 stamps coarsely, unstable is multigrain: distinct gets better in B, not worse */
	T_CHECK(o.status == 0, "ab exits 0: %d: %s", o.status, o.err);
	T_CHECK(strstr(o.out, "distinct") && strstr(o.out, "better"), "the table shows distinct better in B: %s", o.out);
	T_CHECK(boots(dir, &g) == 6, "six boots' documents: %zu", g.gl_pathc);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		json_t *doc = t_load(g.gl_pathv[i]), *ab = json_object_get(doc, "ab");
		const char *side = t_str(ab, "side");
		json_int_t boot = json_integer_value(json_object_get(ab, "boot"));
		json_int_t pos = json_integer_value(json_object_get(ab, "position"));
		bool a = side && !strcmp(side, "A");

		/* alternate: A1 B1 A2 B2 A3 B3 */
		T_CHECK(side && pos == 2 * boot - (a ? 1 : 0), "%s: boot %lld of %s ran at place %lld", g.gl_pathv[i],
			(long long)boot, side ?: "?", (long long)pos);
		T_CHECK(!strcmp(t_str(ab, "kernel") ?: "", a ? "debian:6.12" : "debian:unstable"), "%s names its kernel",
			g.gl_pathv[i]);
		T_CHECK(t_str(ab, "started") && t_str(ab, "order") && !strcmp(t_str(ab, "order"), "alternate"),
			"%s has its times and order", g.gl_pathv[i]);
		json_decref(doc);
	}
	globfree(&g);
	static const char *const report[] = { "README.md", "compare.txt", "compare.md", "compare.json", "write.png" };
	for (size_t i = 0; i < sizeof(report) / sizeof(report[0]); i++) {
		char p[700];

		snprintf(p, sizeof(p), "%s/%s", dir, report[i]);
		T_CHECK(access(p, F_OK) == 0, "the report has %s", report[i]);
	}
	char p[700], *readme;

	snprintf(p, sizeof(p), "%s/README.md", dir);
	readme = t_slurp(p);
	T_CHECK(readme && strstr(readme, "mgbench ab --boots 3") && strstr(readme, "debian:unstable") &&
		strstr(readme, "6.12."), "README.md has the command and the kernels");
	free(readme);
	t_output_free(&o);
}

/* Again: every boot kept, none run (their documents are untouched). */
static void reused(void)
{
	const char *args[] = { "ab", "debian:6.12", "debian:unstable", "--boots", "3", "-o", dir, "--", RUN, NULL };
	struct t_output o;
	struct stat before, after;
	glob_t g;

	boots(dir, &g);
	T_CHECK(g.gl_pathc && !stat(g.gl_pathv[0], &before), "a boot to watch");
	t_mgbench(&o, args);
	T_CHECK(o.status == 0, "the rerun exits 0: %d: %s", o.status, o.err);
	T_CHECK(strstr(o.err, "6 of 6 boots kept"), "it keeps the six boots: %s", o.err);
	T_CHECK(g.gl_pathc && !stat(g.gl_pathv[0], &after) && after.st_mtim.tv_sec == before.st_mtim.tv_sec &&
			after.st_mtim.tv_nsec == before.st_mtim.tv_nsec,
		"and rewrites none");
	globfree(&g);
	t_output_free(&o);
}

/* A fourth boot a side, interrupted during A4: exit 130, the six kept, then finished by a rerun. */
static void interrupted(void)
{
	const char *args[] = { "ab", "debian:6.12", "debian:unstable", "--boots", "4", "-o", dir, "--", RUN, NULL };
	char log[700], out[700], err[700];
	glob_t g;
	pid_t pid;
	int status = 0;
	bool seen = false;
	double t0 = t_now_s();

	snprintf(out, sizeof(out), "%s.out", dir);
	snprintf(err, sizeof(err), "%s.err", dir);
	pid = t_mgbench_start(args, out, err);
	/* the fourth boot of A has started once its log exists */
	while (!seen && !t_child_exited(pid) && t_now_s() - t0 < 600) {
		glob_t l = { 0 };

		snprintf(log, sizeof(log), "%s/logs/*-A-04.log", dir);
		glob(log, 0, NULL, &l);
		seen = l.gl_pathc > 0;
		globfree(&l);
		usleep(100000);
	}
	T_CHECK(seen, "the fourth boot of A started");
	kill(pid, SIGINT);
	waitpid(pid, &status, 0);
	T_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 130, "SIGINT: exit 130, got %d", WEXITSTATUS(status));
	T_CHECK(boots(dir, &g) == 6, "the six finished boots are kept: %zu", g.gl_pathc);
	globfree(&g);
	struct t_output o;

	t_mgbench(&o, args);
	T_CHECK(o.status == 0, "the rerun finishes: %d: %s", o.status, o.err);
	T_CHECK(strstr(o.err, "6 of 8 boots kept"), "keeping the six: %s", o.err);
	T_CHECK(boots(dir, &g) == 8, "eight boots now: %zu", g.gl_pathc);
	globfree(&g);
	t_output_free(&o);
}

/* B is no kernel: named, with A's boot kept. */
static void bad_kernel(void)
{
	char junk[700];
	const char *args[] = { "ab", "debian:6.12", junk, "--boots", "1", "-o", dir2, "--", RUN, NULL };
	struct t_output o;
	FILE *f;
	glob_t g;

	snprintf(junk, sizeof(junk), "%s.bzImage", dir2);
	f = fopen(junk, "w");
	if (f) {
		for (int i = 0; i < 4096; i++)
			fputc(i * 7 & 0xff, f);
		fclose(f);
	}
	t_mgbench(&o, args);
	T_CHECK(o.status == 1 && strstr(o.err, "kernel B") && strstr(o.err, "failed on boot 1"),
		"a kernel that does not boot is named: exit %d: %s", o.status, o.err);
	T_CHECK(boots(dir2, &g) == 1, "A's boot is kept: %zu", g.gl_pathc);
	globfree(&g);
	t_output_free(&o);
	unlink(junk);
}

int main(void)
{
	struct t_host before;
	static const char *const programs[] = { "qemu-system-x86_64", NULL };

	t_require(&(struct t_needs){ .root = true, .slow = true, .programs = programs });
	snprintf(dir, sizeof(dir), "%s", t_result_path("ab"));
	snprintf(dir2, sizeof(dir2), "%s", t_result_path("ab-bad"));
	t_host_snapshot(&before);
	T_RUN(alternated());
	T_RUN(reused());
	T_RUN(interrupted());
	T_RUN(bad_kernel());
	t_case("nothing left on the host");
	t_host_check_clean(&before, "after ab");
	t_case_end();
	t_cleanup();
	return t_result();
}
