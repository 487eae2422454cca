/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cost: per-inode tracepoint counts, and the idle baseline recorded beside the phases. */
#include "config.h"
#include "json_text.h"
#include "stop.h"
#include "cost.h"

#include <errno.h>
#include <string.h>

void cost_inode_counts_begin(struct inode_counts *ic, const struct cost_cell *c)
{
	const struct mgb_target *t = c->ctx->target;
	char err[MGB_ERR_LEN], filter[160];

	memset(ic, 0, sizeof(*ic));
	mgb_ctime_changes_open(&ic->changes, t, c->ino, true);
	if (mgb_tracecount_open(&ic->queries, "timestamp", "fill_mg_cmtime", t->sb_dev_major, t->sb_dev_minor, c->ino,
				err) < 0)
		ic->queries.nfds = 0;
	snprintf(filter, sizeof(filter), "ino == %llu && dev == %u && old & %u", (unsigned long long)c->ino,
		 (t->sb_dev_major << 20) | t->sb_dev_minor, 1u << 31);
	if (mgb_tracecount_open_filter(&ic->queried, "timestamp", "ctime_ns_xchg", filter, err) < 0)
		ic->queried.nfds = 0;
	ic->changes0 = mgb_ctime_changes_total(&ic->changes, 0, -1);
	ic->queried0 = ic->queried.nfds ? mgb_tracecount_read(&ic->queried) : -1;
	ic->queries0 = ic->queries.nfds ? mgb_tracecount_read(&ic->queries) : -1;
}

static json_t *count_json(int64_t after, int64_t before)
{
	return after >= 0 && before >= 0 ? json_integer(after - before) : json_null();
}

json_t *cost_inode_counts_end(struct inode_counts *ic, uint64_t writes, int64_t elapsed_ns, int64_t tick_ns)
{
	int64_t ch = mgb_ctime_changes_total(&ic->changes, 0, -1);
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
	/*
	 * A queried change took a fine stamp unless the coarse clock had passed the old stamp: the
	 * first change after each tick boundary is counted too, though it would have happened
	 * without the query.  So the fine stamps are at least the queried changes less one per tick
	 * of the window (which matters when writes are slower than polls).
	 */
	json_object_set_new(o, "fine_stamps_at_least",
			    qc >= 0 && ic->queried0 >= 0 && tick_ns > 0
				    ? json_integer(qc - ic->queried0 > elapsed_ns / tick_ns + 1
							   ? qc - ic->queried0 - (elapsed_ns / tick_ns + 1)
							   : 0)
				    : json_null());
	json_object_set_new(o, "ctime_queries", count_json(q, ic->queries0));
	mgb_tracecount_close(&ic->queried);
	mgb_ctime_changes_close(&ic->changes);
	mgb_tracecount_close(&ic->queries);
	return o;
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

/* Every count of a counters object (the keys without _per_1000) per second of elapsed_ns. */
static json_t *per_second(json_t *counters, int64_t elapsed_ns)
{
	json_t *o = json_object(), *v;
	const char *key;

	json_object_foreach(counters, key, v) {
		char k[80];

		if (cost_is_per_1000(key))
			continue;
		snprintf(k, sizeof(k), "%s_per_s", key);
		json_object_set_new(o, k, json_is_integer(v) && elapsed_ns > 0
						  ? json_real(mgb_per_s((uint64_t)json_integer_value(v), elapsed_ns))
						  : json_null());
	}
	return o;
}

/*
 * The idle baseline: the same counters over an interval as long as a phase, with no load and no
 * queries, and how busy the CPUs were (others' work: we sleep).  Background scales with time,
 * not with writes, so it is kept as a rate per second for cost_subtract_background.
 */
json_t *cost_idle_interval(struct cost_cell *c, int64_t len_ns)
{
	struct mgb_fs_counters fc;
	struct mgb_mg_counters mg0, mg1;
	struct inode_counts ic;
	struct timespec ts = { len_ns / MGB_NSEC_PER_SEC, len_ns % MGB_NSEC_PER_SEC };
	uint64_t b0 = 0, t0 = 0, b1 = 0, t1 = 0;
	bool cpu = cpu_times(&b0, &t0);
	int64_t start = mgb_clock_ns(CLOCK_MONOTONIC), elapsed;
	json_t *busy_ratio = json_null(), *busy = json_null(), *counters;

	cost_inode_counts_begin(&ic, c);
	mgb_fs_counters_begin(&fc, c->ctx->target);
	mgb_mg_counters_read(&mg0);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR && !mgb_stop_requested())
		;
	mgb_mg_counters_read(&mg1);
	counters = mgb_fs_counters_end(&fc, 0);
	elapsed = mgb_clock_ns(CLOCK_MONOTONIC) - start;
	cpu = cpu && cpu_times(&b1, &t1);
	if (cpu && t1 > t0) {
		double ratio = (double)(b1 - b0) / (double)(t1 - t0);

		busy_ratio = json_real(ratio);
		busy = json_boolean(ratio > BUSY_RATIO);
	}
	return MGB_JSON_PACK("{s:I, s:o, s:o, s:o, s:o, s:o, s:o}", "elapsed_ns", (json_int_t)elapsed, "cpu_busy_ratio",
			     busy_ratio, "busy", busy, "multigrain", mgb_mg_counters_delta_json(&mg0, &mg1),
			     "counters_per_s", per_second(counters, elapsed), "counters", counters, "inode",
			     cost_inode_counts_end(&ic, 0, elapsed, c->ctx->clock ? c->ctx->clock->coarse_tick_ns : 0));
}

void cost_subtract_background(json_t *phases, json_t *idle)
{
	json_t *rates = json_object_get(idle, "counters_per_s"), *ph;
	size_t i;

	json_array_foreach(phases, i, ph) {
		json_t *o = json_object(), *v, *counts = json_object_get(ph, "counters");
		double window_s = (double)json_integer_value(json_object_get(ph, "window_ns")) / 1e9;
		json_int_t writes = json_integer_value(json_object_get(ph, "writes"));
		const char *key;

		json_object_foreach(counts, key, v) {
			char rk[80], k[80];
			json_t *rate;

			if (cost_is_per_1000(key))
				continue;
			snprintf(rk, sizeof(rk), "%s_per_s", key);
			snprintf(k, sizeof(k), "%s_per_1000", key);
			rate = json_object_get(rates, rk);
			/* an estimate: it may come out below zero when the background was burstier */
			json_object_set_new(o, k, json_is_integer(v) && json_is_number(rate) && writes > 0
							  ? json_real(1000.0 *
								      ((double)json_integer_value(v) -
								       json_number_value(rate) * window_s) /
								      (double)writes)
							  : json_null());
		}
		json_object_set_new(ph, "background_corrected", o);
	}
}
