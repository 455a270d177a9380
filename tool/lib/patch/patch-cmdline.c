// SPDX-License-Identifier: MIT
/*
 * patch --cmdline: the kernel command line edited where the boot path
 * keeps the one it hands over (its cmdline op, cmdline-site.c), found
 * again in the file as the plan leaves it, the rest of the file kept.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch-internal.h"

/* out = text with [span) replaced by line (a new setting when there was none). */
static int splice(const char *text, size_t len, const struct imgp_cmdline_span *span,
		  const struct imgp_buf *line, struct imgp_buf *out)
{
	bool add = !span->found && line->len;
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

int imgp_patch_cmdline(struct imgp_patch *patch, const char *model, const char *edits)
{
	struct imgp_buf old = { 0 }, new = { 0 }, line = { 0 }, note = { 0 };
	struct imgp_cmdline_site site = { 0 };
	struct imgp_cmdline_span span;
	struct imgp_survey *sv;
	const char *text;
	bool existed = false;
	int rc = imgp_cmdline_check(edits);

	sv = rc ? NULL : imgp_patch_survey(patch);
	if (!rc && !sv)
		rc = -ENOMEM;
	if (!rc)
		rc = imgp_cmdline_site_get(sv, model, &site);
	if (!rc)
		rc = imgp_patch_read(patch, site.part, site.path, IMGP_TEXT_MAX, &old, &existed);
	if (!rc && !existed)
		rc = imgp_fail(ENOENT, IMGP_PART_FMT " (%s): %s: no such file",
			       site.part->number, site.part->fstype, site.path);
	if (rc)
		goto out;
	text = old.len ? (const char *)old.data : "";
	rc = site.locate(&site, text, old.len, &span);
	if (!rc)
		rc = imgp_cmdline_edit(text + span.start, span.end - span.start, edits, &line);
	if (rc < 0) {
		imgp_fail_ctx(rc, IMGP_PART_FMT " (%s): %s", site.part->number,
			      site.part->fstype, site.path);
		goto out;
	}
	rc = splice(text, old.len, &span, &line, &new);
	if (!rc)
		rc = imgp_buf_printf(&note, "kernel command line (%s):\nbefore: %.*s%s\nafter:  %s%s",
				     site.what, (int)(span.end - span.start), text + span.start,
				     span.found ? "" : "(not set)",
				     line.len ? (char *)line.data : "",
				     new.len == old.len && !memcmp(new.data, old.data, old.len) ?
				     " (unchanged)" : "") ? -ENOMEM : 0;
	if (!rc)
		rc = imgp_patch_write(patch, site.part, site.path, new.data, new.len, true,
				      (char *)note.data);
out:
	imgp_cmdline_site_free(&site);
	imgp_buf_free(&note);
	imgp_buf_free(&line);
	imgp_buf_free(&new);
	imgp_buf_free(&old);
	return rc;
}
