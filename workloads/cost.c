/*
 * cost: what fine-grained stamps cost a writer.  A write load on one file (4 KiB overwrites, or
 * appends, optionally fsync/fdatasync every K writes) runs in phases, each with a different
 * query stream beside it from a second thread at --poll-rate Hz:
 *   none   no queries;
 *   size   statx(STATX_SIZE): the same syscalls, but no flag armed (the control);
 *   ctime  statx(CTIME|MTIME): arms the flag, so the next write takes a fine stamp and the
 *          filesystem logs an inode update it would otherwise have skipped.
 * Phases run interleaved (none size ctime none size ctime ...) for --cycles cycles, so drift of
 * the machine hits all alike.  Per phase: writes/s, the journal and device counters of the target
 * (lib/probe/fscounters.c) per 1000 writes, and the global fine stamps; per kind the median over
 * cycles, and the ratios ctime/size and ctime/none.
 * The load is fio (a job file per mode in workloads/fio/, run once per phase) when configure
 * found it and the backend is sync, else mgbench's own backend loop (--load picks one).
 * Before the phases an unrecorded warm-up phase sets the length of an idle interval whose
 * counters are recorded beside the phases' (nothing subtracted), with how busy the machine was.
 */
#include "config.h"
#include "fio.h"
#include "histogram.h"
#include "json_text.h"
#include "progress.h"
#include "stats.h"
#include "stop.h"
#include "util.h"
#include "workload.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <linux/fs.h>
#include <unistd.h>

struct cost_params {
	uint64_t size;
	const char *mode;
	const char *sync;
	uint64_t sync_every;
	const char *poll;
	uint64_t poll_rate;
	uint64_t cycles;
	uint64_t file_size;
	const char *load;
	bool nocow;
	bool crosstalk;
};

static const char *const mode_choices[] = { "overwrite", "append", "fio-basic", NULL };
static const char *const load_choices[] = { "auto", "fio", "builtin", NULL };
static const char *const sync_choices[] = { "none", "fsync", "fdatasync", NULL };
static const char *const poll_choices[] = { "all", "none", "size", "ctime", NULL };

static const struct mgb_workload_option cost_options[] = {
	{ "size", MGB_OPT_SIZE, offsetof(struct cost_params, size), "4096", "bytes per write", 1, 64 << 20, NULL, NULL },
	{ "mode", MGB_OPT_STRING, offsetof(struct cost_params, mode), "overwrite",
	  "overwrite (within --file-size), append, or fio-basic (the robot's falloc job)", 0, 0, NULL, mode_choices },
	{ "sync", MGB_OPT_STRING, offsetof(struct cost_params, sync), "none", "none, fsync or fdatasync", 0, 0, NULL,
	  sync_choices },
	{ "sync-every", MGB_OPT_U64, offsetof(struct cost_params, sync_every), "1", "writes between syncs", 1, 0, NULL,
	  NULL },
	{ "poll", MGB_OPT_STRING, offsetof(struct cost_params, poll), "all",
	  "query stream: all (none, size, ctime interleaved) or one", 0, 0, NULL, poll_choices },
	{ "poll-rate", MGB_OPT_U64, offsetof(struct cost_params, poll_rate), "1000", "queries per second", 1, 1000000,
	  NULL, NULL },
	{ "cycles", MGB_OPT_U64, offsetof(struct cost_params, cycles), "3", "interleaved cycles of the phases", 1, 100,
	  NULL, NULL },
	{ "file-size", MGB_OPT_SIZE, offsetof(struct cost_params, file_size), "1m",
	  "where overwrites wrap (file size, e.g. for btrfs)", 4096, 1ULL << 34, NULL, NULL },
	{ "load", MGB_OPT_STRING, offsetof(struct cost_params, load), "auto",
	  "fio, builtin, or auto (fio if configured, with --backend sync)", 0, 0, NULL, load_choices },
	{ "nocow", MGB_OPT_BOOL, offsetof(struct cost_params, nocow), NULL,
	  "set NOCOW on the file (chattr +C; btrfs: no copy-on-write)", 0, 0, NULL, NULL },
	{ "crosstalk", MGB_OPT_BOOL, offsetof(struct cost_params, crosstalk), NULL,
	  "no poller; alone and crosstalk phases (another process write+statx on a tmpfs)", 0, 0, NULL, NULL },
	{ 0 },
};

static const struct mgb_column cost_columns[] = {
	{ "size w/s", "size.writes_per_s", "rate", MGB_BETTER_HIGHER, NULL, NULL },
	{ "ctime w/s", "ctime.writes_per_s", "rate", MGB_BETTER_HIGHER, NULL, NULL },
	{ "c/size", "ctime_size_ratio", "float", MGB_BETTER_HIGHER, NULL, NULL },
	{ "c/none", "ctime_none_ratio", "float", MGB_BETTER_HIGHER, NULL, NULL },
	{ "jrnl/1k", "ctime.journal_per_1000", "float", MGB_BETTER_LOWER, NULL, NULL },
	{ "+jrnl/1k", "extra_journal_per_1000", "float", MGB_BETTER_LOWER, NULL, NULL },
	{ 0 },
};

/* none/size/ctime: the query streams; alone/crosstalk: --crosstalk's phases (nobody queries). */
enum kind { KIND_NONE, KIND_SIZE, KIND_CTIME, KIND_ALONE, KIND_CROSSTALK, KIND_COUNT };
static const char *const kind_names[KIND_COUNT] = { "none", "size", "ctime", "alone", "crosstalk" };

#define MAX_CYCLES 100

struct poller {
	struct mgb_ctx *ctx;
	struct mgb_file *file;
	unsigned want;
	uint64_t rate;
	atomic_bool stop;
	atomic_uint_fast64_t polls;
	int error;
	pthread_t tid;
};

static void *poll_loop(void *arg)
{
	struct poller *p = arg;
	struct timespec next;
	int64_t period = MGB_NSEC_PER_SEC / (int64_t)p->rate;

	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!atomic_load(&p->stop)) {
		struct mgb_stat st;
		int r = p->ctx->be->ops->fstat(p->ctx->be, p->file, p->want, &st);

		if (r < 0) {
			p->error = r;
			break;
		}
		atomic_fetch_add(&p->polls, 1);
		next.tv_nsec += period;
		while (next.tv_nsec >= MGB_NSEC_PER_SEC) {
			next.tv_nsec -= MGB_NSEC_PER_SEC;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	return NULL;
}

/* The counter that stands for "the journal" on this filesystem, per 1000 writes. */
static const char *journal_key(const char *fstype)
{
	if (!fstype)
		return NULL;
	if (!strcmp(fstype, "ext4"))
		return "jbd2_handles_per_1000";
	if (!strcmp(fstype, "xfs"))
		return "xfs_transactions_per_1000";
	if (!strcmp(fstype, "btrfs"))
		return "btrfs_commits_per_1000";
	return NULL;
}

/* What the phases of one cell share. */
struct cost_cell {
	struct mgb_ctx *ctx;
	const struct cost_params *p;
	struct mgb_file f;
	char *buf;
	uint64_t ino;
	uint64_t file_size; /* where writes wrap: --file-size, or --rounds x --size for fio-basic */
	bool fio;
	char job[2048];     /* fio's job file */
	char workdir[2048]; /* fio's output, outside the target */
	char path[2048];    /* cost.dat, for fio */
	char fio_version[32];
	struct mgb_target other; /* --crosstalk: the other process's filesystem */
	bool other_up;
};

static int do_sync(struct mgb_backend *be, struct mgb_file *f, const struct cost_params *p)
{
	if (!strcmp(p->sync, "none"))
		return 0;
	/* fdatasync is fsync on backends without it: both force the data and what it needs */
	return be->ops->fsync(be, f);
}

/* fio once on the cell's job, on the file mgbench laid out and the poller holds open. */
static int fio_load(struct cost_cell *c, struct mgb_fio_result *res)
{
	const struct cost_params *p = c->p;
	char file[2100], bs[48], fsz[48], iosz[48], fsync[48], fdsync[48];
	const char *const env[] = { file, bs, fsz, iosz, fsync, fdsync, NULL };
	struct mgb_stat st;
	uint64_t every = strcmp(p->sync, "none") ? p->sync_every : 0;

	snprintf(file, sizeof(file), "MGB_FILE=%s", c->path);
	snprintf(bs, sizeof(bs), "MGB_BS=%llu", (unsigned long long)p->size);
	snprintf(fsz, sizeof(fsz), "MGB_FILE_SIZE=%llu", (unsigned long long)c->file_size);
	snprintf(iosz, sizeof(iosz), "MGB_IO_SIZE=%llu", (unsigned long long)(c->ctx->rounds * p->size));
	snprintf(fsync, sizeof(fsync), "MGB_FSYNC=%llu", (unsigned long long)(!strcmp(p->sync, "fsync") ? every : 0));
	snprintf(fdsync, sizeof(fdsync), "MGB_FDATASYNC=%llu",
		 (unsigned long long)(!strcmp(p->sync, "fdatasync") ? every : 0));
	if (mgb_fio_run(FIO_PATH, c->job, env, c->workdir, res, c->ctx->err) < 0)
		return -1;
	snprintf(c->fio_version, sizeof(c->fio_version), "%s", res->version);
	/* A job that lays the file out anew writes another inode than the one queried. */
	if (c->ctx->be->ops->stat(c->ctx->be, "cost.dat", MGB_STAT_SIZE, &st) < 0 || st.ino != c->ino)
		return mgb_err(c->ctx->err, "fio replaced cost.dat (%s lays the file out anew?)", c->job);
	return 0;
}

/*
 * mgbench's own loop: rounds writes (or fallocates, for fio-basic) of the load mode, each timed
 * like fio's clat (the call alone, not its sync): two vDSO clock reads, 25 ns each here, some
 * 6 % of a 0.8 us write.
 */
struct lat_stats {
	struct mgb_hist h;
	double sum_ns;
};

static int builtin_load(struct cost_cell *c, uint64_t *done, struct lat_stats *lat)
{
	struct mgb_ctx *ctx = c->ctx;
	struct mgb_backend *be = ctx->be;
	const struct cost_params *p = c->p;
	bool falloc = !strcmp(p->mode, "fio-basic"), wrap = strcmp(p->mode, "append") != 0;
	off_t off = 0;

	while (*done < ctx->rounds && !mgb_stop_requested()) {
		int64_t t0 = mgb_clock_ns(CLOCK_MONOTONIC);
		ssize_t n;
		int r;

		if (falloc) {
			n = be->ops->fallocate(be, &c->f, off, (off_t)p->size);
			n = n < 0 ? n : (ssize_t)p->size;
		} else {
			n = be->ops->pwrite(be, &c->f, c->buf, p->size, off);
			if (n >= 0 && (size_t)n < p->size)
				n = mgb_short_write_errno(be, &c->f, c->buf, p->size, off, (size_t)n);
		}
		if (n < 0)
			return (int)n;
		t0 = mgb_clock_ns(CLOCK_MONOTONIC) - t0;
		mgb_hist_add(&lat->h, t0);
		lat->sum_ns += (double)t0;
		++*done;
		off += (off_t)p->size;
		if (wrap && off + (off_t)p->size > (off_t)c->file_size)
			off = 0;
		if (*done % p->sync_every == 0 && (r = do_sync(be, &c->f, p)) < 0)
			return r;
	}
	return 0;
}

/*
 * Per-inode tracepoint counts: ctime changes (each swap of the stored ctime: timestamp:ctime_ns_xchg),
 * those of them whose old stamp had been queried (its I_CTIME_QUERIED bit 31 set: a write that
 * followed a query, the one that costs a fine stamp), and c/mtime queries (fill_mg_cmtime).
 * Other processes' fine stamps lift the global floor, which changes an unqueried file's coarse
 * stamp too; only the queried changes are this file's own queries' doing.
 */
struct inode_counts {
	struct mgb_tracecount changes, queried, queries;
	int64_t changes0, queried0, queries0;
};

static void inode_counts_begin(struct inode_counts *ic, const struct cost_cell *c)
{
	const struct mgb_target *t = c->ctx->target;
	char err[MGB_ERR_LEN], filter[160];

	memset(ic, 0, sizeof(*ic));
	if (mgb_tracecount_open(&ic->changes, "timestamp", "ctime_ns_xchg", t->sb_dev_major, t->sb_dev_minor, c->ino,
				err) < 0)
		ic->changes.nfds = 0;
	if (mgb_tracecount_open(&ic->queries, "timestamp", "fill_mg_cmtime", t->sb_dev_major, t->sb_dev_minor, c->ino,
				err) < 0)
		ic->queries.nfds = 0;
	snprintf(filter, sizeof(filter), "ino == %llu && dev == %u && old & %u", (unsigned long long)c->ino,
		 (t->sb_dev_major << 20) | t->sb_dev_minor, 1u << 31);
	if (mgb_tracecount_open_filter(&ic->queried, "timestamp", "ctime_ns_xchg", filter, err) < 0)
		ic->queried.nfds = 0;
	ic->changes0 = ic->changes.nfds ? mgb_tracecount_read(&ic->changes) : -1;
	ic->queried0 = ic->queried.nfds ? mgb_tracecount_read(&ic->queried) : -1;
	ic->queries0 = ic->queries.nfds ? mgb_tracecount_read(&ic->queries) : -1;
}

static json_t *count_json(int64_t after, int64_t before)
{
	return after >= 0 && before >= 0 ? json_integer(after - before) : json_null();
}

static json_t *inode_counts_end(struct inode_counts *ic, uint64_t writes)
{
	int64_t ch = ic->changes.nfds ? mgb_tracecount_read(&ic->changes) : -1;
	int64_t q = ic->queries.nfds ? mgb_tracecount_read(&ic->queries) : -1;
	int64_t qc = ic->queried.nfds ? mgb_tracecount_read(&ic->queried) : -1;
	json_t *o = json_object();

	json_object_set_new(o, "ctime_changes", count_json(ch, ic->changes0));
	json_object_set_new(o, "ctime_changes_per_1000",
			    ch >= 0 && ic->changes0 >= 0 && writes
				    ? json_real(1000.0 * (double)(ch - ic->changes0) / (double)writes)
				    : json_null());
	json_object_set_new(o, "queried_changes", count_json(qc, ic->queried0));
	json_object_set_new(o, "queried_changes_per_1000",
			    qc >= 0 && ic->queried0 >= 0 && writes
				    ? json_real(1000.0 * (double)(qc - ic->queried0) / (double)writes)
				    : json_null());
	json_object_set_new(o, "ctime_queries", count_json(q, ic->queries0));
	mgb_tracecount_close(&ic->queried);
	mgb_tracecount_close(&ic->changes);
	mgb_tracecount_close(&ic->queries);
	return o;
}

/*
 * --crosstalk: another process changing and querying a file on another filesystem, as fast as it
 * can, so that its fine stamps keep lifting the global floor.  A process of its own, doing plain
 * syscalls (it stands for some other program on the machine, not for the measured load); it
 * dies with us.  Returns its pid once it has done its first round, or -1.
 */
static pid_t stirrer_start(struct cost_cell *c)
{
	char path[2100];
	int pipefd[2];
	pid_t pid, parent = getpid();
	char ok;

	snprintf(path, sizeof(path), "%s/crosstalk.dat", c->other.path);
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return mgb_err(c->ctx->err, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		bool told = false;
		struct statx stx;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (fd < 0 || getppid() != parent)
			_exit(1);
		close(pipefd[0]);
		for (;;) {
			if (pwrite(fd, "x", 1, 0) != 1 ||
			    statx(fd, "", AT_EMPTY_PATH, STATX_CTIME | STATX_MTIME, &stx) < 0)
				_exit(1);
			if (!told) {
				if (write(pipefd[1], "1", 1) != 1)
					_exit(1);
				close(pipefd[1]);
				told = true;
			}
		}
	}
	close(pipefd[1]);
	if (pid < 0) {
		close(pipefd[0]);
		return mgb_err(c->ctx->err, "fork: %s", strerror(errno));
	}
	if (read(pipefd[0], &ok, 1) != 1) {
		close(pipefd[0]);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return mgb_err(c->ctx->err, "the crosstalk process could not write+statx %s", path);
	}
	close(pipefd[0]);
	return pid;
}

static void stirrer_stop(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

static json_t *ns_or_null(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

/* Write latencies as a phase records them, from either load. */
static json_t *clat_json(double mean, double p50, double p90, double p99, double p99_9)
{
	return MGB_JSON_PACK("{s:o, s:o, s:o, s:o, s:o}", "mean", ns_or_null(mean), "p50", ns_or_null(p50), "p90",
			     ns_or_null(p90), "p99", ns_or_null(p99), "p99_9", ns_or_null(p99_9));
}

/* One phase: the load with the given query stream beside it; cycle < 0 is the warm-up. */
static int run_phase(struct cost_cell *c, enum kind k, json_t *phases, int cycle, int64_t *wall_ns)
{
	struct mgb_ctx *ctx = c->ctx;
	struct mgb_backend *be = ctx->be;
	const struct cost_params *p = c->p;
	struct poller poller = { .ctx = ctx, .file = &c->f, .rate = p->poll_rate };
	struct mgb_fio_result res = { 0 };
	struct mgb_fs_counters fc;
	struct mgb_mg_counters mg0, mg1;
	struct inode_counts ic;
	json_t *counters, *inode, *ch;
	bool polled = k == KIND_SIZE || k == KIND_CTIME;
	pid_t stirrer = -1;
	struct lat_stats *lat = c->fio ? NULL : malloc(sizeof(*lat));
	json_t *clat;
	uint64_t done = 0;
	int64_t t0, elapsed, wall;
	int r = 0;

	if (!c->fio && !lat)
		return mgb_err(ctx->err, "out of memory");
	if (lat) {
		mgb_hist_init(&lat->h);
		lat->sum_ns = 0;
	}
	if (!strcmp(p->mode, "append") && (r = be->ops->ftruncate(be, &c->f, 0)) < 0) {
		free(lat);
		return mgb_err(ctx->err, "truncate cost.dat: %s", strerror(-r));
	}
	atomic_init(&poller.stop, false);
	atomic_init(&poller.polls, 0);
	poller.want = k == KIND_SIZE ? MGB_STAT_SIZE : MGB_STAT_TIMES;
	if (k == KIND_CROSSTALK && (stirrer = stirrer_start(c)) < 0) {
		free(lat);
		return -1;
	}
	if (polled && pthread_create(&poller.tid, NULL, poll_loop, &poller) != 0) {
		stirrer_stop(stirrer);
		free(lat);
		return mgb_err(ctx->err, "cannot start the poller thread");
	}
	/* The phase starts once the stream runs: on a busy machine the thread may wait for a CPU. */
	while (polled && atomic_load(&poller.polls) == 0 && !poller.error && !mgb_stop_requested())
		sched_yield();
	inode_counts_begin(&ic, c);
	mgb_fs_counters_begin(&fc, ctx->target);
	mgb_mg_counters_read(&mg0);
	t0 = mgb_clock_ns(CLOCK_MONOTONIC);
	if (c->fio) {
		r = fio_load(c, &res);
		done = res.write_ios;
	} else {
		r = builtin_load(c, &done, lat);
	}
	wall = mgb_clock_ns(CLOCK_MONOTONIC) - t0;
	/* fio's own rate covers its writes, not its start-up (its runtime has ms resolution) */
	elapsed = c->fio ? res.runtime_ns : wall;
	mgb_mg_counters_read(&mg1);
	counters = mgb_fs_counters_end(&fc, done);
	inode = inode_counts_end(&ic, done);
	atomic_store(&poller.stop, true);
	if (polled)
		pthread_join(poller.tid, NULL);
	stirrer_stop(stirrer);
	*wall_ns = wall;
	/* distinct stamps of the file per second of its load: what others' fine stamps did to it */
	ch = json_object_get(inode, "ctime_changes");
	json_object_set_new(inode, "ctime_changes_per_s",
			    json_is_integer(ch) ? json_real(mgb_per_s((uint64_t)json_integer_value(ch), elapsed))
						: json_null());
	/* one key for both loads: fio's write.clat_ns, or the builtin loop's own timing */
	if (c->fio)
		clat = clat_json(res.clat_mean_ns, res.clat_p50_ns, res.clat_p90_ns, res.clat_p99_ns, res.clat_p99_9_ns);
	else if (lat->h.n)
		clat = clat_json(lat->sum_ns / (double)lat->h.n, (double)mgb_hist_quantile(&lat->h, 0.5),
				 (double)mgb_hist_quantile(&lat->h, 0.9), (double)mgb_hist_quantile(&lat->h, 0.99),
				 (double)mgb_hist_quantile(&lat->h, 0.999));
	else
		clat = json_null();
	free(lat);
	if (cycle >= 0 && r == 0)
		json_array_append_new(
			phases, MGB_JSON_PACK("{s:s, s:i, s:I, s:I, s:I, s:f, s:I, s:o, s:o, s:o, s:o, s:o}", "kind",
					      kind_names[k], "cycle", cycle, "writes", (json_int_t)done, "elapsed_ns",
					      (json_int_t)elapsed, "window_ns", (json_int_t)wall, "writes_per_s",
					      c->fio ? res.write_iops : mgb_per_s(done, elapsed), "polls",
					      (json_int_t)atomic_load(&poller.polls), "multigrain",
					      mgb_mg_counters_delta_json(&mg0, &mg1), "counters", counters, "inode", inode,
					      "fio", c->fio ? mgb_fio_result_json(&res) : json_null(), "write_clat_ns", clat));
	else
		json_decref(counters), json_decref(inode), json_decref(clat);
	mgb_fio_result_free(&res);
	if (r == 0 && poller.error)
		r = poller.error;
	if (r < 0 && c->fio && !poller.error)
		return -1; /* fio_load said why */
	if (r < 0)
		return mgb_err(ctx->err, "cost.dat after %llu writes (%s phase): %s", (unsigned long long)done,
			       kind_names[k], strerror(-r));
	return 0;
}

/* Busy CPU time over all CPUs from /proc/stat: user..steal minus idle and iowait. */
static bool cpu_times(uint64_t *busy, uint64_t *total)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "re");
	int n = f ? fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
			   &v[6], &v[7])
		  : 0;

	if (f)
		fclose(f);
	if (n < 5)
		return false;
	*total = 0;
	for (int i = 0; i < 8; i++)
		*total += v[i];
	*busy = *total - v[3] - v[4];
	return true;
}

#define BUSY_RATIO 0.2

/*
 * The idle baseline: the same counters over an interval as long as a phase, with no load and no
 * queries, and how busy the CPUs were (others' work: we sleep).  per is the warm-up's writes, so
 * the *_per_1000 figures read like a phase's.
 */
static json_t *idle_interval(struct cost_cell *c, int64_t len_ns, uint64_t per)
{
	struct mgb_fs_counters fc;
	struct mgb_mg_counters mg0, mg1;
	struct inode_counts ic;
	struct timespec ts = { len_ns / MGB_NSEC_PER_SEC, len_ns % MGB_NSEC_PER_SEC };
	uint64_t b0 = 0, t0 = 0, b1 = 0, t1 = 0;
	bool cpu = cpu_times(&b0, &t0);
	int64_t start = mgb_clock_ns(CLOCK_MONOTONIC), elapsed;
	json_t *busy_ratio = json_null(), *busy = json_null();

	inode_counts_begin(&ic, c);
	mgb_fs_counters_begin(&fc, c->ctx->target);
	mgb_mg_counters_read(&mg0);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR && !mgb_stop_requested())
		;
	mgb_mg_counters_read(&mg1);
	elapsed = mgb_clock_ns(CLOCK_MONOTONIC) - start;
	cpu = cpu && cpu_times(&b1, &t1);
	if (cpu && t1 > t0) {
		double ratio = (double)(b1 - b0) / (double)(t1 - t0);

		busy_ratio = json_real(ratio);
		busy = json_boolean(ratio > BUSY_RATIO);
	}
	return MGB_JSON_PACK("{s:I, s:o, s:o, s:o, s:o, s:o}", "elapsed_ns", (json_int_t)elapsed, "cpu_busy_ratio",
			     busy_ratio, "busy", busy, "multigrain", mgb_mg_counters_delta_json(&mg0, &mg1), "counters",
			     mgb_fs_counters_end(&fc, per), "inode", inode_counts_end(&ic, per));
}

/* Median, min and max of a number over the phases of one kind. */
static json_t *over_cycles(json_t *phases, enum kind k, const char *key, const char *sub)
{
	double v[MAX_CYCLES], lo, hi;
	size_t n = 0, i;
	json_t *ph;

	json_array_foreach(phases, i, ph) {
		json_t *x = sub ? json_object_get(json_object_get(ph, sub), key) : json_object_get(ph, key);

		if (!strcmp(json_string_value(json_object_get(ph, "kind")), kind_names[k]) && json_is_number(x) &&
		    n < MAX_CYCLES)
			v[n++] = json_number_value(x);
	}
	if (!n)
		return json_null();
	lo = v[0];
	hi = v[0];
	for (size_t j = 1; j < n; j++) {
		lo = v[j] < lo ? v[j] : lo;
		hi = v[j] > hi ? v[j] : hi;
	}
	return MGB_JSON_PACK("{s:f, s:f, s:f}", "median", mgb_median(v, n), "min", lo, "max", hi);
}

static double median_of(json_t *o)
{
	json_t *m = json_object_get(o, "median");

	return json_is_number(m) ? json_number_value(m) : NAN;
}

/* The median of a spread as a number, or null; takes the spread. */
static json_t *median_json(json_t *spread)
{
	double m = median_of(spread);

	json_decref(spread);
	return isnan(m) ? json_null() : json_real(m);
}

static json_t *ratio_json(double a, double b)
{
	return isnan(a) || isnan(b) || b == 0 ? json_null() : json_real(a / b);
}

/* Per kind, the median over cycles of every *_per_1000 figure of the phases' sub-object. */
static json_t *per_1000_medians(json_t *phases, enum kind k, const char *sub)
{
	json_t *o = json_object(), *first = json_object_get(json_array_get(phases, 0), sub), *v;
	const char *key;

	json_object_foreach(first, key, v) {
		size_t n = strlen(key);

		if (n > 9 && !strcmp(key + n - 9, "_per_1000"))
			json_object_set_new(o, key, median_json(over_cycles(phases, k, key, sub)));
	}
	return o;
}

/* ctime's figure minus size's, for each *_per_1000 key both have. */
static json_t *extra_per_1000(json_t *ctime, json_t *size)
{
	json_t *o = json_object(), *v;
	const char *key;

	json_object_foreach(ctime, key, v) {
		json_t *w = json_object_get(size, key);

		json_object_set_new(o, key, json_is_number(v) && json_is_number(w)
						    ? json_real(json_number_value(v) - json_number_value(w))
						    : json_null());
	}
	return o;
}

/* Which load the cell uses: fio needs the program and a local, syscall-level backend. */
static int pick_load(struct cost_cell *c)
{
	struct mgb_ctx *ctx = c->ctx;
	bool sync_be = !strcmp(ctx->be->ops->name, "sync");

	bool falloc_sync = !strcmp(c->p->mode, "fio-basic") && strcmp(c->p->sync, "none");

	/* auto: fio where it can run the mode (the cell's load.name says which ran) */
	if (!strcmp(c->p->load, "auto"))
		c->fio = FIO_PATH[0] && sync_be && !falloc_sync;
	else
		c->fio = !strcmp(c->p->load, "fio");
	if (!c->fio)
		return 0;
	if (!FIO_PATH[0])
		return mgb_err(ctx->err, "--load fio: fio was not found when mgbench was configured (install it)");
	if (falloc_sync)
		return mgb_err(ctx->err, "--mode fio-basic --sync: fio's falloc engine cannot sync (EINVAL); "
					 "use --load builtin");
	if (!sync_be) {
		ctx->unsupported = true;
		return mgb_err(ctx->err, "--load fio writes through fio's engine: use --backend sync or --load builtin");
	}
	return 0;
}

/* --nocow: FS_NOCOW_FL on the still empty file (btrfs honours it only before data exists). */
static json_t *apply_nocow(struct cost_cell *c)
{
	int flags = 0;

	if (!c->p->nocow)
		return json_null();
	if (c->f.fd < 0 || ioctl(c->f.fd, FS_IOC_GETFLAGS, &flags) < 0)
		return json_false();
	flags |= FS_NOCOW_FL;
	if (ioctl(c->f.fd, FS_IOC_SETFLAGS, &flags) < 0 || ioctl(c->f.fd, FS_IOC_GETFLAGS, &flags) < 0)
		return json_false();
	return json_boolean(flags & FS_NOCOW_FL);
}

/*
 * Before the phases, for both loads: the file as the mode needs it, outside any measured window
 * (overwrite: written once; fio-basic: one fallocate of it all, as the robot's fallocate=posix
 * layout pass does).  fio finds it the right size and leaves it alone.
 */
static int lay_out(struct cost_cell *c)
{
	struct mgb_backend *be = c->ctx->be;
	const struct cost_params *p = c->p;
	int r = 0;

	if (!strcmp(p->mode, "append"))
		return 0;
	if (!strcmp(p->mode, "fio-basic"))
		r = be->ops->fallocate(be, &c->f, 0, (off_t)c->file_size);
	for (off_t off = 0; r >= 0 && !strcmp(p->mode, "overwrite") && off < (off_t)c->file_size;
	     off += (off_t)p->size) {
		ssize_t n = be->ops->pwrite(be, &c->f, c->buf, p->size, off);

		r = n < 0 ? (int)n : 0;
	}
	if (r == 0)
		r = be->ops->fsync(be, &c->f);
	/* ramfs cannot fallocate: a fact about the filesystem, not a failure */
	if (r == -EOPNOTSUPP)
		c->ctx->unsupported = true;
	return r < 0 ? mgb_err(c->ctx->err, "laying out cost.dat: %s", strerror(-r)) : 0;
}

static int cost_prepare(struct cost_cell *c)
{
	struct mgb_ctx *ctx = c->ctx;
	struct mgb_backend *be = ctx->be;
	const struct cost_params *p = c->p;
	struct mgb_stat st;
	const char *tmp = ctx->session && ctx->session->tmpdir ? ctx->session->tmpdir : getenv("TMPDIR");
	int r;

	if (pick_load(c) < 0)
		return -1;
	if (p->crosstalk) {
		char err[MGB_ERR_LEN];

		if (!ctx->session)
			return mgb_err(ctx->err, "--crosstalk needs --fs: a --dir run cannot make a second filesystem");
		if (mgb_target_scratch(ctx->session, mgb_fs_type_find("tmpfs"), &c->other, err) < 0)
			return mgb_err(ctx->err, "--crosstalk: the other filesystem: %s", err);
		c->other_up = true;
	}
	if (c->fio) {
		char name[64];

		snprintf(name, sizeof(name), "%s.fio", p->mode);
		if (mgb_fio_job_path(name, c->job, sizeof(c->job), ctx->err) < 0)
			return -1;
		snprintf(c->workdir, sizeof(c->workdir), "%s/mgbench-fio.XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(c->workdir)) {
			*c->workdir = 0;
			return mgb_err(ctx->err, "a directory for fio's output: %s", strerror(errno));
		}
		snprintf(c->path, sizeof(c->path), "%s/cost.dat", ctx->target->path);
	}
	if (!strcmp(p->mode, "fio-basic") && mgb_require_op(ctx, fallocate))
		return -1;
	if (c->fio && mgb_require_op(ctx, stat))
		return -1;
	r = be->ops->open(be, "cost.dat", O_RDWR | O_CREAT | O_TRUNC, 0644, &c->f);
	if (r < 0) {
		c->f.fd = -1;
		return mgb_err(ctx->err, "open cost.dat: %s", strerror(-r));
	}
	json_object_set_new(ctx->metrics, "nocow_in_effect", apply_nocow(c));
	r = be->ops->fstat(be, &c->f, MGB_STAT_SIZE, &st);
	if (r < 0)
		return mgb_err(ctx->err, "stat cost.dat: %s", strerror(-r));
	c->ino = st.ino;
	return lay_out(c);
}

/* The medians over cycles of the phases' write latency percentiles. */
static json_t *clat_medians(json_t *phases, enum kind k)
{
	return MGB_JSON_PACK("{s:o, s:o, s:o}", "p50", median_json(over_cycles(phases, k, "p50", "write_clat_ns")),
			     "p99", median_json(over_cycles(phases, k, "p99", "write_clat_ns")), "p99_9",
			     median_json(over_cycles(phases, k, "p99_9", "write_clat_ns")));
}

/* Per kind the medians; then the ratios against the controls of the same run. */
static void put_summary(struct mgb_ctx *ctx, json_t *phases, const char *journal, bool crosstalk)
{
	json_t *per_kind[KIND_COUNT] = { 0 };
	double rate[KIND_COUNT];
	enum kind lo = crosstalk ? KIND_ALONE : KIND_NONE, hi = crosstalk ? KIND_CROSSTALK : KIND_CTIME;
	/* the kind that costs, and the control it is measured against */
	enum kind cost = crosstalk ? KIND_CROSSTALK : KIND_CTIME, control = crosstalk ? KIND_ALONE : KIND_SIZE;

	for (enum kind k = lo; k <= hi; k++) {
		json_t *wps = over_cycles(phases, k, "writes_per_s", NULL);
		json_t *w;

		per_kind[k] = MGB_JSON_PACK("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "writes_per_s",
					    median_json(json_incref(wps)), "writes_per_s_spread", wps, "journal_per_1000",
					    journal ? median_json(over_cycles(phases, k, journal, "counters")) : json_null(),
					    "counters_per_1000", per_1000_medians(phases, k, "counters"),
					    "ctime_changes_per_1000",
					    median_json(over_cycles(phases, k, "ctime_changes_per_1000", "inode")),
					    "ctime_changes_per_s",
					    median_json(over_cycles(phases, k, "ctime_changes_per_s", "inode")),
					    "queried_changes_per_1000",
					    median_json(over_cycles(phases, k, "queried_changes_per_1000", "inode")),
					    "write_clat_ns", clat_medians(phases, k));
		w = json_object_get(per_kind[k], "writes_per_s");
		rate[k] = json_is_number(w) ? json_number_value(w) : NAN;
		json_object_set_new(ctx->metrics, kind_names[k], per_kind[k]);
	}
	{
		json_t *jc = json_object_get(per_kind[cost], "journal_per_1000");
		json_t *js = json_object_get(per_kind[control], "journal_per_1000");

		if (crosstalk) {
			json_object_set_new(ctx->metrics, "crosstalk_alone_ratio",
					    ratio_json(rate[KIND_CROSSTALK], rate[KIND_ALONE]));
		} else {
			json_object_set_new(ctx->metrics, "ctime_size_ratio",
					    ratio_json(rate[KIND_CTIME], rate[KIND_SIZE]));
			json_object_set_new(ctx->metrics, "ctime_none_ratio",
					    ratio_json(rate[KIND_CTIME], rate[KIND_NONE]));
		}
		json_object_set_new(ctx->metrics, "journal", journal ? json_string(journal) : json_null());
		json_object_set_new(ctx->metrics, "extra_journal_per_1000",
				    json_is_number(jc) && json_is_number(js)
					    ? json_real(json_number_value(jc) - json_number_value(js))
					    : json_null());
		json_object_set_new(ctx->metrics, "extra_counters_per_1000",
				    extra_per_1000(json_object_get(per_kind[cost], "counters_per_1000"),
						   json_object_get(per_kind[control], "counters_per_1000")));
	}
}

static int cost_run(struct mgb_ctx *ctx)
{
	const struct cost_params *p = ctx->params;
	const char *journal = journal_key(ctx->target->fstype);
	struct cost_cell c = { .ctx = ctx, .p = p, .f = { .fd = -1 } };
	json_t *phases = json_array(), *idle = NULL;
	int64_t warm_ns = 0;
	int r;

	if (mgb_require_op(ctx, pwrite) || mgb_require_op(ctx, fstat) || mgb_require_op(ctx, fsync) ||
	    mgb_require_op(ctx, ftruncate))
		return -1;
	c.file_size = !strcmp(p->mode, "fio-basic") ? ctx->rounds * p->size : p->file_size;
	c.buf = malloc(p->size);
	if (!c.buf)
		return mgb_err(ctx->err, "out of memory");
	memset(c.buf, 'c', p->size);
	r = cost_prepare(&c);
	/* The warm-up (not recorded) gives the idle interval its length: one phase's. */
	if (r == 0)
		r = run_phase(&c, KIND_NONE, phases, -1, &warm_ns);
	if (r == 0)
		idle = idle_interval(&c, warm_ns, ctx->rounds);
	if (r == 0)
		mgb_measure_begin(ctx);
	for (unsigned cy = 0; cy < p->cycles && r == 0 && !mgb_stop_requested(); cy++)
		for (enum kind k = 0; k < KIND_COUNT && r == 0; k++)
			if (p->crosstalk ? k >= KIND_ALONE
					 : k < KIND_ALONE && (!strcmp(p->poll, "all") || !strcmp(p->poll, kind_names[k])))
				r = run_phase(&c, k, phases, (int)cy, &warm_ns);
	if (ctx->measured_begun)
		mgb_measure_end(ctx);
	if (c.f.fd >= 0 || c.f.priv)
		ctx->be->ops->close(ctx->be, &c.f);
	if (*c.workdir)
		rmdir(c.workdir);
	if (c.other_up)
		mgb_target_down(&c.other);
	free(c.buf);
	if (r < 0) {
		json_decref(phases);
		json_decref(idle);
		return -1;
	}
	json_object_set_new(ctx->metrics, "load",
			    MGB_JSON_PACK("{s:s, s:o, s:o}", "name", c.fio ? "fio" : "builtin", "job",
					  c.fio ? mgb_json_text(c.job) : json_null(), "fio_version",
					  c.fio ? json_string(c.fio_version) : json_null()));
	json_object_set_new(ctx->metrics, "file_size_bytes", json_integer((json_int_t)c.file_size));
	json_object_set_new(ctx->metrics, "idle", idle);
	put_summary(ctx, phases, journal, p->crosstalk);
	json_object_set_new(ctx->metrics, "phases", phases);
	return 0;
}

const struct mgb_workload mgb_workload_cost = {
	.name = "cost",
	.summary = "write load with and without a flag-arming query stream",
	.options = cost_options,
	.params_size = sizeof(struct cost_params),
	.default_rounds = 20000,
	.columns = cost_columns,
	.run = cost_run,
};
