/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Is multigrain in effect on a filesystem?  Decided empirically: write then statx(CTIME|MTIME),
 * many times within a few coarse ticks.  Coarse stamps give at most one distinct ctime per tick;
 * multigrain gives one per round.  The fill_mg_cmtime tracepoint, which fires only on the
 * multigrain getattr path, is counted for the probe's inode as a second witness.
 */
#include "config.h"
#include "json_text.h"
#include "probe.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PROBE_ROUNDS 200

int mgb_mgtime_probe(const struct mgb_target *t, const struct mgb_clockinfo *ci, struct mgb_mgtime_probe *p, char *err)
{
	struct mgb_tracecount tc = { 0 };
	struct statx sx;
	char path[4096];
	int64_t prev = -1, t0, t1;
	char byte = 'x';
	int fd;

	memset(p, 0, sizeof(*p));
	p->rounds = PROBE_ROUNDS;
	p->fill_mg_cmtime_events = -1;
	snprintf(path, sizeof(path), "%s/.mgbench-probe", t->path);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return mgb_err(err, "probe file %s: %s", path, strerror(errno));
	if (statx(fd, "", AT_EMPTY_PATH, STATX_INO, &sx) == 0 &&
	    mgb_tracecount_open(&tc, "timestamp", "fill_mg_cmtime", t->sb_dev_major, t->sb_dev_minor,
				sx.stx_ino, NULL) < 0)
		tc.nfds = 0;
	t0 = mgb_clock_ns(CLOCK_MONOTONIC);
	for (unsigned i = 0; i < PROBE_ROUNDS; i++) {
		int64_t c;

		if (pwrite(fd, &byte, 1, 0) != 1 ||
		    statx(fd, "", AT_EMPTY_PATH, STATX_CTIME | STATX_MTIME, &sx) < 0) {
			mgb_err(err, "probe write/statx on %s: %s", path, strerror(errno));
			goto fail;
		}
		c = sx.stx_ctime.tv_sec * MGB_NSEC_PER_SEC + sx.stx_ctime.tv_nsec;
		if (i > 0 && c != prev)
			p->distinct++;
		prev = c;
	}
	t1 = mgb_clock_ns(CLOCK_MONOTONIC);
	if (tc.nfds)
		p->fill_mg_cmtime_events = mgb_tracecount_read(&tc);
	mgb_tracecount_close(&tc);
	close(fd);
	unlink(path);

	p->elapsed_ticks = ci->coarse_tick_ns > 0 ? (double)(t1 - t0) / (double)ci->coarse_tick_ns : 0;
	/*
	 * Coarse stamps cannot give more distinct values than ticks elapsed (+1 for the edge).  But
	 * the global floor lifts coarse stamps too, so a busy machine can make a coarse inode look
	 * fine; where the tracepoint exists it decides: it fires only on the multigrain getattr path.
	 */
	p->multigrain = p->distinct >= (PROBE_ROUNDS - 1) * 99 / 100 &&
			(double)p->distinct > 2.0 * (p->elapsed_ticks + 1.0);
	if (p->fill_mg_cmtime_events >= 0)
		p->multigrain = p->fill_mg_cmtime_events >= PROBE_ROUNDS / 2;
	snprintf(p->evidence, sizeof(p->evidence), "%llu distinct ctimes in %u write+statx rounds over %.1f ticks",
		 (unsigned long long)p->distinct, PROBE_ROUNDS - 1, p->elapsed_ticks);
	if (p->fill_mg_cmtime_events >= 0) {
		size_t n = strlen(p->evidence);

		snprintf(p->evidence + n, sizeof(p->evidence) - n, "; fill_mg_cmtime fired %lld times",
			 (long long)p->fill_mg_cmtime_events);
	}
	return 0;
fail:
	mgb_tracecount_close(&tc);
	close(fd);
	unlink(path);
	return -1;
}

json_t *mgb_mgtime_evidence_json(const struct mgb_target *t, const struct mgb_clockinfo *ci)
{
	struct mgb_mgtime_probe p;
	char err[MGB_ERR_LEN];

	if (mgb_mgtime_probe(t, ci, &p, err) < 0)
		return MGB_JSON_PACK("{s:n, s:{s:o}}", "in_effect", "evidence", "reason", mgb_json_text(err));
	return MGB_JSON_PACK("{s:b, s:{s:s, s:o, s:i, s:I, s:f, s:o}}", "in_effect", p.multigrain, "evidence",
			 "method", p.fill_mg_cmtime_events >= 0 ? "fill_mg_cmtime tracepoint" : "distinct ctimes",
			 "summary", mgb_json_text(p.evidence), "rounds", (int)p.rounds - 1, "distinct", (json_int_t)p.distinct,
			 "elapsed_ticks", p.elapsed_ticks, "fill_mg_cmtime_events",
			 p.fill_mg_cmtime_events >= 0 ? json_integer(p.fill_mg_cmtime_events) : json_null());
}

json_t *mgb_mgtime_probe_json(struct mgb_session *s, const struct mgb_fs_type *fs, const char *dir,
			      const struct mgb_clockinfo *ci)
{
	struct mgb_target t;
	struct mgb_mgtime_probe p;
	char err[MGB_ERR_LEN];
	json_t *j;
	int r;

	r = fs ? mgb_target_scratch(s, fs, &t, err) : mgb_target_dir(dir, &t, err);
	if (r == 0)
		r = mgb_mgtime_probe(&t, ci, &p, err);
	if (r < 0)
		j = MGB_JSON_PACK("{s:s, s:o?, s:n, s:o}", "fs", fs ? fs->name : "dir", "fstype",
				  t.fstype ? mgb_json_text(t.fstype) : NULL, "multigrain", "error", mgb_json_text(err));
	else
		j = MGB_JSON_PACK("{s:s, s:o?, s:b, s:s, s:{s:i, s:I, s:f, s:I}}",
			      "fs", fs ? fs->name : "dir", "fstype", t.fstype ? mgb_json_text(t.fstype) : NULL,
			      "multigrain", p.multigrain,
			      "evidence", p.evidence, "probe", "rounds", (int)p.rounds - 1,
			      "distinct", (json_int_t)p.distinct, "elapsed_ticks", p.elapsed_ticks,
			      "fill_mg_cmtime_events", (json_int_t)p.fill_mg_cmtime_events);
	mgb_target_down(&t);
	return j;
}
