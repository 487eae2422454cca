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

	/* Negative values are clamped to 0 (callers count them separately as backwards). */
	mgb_hist_init(&h);
	mgb_hist_add(&h, -5);
	T_CHECK(h.min == 0 && h.bucket[0] == 1, "negative clamps to 0");

	/* A skewed distribution: 99 zeros and one big step: p50 0, p99 0, max exact. */
	mgb_hist_init(&h);
	for (int i = 0; i < 99; i++)
		mgb_hist_add(&h, 0);
	mgb_hist_add(&h, 4000000);
	T_CHECK(mgb_hist_quantile(&h, 0.5) == 0, "p50 of mostly zeros");
	T_CHECK(mgb_hist_quantile(&h, 0.99) == 0, "p99 of 99 zeros and 1 big: rank 99 is a zero");
	T_CHECK(mgb_hist_quantile(&h, 0.995) == 4000000 - 4000000 % (4194304 / 32) || mgb_hist_quantile(&h, 0.995) <= 4000000,
		"p99.5 reaches the big step");
	T_CHECK(h.max == 4000000, "max exact");
	return t_result();
}
