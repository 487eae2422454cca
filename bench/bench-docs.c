/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * make bench: compare, report and plot on documents of 1,000 cells (a sweep of workloads x
 * filesystems x repeats), timed and with their peak memory, which should stay proportional to one
 * document.  The cells are real: one short run, its cells repeated under new repeat indices.
 */
#include "config.h"
#include "bench.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#define CELLS 1000

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Run mgbench with args; print its time and peak RSS under name. */
static int timed(const char *name, char *const args[])
{
	struct rusage ru = { 0 };
	double t0 = now();
	int code = bench_mgbench(args[0], (const char *const *)args, NULL, &ru);

	printf("%-34s %7.3f s  %7.1f MiB peak\n", name, now() - t0, (double)ru.ru_maxrss / 1024.0);
	return code < 0 ? 1 : code;
}

int main(void)
{
	char *bin = getenv("MGBENCH") ?: "./mgbench";
	char dir[] = "/tmp/mgbench-bench-docs.XXXXXX", seed[128], big[128], png[128];
	json_t *doc, *cells, *more;
	struct stat st;
	size_t n;

	if (!mkdtemp(dir))
		return 1;
	snprintf(seed, sizeof(seed), "%s/seed.json", dir);
	snprintf(big, sizeof(big), "%s/big.json", dir);
	snprintf(png, sizeof(png), "%s/big.png", dir);
	{
		char *run[] = { bin, "run", "write,rename,ordering,statx06,revalidate", "--fs", "tmpfs,ramfs", "--rounds",
				"300", "-q", "-o", seed, NULL };

		if (timed("run (the seed document)", run) != 0 || !(doc = json_load_file(seed, 0, NULL))) {
			fprintf(stderr, "bench-docs: the seed run failed\n");
			return 1;
		}
	}
	cells = json_object_get(doc, "cells");
	n = json_array_size(cells);
	more = json_array();
	for (size_t i = 0; json_array_size(more) < CELLS; i++) {
		json_t *c = json_deep_copy(json_array_get(cells, i % n));

		json_object_set_new(c, "repeat", json_integer((json_int_t)(i / n)));
		json_array_append_new(more, c);
	}
	json_object_set_new(doc, "cells", more);
	json_dump_file(doc, big, JSON_INDENT(2));
	json_decref(doc);
	stat(big, &st);
	printf("documents of %d cells (%.1f MiB each)\n", CELLS, (double)st.st_size / (1 << 20));
	{
		char *cmp[] = { bin, "compare", big, big, NULL };
		char *rep[] = { bin, "report", big, NULL };
		char *rep2[] = { bin, "report", big, big, NULL };
		char *plt[] = { bin, "plot", big, "-o", png, NULL };
		int rc = timed("compare big big", cmp) | timed("report big", rep) | timed("report big big", rep2) |
			 timed("plot big -o big.png", plt);

		unlink(seed);
		unlink(big);
		unlink(png);
		rmdir(dir);
		return rc;
	}
}
