/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * JSON strings from text mgbench does not control (a hostname, the command line, an error that
 * quotes a path) and json_pack calls that cannot fail silently.  jansson refuses invalid UTF-8,
 * so such text is encoded first: each byte that is not part of valid UTF-8 becomes "\xNN".
 */
#ifndef MGB_JSON_TEXT_H
#define MGB_JSON_TEXT_H

#include <jansson.h>

/* A JSON string holding text, with invalid UTF-8 bytes written as \xNN; never NULL. */
json_t *mgb_json_text(const char *text);

/* json_pack that reports and aborts instead of returning NULL: its formats are ours, so a
 * failure is a bug (or no memory), and a NULL would silently drop a cell from the document. */
json_t *mgb_json_checked(json_t *j, const json_error_t *e, const char *file, int line);
#define MGB_JSON_PACK(...)                                                                    \
	({                                                                                    \
		json_error_t mgb_je_;                                                         \
		mgb_json_checked(json_pack_ex(&mgb_je_, 0, __VA_ARGS__), &mgb_je_, __FILE__, __LINE__); \
	})

#endif
