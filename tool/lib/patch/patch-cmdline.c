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
	bool have = existed && imgp_bootscr_parse(&scr, raw->data, raw->len) == 0;
	char part[16];
	int rc;

	snprintf(part, sizeof(part), "%d", site->part->number);
	/* IH_ARCH_ARM is 2: a 32-bit board's script stays one. */
	rc = imgp_patch_bootscr(patch, part, site->path, (const char *)text->data, text->len,
				scr.name, have && scr.arch == 2 ? "arm" : "arm64");
	if (have)
		imgp_bootscr_free(&scr);
	if (!rc)
		rc = imgp_patch_read(patch, site->part, site->path, IMGP_TEXT_MAX, &made, &have);
	if (!rc)
		rc = imgp_patch_write(patch, site->part, site->path, made.data, made.len, false,
				      note);
	imgp_buf_free(&made);
	return rc;
}

int imgp_patch_cmdline(struct imgp_patch *patch, const char *model, const char *edits)
{
	struct imgp_buf raw = { 0 }, old = { 0 }, new = { 0 }, line = { 0 }, note = { 0 };
	struct imgp_cmdline_site site = { 0 };
	struct imgp_cmdline_span span;
	struct imgp_survey *sv;
	const char *text, *cur;
	size_t ncur;
	bool existed = false, changed;
	int rc = imgp_cmdline_check(edits);

	sv = rc ? NULL : imgp_patch_survey(patch);
	if (!rc && !sv)
		rc = -ENOMEM;
	if (!rc)
		rc = imgp_cmdline_site_get(sv, model, &site);
	if (!rc)
		rc = imgp_patch_read(patch, site.part, site.path, IMGP_TEXT_MAX, &raw, &existed);
	if (!rc && !existed && !site.script)
		rc = imgp_fail(ENOENT, IMGP_PART_FMT " (%s): %s: no such file",
			       site.part->number, site.part->fstype, site.path);
	if (!rc)
		rc = imgp_cmdline_site_text(&site, raw.data, raw.len, existed, &old);
	if (rc)
		goto out;
	text = (const char *)old.data;
	rc = site.locate(&site, text, old.len, &span);
	/* Not set there: the line in force is the boot script's. */
	cur = span.found || !site.base ? text + span.start : site.base;
	ncur = span.found || !site.base ? span.end - span.start : strlen(site.base);
	if (!rc)
		rc = imgp_cmdline_edit(cur, ncur, edits, &line);
	if (rc >= 0 && site.script && memchr(line.data, '"', line.len))
		rc = imgp_fail(EINVAL, "a double quote cannot go into the script's setenv bootargs \"...\"");
	if (rc < 0) {
		imgp_fail_ctx(rc, IMGP_PART_FMT " (%s): %s", site.part->number,
			      site.part->fstype, site.path);
		goto out;
	}
	changed = rc == 1 || (!span.found && !site.base && line.len);
	/* A hook script that is not there is made only for a change. */
	if (!changed && site.script && !existed)
		goto out;
	if (changed)
		rc = splice(text, old.len, &span, &line, &new);
	else
		rc = imgp_buf_append(&new, text, old.len) ? imgp_fail(ENOMEM, "out of memory") : 0;
	if (!rc)
		rc = imgp_buf_printf(&note, "kernel command line (%s):\nbefore: %.*s%s\nafter:  %s%s",
				     site.what, (int)ncur, cur,
				     span.found ? "" : site.base ? " (the boot script's)" : "(not set)",
				     line.len ? (char *)line.data : "",
				     changed ? "" : " (unchanged)") ? -ENOMEM : 0;
	if (!rc && site.script)
		rc = write_script(patch, &site, &raw, existed, &new, (char *)note.data);
	else if (!rc)
		rc = imgp_patch_write(patch, site.part, site.path, new.data, new.len, true,
				      (char *)note.data);
out:
	imgp_cmdline_site_free(&site);
	imgp_buf_free(&note);
	imgp_buf_free(&line);
	imgp_buf_free(&new);
	imgp_buf_free(&old);
	imgp_buf_free(&raw);
	return rc;
}
