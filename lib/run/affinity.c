/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"
#include "affinity.h"

#include <errno.h>
#include <sched.h>

void mgb_pick_two_cpus(int cpu[2])
{
	cpu_set_t allowed;
	int n = 0;

	cpu[0] = cpu[1] = -1;
	if (sched_getaffinity(0, sizeof(allowed), &allowed) < 0)
		return;
	for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
		if (CPU_ISSET(c, &allowed))
			cpu[n++] = c;
	if (n < 2)
		cpu[0] = cpu[1] = -1;
}

/* The thread's affinity is exactly {cpu}. */
static bool runs_only_on(pthread_t tid, int cpu)
{
	cpu_set_t set;

	if (pthread_getaffinity_np(tid, sizeof(set), &set) != 0)
		return false;
	return CPU_COUNT(&set) == 1 && CPU_ISSET(cpu, &set);
}

int mgb_thread_start_pinned(pthread_t *tid, int cpu, void *(*fn)(void *), void *arg, bool *pinned)
{
	pthread_attr_t attr;
	cpu_set_t set;
	int r;

	*pinned = false;
	if (pthread_attr_init(&attr) != 0)
		return -ENOMEM;
	if (cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		/* A refused affinity is not fatal: the thread runs unpinned and says so. */
		if (pthread_attr_setaffinity_np(&attr, sizeof(set), &set) != 0)
			cpu = -1;
	}
	r = pthread_create(tid, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	if (r != 0)
		return -r;
	*pinned = cpu >= 0 && runs_only_on(*tid, cpu);
	return 0;
}
