/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ab's report: each kernel's boots as its runs, compared (lib/doc/compare.h) and gated; the table
 * printed and written as compare.txt, compare.md and compare.json; each workload's headline
 * picture; and README.md, which says what was run, on which kernels and host, and how to run it
 * again.  Every file appears whole (lib/doc/result.h's outputs).
 */
#include "config.h"
#include "ab_internal.h"
#include "compare.h"
#include "doc.h"
#include "plot.h"
#include "result.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* name in the directory, whole: bytes, or (text == NULL) a JSON value */
static int write_file(const struct mgb_ab_state *st, const char *name, const char *text, size_t len, json_t *json,
		      char *err)
{
	char path[4200];
	struct mgb_output out;

	snprintf(path, sizeof(path), "%s/%s", st->dir, name);
	if (mgb_output_open(&out, path, err) < 0)
		return -1;
	return json ? mgb_output_commit(&out, json, err) : mgb_output_commit_bytes(&out, text, len, err);
}

/* A word for a shell: as it is when it is plain, else single-quoted (control characters as '?'). */
static void put_shell_word(FILE *f, const char *w)
{
	if (*w && strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=.,/:+@%") == strlen(w)) {
		fputs(w, f);
		return;
	}
	char *safe = mgb_printable_dup(w);

	fputc('\'', f);
	for (const char *c = safe; c && *c; c++)
		if (*c == '\'')
			fputs("'\\''", f);
		else
			fputc(*c, f);
	fputc('\'', f);
	free(safe);
}

static const char *str_at(json_t *j, const char *path)
{
	return json_string_value(mgb_json_path(j, path));
}

/* One kernel's line of the README: what was booted and what it was made of. */
static void describe_kernel(FILE *f, const struct mgb_ab_state *st, int side, json_t *doc, unsigned boots)
{
	json_t *src = mgb_json_path(doc, "vm.kernel_source"), *patches = mgb_json_path(src, "manifest.patches"), *p;
	size_t i;

	fprintf(f, "- **%c**: `%s`, release %s, %u boots", 'A' + side, mgb_compare_safe(st->kernel[side]),
		mgb_compare_safe(str_at(doc, "kernel.release")), boots);
	if (str_at(src, "kind"))
		fprintf(f, " (%s", mgb_compare_safe(str_at(src, "kind")));
	if (str_at(src, "package"))
		fprintf(f, " %s %s", mgb_compare_safe(str_at(src, "package")), mgb_compare_safe(str_at(src, "version")));
	if (str_at(src, "manifest.source"))
		fprintf(f, " of %s %s, config base %s, config sha256 %s", mgb_compare_safe(str_at(src, "manifest.source")),
			mgb_compare_safe(str_at(src, "manifest.version")),
			mgb_compare_safe(str_at(src, "manifest.config_base") ?: "tinyconfig"),
			mgb_compare_safe(str_at(src, "manifest.config_sha256")));
	if (str_at(src, "kind"))
		fputc(')', f);
	fputc('\n', f);
	json_array_foreach(patches, i, p)
		fprintf(f, "  - patch %zu: %s (sha256 %s)\n", i + 1, mgb_compare_safe(str_at(p, "name")),
			mgb_compare_safe(str_at(p, "sha256")));
}

static int write_readme(const struct mgb_ab_state *st, json_t *const first[2], const unsigned boots[2],
			const char *table_md, const char *const *pictures, unsigned npictures, char *err)
{
	const struct mgb_ab *ab = st->ab;
	char *text = NULL, when[32];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	time_t t = time(NULL);
	struct tm tm;
	int rc;

	if (!f)
		return mgb_err(err, "out of memory");
	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", &tm);
	fprintf(f, "# mgbench ab: %s against %s\n\n", mgb_compare_safe(str_at(first[0], "kernel.release")),
		mgb_compare_safe(str_at(first[1], "kernel.release")));
	fprintf(f, "Made by mgbench %s on %s (%s), %s, with:\n\n    ", PACKAGE_VERSION,
		mgb_compare_safe(str_at(first[0], "vm.host") ?: "this host"),
		mgb_compare_safe(str_at(first[0], "vm.host_cpu") ?: "CPU unknown"), when);
	fprintf(f, "mgbench ab");
	for (unsigned i = 0; i < ab->argc; i++) {
		fputc(' ', f);
		put_shell_word(f, ab->argv[i]);
	}
	fprintf(f, "\n\nRunning the same command again in this directory keeps every whole boot of this set "
		   "(%s) and redoes the rest.\n\n## Kernels\n\n", st->key);
	for (int s = 0; s < 2; s++)
		describe_kernel(f, st, s, first[s], boots[s]);
	fprintf(f, "\nEach boot is one `mgbench vm` of the same run; boots ran %s", ab->random_order ? "in a random order" : "alternately (A B A B ...)");
	if (ab->random_order)
		fprintf(f, " (seed %llu)", (unsigned long long)ab->seed);
	fprintf(f, ". Their documents are in `boots/` (each with its kernel, boot index, place in the order "
		   "and times, under `ab`), their console output in `logs/`.\n\n## Comparison\n\n");
	fprintf(f, "Each kernel's boots are its runs (the unit of replication); `compare.txt` is the same "
		   "table for an email, `compare.json` the comparison as data.\n\n%s\n", table_md);
	if (npictures)
		fprintf(f, "## Pictures\n\n");
	for (unsigned i = 0; i < npictures; i++)
		fprintf(f, "![%s](%s)\n\n", pictures[i], pictures[i]);
	fclose(f);
	rc = text ? write_file(st, "README.md", text, len, NULL, err) : mgb_err(err, "out of memory");
	free(text);
	return rc;
}

/* Each workload's headline picture, name.png; a missing gnuplot leaves the report without them. */
static unsigned draw_pictures(const struct mgb_ab_state *st, json_t *sides[2], const char *const labels[2],
			      char pictures[][64], unsigned max)
{
	json_t *cell;
	size_t i;
	unsigned n = 0;
	char title[300];

	snprintf(title, sizeof(title), "%s vs %s", labels[0], labels[1]);
	json_array_foreach(json_object_get(sides[0], "cells"), i, cell) {
		const char *w = json_string_value(json_object_get(cell, "workload"));
		struct mgb_plot p = { .workload = w, .kind = MGB_PLOT_HEADLINE, .format = MGB_PLOT_PNG, .title = title };
		char err[MGB_ERR_LEN], *script, *pic = NULL;
		size_t len, size;
		bool seen = false;

		for (unsigned k = 0; k < n; k++)
			seen |= !strncmp(pictures[k], w, strlen(w)) && !strcmp(pictures[k] + strlen(w), ".png");
		if (seen || n >= max || strlen(w) > 40)
			continue;
		snprintf(pictures[n], 64, "%s.png", w);
		if (!(script = mgb_plot_script_text(sides, labels, 2, &p, &len, err)) ||
		    mgb_plot_draw(script, len, &p, &pic, &size, err) < 0 ||
		    write_file(st, pictures[n], pic, size, NULL, err) < 0) {
			fprintf(stderr, "mgbench ab: no picture of %s: %s\n", w, err);
		} else {
			n++;
		}
		free(script);
		free(pic);
	}
	return n;
}

int mgb_ab_report(const struct mgb_ab_state *st, char *err)
{
	const struct mgb_ab *ab = st->ab;
	json_t *docs[2][MGB_DOCS_MAX], *sides[2] = { 0 }, *cmp = NULL;
	char paths[2][MGB_DOCS_MAX][80], *side_paths[2] = { 0 }, labels[2][200], pictures[16][64];
	const char *plabels[2] = { labels[0], labels[1] }, *picture_names[16];
	unsigned ndocs[2] = { 0 }, npictures;
	char *txt = NULL, *md = NULL;
	size_t ltxt = 0, lmd = 0;
	int rc = -1;

	for (unsigned i = 0; i < st->n; i++) {
		const struct mgb_ab_boot *b = &st->order[i];
		json_t *doc = mgb_ab_boot_doc(st, b);

		if (!doc || ndocs[b->side] >= MGB_DOCS_MAX) {
			json_decref(doc);
			mgb_err(err, "boot %u of %c has no whole document", b->index, 'A' + b->side);
			goto out;
		}
		snprintf(paths[b->side][ndocs[b->side]], sizeof(paths[0][0]), "boots/%s", b->name);
		docs[b->side][ndocs[b->side]++] = doc;
	}
	for (int s = 0; s < 2; s++) {
		const char *pp[MGB_DOCS_MAX];

		for (unsigned d = 0; d < ndocs[s]; d++)
			pp[d] = paths[s][d];
		if (!(sides[s] = mgb_compare_merge_runs(docs[s], pp, ndocs[s], err)))
			goto out;
		{
			/* "6.1.192 + 6 patches": a build's release alone does not tell A from B */
			char *d = mgb_doc_describe(docs[s][0]);

			if (d)
				d[strcspn(d, ",")] = '\0';
			snprintf(labels[s], sizeof(labels[s]), "%c: %s", 'A' + s,
				 d && *d ? d : str_at(docs[s][0], "kernel.release") ?: st->kernel[s]);
			free(d);
		}
		if (asprintf(&side_paths[s], "%s (%u boots)", st->kernel[s], ndocs[s]) < 0) {
			side_paths[s] = NULL;
			mgb_err(err, "out of memory");
			goto out;
		}
	}
	cmp = mgb_compare(sides, (const char *const *)side_paths, 2, &(struct mgb_compare_opts){ .alpha = 0.05 });
	if (!json_array_size(json_object_get(cmp, "cells")) || !mgb_compare_any_known(cmp)) {
		mgb_err(err, "the kernels' documents have no cell in common to compare");
		goto out;
	}
	FILE *f = open_memstream(&txt, &ltxt), *g = f ? open_memstream(&md, &lmd) : NULL;

	if (!f || !g) {
		if (f)
			fclose(f);
		mgb_err(err, "out of memory");
		goto out;
	}
	mgb_compare_print_text(f, cmp);
	mgb_compare_print_markdown(g, cmp);
	fclose(f);
	fclose(g);
	if (!ab->quiet || !isatty(1))
		fwrite(txt, 1, ltxt, stdout);
	fflush(stdout);
	if (write_file(st, "compare.txt", txt, ltxt, NULL, err) || write_file(st, "compare.md", md, lmd, NULL, err) ||
	    write_file(st, "compare.json", NULL, 0, cmp, err))
		goto out;
	npictures = draw_pictures(st, sides, plabels, pictures, 16);
	for (unsigned i = 0; i < npictures; i++)
		picture_names[i] = pictures[i];
	{
		json_t *first[2] = { docs[0][0], docs[1][0] };

		if (write_readme(st, first, ndocs, md, picture_names, npictures, err))
			goto out;
	}
	if (!ab->quiet)
		fprintf(stderr, "mgbench ab: the report is in %s (README.md, compare.txt, compare.md, compare.json%s)\n",
			st->dir, npictures ? ", pictures" : "");
	rc = ab->nfail ? mgb_compare_gate(cmp, ab->fail, ab->nfail, stderr, err) : MGB_GATE_PASS;
out:
	for (int s = 0; s < 2; s++) {
		for (unsigned d = 0; d < ndocs[s]; d++)
			json_decref(docs[s][d]);
		json_decref(sides[s]);
		free(side_paths[s]);
	}
	json_decref(cmp);
	free(txt);
	free(md);
	return rc;
}
