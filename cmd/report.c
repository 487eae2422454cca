/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mgbench report: a run's tables again from its document; over several, median, min and max. */
#include "config.h"
#include "report.h"
#include "doc.h"
#include "mgbench.h"
#include "cmdline.h"
#include "docs.h"
#include "util.h"

#include <getopt.h>

static void usage(FILE *out)
{
	fprintf(out, "usage: mgbench report FILE.json [MORE.json ...]\n"
		     "\n"
		     "Prints the tables 'mgbench run' printed, from its result document.\n"
		     "Given several documents (or one with repeats), each row is the median\n"
		     "of the matching cells, with their min and max beneath it.\n"
		     "\n"
		     "See mgbench-report(1).\n");
}

int cmd_report(int argc, char **argv)
{
	static const struct mgb_cmd_option options[] = { { 0 } };
	static const struct mgb_cmdline cmdline = { .verb = "report", .opts = options };
	json_t *docs[MGB_DOCS_MAX];
	unsigned ndocs = 0;
	int c, rc = MGB_EXIT_OK;

	optind = 1;
	while ((c = mgb_getopt(&cmdline, argc, argv)) != MGB_GETOPT_END) {
		if (c == MGB_GETOPT_HELP) {
			usage(stdout);
			return MGB_EXIT_OK;
		}
		return MGB_EXIT_USAGE;
	}
	if ((rc = mgb_docs_load("report", argv + optind, (unsigned)(argc - optind), MGB_DOCS_MAX, docs)))
		return rc;
	ndocs = (unsigned)(argc - optind);
	if (!mgb_report_any_known(docs, ndocs)) {
		fprintf(stderr, "mgbench report: %s: no cell of a workload this mgbench knows\n", argv[optind]);
		rc = MGB_EXIT_FAIL;
		goto out;
	}
	if (ndocs == 1 && !mgb_report_has_repeats(docs[0]))
		mgb_report_print(stdout, docs[0]);
	else
		mgb_report_print_summary(stdout, docs, ndocs);
out:
	mgb_docs_free(docs, ndocs);
	return rc;
}
