/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Integration: the progress line.  On a terminal (script(1) provides one) a run longer than a
 * second shows "write on tmpfs: N/M (P%)" on stderr; without a terminal, or with -q, nothing.
 */
#include "config.h"
#include "helpers.h"

#include <stdio.h>
#include <string.h>

static char *run_in_terminal(const char *mgbench_args)
{
	const char *bin = getenv("MGBENCH") ?: "./mgbench";
	char cmd[1024], *text = NULL;
	size_t len = 0;
	FILE *p, *mem;
	int c;

	snprintf(cmd, sizeof(cmd), "script -qec '%s %s' /dev/null 2>&1", bin, mgbench_args);
	p = popen(cmd, "r");
	if (!p)
		return strdup("");
	mem = open_memstream(&text, &len);
	while ((c = fgetc(p)) != EOF)
		fputc(c, mem);
	pclose(p);
	fclose(mem);
	return text;
}

int main(void)
{
	static const char *const programs[] = { "script", NULL };
	char args[600], *text;
	const char *path;
	struct t_output o;

	t_require(&(struct t_needs){ .root = true, .programs = programs, .slow = true });
	path = t_result_path("progress.json");
	/* about 3 s of writes on tmpfs */
	snprintf(args, sizeof(args), "run write --fs tmpfs --rounds 1000000 -o %s", path);
	text = run_in_terminal(args);
	T_CHECK(strstr(text, "write on tmpfs: ") && strstr(text, "/1000000 ("), "progress line on a terminal:\n%s", text);
	T_CHECK(strstr(text, "distinct"), "and the table after it");
	free(text);

	snprintf(args, sizeof(args), "run write --fs tmpfs --rounds 1000000 -q -o %s", path);
	text = run_in_terminal(args);
	T_CHECK(!strstr(text, "write on tmpfs: "), "-q: no progress line:\n%s", text);
	free(text);

	{
		const char *const plain[] = { "run", "write", "--fs", "tmpfs", "--rounds", "1000000", "-o", path, NULL };

		t_mgbench(&o, plain);
		T_CHECK(o.status == 0 && !strstr(o.err, "write on tmpfs: "), "no terminal: no progress line: %s", o.err);
		t_output_free(&o);
	}
	t_cleanup();
	return t_result();
}
