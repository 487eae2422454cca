/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Result documents read back and checked before anything uses them (see doc.h). */
#include "config.h"
#include "doc.h"
#include "json_text.h"
#include "result.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *mgb_cell_backend(json_t *cell)
{
	json_t *b = json_object_get(cell, "backend");

	return json_is_object(b) ? json_string_value(json_object_get(b, "name")) : json_string_value(b);
}

char *mgb_cell_key(json_t *cell, bool without_fs)
{
	json_t *b = json_object_get(cell, "backend"), *key;
	char *s;

	key = MGB_JSON_PACK("{s:O, s:O, s:O, s:O?, s:O}", "workload", json_object_get(cell, "workload"),
			    "fs", without_fs ? json_null() : json_object_get(cell, "fs"),
			    "backend", json_is_object(b) ? json_object_get(b, "name") : b,
			    "backend_options", json_is_object(b) ? json_object_get(b, "options") : NULL,
			    "params", json_object_get(cell, "params"));
	s = json_dumps(key, JSON_SORT_KEYS | JSON_COMPACT);
	json_decref(key);
	return s;
}

/* Each cell has what compare, report and plot read, of the right type. */
static int check_cell(const char *name, json_t *cell, size_t i, char *err)
{
	static const struct {
		const char *key;
		json_type type;
	} need[] = {
		{ "workload", JSON_STRING }, { "fs", JSON_STRING }, { "params", JSON_OBJECT },
		{ "status", JSON_STRING }, { "repeat", JSON_INTEGER },
	};
	json_t *b = json_object_get(cell, "backend"), *m = json_object_get(cell, "metrics");

	if (!json_is_object(cell))
		return mgb_err(err, "%s: cells[%zu] is not an object", name, i);
	for (size_t k = 0; k < MGB_ARRAY_SIZE(need); k++) {
		json_t *v = json_object_get(cell, need[k].key);

		if (!v)
			return mgb_err(err, "%s: cells[%zu] has no \"%s\"", name, i, need[k].key);
		if (json_typeof(v) != need[k].type)
			return mgb_err(err, "%s: cells[%zu].%s has the wrong type", name, i, need[k].key);
	}
	if (json_integer_value(json_object_get(cell, "repeat")) < 0)
		return mgb_err(err, "%s: cells[%zu].repeat is negative", name, i);
	if (!json_is_string(b) && !(json_is_object(b) && json_is_string(json_object_get(b, "name"))))
		return mgb_err(err, "%s: cells[%zu].backend is neither a name nor {\"name\": ...}", name, i);
	if (m && !json_is_object(m) && !json_is_null(m))
		return mgb_err(err, "%s: cells[%zu].metrics is neither an object nor null", name, i);
	return 0;
}

/* Two cells with the same key and repeat index cannot be told apart. */
static int check_duplicates(const char *name, json_t *cells, char *err)
{
	json_t *seen = json_object();
	size_t i;
	json_t *cell;
	int r = 0;

	json_array_foreach(cells, i, cell) {
		char *key = mgb_cell_key(cell, false), *full;

		if (asprintf(&full, "%s#%lld", key, (long long)json_integer_value(json_object_get(cell, "repeat"))) < 0)
			abort();
		free(key);
		if (json_object_get(seen, full)) {
			r = mgb_err(err, "%s: cells[%zu] (%s on %s) repeats an earlier cell", name, i,
				    json_string_value(json_object_get(cell, "workload")),
				    json_string_value(json_object_get(cell, "fs")));
			free(full);
			break;
		}
		json_object_set_new(seen, full, json_true());
		free(full);
	}
	json_decref(seen);
	return r;
}

/* "mgbench/N": N a positive decimal without sign, blank or leading zero; *rest is what
 * follows it ("" for a result document, "/compare" for a comparison).  -1 if not so. */
static int schema_major(const char *s, unsigned *major, const char **rest)
{
	const char *p = s + strlen("mgbench/");
	unsigned long n = 0;

	if (strncmp(s, "mgbench/", strlen("mgbench/")) || *p < '1' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		n = n * 10 + (unsigned long)(*p - '0');
		if (n > 1000000)
			return -1;
	}
	*major = (unsigned)n;
	*rest = p;
	return 0;
}

json_t *mgb_doc_parse(const char *name, const char *data, size_t len, char *err)
{
	json_error_t je;
	json_t *doc, *cells, *schema;
	const char *s;
	size_t i;
	json_t *cell;
	unsigned major;
	const char *rest = NULL;

	doc = json_loadb(data, len, JSON_REJECT_DUPLICATES, &je);
	if (!doc) {
		mgb_err(err, "%s: not JSON (line %d: %s)", name, je.line, je.text);
		return NULL;
	}
	schema = json_object_get(doc, "schema");
	s = json_string_value(schema);
	if (json_is_object(doc) && s && !schema_major(s, &major, &rest) && !strcmp(rest, "/compare")) {
		mgb_err(err, "%s: a comparison (schema %s, from mgbench compare), not a result document", name, s);
		goto bad;
	}
	if (!json_is_object(doc) || !s || schema_major(s, &major, &rest) < 0 || *rest) {
		mgb_err(err, "%s: not an mgbench result document (no \"schema\": \"mgbench/N\")", name);
		goto bad;
	}
	if (major > 1) {
		mgb_err(err, "%s: written by a newer mgbench (schema %s); this one reads %s", name, s, MGB_SCHEMA);
		goto bad;
	}
	cells = json_object_get(doc, "cells");
	if (!json_is_array(cells)) {
		mgb_err(err, "%s: \"cells\" is missing or not a list", name);
		goto bad;
	}
	if (json_array_size(cells) == 0) {
		mgb_err(err, "%s: no cells", name);
		goto bad;
	}
	json_array_foreach(cells, i, cell)
		if (check_cell(name, cell, i, err) < 0)
			goto bad;
	if (check_duplicates(name, cells, err) < 0)
		goto bad;
	return doc;
bad:
	json_decref(doc);
	return NULL;
}

json_t *mgb_doc_read(const char *path, char *err)
{
	struct stat st;
	char *data;
	ssize_t got = 0;
	json_t *doc;
	/* O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused just below). */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		mgb_err(err, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		mgb_err(err, "%s: not a regular file", path);
		close(fd);
		return NULL;
	}
	if (st.st_size == 0 || st.st_size > MGB_DOC_MAX_BYTES) {
		mgb_err(err, "%s: %s (%lld bytes)", path,
			st.st_size ? "too large for a result document (mgbench writes a few KB a cell; at most 32 MiB)"
				   : "empty",
			(long long)st.st_size);
		close(fd);
		return NULL;
	}
	data = malloc((size_t)st.st_size);
	if (!data) {
		mgb_err(err, "%s: out of memory", path);
		close(fd);
		return NULL;
	}
	while (got < st.st_size) {
		ssize_t n = read(fd, data + got, (size_t)(st.st_size - got));

		if (n <= 0) {
			mgb_err(err, "%s: %s", path, n < 0 ? strerror(errno) : "shorter than its size (truncated?)");
			free(data);
			close(fd);
			return NULL;
		}
		got += n;
	}
	close(fd);
	doc = mgb_doc_parse(path, data, (size_t)got, err);
	free(data);
	return doc;
}
