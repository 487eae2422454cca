/*
 * Integration: compare, report and plot on documents mgbench makes here.  tmpfs (multigrain)
 * against ramfs (coarse: the stand-in for an unpatched kernel): the distinct ratio is a
 * significant change in the right direction and --fail-on-regression says so; a document
 * against itself shows no change; report reproduces the run's table byte for byte; plot writes a
 * real PNG, an SVG that parses, a 72-column text plot, and a script that redraws the same picture.
 */
#include "config.h"
#include "helpers.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpfs_doc[600], ramfs_doc[600], dir[600];

static void make_docs(char *table, size_t len)
{
	const char *const a[] = { "run", "write", "--fs", "tmpfs", "--rounds", "3000", "-o", tmpfs_doc, NULL };
	const char *const b[] = { "run", "write", "--fs", "ramfs", "--rounds", "3000", "-q", "-o", ramfs_doc, NULL };
	struct t_output o;

	t_mgbench(&o, a);
	T_CHECK(o.status == 0, "run tmpfs: %s", o.err);
	/* the table, without the "results:" line that names the file */
	snprintf(table, len, "%s", o.out);
	if (strstr(table, "\n\nresults: "))
		strstr(table, "\n\nresults: ")[1] = '\0';
	t_output_free(&o);
	t_mgbench(&o, b);
	T_CHECK(o.status == 0, "run ramfs: %s", o.err);
	t_output_free(&o);
}

static void compare(void)
{
	const char *const ab[] = { "compare", tmpfs_doc, ramfs_doc, NULL };
	const char *const aa[] = { "compare", tmpfs_doc, tmpfs_doc, NULL };
	const char *const regress[] = { "compare", "--fail-on-regression", "ctime.distinct_ratio", tmpfs_doc, ramfs_doc,
					NULL };
	const char *const improve[] = { "compare", "--fail-on-regression", "ctime.distinct_ratio", ramfs_doc, tmpfs_doc,
					NULL };
	const char *const md[] = { "compare", "--format", "markdown", tmpfs_doc, ramfs_doc, NULL };
	const char *const js[] = { "compare", "--format", "json", tmpfs_doc, ramfs_doc, NULL };
	const char *const bad[] = { "compare", tmpfs_doc, "/dev/null", NULL };
	struct t_output o;
	json_t *cmp, *m;
	const char *line;

	t_mgbench(&o, ab);
	T_CHECK(o.status == 0, "compare: exit %d: %s", o.status, o.err);
	line = strstr(o.out, "distinct ");
	line = line ? strchr(line, '\n') : NULL; /* the row of B under the base's */
	T_CHECK(line && strstr(line, "worse") && strstr(line, "fisher") && strstr(line, "-") &&
			strchr(line + 1, '\n') > strstr(line, "worse"),
		"tmpfs -> ramfs: distinct is worse by fisher:\n%s", o.out);
	T_CHECK(strstr(o.out, "no mg") && strstr(o.out, "cells matched"), "labels and note:\n%s", o.out);
	for (const char *l = o.out; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "")
		T_CHECK(strcspn(l, "\n") <= 72, "line over 72 columns: %.*s", (int)strcspn(l, "\n"), l);
	t_output_free(&o);

	t_mgbench(&o, aa);
	T_CHECK(o.status == 0 && !strstr(o.out, "better") && !strstr(o.out, "worse") && !strstr(o.out, "changed"),
		"a document against itself changes nothing:\n%s", o.out);
	t_output_free(&o);

	t_mgbench(&o, regress);
	T_CHECK(o.status == 1 && strstr(o.err, "ctime.distinct_ratio"), "tmpfs -> ramfs is a regression: %d %s",
		o.status, o.err);
	t_output_free(&o);
	t_mgbench(&o, improve);
	T_CHECK(o.status == 0, "ramfs -> tmpfs is no regression: %d %s", o.status, o.err);
	t_output_free(&o);

	t_mgbench(&o, md);
	T_CHECK(o.status == 0 && strstr(o.out, "| ctime.distinct_ratio | A |") && strstr(o.out, "|---|"),
		"markdown table:\n%s", o.out);
	t_output_free(&o);

	t_mgbench(&o, js);
	cmp = json_loads(o.out, 0, NULL);
	m = json_array_get(json_object_get(json_array_get(json_object_get(cmp, "cells"), 0), "metrics"), 0);
	T_CHECK(cmp && !strcmp(json_string_value(json_object_get(cmp, "schema")) ?: "", "mgbench/1/compare"),
		"json schema");
	T_CHECK(m && !strcmp(json_string_value(json_object_get(m, "metric")) ?: "", "ctime.distinct_ratio") &&
			!strcmp(json_string_value(json_object_get(json_array_get(json_object_get(m, "against_base"), 1),
								  "verdict")) ?: "", "worse"),
		"json verdict");
	json_decref(cmp);
	t_output_free(&o);

	t_mgbench(&o, bad);
	T_CHECK(o.status == 1 && strstr(o.err, "/dev/null") && !strchr(strchr(o.err, '\n') + 1, '\n'),
		"a bad document: one line, exit 1: %d %s", o.status, o.err);
	t_output_free(&o);
}

static void report(const char *table)
{
	const char *const args[] = { "report", tmpfs_doc, NULL };
	const char *const two[] = { "report", tmpfs_doc, tmpfs_doc, NULL };
	struct t_output o;

	t_mgbench(&o, args);
	T_CHECK(o.status == 0 && !strcmp(o.out, table), "report reproduces the run's table:\n--- run\n%s--- report\n%s",
		table, o.out);
	t_output_free(&o);
	t_mgbench(&o, two);
	T_CHECK(o.status == 0 && strstr(o.out, "median over 2") && strstr(o.out, "min of 2") && strstr(o.out, "max"),
		"report over two documents:\n%s", o.out);
	t_output_free(&o);
}

static off_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_size : -1;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 1 << 20);

	if (f) {
		fread(buf, 1, (1 << 20) - 1, f);
		fclose(f);
	}
	return buf;
}

static void plot(void)
{
	char png[700], svg[700], txt[700], script[700], cmd[2200];
	const char *const p1[] = { "plot", tmpfs_doc, ramfs_doc, "-o", png, NULL };
	const char *const p2[] = { "plot", tmpfs_doc, ramfs_doc, "-o", svg, "--script", script, NULL };
	const char *const p3[] = { "plot", tmpfs_doc, ramfs_doc, "--log", "-o", txt, NULL };
	struct t_output o;
	unsigned char magic[8] = { 0 };
	char *text, *before, *after;
	FILE *f;

	snprintf(png, sizeof(png), "%s/p.png", dir);
	snprintf(svg, sizeof(svg), "%s/p.svg", dir);
	snprintf(txt, sizeof(txt), "%s/p.txt", dir);
	snprintf(script, sizeof(script), "%s/p.gp", dir);
	t_mgbench(&o, p1);
	T_CHECK(o.status == 0, "plot png: %s", o.err);
	t_output_free(&o);
	f = fopen(png, "rb");
	if (f) {
		fread(magic, 1, 8, f);
		fclose(f);
	}
	T_CHECK(!memcmp(magic, "\x89PNG\r\n\x1a\n", 8) && file_size(png) > 5000, "a real PNG (%lld bytes)",
		(long long)file_size(png));

	t_mgbench(&o, p2);
	T_CHECK(o.status == 0, "plot svg: %s", o.err);
	t_output_free(&o);
	snprintf(cmd, sizeof(cmd), "xmllint --noout '%s'", svg);
	T_CHECK(system(cmd) == 0, "the SVG parses as XML");
	/* the saved script redraws the same picture */
	before = slurp(svg);
	unlink(svg);
	snprintf(cmd, sizeof(cmd), "gnuplot '%s'", script);
	T_CHECK(system(cmd) == 0, "gnuplot runs the saved script");
	after = slurp(svg);
	T_CHECK(*before && !strcmp(before, after), "the script redraws the same SVG");
	free(before);
	free(after);

	t_mgbench(&o, p3);
	T_CHECK(o.status == 0, "plot txt: %s", o.err);
	t_output_free(&o);
	text = slurp(txt);
	T_CHECK(strstr(text, "write: ctime.distinct_ratio per filesystem") != NULL, "text plot has its title:\n%s", text);
	for (const char *l = text; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "")
		T_CHECK(strcspn(l, "\n") <= 72, "text plot line over 72 columns: %.*s", (int)strcspn(l, "\n"), l);
	free(text);
	T_CHECK(t_count_files(dir, NULL) == 6, "no temporary picture left: %u files", t_count_files(dir, NULL));
}

int main(void)
{
	char table[8192];

	t_require_root();
	snprintf(tmpfs_doc, sizeof(tmpfs_doc), "%s", t_result_path("tmpfs.json"));
	snprintf(ramfs_doc, sizeof(ramfs_doc), "%s", t_result_path("ramfs.json"));
	snprintf(dir, sizeof(dir), "%s", tmpfs_doc);
	*strrchr(dir, '/') = '\0';
	make_docs(table, sizeof(table));
	compare();
	report(table);
	plot();
	return t_result();
}
