/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit: the result document: atomic write, read back equal, rejection of non-documents. */
#include "config.h"
#include "doc.h"
#include "helpers.h"
#include "probe.h"
#include "result.h"
#include "util.h"

#include <errno.h>
#include <sched.h>
#include <sys/stat.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

/* a document that does not fit says "No space left on device", not "Invalid argument".  On a
 * 2 MiB tmpfs in a namespace of our own (root only): the reserve fits, the document does not. */
static void enospc_named(json_t *doc)
{
	const char *dir = t_result_path("small");
	char err[MGB_ERR_LEN], path[700];
	struct mgb_output out;
	json_t *big = json_deep_copy(doc);
	char *filler = malloc(4 << 20);

	if (geteuid() != 0 || unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		fprintf(stderr, "SKIP not root, or no namespace of our own: the disk-full case\n");
		free(filler);
		json_decref(big);
		return;
	}
	mkdir(dir, 0700);
	T_CHECK(mount("mgbench-unit", dir, "tmpfs", 0, "size=2m") == 0, "mount a 2 MiB tmpfs: %s", strerror(errno));
	memset(filler, 'x', 4 << 20);
	filler[(4 << 20) - 1] = '\0';
	json_object_set_new(big, "filler", json_string(filler)); /* 4 MiB: more than the filesystem */
	snprintf(path, sizeof(path), "%s/big.json", dir);
	T_CHECK(mgb_output_open(&out, path, err) == 0, "the reserve fits: %s", err);
	T_CHECK(mgb_output_commit(&out, big, err) < 0 && strstr(err, "No space left on device"),
		"the commit fails naming ENOSPC: %s", err);
	umount2(dir, MNT_DETACH);
	rmdir(dir);
	free(filler);
	json_decref(big);
}

int main(void)
{
	struct mgb_clockinfo ci;
	struct mgb_output out;
	char err[MGB_ERR_LEN], dir[600], path[600];
	char *argv[] = { "mgbench", "run", "write" };
	json_t *doc, *back, *cell;
	FILE *f;

	snprintf(path, sizeof(path), "%s", t_result_path("doc.json")); /* t_result_path reuses its buffer */
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	mgb_clock_probe(&ci);
	T_CHECK(ci.coarse_tick_ns > 0, "coarse tick measured: %lld", (long long)ci.coarse_tick_ns);
	doc = mgb_result_new(3, argv, &ci);
	T_CHECK(!strcmp(json_string_value(json_object_get(doc, "schema")), MGB_SCHEMA), "schema");
	/* the fields every cell has (mgb_doc_read checks them) */
	cell = json_pack("{s:s, s:s, s:s, s:{}, s:s, s:i, s:{s:f, s:{s:I}}}", "workload", "write", "fs", "ext4",
			 "backend", "sync", "params", "status", "ok", "repeat", 0, "metrics", "ops_per_s", 1234.5,
			 "ctime", "distinct", (json_int_t)42);
	json_array_append_new(json_object_get(doc, "cells"), cell);

	T_CHECK(mgb_output_open(&out, path, err) == 0, "open: %s", err);
	T_CHECK(access(path, F_OK) != 0, "nothing at the destination before commit");
	T_CHECK(t_count_files(dir, NULL) == 0, "the reserved file has no name yet: %u files", t_count_files(dir, NULL));
	T_CHECK(mgb_output_commit(&out, doc, err) == 0, "commit: %s", err);
	T_CHECK(t_count_files(dir, NULL) == 1, "only the document after commit: %u files", t_count_files(dir, NULL));

	back = mgb_doc_read(path, err);
	T_CHECK(back != NULL, "load: %s", err);
	T_CHECK(back && json_equal(doc, back), "round trip is equal");
	T_CHECK(back && json_real_value(mgb_json_path(json_array_get(json_object_get(back, "cells"), 0),
						      "metrics.ops_per_s")) == 1234.5, "path lookup");
	json_decref(back);

	/* An unwritable destination fails at open, before any work, and leaves nothing. */
	T_CHECK(mgb_output_open(&out, "/nonexistent-dir/x.json", err) < 0, "unwritable path refused");
	T_CHECK(strstr(err, "/nonexistent-dir/x.json") != NULL, "error names the path: %s", err);

	/* Abort leaves nothing behind. */
	T_CHECK(mgb_output_open(&out, t_result_path("aborted.json"), err) == 0, "open 2");
	mgb_output_abort(&out);
	T_CHECK(t_count_files(dir, NULL) == 1, "abort leaves nothing: %u files", t_count_files(dir, NULL));

	/* Committing over an existing document replaces it whole. */
	T_CHECK(mgb_output_open(&out, path, err) == 0, "open 3");
	T_CHECK(mgb_output_commit(&out, doc, err) == 0, "second commit: %s", err);
	T_CHECK(t_count_files(dir, NULL) == 1, "replaced in place: %u files", t_count_files(dir, NULL));

	/* Not a document: valid JSON without the schema, and invalid JSON. */
	f = fopen(t_result_path("other.json"), "w");
	fputs("{\"schema\": \"something/9\", \"cells\": []}", f);
	fclose(f);
	T_CHECK(mgb_doc_read(t_result_path("other.json"), err) == NULL, "foreign schema refused");
	f = fopen(t_result_path("broken.json"), "w");
	fputs("{\"schema\": ", f);
	fclose(f);
	T_CHECK(mgb_doc_read(t_result_path("broken.json"), err) == NULL, "broken JSON refused");

	T_RUN(enospc_named(doc));
	json_decref(doc);
	t_cleanup();
	return t_result();
}
