// SPDX-License-Identifier: MIT
/*
 * Fuzzes the recipe parser: the input is a recipe file, loaded, described
 * and bound with a few parameter sets. The same bytes, cut in two halves,
 * also feed the text edits (config.txt lines, cmdline.txt tokens), the
 * dtc-style value parser and the unified diff, which recipes drive.
 */
#include <stdio.h>
#include <unistd.h>

#include "imgpatch.h"
#include "core/core.h"
#include "dt/dt.h"
#include "text/text.h"
#include "recipe/recipe-internal.h"
#include "fuzz.h"

/* One directory per process holding the recipe file, removed at exit. */
static char fuzz_dir[64];
static char fuzz_recipe[160];

#define FUZZ_NAME_MAX 64

static void fuzz_cleanup(void)
{
	if (fuzz_recipe[0])
		unlink(fuzz_recipe);
	rmdir(fuzz_dir);
}

static bool name_char(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
}

/*
 * A recipe must be in NAME.recipe: the file takes the name of the first
 * line that reads  name = "NAME"  (or 'NAME'), else "x", so that mutated
 * recipes still get past that check.
 */
static void recipe_name(const uint8_t *d, size_t size, char *out)
{
	for (size_t pos = 0; pos < size;) {
		const uint8_t *nl = memchr(d + pos, '\n', size - pos);
		size_t end = nl ? (size_t)(nl - d) : size, i = pos, n = 0;
		uint8_t quote;

		while (i < end && (d[i] == ' ' || d[i] == '\t'))
			i++;
		if (end - i > 4 && !memcmp(d + i, "name", 4)) {
			for (i += 4; i < end && (d[i] == ' ' || d[i] == '\t' ||
						 d[i] == '='); i++)
				;
			quote = i < end ? d[i] : 0;
			if (quote == '"' || quote == '\'') {
				for (i++; i < end && n < FUZZ_NAME_MAX - 1 &&
				     name_char(d[i]); i++)
					out[n++] = (char)d[i];
				if (n && i < end && d[i] == quote) {
					out[n] = '\0';
					return;
				}
			}
		}
		pos = end + 1;
	}
	strcpy(out, "x");
}

static int fuzz_write(const uint8_t *data, size_t size)
{
	char name[FUZZ_NAME_MAX];
	FILE *f;
	size_t n;

	if (!fuzz_dir[0]) {
		const char *tmp = getenv("TMPDIR");

		snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/imgp-fuzz.XXXXXX",
			 tmp && strlen(tmp) < 32 ? tmp : "/tmp");
		if (!mkdtemp(fuzz_dir))
			return -1;
		atexit(fuzz_cleanup);
	}
	if (fuzz_recipe[0])
		unlink(fuzz_recipe);
	recipe_name(data, size, name);
	snprintf(fuzz_recipe, sizeof(fuzz_recipe), "%s/%s.recipe", fuzz_dir,
		 name);
	f = fopen(fuzz_recipe, "w");
	if (!f)
		return -1;
	n = fwrite(data, 1, size, f);
	if (fclose(f) || n != size)
		return -1;
	return 0;
}

/* Binds every parameter to its first allowed value, or its minimum. */
static void fuzz_bind_first(struct imgp_recipe *r)
{
	const struct imgp_recipe_param *params;
	size_t n = imgp_recipe_params(r, &params);
	char sets[4][128];
	const char *ptrs[4];
	size_t k = 0;

	for (size_t i = 0; i < n && k < 4; i++) {
		const struct imgp_recipe_param *p = &params[i];

		if (p->nvalues)
			snprintf(sets[k], sizeof(sets[k]), "%s=%s", p->name,
				 p->values[p->nvalues - 1]);
		else if (p->is_int)
			snprintf(sets[k], sizeof(sets[k]), "%s=%ld", p->name,
				 p->has_min ? p->min : -1);
		else
			snprintf(sets[k], sizeof(sets[k]), "%s=a/../b", p->name);
		ptrs[k] = sets[k];
		k++;
	}
	imgp_recipe_bind(r, ptrs, k);
}

static void fuzz_load(const uint8_t *data, size_t size)
{
	static const char *const set_a[] = { "carrier=revB", "board=kr" };
	static const char *const set_b[] = { "sd_overclock=100", "x=1", "x=2" };
	struct imgp_buf out = { 0 };
	struct imgp_recipe *r;

	if (fuzz_write(data, size))
		abort();
	if (imgp_recipe_load(fuzz_recipe, &r))
		return;
	imgp_recipe_describe(r, &out);
	imgp_buf_free(&out);
	imgp_recipe_bind(r, set_a, 2);
	imgp_recipe_bind(r, set_b, 3);
	imgp_recipe_bind(r, NULL, 0);
	fuzz_bind_first(r);
	imgp_recipe_describe(r, &out);
	imgp_buf_free(&out);
	imgp_recipe_free(r);
}

/* First line of s (cut at '\n'), in place; the rest after it. */
static char *fuzz_line(char **s)
{
	char *line = *s, *nl = strchr(line, '\n');

	if (nl) {
		*nl = '\0';
		*s = nl + 1;
	} else {
		*s = line + strlen(line);
	}
	return line;
}

static void fuzz_text(const uint8_t *data, size_t size)
{
	size_t half = size / 2;
	struct imgp_buf out = { 0 }, diff = { 0 }, val = { 0 };
	char *a = fuzz_dup(data, half);
	char *b = fuzz_str(data + half, size - half);
	char *rest, *key, *value;

	if (!a || !b)
		goto out;
	rest = b;
	key = fuzz_line(&rest);
	value = fuzz_line(&rest);
	if (imgp_text_set_line_(a, half, key, value, "all", &out) >= 0)
		imgp_diff_unified_(a, half, (const char *)out.data, out.len,
				  "a", "b", &diff);
	imgp_text_set_line_(a, half, key, value, NULL, &out);
	imgp_text_remove_line_(a, half, key, &out);
	imgp_text_set_token_(a, half, key, &out);
	imgp_text_remove_token_(a, half, value, &out);
	imgp_dt_parse_value_(value, &val);
	imgp_diff_unified_(a, half, (const char *)data + half, size - half,
			  "a", "b", &diff);
out:
	imgp_buf_free(&val);
	imgp_buf_free(&diff);
	imgp_buf_free(&out);
	free(b);
	free(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_load(data, size);
	fuzz_text(data, size);
	imgp_errclear_();
	return 0;
}
