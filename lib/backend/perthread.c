/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Per-thread backend state (perthread.h): a registry under a lock, and a thread-local cache. */
#include "config.h"
#include "perthread.h"
#include "util.h"

#include <errno.h>
#include <stdatomic.h>

/*
 * The registry a thread used last, and its object there: found without the lock in every
 * round.  The serial tells a stale entry (a registry since destroyed, its memory reused for a
 * new one) from the live one.
 */
static __thread const struct mgb_perthread *tls_registry;
static __thread uint64_t tls_serial;
static __thread void *tls_obj;

void mgb_perthread_init(struct mgb_perthread *r, mgb_perthread_make make, void *ctx)
{
	static atomic_uint_fast64_t serials;

	r->make = make;
	r->ctx = ctx;
	r->serial = atomic_fetch_add(&serials, 1) + 1;
	pthread_mutex_init(&r->lock, NULL);
	r->n = 0;
}

void *mgb_perthread_get(struct mgb_perthread *r, int *e, char *err)
{
	pthread_t self = pthread_self();
	char own_err[MGB_ERR_LEN];
	void *obj = NULL;

	if (tls_registry == r && tls_serial == r->serial)
		return tls_obj;
	pthread_mutex_lock(&r->lock);
	for (unsigned i = 0; i < r->n && !obj; i++)
		if (pthread_equal(r->owner[i], self))
			obj = r->obj[i];
	if (!obj && r->n == MGB_PERTHREAD_MAX) {
		*e = -ENOMEM;
	} else if (!obj && (obj = r->make(r->ctx, r->n, e, err ? err : own_err))) {
		r->owner[r->n] = self;
		r->obj[r->n++] = obj;
	}
	pthread_mutex_unlock(&r->lock);
	if (obj) {
		tls_registry = r;
		tls_serial = r->serial;
		tls_obj = obj;
	}
	return obj;
}

unsigned mgb_perthread_count(struct mgb_perthread *r)
{
	unsigned n;

	pthread_mutex_lock(&r->lock);
	n = r->n;
	pthread_mutex_unlock(&r->lock);
	return n;
}

void *mgb_perthread_at(struct mgb_perthread *r, unsigned i)
{
	return i < r->n ? r->obj[i] : NULL;
}

void mgb_perthread_destroy(struct mgb_perthread *r, void (*free_obj)(void *obj))
{
	for (unsigned i = 0; i < r->n; i++)
		free_obj(r->obj[i]);
	r->n = 0;
	if (tls_registry == r)
		tls_registry = NULL;
	pthread_mutex_destroy(&r->lock);
}
