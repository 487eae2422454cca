/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"
#include "json_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s, or 0 if none starts there. */
static size_t utf8_seq_len(const unsigned char *s)
{
	size_t n;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates and values past U+10FFFF are not valid UTF-8 */
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

json_t *mgb_json_text(const char *text)
{
	const unsigned char *s = (const unsigned char *)(text ? text : "");
	size_t len = strlen((const char *)s);
	char *buf = malloc(len * 4 + 1), *o = buf;
	json_t *j;

	if (!buf)
		abort();
	while (*s) {
		size_t n = utf8_seq_len(s);

		if (n) {
			memcpy(o, s, n);
			o += n;
			s += n;
		} else {
			o += sprintf(o, "\\x%02X", *s++);
		}
	}
	*o = '\0';
	j = json_string(buf);
	free(buf);
	if (!j)
		abort(); /* only without memory: the text is valid UTF-8 now */
	return j;
}

json_t *mgb_json_checked(json_t *j, const json_error_t *e, const char *file, int line)
{
	if (!j) {
		fprintf(stderr, "mgbench: internal error: json_pack at %s:%d: %s\n", file, line, e->text);
		abort();
	}
	return j;
}
