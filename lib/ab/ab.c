/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ab's boots (see lib/ab.h): the set's key, the order, one `mgbench vm` per boot with its log,
 * and which documents of an earlier ab of the same set can be kept.  Each boot is the mgbench
 * binary itself run as a child: vm's own checks, namespace and clean-up hold for every boot, and
 * a boot that fails or is stopped leaves the others whole.
 */
#include "config.h"
#include "ab.h"
#include "ab_internal.h"
#include "doc.h"
#include "proc.h"
#include "result.h"
#include "stop.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define STOP_GRACE_NS (60 * 1000000000LL) /* vm stops its guest and keeps what it finished */

static void iso_now(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* What determines a boot's document: the kernels (a build directory by its manifest), the vm
 * options, the run, and mgbench's version.  The boots' count and their order do not: more boots
 * reuse the earlier ones. */
static void set_key(const struct mgb_ab *ab, char *const kernel[2], char key[13])
{
	char *text = NULL, hex[65];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f) {
		snprintf(key, 13, "000000000000");
		return;
	}
	fprintf(f, "mgbench ab 1\nversion %s\n", PACKAGE_VERSION);
	for (int s = 0; s < 2; s++) {
		char manifest[4096];

		fprintf(f, "kernel %c %s\n", 'A' + s, kernel[s]);
		snprintf(manifest, sizeof(manifest), "%s/manifest.json", kernel[s]);
		if (!access(manifest, R_OK) && !mgb_sha256_file(manifest, hex, (char[MGB_ERR_LEN]){ 0 }))
			fprintf(f, "manifest %s\n", hex);
	}
	for (unsigned i = 0; i < ab->nvm_args; i++)
		fprintf(f, "vm %s\n", ab->vm_args[i]);
	for (unsigned i = 0; i < ab->run_argc; i++)
		fprintf(f, "run %s\n", ab->run_argv[i]);
	fclose(f);
	mgb_sha256_buf(text, len, hex);
	free(text);
	snprintf(key, 13, "%.12s", hex);
}

/* splitmix64: a seeded order anyone can recompute from the seed in the documents. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void make_order(const struct mgb_ab *ab, struct mgb_ab_boot *order)
{
	unsigned n = 2 * ab->boots;
	uint64_t state = ab->seed;

	for (unsigned i = 0; i < n; i++) {
		order[i].side = (int)(i % 2);
		order[i].index = i / 2 + 1;
	}
	for (unsigned i = n - 1; ab->random_order && i > 0; i--) { /* Fisher-Yates */
		unsigned j = (unsigned)(next_random(&state) % (i + 1));
		struct mgb_ab_boot t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (unsigned i = 0; i < n; i++)
		order[i].position = i + 1;
}

/* A boot's document, kept only if it is whole and of this set, kernel and index. */
json_t *mgb_ab_boot_doc(const struct mgb_ab_state *st, const struct mgb_ab_boot *b)
{
	char path[4200], err[MGB_ERR_LEN];
	json_t *doc, *meta, *cell;
	bool ok;
	size_t i;

	snprintf(path, sizeof(path), "%s/boots/%s", st->dir, b->name);
	if (access(path, F_OK) || !(doc = mgb_doc_read(path, err)))
		return NULL;
	meta = json_object_get(doc, "ab");
	ok = !json_is_true(json_object_get(doc, "interrupted")) && json_array_size(json_object_get(doc, "cells")) &&
	     !strcmp(json_string_value(json_object_get(meta, "set")) ?: "", st->key) &&
	     !strcmp(json_string_value(json_object_get(meta, "side")) ?: "", b->side ? "B" : "A") &&
	     json_integer_value(json_object_get(meta, "boot")) == (json_int_t)b->index;
	json_array_foreach(json_object_get(doc, "cells"), i, cell)
		ok &= strcmp(json_string_value(json_object_get(cell, "status")) ?: "", "interrupted") != 0;
	if (!ok) {
		json_decref(doc);
		return NULL;
	}
	return doc;
}

/* The log's last lines, where a failed boot's reason is, each made safe for a terminal. */
static void show_log_tail(const char *path)
{
	char *text = mgb_read_text(path, (char[MGB_ERR_LEN]){ 0 }), *p, *save = NULL;
	int lines = 0;

	if (!text)
		return;
	p = text + strlen(text);
	while (p > text && lines < 6)
		if (*--p == '\n' && p[1])
			lines++;
	for (char *l = strtok_r(p, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		fprintf(stderr, "%s\n", mgb_printable(l));
	free(text);
}

/* Wait for a child (a boot's vm, a kernel build), looking at the stop flag five times a second:
 * 0 when it ended (its status in *status), or -1 with err when a stop came (the child is given
 * STOP_GRACE_NS to stop what it started) or the wait failed. */
static int wait_child(pid_t pid, int *status, const char *what, char *err)
{
	for (;;) {
		int r = mgb_proc_wait_until(pid, status, mgb_clock_ns(CLOCK_MONOTONIC) + 200000000);

		if (r == 1)
			return 0;
		if (r < 0) {
			mgb_err(err, "waiting for %s: %s", what, strerror(errno));
			mgb_proc_stop(pid, status, 0, true);
			return -1;
		}
		if (mgb_stop_requested()) {
			mgb_proc_stop(pid, status, STOP_GRACE_NS, true);
			return mgb_err(err, "interrupted (signal %d) during %s", (int)mgb_stop_signal, what);
		}
	}
}

/* One boot: `mgbench vm -q --kernel K [vm options] -o DOC -- run ...`, its output in the log.
 * 0 when it left a whole document (annotated here), 1 when it did not (err names the kernel),
 * -1 on a stop or an error. */
static int run_boot(const struct mgb_ab_state *st, const struct mgb_ab_boot *b, char *err)
{
	const struct mgb_ab *ab = st->ab;
	const char **argv = calloc(16 + ab->nvm_args + ab->run_argc, sizeof(*argv));
	char doc_path[4200], log_path[4200], started[32], finished[32];
	struct mgb_proc_spec spec = { .out = MGB_PROC_FD, .err = MGB_PROC_FD, .death_signal = SIGTERM };
	struct mgb_proc child;
	struct mgb_output out;
	unsigned n = 0;
	int logfd, status = 0, rc = -1;
	json_t *doc;

	if (!argv)
		return mgb_err(err, "out of memory");
	snprintf(doc_path, sizeof(doc_path), "%s/boots/%s", st->dir, b->name);
	snprintf(log_path, sizeof(log_path), "%s/logs/%.*s.log", st->dir, (int)strlen(b->name) - 5, b->name);
	argv[n++] = ab->self;
	argv[n++] = "vm";
	argv[n++] = "-q";
	argv[n++] = "--kernel";
	argv[n++] = st->kernel[b->side];
	for (unsigned i = 0; i < ab->nvm_args; i++)
		argv[n++] = ab->vm_args[i];
	argv[n++] = "-o";
	argv[n++] = doc_path;
	argv[n++] = "--";
	for (unsigned i = 0; i < ab->run_argc; i++)
		argv[n++] = ab->run_argv[i];
	argv[n] = NULL;
	logfd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (logfd < 0) {
		free(argv);
		return mgb_err(err, "cannot write %s: %s", log_path, strerror(errno));
	}
	spec.argv = argv;
	spec.out_fd = spec.err_fd = logfd;
	iso_now(started, sizeof(started));
	unlink(doc_path); /* an incomplete one of an earlier ab */
	if (mgb_proc_start(&spec, &child, err) < 0)
		goto out;
	{
		char what[64];

		/* vm stops its guest and keeps the cells it finished: a partial document, which the next
		 * ab redoes */
		snprintf(what, sizeof(what), "boot %u of %c", b->index, 'A' + b->side);
		if (wait_child(child.pid, &status, what, err))
			goto out;
	}
	iso_now(finished, sizeof(finished));
	if (!(doc = mgb_doc_read(doc_path, err)) || json_is_true(json_object_get(doc, "interrupted"))) {
		if (!ab->quiet)
			show_log_tail(log_path);
		mgb_err(err, "kernel %c (%s) failed on boot %u (vm exit %d): no whole document; its log: %s",
			'A' + b->side, ab->kernel[b->side] ? ab->kernel[b->side] : st->kernel[b->side], b->index,
			WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), log_path);
		json_decref(doc);
		rc = 1;
		goto out;
	}
	json_object_set_new(doc, "ab",
			    json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:s, s:I, s:s, s:s, s:i}", "set", st->key, "side",
				      b->side ? "B" : "A", "kernel", st->kernel[b->side], "boot", (int)b->index,
				      "boots", (int)ab->boots, "position", (int)b->position, "order",
				      ab->random_order ? "random" : "alternate", "seed", (json_int_t)ab->seed, "started",
				      started, "finished", finished, "vm_exit",
				      WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status)));
	rc = mgb_output_open(&out, doc_path, err) < 0 || mgb_output_commit(&out, doc, err) < 0 ? -1 : 0;
	json_decref(doc);
out:
	close(logfd);
	free(argv);
	return rc;
}

/* In build mode, A and B are built (through the cache) into the directory's kernels/. */
static int build_kernels(const struct mgb_ab *ab, struct mgb_ab_state *st, char *err)
{
	for (int s = 0; s < 2; s++) {
		const char *argv[16];
		unsigned n = 0;
		char out[4200];
		int status, rc;
		struct mgb_proc child;
		/* its stdout (the build's path) on our stderr: ab's stdout is the table */
		struct mgb_proc_spec spec = { .argv = argv, .out = MGB_PROC_FD, .out_fd = 2, .err = MGB_PROC_INHERIT,
					      .death_signal = SIGTERM };

		snprintf(out, sizeof(out), "%s/kernels/%c", st->dir, 'A' + s);
		argv[n++] = ab->self;
		argv[n++] = "kernel";
		argv[n++] = "build";
		if (ab->quiet)
			argv[n++] = "-q";
		argv[n++] = "--source";
		argv[n++] = ab->source;
		if (ab->config) {
			argv[n++] = "--config";
			argv[n++] = ab->config;
		}
		if (s == 1) {
			argv[n++] = "--patches";
			argv[n++] = ab->patches;
		}
		argv[n++] = "-o";
		argv[n++] = out;
		argv[n] = NULL;
		if (!ab->quiet)
			fprintf(stderr, "mgbench ab: building %c: %s%s%s\n", 'A' + s, ab->source, s ? " + " : "",
				s ? ab->patches : "");
		if (mgb_proc_start(&spec, &child, err) < 0)
			return -1;
		char what[32];

		snprintf(what, sizeof(what), "building %c", 'A' + s);
		if (wait_child(child.pid, &status, what, err))
			return -1;
		if ((rc = mgb_proc_result("mgbench kernel build", status, err)))
			return rc < 0 ? -1 : mgb_err(err, "building %c failed (exit %d): see above", 'A' + s, rc);
		if (!(st->kernel[s] = strdup(out)))
			return mgb_err(err, "out of memory");
	}
	return 0;
}

static int make_dirs(struct mgb_ab_state *st, char *err)
{
	static const char *const subs[] = { "boots", "logs", "kernels" };
	int fd = mgb_open_trusted_dir(st->ab->dir, true, false, err);

	if (fd < 0)
		return -1;
	for (size_t i = 0; i < MGB_ARRAY_SIZE(subs); i++)
		if (mkdirat(fd, subs[i], 0755) && errno != EEXIST) {
			mgb_err(err, "cannot create %s/%s: %s", st->ab->dir, subs[i], strerror(errno));
			close(fd);
			return -1;
		}
	/* the path children are given: nobody but root can change it (checked above) */
	st->dir = realpath(st->ab->dir, NULL);
	close(fd);
	return st->dir ? 0 : mgb_err(err, "%s: %s", st->ab->dir, strerror(errno));
}

int mgb_ab_run(const struct mgb_ab *ab, char *err)
{
	struct mgb_ab_state st = { .ab = ab };
	unsigned n = 2 * ab->boots, done = 0, reused = 0, ran = 0;
	int64_t t_boots = 0, t_start = mgb_clock_ns(CLOCK_MONOTONIC);
	int rc = -1;

	if (make_dirs(&st, err))
		return -1;
	if (ab->source) {
		int64_t t0 = mgb_clock_ns(CLOCK_MONOTONIC);

		if (build_kernels(ab, &st, err))
			goto out;
		if (!ab->quiet)
			fprintf(stderr, "mgbench ab: both kernels built or taken from the cache in %.1f s\n",
				(double)(mgb_clock_ns(CLOCK_MONOTONIC) - t0) / 1e9);
		t_start = mgb_clock_ns(CLOCK_MONOTONIC); /* ab's own time is measured beside the boots */
	} else {
		for (int s = 0; s < 2; s++)
			if (!(st.kernel[s] = strdup(ab->kernel[s]))) {
				mgb_err(err, "out of memory");
				goto out;
			}
	}
	if (!strcmp(st.kernel[0], st.kernel[1]) && !ab->quiet)
		fprintf(stderr, "mgbench ab: A and B are the same kernel (%s): an A/A calibration\n", st.kernel[0]);
	set_key(ab, st.kernel, st.key);
	if (!(st.order = calloc(n, sizeof(*st.order)))) {
		mgb_err(err, "out of memory");
		goto out;
	}
	st.n = n;
	make_order(ab, st.order);
	for (unsigned i = 0; i < n; i++) {
		struct mgb_ab_boot *b = &st.order[i];
		json_t *doc;

		snprintf(b->name, sizeof(b->name), "%s-%c-%02u.json", st.key, 'A' + b->side, b->index);
		if ((doc = mgb_ab_boot_doc(&st, b))) {
			json_decref(doc);
			b->done = true;
			reused++;
			done++;
		}
	}
	if (reused && !ab->quiet)
		fprintf(stderr, "mgbench ab: %u of %u boots kept from an earlier ab of this set (%s)\n", reused, n, st.key);
	for (unsigned i = 0; i < n; i++) {
		struct mgb_ab_boot *b = &st.order[i];
		int64_t t0 = mgb_clock_ns(CLOCK_MONOTONIC);

		if (b->done)
			continue;
		if (!ab->quiet) {
			fprintf(stderr, "mgbench ab: boot %u of %u: %c%u (%s)", done + 1, n, 'A' + b->side, b->index,
				st.kernel[b->side]);
			if (ran)
				fprintf(stderr, ", about %.0f min left",
					(double)t_boots / ran * (n - done) / 60e9 + 0.5);
			fputc('\n', stderr);
		}
		if ((rc = run_boot(&st, b, err)))
			goto out;
		t_boots += mgb_clock_ns(CLOCK_MONOTONIC) - t0;
		ran++;
		b->done = true;
		done++;
	}
	rc = mgb_ab_report(&st, err);
	if (ran && !ab->quiet) {
		/* what ab itself adds to the boots: the report, the bookkeeping, the children's exec */
		double all = (double)(mgb_clock_ns(CLOCK_MONOTONIC) - t_start) / 1e9, in_boots = (double)t_boots / 1e9;

		fprintf(stderr, "mgbench ab: %u boots in %.1f s; ab's own time %.2f s (%.1f%% of the boots')\n", ran, all,
			all - in_boots, 100 * (all - in_boots) / in_boots);
	}
out:
	free(st.order);
	free(st.kernel[0]);
	free(st.kernel[1]);
	free(st.dir);
	return rc;
}
