/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * crash: a change whose stamp was handed out, then the filesystem shut down before the change
 * was persisted, the way fstests crashes a filesystem (the shutdown ioctl, without flushing the
 * log), and mounted again (the log replayed).  "NFSD does not wait for the updated value to be
 * written by the filesystem before it starts presenting it to clients" (LSFMM 2023, seeds): a
 * fine ctime a client saw may come back older after the crash, and the next change may then be
 * stamped with the very value the client holds, over other data.
 *
 * Each round: query (arming the fine stamp), write a round-numbered block, query: the handed
 * ctime; shut down; mount again; read the file back: did the write survive, what ctime did the
 * file come back with (older than the handed one; or the same over lost data, which a client
 * holding it would take for what it has); then change it again and query: is that ctime the
 * handed one, or older?
 *
 * Through the kernel's nfsd (nfs4, --nfs-server knfsd, in a guest) the client is libnfs and the
 * query a GETATTR, which hands the NFSv4 change attribute beside the ctime: the same questions
 * are asked of it.  The write is UNSTABLE and the client closes only after the server crashed,
 * so no COMMIT made it durable; the target side crashes the exported filesystem and brings it
 * back under the same export, and a new client reads the file back.
 */
#include "config.h"
#include "progress.h"
#include "stop.h"
#include "util.h"
#include "workload.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#define FILE_NAME "crash.dat"
#define BLOCK 4096
/* cycles recorded one by one in the document; the counts go on past it */
#define CYCLES_KEPT 1000

struct crash_params {
	unsigned flush;
};

static const char *const flush_choices[] = { "none", "log", NULL };

static const struct mgb_option crash_options[] = {
	{ .name = "flush", .type = MGB_OPT_CHOICE, .offset = offsetof(struct crash_params, flush),
	  .defval = "none",
	  .help = "what the shutdown writes first: none (the log is lost, as a power cut) or log",
	  .choices = flush_choices, .sweep = true },
	{ 0 },
};

static const struct mgb_column crash_columns[] = {
	{ "rounds", "rounds", "int", MGB_BETTER_NONE, NULL, NULL },
	{ "lost", "writes_lost", "int", MGB_BETTER_NONE, "writes_lost", "rounds" },
	{ "older", "ctime_came_back_older", "int", MGB_BETTER_NONE, "ctime_came_back_older", "rounds" },
	{ "stale", "ctime_kept_data_lost", "int", MGB_BETTER_LOWER, "ctime_kept_data_lost", "rounds" },
	{ "reused", "handed_ctime_reused", "int", MGB_BETTER_LOWER, "handed_ctime_reused", "rounds" },
	{ "behind", "next_ctime_behind", "int", MGB_BETTER_LOWER, "next_ctime_behind", "rounds" },
	/* over NFSv4: the same of the change attribute */
	{ "chg older", "change_came_back_smaller", "int", MGB_BETTER_NONE, "change_came_back_smaller", "rounds" },
	{ "chg stale", "change_kept_data_lost", "int", MGB_BETTER_LOWER, "change_kept_data_lost", "rounds" },
	{ "chg reuse", "handed_change_reused", "int", MGB_BETTER_LOWER, "handed_change_reused", "rounds" },
	{ "chg behnd", "next_change_behind", "int", MGB_BETTER_LOWER, "next_change_behind", "rounds" },
	{ 0 },
};

/* What the crash cycles did to a value a client was handed (the ctime, or the NFSv4 change
 * attribute): it came back older, or the same over lost data; the next change got it again, or
 * an older one. */
struct crash_counts {
	uint64_t older, stale, reused, behind;
};

/* -1, 0 or 1 as a is below, equal to or above b (the ctime is signed, the change attribute not) */
#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

/* One cycle: the value that came back and the next change's, each against the one handed out. */
static void count_cycle(struct crash_counts *c, int back_vs_handed, int next_vs_handed, bool lost)
{
	c->older += back_vs_handed < 0;
	/* the value a client was handed survived, the data it stood for did not: that client's cache
	 * now holds data the file never had again, under the file's own stamp */
	c->stale += back_vs_handed == 0 && lost;
	/* the next change, over other data, got the value a client holds: the article's case */
	c->reused += next_vs_handed == 0;
	c->behind += next_vs_handed < 0;
}

/* A round's change attributes (over NFSv4) and what they count. */
struct changes {
	bool seen;
	uint64_t handed, back, next;
	struct crash_counts counts;
};

static void fill(char *buf, uint64_t round)
{
	for (size_t i = 0; i < BLOCK; i += sizeof(round))
		memcpy(buf + i, &round, sizeof(round));
}

/* What the block read back after a crash held: the round's write, the data just before it (the
 * last cycle's change after its crash), the block synced before the first round (every change
 * since lost), or none of these (a torn or zeroed block). */
static const char *data_back(const char *got, const char *want, const char *before)
{
	char synced[BLOCK];

	if (!memcmp(got, want, BLOCK))
		return "written";
	if (!memcmp(got, before, BLOCK))
		return "before";
	fill(synced, 0);
	return memcmp(got, synced, BLOCK) ? "other" : "synced";
}

/* One crash cycle as a client would have seen it: what it was handed, what came back. */
static json_t *cycle_json(uint64_t round, int64_t handed, int64_t back, const char *data, int64_t next,
			  const struct changes *ch)
{
	json_t *j = json_pack("{s:I, s:I, s:I, s:s, s:I}", "round", (json_int_t)round, "handed_ctime_ns",
			      (json_int_t)handed, "back_ctime_ns", (json_int_t)back, "data_back", data, "next_ctime_ns",
			      (json_int_t)next);

	if (j && ch->seen) {
		json_object_set_new(j, "handed_change", json_integer((json_int_t)ch->handed));
		json_object_set_new(j, "back_change", json_integer((json_int_t)ch->back));
		json_object_set_new(j, "next_change", json_integer((json_int_t)ch->next));
	}
	return j;
}

/* The four counts as metrics, under names[] in struct crash_counts's order. */
static void put_counts(struct mgb_ctx *ctx, const char *const names[4], const struct crash_counts *c)
{
	json_object_set_new(ctx->metrics, names[0], json_integer((json_int_t)c->older));
	json_object_set_new(ctx->metrics, names[1], json_integer((json_int_t)c->stale));
	json_object_set_new(ctx->metrics, names[2], json_integer((json_int_t)c->reused));
	json_object_set_new(ctx->metrics, names[3], json_integer((json_int_t)c->behind));
}

/* The change attribute of a query, where the backend hands one (NFSv4). */
static void take_change(struct changes *ch, const struct mgb_stat *st, uint64_t *into)
{
	if (st->mask & MGB_STAT_CHANGE) {
		ch->seen = true;
		*into = st->change;
	}
}

static int crash_run(struct mgb_ctx *ctx)
{
	const struct crash_params *p = ctx->params;
	struct mgb_backend *be = ctx->be;
	struct mgb_file f;
	struct mgb_stat st;
	uint64_t done = 0, lost = 0;
	struct crash_counts ctimes = { 0 };
	struct changes ch = { 0 };
	char want[BLOCK], got[BLOCK], before[BLOCK];
	json_t *cycles = json_array();
	const char *what = "open";
	bool open_ = false, nfs;
	unsigned query;
	int round_flags, r;

	nfs = !strcmp(be->ops->name, "nfs4");
	if (!ctx->crash || !ctx->remount || (strcmp(be->ops->name, "sync") && !nfs)) {
		json_decref(cycles);
		ctx->unsupported = true;
		return mgb_err(ctx->err, "crash shuts a filesystem down and mounts it again: it needs a loop-mounted "
					 "scratch filesystem (ext4, xfs, btrfs) reached by the sync backend, or by nfs4 "
					 "from the kernel's nfsd in a guest (--nfs-server knfsd)");
	}
	/* over NFSv4 a query hands the change attribute too; libnfs 4.0 makes every O_CREAT an
	 * exclusive create, which an existing file fails */
	query = MGB_STAT_TIMES | (nfs ? MGB_STAT_CHANGE : 0);
	round_flags = nfs ? O_RDWR : O_RDWR | O_CREAT;
	/* the file itself, durable before the first crash: only the rounds' changes are at stake */
	fill(want, 0);
	what = "create";
	if ((r = mgb_be_open(be, FILE_NAME, O_RDWR | O_CREAT | O_TRUNC, 0644, &f)) < 0)
		goto fail;
	open_ = true;
	if ((r = (int)mgb_be_pwrite(be, &f, want, BLOCK, 0)) < 0 || (r = mgb_be_fsync(be, &f)) < 0)
		goto fail;
	mgb_be_close(be, &f);
	open_ = false;
	mgb_measure_begin(ctx);
	while (done < ctx->rounds) {
		int64_t handed, back, next;
		const char *data;
		bool gone;

		what = "open";
		if ((r = mgb_be_open(be, FILE_NAME, round_flags, 0644, &f)) < 0)
			goto fail;
		open_ = true;
		/* the data the file held before this round's write: what a lost write leaves */
		memcpy(before, want, BLOCK);
		fill(want, done + 1);
		what = "fstat";
		if ((r = mgb_be_fstat(be, &f, query, &st)) < 0)
			goto fail;
		what = "pwrite";
		if ((r = (int)mgb_be_pwrite(be, &f, want, BLOCK, 0)) < 0)
			goto fail;
		what = "fstat";
		if ((r = mgb_be_fstat(be, &f, query, &st)) < 0)
			goto fail;
		handed = mgb_ts_ns(st.ctime);
		take_change(&ch, &st, &ch.handed);
		/* the file stays open through the shutdown: over NFS its close after the crash sends
		 * the COMMIT that fails, and no COMMIT before it made the write durable */
		if ((r = ctx->crash(ctx, p->flush)) < 0) {
			what = "shutdown ioctl";
			goto fail;
		}
		mgb_be_close(be, &f);
		open_ = false;
		if (ctx->remount(ctx, ctx->err) < 0) {
			json_decref(cycles);
			mgb_measure_end(ctx);
			return -1;
		}
		what = "open after the crash";
		if ((r = mgb_be_open(be, FILE_NAME, O_RDWR, 0, &f)) < 0)
			goto fail;
		open_ = true;
		what = "fstat after the crash";
		if ((r = mgb_be_fstat(be, &f, query, &st)) < 0)
			goto fail;
		back = mgb_ts_ns(st.ctime);
		take_change(&ch, &st, &ch.back);
		what = "pread after the crash";
		memset(got, 0, sizeof(got));
		if ((r = (int)mgb_be_pread(be, &f, got, BLOCK, 0)) < 0)
			goto fail;
		data = data_back(got, want, before);
		gone = memcmp(got, want, BLOCK) != 0;
		lost += gone;
		/* the next change, stamped after the crash */
		fill(want, ~done);
		what = "pwrite after the crash";
		if ((r = (int)mgb_be_pwrite(be, &f, want, BLOCK, 0)) < 0)
			goto fail;
		what = "fstat after the crash";
		if ((r = mgb_be_fstat(be, &f, query, &st)) < 0)
			goto fail;
		next = mgb_ts_ns(st.ctime);
		take_change(&ch, &st, &ch.next);
		count_cycle(&ctimes, CMP(back, handed), CMP(next, handed), gone);
		if (ch.seen)
			count_cycle(&ch.counts, CMP(ch.back, ch.handed), CMP(ch.next, ch.handed), gone);
		if (done < CYCLES_KEPT)
			json_array_append_new(cycles, cycle_json(done + 1, handed, back, data, next, &ch));
		mgb_be_close(be, &f);
		open_ = false;
		done++;
		if (mgb_stop_requested())
			break;
		mgb_progress_update(ctx->progress, done, ctx->rounds);
	}
	mgb_measure_end(ctx);
	mgb_be_unlink(be, FILE_NAME);
	json_object_set_new(ctx->metrics, "rounds", json_integer((json_int_t)done));
	json_object_set_new(ctx->metrics, "writes_lost", json_integer((json_int_t)lost));
	put_counts(ctx, (const char *const[]){ "ctime_came_back_older", "ctime_kept_data_lost", "handed_ctime_reused",
					     "next_ctime_behind" }, &ctimes);
	if (ch.seen)
		put_counts(ctx, (const char *const[]){ "change_came_back_smaller", "change_kept_data_lost",
						     "handed_change_reused", "next_change_behind" }, &ch.counts);
	json_object_set_new(ctx->metrics, "cycles", cycles);
	return 0;
fail:
	json_decref(cycles);
	if (open_)
		mgb_be_close(be, &f);
	if (ctx->measured_begun)
		mgb_measure_end(ctx);
	if (r == -ENOTTY) /* a filesystem without the shutdown ioctl: unsupported, not an error */
		r = -EOPNOTSUPP;
	return mgb_fail(ctx, r, "%s: %s in round %llu: %s%s", FILE_NAME, what, (unsigned long long)done + 1, strerror(-r),
			r == -EOPNOTSUPP ? " (this filesystem has no shutdown ioctl)" : "");
}

const struct mgb_workload mgb_workload_crash = {
	.name = "crash",
	.summary = "hand out a ctime or NFSv4 change, shut the fs down unflushed, mount again: reused?",
	.options = crash_options,
	.params_size = sizeof(struct crash_params),
	.default_rounds = 20,
	.columns = crash_columns,
	.run = crash_run,
	.needs_ops = MGB_OP_PWRITE | MGB_OP_PREAD | MGB_OP_FSTAT | MGB_OP_FSYNC | MGB_OP_UNLINK,
};
