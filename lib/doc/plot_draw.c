/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Drawing: a plot's gnuplot script (plot.c) run through gnuplot into memory, for plot and ab. */
#include "config.h"
#include "plot.h"
#include "proc.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/* Run gnuplot on the script with its standard output on out_fd; 0 when it exited 0. */
static int run_gnuplot(const char *script, size_t len, int out_fd, char *err)
{
	const char *const argv[] = { GNUPLOT_PATH, NULL };
	struct mgb_proc_spec spec = { .argv = argv, .in = MGB_PROC_PIPE, .out = MGB_PROC_FD, .out_fd = out_fd,
				      .err = MGB_PROC_INHERIT };
	struct mgb_proc child;
	int status;

	if (!*GNUPLOT_PATH || access(GNUPLOT_PATH, X_OK) < 0)
		return mgb_err(err, "gnuplot not found%s%s: install Debian's gnuplot-nox and reconfigure",
			       *GNUPLOT_PATH ? " at " : "", GNUPLOT_PATH);
	if (mgb_proc_start(&spec, &child, err) < 0)
		return -1;
	for (size_t off = 0; off < len;) {
		ssize_t n = write(child.in, script + off, len - off);

		if (n <= 0)
			break;
		off += (size_t)n;
	}
	close(child.in);
	if (mgb_proc_wait(child.pid, &status, err) < 0)
		return -1;
	if (WIFSIGNALED(status))
		return mgb_err(err, "gnuplot was killed by signal %d", WTERMSIG(status));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return mgb_err(err, "gnuplot exited %d: see its message above", WEXITSTATUS(status));
	return 0;
}

char *mgb_plot_script_text(json_t *const *docs, const char *const *labels, unsigned ndocs,
			   const struct mgb_plot *p, size_t *len, char *err)
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

/* gnuplot's dumb terminal starts a page with a form feed and pads lines with blanks: an email
 * wants neither.  In place; the new length. */
static size_t tidy_text_plot(char *text, size_t len)
{
	char *o = text;
	size_t k = 0;

	for (size_t i = 0; i < len; i++)
		if (text[i] != '\f')
			text[k++] = text[i];
	for (size_t i = 0; i < k;) {
		size_t e = i, n;

		while (e < k && text[e] != '\n')
			e++;
		n = e - i;
		while (n > 0 && text[i + n - 1] == ' ')
			n--;
		memmove(o, text + i, n);
		o += n;
		*o++ = '\n';
		i = e + 1;
	}
	return (size_t)(o - text);
}

/* The picture: gnuplot draws into memory (*pic, malloc'd), which mgbench then writes whole. */
int mgb_plot_draw(const char *script, size_t len, const struct mgb_plot *p, char **pic, size_t *size, char *err)
{
	int fd = memfd_create("mgbench-plot", MFD_CLOEXEC), rc = -1;
	off_t end;

	*pic = NULL;
	if (fd < 0)
		return mgb_err(err, "memfd_create: %s", strerror(errno));
	if (run_gnuplot(script, len, fd, err) < 0)
		goto out;
	if ((end = lseek(fd, 0, SEEK_END)) <= 0 || !(*pic = malloc((size_t)end)) ||
	    pread(fd, *pic, (size_t)end, 0) != end) {
		mgb_err(err, "reading gnuplot's picture: %s", end == 0 ? "gnuplot drew nothing" : strerror(errno));
		goto out;
	}
	*size = p->format == MGB_PLOT_TXT ? tidy_text_plot(*pic, (size_t)end) : (size_t)end;
	rc = 0;
out:
	if (rc) {
		free(*pic);
		*pic = NULL;
	}
	close(fd);
	return rc;
}

/* A text plot has no room for long labels under its clusters: the documents are A, B, ... in
 * the picture, and this legend below it names them (control characters made '?', folded at
 * 72 columns). */
static char *text_legend(char *const *labels, unsigned ndocs, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	if (!f)
		return NULL;
	fprintf(f, "\n");
	for (unsigned d = 0; d < ndocs; d++) {
		unsigned col = 3;
		char *safe = mgb_printable_dup(labels[d]);

		fprintf(f, "%c: ", 'A' + d);
		for (const char *s = safe; s && *s; s++) {
			/* a column per character: a UTF-8 sequence's continuation bytes take none */
			if (((unsigned char)*s & 0xc0) != 0x80 && col++ == 72) {
				fprintf(f, "\n   ");
				col = 4;
			}
			fputc(*s, f);
		}
		fputc('\n', f);
		free(safe);
	}
	fclose(f);
	return text;
}

/* The text picture with the legend of its letters appended. */
int mgb_plot_add_legend(char **pic, size_t *size, char *const *labels, unsigned ndocs, char *err)
{
	size_t n;
	char *legend = text_legend(labels, ndocs, &n), *both;

	if (!legend || !(both = realloc(*pic, *size + n))) {
		free(legend);
		return mgb_err(err, "out of memory");
	}
	memcpy(both + *size, legend, n);
	*pic = both;
	*size += n;
	free(legend);
	return 0;
}
