/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit: number parsing and declarative workload options. */
#include "config.h"
#include "helpers.h"
#include "util.h"
#include "workload.h"

#include <string.h>

/* A choice option stores the index of its word, and is shown and recorded as the word. */
static void choice(void)
{
	static const char *const words[] = { "sleep", "spin", NULL };
	static const struct mgb_option opts[] = {
		{ .name = "wait", .type = MGB_OPT_CHOICE, .offset = 0, .defval = "spin", .help = "how",
		  .choices = words },
		{ 0 },
	};
	unsigned idx = 99;
	char err[MGB_ERR_LEN];
	json_t *j;

	T_CHECK(mgb_option_table_defaults(opts, &idx, sizeof(idx), err) == 0 && idx == 1, "choice default: %u", idx);
	T_CHECK(mgb_param_set(&opts[0], &idx, "sleep", err) == 0 && idx == 0, "choice set: %u", idx);
	T_CHECK(mgb_param_set(&opts[0], &idx, "nap", err) < 0 && idx == 0, "choice: a bad word refused");
	T_CHECK(!strcmp(err, "--wait 'nap': not one of the allowed values (see mgbench list)"), "choice error: %s",
		err);
	j = mgb_option_table_to_json(opts, &idx);
	T_CHECK(!strcmp(json_string_value(json_object_get(j, "wait")) ?: "", "sleep"), "choice recorded as its word");
	json_decref(j);
}

int main(void)
{
	uint64_t v;
	char err[MGB_ERR_LEN];
	const struct mgb_workload *w = mgb_workload_find("write");
	const struct mgb_option *size, *query;
	char params[256];
	json_t *j;

	T_CHECK(mgb_parse_u64("42", &v) == 0 && v == 42, "42");
	T_CHECK(mgb_parse_u64("-1", &v) < 0, "negative refused");
	T_CHECK(mgb_parse_u64("abc", &v) < 0, "non-numeric refused");
	T_CHECK(mgb_parse_u64("12x", &v) < 0, "trailing junk refused");
	T_CHECK(mgb_parse_u64("", &v) < 0, "empty refused");
	T_CHECK(mgb_parse_u64("99999999999999999999999", &v) < 0, "overflow refused");
	T_CHECK(mgb_parse_size("64k", &v) == 0 && v == 65536, "64k");
	T_CHECK(mgb_parse_size("1M", &v) == 0 && v == 1048576, "1M");
	T_CHECK(mgb_parse_size("k", &v) < 0, "bare suffix refused");

	T_CHECK(w != NULL, "write workload exists");
	if (!w)
		return t_result();
	T_CHECK(w->params_size <= sizeof(params), "params fit");
	T_CHECK(mgb_params_defaults(w, params, err) == 0, "defaults: %s", err);
	size = mgb_option_find(w, "size");
	query = mgb_option_find(w, "query");
	T_CHECK(size && query, "options found");
	if (!size || !query)
		return t_result();
	T_CHECK(MGB_PARAM(params, uint64_t, size) == 4096, "default size");
	T_CHECK(MGB_PARAM(params, uint64_t, query) == 1, "default query every = 1");
	T_CHECK(mgb_param_set(query, params, "none", err) == 0 && MGB_PARAM(params, uint64_t, query) == 0, "none");
	T_CHECK(mgb_param_set(query, params, "7", err) == 0 && MGB_PARAM(params, uint64_t, query) == 7, "7");
	T_CHECK(mgb_param_set(query, params, "-3", err) < 0, "negative query refused");
	T_CHECK(strstr(err, "--query") && strstr(err, "-3"), "error names option and value: %s", err);
	T_CHECK(mgb_param_set(size, params, "0", err) < 0, "zero size refused (min 1)");
	T_CHECK(mgb_param_set(size, params, "lots", err) < 0 && strstr(err, "--size"), "bad size: %s", err);

	mgb_param_set(query, params, "every", err);
	j = mgb_params_to_json(w, params);
	T_CHECK(!strcmp(json_string_value(json_object_get(j, "query")) ?: "", "every"), "word shown as word");
	T_CHECK(json_integer_value(json_object_get(j, "size")) == 4096, "size in json");
	json_decref(j);
	choice();
	return t_result();
}
