/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ordering: the sequence that got the 2023 multigrain series reverted in 6.6-rc3,
 *   write(f1) stat(f2) write(f2) stat(f2) write(f1) stat(f1)
 * repeated.  f1 is written last, so its mtime must not be earlier than f2's: an inversion is
 * mtime(f1) < mtime(f2).  Equal stamps are legal but reported, because make-like tools want a
 * file written later to be strictly newer.
 *
 * Variants:
 *   same     both files on the target, one thread
 *   crossfs  f2 on a second scratch filesystem (--second-fs): the floor is global, so ordering
 *            must hold across filesystems too.  --second-fs upper, on an overlay target: f2 on
 *            the overlay's upper filesystem itself, beside the layers, reached without the overlay
 *   threads  thread A does write(f1); thread B, on another CPU, does stat(f2) write(f2) stat(f2);
 *            then A does write(f1) stat(f1).  A handshake orders the steps.
 */
#include "config.h"
#include "json_text.h"
#include "affinity.h"
#include "progress.h"
#include "stop.h"
#include "util.h"
#include "lower.h"
#include "workload.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct ordering_params {
	unsigned variant;   /* enum variant */
	unsigned second_fs; /* index in second_fs_choices: a filesystem's name */
};

enum variant { VARIANT_SAME, VARIANT_CROSSFS, VARIANT_THREADS };
static const char *const variant_choices[] = {
	[VARIANT_SAME] = "same", [VARIANT_CROSSFS] = "crossfs", [VARIANT_THREADS] = "threads", NULL,
};
static const char *const second_fs_choices[] = { "ext4", "xfs", "btrfs", "tmpfs", "ramfs", "upper", NULL };
#define SECOND_FS_UPPER 5

static const struct mgb_option ordering_options[] = {
	{ .name = "variant", .type = MGB_OPT_CHOICE, .offset = offsetof(struct ordering_params, variant),
	  .defval = "same", .help = "same, crossfs or threads", .choices = variant_choices },
	{ .name = "second-fs", .type = MGB_OPT_CHOICE, .offset = offsetof(struct ordering_params, second_fs),
	  .defval = "tmpfs", .help = "where f2 lives with --variant crossfs (upper: an overlay target's\n"
	  "upper filesystem, not through the overlay)", .choices = second_fs_choices },
	{ 0 },
};

static const struct mgb_column ordering_columns[] = {
	{ "rounds", "rounds", "int", MGB_BETTER_NONE, NULL, NULL },
	{ "invers", "inversions", "int", MGB_BETTER_LOWER, "inversions", "rounds" },
	{ "ties", "ties", "int", MGB_BETTER_NONE, "ties", "rounds" },
	{ "tie ratio", "tie_ratio", "ratio", MGB_BETTER_NONE, "ties", "rounds" },
	{ "worst inv", "max_inversion_ns", "ns", MGB_BETTER_LOWER, NULL, NULL },
	{ "rounds/s", "rounds_per_s", "rate", MGB_BETTER_HIGHER, NULL, NULL },
	{ 0 },
};

struct tally {
	uint64_t rounds, inversions, ties;
	int64_t max_inversion_ns;
};

/* f1 was written after f2: compare the two mtimes the round read. */
static void tally_round(struct tally *t, int64_t f1_mtime, int64_t f2_mtime)
{
	t->rounds++;
	if (f1_mtime == f2_mtime) {
		t->ties++;
	} else if (f1_mtime < f2_mtime) {
		t->inversions++;
		if (f2_mtime - f1_mtime > t->max_inversion_ns)
			t->max_inversion_ns = f2_mtime - f1_mtime;
	}
}

/* One file and the backend that reaches it. */
struct side {
	struct mgb_backend *be;
	struct mgb_file file;
};

static int write_step(struct side *s)
{
	static const char byte = 'o';
	ssize_t n = mgb_be_pwrite(s->be, &s->file, &byte, 1, 0);

	return n < 0 ? (int)n : 0;
}

static int stat_step(struct side *s, int64_t *mtime)
{
	struct mgb_stat st;
	int r = mgb_be_fstat(s->be, &s->file, MGB_STAT_TIMES, &st);

	if (r == 0)
		*mtime = mgb_ts_ns(st.mtime);
	return r;
}

/* Steps 2-4, thread B's part: stat(f2) write(f2) stat(f2). */
static int middle_steps(struct side *f2, int64_t *f2_mtime)
{
	int r = stat_step(f2, f2_mtime);

	if (r == 0)
		r = write_step(f2);
	return r < 0 ? r : stat_step(f2, f2_mtime);
}

static bool keep_going(struct mgb_ctx *ctx, uint64_t done)
{
	if ((done & 1023) == 0) {
		if (mgb_stop_requested())
			return false;
		mgb_progress_update(ctx->progress, done, ctx->rounds);
	}
	return true;
}

static int run_sequential(struct mgb_ctx *ctx, struct side *f1, struct side *f2, struct tally *t)
{
	int64_t m1 = 0, m2 = 0;
	int r = 0;

	while (t->rounds < ctx->rounds && keep_going(ctx, t->rounds)) {
		if ((r = write_step(f1)) < 0 || (r = middle_steps(f2, &m2)) < 0 ||
		    (r = write_step(f1)) < 0 || (r = stat_step(f1, &m1)) < 0)
			break;
		tally_round(t, m1, m2);
	}
	return r;
}

/*
 * threads: `turn` counts handed-over steps (modulo 2^32: the two sides are never more than one
 * apart).  In round k, A owns turn 2k and hands over with 2k+1; B owns 2k+1 and hands back with
 * 2k+2, after storing f2's mtime.  The store and load of turn are sequentially consistent, which
 * makes that mtime visible to A and orders them against `sleepers`.  Either side sets `quit` to
 * end the other's wait.
 */
struct handshake {
	struct mgb_ctx *ctx;
	struct side *f1, *f2;
	_Atomic uint32_t turn; /* also a futex word */
	atomic_int sleepers;   /* sides waiting in futex(turn) */
	atomic_bool quit;
	atomic_int error; /* first -errno */
	int64_t f2_mtime;
	struct tally tally;
	int cpu[2];      /* -1: not pinned */
};

/* Spins before a wait sleeps: on two free CPUs the other side hands over well within them. */
#define SPINS_BEFORE_SLEEP 4096

/*
 * Spin for the turn, then sleep in futex(turn): on CPUs other tasks want (the suite beside two
 * busy loops), a spinner would hold its CPU for a whole slice while the other side waits for one,
 * and a round would cost two slices (2000 rounds on four filesystems took 397 s beside four busy loops, 27 s with the sleep).
 */
static bool wait_turn(struct handshake *h, uint32_t turn)
{
	uint32_t now;

	for (unsigned spins = 0; (now = atomic_load(&h->turn)) != turn; spins++) {
		if (atomic_load(&h->quit))
			return false;
		if (spins < SPINS_BEFORE_SLEEP)
			continue;
		atomic_fetch_add(&h->sleepers, 1);
		/* the turn may have come after the load above: the futex sees it and returns */
		if (atomic_load(&h->turn) == now && !atomic_load(&h->quit)) {
			struct timespec tick = { .tv_nsec = 10 * 1000 * 1000 }; /* a lost wake-up costs 10 ms */

			syscall(SYS_futex, &h->turn, FUTEX_WAIT_PRIVATE, now, &tick, NULL, 0);
		}
		atomic_fetch_sub(&h->sleepers, 1);
	}
	return true;
}

static void hand_over(struct handshake *h, uint32_t turn)
{
	atomic_store(&h->turn, turn);
	if (atomic_load(&h->sleepers))
		syscall(SYS_futex, &h->turn, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* End the other side's wait, sleeping or not. */
static void stop_other(struct handshake *h)
{
	atomic_store(&h->quit, true);
	syscall(SYS_futex, &h->turn, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

static void fail(struct handshake *h, int r)
{
	int none = 0;

	atomic_compare_exchange_strong(&h->error, &none, r);
	stop_other(h);
}

static void *thread_a(void *arg)
{
	struct handshake *h = arg;
	int64_t m1 = 0;
	int r = 0;

	for (uint64_t k = 0; k < h->ctx->rounds && keep_going(h->ctx, k); k++) {
		if ((r = write_step(h->f1)) < 0)
			break;
		hand_over(h, (uint32_t)(2 * k + 1));
		if (!wait_turn(h, (uint32_t)(2 * k + 2)))
			return NULL;
		if ((r = write_step(h->f1)) < 0 || (r = stat_step(h->f1, &m1)) < 0)
			break;
		tally_round(&h->tally, m1, h->f2_mtime);
	}
	if (r < 0)
		fail(h, r);
	stop_other(h);
	return NULL;
}

static void *thread_b(void *arg)
{
	struct handshake *h = arg;

	for (uint64_t k = 0; wait_turn(h, (uint32_t)(2 * k + 1)); k++) {
		int r = middle_steps(h->f2, &h->f2_mtime);

		if (r < 0) {
			fail(h, r);
			break;
		}
		hand_over(h, (uint32_t)(2 * k + 2));
	}
	return NULL;
}

static int run_threads(struct mgb_ctx *ctx, struct side *f1, struct side *f2, struct tally *t, int cpu[2],
		       bool *pinned)
{
	struct handshake h = { .ctx = ctx, .f1 = f1, .f2 = f2 };
	pthread_t a, b;
	bool pinned_a, pinned_b;
	int r;

	mgb_pick_two_cpus(cpu);
	atomic_init(&h.turn, 0);
	atomic_init(&h.sleepers, 0);
	atomic_init(&h.quit, false);
	atomic_init(&h.error, 0);
	r = mgb_thread_start_pinned(&b, cpu[1], thread_b, &h, &pinned_b);
	if (r < 0)
		return r;
	r = mgb_thread_start_pinned(&a, cpu[0], thread_a, &h, &pinned_a);
	if (r < 0) {
		stop_other(&h);
		pthread_join(b, NULL);
		return r;
	}
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	*pinned = pinned_a && pinned_b;
	*t = h.tally;
	return atomic_load(&h.error);
}

/*
 * --second-fs upper: a directory on the overlay's upper filesystem beside its layers (the
 * target's own scratch filesystem), and a backend of the same kind there.  A served target's
 * backend reaches one server's export only, so this is for local backends.
 */
static int upper_fs_up(struct mgb_ctx *ctx, struct mgb_backend *be)
{
	const struct mgb_target *t = ctx->target;
	char path[4200], err[MGB_ERR_LEN];
	int fd;

	if (!t->fs || !t->fs->overlay_on || !t->mnt) {
		ctx->unsupported = true;
		return mgb_err(ctx->err, "--second-fs upper needs an overlay-* target");
	}
	if (ctx->be->ops->reach != MGB_REACH_LOCAL) {
		ctx->unsupported = true;
		return mgb_err(ctx->err, "--second-fs upper needs a local backend: a server exports one directory");
	}
	fd = open(t->mnt, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || mkdirat(fd, "beside", 0700) < 0) {
		mgb_err(ctx->err, "--second-fs upper: mkdir %s/beside: %s", t->mnt, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	snprintf(path, sizeof(path), "%s/beside", t->mnt);
	if (mgb_backend_open(be, ctx->be->ops, ctx->be->params, path, err) < 0)
		return mgb_err(ctx->err, "--second-fs upper: %s", err);
	return 0;
}

/* crossfs: make the second filesystem and a backend of the same kind on it. */
static int second_fs_up(struct mgb_ctx *ctx, const char *fs_name, struct mgb_target *t, struct mgb_backend *be)
{
	const struct mgb_fs_type *fs = mgb_fs_type_find(fs_name);
	char err[MGB_ERR_LEN];

	if (!ctx->session)
		return mgb_err(ctx->err, "--variant crossfs needs --fs: a --dir run cannot make a second filesystem");
	if (mgb_target_scratch(ctx->session, fs, t, err) < 0 || mgb_backend_open(be, ctx->be->ops, ctx->be->params, t->path, err) < 0)
		return mgb_err(ctx->err, "--second-fs %s: %s", fs_name, err);
	return 0;
}

static int ordering_run(struct mgb_ctx *ctx)
{
	const struct ordering_params *p = ctx->params;
	bool crossfs = p->variant == VARIANT_CROSSFS, threads = p->variant == VARIANT_THREADS;
	struct mgb_target t2 = { 0 };
	struct mgb_backend be2 = { 0 };
	struct side f1 = { .be = ctx->be, .file = { .fd = -1 } }, f2 = { .be = ctx->be, .file = { .fd = -1 } };
	bool f1_open = false, f2_open = false;
	struct tally t = { 0 };
	int cpu[2] = { -1, -1 };
	bool pinned = false;
	int64_t t0, elapsed;
	int r = -1;

	if (crossfs) {
		if ((p->second_fs == SECOND_FS_UPPER ? upper_fs_up(ctx, &be2)
						     : second_fs_up(ctx, second_fs_choices[p->second_fs], &t2, &be2)) < 0)
			goto out;
		f2.be = &be2;
	}
	r = mgb_open_from_lower(ctx, "ordering.f1", O_RDWR | O_CREAT | O_TRUNC, 0644, &f1.file);
	if (r < 0) {
		mgb_err(ctx->err, "open ordering.f1: %s", strerror(-r));
		goto out;
	}
	f1_open = true;
	r = crossfs ? mgb_be_open(f2.be, "ordering.f2", O_RDWR | O_CREAT | O_TRUNC, 0644, &f2.file)
		    : mgb_open_from_lower(ctx, "ordering.f2", O_RDWR | O_CREAT | O_TRUNC, 0644, &f2.file);
	if (r < 0) {
		mgb_err(ctx->err, "open ordering.f2: %s", strerror(-r));
		goto out;
	}
	f2_open = true;

	mgb_measure_begin(ctx);
	t0 = mgb_clock_ns(CLOCK_MONOTONIC);
	r = threads ? run_threads(ctx, &f1, &f2, &t, cpu, &pinned) : run_sequential(ctx, &f1, &f2, &t);
	elapsed = mgb_clock_ns(CLOCK_MONOTONIC) - t0;
	mgb_measure_end(ctx);
	if (r < 0) {
		mgb_err(ctx->err, "after %llu rounds: %s", (unsigned long long)t.rounds, strerror(-r));
		goto out;
	}

	json_object_set_new(ctx->metrics, "rounds", json_integer((json_int_t)t.rounds));
	json_object_set_new(ctx->metrics, "inversions", json_integer((json_int_t)t.inversions));
	json_object_set_new(ctx->metrics, "ties", json_integer((json_int_t)t.ties));
	json_object_set_new(ctx->metrics, "tie_ratio", t.rounds ? json_real((double)t.ties / (double)t.rounds) : json_null());
	json_object_set_new(ctx->metrics, "max_inversion_ns", json_integer(t.max_inversion_ns));
	mgb_put_rate(ctx, "rounds_per_s", t.rounds, elapsed);
	if (crossfs && p->second_fs == SECOND_FS_UPPER)
		json_object_set_new(ctx->metrics, "second_fs", mgb_json_text(ctx->target->upper_fstype ?: "upper"));
	else if (crossfs)
		json_object_set_new(ctx->metrics, "second_fs", json_string(t2.fstype));
	if (threads) {
		/* One CPU only, or a refused affinity: the threads still alternate, unpinned, and the
		 * document says so (cpus are the ones asked for). */
		json_object_set_new(ctx->metrics, "pinned", json_boolean(pinned));
		json_object_set_new(ctx->metrics, "cpus", cpu[0] >= 0 ? MGB_JSON_PACK("[i, i]", cpu[0], cpu[1]) : json_null());
	}
	r = 0;
out:
	if (f2_open)
		mgb_be_close(f2.be, &f2.file);
	if (f1_open)
		mgb_be_close(f1.be, &f1.file);
	if (be2.ops)
		mgb_backend_close(&be2);
	if (crossfs)
		mgb_target_down(&t2);
	return r;
}

/* --variant threads writes the two files from two threads pinned to two CPUs. */
static bool ordering_needs_two_cpus(const void *params)
{
	return ((const struct ordering_params *)params)->variant == VARIANT_THREADS;
}

const struct mgb_workload mgb_workload_ordering = {
	.name = "ordering",
	.summary = "write f1, f2, f1: f1's mtime must not be older than f2's",
	.options = ordering_options,
	.params_size = sizeof(struct ordering_params),
	.columns = ordering_columns,
	.run = ordering_run,
	.needs_ops = MGB_OP_PWRITE | MGB_OP_FSTAT,
	.needs_two_cpus = ordering_needs_two_cpus,
};
