/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Integration: `mgbench plot -o` with hostile file names and directories.  A name with backquotes,
 * quotes, system( and a newline is a name, never gnuplot code; a directory another user can write
 * is refused (that user could plant a symlink where root writes); the picture appears whole or not
 * at all, leaving no temporary file.
 */
#include "config.h"
#include "helpers.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Payloads for gnuplot: quotes of both kinds, backslashes, newlines (and a line "EOD" that
 * would end a datablock), backquotes, system( and set output, each trying to touch a marker. */
static const char *const payloads[] = {
	"a\".system(\"touch PWNED-dq\").\"b",
	"a'.system('touch PWNED-sq').'b",
	"x`touch PWNED-bq`y",
	"l1\nsystem(\"touch PWNED-nl\")\nEOD\nsystem(\"touch PWNED-eod\")\n",
	"\\\"; set output \"PWNED-set\"; system(\"touch PWNED-cmd\") #\\",
	"'; print system('touch PWNED-print'); '@x",
};

/* Every string of a document but those that pick what is drawn becomes the payload. */
static void poison(json_t *j, const char *payload)
{
	const char *key;
	json_t *v;
	size_t i;

	if (json_is_array(j))
		json_array_foreach(j, i, v) {
			if (json_is_string(v))
				json_array_set_new(j, i, json_string(payload));
			else
				poison(v, payload);
		}
	json_object_foreach(j, key, v) {
		if (json_is_string(v) && strcmp(key, "schema") && strcmp(key, "workload") && strcmp(key, "status"))
			json_object_set_new(j, key, json_string(payload));
		else
			poison(v, payload);
	}
}

static unsigned markers(const char *dir)
{
	unsigned n = 0;

	for (const char *const *m = (const char *const[]){ "PWNED-dq", "PWNED-sq", "PWNED-bq", "PWNED-nl", "PWNED-eod",
							     "PWNED-set", "PWNED-cmd", "PWNED-print", NULL };
	     *m; m++) {
		char p[1024];

		snprintf(p, sizeof(p), "%s/%s", dir, *m);
		n += access(p, F_OK) == 0;
	}
	return n;
}

/* no string runs as gnuplot or shell code: each payload in every string of a document and in
 * its file name, through every kind; the exit is what the clean document gives, no gnuplot
 * error, no marker. */
static void fuzz(const char *doc)
{
	static const char *const kinds[] = { "distinct", "steps", "counts", "rate" };
	json_t *clean = t_load(doc);
	char dir[512];

	snprintf(dir, sizeof(dir), "%s", t_result_path("fuzz"));
	mkdir(dir, 0755);
	T_CHECK(chdir(dir) == 0, "chdir");
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		struct t_output o;
		const char *args[] = { "plot", doc, "--kind", kinds[k], "-o", "clean.txt", NULL };
		int want;

		t_mgbench(&o, args);
		want = o.status;
		t_output_free(&o);
		for (size_t i = 0; i < sizeof(payloads) / sizeof(payloads[0]); i++) {
			json_t *bad = json_deep_copy(clean);
			char one[1024], two[1024];

			poison(bad, payloads[i]);
			/* a file name may not hold a slash: the rest of the payload is its name */
			snprintf(one, sizeof(one), "%s/1%s.json", dir, strrchr(payloads[i], '/') ?: payloads[i]);
			snprintf(two, sizeof(two), "%s/2%s.json", dir, strrchr(payloads[i], '/') ?: payloads[i]);
			json_dump_file(bad, one, 0);
			json_dump_file(bad, two, 0);
			json_decref(bad);
			{
				/* one document: the legend is its kernel; two alike: their file names */
				const char *a1[] = { "plot", one, "--kind", kinds[k], "-o", "p.txt", NULL };
				const char *a2[] = { "plot", one, two, "--kind", kinds[k], "-o", "p.svg", NULL };

				t_mgbench(&o, a1);
				T_CHECK(o.status == want && !strstr(o.err, "gnuplot"),
					"hostile string: --kind %s, payload %zu: exit %d (clean %d): %s", kinds[k], i,
					o.status, want, o.err);
				t_output_free(&o);
				t_mgbench(&o, a2);
				T_CHECK(o.status == want && !strstr(o.err, "gnuplot"),
					"hostile string: --kind %s, payload %zu, two documents: exit %d (clean %d): %s",
					kinds[k], i, o.status, want, o.err);
				t_output_free(&o);
			}
			unlink(one);
			unlink(two);
		}
	}
	T_CHECK(markers(dir) == 0, "a document's strings ran %u commands", markers(dir));
	json_decref(clean);
}

/* A copy of doc with one metric set (dotted path under the first cell's metrics); its path. */
static const char *variant(const char *doc, const char *name, const char *release, const char *path, json_t *value)
{
	json_t *d = t_load(doc), *m = json_object_get(json_array_get(json_object_get(d, "cells"), 0), "metrics");
	char key[256], *dot;
	const char *out = t_result_path(name);

	snprintf(key, sizeof(key), "%s", path);
	while ((dot = strchr(key, '.'))) {
		*dot = '\0';
		m = json_object_get(m, key);
		memmove(key, dot + 1, strlen(dot + 1) + 1);
	}
	json_object_set_new(m, key, value);
	json_object_set_new(json_object_get(d, "kernel"), "release", json_string(release));
	json_dump_file(d, out, 0);
	json_decref(d);
	return out;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *s = calloc(1, 1 << 20);

	if (f) {
		if (!fread(s, 1, (1 << 20) - 1, f))
			s[0] = '\0';
		fclose(f);
	}
	return s;
}

static bool within_72(const char *s)
{
	for (const char *e; *s; s = e + 1) {
		e = strchr(s, '\n');
		if (!e)
			return strlen(s) <= 72;
		if (e - s > 72)
			return false;
	}
	return true;
}

/* What a picture says and where it goes. */
static void pictures(const char *doc)
{
	char a[512], b[512], stat[512], out[512], gp[512];
	struct t_output o;
	char *text;

	snprintf(a, sizeof(a), "%s", variant(doc, "low.json", "A-kernel", "ctime.distinct_ratio", json_real(1e-5)));
	snprintf(b, sizeof(b), "%s",
		 variant(doc, "zero.json", "B-kernel", "ctime.step_ns.buckets", json_pack("[[i, i, i]]", 0, 0, 200)));
	{
		json_t *d = t_load(b);
		json_t *ctime = json_object_get(json_object_get(json_array_get(json_object_get(d, "cells"), 0), "metrics"), "ctime");

		json_object_set_new(ctime, "distinct_ratio", json_real(0));
		json_dump_file(d, b, 0);
		json_decref(d);
	}
	{
		/* A's steps of 1-4 us, not the fresh run's (95 ns was seen): 0 is drawn a decade below the
		 * smallest step's decade, at 100 ns */
		json_t *d = t_load(a);
		json_t *ctime = json_object_get(json_object_get(json_array_get(json_object_get(d, "cells"), 0), "metrics"), "ctime");

		json_object_set_new(json_object_get(ctime, "step_ns"), "buckets",
				    json_pack("[[i, i, i], [i, i, i]]", 1024, 2047, 150, 2048, 4095, 50));
		json_dump_file(d, a, 0);
		json_decref(d);
	}
	/* an output it cannot write: one line naming it, nothing on stdout */
	{
		const char *args[] = { "plot", doc, "-o", "/nonexistent/dir/x.png", NULL };

		t_mgbench(&o, args);
		T_CHECK(o.status == 1 && !*o.out && strstr(o.err, "No such file or directory") &&
				strchr(o.err, '\n') == o.err + strlen(o.err) - 1,
			"unwritable output: exit %d, %zu bytes on stdout, stderr: %s", o.status, strlen(o.out), o.err);
		t_output_free(&o);
	}
	/* a document without the workload is named */
	snprintf(stat, sizeof(stat), "%s", t_result_path("stat.json"));
	{
		const char *run[] = { "run", "stat", "-q", "--fs", "tmpfs", "--rounds", "100", "-o", stat, NULL };
		const char *args[] = { "plot", doc, stat, "-o", t_result_path("mixed.png"), NULL };

		t_mgbench(&o, run);
		t_output_free(&o);
		t_mgbench(&o, args);
		T_CHECK(o.status == 1 && strstr(o.err, "stat.json: no write cells") && !strstr(o.err, "gnuplot"),
			"missing workload: exit %d: %s", o.status, o.err);
		t_output_free(&o);
	}
	/* on a log axis 0 sits below the smallest positive value, and the label says where */
	snprintf(out, sizeof(out), "%s", t_result_path("log.txt"));
	snprintf(gp, sizeof(gp), "%s", t_result_path("log.gp"));
	{
		const char *args[] = { "plot", "--log", a, b, "-o", out, "--script", gp, NULL };

		t_mgbench(&o, args);
		T_CHECK(o.status == 0, "log axis: exit %d: %s", o.status, o.err);
		t_output_free(&o);
		text = slurp(gp);
		T_CHECK(strstr(text, "1e-05 1e-05 1e-05 1e-06 1e-06 1e-06") && strstr(text, "set yrange [5e-07:*]"),
			"log axis: 0 drawn below 1e-5: %s", text);
		free(text);
		text = slurp(out);
		/* the text plot loses nothing the picture says: the unit, which glyph is which document,
		 * and the documents by name */
		T_CHECK(strstr(text, "0 drawn at 1e-06") && strstr(text, "y: distinct") && strstr(text, "* A") &&
				strstr(text, "# B") && strstr(text, "A: A-kernel") && strstr(text, "B: B-kernel") &&
				within_72(text),
			"the text plot says what it draws:\n%s", text);
		free(text);
	}
	/* steps of 0 are counted in the legend and drawn where the x label says, not at 1 ns */
	{
		const char *args[] = { "plot", "--kind", "steps", a, b, "-o", out, "--script", gp, NULL };

		t_mgbench(&o, args);
		T_CHECK(o.status == 0, "steps of 0: exit %d: %s", o.status, o.err);
		t_output_free(&o);
		text = slurp(out);
		T_CHECK(strstr(text, "(200 steps of 0)") && strstr(text, "0 drawn at 100") && within_72(text),
			"zeros named:\n%s", text);
		free(text);
		text = slurp(gp);
		T_CHECK(!strstr(text, "\n1 200\n") && strstr(text, "\n100 200\n"), "0 drawn at 100 ns: %s", text);
		free(text);
	}
}

static bool exists(const char *dir, const char *name)
{
	char p[1024];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return access(p, F_OK) == 0;
}

int main(void)
{
	static const char *const programs[] = { GNUPLOT_PATH, NULL };
	char doc[512], dir[512], victim[512], planted[1024], name[1024], script[1024];
	struct t_output o;
	struct stat st;

	t_require(&(struct t_needs){ .root = true, .programs = programs });
	snprintf(doc, sizeof(doc), "%s", t_result_path("doc.json"));
	{
		const char *args[] = { "run", "write", "-q", "--fs", "tmpfs", "--rounds", "200", "-o", doc, NULL };

		t_mgbench(&o, args);
		T_CHECK(o.status == 0, "a document to plot: %s", o.err);
		t_output_free(&o);
	}
	T_RUN(pictures(doc));
	T_RUN(fuzz(doc));
	snprintf(dir, sizeof(dir), "%s", t_result_path("plots"));
	mkdir(dir, 0755);
	T_CHECK(chdir(t_result_path("")) == 0, "chdir"); /* whatever a name runs lands in the test's dir */

	/* each name is drawn to exactly that file; no command runs, nothing else appears */
	static const char *const names[] = {
		"a`touch PWNED-backquote`b.txt",
		"q'\"x`touch PWNED-quote`system(\"touch PWNED-system\").png",
		"new\nline`touch PWNED-newline`.svg",
		"set output \"PWNED-set\"; system(\"touch PWNED-cmd\").txt",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(name, sizeof(name), "%s/%s", dir, names[i]);
		const char *args[] = { "plot", doc, "-o", name, NULL };

		t_mgbench(&o, args);
		T_CHECK(o.status == 0, "hostile name: plot -o '%s': exit %d: %s", names[i], o.status, o.err);
		T_CHECK(!stat(name, &st) && st.st_size > 0, "the picture is at exactly '%s'", names[i]);
		t_output_free(&o);
	}
	T_CHECK(t_count_files(dir, NULL) == sizeof(names) / sizeof(names[0]),
		"only the pictures in %s (%u files): nothing run, no temporary file left", dir,
		t_count_files(dir, NULL));
	T_CHECK(!exists(".", "PWNED-backquote") && !exists(".", "PWNED-system") && !exists(".", "PWNED-cmd"),
		"no command ran in the current directory");

	/* a saved script names the picture in single quotes, where gnuplot substitutes nothing */
	snprintf(name, sizeof(name), "%s/%s", dir, names[1]);
	snprintf(script, sizeof(script), "%s/s.gp", dir);
	{
		const char *args[] = { "plot", doc, "-o", name, "--script", script, NULL };
		char cmd[1200];

		t_mgbench(&o, args);
		T_CHECK(o.status == 0, "--script: exit %d: %s", o.status, o.err);
		t_output_free(&o);
		unlink(name);
		snprintf(cmd, sizeof(cmd), "cd '%s' && " GNUPLOT_PATH " s.gp 2>/dev/null", dir);
		T_CHECK(system(cmd) == 0, "the saved script runs");
		T_CHECK(!stat(name, &st) && st.st_size > 0, "the saved script draws to exactly the -o name");
		T_CHECK(!exists(dir, "PWNED-quote") && !exists(dir, "PWNED-system"), "the saved script runs no command");
	}
	snprintf(name, sizeof(name), "%s/%s", dir, names[2]);
	{
		const char *args[] = { "plot", doc, "-o", name, "--script", script, NULL };

		t_mgbench(&o, args);
		T_CHECK(o.status == 2, "--script with a newline in -o: a usage error, got %d: %s", o.status, o.err);
		t_output_free(&o);
	}

	/* a directory another user owns, with symlinks planted at every name root might use */
	snprintf(dir, sizeof(dir), "%s", t_result_path("theirs"));
	mkdir(dir, 0755);
	T_CHECK(chown(dir, 65534, 65534) == 0, "chown");
	snprintf(victim, sizeof(victim), "%s", t_result_path("victim"));
	{
		FILE *f = fopen(victim, "w");

		fputs("root's file\n", f);
		fclose(f);
	}
	for (int pid = getpid(); pid < getpid() + 3000; pid++) {
		snprintf(planted, sizeof(planted), "%s/p.txt.tmp.%d.txt", dir, pid);
		symlink(victim, planted);
	}
	snprintf(name, sizeof(name), "%s/p.txt", dir);
	{
		const char *args[] = { "plot", doc, "-o", name, NULL };
		char text[64] = "";
		FILE *f;

		t_mgbench(&o, args);
		T_CHECK(o.status == 1 && strstr(o.err, "belongs to uid 65534"),
			"a directory another user owns is refused: exit %d: %s", o.status, o.err);
		t_output_free(&o);
		f = fopen(victim, "r");
		if (f) {
			if (!fgets(text, sizeof(text), f))
				text[0] = '\0';
			fclose(f);
		}
		T_CHECK(!strcmp(text, "root's file\n"), "the planted symlink was not followed");
		T_CHECK(access(name, F_OK) != 0, "no picture in their directory");
	}
	/* a world-writable directory without the sticky bit, likewise; /tmp-like sticky is fine */
	snprintf(dir, sizeof(dir), "%s", t_result_path("open"));
	mkdir(dir, 0777);
	chmod(dir, 0777);
	snprintf(name, sizeof(name), "%s/p.png", dir);
	{
		const char *args[] = { "plot", doc, "-o", name, NULL };

		t_mgbench(&o, args);
		T_CHECK(o.status == 1 && strstr(o.err, "writable by every user"),
			"a world-writable directory is refused: exit %d: %s", o.status, o.err);
		t_output_free(&o);
		chmod(dir, 01777);
		t_mgbench(&o, args);
		T_CHECK(o.status == 0 && access(name, F_OK) == 0, "a sticky directory (as /tmp) is fine: %s", o.err);
		t_output_free(&o);
	}
	return t_result();
}
