/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cost: the write load of a phase, fio or mgbench's own loop, and which of them a cell uses. */
#include "config.h"
#include "stop.h"
#include "cost.h"

#include <errno.h>
#include <string.h>

int cost_do_sync(struct mgb_backend *be, struct mgb_file *f, const struct cost_params *p)
{
	if (p->sync == SYNC_NONE)
		return 0;
	/* fdatasync is fsync on backends without it: both force the data and what it needs */
	return mgb_be_fsync(be, f);
}

/* fio once on the cell's job, on the file mgbench laid out and the poller holds open. */
int cost_fio_load(struct cost_cell *c, struct mgb_fio_result *res)
{
	const struct cost_params *p = c->p;
	char file[4200], bs[48], fsz[48], iosz[48], fsync[48], fdsync[48], runtime[48], timed[48];
	const char *const env[] = { file, bs, fsz, iosz, fsync, fdsync, runtime, timed, NULL };
	struct mgb_stat st;
	uint64_t every = p->sync != SYNC_NONE ? p->sync_every : 0;

	if (mgb_fio_filename_env("MGB_FILE", c->path, file, sizeof(file), c->ctx->err) < 0)
		return -1;
	snprintf(bs, sizeof(bs), "MGB_BS=%llu", (unsigned long long)p->size);
	snprintf(fsz, sizeof(fsz), "MGB_FILE_SIZE=%llu", (unsigned long long)c->file_size);
	snprintf(iosz, sizeof(iosz), "MGB_IO_SIZE=%llu", (unsigned long long)(c->ctx->rounds * p->size));
	snprintf(fsync, sizeof(fsync), "MGB_FSYNC=%llu", (unsigned long long)(p->sync == SYNC_FSYNC ? every : 0));
	snprintf(fdsync, sizeof(fdsync), "MGB_FDATASYNC=%llu",
		 (unsigned long long)(p->sync == SYNC_FDATASYNC ? every : 0));
	/*
	 * A phase sized by time loops over the file until the runtime ends (append stops at
	 * --rounds writes too: its file must fit the filesystem); sized by writes, fio-basic keeps
	 * the robot's 300 s limit and the other jobs have none.
	 */
	if (c->phase_ns)
		snprintf(runtime, sizeof(runtime), "MGB_RUNTIME=%lldms", (long long)(c->phase_ns / 1000000));
	else
		snprintf(runtime, sizeof(runtime), "MGB_RUNTIME=%s", p->mode == MODE_FIO_BASIC ? "300" : "0");
	snprintf(timed, sizeof(timed), "MGB_TIME_BASED=%d", c->phase_ns && p->mode != MODE_APPEND);
	if (mgb_fio_run(FIO_PATH, c->job, env, c->workdir, res, c->ctx->err) < 0)
		return -1;
	snprintf(c->fio_version, sizeof(c->fio_version), "%s", res->version);
	/* A job that lays the file out anew writes another inode than the one queried. */
	if (mgb_be_stat(c->ctx->be, "cost.dat", MGB_STAT_SIZE, &st) < 0 || st.ino != c->ino)
		return mgb_err(c->ctx->err, "fio replaced cost.dat (%s lays the file out anew?)", c->job);
	return 0;
}

/* Whether a phase writes on: until its time is up, or --rounds writes when it is sized by writes
 * (and in append mode, whose file must fit the filesystem, either way). */
static bool phase_goes_on(const struct cost_cell *c, int64_t now, int64_t start, uint64_t done)
{
	bool by_time = c->phase_ns > 0;

	if (mgb_stop_requested() || (by_time && now - start >= c->phase_ns))
		return false;
	return (by_time && c->p->mode != MODE_APPEND) || done < c->ctx->rounds;
}

int cost_builtin_load(struct cost_cell *c, uint64_t *done, struct lat_stats *lat, int64_t start)
{
	struct mgb_ctx *ctx = c->ctx;
	struct mgb_backend *be = ctx->be;
	const struct cost_params *p = c->p;
	bool falloc = p->mode == MODE_FIO_BASIC, wrap = p->mode != MODE_APPEND;
	off_t off = 0;

	for (int64_t t0 = mgb_clock_ns(CLOCK_MONOTONIC); phase_goes_on(c, t0, start, *done);
	     t0 = mgb_clock_ns(CLOCK_MONOTONIC)) {
		int64_t took;
		ssize_t n;
		int r;

		if (falloc) {
			n = mgb_be_fallocate(be, &c->f, off, (off_t)p->size);
			n = n < 0 ? n : (ssize_t)p->size;
		} else {
			n = mgb_be_pwrite(be, &c->f, c->buf, p->size, off);
			if (n >= 0 && (size_t)n < p->size)
				n = mgb_short_write_errno(be, &c->f, c->buf, p->size, off, (size_t)n);
		}
		if (n < 0)
			return (int)n;
		took = mgb_clock_ns(CLOCK_MONOTONIC) - t0;
		mgb_hist_add(&lat->h, took);
		lat->sum_ns += (double)took;
		++*done;
		off += (off_t)p->size;
		if (wrap && off + (off_t)p->size > (off_t)c->file_size)
			off = 0;
		if (*done % p->sync_every == 0 && (r = cost_do_sync(be, &c->f, p)) < 0)
			return r;
	}
	return 0;
}

/* Which load the cell uses: fio needs the program and a local, syscall-level backend. */
int cost_pick_load(struct cost_cell *c)
{
	struct mgb_ctx *ctx = c->ctx;
	bool sync_be = !strcmp(ctx->be->ops->name, "sync");

	bool falloc_sync = c->p->mode == MODE_FIO_BASIC && c->p->sync != SYNC_NONE;

	/* auto: fio where it can run the mode (the cell's load.name says which ran) */
	if (c->p->load == LOAD_AUTO)
		c->fio = FIO_PATH[0] && sync_be && !falloc_sync;
	else
		c->fio = c->p->load == LOAD_FIO;
	if (!c->fio)
		return 0;
	if (!FIO_PATH[0])
		return mgb_err(ctx->err, "--load fio: fio was not found when mgbench was configured (install it)");
	if (falloc_sync)
		return mgb_err(ctx->err, "--mode fio-basic --sync: fio's falloc engine cannot sync (EINVAL); "
					 "use --load builtin");
	if (!sync_be)
		return mgb_fail(ctx, -EOPNOTSUPP,
				"--load fio writes through fio's engine: use --backend sync or --load builtin");
	return 0;
}
