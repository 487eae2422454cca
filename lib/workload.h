/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Workloads: what is done to the files.  Each workload is one file in workloads/ defining a
 * `const struct mgb_workload`, listed in workloads/workloads.c.  Options are declarative (name,
 * type, offset into the workload's parameter struct, default, help), so parsing, --help,
 * `mgbench list` and the parameters recorded in the result document all come from one table.
 *
 * To add a workload: write workloads/<name>.c, add it to workloads/workloads.c and
 * workloads/Makemodule.am, describe it in man/mgbench-workloads.7, and add a test in tests/.
 */
#ifndef MGB_WORKLOAD_H
#define MGB_WORKLOAD_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "backend.h"
#include "options.h"
#include "probe.h"
#include "progress.h"
#include "stop.h"
#include "target.h"
#include "util.h"

struct mgb_progress;

/* What a workload gets: where, how, with what, and where to put its numbers. */
struct mgb_ctx {
	struct mgb_backend *be;
	const struct mgb_target *target;
	struct mgb_session *session; /* to make a second scratch target (NULL in --dir runs) */
	const void *params;
	uint64_t rounds;
	const struct mgb_clockinfo *clock;
	struct mgb_progress *progress;
	json_t *metrics; /* the workload adds its metrics here */
	json_t *warnings; /* cell.warnings: mgb_warn() appends, the runner owns it */
	char err[MGB_ERR_LEN];
	/* Set with err when the backend or filesystem cannot do the operation at all (EOPNOTSUPP):
	 * the cell is "unsupported", which is reported but does not fail the run.  Set it through
	 * mgb_fail() or mgb_require_ops(); an operation the backend lacks outright is needs_ops'. */
	bool unsupported;
	/* The cell's multigrain evidence (cell.multigrain.in_effect: about the measured filesystem,
	 * or over a protocol the exported one): 1 in effect, 0 not, -1 unknown. */
	int multigrain;
	/* The measured window (mgb_measure_begin/end): the runner's counter deltas cover it only,
	 * so a workload's setup (files, a second filesystem) is not counted as its load. */
	bool measured_begun, measured_ended;
	struct mgb_mg_counters measured_before, measured_after;
	/* For a target the run can crash, else NULL: a loop-mounted scratch filesystem reached
	 * locally, or exported by the kernel's nfsd in a guest.  crash shuts that filesystem down
	 * (the log written first only with flush_log), the workload's files left open and dead;
	 * 0 or -errno (-ENOTTY: no shutdown ioctl).  The workload then closes its files and calls
	 * remount: the backend closed, nfsd made to let go of the filesystem where it serves it,
	 * the filesystem mounted again (its log replayed) and served again, and the backend
	 * opened on it (a new NFS client); 0 or -1 with err.  ctx->be stays the same struct. */
	int (*crash)(struct mgb_ctx *ctx, bool flush_log);
	int (*remount)(struct mgb_ctx *ctx, char *err);
	void *crash_arg;
	/* The directory the backend's files are in, as this host sees it (for a remote backend the
	 * export of the server started for the cell), for a workload that acts on the server's side
	 * too; NULL for a server someone else runs. */
	const char *local_dir;
};

/* Which way a metric improves, declared once beside its column: compare's verdicts read it. */
enum mgb_better {
	MGB_BETTER_NONE,   /* descriptive (rounds, polls): no verdict */
	MGB_BETTER_HIGHER,
	MGB_BETTER_LOWER,
};

struct mgb_column {
	const char *header; /* at most 9 characters */
	const char *path;   /* dotted path into the cell's "metrics" object */
	const char *format; /* "int", "ratio", "ns", "rate", "float", "yesno" (a boolean) */
	enum mgb_better better;
	/* For a metric that counts events out of trials (a count or a ratio of one), the dotted
	 * paths of both, so compare can test the proportion without repeats; NULL otherwise. */
	const char *events, *trials;
};

/*
 * Column rows every stamp observer (mgb_put_stamps) offers, for the key it was put under:
 * MGB_COL_DISTINCT("ctime") is the "distinct" column, MGB_STAMP_COLUMNS("ctime") the
 * backward, future and step p50 columns in that order.
 */
#define MGB_COL_DISTINCT(key) \
	{ "distinct", key ".distinct_ratio", "ratio", MGB_BETTER_HIGHER, key ".distinct", key ".rounds" }
#define MGB_COL_BACKWARD(key) \
	{ "backward", key ".backwards", "int", MGB_BETTER_LOWER, key ".backwards", key ".rounds" }
#define MGB_STAMP_COLUMNS(key)                                                                  \
	MGB_COL_BACKWARD(key),                                                                  \
	{ "future", key ".future", "int", MGB_BETTER_LOWER, key ".future", key ".rounds" },      \
	{ "step p50", key ".step_ns.p50", "ns", MGB_BETTER_NONE, NULL, NULL }

struct mgb_workload {
	const char *name;
	const char *summary;
	const struct mgb_option *options; /* terminated by a zero entry */
	size_t params_size;
	uint64_t default_rounds; /* when --rounds is not given; 0 means the common default */
	/* What the text table shows, terminated by a zero entry. */
	const struct mgb_column *columns;
	int (*run)(struct mgb_ctx *ctx); /* 0 ok, -1 error with ctx->err set */
	/* The backend operations run() calls (MGB_OP_*): a cell whose backend lacks one is
	 * "unsupported" (a fact about the backend, not a failure) before its target is made. */
	unsigned needs_ops;
	/* Optional: the operations these parameters need besides needs_ops (meta's --op). */
	unsigned (*needs_ops_for)(const void *params);
	/* Optional: options that are each valid but not together; -1 with err makes a usage error
	 * (exit 2) before anything runs. */
	int (*check_params)(const void *params, char *err);
	/* Optional: whether these parameters run two threads or processes side by side (a poller
	 * beside a writer), which one CPU can only interleave: such a cell on one CPU is warned of. */
	bool (*needs_two_cpus)(const void *params);
	/* Optional: metrics renamed since older documents were written, as pairs of dotted paths
	 * (new, old), NULL-terminated: compare and report read the old name where the new one is
	 * missing, so an old document still meets a new one column for column. */
	const char *const *renamed;
};

#define MGB_DEFAULT_ROUNDS 10000

/* Rounds between two looks at the stop flag and the progress line in the one-thread loops: a
 * round is a few microseconds, so a stop is seen within milliseconds and the look costs
 * nothing.  A power of two; batched calls (pwrite_n, fstat_n) end on a multiple of it. */
#define MGB_ROUND_CHECK 4096

/* After round done of ctx->rounds: on every MGB_ROUND_CHECK-th, true if a stop was requested
 * (the loop breaks), else the progress line moves on. */
static inline bool mgb_round_tick(struct mgb_ctx *ctx, uint64_t done)
{
	if (done % MGB_ROUND_CHECK)
		return false;
	if (mgb_stop_requested())
		return true;
	mgb_progress_update(ctx->progress, done, ctx->rounds);
	return false;
}

/* A backend call that a requested stop cut short (-EINTR: a signal ended the wait for an NFS
 * reply): the loop ends there, as at a round check, and keeps what it measured. */
static inline bool mgb_call_stopped(int r)
{
	return r == -EINTR && mgb_stop_requested();
}

/* What the cell's backend must offer for these parameters: needs_ops and needs_ops_for's. */
static inline unsigned mgb_workload_needs_ops(const struct mgb_workload *w, const void *params)
{
	return w->needs_ops | (w->needs_ops_for ? w->needs_ops_for(params) : 0);
}

/* For a need only run() can know (cost's load, picked at run time): -1 with the cell marked
 * unsupported and the runner's message when the backend lacks one of ops, else 0. */
static inline int mgb_require_ops(struct mgb_ctx *ctx, unsigned ops)
{
	if (mgb_backend_require(ctx->be->ops, ops, ctx->err) == 0)
		return 0;
	ctx->unsupported = true;
	return -1;
}

static inline uint64_t mgb_workload_default_rounds(const struct mgb_workload *w)
{
	return w->default_rounds ? w->default_rounds : MGB_DEFAULT_ROUNDS;
}

extern const struct mgb_workload *const mgb_workloads[];
const struct mgb_workload *mgb_workload_find(const char *name);

/* Fill params with every option's default. */
int mgb_params_defaults(const struct mgb_workload *w, void *params, char *err);
const struct mgb_option *mgb_option_find(const struct mgb_workload *w, const char *name);
/* The parameters as a JSON object keyed by option name (words shown as words). */
json_t *mgb_params_to_json(const struct mgb_workload *w, const void *params);
/* "  --size N  bytes per write (default 4096)" lines for --help and list. */
void mgb_options_print(FILE *out, const struct mgb_workload *w);

/* A workload's failure with -errno r (or 0): the message in ctx->err, and the cell "unsupported"
 * when r is -EOPNOTSUPP.  Returns -1, for `return mgb_fail(...)`. */
int mgb_fail(struct mgb_ctx *ctx, int r, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A line for the cell's warnings: what makes this cell's figures mean less than they say. */
void mgb_warn(struct mgb_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Around the measured loop: the cell's counters.multigrain covers this window only. */
void mgb_measure_begin(struct mgb_ctx *ctx);
void mgb_measure_end(struct mgb_ctx *ctx);

/* Put a workload's common numbers into ctx->metrics: "elapsed_ns" and the rate of what it counts
 * (key names the thing: "writes_per_s", "rounds_per_s", ...), and a stamp observer's JSON (with
 * distinct per coarse tick) under key. */
void mgb_put_rate(struct mgb_ctx *ctx, const char *key, uint64_t n, int64_t elapsed_ns);
struct mgb_stamp_obs;
void mgb_put_stamps(struct mgb_ctx *ctx, const char *key, const struct mgb_stamp_obs *o, int64_t elapsed_ns);

#endif
