/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The cost workload's parts (workloads/cost*.c): what they share. */
#ifndef MGB_COST_H
#define MGB_COST_H

#include "fio.h"
#include "histogram.h"
#include "workload.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <jansson.h>

/* The choice options' values, in the order of their words in cost.c. */
enum cost_mode { MODE_OVERWRITE, MODE_APPEND, MODE_FIO_BASIC };
enum cost_sync { SYNC_NONE, SYNC_FSYNC, SYNC_FDATASYNC };
enum cost_poll { POLL_ALL, POLL_NONE, POLL_SIZE, POLL_CTIME }; /* POLL_x is KIND_x + 1 */
enum cost_load { LOAD_AUTO, LOAD_FIO, LOAD_BUILTIN };

struct cost_params {
	uint64_t size;
	unsigned mode; /* enum cost_mode */
	unsigned sync; /* enum cost_sync */
	uint64_t sync_every;
	unsigned poll; /* enum cost_poll */
	uint64_t poll_rate;
	uint64_t cycles;
	uint64_t phase_ms; /* 0: a phase is --rounds writes */
	uint64_t file_size;
	unsigned load; /* enum cost_load */
	bool nocow;
	bool crosstalk;
};

/* none/size/ctime: the query streams; alone/crosstalk: --crosstalk's phases (nobody queries). */
enum cost_kind { KIND_NONE, KIND_SIZE, KIND_CTIME, KIND_ALONE, KIND_CROSSTALK, KIND_COUNT };
extern const char *const cost_kind_names[KIND_COUNT];

#define MAX_CYCLES 100

/* What the phases of one cell share. */
struct cost_cell {
	struct mgb_ctx *ctx;
	const struct cost_params *p;
	struct mgb_file f;
	char *buf;
	uint64_t ino;
	uint64_t file_size; /* where writes wrap: --file-size, or --rounds x --size for fio-basic */
	int64_t phase_ns;   /* how long the current phase writes for; 0: --rounds writes */
	bool fio;
	char job[2048];     /* fio's job file */
	char workdir[2048]; /* fio's output, outside the target */
	char path[2048];    /* cost.dat, for fio */
	char fio_version[32];
	struct mgb_target other; /* --crosstalk: the other process's filesystem */
	bool other_up;
};

/*
 * mgbench's own loop: rounds writes (or fallocates, for fio-basic) of the load mode, each timed
 * like fio's clat (the call alone, not its sync): two vDSO clock reads, 25 ns each here, some
 * 6 % of a 0.8 us write.
 */
struct lat_stats {
	struct mgb_hist h;
	double sum_ns;
};

/*
 * Per-inode tracepoint counts: ctime changes (each swap of the stored ctime: timestamp:ctime_ns_xchg,
 * or on a filesystem without multigrain, ramfs, timestamp:inode_set_ctime_to_ts),
 * those of them whose old stamp had been queried (its I_CTIME_QUERIED bit 31 set: a write that
 * followed a query, the one that costs a fine stamp), and c/mtime queries (fill_mg_cmtime).
 * Other processes' fine stamps lift the global floor, which changes an unqueried file's coarse
 * stamp too; only the queried changes are this file's own queries' doing.
 */
struct inode_counts {
	struct mgb_ctime_changes changes; /* both kernel paths: ramfs's too */
	struct mgb_tracecount queried, queries;
	int64_t changes0, queried0, queries0;
};

/* the load (cost_load.c) */
int cost_do_sync(struct mgb_backend *be, struct mgb_file *f, const struct cost_params *p);
int cost_fio_load(struct cost_cell *c, struct mgb_fio_result *res);
/* Writes until c->phase_ns past start (or --rounds writes, append's bound too) */
int cost_builtin_load(struct cost_cell *c, uint64_t *done, struct lat_stats *lat, int64_t start);
int cost_pick_load(struct cost_cell *c);

/* what was counted (cost_counts.c) */
void cost_inode_counts_begin(struct inode_counts *ic, const struct cost_cell *c);
/* The counts since begin, per 1000 of `writes`; elapsed_ns and tick_ns (0 if unknown) bound
 * how many queried changes were tick-boundary changes rather than fine stamps. */
json_t *cost_inode_counts_end(struct inode_counts *ic, uint64_t writes, int64_t elapsed_ns, int64_t tick_ns);
/* The counters over len_ns with no load and no queries, as counts and rates per second */
json_t *cost_idle_interval(struct cost_cell *c, int64_t len_ns);
/* Each phase's counters less the idle rate times its window, per 1000 of its writes:
 * the phase's background_corrected object. */
void cost_subtract_background(json_t *phases, json_t *idle);

/* --crosstalk (cost_crosstalk.c): the other process, and what it did in a phase's window */
struct cost_stirrer {
	pid_t pid;
	struct cost_stirrer_counts *shared; /* counted by the other process */
	uint64_t rounds0, changes0;         /* at the window's start */
	clockid_t cpu_clock;                /* its CPU time, when cpu0 >= 0 */
	int64_t cpu0;
};
int cost_stirrer_start(struct cost_cell *c, struct cost_stirrer *s);
void cost_stirrer_begin(struct cost_stirrer *s);
/* {rounds, ctime_changes, rounds_per_s, ctime_changes_per_s, cpu_ns} since cost_stirrer_begin */
json_t *cost_stirrer_end(const struct cost_stirrer *s, int64_t elapsed_ns);
void cost_stirrer_stop(struct cost_stirrer *s); /* also after a failed start */

/* the summary (cost_summary.c) */
json_t *cost_over_cycles(json_t *phases, enum cost_kind k, const char *key, const char *sub);
double cost_median_of(json_t *o);
json_t *cost_median_json(json_t *spread);
json_t *cost_ratio_json(double a, double b);
json_t *cost_per_1000_medians(json_t *phases, enum cost_kind k, const char *sub);
enum cost_pairing { COST_RATIO, COST_DIFFERENCE };
/* Per cycle, kind a's number against the same cycle's kind b (a / b or a - b): {median, min,
 * max, n} over the cycles that have both, or null. */
json_t *cost_paired(json_t *phases, enum cost_kind a, enum cost_kind b, const char *key, const char *sub,
		    enum cost_pairing how);
json_t *cost_extra_per_1000(json_t *phases, enum cost_kind a, enum cost_kind b, const char *sub);
/* A counters key that is a figure per 1000 writes (ends in _per_1000), not a count */
bool cost_is_per_1000(const char *key);
/* How many of kind k's phases were short (all kinds: k == KIND_COUNT) */
unsigned cost_short_phases(json_t *phases, enum cost_kind k);
/*
 * Did a query stream fall far short of --poll-rate (requested, 0 for max)?  Per polled kind,
 * its phases' queries over their windows; a kind whose phases had room for too few queries to
 * tell is not judged.  1 with the warning in msg, else 0.
 */
int cost_poll_shortfall(json_t *phases, uint64_t requested, char *msg, size_t len);

#endif
