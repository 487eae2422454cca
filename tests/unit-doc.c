/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit: documents handed to compare, report and plot.  Each malformed input is refused with one
 * line naming the file and what is wrong; a FIFO or device never blocks; a good document and one
 * from a later minor version (unknown keys) are read.  Every file of the fuzz corpus
 * (tests/fuzz-corpus/, the inputs `make fuzz` found interesting or crashing) goes through the
 * reader and, when accepted, through compare and the table printer: none may crash.
 */
#include "config.h"
#include "report.h"
#include "compare.h"
#include "doc.h"
#include "helpers.h"
#include "result.h"
#include "util.h"

#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define GOOD_CELL                                                                                   \
	"{\"workload\":\"write\",\"fs\":\"tmpfs\",\"backend\":\"sync\",\"params\":{\"size\":4096},"   \
	"\"repeat\":0,\"status\":\"ok\",\"metrics\":{\"ctime\":{\"distinct\":9,\"rounds\":10,"        \
	"\"distinct_ratio\":0.9}}}"
#define GOOD "{\"schema\":\"mgbench/1\",\"kernel\":{\"release\":\"6.18\"},\"cells\":[" GOOD_CELL "]}"

static char dir[512];

static const char *write_case(const char *name, const char *text)
{
	static char path[700];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

static void refused(const char *path, const char *says)
{
	char err[MGB_ERR_LEN] = "";
	json_t *doc = mgb_doc_read(path, err);

	T_CHECK(doc == NULL, "%s: must be refused", path);
	T_CHECK(strstr(err, path) && strstr(err, says), "%s: the error must name the file and say '%s': %s", path,
		says, err);
	T_CHECK(!strchr(err, '\n'), "one line: %s", err);
	json_decref(doc);
}

static void refused_text(const char *name, const char *text, const char *says)
{
	refused(write_case(name, text), says);
}

/* Whatever the fuzzer found must not crash the reader or, if it is accepted, compare and report. */
static void corpus(void)
{
	const char *src = getenv("srcdir") ? getenv("srcdir") : ".";
	char path[1024], err[MGB_ERR_LEN];
	struct dirent *e;
	DIR *d;
	unsigned n = 0;

	snprintf(path, sizeof(path), "%s/tests/fuzz-corpus", src);
	d = opendir(path);
	T_CHECK(d != NULL, "the corpus %s exists", path);
	while (d && (e = readdir(d))) {
		json_t *doc;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/tests/fuzz-corpus/%s", src, e->d_name);
		doc = mgb_doc_read(path, err);
		if (doc) {
			struct mgb_compare_opts o = { .alpha = 0.05 };
			json_t *docs[2] = { doc, doc };
			const char *paths[2] = { path, path };
			json_t *cmp = mgb_compare(docs, paths, 2, &o);
			FILE *null = fopen("/dev/null", "w");

			mgb_report_print(null, doc);
			fclose(null);
			json_decref(cmp);
			json_decref(doc);
		}
		n++;
	}
	if (d)
		closedir(d);
	T_CHECK(n > 0, "the corpus has files");
	fprintf(stderr, "%u corpus files read without a crash\n", n);
}

int main(void)
{
	char err[MGB_ERR_LEN], path[700];
	json_t *doc;
	int fd;

	snprintf(dir, sizeof(dir), "%s", t_result_path("x"));
	*strrchr(dir, '/') = '\0';

	doc = mgb_doc_read(write_case("good.json", GOOD), err);
	T_CHECK(doc != NULL, "a good document is read: %s", err);
	json_decref(doc);
	/* a later minor version of the same major: unknown keys are ignored */
	doc = mgb_doc_read(write_case("newer-minor.json",
				      "{\"schema\":\"mgbench/1\",\"future_key\":[1,2],\"cells\":[" GOOD_CELL "]}"),
			   err);
	T_CHECK(doc != NULL, "unknown keys are ignored: %s", err);
	json_decref(doc);
	/* the old string form and the object form of the backend */
	doc = mgb_doc_read(write_case("backend-object.json",
				      "{\"schema\":\"mgbench/1\",\"cells\":[{\"workload\":\"write\",\"fs\":\"tmpfs\","
				      "\"backend\":{\"name\":\"uring\",\"options\":{\"depth\":1}},\"params\":{},"
				      "\"repeat\":0,\"status\":\"ok\",\"metrics\":null}]}"),
			   err);
	T_CHECK(doc && !strcmp(mgb_cell_backend(json_array_get(json_object_get(doc, "cells"), 0)), "uring"),
		"backend as an object: %s", err);
	json_decref(doc);

	refused_text("truncated.json", "{\"schema\":\"mgbench/1\",\"cells\":[{\"workload\":", "not JSON");
	refused_text("schema2.json", "{\"schema\":\"mgbench/2\",\"cells\":[" GOOD_CELL "]}", "newer mgbench");
	/* a schema is mgbench/ and a positive number, nothing else; a comparison says so */
	refused_text("minus.json", "{\"schema\":\"mgbench/-1\",\"cells\":[" GOOD_CELL "]}", "not an mgbench result document");
	refused_text("zero.json", "{\"schema\":\"mgbench/0\",\"cells\":[" GOOD_CELL "]}", "not an mgbench result document");
	refused_text("blank.json", "{\"schema\":\"mgbench/ 1\",\"cells\":[" GOOD_CELL "]}", "not an mgbench result document");
	refused_text("plus.json", "{\"schema\":\"mgbench/+1\",\"cells\":[" GOOD_CELL "]}", "not an mgbench result document");
	refused_text("compare.json", "{\"schema\":\"mgbench/1/compare\",\"cells\":[]}", "a comparison");
	refused_text("wrong-schema.json", "{\"schema\":\"fio/3\",\"cells\":[]}", "not an mgbench result document");
	refused_text("no-schema.json", "[1,2,3]", "not an mgbench result document");
	refused_text("no-cells.json", "{\"schema\":\"mgbench/1\"}", "\"cells\"");
	refused_text("empty-cells.json", "{\"schema\":\"mgbench/1\",\"cells\":[]}", "no cells");
	refused_text("cell-not-object.json", "{\"schema\":\"mgbench/1\",\"cells\":[42]}", "not an object");
	refused_text("missing-key.json",
		     "{\"schema\":\"mgbench/1\",\"cells\":[{\"workload\":\"write\",\"fs\":\"tmpfs\",\"backend\":\"sync\","
		     "\"repeat\":0,\"status\":\"ok\"}]}",
		     "\"params\"");
	refused_text("wrong-type.json",
		     "{\"schema\":\"mgbench/1\",\"cells\":[{\"workload\":7,\"fs\":\"tmpfs\",\"backend\":\"sync\","
		     "\"params\":{},\"repeat\":0,\"status\":\"ok\"}]}",
		     "wrong type");
	refused_text("bad-backend.json",
		     "{\"schema\":\"mgbench/1\",\"cells\":[{\"workload\":\"write\",\"fs\":\"tmpfs\",\"backend\":[],"
		     "\"params\":{},\"repeat\":0,\"status\":\"ok\"}]}",
		     "backend");
	refused_text("metrics-list.json",
		     "{\"schema\":\"mgbench/1\",\"cells\":[{\"workload\":\"write\",\"fs\":\"tmpfs\",\"backend\":\"sync\","
		     "\"params\":{},\"repeat\":0,\"status\":\"ok\",\"metrics\":[1]}]}",
		     "metrics");
	refused_text("huge.json", "{\"schema\":\"mgbench/1\",\"cells\":[],\"n\":123456789012345678901234567890}",
		     "not JSON");
	refused_text("nan.json", "{\"schema\":\"mgbench/1\",\"cells\":[],\"x\":NaN}", "not JSON");
	refused_text("infinity.json", "{\"schema\":\"mgbench/1\",\"cells\":[],\"x\":Infinity}", "not JSON");
	refused_text("duplicate-key.json", "{\"schema\":\"mgbench/1\",\"schema\":\"mgbench/1\",\"cells\":[]}",
		     "not JSON");
	refused_text("duplicate-cells.json", "{\"schema\":\"mgbench/1\",\"cells\":[" GOOD_CELL "," GOOD_CELL "]}",
		     "repeats an earlier cell");
	refused_text("empty.json", "", "empty");
	refused(dir, "not a regular file");
	refused("/dev/null", "not a regular file");
	refused("/nonexistent/doc.json", "No such file");
	snprintf(path, sizeof(path), "%s/fifo", dir);
	T_CHECK(mkfifo(path, 0600) == 0, "mkfifo");
	refused(path, "not a regular file"); /* and returns at once: nobody writes to it */
	/* a 1 GB file (sparse): refused by its size, not read */
	snprintf(path, sizeof(path), "%s/huge-file.json", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	T_CHECK(fd >= 0 && ftruncate(fd, 1L << 30) == 0, "sparse 1 GB file");
	close(fd);
	refused(path, "too large");
	/* 33 MiB is refused too (a crafted 136 MB document took 4 GB to report) */
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	T_CHECK(fd >= 0 && ftruncate(fd, 33L << 20) == 0, "sparse 33 MiB file");
	close(fd);
	refused(path, "too large");

	corpus();
	t_cleanup();
	return t_result();
}
