/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mgbench info: what this kernel does with timestamps.  Kernel release and version, the coarse
 * tick measured, clock resolutions, whether the debugfs counters and timestamp tracepoints
 * exist, and per filesystem whether multigrain is in effect, decided by a write+statx probe.
 */
#include "config.h"
#include "json_text.h"
#include "mgbench.h"
#include "cmdline.h"
#include "probe.h"
#include "result.h"
#include "target.h"
#include "util.h"

#include <getopt.h>
#include <string.h>
#include <unistd.h>

static const void *find_fs(const char *name)
{
	return mgb_fs_type_find(name);
}

enum { OPT_FS = 256, OPT_DIR, OPT_JSON };

static const struct mgb_cmd_option options[] = {
	{ "fs", 0, "LIST", "filesystems to make and probe\n(default " MGB_DEFAULT_FS ")", OPT_FS },
	{ "dir", 0, "PATH", "probe an existing directory instead", OPT_DIR },
	{ "json", 0, NULL, "print a JSON object (schema mgbench/1/info)", OPT_JSON },
	{ 0 },
};

static const struct mgb_cmdline cmdline = { .verb = "info", .opts = options };

static void usage(FILE *out)
{
	fprintf(out, "usage: mgbench info [--fs LIST | --dir PATH] [--json]\n\n"
		     "Reports the kernel, its clocks and, per filesystem, whether multigrain\n"
		     "timestamps are in effect.\n\n"
		     "options:\n");
	mgb_cmd_options_print(out, options);
}

static void print_text(json_t *kernel, json_t *fss)
{
	json_t *clocks = json_object_get(kernel, "clocks"), *res = json_object_get(clocks, "resolution_ns");
	json_t *tps = json_object_get(kernel, "timestamp_tracepoints"), *fs;
	const char *key;
	json_t *v;
	size_t i;

	printf("kernel       %s\n", json_string_value(json_object_get(kernel, "release")));
	printf("version      %.59s\n", json_string_value(json_object_get(kernel, "version")));
	printf("coarse tick  %lld ns (HZ %.0f; smallest step seen %lld ns)\n",
	       (long long)json_integer_value(json_object_get(clocks, "coarse_tick_ns")),
	       json_real_value(json_object_get(clocks, "hz_measured")),
	       (long long)json_integer_value(json_object_get(clocks, "coarse_step_seen_ns")));
	printf("resolution   realtime %lld ns, realtime_coarse %lld ns\n",
	       (long long)json_integer_value(json_object_get(res, "realtime")),
	       (long long)json_integer_value(json_object_get(res, "realtime_coarse")));
	printf("clocksource  %.59s\n", json_string_value(json_object_get(clocks, "clocksource")) ?: "not readable");
	printf("debugfs      %s\n", json_is_true(json_object_get(kernel, "multigrain_debugfs")) ?
	       MGB_DEBUGFS_COUNTERS " present" : "multigrain counters absent");
	printf("tracepoints ");
	json_object_foreach(tps, key, v)
		printf(" %s%s", json_is_true(v) ? "" : "!", key);
	printf("\n\n%-6s %-7s %-10s %s\n", "fs", "type", "multigrain", "evidence");
	json_array_foreach(fss, i, fs) {
		json_t *mg = json_object_get(fs, "multigrain");
		const char *ev = json_string_value(json_object_get(fs, "evidence"));

		printf("%-6s %-7s %-10s ", json_string_value(json_object_get(fs, "fs")),
		       json_string_value(json_object_get(fs, "fstype")) ?: "-",
		       json_is_null(mg) ? "error" : json_is_true(mg) ? "yes" : "no");
		if (!ev)
			ev = json_string_value(json_object_get(fs, "error"));
		/* wrap the evidence under its column so the table stays inside 72 columns */
		for (int first = 1; ev && *ev; first = 0) {
			int n = (int)strlen(ev) > 46 ? 46 : (int)strlen(ev);

			while (n < (int)strlen(ev) && n > 20 && ev[n] != ' ')
				n--;
			printf("%*s%.*s\n", first ? 0 : 26, "", n, ev);
			ev += n;
			while (*ev == ' ')
				ev++;
		}
	}
	printf("\n(!name: tracepoint absent, or unreadable without root)\n");
}

int cmd_info(int argc, char **argv)
{
	const struct mgb_fs_type *fs[16];
	unsigned nfs = 0;
	const char *dir = NULL, *fslist = MGB_DEFAULT_FS;
	bool as_json = false;
	struct mgb_session s;
	struct mgb_clockinfo ci;
	char err[MGB_ERR_LEN], listbuf[256];
	json_t *kernel, *fss, *doc;
	int c;

	optind = 1;
	while ((c = mgb_getopt(&cmdline, argc, argv)) != MGB_GETOPT_END) {
		switch (c) {
		case OPT_FS: fslist = optarg; break;
		case OPT_DIR: dir = optarg; break;
		case OPT_JSON: as_json = true; break;
		case MGB_GETOPT_HELP: usage(stdout); return MGB_EXIT_OK;
		default: return MGB_EXIT_USAGE;
		}
	}
	if (mgb_cmd_no_operands(&cmdline, argc, argv))
		return MGB_EXIT_USAGE;
	snprintf(listbuf, sizeof(listbuf), "%s", fslist);
	if (!dir && mgb_parse_list("info", "filesystem", listbuf, (const void **)fs, MGB_ARRAY_SIZE(fs), &nfs,
				   find_fs))
		return MGB_EXIT_USAGE;

	if (mgb_session_begin(&s, dir == NULL, err) < 0) {
		fprintf(stderr, "mgbench info: %s\n", err);
		mgb_session_end(&s);
		return MGB_EXIT_FAIL;
	}
	mgb_clock_probe(&ci);
	kernel = mgb_kernel_json(&ci);
	fss = json_array();
	if (dir)
		json_array_append_new(fss, mgb_mgtime_probe_json(&s, NULL, dir, &ci));
	for (unsigned i = 0; !dir && i < nfs; i++)
		json_array_append_new(fss, mgb_mgtime_probe_json(&s, fs[i], NULL, &ci));
	mgb_session_end(&s);

	doc = MGB_JSON_PACK("{s:s, s:o, s:o}", "schema", MGB_SCHEMA "/info", "kernel", kernel, "filesystems", fss);
	if (as_json) {
		json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
		fputc('\n', stdout);
	} else {
		print_text(kernel, fss);
	}
	json_decref(doc);
	return MGB_EXIT_OK;
}
