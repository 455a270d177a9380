// SPDX-License-Identifier: MIT
/*
 * Tables in CSV (RFC 4180): fields separated by commas, records by CRLF or
 * LF; a field in double quotes may hold commas, line breaks and doubled
 * quotes (""). Strict where the RFC is: a quote inside an unquoted field,
 * text after a closing quote and an unclosed quote are errors, and every
 * record has as many fields as the header. Blank lines are skipped.
 *
 * Spaces and tabs around a field are not part of it (a spreadsheet's cell
 * "lab-01 " means lab-01); a quoted field keeps the spaces inside its
 * quotes. Each row remembers the line it starts on, for messages.
 *
 * A control character in a field (NUL, ESC, DEL, a tab or a lone CR inside
 * it) is an error naming its line: no cell may be cut short or carry a
 * byte that would end or alter a line of the file it is written into.
 * Only a line break inside quotes is kept, as the RFC has it; the caller
 * decides whether a cell it uses may hold one.
 *
 * Two things spreadsheets write are read as they mean it: the UTF-8 byte
 * order mark Excel puts before "CSV UTF-8" files, and the semicolon that
 * Excel and LibreOffice separate fields with where the comma is the
 * decimal sign (taken when the header line has a semicolon and no comma).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"

/* A table (imgpatch.h): row 0 is the header; every row has ncols cells. */
struct imgp_csv {
	size_t nrows, ncols;
	char **cells;            /* row by row */
	unsigned *lines;         /* the line each row starts on */
};

/* One record being read: its fields as offsets into one text buffer. */
struct csv_reader {
	const char *p, *end;
	char sep;                /* ',' or ';' */
	unsigned line;
	struct imgp_buf field;
	char **fields;
	size_t nfields;
};

static int take_field(struct csv_reader *rd)
{
	char **f = realloc(rd->fields, (rd->nfields + 1) * sizeof(*f));

	if (!f)
		return imgp_fail(ENOMEM, "out of memory");
	rd->fields = f;
	f[rd->nfields] = strndup(rd->field.data ? (const char *)rd->field.data : "",
				 rd->field.len);
	if (!f[rd->nfields])
		return imgp_fail(ENOMEM, "out of memory");
	rd->nfields++;
	rd->field.len = 0;
	return 0;
}

/* Fails for control character c on the reader's line. */
static int refuse_control(const struct csv_reader *rd, unsigned char c)
{
	static const char *const names[0x20] = {
		[0] = " (NUL)", ['\t'] = " (tab)", ['\r'] = " (CR without LF)", [0x1b] = " (ESC)",
	};
	const char *name = c < 0x20 && names[c] ? names[c] : c == 0x7f ? " (DEL)" : "";

	return imgp_fail(EINVAL, "line %u: control character \\x%02x%s in a field", rd->line,
			 c, name);
}

static bool is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

static bool at_eol(const struct csv_reader *rd)
{
	return rd->p == rd->end || *rd->p == '\n' ||
	       (*rd->p == '\r' && (rd->p + 1 == rd->end || rd->p[1] == '\n'));
}

static void skip_eol(struct csv_reader *rd)
{
	if (rd->p < rd->end && *rd->p == '\r')
		rd->p++;
	if (rd->p < rd->end && *rd->p == '\n') {
		rd->p++;
		rd->line++;
	}
}

/* A quoted field, from its opening quote to the character after the closing one. */
static int read_quoted(struct csv_reader *rd)
{
	unsigned opened = rd->line;

	rd->p++;
	for (;;) {
		if (rd->p == rd->end)
			return imgp_fail(EINVAL, "line %u: a quoted field is not closed", opened);
		if (*rd->p == '"') {
			if (rd->p + 1 < rd->end && rd->p[1] == '"') {
				rd->p++;
			} else {
				rd->p++;
				break;
			}
		}
		if (*rd->p == '\n')
			rd->line++;
		else if (is_control((unsigned char)*rd->p) &&
			 !(*rd->p == '\r' && rd->p + 1 < rd->end && rd->p[1] == '\n'))
			return refuse_control(rd, (unsigned char)*rd->p);
		if (imgp_buf_append(&rd->field, rd->p, 1))
			return imgp_fail(ENOMEM, "out of memory");
		rd->p++;
	}
	while (rd->p < rd->end && (*rd->p == ' ' || *rd->p == '\t'))
		rd->p++;
	if (!at_eol(rd) && *rd->p != rd->sep)
		return imgp_fail(EINVAL, "line %u: text after the closing quote of a field",
				 rd->line);
	return 0;
}

/* One record into rd->fields; the cursor ends after its line break. */
static int read_record(struct csv_reader *rd)
{
	int rc = 0;

	rd->nfields = 0;
	for (;;) {
		while (rd->p < rd->end && (*rd->p == ' ' || *rd->p == '\t'))
			rd->p++;
		if (rd->p < rd->end && *rd->p == '"') {
			rc = read_quoted(rd);
		} else {
			while (!rc && !at_eol(rd) && *rd->p != rd->sep) {
				if (*rd->p == '"')
					return imgp_fail(EINVAL, "line %u: a quote inside an unquoted field (quote the whole field and double the quote)",
							 rd->line);
				/* A tab may end the field: trimmed below, else refused. */
				if (is_control((unsigned char)*rd->p) && *rd->p != '\t')
					return refuse_control(rd, (unsigned char)*rd->p);
				if (imgp_buf_append(&rd->field, rd->p++, 1))
					rc = imgp_fail(ENOMEM, "out of memory");
			}
			while (rd->field.len && (rd->field.data[rd->field.len - 1] == ' ' ||
						 rd->field.data[rd->field.len - 1] == '\t'))
				rd->field.len--;
			if (!rc && rd->field.len && memchr(rd->field.data, '\t', rd->field.len))
				return refuse_control(rd, '\t');
		}
		if (!rc)
			rc = take_field(rd);
		if (rc || at_eol(rd))
			break;
		rd->p++;   /* the separator */
	}
	skip_eol(rd);
	return rc;
}

static void free_fields(struct csv_reader *rd)
{
	for (size_t i = 0; i < rd->nfields; i++)
		free(rd->fields[i]);
	rd->nfields = 0;
}

/* ';' when the first line (outside quotes) has a semicolon and no comma. */
static char separator(const char *p, const char *end)
{
	bool quoted = false, semicolon = false;

	for (; p < end && (quoted || *p != '\n'); p++) {
		if (*p == '"')
			quoted = !quoted;
		else if (!quoted && *p == ',')
			return ',';
		else if (!quoted && *p == ';')
			semicolon = true;
	}
	return semicolon ? ';' : ',';
}

int imgp_csv_parse(const char *text, size_t len, struct imgp_csv **csv)
{
	static const char bom[] = "\xef\xbb\xbf";
	struct csv_reader rd = { .p = text, .end = text + len, .line = 1 };
	struct imgp_csv *out = calloc(1, sizeof(*out));
	int rc = 0;

	*csv = NULL;
	if (!out)
		return imgp_fail(ENOMEM, "out of memory");
	if (len >= 3 && memcmp(text, bom, 3) == 0)
		rd.p += 3;
	rd.sep = separator(rd.p, rd.end);
	while (!rc && rd.p < rd.end) {
		unsigned line = rd.line;

		if (at_eol(&rd)) {
			skip_eol(&rd);
			continue;
		}
		rc = read_record(&rd);
		if (!rc && out->nrows && rd.nfields != out->ncols)
			rc = imgp_fail(EINVAL, "line %u: %zu field%s, the header has %zu",
				       line, rd.nfields, rd.nfields == 1 ? "" : "s", out->ncols);
		if (!rc && !out->nrows)
			out->ncols = rd.nfields;
		if (!rc) {
			char **cells = realloc(out->cells, (out->nrows + 1) * out->ncols *
						   sizeof(*cells));
			unsigned *lines = cells ? realloc(out->lines, (out->nrows + 1) *
							  sizeof(*lines)) : NULL;

			if (cells)
				out->cells = cells;
			if (lines)
				out->lines = lines;
			if (!cells || !lines) {
				rc = imgp_fail(ENOMEM, "out of memory");
			} else {
				lines[out->nrows] = line;
				memcpy(cells + out->nrows * out->ncols, rd.fields,
				       out->ncols * sizeof(*cells));
				out->nrows++;
				rd.nfields = 0;   /* the cells own them now */
			}
		}
		free_fields(&rd);
	}
	free(rd.fields);
	imgp_buf_free(&rd.field);
	if (!rc && !out->nrows)
		rc = imgp_fail(EINVAL, "no header line");
	if (rc)
		imgp_csv_free(out);
	else
		*csv = out;
	return rc;
}

size_t imgp_csv_nrows(const struct imgp_csv *c)
{
	return c->nrows;
}

size_t imgp_csv_ncols(const struct imgp_csv *c)
{
	return c->ncols;
}

unsigned imgp_csv_line(const struct imgp_csv *c, size_t row)
{
	return row < c->nrows ? c->lines[row] : 0;
}

const char *imgp_csv_cell(const struct imgp_csv *c, size_t row, size_t col)
{
	return row < c->nrows && col < c->ncols ? c->cells[row * c->ncols + col] : NULL;
}

void imgp_csv_trim(struct imgp_csv *c, size_t row, size_t col)
{
	char *cell = (char *)imgp_csv_cell(c, row, col);
	size_t start, len;

	if (!cell)
		return;
	start = strspn(cell, " \t");
	len = strlen(cell + start);
	while (len && (cell[start + len - 1] == ' ' || cell[start + len - 1] == '\t'))
		len--;
	memmove(cell, cell + start, len);
	cell[len] = '\0';
}

void imgp_csv_free(struct imgp_csv *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nrows * c->ncols; i++)
		free(c->cells[i]);
	free(c->cells);
	free(c->lines);
	free(c);
}
