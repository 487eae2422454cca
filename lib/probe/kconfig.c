/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The running kernel's build configuration, for the options that change what mgbench measures
 * (HZ, high-resolution timers, the preemption model) and for tests that need an option.  Read
 * from /boot/config-$(uname -r), as Debian installs it, else from /proc/config.gz
 * (CONFIG_IKCONFIG_PROC) through gzip: a kernel that offers neither leaves it unknown.
 */
#include "config.h"
#include "json_text.h"
#include "probe.h"
#include "proc.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

/* A distribution's config is about 300 KiB; more than this is not a config. */
#define KCONFIG_MAX (4u << 20)

static int read_fd(int fd, struct mgb_kconfig *kc)
{
	size_t cap = 1 << 16;

	kc->text = malloc(cap);
	kc->len = 0;
	if (!kc->text)
		return -1;
	for (;;) {
		ssize_t n;

		if (kc->len + 1 == cap) {
			char *bigger = cap < KCONFIG_MAX ? realloc(kc->text, cap * 2) : NULL;

			if (!bigger)
				return -1;
			kc->text = bigger;
			cap *= 2;
		}
		n = read(fd, kc->text + kc->len, cap - 1 - kc->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		kc->len += (size_t)n;
	}
	kc->text[kc->len] = '\0';
	return 0;
}

static int read_gzipped(const char *path, struct mgb_kconfig *kc)
{
	static const char *const argv[] = { "gzip", "-dc", NULL };
	int in = open(path, O_RDONLY | O_CLOEXEC), status = 0, rc = -1;
	char err[MGB_ERR_LEN];
	struct mgb_proc p;
	struct mgb_proc_spec spec = { .argv = argv, .path_search = true, .in = MGB_PROC_FD, .in_fd = in,
				      .out = MGB_PROC_PIPE };

	if (in < 0)
		return -1;
	if (mgb_proc_start(&spec, &p, err) == 0) {
		rc = read_fd(p.out, kc);
		close(p.out);
		if (mgb_proc_wait(p.pid, &status, err) || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
			rc = -1;
	}
	close(in);
	return rc;
}

int mgb_kconfig_load(struct mgb_kconfig *kc)
{
	struct utsname u;
	int fd;

	memset(kc, 0, sizeof(*kc));
	if (uname(&u) == 0) {
		snprintf(kc->source, sizeof(kc->source), "/boot/config-%s", u.release);
		fd = open(kc->source, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd >= 0) {
			int rc = read_fd(fd, kc);

			close(fd);
			if (rc == 0)
				return 0;
			mgb_kconfig_free(kc);
		}
	}
	snprintf(kc->source, sizeof(kc->source), "/proc/config.gz");
	if (read_gzipped(kc->source, kc) == 0 && kc->len > 0)
		return 0;
	mgb_kconfig_free(kc);
	return -1;
}

void mgb_kconfig_free(struct mgb_kconfig *kc)
{
	free(kc->text);
	memset(kc, 0, sizeof(*kc));
}

const char *mgb_kconfig_value(const struct mgb_kconfig *kc, const char *name, char *buf, size_t len)
{
	size_t nlen = strlen(name);

	for (const char *line = kc->text; line && *line;) {
		const char *end = strchr(line, '\n');
		size_t llen = end ? (size_t)(end - line) : strlen(line);

		/* "CONFIG_HZ=250"; "# CONFIG_X is not set" and absent lines are both unset */
		if (llen > nlen && !strncmp(line, name, nlen) && line[nlen] == '=') {
			size_t vlen = llen - nlen - 1;
			const char *v = line + nlen + 1;

			if (vlen >= 2 && v[0] == '"' && v[vlen - 1] == '"') {
				v++;
				vlen -= 2;
			}
			if (vlen >= len)
				vlen = len - 1;
			memcpy(buf, v, vlen);
			buf[vlen] = '\0';
			return buf;
		}
		line = end ? end + 1 : NULL;
	}
	return NULL;
}

bool mgb_kconfig_enabled(const struct mgb_kconfig *kc, const char *name)
{
	char v[8];

	return mgb_kconfig_value(kc, name, v, sizeof(v)) && (!strcmp(v, "y") || !strcmp(v, "m"));
}

const char *const mgb_kconfig_recorded[] = {
	"CONFIG_HZ", "CONFIG_HZ_PERIODIC", "CONFIG_NO_HZ_IDLE", "CONFIG_NO_HZ_FULL", "CONFIG_HIGH_RES_TIMERS",
	"CONFIG_KVM_GUEST", "CONFIG_PARAVIRT_CLOCK", "CONFIG_PREEMPT_NONE", "CONFIG_PREEMPT_VOLUNTARY",
	"CONFIG_PREEMPT", "CONFIG_PREEMPT_DYNAMIC", "CONFIG_CC_OPTIMIZE_FOR_PERFORMANCE",
	"CONFIG_CC_OPTIMIZE_FOR_SIZE", NULL,
};

/* A preempt= word on the kernel's command line ("preempt=full"): what PREEMPT_DYNAMIC took at
 * boot when debugfs cannot say. */
static bool preempt_from_cmdline(char *buf, size_t len)
{
	char line[4096] = "";
	FILE *f = fopen("/proc/cmdline", "re");
	bool found = false;

	if (f && !fgets(line, sizeof(line), f))
		line[0] = '\0';
	if (f)
		fclose(f);
	for (char *save = NULL, *w = strtok_r(line, " \n", &save); w; w = strtok_r(NULL, " \n", &save)) {
		if (!strcmp(w, "--"))
			break; /* what follows is init's */
		if (!strncmp(w, "preempt=", 8) && w[8]) {
			snprintf(buf, len, "%s", w + 8);
			found = true;
		}
	}
	return found;
}

/* The preemption model in effect, and how it is known.  With PREEMPT_DYNAMIC the model is chosen
 * at boot: debugfs's "none (voluntary) full" names it; else a preempt= on the command line;
 * else the config's default (the PREEMPT_* choice the kernel was built with).  Not every
 * PREEMPT_DYNAMIC kernel is alike: "none" and "full" schedule a busy loop differently. */
static void preempt_in_effect(const struct mgb_kconfig *kc, json_t **mode, json_t **from)
{
	char line[128] = "", *open, *close, v[64];
	FILE *f = fopen("/sys/kernel/debug/sched/preempt", "re");

	*mode = json_null();
	*from = json_null();
	if (f && !fgets(line, sizeof(line), f))
		line[0] = '\0';
	if (f)
		fclose(f);
	if ((open = strchr(line, '(')) && (close = strchr(open, ')'))) {
		*close = '\0';
		*mode = mgb_json_text(open + 1);
		*from = json_string("debugfs");
	} else if (preempt_from_cmdline(line, sizeof(line))) {
		*mode = mgb_json_text(line);
		*from = json_string("cmdline");
	} else if (kc) {
		static const char *const models[][2] = { { "CONFIG_PREEMPT_RT", "rt" }, { "CONFIG_PREEMPT_LAZY", "lazy" },
							  { "CONFIG_PREEMPT", "full" }, { "CONFIG_PREEMPT_VOLUNTARY", "voluntary" },
							  { "CONFIG_PREEMPT_NONE", "none" } };

		for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
			if (mgb_kconfig_value(kc, models[i][0], v, sizeof(v)) && !strcmp(v, "y")) {
				*mode = json_string(models[i][1]);
				*from = json_string("config default");
				break;
			}
	}
}

json_t *mgb_kconfig_json(void)
{
	struct mgb_kconfig kc;
	json_t *opts;
	char v[64];

	json_t *mode, *from;

	if (mgb_kconfig_load(&kc)) {
		preempt_in_effect(NULL, &mode, &from);
		return MGB_JSON_PACK("{s:n, s:s, s:o, s:o}", "file", "reason",
				     "neither /boot/config-$(uname -r) nor /proc/config.gz", "preempt", mode,
				     "preempt_from", from);
	}
	opts = json_object();
	for (size_t i = 0; mgb_kconfig_recorded[i]; i++) {
		const char *val = mgb_kconfig_value(&kc, mgb_kconfig_recorded[i], v, sizeof(v));

		json_object_set_new(opts, mgb_kconfig_recorded[i], val ? mgb_json_text(val) : json_null());
	}
	preempt_in_effect(&kc, &mode, &from);
	json_t *out = MGB_JSON_PACK("{s:s, s:o, s:o, s:o}", "file", kc.source, "options", opts, "preempt", mode,
				    "preempt_from", from);
	mgb_kconfig_free(&kc);
	return out;
}
