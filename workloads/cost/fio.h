/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fio as a load generator: find a job file (workloads/cost/fio/MODE.fio), run fio on it with
 * --output-format=json --output=FILE and the job's parameters in its environment (the job files
 * say ${MGB_FILE}, ${MGB_BS} ...), and read what it measured from its JSON with jansson.
 */
#ifndef MGB_FIO_H
#define MGB_FIO_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* What one fio run measured: the first job's writes. */
struct mgb_fio_result {
	char version[32];     /* "fio-3.33" */
	uint64_t write_ios;   /* write.total_ios */
	double write_iops;    /* write.iops */
	int64_t runtime_ns;   /* write.runtime (ms) */
	double clat_mean_ns;  /* write.clat_ns.mean */
	double clat_p50_ns, clat_p90_ns, clat_p99_ns, clat_p99_9_ns; /* NAN when fio gave none */
	double cpu_ratio;     /* (usr_cpu + sys_cpu) / 100: the share of its run the job had a CPU; NAN if none */
	char *preamble;       /* text fio printed above its JSON (warnings), or NULL; free() it */
};

/*
 * Parse fio's --output-format=json output.  fio may print lines of warnings above the JSON: the
 * document starts at the first line that begins with '{'; anything after it must be blank.
 * 0 on success; -1 with a one-line message in err (MGB_ERR_LEN) when the text is not fio JSON,
 * names no job, or the job reports an error.
 */
int mgb_fio_parse(const char *text, size_t len, struct mgb_fio_result *r, char *err);
void mgb_fio_result_free(struct mgb_fio_result *r);

/*
 * Where job file name ("overwrite.fio") is: $MGBENCH_FIO_DIR if set, else the installed
 * $(pkgdatadir)/fio, else the source tree (an uninstalled build).  0, or -1 with err.
 */
int mgb_fio_job_path(const char *name, char *path, size_t len, char *err);

/*
 * "NAME=path" for a job file's filename=${NAME}: each ':' escaped as "\\:" (fio splits
 * filename= at colons), a control character (a newline ends the job file's line) refused.
 * 0, or -1 with err.
 */
int mgb_fio_filename_env(const char *name, const char *path, char *out, size_t len, char *err);

/*
 * Run fio on jobfile with env (NULL-terminated "NAME=value" strings added to ours), its JSON
 * written to a file in workdir, and parse it.  Stops fio (SIGTERM, then SIGKILL) when a stop is
 * requested.  0, or -1 with err (fio's own first error line when it failed).
 */
int mgb_fio_run(const char *fio, const char *jobfile, const char *const env[], const char *workdir,
		struct mgb_fio_result *r, char *err);

/* The result as the JSON a cell records: write_ios, write_iops, runtime_ns, cpu_ratio, write_clat_ns{...}. */
json_t *mgb_fio_result_json(const struct mgb_fio_result *r);

#endif
