/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The documentation agrees with the code, in the spirit of git's t0450: every option a
 * command's --help lists has an entry (a .TP tag) in its man page, and every option tagged in
 * the man page is in --help; every man page's .TH names this version of mgbench.  Needs no
 * root: it reads --help and the pages.
 */
#include "config.h"
#include "helpers.h"

#include <ctype.h>
#include <string.h>

#define MAX_OPTS 128

struct optset {
	char *name[MAX_OPTS];
	unsigned n;
};

static void add(struct optset *s, const char *p, size_t len)
{
	for (unsigned i = 0; i < s->n; i++)
		if (strlen(s->name[i]) == len && !strncmp(s->name[i], p, len))
			return;
	if (s->n < MAX_OPTS)
		s->name[s->n++] = strndup(p, len);
}

static bool has(const struct optset *s, const char *name)
{
	for (unsigned i = 0; i < s->n; i++)
		if (!strcmp(s->name[i], name))
			return true;
	return false;
}

static void free_set(struct optset *s)
{
	for (unsigned i = 0; i < s->n; i++)
		free(s->name[i]);
	s->n = 0;
}

static size_t option_len(const char *p)
{
	size_t n = 2;

	while (islower((unsigned char)p[n]) || isdigit((unsigned char)p[n]) || p[n] == '-')
		n++;
	return n > 2 ? n : 0;
}

/*
 * The options --help lists in its rows: a line indented 2 to 6 spaces that starts with
 * "--name" or "-x, --name" (deeper lines continue a description and may mention others).
 */
static void help_options(const char *text, struct optset *s)
{
	for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *p = line;
		size_t indent = 0, len;

		while (*p == ' ')
			p++, indent++;
		if (indent < 2 || indent > 6)
			continue;
		if (p[0] == '-' && p[1] != '-' && p[2] == ',' && p[3] == ' ')
			p += 4;
		if (p[0] == '-' && p[1] == '-' && (len = option_len(p)))
			add(s, p, len);
	}
}

/* The options a man page tags: the line after each .TP, with roff's \- read as -. */
static bool man_options(const char *path, struct optset *s, char *th, size_t thlen)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	bool tag = false;

	if (!f)
		return false;
	th[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		char plain[1024];
		size_t j = 0;

		if (!strncmp(line, ".TH ", 4))
			snprintf(th, thlen, "%s", line);
		if (!tag) {
			tag = !strncmp(line, ".TP", 3);
			continue;
		}
		tag = false;
		for (size_t i = 0; line[i] && j + 1 < sizeof(plain); i++)
			if (!(line[i] == '\\' && line[i + 1] == '-'))
				plain[j++] = line[i];
		plain[j] = '\0';
		for (char *p = plain; (p = strstr(p, "--")); p += 2) {
			size_t len = option_len(p);

			if (len && (p == plain || !isalnum((unsigned char)p[-1])))
				add(s, p, len);
		}
	}
	fclose(f);
	return true;
}

/* cmd's --help against its man page (mgbench-<cmd>.1 unless page names another); a command with
 * subcommands (kernel) has its options in the subcommand's --help, so sub names it. */
static void check_command(const char *src, const char *cmd, const char *sub, const char *page)
{
	const char *args[] = { cmd, sub ?: "--help", sub ? "--help" : NULL, NULL };
	struct optset help = { 0 }, man = { 0 };
	struct t_output o;
	char path[600], th[1024];

	t_mgbench(&o, args);
	T_CHECK(o.status == 0, "%s --help exits 0, got %d", cmd, o.status);
	help_options(o.out, &help);
	if (page)
		snprintf(path, sizeof(path), "%s/man/%s", src, page);
	else
		snprintf(path, sizeof(path), "%s/man/mgbench-%s.1", src, cmd);
	T_CHECK(man_options(path, &man, th, sizeof(th)), "%s is readable", path);
	for (unsigned i = 0; i < help.n; i++)
		T_CHECK(has(&man, help.name[i]), "%s --help lists %s; mgbench-%s.1 has no entry for it", cmd,
			help.name[i], cmd);
	for (unsigned i = 0; i < man.n; i++)
		T_CHECK(has(&help, man.name[i]), "mgbench-%s.1 has an entry for %s; %s --help does not list it", cmd,
			man.name[i], cmd);
	free_set(&help);
	free_set(&man);
	t_output_free(&o);
}

static void check_th(const char *src, const char *page)
{
	struct optset none = { 0 };
	char path[600], th[1024], want[64];

	snprintf(path, sizeof(path), "%s/man/%s", src, page);
	snprintf(want, sizeof(want), "\"mgbench %s\" \"mgbench Manual\"", PACKAGE_VERSION);
	T_CHECK(man_options(path, &none, th, sizeof(th)) && strstr(th, want), "%s: .TH names %s: %s", page, want, th);
	free_set(&none);
}

int main(void)
{
	const char *src = getenv("srcdir") ?: ".";
	const char *commands[][3] = { { "run" }, { "list" }, { "info" }, { "compare" }, { "report" }, { "plot" },
				      { "vm" }, { "ab" }, { "kernel", "build" }, { "kernel", "bisect", "mgbench-kernel-bisect.1" } };
	const char *pages[] = { "mgbench.1", "mgbench-run.1", "mgbench-list.1", "mgbench-info.1", "mgbench-compare.1",
				"mgbench-report.1", "mgbench-plot.1", "mgbench-vm.1", "mgbench-ab.1", "mgbench-kernel.1", "mgbench-kernel-bisect.1", "mgbench-json.5",
				"mgbench-workloads.7", "workloads.d/00-head.roff" };

	t_require(&(struct t_needs){ 0 }); /* no needs: the default time limit */

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		char label[200];

		snprintf(label, sizeof(label), "%s%s%s", commands[i][0], commands[i][1] ? " " : "", commands[i][1] ?: "");
		T_RUN_FOR(label, check_command(src, commands[i][0], commands[i][1], commands[i][2]));
	}
	for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++)
		T_RUN_FOR(pages[i], check_th(src, pages[i]));
	return t_result();
}
