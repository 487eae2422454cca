/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fixed-size log-linear histogram of non-negative int64 values (ns).  Values below 64 are exact;
 * above, each power of two is split into 32 buckets, so a quantile is within 1/32 (3.1 %) of the
 * true value.  Memory is constant (about 15 KiB) whatever the number of samples: metrics stream.
 */
#ifndef MGB_HISTOGRAM_H
#define MGB_HISTOGRAM_H

#include <stdint.h>

#define MGB_HIST_SUB_BITS 5
#define MGB_HIST_SUB (1u << MGB_HIST_SUB_BITS)
#define MGB_HIST_EXACT (2 * MGB_HIST_SUB)
#define MGB_HIST_BUCKETS (MGB_HIST_EXACT + (63 - MGB_HIST_SUB_BITS) * MGB_HIST_SUB)

struct mgb_hist {
	uint64_t n;
	int64_t min, max;
	uint64_t bucket[MGB_HIST_BUCKETS];
};

void mgb_hist_init(struct mgb_hist *h);
/* The q-quantile (0 <= q <= 1), as the low edge of its bucket clamped to [min, max]; 0 if empty. */
int64_t mgb_hist_quantile(const struct mgb_hist *h, double q);

/* The lowest value of a bucket (exposed for the unit test). */
uint64_t mgb_hist_bucket_low(unsigned idx);

/* Bucket index of a value.  Inline, like mgb_hist_add: both run in every measured round. */
static inline unsigned mgb_hist_index(uint64_t v)
{
	unsigned e;

	if (v < MGB_HIST_EXACT)
		return (unsigned)v;
	e = 63 - (unsigned)__builtin_clzll(v); /* v in [2^e, 2^(e+1)), e >= 6 */
	return MGB_HIST_EXACT + (e - MGB_HIST_SUB_BITS - 1) * MGB_HIST_SUB +
	       (unsigned)((v >> (e - MGB_HIST_SUB_BITS)) & (MGB_HIST_SUB - 1));
}

/* Add one value.  min and max are exact; a negative value is counted in bucket 0. */
static inline void mgb_hist_add(struct mgb_hist *h, int64_t v)
{
	if (h->n == 0 || v < h->min)
		h->min = v;
	if (h->n == 0 || v > h->max)
		h->max = v;
	h->n++;
	h->bucket[v < 0 ? 0 : mgb_hist_index((uint64_t)v)]++;
}

/* A range of values [lo, hi] (both inclusive) holding count of them. */
struct mgb_hist_range {
	int64_t lo, hi;
	uint64_t count;
};

/* At most this many ranges go into a result document. */
#define MGB_HIST_MAX_RANGES 64

/*
 * The non-empty buckets as ranges, at most max of them: when there are more, neighbouring
 * non-empty buckets are merged (each range still holds exactly the values counted in it).
 * Ranges are clamped to [min, max], so the first starts at min and the last ends at max.
 * Returns how many were written.
 */
unsigned mgb_hist_ranges(const struct mgb_hist *h, struct mgb_hist_range *out, unsigned max);

#endif
