// SPDX-License-Identifier: MIT
/*
 * patch --cmdline: the kernel command line edited where the boot path
 * keeps the one it hands over (its cmdline op, cmdline-site.c), found
 * again in the file as the plan leaves it, the rest of the file kept.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"
#include "part/part.h"
#include "text/text.h"
#include "boot/boot.h"
#include "boot/bootpath.h"
#include "patch/patch.h"

/* out = text with [span) replaced by line (a new setting when there was none). */
static int splice(const char *text, size_t len, const struct imgp_cmdline_span *span,
		  const struct imgp_buf *line, struct imgp_buf *out)
{
	bool add = !span->found;
	int rc = imgp_buf_append(out, text, span->start);

	if (!rc && add)
		rc = imgp_buf_append(out, span->head, strlen(span->head));
	if (!rc && (span->found || add))
		rc = imgp_buf_append(out, line->data, line->len);
	if (!rc && add)
		rc = imgp_buf_append(out, span->tail, strlen(span->tail));
	if (!rc)
		rc = imgp_buf_append(out, text + span->end, len - span->end);
	return rc ? imgp_fail(ENOMEM, "out of memory") : 0;
}

/*
 * A word no edit can name (edits are printable): it stands between the
 * lead's words and the line's while both are edited as the one line the
 * loader makes of them.
 */
#define SPLIT '\x01'

/*
 * The edits applied to the lead's words and the line's together, as the
 * loader joins them: what stays of each stays where it is, a new word
 * goes to the line. Into lead_out and line_out (NUL-terminated). Returns
 * imgp_cmdline_edit_()'s 1 or 0, or -errno.
 */
static int edit_with_lead(const char *text, const struct imgp_cmdline_span *span,
			  const struct imgp_cmdline_span *lead, const char *edits,
			  struct imgp_buf *lead_out, struct imgp_buf *line_out)
{
	struct imgp_buf both = { 0 }, out = { 0 };
	const char split[] = { ' ', SPLIT, ' ' };
	const char *data, *m;
	size_t left, right;
	int rc, changed;
	/* An empty line takes no blank after the split: a new word brings its own. */
	bool empty = !span->found || span->end == span->start;

	rc = imgp_buf_append(&both, text + lead->start, lead->end - lead->start) ||
	     imgp_buf_append(&both, split, sizeof(split) - empty) ||
	     (span->found && imgp_buf_append(&both, text + span->start, span->end - span->start)) ?
	     imgp_fail(ENOMEM, "out of memory") : 0;
	changed = rc ? rc : imgp_cmdline_edit_((char *)both.data, both.len, edits, &out);
	if (changed < 0)
		goto out;
	data = (const char *)out.data;
	m = memchr(data, SPLIT, out.len);
	/* Only a quote the lead leaves open can take the split into a word an edit names. */
	if (!m) {
		rc = imgp_fail(EINVAL, "the words of the two settings cannot be told apart after the edit (a double quote left open?)");
		goto out;
	}
	left = (size_t)(m - data);
	right = left + 1;
	/* The blanks the split brought, where the edits left them. */
	if (left && data[left - 1] == ' ')
		left--;
	if (right < out.len && data[right] == ' ')
		right++;
	lead_out->len = line_out->len = 0;
	rc = imgp_buf_append(lead_out, data, left) || imgp_buf_printf(lead_out, "%s", "") ||
	     imgp_buf_append(line_out, data + right, out.len - right) ||
	     imgp_buf_printf(line_out, "%s", "") ? imgp_fail(ENOMEM, "out of memory") : 0;
out:
	imgp_buf_free(&out);
	imgp_buf_free(&both);
	return rc ? rc : changed;
}

/* Whether span of text holds other bytes than b (a span not found: b empty). */
static bool span_differs(const char *text, const struct imgp_cmdline_span *span,
			 const struct imgp_buf *b)
{
	size_t n = span->found ? span->end - span->start : 0;

	return !span->found ? b->len > 0 : n != b->len || memcmp(text + span->start, b->data, n);
}

/*
 * out = text with the line's and the lead's spans replaced by line and
 * lead where they differ, the later span first so that the earlier one's
 * offsets hold.
 */
static int splice_both(const char *text, size_t len, const struct imgp_cmdline_span *span,
		       const struct imgp_buf *line, const struct imgp_cmdline_span *lead,
		       const struct imgp_buf *lead_new, struct imgp_buf *out)
{
	const struct imgp_cmdline_span *first = lead->start < span->start ? lead : span;
	const struct imgp_cmdline_span *second = first == lead ? span : lead;
	const struct imgp_buf *b1 = first == lead ? lead_new : line;
	const struct imgp_buf *b2 = first == lead ? line : lead_new;
	struct imgp_buf mid = { 0 };
	int rc = 0;

	if (span_differs(text, second, b2))
		rc = splice(text, len, second, b2, &mid);
	else
		rc = imgp_buf_append(&mid, text, len) ? imgp_fail(ENOMEM, "out of memory") : 0;
	if (!rc && span_differs(text, first, b1))
		rc = splice((char *)mid.data, mid.len, first, b1, out);
	else if (!rc)
		rc = imgp_buf_append(out, mid.data, mid.len) ? imgp_fail(ENOMEM, "out of memory") : 0;
	imgp_buf_free(&mid);
	return rc;
}

/*
 * A hook script image with text in it: made as mkimage -T script makes it
 * (name and architecture of the one there kept), the note added to its
 * plan entry. 0 or -errno.
 */
static int write_script(struct imgp_patch *patch, const struct imgp_cmdline_site *site,
			const struct imgp_buf *raw, bool existed, const struct imgp_buf *text,
			const char *note)
{
	struct imgp_bootscr scr = { .name = "" };
	struct imgp_buf made = { 0 };
	bool have = existed && imgp_bootscr_parse_(&scr, raw->data, raw->len) == 0;
	char part[16];
	int rc;

	snprintf(part, sizeof(part), "%d", site->part->number);
	/* IH_ARCH_ARM is 2: a 32-bit board's script stays one. */
	rc = imgp_patch_bootscr_(patch, part, site->path, (const char *)text->data, text->len,
				scr.name, have && scr.arch == 2 ? "arm" : "arm64");
	if (have)
		imgp_bootscr_free_(&scr);
	if (!rc)
		rc = imgp_patch_read_(patch, site->part, site->path, IMGP_TEXT_MAX, &made, &have);
	if (!rc)
		rc = imgp_patch_write_(patch, site->part, site->path, made.data, made.len, false,
				      note);
	imgp_buf_free(&made);
	return rc;
}

/* Whether the edited line (and lead) holds a byte site->bad names: -EINVAL saying why. */
static int check_bad(const struct imgp_cmdline_site *site, const struct imgp_buf *line,
		     const struct imgp_buf *lead)
{
	const struct imgp_buf *b[] = { line, lead };

	for (size_t i = 0; site->bad && i < 2; i++)
		for (size_t k = 0; k < b[i]->len; k++)
			if (((const char *)b[i]->data)[k] && strchr(site->bad, ((const char *)b[i]->data)[k]))
				return imgp_fail(EINVAL, "'%c' cannot go into the line: %s",
						 ((const char *)b[i]->data)[k], site->bad_why);
	return 0;
}

/*
 * The edits made to the line of site (site.source is not followed), the
 * plan's note with why (NULL: none) after it; source: site is where the
 * generator takes the line from, made when it is not there. 0 or -errno.
 */
static int edit_site(struct imgp_patch *patch, const struct imgp_cmdline_site *psite,
		     const char *edits, const char *why, bool source)
{
	struct imgp_buf raw = { 0 }, old = { 0 }, new = { 0 }, line = { 0 }, note = { 0 };
	struct imgp_buf before = { 0 }, after = { 0 }, lead_new = { 0 };
	struct imgp_cmdline_site site = *psite;
	struct imgp_cmdline_span span, lead = { 0 };
	const char *text, *cur;
	size_t ncur;
	bool existed = false, changed;
	int rc = imgp_patch_read_(patch, site.part, site.path, IMGP_TEXT_MAX, &raw, &existed);

	if (!rc && !existed && !site.script && !source)
		rc = imgp_fail(ENOENT, IMGP_PART_FMT " (%s): %s: no such file",
			       site.part->number, site.part->fstype, site.path);
	if (!rc)
		rc = imgp_cmdline_site_text_(&site, raw.data, raw.len, existed, &old);
	if (rc)
		goto out;
	text = (const char *)old.data;
	rc = imgp_cmdline_site_line_(&site, text, old.len, &span, &lead, &before);
	/* Not set there: the line in force is the boot script's. */
	cur = span.found || !site.base ? text + span.start : site.base;
	ncur = span.found || !site.base ? span.end - span.start : strlen(site.base);
	if (!rc && lead.found)
		rc = edit_with_lead(text, &span, &lead, edits, &lead_new, &line);
	else if (!rc)
		rc = imgp_cmdline_edit_(cur, ncur, edits, &line);
	if (rc >= 0 && site.script && memchr(line.data, '"', line.len))
		rc = imgp_fail(EINVAL, "a double quote cannot go into the script's setenv bootargs \"...\"");
	if (rc >= 0 && check_bad(&site, &line, &lead_new))
		rc = -EINVAL;
	if (rc >= 0 && imgp_cmdline_span_fits_(&span, (char *)line.data))
		rc = imgp_fail_ctx(-EINVAL, "%s", site.what);
	if (rc >= 0 && lead.found && imgp_cmdline_span_fits_(&lead, (char *)lead_new.data))
		rc = imgp_fail_ctx(-EINVAL, "%s", site.lead);
	if (rc < 0) {
		imgp_fail_ctx(rc, IMGP_PART_FMT " (%s): %s", site.part->number,
			      site.part->fstype, site.path);
		goto out;
	}
	changed = rc == 1 || (!span.found && !site.base && line.len);
	/* A hook script that is not there is made only for a change. */
	if (!changed && site.script && !existed)
		goto out;
	if (changed && lead.found)
		rc = splice_both(text, old.len, &span, &line, &lead, &lead_new, &new);
	else if (changed)
		rc = splice(text, old.len, &span, &line, &new);
	else
		rc = imgp_buf_append(&new, text, old.len) ? imgp_fail(ENOMEM, "out of memory") : 0;
	if (!rc && lead.found)
		rc = imgp_buf_printf(&after, "%s%s%s", (char *)lead_new.data,
				     lead_new.len && line.len ? " " : "",
				     line.len ? (char *)line.data : "") ? -ENOMEM : 0;
	else if (!rc)
		rc = imgp_buf_printf(&after, "%s", line.len ? (char *)line.data : "") ? -ENOMEM : 0;
	if (!rc)
		rc = imgp_buf_printf(&note, "kernel command line (%s%s%s):\nbefore: %s%s\nafter:  %s%s",
				     lead.found ? site.lead : "", lead.found ? "= then " : "",
				     site.what, (char *)before.data,
				     span.found || lead.found ? "" : site.base && site.script ? " (the boot script's)" :
				     site.base ? " (not set: its default)" :
				     "(not set)", (char *)after.data,
				     changed ? "" : " (unchanged)") ? -ENOMEM : 0;
	if (!rc && why)
		rc = imgp_buf_printf(&note, "\n%s", why) ? -ENOMEM : 0;
	if (!rc && site.script)
		rc = write_script(patch, &site, &raw, existed, &new, (char *)note.data);
	else if (!rc)
		rc = imgp_patch_write_(patch, site.part, site.path, new.data, new.len, true,
				      (char *)note.data);
out:
	imgp_buf_free(&lead_new);
	imgp_buf_free(&after);
	imgp_buf_free(&before);
	imgp_buf_free(&note);
	imgp_buf_free(&line);
	imgp_buf_free(&new);
	imgp_buf_free(&old);
	imgp_buf_free(&raw);
	return rc;
}

int imgp_patch_cmdline(struct imgp_patch *patch, const char *model, const char *edits)
{
	struct imgp_cmdline_site site = { 0 };
	struct imgp_survey *sv;
	char *why = NULL;
	int rc = imgp_cmdline_check(edits);

	sv = rc ? NULL : imgp_patch_survey_(patch);
	if (!rc && !sv)
		rc = -ENOMEM;
	if (!rc)
		rc = imgp_cmdline_site_get_(sv, model, &site);
	if (!rc && site.source &&
	    asprintf(&why, "the distribution's generator makes this line anew from %s of %s (" IMGP_PART_FMT "): edited there too",
		     site.source->what, site.source->path, site.source->part->number) < 0) {
		why = NULL;
		rc = imgp_fail(ENOMEM, "out of memory");
	}
	if (!rc)
		rc = edit_site(patch, &site, edits, why ? why : site.source_lost, false);
	/* Where the generator takes the line from: the edit outlives it. */
	if (!rc && site.source)
		rc = edit_site(patch, site.source, edits, site.source->loader, true);
	free(why);
	imgp_cmdline_site_free_(&site);
	return rc;
}
