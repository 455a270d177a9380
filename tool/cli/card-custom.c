// SPDX-License-Identifier: MIT
/*
 * customize's settings per card (write): those the command line gives every
 * card, then the cells of the card's --each row whose column is named after
 * an option ("hostname", "static-ip", "ssh-host-keys", ...).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "text/json.h"

void cli_custom_args_add(struct cli_custom_args *a, const char *name, const char *value)
{
	a->names = cli_grow(a->names, a->n, sizeof(*a->names));
	a->values = cli_grow(a->values, a->n, sizeof(*a->values));
	a->names[a->n] = name;
	a->values[a->n++] = value;
}

void cli_custom_args_free(struct cli_custom_args *a)
{
	free(a->names);
	free(a->values);
}

const char *cli_each_custom(const char *column)
{
	for (size_t i = 0; imgp_custom_option(i); i++)
		if (!strcasecmp(imgp_custom_option(i), column))
			return imgp_custom_option(i);
	return NULL;
}

/*
 * The option column c of the table gives, or NULL: a column a recipe of
 * the run declares as a parameter is the recipe's (the hostname recipe's
 * "hostname"), as it was before customize had options.
 */
static const char *column_option(const struct cli_custom_args *a, const struct cli_each *each,
				 size_t c)
{
	const char *name = imgp_csv_cell(each->table, 0, c);

	if (cli_each_ignored(each, c))
		return NULL;
	for (size_t k = 0; k < a->nrecipes; k++)
		if (cli_each_param(a->recipes[k], name))
			return NULL;
	return cli_each_custom(name);
}

bool cli_custom_any(const struct cli_custom_args *a, const struct cli_each *each)
{
	size_t ncols = each && each->table ? imgp_csv_ncols(each->table) : 0;

	for (size_t c = 1; c < ncols; c++)
		if (column_option(a, each, c))
			return true;
	return a->n > 0;
}

/* Whether the row has a non-empty cell in a column naming option name. */
static bool row_has(const struct cli_custom_args *a, const struct cli_each *each, size_t row,
		    const char *name)
{
	size_t ncols = row ? imgp_csv_ncols(each->table) : 0;

	for (size_t c = 1; c < ncols; c++) {
		const char *opt = column_option(a, each, c);

		if (opt && !strcmp(opt, name) && *imgp_csv_cell(each->table, row, c))
			return true;
	}
	return false;
}

int cli_custom_for(const struct cli_custom_args *a, const struct cli_each *each,
		   const char *target, struct imgp_custom **out)
{
	size_t row = each && each->table ? cli_each_row(each, target) : 0;
	size_t ncols = row ? imgp_csv_ncols(each->table) : 0;
	int rc = imgp_custom_new(out);

	/* A card's own cell replaces what the command line gives every card. */
	for (size_t i = 0; !rc && i < a->n; i++)
		if (!row_has(a, each, row, a->names[i]))
			rc = imgp_custom_add(*out, a->names[i], a->values[i]);
	for (size_t c = 1; !rc && c < ncols; c++) {
		const char *name = column_option(a, each, c);
		const char *value = imgp_csv_cell(each->table, row, c);

		if (name && *value)
			rc = imgp_custom_add(*out, name, value);
	}
	if (rc) {
		imgp_custom_free(*out);
		*out = NULL;
	}
	return rc;
}

void cli_json_custom_facts(struct imgp_json *j, const char *facts)
{
	const char *m = strstr(facts, "machine-id\t");

	imgp_json_key_(j, "ssh_host_keys");
	imgp_json_array_begin_(j);
	for (const char *line = facts; *line;) {
		size_t n = strcspn(line, "\n");

		if (strncmp(line, "ssh-host-key\t", 13) == 0) {
			const char *v = line + 13, *sp = memchr(v, ' ', (size_t)(line + n - v));

			imgp_json_object_begin_(j);
			imgp_json_key_(j, "type");
			imgp_json_string_len_(j, v, sp ? (size_t)(sp - v) : 0);
			imgp_json_key_(j, "fingerprint");
			imgp_json_string_len_(j, sp ? sp + 1 : v, sp ? (size_t)(line + n - sp - 1) : 0);
			imgp_json_object_end_(j);
		}
		line += n + (line[n] == '\n');
	}
	imgp_json_array_end_(j);
	imgp_json_key_(j, "machine_id");
	if (m)
		imgp_json_string_len_(j, m + 11, strcspn(m + 11, "\n"));
	else
		imgp_json_null_(j);
}

void cli_print_custom_facts(const char *prefix, const char *facts)
{
	for (const char *line = facts; *line;) {
		size_t n = strcspn(line, "\n");
		const char *tab = memchr(line, '\t', n);

		if (tab)
			printf("%s%.*s: %.*s\n", prefix, (int)(tab - line), line,
			       (int)(line + n - tab - 1), tab + 1);
		line += n + (line[n] == '\n');
	}
}
