/*
 * The kernel config: tinyconfig, then mgbench's fragment (lib/vm/kernel.config) and the user's,
 * then olddefconfig.  Kconfig silently drops an option whose dependencies are missing, so every
 * requested line is checked against the resulting .config; the last request for an option wins.
 */
#include "config.h"
#include "kbuild.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One option line: name (CONFIG_X) and value ("y", "m", "\"str\"", or NULL for not set).
 * 1 if it is one, 0 for a comment or blank, -1 for anything else. */
static int option_line(const char *l, char *name, size_t nlen, char *val, size_t vlen, bool *unset)
{
	size_t n;

	while (*l == ' ' || *l == '\t')
		l++;
	if (!*l)
		return 0;
	if (!strncmp(l, "# CONFIG_", 9)) {
		n = strspn(l + 2, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
		if (!strcmp(l + 2 + n, " is not set") && n < nlen) {
			memcpy(name, l + 2, n);
			name[n] = '\0';
			*unset = true;
			return 1;
		}
		return 0;
	}
	if (*l == '#')
		return 0;
	n = strspn(l, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
	if (strncmp(l, "CONFIG_", 7) || l[n] != '=' || n >= nlen || !l[n + 1])
		return -1;
	memcpy(name, l, n);
	name[n] = '\0';
	snprintf(val, vlen, "%s", l + n + 1);
	val[strcspn(val, " \t")] = '\0';
	*unset = !strcmp(val, "n");
	return 1;
}

int mgb_kb_config_parse(const char *fragment, const char *what, char *err)
{
	char *dup = strdup(fragment), *save = NULL, name[128], val[256];
	int lineno = 0, rc = 0;
	bool unset;

	if (!dup)
		return mgb_err(err, "out of memory");
	for (char *l = dup, *next; l && !rc; l = next) {
		next = strchr(l, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		if (option_line(l, name, sizeof(name), val, sizeof(val), &unset) < 0)
			rc = mgb_err(err, "%s line %d is not CONFIG_NAME=value or '# CONFIG_NAME is not set': %.60s",
				     what, lineno, l);
	}
	(void)save;
	free(dup);
	return rc;
}

/* The .config's line for name (CONFIG_X=v or "# CONFIG_X is not set"), or NULL. */
static const char *config_has(const char *config, const char *name, size_t *len)
{
	size_t n = strlen(name);

	for (const char *l = config; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *o = l[0] == '#' && l[1] == ' ' ? l + 2 : l;

		if (!strncmp(o, name, n) && (o[n] == '=' || !strncmp(o + n, " is not set", 11))) {
			*len = strcspn(l, "\n");
			return l;
		}
	}
	return NULL;
}

/* Is name requested again in text after position from? */
static bool requested_later(const char *from, const char *name)
{
	char n2[128], val[256];
	bool unset;

	for (const char *l = from; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char line[512];

		snprintf(line, sizeof(line), "%.*s", (int)strcspn(l, "\n"), l);
		if (option_line(line, n2, sizeof(n2), val, sizeof(val), &unset) == 1 && !strcmp(n2, name))
			return true;
	}
	return false;
}

int mgb_kb_config_verify(const char *config_path, const char *fragment, const char *what,
			 const char *override, char *err)
{
	FILE *f = fopen(config_path, "r");
	char *config = NULL;
	size_t cap = 0;
	int lineno = 0, rc = 0;

	if (!f)
		return mgb_err(err, "cannot read %s: %s", config_path, strerror(errno));
	if (getdelim(&config, &cap, '\0', f) < 0) {
		fclose(f);
		free(config);
		return mgb_err(err, "cannot read %s", config_path);
	}
	fclose(f);
	for (const char *l = fragment; l && *l && !rc; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char line[512], name[128], val[256] = "";
		const char *have, *next = strchr(l, '\n');
		size_t hl = 0;
		bool unset = false;

		lineno++;
		snprintf(line, sizeof(line), "%.*s", (int)strcspn(l, "\n"), l);
		if (option_line(line, name, sizeof(name), val, sizeof(val), &unset) != 1 ||
		    (next && requested_later(next + 1, name)) || (override && requested_later(override, name)))
			continue;
		have = config_has(config, name, &hl);
		if (unset) {
			if (have && !(have[0] == '#' || !strncmp(have + strlen(name), "=n", 2)))
				rc = mgb_err(err, "%s (%s line %d) did not stick: the config has %.*s", line,
					     what, lineno, (int)hl, have);
			continue;
		}
		if (!have)
			rc = mgb_err(err, "%s (%s line %d) did not stick: the kernel has no such option, or "
				     "its dependencies are off", line, what, lineno);
		else if (have[0] == '#' || hl != strlen(name) + 1 + strlen(val) ||
			 strncmp(have + strlen(name) + 1, val, strlen(val)))
			rc = mgb_err(err, "%s (%s line %d) did not stick: the config has %.*s", line, what,
				     lineno, (int)hl, have);
	}
	free(config);
	return rc;
}
