// SPDX-License-Identifier: MIT
/*
 * --each FILE.csv: one row of recipe parameters per target (write) or
 * image (apply). The first column names the target or image, the others
 * are parameters; an empty cell leaves a parameter to --set or its default.
 * Column names are read as a spreadsheet user means them: without case
 * and surrounding spaces. Every mistake in it is a usage error naming
 * FILE:LINE. The names in the first column are files and cards: two rows
 * for one (t/d.img and t/./d.img) are refused, and a name on the command
 * line finds its row by what it resolves to as well as by its spelling.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

/*
 * Every cell the run uses is one line: the reader keeps a line break
 * inside quotes (a spreadsheet's note), which only a column left out
 * (--each-ignore) may hold. EXIT_USAGE after a message naming the line
 * the break is on.
 */
static int one_line_cells(const struct cli_each *e)
{
	for (size_t r = 0; r < imgp_csv_nrows(e->table); r++) {
		unsigned line = imgp_csv_line(e->table, r);

		for (size_t c = 0; c < imgp_csv_ncols(e->table); c++) {
			const char *cell = imgp_csv_cell(e->table, r, c);
			size_t len = strcspn(cell, "\r\n");

			if (cell[len] && (r == 0 || !cli_each_ignored(e, c))) {
				error("%s:%u: a line break in %s%s%s: a cell is one line of text",
				      e->path, line, r ? "column '" : "the header",
				      r ? imgp_csv_cell(e->table, 0, c) : "", r ? "'" : "");
				return EXIT_USAGE;
			}
			for (; *cell; cell++)
				line += *cell == '\n';
		}
	}
	return EXIT_OK;
}

int cli_each_read(struct cli_each *e, const char *path, const char *key,
		  const char *const *names, size_t n)
{
	struct imgp_buf text = { 0 };
	char chunk[4096];
	size_t got;
	FILE *f = fopen(path, "r");
	int rc = 0;

	const char *const *ignore = e->ignore;
	size_t nignore = e->nignore;
	unsigned line;

	memset(e, 0, sizeof(*e));
	e->path = path;
	e->ignore = ignore;
	e->nignore = nignore;
	if (!f) {
		error("%s: %s", path, strerror(errno));
		return EXIT_USAGE;
	}
	while (!rc && (got = fread(chunk, 1, sizeof(chunk), f)) > 0)
		rc = imgp_buf_append(&text, chunk, got) ? imgp_fail(ENOMEM, "out of memory") : 0;
	if (!rc && ferror(f))
		rc = imgp_fail(EIO, "read error");
	fclose(f);
	if (!rc)
		rc = imgp_csv_parse(text.data ? (const char *)text.data : "", text.len, &e->table);
	imgp_buf_free(&text);
	/* The library's "line N: ..." as FILE:N: ..., as compilers say it. */
	if (rc && sscanf(imgp_errmsg(), "line %u: %n", &line, &rc) == 1 && rc > 0) {
		error("%s:%u: %s", path, line, imgp_errmsg() + rc);
		return EXIT_USAGE;
	}
	if (rc) {
		error_lib(path);
		return EXIT_USAGE;
	}
	/*
	 * Column names and the names of targets or images never have edge
	 * spaces, even quoted (a spreadsheet that quotes every text cell keeps
	 * the stray space someone typed); a parameter's quoted value keeps them.
	 */
	for (size_t c = 0; c < imgp_csv_ncols(e->table); c++)
		imgp_csv_trim(e->table, 0, c);
	for (size_t r = 1; r < imgp_csv_nrows(e->table); r++)
		imgp_csv_trim(e->table, r, 0);
	if (strcasecmp(imgp_csv_cell(e->table, 0, 0), key)) {
		error("%s:%u: the first column must be '%s', not '%s'", path,
		      imgp_csv_line(e->table, 0), key, imgp_csv_cell(e->table, 0, 0));
		return EXIT_USAGE;
	}
	if (imgp_csv_nrows(e->table) < 2) {
		error("%s: the table has no rows", path);
		return EXIT_USAGE;
	}
	if (one_line_cells(e))
		return EXIT_USAGE;
	for (size_t r = 1; r < imgp_csv_nrows(e->table); r++)
		for (size_t q = 1; q < r; q++) {
			const char *name = imgp_csv_cell(e->table, r, 0);
			const char *first = imgp_csv_cell(e->table, q, 0);
			bool spelt = !strcmp(name, first);

			if (!spelt && !cli_same_file(name, first))
				continue;
			error("%s:%u: a second row for %s (the first is on line %u%s%s)", path,
			      imgp_csv_line(e->table, r), name, imgp_csv_line(e->table, q),
			      spelt ? "" : ", as ", spelt ? "" : first);
			return EXIT_USAGE;
		}
	for (size_t i = 0; i < n; i++)
		if (!cli_each_row(e, names[i])) {
			error("%s: no row for %s %s", path, key, names[i]);
			return EXIT_USAGE;
		}
	return EXIT_OK;
}

size_t cli_each_row(const struct cli_each *e, const char *name)
{
	for (size_t r = 1; r < imgp_csv_nrows(e->table); r++)
		if (!strcmp(imgp_csv_cell(e->table, r, 0), name))
			return r;
	for (size_t r = 1; r < imgp_csv_nrows(e->table); r++)
		if (cli_same_file(imgp_csv_cell(e->table, r, 0), name))
			return r;
	return 0;
}

bool cli_each_ignored(const struct cli_each *e, size_t col)
{
	const char *name = imgp_csv_cell(e->table, 0, col);

	for (size_t i = 0; name && i < e->nignore; i++)
		if (!strcasecmp(e->ignore[i], name))
			return true;
	return false;
}

const char *cli_each_param(const struct imgp_recipe *r, const char *column)
{
	const struct imgp_recipe_param *params;
	size_t n = imgp_recipe_params(r, &params);

	for (size_t i = 0; i < n; i++)
		if (!strcasecmp(params[i].name, column))
			return params[i].name;
	return NULL;
}

bool cli_recipe_has_param(const struct imgp_recipe *r, const char *name, size_t len)
{
	const struct imgp_recipe_param *params;
	size_t n = imgp_recipe_params(r, &params);

	for (size_t i = 0; i < n; i++)
		if (strlen(params[i].name) == len && !strncmp(params[i].name, name, len))
			return true;
	return false;
}

const char **cli_each_sets(const struct cli_each *e, size_t row, const struct imgp_recipe *r,
			   const char *const *sets, size_t nsets, char ***owned, size_t *n)
{
	const char **out = NULL;
	char **mine = NULL;
	size_t nmine = 0;

	*n = 0;
	for (size_t i = 0; i < nsets; i++) {
		if (!cli_recipe_has_param(r, sets[i], strcspn(sets[i], "=")))
			continue;
		out = cli_grow(out, *n, sizeof(*out));
		out[(*n)++] = sets[i];
	}
	for (size_t c = 1; e && row && c < imgp_csv_ncols(e->table); c++) {
		const char *name = cli_each_param(r, imgp_csv_cell(e->table, 0, c));
		const char *value = imgp_csv_cell(e->table, row, c);
		char *kv;

		if (!*value || !name || cli_each_ignored(e, c))
			continue;
		if (asprintf(&kv, "%s=%s", name, value) < 0)
			die("out of memory");
		mine = cli_grow(mine, nmine, sizeof(*mine));
		mine[nmine++] = kv;
		out = cli_grow(out, *n, sizeof(*out));
		out[(*n)++] = kv;
	}
	mine = cli_grow(mine, nmine, sizeof(*mine));
	mine[nmine] = NULL;
	*owned = mine;
	return out;
}

void cli_each_sets_free(const char **sets, char **owned)
{
	for (size_t i = 0; owned && owned[i]; i++)
		free(owned[i]);
	free(owned);
	free(sets);
}

void cli_each_free(struct cli_each *e)
{
	imgp_csv_free(e->table);
}
