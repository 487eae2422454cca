/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"
#include "histogram.h"

#include <stdint.h>
#include <string.h>

void mgb_hist_init(struct mgb_hist *h)
{
	memset(h, 0, sizeof(*h));
}

uint64_t mgb_hist_bucket_low(unsigned idx)
{
	unsigned e, sub;

	if (idx < MGB_HIST_EXACT)
		return idx;
	e = (idx - MGB_HIST_EXACT) / MGB_HIST_SUB + MGB_HIST_SUB_BITS + 1;
	sub = (idx - MGB_HIST_EXACT) % MGB_HIST_SUB;
	return ((uint64_t)(MGB_HIST_SUB + sub)) << (e - MGB_HIST_SUB_BITS);
}

int64_t mgb_hist_quantile(const struct mgb_hist *h, double q)
{
	uint64_t rank, seen = 0;
	int64_t v;

	if (h->n == 0)
		return 0;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	/* rank of the q-quantile, 1-based (nearest-rank definition) */
	rank = (uint64_t)(q * (double)h->n);
	if ((double)rank < q * (double)h->n)
		rank++;
	if (rank == 0)
		rank = 1;
	for (unsigned i = 0; i < MGB_HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= rank) {
			v = (int64_t)mgb_hist_bucket_low(i);
			if (v < h->min)
				v = h->min;
			if (v > h->max)
				v = h->max;
			return v;
		}
	}
	return h->max;
}

unsigned mgb_hist_ranges(const struct mgb_hist *h, struct mgb_hist_range *out, unsigned max)
{
	unsigned nonempty = 0, per, n = 0, in_range = 0;

	if (h->n == 0 || max == 0)
		return 0;
	for (unsigned i = 0; i < MGB_HIST_BUCKETS; i++)
		nonempty += h->bucket[i] != 0;
	per = (nonempty + max - 1) / max; /* non-empty buckets merged into one range */
	for (unsigned i = 0; i < MGB_HIST_BUCKETS; i++) {
		int64_t lo, hi;

		if (!h->bucket[i])
			continue;
		lo = (int64_t)mgb_hist_bucket_low(i);
		hi = i + 1 < MGB_HIST_BUCKETS ? (int64_t)mgb_hist_bucket_low(i + 1) - 1 : INT64_MAX;
		if (in_range == 0) {
			out[n].lo = lo;
			out[n].count = 0;
			n++;
		}
		out[n - 1].hi = hi;
		out[n - 1].count += h->bucket[i];
		if (++in_range == per)
			in_range = 0;
	}
	/* min lies in the first non-empty bucket (negative values in bucket 0), max in the last. */
	out[0].lo = h->min;
	out[n - 1].hi = h->max;
	return n;
}
