/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit: the fio JSON reader on what fio writes and on what it must refuse.  fio puts warnings
 * above its JSON on some errors; text that is not fio's JSON is refused with a clear message.
 */
#include "config.h"
#include "fio.h"
#include "helpers.h"
#include "util.h"

#include <math.h>
#include <string.h>

/* A trimmed fio-3.33 --output-format=json document: the keys the reader uses. */
#define FIO_DOC                                                                                \
	"{\n  \"fio version\" : \"fio-3.33\",\n  \"jobs\" : [\n    {\n      \"jobname\" : \"cost\",\n" \
	"      \"error\" : 0,\n      \"usr_cpu\" : 21.5,\n      \"sys_cpu\" : 70.25,\n"                 \
	"      \"write\" : {\n        \"total_ios\" : 20000,\n"                                          \
	"        \"iops\" : 357142.857143,\n        \"runtime\" : 56,\n        \"clat_ns\" : {\n"      \
	"          \"mean\" : 2148.5,\n          \"percentile\" : {\n            \"50.000000\" : 1352,\n" \
	"            \"90.000000\" : 1800,\n            \"99.000000\" : 4704,\n"                      \
	"            \"99.900000\" : 58112\n          }\n        }\n      }\n    }\n  ]\n}\n"

static int parse(const char *text, struct mgb_fio_result *r, char *err)
{
	*err = 0;
	return mgb_fio_parse(text, text ? strlen(text) : 0, r, err);
}

static void refused(const char *text, const char *want, const char *what)
{
	struct mgb_fio_result r;
	char err[MGB_ERR_LEN];
	int rc = parse(text, &r, err);

	T_CHECK(rc < 0, "%s: accepted", what);
	T_CHECK(rc >= 0 || strstr(err, want), "%s: error \"%s\" does not say \"%s\"", what, err, want);
	T_CHECK(rc >= 0 || (!strchr(err, '\n') && strlen(err) > 10), "%s: not a one-line message: \"%s\"", what, err);
	if (rc == 0)
		mgb_fio_result_free(&r);
}

int main(void)
{
	struct mgb_fio_result r;
	char err[MGB_ERR_LEN];

	T_CHECK(parse(FIO_DOC, &r, err) == 0, "plain document: %s", err);
	T_CHECK(r.write_ios == 20000 && fabs(r.write_iops - 357142.857143) < 1e-6, "ios %llu iops %g",
		(unsigned long long)r.write_ios, r.write_iops);
	T_CHECK(r.runtime_ns == 56000000, "runtime %lld ns", (long long)r.runtime_ns);
	T_CHECK(r.clat_mean_ns == 2148.5 && r.clat_p50_ns == 1352 && r.clat_p99_9_ns == 58112, "clat mean %g p50 %g p99.9 %g",
		r.clat_mean_ns, r.clat_p50_ns, r.clat_p99_9_ns);
	T_CHECK(!strcmp(r.version, "fio-3.33") && !r.preamble, "version %s, no warnings", r.version);
	T_CHECK(fabs(r.cpu_ratio - 0.9175) < 1e-9, "the job's CPU share: %g", r.cpu_ratio);
	mgb_fio_result_free(&r);

	/* Warnings above the JSON, one of them holding braces (not at the line's start), one below */
	T_CHECK(parse("note: both iodepth >= 1 and synchronous I/O engine are selected, queue depth will be capped "
		      "at 1\nfio: option {x} ignored\n" FIO_DOC "fio: file hash not empty on exit\n",
		      &r, err) == 0,
		"warnings around the JSON: %s", err);
	T_CHECK(r.write_ios == 20000, "warnings: ios %llu", (unsigned long long)r.write_ios);
	T_CHECK(r.preamble && strstr(r.preamble, "queue depth") && strstr(r.preamble, "hash not empty"),
		"warnings kept: %s", r.preamble ? r.preamble : "(none)");
	mgb_fio_result_free(&r);
	/* A warning line that itself begins with '{' is skipped for the document after it */
	T_CHECK(parse("{warning: not json}\n" FIO_DOC, &r, err) == 0, "a '{' warning line: %s", err);
	T_CHECK(r.preamble && strstr(r.preamble, "{warning"), "the '{' line kept as a warning");
	mgb_fio_result_free(&r);
	/* fio's percentiles may be missing (percentile_list, clat_percentiles=0): NAN, not 0 */
	T_CHECK(parse("{\"fio version\":\"fio-3.33\",\"jobs\":[{\"jobname\":\"j\",\"error\":0,\"write\":{\"total_ios\":5,"
		      "\"iops\":5.0,\"runtime\":1000,\"clat_ns\":{\"mean\":3}}}]}",
		      &r, err) == 0 &&
			isnan(r.clat_p50_ns),
		"no percentiles: %s", err);
	mgb_fio_result_free(&r);

	T_RUN(refused(NULL, "empty", "no text"));
	T_RUN(refused("", "empty", "empty text"));
	T_RUN(refused(" \n\n", "empty", "blank text"));
	refused("fio: failed parsing ioengine=nosuch\nfio: job global dropped\n", "not JSON",
		"fio's error text only");
	T_RUN(refused("Run status group 0 (all jobs):\n  WRITE: bw=1MiB/s\n", "not JSON", "normal (text) output"));
	refused("warning\n{\n  \"fio version\" : \"fio-3.33\",\n  \"jobs\" : [\n", "(line 5)",
		"truncated JSON, its line counted from the top");
	T_RUN(refused("[1, 2]\n", "not JSON", "an array, on a line fio's JSON never starts"));
	T_RUN(refused("{\"jobs\": []}\n", "no \"fio version\"", "JSON that is not fio's"));
	T_RUN(refused("{\"fio version\":\"fio-3.33\",\"jobs\":[]}", "no job", "no jobs"));
	refused("{\"fio version\":\"fio-3.33\",\"jobs\":[{\"jobname\":\"cost\",\"error\":28}]}", "error 28",
		"a job that failed (ENOSPC)");
	refused("{\"fio version\":\"fio-3.33\",\"jobs\":[{\"jobname\":\"cost\",\"error\":0,\"read\":{}}]}", "lacks write",
		"a job without writes");
	refused("{\"fio version\":\"fio-3.33\",\"jobs\":[{\"jobname\":\"c\",\"error\":0,\"write\":{\"total_ios\":\"5\","
		"\"iops\":5.0,\"runtime\":1,\"clat_ns\":{\"mean\":3}}}]}",
		"lacks write", "a count as a string");
	/* A path for filename=: fio splits at ':' unless escaped; a newline would end the line */
	{
		char env[64];

		T_CHECK(mgb_fio_filename_env("MGB_FILE", "/a:b/c:d.dat", env, sizeof(env), err) == 0 &&
				!strcmp(env, "MGB_FILE=/a\\:b/c\\:d.dat"),
			"colons escaped for fio: %s", env);
		T_CHECK(mgb_fio_filename_env("MGB_FILE", "/we ird/#x", env, sizeof(env), err) == 0 &&
				!strcmp(env, "MGB_FILE=/we ird/#x"),
			"other characters as they are: %s", env);
		T_CHECK(mgb_fio_filename_env("MGB_FILE", "/new\nline", env, sizeof(env), err) < 0 &&
				strstr(err, "control characters"),
			"a newline refused: %s", err);
		T_CHECK(mgb_fio_filename_env("MGB_FILE", "/a:b:c:d:e:f:g:h:i:j:k:l:m:n:o:p:q:r:s:t:u:v:w", env, 40, err) < 0 &&
				strstr(err, "too long"),
			"too long for the buffer: %s", err);
	}
	/* Text after the document (fio's exit warnings) is kept, not parsed */
	T_CHECK(parse("{\"fio version\":\"fio-3.33\",\"jobs\":[{\"jobname\":\"c\",\"error\":0,\"write\":{\"total_ios\":5,"
		      "\"iops\":5.0,\"runtime\":1,\"clat_ns\":{\"mean\":3}}}]}\n{\"second\": 1}\n",
		      &r, err) == 0 &&
			r.preamble && strstr(r.preamble, "second"),
		"text after the document: %s", err);
	mgb_fio_result_free(&r);
	return t_result();
}
