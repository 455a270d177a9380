// SPDX-License-Identifier: MIT
/*
 * The kernel command line a boot path hands over: each path's cmdline op
 * says which file keeps it and how to find the line in it (struct
 * imgp_cmdline_site); this file asks the one the survey recognised, for
 * the tree asked for, and reads the line. The patch finds the same line
 * again in the file as it plans to leave it (patch-cmdline.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "fs/fs.h"
#include "boot/boot.h"
#include "boot/bootpath.h"
#include "patch/patch.h"

void imgp_cmdline_site_free_(struct imgp_cmdline_site *site)
{
	free(site->path);
	free(site->what);
	free(site->loader);
	free(site->arg);
	free(site->base);
	free(site->lead);
	if (site->source) {
		imgp_cmdline_site_free_(site->source);
		free(site->source);
	}
	free(site->source_lost);
	memset(site, 0, sizeof(*site));
}

static int dup_field(char **field, const char *s)
{
	free(*field);
	*field = s ? strdup(s) : NULL;
	return s && !*field ? imgp_fail(ENOMEM, "out of memory") : 0;
}

int imgp_cmdline_site_set_(struct imgp_cmdline_site *site, const struct imgp_part *part,
			  const char *path, const char *what, const char *loader,
			  const char *arg)
{
	site->part = part;
	if (dup_field(&site->path, path) || dup_field(&site->what, what) ||
	    dup_field(&site->loader, loader) || dup_field(&site->arg, arg))
		return -ENOMEM;
	return 0;
}

int imgp_cmdline_site_text_(const struct imgp_cmdline_site *site, const void *raw,
			   size_t len, bool existed, struct imgp_buf *text)
{
	struct imgp_bootscr scr;
	int rc = 0;

	text->len = 0;
	if (!site->script)
		rc = imgp_buf_append(text, raw, len);
	else if (existed) {
		rc = imgp_bootscr_parse_(&scr, raw, len);
		if (rc)
			return imgp_fail_ctx(rc, "%s", site->path);
		rc = imgp_buf_append(text, scr.text, scr.text_len);
		imgp_bootscr_free_(&scr);
	}
	if (!rc)
		rc = imgp_buf_printf(text, "%s", "");
	return rc ? imgp_fail(ENOMEM, "out of memory") : 0;
}

int imgp_cmdline_site_line_(const struct imgp_cmdline_site *site, const char *text,
			   size_t len, struct imgp_cmdline_span *span,
			   struct imgp_cmdline_span *lead, struct imgp_buf *out)
{
	struct imgp_cmdline_site lsite = *site;
	size_t nlead;
	int rc;

	memset(lead, 0, sizeof(*lead));
	out->len = 0;
	lsite.arg = site->lead;
	rc = site->locate(site, text, len, span);
	if (!rc && site->lead)
		rc = site->locate(&lsite, text, len, lead);
	if (rc)
		return rc;
	nlead = lead->found ? lead->end - lead->start : 0;
	if (nlead)
		rc = imgp_buf_append(out, text + lead->start, nlead);
	if (!rc && nlead && span->found && span->end > span->start)
		rc = imgp_buf_append(out, " ", 1);
	if (!rc && span->found)
		rc = imgp_buf_append(out, text + span->start, span->end - span->start);
	else if (!rc && site->base)
		rc = imgp_buf_printf(out, "%s", site->base);
	if (!rc)
		rc = imgp_buf_printf(out, "%s", "");
	return rc ? imgp_fail(ENOMEM, "out of memory") : 0;
}

/* [start, end) of the line at pos, without its newline (and CR); next past it. */
static size_t line_end(const char *text, size_t len, size_t pos, size_t *next)
{
	const char *nl = memchr(text + pos, '\n', len - pos);
	size_t end = nl ? (size_t)(nl - text) : len;

	*next = nl ? end + 1 : len;
	if (end > pos && text[end - 1] == '\r')
		end--;
	return end;
}

int imgp_cmdline_locate_env_(const struct imgp_cmdline_site *site, const char *text,
			    size_t len, struct imgp_cmdline_span *span)
{
	size_t n = strlen(site->arg), pos = 0, next;

	memset(span, 0, sizeof(*span));
	/* env import -t: the last line of a name wins. */
	for (; pos < len; pos = next) {
		size_t end = line_end(text, len, pos, &next);

		if (end - pos > n && !memcmp(text + pos, site->arg, n) && text[pos + n] == '=') {
			span->found = true;
			span->start = pos + n + 1;
			span->end = end;
		}
	}
	if (!span->found) {
		span->start = span->end = len;
		snprintf(span->head, sizeof(span->head), "%s%s=",
			 len && text[len - 1] != '\n' ? "\n" : "", site->arg);
		snprintf(span->tail, sizeof(span->tail), "\n");
	}
	return 0;
}

/* What a plain shell word may hold: no blank, quote, expansion or operator. */
static bool plain_word(const char *s, size_t n)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_=.,:/+@%-";

	for (size_t i = 0; i < n; i++)
		if (!s[i] || !strchr(ok, s[i]))
			return false;
	return true;
}

/*
 * The value of a "KEY=..." line at [v, end): its span, or -EINVAL when sh
 * would do more than take it as it is (an expansion, an escape, a quote
 * left open, more than one word, a command after it).
 */
static int sh_value(const char *text, size_t v, size_t end, struct imgp_cmdline_span *span)
{
	size_t close = v, rest;
	char q = v < end ? text[v] : 0;

	if (q == '"' || q == '\'') {
		for (close = v + 1; close < end && text[close] != q; close++)
			if (q == '"' && strchr("$`\\", text[close]))
				return -EINVAL;
		if (close >= end)
			return -EINVAL;
		span->start = v + 1;
		span->end = close;
		rest = close + 1;
	} else {
		while (close < end && text[close] != ' ' && text[close] != '\t')
			close++;
		if (!plain_word(text + v, close - v))
			return -EINVAL;
		span->start = v;
		span->end = close;
		rest = close;
	}
	while (rest < end && (text[rest] == ' ' || text[rest] == '\t'))
		rest++;
	if (rest < end && text[rest] != '#')
		return -EINVAL;
	span->quote = q == '"' || q == '\'' ? q : 0;
	span->sh = true;
	span->found = true;
	return 0;
}

int imgp_cmdline_locate_sh_(const struct imgp_cmdline_site *site, const char *text,
			   size_t len, struct imgp_cmdline_span *span)
{
	size_t n = strlen(site->arg), pos = 0, next, last = 0, last_end = 0;
	unsigned lineno = 0, last_no = 0;
	int rc;

	memset(span, 0, sizeof(*span));
	/* sh runs the file top to bottom: the last assignment wins. */
	for (; pos < len; pos = next) {
		size_t end = line_end(text, len, pos, &next), p = pos;

		lineno++;
		while (p < end && (text[p] == ' ' || text[p] == '\t'))
			p++;
		if (end - p > n && !memcmp(text + p, site->arg, n) && text[p + n] == '=') {
			last = p + n + 1;
			last_end = end;
			last_no = lineno;
		}
	}
	if (!last_no) {
		span->start = span->end = len;
		span->sh = true;
		span->quote = '"';
		snprintf(span->head, sizeof(span->head), "%s%s=\"",
			 len && text[len - 1] != '\n' ? "\n" : "", site->arg);
		snprintf(span->tail, sizeof(span->tail), "\"\n");
		return 0;
	}
	rc = sh_value(text, last, last_end, span);
	if (rc)
		return imgp_fail(EINVAL, "line %u: %.*s: not a value imgpatch edits safely (one double- or single-quoted word without $, ` or \\, or a plain word): edit it by hand",
				 last_no, (int)(last_end - last + n + 1), text + last - n - 1);
	return 0;
}

int imgp_cmdline_span_fits_(const struct imgp_cmdline_span *span, const char *value)
{
	const char *bad = span->quote == '"' ? "\"$`\\" : span->quote ? "'" : NULL;
	size_t n = strlen(value);

	if (!span->sh)
		return 0;
	if (bad && value[strcspn(value, bad)])
		return imgp_fail(EINVAL, "%c cannot go into the %s-quoted shell value",
				 value[strcspn(value, bad)], span->quote == '"' ? "double" : "single");
	if (!span->quote && !plain_word(value, n))
		return imgp_fail(EINVAL, "the unquoted shell value cannot take \"%s\": quote it first", value);
	return 0;
}

int imgp_cmdline_script_lines_(const char *script, struct imgp_buf *out)
{
	size_t pos = 0, next, len = script ? strlen(script) : 0;
	unsigned lineno = 0;
	int rc = 0, found = 0;

	out->len = 0;
	for (; !rc && pos < len; pos = next) {
		size_t end = line_end(script, len, pos, &next);
		const char *p = script + pos + strspn(script + pos, " \t");
		const char *set = memmem(p, (size_t)(script + end - p), "setenv bootargs ", 16);

		lineno++;
		/* At the start of the line, or after "then" / ";" ("if ...; then setenv ..."). */
		if (!set || (set != p && set[-1] != ' ' && set[-1] != ';'))
			continue;
		rc = imgp_buf_printf(out, "%sline %u: %.*s", found++ ? "; " : "", lineno,
				     (int)(script + end - p), p);
	}
	if (!rc)
		rc = imgp_buf_printf(out, "%s", "");
	return rc ? -ENOMEM : found > 0;
}

int imgp_cmdline_script_refusal_(struct imgp_survey *sv, const char *hook_note)
{
	struct imgp_buf lines = { 0 };
	int rc;

	rc = imgp_cmdline_script_lines_(sv->script.parsed ? sv->script.scr.text : NULL, &lines);
	if (rc == 1)
		rc = imgp_fail(ENOTSUP, "%s sets bootargs itself (%s); imgpatch does not rewrite a boot script's lines: edit it there%s",
			       sv->script.path, (char *)lines.data, hook_note ? hook_note : "");
	else if (rc == 0)
		rc = imgp_fail(ENOTSUP, "boot path %s: %s sets no bootargs: the kernel gets U-Boot's own",
			       sv->bootpath_name, sv->script.path ? sv->script.path : "the boot script");
	imgp_buf_free(&lines);
	return rc;
}

static bool same_site(const struct imgp_cmdline_site *a, const struct imgp_cmdline_site *b)
{
	return a->part == b->part && !strcmp(a->path, b->path) &&
	       !a->arg == !b->arg && (!a->arg || !strcmp(a->arg, b->arg));
}

/* The trees and where each keeps its line, for the message of -EINVAL. */
static int differs(struct imgp_survey *sv)
{
	const struct imgp_survey_bootinfo *bi = &sv->bootinfo;
	struct imgp_buf list = { 0 };
	int rc = 0;

	for (size_t i = 0; !rc && i < bi->ndts && i < IMGP_NAMES_SHOWN; i++)
		rc = imgp_buf_printf(&list, "%s%s", i ? ", " : "",
				     bi->dts[i].model ? bi->dts[i].model : bi->dts[i].path);
	if (!rc && bi->ndts > IMGP_NAMES_SHOWN)
		rc = imgp_buf_printf(&list, ", ... %zu in all", bi->ndts);
	rc = rc ? -ENOMEM : imgp_fail(EINVAL, "boot path %s keeps a command line per tree: pick one with --model (have: %s)",
				      sv->bootpath_name, (char *)list.data);
	imgp_buf_free(&list);
	return rc;
}

int imgp_cmdline_site_get_(struct imgp_survey *sv, const char *model,
			  struct imgp_cmdline_site *site)
{
	const struct imgp_survey_bootinfo *bi = &sv->bootinfo;
	const struct imgp_survey_bootdt *dt = NULL;
	int rc;

	memset(site, 0, sizeof(*site));
	if (!sv->bootpath)
		return imgp_survey_fail_(sv->boot_rc ? sv->boot_rc : -ENOENT,
					sv->boot_error ? sv->boot_error : "no boot path recognised");
	if (!sv->bootpath->cmdline)
		return imgp_fail(ENOTSUP, "boot path %s: where its kernel command line is kept is not known",
				 sv->bootpath_name);
	if (bi->rc)
		return imgp_survey_fail_(bi->rc, bi->error);
	for (size_t i = 0; model && !dt && i < bi->ndts; i++)
		if (imgp_bootdt_named_(&bi->dts[i], model))
			dt = &bi->dts[i];
	if (model && !dt && bi->ndts)
		return imgp_fail(ENOENT, "--model %s: boot path %s boots no such tree", model,
				 sv->bootpath_name);
	if (dt || !bi->ndts) {
		rc = sv->bootpath->cmdline(sv, dt, site);
		/* A path may fail after filling part of site (extlinux: no such label). */
		if (rc)
			imgp_cmdline_site_free_(site);
		return rc;
	}
	/* No model: the trees must agree. */
	rc = sv->bootpath->cmdline(sv, &bi->dts[0], site);
	for (size_t i = 1; !rc && i < bi->ndts; i++) {
		struct imgp_cmdline_site other = { 0 };

		rc = sv->bootpath->cmdline(sv, &bi->dts[i], &other);
		if (!rc && !same_site(site, &other))
			rc = differs(sv);
		imgp_cmdline_site_free_(&other);
	}
	if (rc)
		imgp_cmdline_site_free_(site);
	return rc;
}

int imgp_survey_cmdline(struct imgp_survey *sv, const char *model, struct imgp_buf *line,
			struct imgp_buf *where, struct imgp_buf *loader)
{
	struct imgp_cmdline_site site;
	struct imgp_cmdline_span span, lead;
	struct imgp_buf raw = { 0 }, text = { 0 };
	struct imgp_fs *fs;
	bool existed;
	int rc;

	line->len = where->len = loader->len = 0;
	rc = imgp_cmdline_site_get_(sv, model, &site);
	if (rc)
		return rc;
	fs = imgp_survey_fs_(sv, site.part);
	rc = fs ? imgp_survey_read_file_(fs, site.path, IMGP_TEXT_MAX, &raw) : -ENOTSUP;
	/* A hook script that is not there sets nothing. */
	existed = !rc;
	if (rc == -ENOENT && site.script) {
		imgp_errclear_();
		rc = 0;
	}
	/* A read names the partition and the file itself. */
	if (rc && !fs)
		imgp_fail_ctx(rc, IMGP_PART_FMT " (%s)", site.part->number, site.part->fstype);
	if (!rc)
		rc = imgp_cmdline_site_text_(&site, raw.data, raw.len, existed, &text);
	if (!rc)
		rc = imgp_cmdline_site_line_(&site, (char *)text.data, text.len, &span, &lead, line);
	if (!rc)
		rc = imgp_buf_printf(where, IMGP_PART_FMT " (%s): %s, %s%s%s%s", site.part->number,
				     site.part->fstype, site.path, lead.found ? site.lead : "",
				     lead.found ? "= then " : "", site.what,
				     span.found ? "" : site.base && site.script ? " (not set: the boot script's)" :
				     site.base ? " (not set: its default)" :
				     " (not set)");
	if (!rc && site.source)
		rc = imgp_buf_printf(where, "; also kept in " IMGP_PART_FMT " (%s): %s, %s%s%s",
				     site.source->part->number, site.source->part->fstype,
				     site.source->path, site.source->lead ? site.source->lead : "",
				     site.source->lead ? "= then " : "", site.source->what);
	if (!rc)
		rc = imgp_buf_printf(loader, "%s", site.loader ? site.loader : "");
	if (rc == -ENOMEM)
		rc = imgp_fail(ENOMEM, "out of memory");
	imgp_buf_free(&raw);
	imgp_buf_free(&text);
	imgp_cmdline_site_free_(&site);
	return rc;
}
