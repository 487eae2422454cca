/* mgbench plot: a picture of result documents, drawn by gnuplot (png, svg, or text for email). */
#include "config.h"
#include "compare.h"
#include "doc.h"
#include "mgbench.h"
#include "plot.h"
#include "util.h"
#include "workload.h"

#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_DOCS 16

static void usage(FILE *out)
{
	fprintf(out,
		"usage: mgbench plot [options] FILE.json [MORE.json ...] -o OUT.png|.svg|.txt\n"
		"\n"
		"Draws result documents with gnuplot: .txt is a text plot of at most 72\n"
		"columns for an email.\n"
		"\n"
		"  -o OUT               the picture; its suffix picks the format\n"
		"  --workload W         the workload to draw (default: the first)\n"
		"  --kind K             distinct (bars of the distinct ratio), steps\n"
		"                       (ctime step distribution), counts (statx06's\n"
		"                       brackets, revalidate's misses) or rate (with\n"
		"                       min-max whiskers); default: the workload's own\n"
		"  --log                logarithmic y axis (0.001 and 1.0 both readable)\n"
		"  --script FILE        also write the gnuplot script, data inline, to\n"
		"                       restyle and redraw by hand: gnuplot FILE\n"
		"\n"
		"See mgbench-plot(1).\n");
}

static int format_of(const char *out, enum mgb_plot_format *f)
{
	const char *dot = strrchr(out, '.');

	if (!dot)
		return -1;
	if (!strcmp(dot, ".png"))
		*f = MGB_PLOT_PNG;
	else if (!strcmp(dot, ".svg"))
		*f = MGB_PLOT_SVG;
	else if (!strcmp(dot, ".txt"))
		*f = MGB_PLOT_TXT;
	else
		return -1;
	return 0;
}

static int kind_of(const char *s, enum mgb_plot_kind *k)
{
	static const char *const names[] = { "distinct", "steps", "counts", "rate" };
	static const enum mgb_plot_kind kinds[] = { MGB_PLOT_DISTINCT, MGB_PLOT_STEPS, MGB_PLOT_COUNTS, MGB_PLOT_RATE };

	for (size_t i = 0; i < MGB_ARRAY_SIZE(names); i++)
		if (!strcmp(s, names[i])) {
			*k = kinds[i];
			return 0;
		}
	return -1;
}

/* Run gnuplot on the script; 0 when it exited 0. */
static int run_gnuplot(const char *script, size_t len, char *err)
{
	int pfd[2], status;
	pid_t pid;

	if (!*GNUPLOT_PATH || access(GNUPLOT_PATH, X_OK) < 0)
		return mgb_err(err, "gnuplot not found%s%s: install Debian's gnuplot-nox and reconfigure",
			       *GNUPLOT_PATH ? " at " : "", GNUPLOT_PATH);
	if (pipe(pfd) < 0)
		return mgb_err(err, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		return mgb_err(err, "fork: %s", strerror(errno));
	if (pid == 0) {
		dup2(pfd[0], STDIN_FILENO);
		close(pfd[0]);
		close(pfd[1]);
		execl(GNUPLOT_PATH, "gnuplot", (char *)NULL);
		_exit(127);
	}
	close(pfd[0]);
	for (size_t off = 0; off < len;) {
		ssize_t n = write(pfd[1], script + off, len - off);

		if (n <= 0)
			break;
		off += (size_t)n;
	}
	close(pfd[1]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return mgb_err(err, "waitpid: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return mgb_err(err, "gnuplot failed (status %d): see its message above", status);
	return 0;
}

static char *script_for(json_t *const *docs, const char *const *labels, unsigned ndocs, struct mgb_plot *p,
			size_t *len, char *err)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);
	int r;

	if (!f) {
		mgb_err(err, "out of memory");
		return NULL;
	}
	r = mgb_plot_script(f, docs, labels, ndocs, p, err);
	fclose(f);
	if (r < 0) {
		free(text);
		return NULL;
	}
	return text;
}

static int write_file(const char *path, const char *text, size_t len, char *err)
{
	FILE *f = fopen(path, "we");

	if (!f)
		return mgb_err(err, "%s: %s", path, strerror(errno));
	if (fwrite(text, 1, len, f) != len || fclose(f) != 0)
		return mgb_err(err, "writing %s: %s", path, strerror(errno));
	return 0;
}

/* gnuplot's dumb terminal starts a page with a form feed and pads lines with blanks: an email
 * wants neither. */
static int tidy_text_plot(const char *path, char *err)
{
	FILE *f = fopen(path, "re");
	char *text = NULL, *o;
	size_t len = 0;
	int c;
	FILE *m = open_memstream(&text, &len);

	if (!f || !m) {
		if (f)
			fclose(f);
		if (m)
			fclose(m);
		free(text);
		return mgb_err(err, "%s: %s", path, strerror(errno));
	}
	while ((c = fgetc(f)) != EOF)
		if (c != '\f')
			fputc(c, m);
	fclose(f);
	fclose(m);
	o = text;
	for (char *line = text, *nl; *line; line = nl + 1) {
		size_t n;

		nl = strchr(line, '\n');
		if (!nl)
			nl = line + strlen(line) - 1;
		n = (size_t)(nl - line) + (*nl != '\n');
		while (n > 0 && line[n - 1] == ' ')
			n--;
		memmove(o, line, n);
		o += n;
		*o++ = '\n';
		if (!nl[1] || !*nl)
			break;
	}
	c = write_file(path, text, (size_t)(o - text), err);
	free(text);
	return c;
}

/* Legends: what tells the documents apart, the kernel (and mg) or else the file name. */
static void make_labels(json_t *const *docs, char *const *paths, unsigned ndocs, char **labels)
{
	bool distinct = true;

	for (unsigned d = 0; d < ndocs; d++)
		labels[d] = mgb_doc_describe(docs[d]);
	for (unsigned d = 0; d < ndocs; d++)
		for (unsigned e = d + 1; e < ndocs; e++)
			distinct &= strcmp(labels[d], labels[e]) != 0;
	if (distinct && ndocs > 1)
		return;
	for (unsigned d = 0; d < ndocs; d++) {
		char *copy = strdup(paths[d]), *dot;

		free(labels[d]);
		labels[d] = strdup(basename(copy));
		dot = strrchr(labels[d], '.');
		if (dot && !strcmp(dot, ".json"))
			*dot = '\0';
		free(copy);
	}
}

int cmd_plot(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "workload", required_argument, NULL, 'w' },
		{ "kind", required_argument, NULL, 'k' },
		{ "log", no_argument, NULL, 'l' },
		{ "script", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct mgb_plot p = { 0 };
	const char *out = NULL, *script_path = NULL;
	json_t *docs[MAX_DOCS];
	char *labels[MAX_DOCS], err[MGB_ERR_LEN] = "", *script = NULL, *tmp = NULL;
	unsigned ndocs = 0;
	size_t len;
	int c, rc = MGB_EXIT_FAIL;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'w': p.workload = optarg; break;
		case 'k':
			if (kind_of(optarg, &p.kind) < 0)
				return mgb_usage_error("plot", "--kind '%s': distinct, steps, counts or rate", optarg);
			break;
		case 'l': p.log_y = true; break;
		case 's': script_path = optarg; break;
		case 'h': usage(stdout); return MGB_EXIT_OK;
		case ':': return mgb_usage_error("plot", "%s needs a value", argv[optind - 1]);
		default: return mgb_usage_error("plot", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (!out)
		return mgb_usage_error("plot", "-o OUT.png|.svg|.txt is required");
	if (format_of(out, &p.format) < 0)
		return mgb_usage_error("plot", "-o %s: the name must end in .png, .svg or .txt", out);
	if (optind == argc)
		return mgb_usage_error("plot", "needs a result document (see 'mgbench plot --help')");
	if (argc - optind > MAX_DOCS)
		return mgb_usage_error("plot", "at most %d documents", MAX_DOCS);
	if (p.workload && !mgb_workload_find(p.workload))
		return mgb_usage_error("plot", "--workload '%s': no such workload (see 'mgbench list')", p.workload);
	for (int i = optind; i < argc; i++) {
		docs[ndocs] = mgb_doc_read(argv[i], err);
		if (!docs[ndocs]) {
			fprintf(stderr, "mgbench plot: %s\n", err);
			goto out;
		}
		ndocs++;
	}
	if (!p.workload)
		p.workload = json_string_value(json_object_get(json_array_get(json_object_get(docs[0], "cells"), 0),
							       "workload"));
	make_labels(docs, argv + optind, ndocs, labels);
	/* The picture appears whole or not at all: gnuplot draws into a temporary name. */
	if (asprintf(&tmp, "%s.tmp.%d%s", out, (int)getpid(), strrchr(out, '.')) < 0)
		goto out_labels;
	p.output = tmp;
	script = script_for(docs, (const char *const *)labels, ndocs, &p, &len, err);
	if (!script || run_gnuplot(script, len, err) < 0 ||
	    (p.format == MGB_PLOT_TXT && tidy_text_plot(tmp, err) < 0) || rename(tmp, out) < 0) {
		if (script && !*err)
			mgb_err(err, "%s: %s", out, strerror(errno));
		fprintf(stderr, "mgbench plot: %s\n", err);
		unlink(tmp);
		goto out_labels;
	}
	if (script_path) {
		/* the saved script draws to the real name */
		free(script);
		p.output = out;
		script = script_for(docs, (const char *const *)labels, ndocs, &p, &len, err);
		if (!script || write_file(script_path, script, len, err) < 0) {
			fprintf(stderr, "mgbench plot: %s\n", err);
			goto out_labels;
		}
	}
	rc = MGB_EXIT_OK;
out_labels:
	for (unsigned d = 0; d < ndocs; d++)
		free(labels[d]);
out:
	free(script);
	free(tmp);
	for (unsigned d = 0; d < ndocs; d++)
		json_decref(docs[d]);
	return rc;
}
