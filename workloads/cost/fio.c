/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fio as a load generator: job files, the fio process, its JSON (see fio.h). */
#include "config.h"
#include "fio.h"
#include "json_text.h"
#include "proc.h"
#include "stop.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MGB_FIO_JOBDIR
#define MGB_FIO_JOBDIR ""
#endif
#ifndef MGB_FIO_SRCDIR
#define MGB_FIO_SRCDIR ""
#endif

/* The first line at or after p that begins with '{', or NULL. */
static const char *json_start(const char *text, size_t len, const char *p)
{
	const char *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (*p == '{')
			return p;
		if (!nl)
			break;
		p = nl + 1;
	}
	return NULL;
}

static bool blank(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\n' && p[i] != '\r')
			return false;
	return true;
}

/* The text of a warning block without its trailing blank lines, or NULL when it is blank. */
static char *trimmed(const char *p, size_t n)
{
	if (blank(p, n))
		return NULL;
	while (n && (p[n - 1] == '\n' || p[n - 1] == '\r' || p[n - 1] == ' '))
		n--;
	return strndup(p, n);
}

static double percentile(json_t *clat, const char *key)
{
	json_t *v = json_object_get(json_object_get(clat, "percentile"), key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/*
 * fio's document: from the first line beginning with '{' that parses as JSON.  A warning line
 * that happens to begin with '{' is skipped; if none parses, the first attempt's error is told.
 */
static json_t *load_document(const char *text, size_t len, const char **start, size_t *used, char *err)
{
	json_error_t jerr, first = { 0 };
	size_t lines = 0, first_lines = 0;
	const char *p = text;
	bool tried = false;

	while ((p = json_start(text, len, p))) {
		json_t *doc = json_loadb(p, len - (size_t)(p - text), JSON_DISABLE_EOF_CHECK, &jerr);

		if (doc) {
			*start = p;
			*used = (size_t)jerr.position;
			return doc;
		}
		lines = 0;
		for (const char *q = text; q < p; q++)
			lines += *q == '\n';
		if (!tried) {
			first = jerr;
			first_lines = lines;
			tried = true;
		}
		p = memchr(p, '\n', len - (size_t)(p - text));
		if (!p)
			break;
		p++;
	}
	mgb_err(err, "fio output is not valid JSON: %s (line %zu)", first.text, (size_t)first.line + first_lines);
	return NULL;
}

int mgb_fio_parse(const char *text, size_t len, struct mgb_fio_result *r, char *err)
{
	const char *start = text ? json_start(text, len, text) : NULL;
	json_t *doc, *job, *w, *clat, *v;
	size_t used = 0;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	if (!start) {
		const char *nl = text ? memchr(text, '\n', len) : NULL;
		size_t n = nl ? (size_t)(nl - text) : len;

		if (!text || blank(text, len))
			return mgb_err(err, "fio output is empty, not JSON");
		return mgb_err(err, "fio output is not JSON (no line starts with '{'): \"%.*s\"", (int)(n < 60 ? n : 60),
			       text);
	}
	doc = load_document(text, len, &start, &used, err);
	if (!doc)
		return -1;
	if (!json_is_object(doc)) {
		mgb_err(err, "fio output is JSON but not an object");
		goto out;
	}
	v = json_object_get(doc, "fio version");
	if (!json_is_string(v)) {
		mgb_err(err, "fio output has no \"fio version\": not fio's JSON");
		goto out;
	}
	snprintf(r->version, sizeof(r->version), "%s", json_string_value(v));
	job = json_array_get(json_object_get(doc, "jobs"), 0);
	if (!json_is_object(job)) {
		mgb_err(err, "fio output names no job");
		goto out;
	}
	v = json_object_get(job, "error");
	if (json_is_integer(v) && json_integer_value(v) != 0) {
		mgb_err(err, "fio job '%s' failed: %s (error %d)", json_string_value(json_object_get(job, "jobname")) ?: "?",
			strerror((int)json_integer_value(v)), (int)json_integer_value(v));
		goto out;
	}
	w = json_object_get(job, "write");
	clat = json_object_get(w, "clat_ns");
	if (!json_is_integer(json_object_get(w, "total_ios")) || !json_is_number(json_object_get(w, "iops")) ||
	    !json_is_integer(json_object_get(w, "runtime")) || !json_is_number(json_object_get(clat, "mean"))) {
		mgb_err(err, "fio output lacks write.total_ios, iops, runtime or clat_ns.mean");
		goto out;
	}
	r->write_ios = (uint64_t)json_integer_value(json_object_get(w, "total_ios"));
	r->write_iops = json_number_value(json_object_get(w, "iops"));
	r->runtime_ns = (int64_t)json_integer_value(json_object_get(w, "runtime")) * 1000000;
	r->clat_mean_ns = json_number_value(json_object_get(clat, "mean"));
	r->clat_p50_ns = percentile(clat, "50.000000");
	r->clat_p90_ns = percentile(clat, "90.000000");
	r->clat_p99_ns = percentile(clat, "99.000000");
	r->clat_p99_9_ns = percentile(clat, "99.900000");
	/* a job that had the CPU for less than its run was kept waiting (a busy machine) or blocked */
	r->cpu_ratio = json_is_number(json_object_get(job, "usr_cpu")) && json_is_number(json_object_get(job, "sys_cpu"))
			       ? (json_number_value(json_object_get(job, "usr_cpu")) +
				  json_number_value(json_object_get(job, "sys_cpu"))) / 100
			       : NAN;
	/* Warnings above the JSON (and any below it) are kept for the cell, never parsed. */
	{
		char *above = trimmed(text, (size_t)(start - text));
		char *below = trimmed(start + used, len - (size_t)(start - text) - used);

		if (above && below) {
			if (asprintf(&r->preamble, "%s\n%s", above, below) < 0)
				r->preamble = NULL;
			free(above);
			free(below);
		} else {
			r->preamble = above ? above : below;
		}
	}
	rc = 0;
out:
	json_decref(doc);
	return rc;
}

void mgb_fio_result_free(struct mgb_fio_result *r)
{
	free(r->preamble);
	r->preamble = NULL;
}

int mgb_fio_job_path(const char *name, char *path, size_t len, char *err)
{
	const char *env = getenv("MGBENCH_FIO_DIR");
	const char *dirs[] = { MGB_FIO_JOBDIR, MGB_FIO_SRCDIR };

	if (env && *env) {
		snprintf(path, len, "%s/%s", env, name);
		if (access(path, R_OK) == 0)
			return 0;
		return mgb_err(err, "fio job file %s: %s (from MGBENCH_FIO_DIR)", path, strerror(errno));
	}
	for (size_t i = 0; i < MGB_ARRAY_SIZE(dirs); i++) {
		if (!*dirs[i])
			continue;
		snprintf(path, len, "%s/%s", dirs[i], name);
		if (access(path, R_OK) == 0)
			return 0;
	}
	return mgb_err(err, "fio job file %s not found in %s or %s: install mgbench or set MGBENCH_FIO_DIR", name,
		       MGB_FIO_JOBDIR, MGB_FIO_SRCDIR);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		size_t got;

		if (cap - n < 4096) {
			char *nb = realloc(buf, cap + 65536);

			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
			cap += 65536;
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	fclose(f);
	buf[n] = 0;
	*len = n;
	return buf;
}

/* fio's first line that says what went wrong, for a one-line error. */
static void first_error_line(const char *log, char *line, size_t len)
{
	size_t n = 0;
	char *buf = slurp(log, &n);
	const char *p = buf, *pick = NULL;

	*line = 0;
	while (p && *p) {
		size_t l = strcspn(p, "\n");

		if (!pick && l)
			pick = p;
		if (!strncmp(p, "fio: ", 5) || strstr(p, "rror")) {
			pick = p;
			break;
		}
		p += l + (p[l] == '\n');
	}
	if (pick)
		snprintf(line, len, "%.*s", (int)strcspn(pick, "\n"), pick);
	free(buf);
}

int mgb_fio_filename_env(const char *name, const char *path, char *out, size_t len, char *err)
{
	size_t o = (size_t)snprintf(out, len, "%s=", name);

	for (const char *p = path; *p; p++) {
		if (mgb_is_control(*p))
			return mgb_err(err, "fio cannot be given a path with control characters (a newline or "
				       "tab): %.200s", path);
		if (o + 3 > len)
			return mgb_err(err, "path too long for fio: %.200s", path);
		if (*p == ':')
			out[o++] = '\\';
		out[o++] = *p;
	}
	if (o >= len)
		return mgb_err(err, "path too long for fio: %.200s", path);
	out[o] = '\0';
	return 0;
}

int mgb_fio_run(const char *fio, const char *jobfile, const char *const env[], const char *workdir,
		struct mgb_fio_result *r, char *err)
{
	char out[4096], log[4096], outopt[4200], why[200];
	const char *argv[] = { fio, "--output-format=json", outopt, jobfile, NULL };
	/* fio dies with us and keeps terminal signals to us: we stop it ourselves */
	struct mgb_proc_spec spec = { .argv = argv, .env = env, .err = MGB_PROC_WITH_OUT, .death_signal = SIGKILL };
	struct mgb_proc child;
	int status, rc, logfd;
	bool stopped = false;
	char *text;
	size_t len = 0;

	memset(r, 0, sizeof(*r));
	if (!fio || !*fio)
		return mgb_err(err, "fio was not found when mgbench was configured: install fio or use --load builtin");
	snprintf(out, sizeof(out), "%s/fio.json", workdir);
	snprintf(log, sizeof(log), "%s/fio.log", workdir);
	snprintf(outopt, sizeof(outopt), "--output=%s", out);
	unlink(out);
	if ((logfd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) >= 0)
		spec.out = MGB_PROC_FD, spec.out_fd = logfd;
	rc = mgb_proc_start(&spec, &child, err);
	if (logfd >= 0)
		close(logfd);
	if (rc < 0)
		return -1;
	for (;;) {
		int ended = mgb_proc_wait_until(child.pid, &status, mgb_clock_ns(CLOCK_MONOTONIC) + 5000000);

		if (ended < 0) {
			rc = errno;
			mgb_proc_stop(child.pid, NULL, 0, false);
			return mgb_err(err, "waitpid fio: %s", strerror(rc));
		}
		if (ended)
			break;
		/* a stop request gives fio 2 s to end its jobs, then kills it */
		if (mgb_stop_requested()) {
			mgb_proc_stop(child.pid, &status, 2 * MGB_NSEC_PER_SEC, false);
			stopped = true;
			break;
		}
	}
	if (stopped) {
		unlink(out);
		return mgb_err(err, "fio stopped: interrupted");
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		/* fio puts a job's own error (errno) in its JSON and exits 1: that says the most */
		text = slurp(out, &len);
		if (text && mgb_fio_parse(text, len, r, why) < 0 && strstr(why, "failed")) {
			free(text);
			unlink(out);
			unlink(log);
			return mgb_err(err, "%s: %s", jobfile, why);
		}
		mgb_fio_result_free(r);
		free(text);
		first_error_line(log, why, sizeof(why));
		unlink(out);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
			return mgb_err(err, "%s: cannot run it", fio);
		return mgb_err(err, "fio %s: %s%s%s", jobfile,
			       WIFEXITED(status) ? "failed" : "killed by a signal", *why ? ": " : "", why);
	}
	text = slurp(out, &len);
	if (!text) {
		rc = mgb_err(err, "fio wrote no %s: %s", out, strerror(errno));
	} else {
		rc = mgb_fio_parse(text, len, r, err);
		free(text);
	}
	unlink(out);
	unlink(log);
	return rc;
}

json_t *mgb_fio_result_json(const struct mgb_fio_result *r)
{
	json_t *clat = json_object();

	json_object_set_new(clat, "mean", json_real(r->clat_mean_ns));
	json_object_set_new(clat, "p50", isnan(r->clat_p50_ns) ? json_null() : json_real(r->clat_p50_ns));
	json_object_set_new(clat, "p90", isnan(r->clat_p90_ns) ? json_null() : json_real(r->clat_p90_ns));
	json_object_set_new(clat, "p99", isnan(r->clat_p99_ns) ? json_null() : json_real(r->clat_p99_ns));
	json_object_set_new(clat, "p99_9", isnan(r->clat_p99_9_ns) ? json_null() : json_real(r->clat_p99_9_ns));
	return MGB_JSON_PACK("{s:I, s:f, s:I, s:o, s:o, s:o}", "write_ios", (json_int_t)r->write_ios, "write_iops",
			     r->write_iops, "runtime_ns", (json_int_t)r->runtime_ns, "cpu_ratio",
			     isnan(r->cpu_ratio) ? json_null() : json_real(r->cpu_ratio), "write_clat_ns", clat, "warnings",
			     r->preamble ? mgb_json_text(r->preamble) : json_null());
}
