/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Two threads on two different CPUs (ordering --variant threads, revalidate), and an honest
 * record of whether the pinning took: a thread is "pinned" only if its affinity, read back
 * after it started, is exactly the one CPU asked for.
 */
#ifndef MGB_AFFINITY_H
#define MGB_AFFINITY_H

#include <pthread.h>
#include <stdbool.h>

/* The first two CPUs this process may run on; both -1 if it may run on only one. */
void mgb_pick_two_cpus(int cpu[2]);

/* pthread_create, asking for CPU cpu (-1: anywhere).  *pinned says whether the thread really
 * runs on that CPU only.  Returns 0 or -errno (the thread did not start). */
int mgb_thread_start_pinned(pthread_t *tid, int cpu, void *(*fn)(void *), void *arg, bool *pinned);

#endif
