#include "config.h"
#include "histogram.h"

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
