/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit: the log-linear step histogram (bucketing, quantiles, bounds). */
#include "config.h"
#include "helpers.h"
#include "histogram.h"

#include <stdint.h>

int main(void)
{
	static struct mgb_hist h;
	uint64_t prev_low = 0;

	/* Buckets are contiguous, increasing, and each value falls in the bucket whose low edge <= it. */
	for (unsigned i = 1; i < MGB_HIST_BUCKETS; i++) {
		uint64_t low = mgb_hist_bucket_low(i);

		T_CHECK(low > prev_low, "bucket %u low %llu not above %llu", i, (unsigned long long)low,
			(unsigned long long)prev_low);
		T_CHECK(mgb_hist_index(low) == i, "index(low(%u)) = %u", i, mgb_hist_index(low));
		T_CHECK(mgb_hist_index(low - 1) == i - 1, "index(low(%u)-1) = %u", i, mgb_hist_index(low - 1));
		prev_low = low;
	}
	T_CHECK(mgb_hist_index(UINT64_MAX) == MGB_HIST_BUCKETS - 1, "max value lands in the last bucket");
	for (uint64_t v = 0; v < 64; v++)
		T_CHECK(mgb_hist_index(v) == v, "small values are exact: %llu", (unsigned long long)v);

	/* Empty histogram: quantiles are 0. */
	mgb_hist_init(&h);
	T_CHECK(mgb_hist_quantile(&h, 0.5) == 0, "empty p50");

	/* 1..1000000: p50 and p99 within the 1/32 bucket error, min and max exact. */
	for (int64_t v = 1; v <= 1000000; v++)
		mgb_hist_add(&h, v);
	T_CHECK(h.n == 1000000, "count %llu", (unsigned long long)h.n);
	T_CHECK(h.min == 1 && h.max == 1000000, "min %lld max %lld", (long long)h.min, (long long)h.max);
	T_CHECK(mgb_hist_quantile(&h, 0.0) == 1, "p0 is min");
	T_CHECK(mgb_hist_quantile(&h, 1.0) == 1000000, "p100 is max");
	{
		int64_t p50 = mgb_hist_quantile(&h, 0.5), p99 = mgb_hist_quantile(&h, 0.99);

		T_CHECK(p50 <= 500000 && p50 >= 500000 - 500000 / 32, "p50 = %lld", (long long)p50);
		T_CHECK(p99 <= 990000 && p99 >= 990000 - 990000 / 32, "p99 = %lld", (long long)p99);
	}

	/* A negative value (a backwards step) is counted in bucket 0, but min stays exact. */
	mgb_hist_init(&h);
	mgb_hist_add(&h, -5);
	mgb_hist_add(&h, 7);
	T_CHECK(h.min == -5 && h.max == 7 && h.bucket[0] == 1, "min %lld max %lld", (long long)h.min, (long long)h.max);
	T_CHECK(mgb_hist_quantile(&h, 0.0) == -5, "p0 is the raw min");

	/* A skewed distribution: 99 zeros and one big step: p50 0, p99 0, max exact. */
	mgb_hist_init(&h);
	for (int i = 0; i < 99; i++)
		mgb_hist_add(&h, 0);
	mgb_hist_add(&h, 4000000);
	T_CHECK(mgb_hist_quantile(&h, 0.5) == 0, "p50 of mostly zeros");
	T_CHECK(mgb_hist_quantile(&h, 0.99) == 0, "p99 of 99 zeros and 1 big: rank 99 is a zero");
	/* 4000000 lies in [2^21, 2^22), whose 32 buckets are 65536 wide: its bucket starts at
	 * 61 * 65536 = 3997696, and that edge is the quantile. */
	T_CHECK(mgb_hist_quantile(&h, 0.995) == 3997696, "p99.5 = %lld, the big step's bucket edge",
		(long long)mgb_hist_quantile(&h, 0.995));
	T_CHECK(h.max == 4000000, "max exact");

	/* The buckets for the document: non-empty only, clamped to [min, max], counts exact. */
	{
		struct mgb_hist_range r[MGB_HIST_MAX_RANGES];
		unsigned n = mgb_hist_ranges(&h, r, MGB_HIST_MAX_RANGES);
		uint64_t total = 0;

		T_CHECK(n == 2, "two non-empty buckets, got %u", n);
		T_CHECK(n == 2 && r[0].lo == 0 && r[0].hi == 0 && r[0].count == 99, "zeros: [%lld, %lld, %llu]",
			(long long)r[0].lo, (long long)r[0].hi, (unsigned long long)r[0].count);
		T_CHECK(n == 2 && r[1].lo == 3997696 && r[1].hi == 4000000 && r[1].count == 1,
			"big step: [%lld, %lld, %llu]", (long long)r[1].lo, (long long)r[1].hi,
			(unsigned long long)r[1].count);

		/* 1..1000000 fills hundreds of buckets: merged to at most the bound, nothing lost,
		 * ranges in order and not overlapping, first at min, last at max. */
		mgb_hist_init(&h);
		for (int64_t v = 1; v <= 1000000; v++)
			mgb_hist_add(&h, v);
		n = mgb_hist_ranges(&h, r, MGB_HIST_MAX_RANGES);
		T_CHECK(n > 1 && n <= MGB_HIST_MAX_RANGES, "%u ranges", n);
		for (unsigned i = 0; i < n; i++) {
			total += r[i].count;
			T_CHECK(r[i].lo <= r[i].hi, "range %u [%lld, %lld]", i, (long long)r[i].lo, (long long)r[i].hi);
			T_CHECK(i == 0 || r[i].lo > r[i - 1].hi, "range %u overlaps the one before", i);
		}
		T_CHECK(total == 1000000, "ranges hold %llu values", (unsigned long long)total);
		T_CHECK(r[0].lo == 1 && r[n - 1].hi == 1000000, "first %lld last %lld", (long long)r[0].lo,
			(long long)r[n - 1].hi);
		/* One sample per value: a range holds exactly hi - lo + 1 of them. */
		T_CHECK(r[0].count == (uint64_t)(r[0].hi - r[0].lo + 1), "first range [%lld, %lld] holds %llu",
			(long long)r[0].lo, (long long)r[0].hi, (unsigned long long)r[0].count);
		mgb_hist_init(&h);
		T_CHECK(mgb_hist_ranges(&h, r, MGB_HIST_MAX_RANGES) == 0, "empty: no ranges");
	}
	return t_result();
}
