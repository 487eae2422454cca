/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Probes: what the kernel says.  Clocks (resolution, the measured coarse tick), the global
 * debugfs multigrain counters, per-inode tracepoint counts and the empirical multigrain test.
 */
#ifndef MGB_PROBE_H
#define MGB_PROBE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "target.h"

struct mgb_clockinfo {
	int64_t res_realtime_ns;
	int64_t res_realtime_coarse_ns;
	int64_t res_monotonic_ns;
	int64_t res_monotonic_coarse_ns;
	int64_t coarse_tick_ns;      /* the tick: CLOCK_REALTIME_COARSE's resolution, else the step seen */
	int64_t coarse_step_seen_ns; /* the smallest step of CLOCK_REALTIME_COARSE seen (0: none) */
	double hz;                   /* 1e9 / coarse_tick_ns */
	char clocksource[32];   /* the kernel's current clocksource ("tsc", "kvm-clock"), or "" */
};

void mgb_clock_probe(struct mgb_clockinfo *ci);
json_t *mgb_clock_to_json(const struct mgb_clockinfo *ci);
/* Sleep-free wait until CLOCK_REALTIME_COARSE has stepped n times. */
void mgb_wait_coarse_ticks(unsigned n);
/* Sleep-free wait until CLOCK_REALTIME_COARSE is past t_ns (CLOCK_REALTIME): every fine stamp
 * taken before t_ns, and the floor they lifted, is then behind the coarse clock.  At most 100 ms,
 * so that a stamp from the future cannot hang a run. */
void mgb_wait_coarse_past(int64_t t_ns);

/* The running kernel's build configuration (/boot/config-$(uname -r), else /proc/config.gz). */
struct mgb_kconfig {
	char *text;
	size_t len;
	char source[96]; /* the file it came from */
};

/* 0, or -1 when the kernel offers no config (kc is then empty, and every option unknown). */
int mgb_kconfig_load(struct mgb_kconfig *kc);
void mgb_kconfig_free(struct mgb_kconfig *kc);
/* An option's value ("y", "250", a string without its quotes) in buf, or NULL when unset. */
const char *mgb_kconfig_value(const struct mgb_kconfig *kc, const char *name, char *buf, size_t len);
/* Is the option built in or a module? */
bool mgb_kconfig_enabled(const struct mgb_kconfig *kc, const char *name);
/* The options that change what mgbench measures (tick, timers, clock, preemption, code
 * generation), NULL-terminated: recorded in every document, the host's and a guest's. */
extern const char *const mgb_kconfig_recorded[];
/* The running kernel's: {"file", "options": {each recorded option: value or null}, "preempt":
 * the dynamic preemption model in effect}, file null (and a reason) when no config is readable. */
json_t *mgb_kconfig_json(void);

#define MGB_DEBUGFS_COUNTERS "/sys/kernel/debug/multigrain_timestamps"

/* The four global counters of /sys/kernel/debug/multigrain_timestamps, in the kernel's order. */
struct mgb_mg_counters {
	bool valid;
	uint64_t ctime_updates, ctime_swaps, fine_stamps, floor_swaps;
};

void mgb_mg_counters_read(struct mgb_mg_counters *c);
/* after - before as JSON, or JSON null when either snapshot is missing. */
json_t *mgb_mg_counters_delta_json(const struct mgb_mg_counters *before, const struct mgb_mg_counters *after);

#define MGB_TRACING_DIR "/sys/kernel/tracing"

bool mgb_tracepoint_exists(const char *group, const char *event);

/*
 * Count one tracepoint's hits for a single inode, system-wide, with perf_event_open and a
 * filter on dev and ino.  dev is the superblock's (struct mgb_target's sb_dev_*), not statx's.  File descriptors only: nothing is left behind if the process dies.
 */
#define MGB_TRACECOUNT_MAX_CPUS 256
struct mgb_tracecount {
	int nfds;
	int fds[MGB_TRACECOUNT_MAX_CPUS];
};

int mgb_tracecount_open(struct mgb_tracecount *tc, const char *group, const char *event,
			unsigned dev_major, unsigned dev_minor, uint64_t ino, char *err);
/* The same with any tracepoint filter ("dev == 7340032"), for per-device events like jbd2's. */
int mgb_tracecount_open_filter(struct mgb_tracecount *tc, const char *group, const char *event, const char *filter,
			       char *err);
/* Total hits so far, or -1 if unreadable. */
int64_t mgb_tracecount_read(const struct mgb_tracecount *tc);
void mgb_tracecount_close(struct mgb_tracecount *tc);

/*
 * One inode's ctime changes, on either of the kernel's paths in inode_set_ctime_current: a
 * multigrain inode's new ctime is swapped in (timestamp:ctime_ns_xchg), any other inode's
 * (ramfs) is set through inode_set_ctime_to_ts (timestamp:inode_set_ctime_to_ts).  A write
 * calls that only when the coarse time differs from the ctime, so each hit is a change.
 */
struct mgb_ctime_changes {
	struct mgb_tracecount mg, other;
};

/* Open both counts (the multigrain path's only if want_mg: it costs a few percent of a write);
 * a count that cannot be opened is left closed and reads -1. */
void mgb_ctime_changes_open(struct mgb_ctime_changes *cc, const struct mgb_target *t, uint64_t ino, bool want_mg);
/* The hits on each path so far: -1 for a path not counted or unreadable. */
void mgb_ctime_changes_read(const struct mgb_ctime_changes *cc, int64_t *mg, int64_t *other);
/*
 * Both paths' hits together, or -1 when unknown: neither path counted, or no hit at all after
 * `writes` writes (a count that missed them), unless the filesystem is known not to be
 * multigrain (multigrain 0) and its path was counted.  writes 0 asks for the sum alone.
 */
int64_t mgb_ctime_changes_total(const struct mgb_ctime_changes *cc, uint64_t writes, int multigrain);
void mgb_ctime_changes_close(struct mgb_ctime_changes *cc);

/* The empirical multigrain test on a directory: write+statx rounds, distinct ctimes counted. */
struct mgb_mgtime_probe {
	unsigned rounds;
	uint64_t distinct;
	double elapsed_ticks;
	int64_t fill_mg_cmtime_events; /* -1 when the tracepoint is unavailable */
	bool multigrain;
	char evidence[160];
};

int mgb_mgtime_probe(const struct mgb_target *t, const struct mgb_clockinfo *ci, struct mgb_mgtime_probe *p, char *err);
/* info's probe of one filesystem: a scratch one of type fs (in session s), or a --dir (fs NULL),
 * made, probed and taken down; {fs, fstype, multigrain, evidence, probe: {...}}, or with
 * multigrain null and the error. */
struct mgb_session;
json_t *mgb_mgtime_probe_json(struct mgb_session *s, const struct mgb_fs_type *fs, const char *dir,
			      const struct mgb_clockinfo *ci);
/* The probe as a cell's "multigrain" object: {"in_effect": true|false|null, "evidence": {...}},
 * null with evidence.reason when the probe could not run. */
json_t *mgb_mgtime_evidence_json(const struct mgb_target *t, const struct mgb_clockinfo *ci);

/*
 * What a filesystem did for its writes, as deltas over a window, attributed to the target's own
 * device: the block device's writes, sectors and flushes (loop targets); ext4's jbd2 transactions
 * (/proc/fs/jbd2/DEV-8/info) and handles (the jbd2:jbd2_handle_start tracepoint on the device);
 * xfs's transactions, log writes and log forces (/sys/fs/xfs/DEV/stats/stats); btrfs's
 * transaction commits (/sys/fs/btrfs/UUID/commit_stats) and ctime updates (timestamp:ctime_ns_xchg
 * on the superblock's dev: each is one btrfs_dirty_inode, which joins the running transaction and
 * updates the delayed inode).  What a filesystem lacks is null.
 */
struct mgb_fs_snapshot {
	bool block, jbd2, xfs, btrfs;
	uint64_t blk_writes, blk_sectors, blk_flushes;
	uint64_t jbd2_transactions;
	uint64_t xfs_trans, xfs_log_writes, xfs_log_forces;
	uint64_t btrfs_commits;
	int64_t jbd2_handles; /* from the tracecount, -1 without it */
	int64_t btrfs_ctime_updates; /* likewise */
};

struct mgb_fs_counters {
	const struct mgb_target *t;
	char blockdev[32];
	char btrfs_uuid[64];
	struct mgb_tracecount handles, ctime_updates;
	struct mgb_fs_snapshot before;
};

void mgb_fs_counters_begin(struct mgb_fs_counters *c, const struct mgb_target *t);
/* The deltas since begin, each also per 1000 of per (writes); closes what begin opened. */
json_t *mgb_fs_counters_end(struct mgb_fs_counters *c, uint64_t per);

#endif
