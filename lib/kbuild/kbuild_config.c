/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel config: tinyconfig, then mgbench's fragment (lib/kbuild/kernel.config) and the user's,
 * then olddefconfig.  Kconfig silently drops an option whose dependencies are missing, so every
 * requested line is checked against the resulting .config; the last request for an option wins.
 */
#include "config.h"
#include "kbuild_internal.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest value and line handled: Kconfig strings (a command line) can be long. */
#define VAL_MAX 4096
#define LINE_MAX_ (VAL_MAX + 200)

static const char name_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_";

/* A line for an error message: bytes a terminal would act on shown as \xNN. */
static void escape(const char *in, size_t max, char *out, size_t olen)
{
	size_t o = 0;

	for (size_t i = 0; in[i] && in[i] != '\n' && i < max && o + 5 < olen; i++) {
		unsigned char c = (unsigned char)in[i];

		if (c < 0x20 || c >= 0x7f)
			o += (size_t)snprintf(out + o, olen - o, "\\x%02x", c);
		else
			out[o++] = (char)c;
	}
	out[o] = '\0';
}

/* The value after CONFIG_X=: a quoted string whole, up to its closing quote (blanks included),
 * anything else up to the first blank.  Its length, or -1 if it does not fit vlen. */
static int option_value(const char *v, char *val, size_t vlen)
{
	size_t n;

	if (*v == '"') {
		for (n = 1; v[n] && v[n] != '"'; n++)
			if (v[n] == '\\' && v[n + 1])
				n++;
		if (v[n] == '"')
			n++;
	} else {
		n = strcspn(v, " \t");
	}
	if (n >= vlen)
		return -1;
	memcpy(val, v, n);
	val[n] = '\0';
	return (int)n;
}

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
		n = strspn(l + 2, name_chars);
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
	n = strspn(l, name_chars);
	if (strncmp(l, "CONFIG_", 7) || l[n] != '=' || n >= nlen || !l[n + 1] ||
	    option_value(l + n + 1, val, vlen) < 0)
		return -1;
	memcpy(name, l, n);
	name[n] = '\0';
	*unset = !strcmp(val, "n");
	return 1;
}

int mgb_kb_config_parse(const char *fragment, const char *what, char *err)
{
	char *dup = strdup(fragment), *save = NULL, name[128], val[VAL_MAX], shown[300];
	int lineno = 0, rc = 0;
	bool unset;

	if (!dup)
		return mgb_err(err, "out of memory");
	for (char *l = dup, *next; l && !rc; l = next) {
		next = strchr(l, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		if (option_line(l, name, sizeof(name), val, sizeof(val), &unset) < 0) {
			/* quoted only when it looks like a config line: a file that is no config at all
			 * (a link to /etc/shadow) is not echoed */
			bool config_like = !strncmp(l + strspn(l, " \t#"), "CONFIG_", 7);

			escape(l, 60, shown, sizeof(shown));
			rc = mgb_err(err, "%s line %d is not CONFIG_NAME=value or '# CONFIG_NAME is not set'%s%s", what,
				     lineno, config_like ? ": " : " (this is no config fragment)", config_like ? shown : "");
		}
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
	char n2[128], val[VAL_MAX];
	bool unset;

	for (const char *l = from; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char line[LINE_MAX_];

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
		char line[LINE_MAX_], name[128], val[VAL_MAX] = "", shown[2][200];
		const char *have, *next = strchr(l, '\n');
		size_t hl = 0;
		bool unset = false;

		lineno++;
		snprintf(line, sizeof(line), "%.*s", (int)strcspn(l, "\n"), l);
		if (option_line(line, name, sizeof(name), val, sizeof(val), &unset) != 1 ||
		    (next && requested_later(next + 1, name)) || (override && requested_later(override, name)))
			continue;
		have = config_has(config, name, &hl);
		escape(line, 80, shown[0], sizeof(shown[0]));
		escape(have ? have : "", hl < 80 ? hl : 80, shown[1], sizeof(shown[1]));
		if (unset) {
			if (have && !(have[0] == '#' || !strncmp(have + strlen(name), "=n", 2)))
				rc = mgb_err(err, "%s (%s line %d) did not stick: the config has %s", shown[0],
					     what, lineno, shown[1]);
			continue;
		}
		if (!have)
			rc = mgb_err(err, "%s (%s line %d) did not stick: the kernel has no such option, or "
				     "its dependencies are off", shown[0], what, lineno);
		else if (have[0] == '#' || hl != strlen(name) + 1 + strlen(val) ||
			 strncmp(have + strlen(name) + 1, val, strlen(val)))
			rc = mgb_err(err, "%s (%s line %d) did not stick: the config has %s", shown[0], what,
				     lineno, shown[1]);
	}
	free(config);
	return rc;
}

/* Does the Kconfig text declare sym ("config SYM" or "menuconfig SYM" on a line of its own)? */
static bool declares(const char *text, const char *sym)
{
	size_t n = strlen(sym);

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		l += strspn(l, " \t");
		if (!strncmp(l, "menuconfig", 10))
			l += 10;
		else if (!strncmp(l, "config", 6))
			l += 6;
		else
			continue;
		if ((*l == ' ' || *l == '\t') && (l += strspn(l, " \t"), !strncmp(l, sym, n)) &&
		    strchr(" \t\n", l[n] ? l[n] : '\n'))
			return true;
	}
	return false;
}

/* Is sym declared in a Kconfig* file under dir?  Symbolic links are not followed. */
static bool declared_under(const char *dir, const char *sym)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool found = false;

	while (d && !found && (e = readdir(d))) {
		char p[4096];

		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (e->d_type == DT_DIR) {
			found = declared_under(p, sym);
		} else if (e->d_type == DT_REG && !strncmp(e->d_name, "Kconfig", 7)) {
			FILE *f = fopen(p, "r");
			char *text = NULL;
			size_t cap = 0;

			if (f && getdelim(&text, &cap, '\0', f) > 0)
				found = declares(text, sym);
			free(text);
			if (f)
				fclose(f);
		}
	}
	if (d)
		closedir(d);
	return found;
}

int mgb_kb_config_known(const char *tree, const char *config_path, const char *fragment, const char *what,
			char *err)
{
	FILE *f = fopen(config_path, "r");
	char *config = NULL;
	size_t cap = 0;
	int lineno = 0, rc = 0;

	if (!f || getdelim(&config, &cap, '\0', f) < 0) {
		if (f)
			fclose(f);
		free(config);
		return mgb_err(err, "cannot read %s", config_path);
	}
	fclose(f);
	for (const char *l = fragment; l && *l && !rc; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char line[LINE_MAX_], name[128], val[VAL_MAX];
		size_t hl;
		bool unset = false;

		lineno++;
		snprintf(line, sizeof(line), "%.*s", (int)strcspn(l, "\n"), l);
		/* only an unset option absent from the config is in doubt: absent also when its
		 * dependencies are off, which is what was asked */
		if (option_line(line, name, sizeof(name), val, sizeof(val), &unset) != 1 || !unset ||
		    config_has(config, name, &hl) || declared_under(tree, name + 7))
			continue;
		rc = mgb_err(err, "# %s is not set (%s line %d): the kernel has no such option", name, what,
			     lineno);
	}
	free(config);
	return rc;
}
