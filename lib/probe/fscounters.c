/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Per-filesystem journal and device counters as deltas over a window (see probe.h). */
#include "config.h"
#include "json_text.h"
#include "probe.h"
#include "util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Numbers after a line's leading word ("log 4892 14886 0 5370 4894"), from a stats file. */
static int read_line_numbers(const char *path, const char *word, uint64_t *v, int n)
{
	char line[512];
	FILE *f = fopen(path, "re");
	int got = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *end;
		size_t w = strlen(word);

		if (strncmp(line, word, w) || line[w] != ' ')
			continue;
		p += w;
		for (got = 0; got < n; got++) {
			v[got] = strtoull(p, &end, 10);
			if (end == p)
				break;
			p = end;
		}
		break;
	}
	fclose(f);
	return got == n ? 0 : -1;
}

static void snapshot(struct mgb_fs_counters *c, struct mgb_fs_snapshot *s)
{
	char path[256];
	uint64_t v[17];
	FILE *f;

	memset(s, 0, sizeof(*s));
	s->jbd2_handles = c->handles.nfds ? mgb_tracecount_read(&c->handles) : -1;
	s->btrfs_ctime_updates = c->ctime_updates.nfds ? mgb_tracecount_read(&c->ctime_updates) : -1;
	if (!*c->blockdev)
		return;
	snprintf(path, sizeof(path), "/sys/block/%s/stat", c->blockdev);
	f = fopen(path, "re");
	/*
	 * Documentation/block/stat.rst: reads merges sectors ticks, writes merges sectors ticks,
	 * in_flight io_ticks time_in_queue, discards merges sectors ticks, flushes ticks: the
	 * flush count is the 16th field (index 15; index 14 is the discards' milliseconds).
	 */
	if (f) {
		int n = 0;

		while (n < 17 && fscanf(f, "%lu", (unsigned long *)&v[n]) == 1)
			n++;
		fclose(f);
		if (n >= 7) {
			s->block = true;
			s->blk_writes = v[4];
			s->blk_sectors = v[6];
			s->blk_flushes = n >= 16 ? v[15] : 0;
		}
	}
	snprintf(path, sizeof(path), "/proc/fs/jbd2/%s-8/info", c->blockdev);
	f = fopen(path, "re");
	if (f) {
		s->jbd2 = fscanf(f, "%lu transactions", (unsigned long *)&s->jbd2_transactions) == 1;
		fclose(f);
	}
	snprintf(path, sizeof(path), "/sys/fs/xfs/%s/stats/stats", c->blockdev);
	if (read_line_numbers(path, "trans", v, 3) == 0) {
		s->xfs_trans = v[0] + v[1];
		if (read_line_numbers(path, "log", v, 5) == 0) {
			s->xfs = true;
			s->xfs_log_writes = v[0];
			s->xfs_log_forces = v[3];
		}
	}
	if (*c->btrfs_uuid) {
		snprintf(path, sizeof(path), "/sys/fs/btrfs/%s/commit_stats", c->btrfs_uuid);
		s->btrfs = read_line_numbers(path, "commits", v, 1) == 0;
		s->btrfs_commits = v[0];
	}
}

/* The btrfs filesystem whose devices/ holds our loop device. */
static void find_btrfs(struct mgb_fs_counters *c)
{
	DIR *d = opendir("/sys/fs/btrfs");
	struct dirent *e;
	char path[512];

	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.' || strlen(e->d_name) != 36)
			continue;
		snprintf(path, sizeof(path), "/sys/fs/btrfs/%s/devices/%s", e->d_name, c->blockdev);
		if (access(path, F_OK) == 0) {
			snprintf(c->btrfs_uuid, sizeof(c->btrfs_uuid), "%s", e->d_name);
			break;
		}
	}
	if (d)
		closedir(d);
}

void mgb_fs_counters_begin(struct mgb_fs_counters *c, const struct mgb_target *t)
{
	char filter[64];

	memset(c, 0, sizeof(*c));
	c->t = t;
	if (t->loopdev && !strncmp(t->loopdev, "/dev/", 5))
		snprintf(c->blockdev, sizeof(c->blockdev), "%s", t->loopdev + 5);
	snprintf(filter, sizeof(filter), "dev == %u", (t->sb_dev_major << 20) | t->sb_dev_minor);
	/*
	 * btrfs commits every 30 s, so per phase its commits read 0.  What a timestamp update costs
	 * it is btrfs_update_time -> btrfs_dirty_inode: a join of the running transaction (no space
	 * reservation, so btrfs:btrfs_space_reservation stays still) and a copy into the delayed
	 * inode (reserved once until it is flushed).  No btrfs tracepoint moves per update and
	 * theirs carry the fsid only as an array a filter cannot test, so count the updates by the
	 * ctime swaps on the superblock's dev: each is one btrfs_dirty_inode.
	 */
	const char *type = t->upper_fstype ? t->upper_fstype : t->fstype; /* an overlay's: its upper layer's */

	if (type && !strcmp(type, "btrfs")) {
		find_btrfs(c);
		if (mgb_tracecount_open_filter(&c->ctime_updates, "timestamp", "ctime_ns_xchg", filter, NULL) < 0)
			c->ctime_updates.nfds = 0;
	}
	/* jbd2 reports the journal's device: for an internal journal, the filesystem's */
	if (type && !strcmp(type, "ext4")) {
		if (mgb_tracecount_open_filter(&c->handles, "jbd2", "jbd2_handle_start", filter, NULL) < 0)
			c->handles.nfds = 0;
	}
	snapshot(c, &c->before);
}

static void put(json_t *o, const char *key, bool have, uint64_t after, uint64_t before, uint64_t per)
{
	char k[64];

	if (!have) {
		json_object_set_new(o, key, json_null());
		return;
	}
	json_object_set_new(o, key, json_integer((json_int_t)(after - before)));
	snprintf(k, sizeof(k), "%s_per_1000", key);
	json_object_set_new(o, k, per ? json_real(1000.0 * (double)(after - before) / (double)per) : json_null());
}

json_t *mgb_fs_counters_end(struct mgb_fs_counters *c, uint64_t per)
{
	struct mgb_fs_snapshot a, *b = &c->before;
	json_t *o = json_object();

	snapshot(c, &a);
	put(o, "block_writes", a.block && b->block, a.blk_writes, b->blk_writes, per);
	put(o, "block_sectors", a.block && b->block, a.blk_sectors, b->blk_sectors, per);
	put(o, "block_flushes", a.block && b->block, a.blk_flushes, b->blk_flushes, per);
	put(o, "jbd2_transactions", a.jbd2 && b->jbd2, a.jbd2_transactions, b->jbd2_transactions, per);
	put(o, "jbd2_handles", a.jbd2_handles >= 0 && b->jbd2_handles >= 0, (uint64_t)a.jbd2_handles,
	    (uint64_t)b->jbd2_handles, per);
	put(o, "xfs_transactions", a.xfs && b->xfs, a.xfs_trans, b->xfs_trans, per);
	put(o, "xfs_log_writes", a.xfs && b->xfs, a.xfs_log_writes, b->xfs_log_writes, per);
	put(o, "xfs_log_forces", a.xfs && b->xfs, a.xfs_log_forces, b->xfs_log_forces, per);
	put(o, "btrfs_commits", a.btrfs && b->btrfs, a.btrfs_commits, b->btrfs_commits, per);
	put(o, "btrfs_ctime_updates", a.btrfs_ctime_updates >= 0 && b->btrfs_ctime_updates >= 0,
	    (uint64_t)a.btrfs_ctime_updates, (uint64_t)b->btrfs_ctime_updates, per);
	mgb_tracecount_close(&c->handles);
	mgb_tracecount_close(&c->ctime_updates);
	return o;
}
