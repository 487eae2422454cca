/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-thread backend state: every thread that calls a backend gets an object of its own (an NFS
 * connection, an io_uring), made on first use and found again without the lock.  nfs.c and
 * uring.c share it.  Internal to lib/backend/.
 */
#ifndef MGB_BACKEND_PERTHREAD_H
#define MGB_BACKEND_PERTHREAD_H

#include <pthread.h>
#include <stdint.h>

#define MGB_PERTHREAD_MAX 80 /* stat: up to 64 query threads + a writer, with room */

/* Make the object for the thread with this index (0, 1, ...); NULL with *e = -errno, and a
 * message in err (MGB_ERR_LEN) when it says more than the errno. */
typedef void *(*mgb_perthread_make)(void *ctx, unsigned index, int *e, char *err);

struct mgb_perthread {
	mgb_perthread_make make;
	void *ctx;
	uint64_t serial;      /* tells a thread's stale cached entry from this registry's */
	pthread_mutex_t lock; /* guards n, owner[] and obj[] */
	unsigned n;
	pthread_t owner[MGB_PERTHREAD_MAX];
	void *obj[MGB_PERTHREAD_MAX];
};

void mgb_perthread_init(struct mgb_perthread *r, mgb_perthread_make make, void *ctx);
/* The calling thread's object, made on first use; NULL with *e = -errno (-ENOMEM past
 * MGB_PERTHREAD_MAX threads) and, if err is not NULL, make's message in it. */
void *mgb_perthread_get(struct mgb_perthread *r, int *e, char *err);
/* How many objects there are, and the i-th, for a walk when no other thread calls any more. */
unsigned mgb_perthread_count(struct mgb_perthread *r);
void *mgb_perthread_at(struct mgb_perthread *r, unsigned i);
/* Free every object with free_obj and forget them. */
void mgb_perthread_destroy(struct mgb_perthread *r, void (*free_obj)(void *obj));

#endif
