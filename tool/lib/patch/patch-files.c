// SPDX-License-Identifier: MIT
/*
 * Patch operations on files: fstab options, whole files, config.txt-style
 * lines, cmdline.txt tokens, symbolic links and U-Boot script images.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "fs/fs.h"
#include "text/text.h"
#include "boot/boot.h"
#include "patch/patch.h"
#include "core/epoch.h"

/* Partition spec to partition, with the message callers expect. */
static const struct imgp_part *files_part(struct imgp_patch *patch,
					  const char *spec)
{
	return imgp_patch_part_(patch, spec ? spec : "boot");
}

/*
 * What "rootflags=" becomes with fstab option edits applied to it, as
 * --fstab / would edit the root's entry: into out, "" when no option is
 * left. 1 when it changed, 0 when not, -errno (a bad edit named).
 */
static int rootflags_edit(const char *flags, const char *ops, struct imgp_buf *out)
{
	struct imgp_buf line = { 0 }, edited = { 0 }, plain = { 0 };
	struct imgp_fstab_entry e;
	int rc, changed;

	rc = imgp_buf_printf(&line, "root / auto %s 0 0\n", *flags ? flags : "defaults");
	if (rc) {
		rc = imgp_fail(ENOMEM, "out of memory");
		goto out;
	}
	changed = rc = imgp_fstab_edit_((char *)line.data, line.len, "/", ops, &edited);
	/* The kernel hands rootflags= to the filesystem as it is: no "defaults". */
	if (rc >= 0)
		rc = imgp_fstab_edit_((char *)edited.data, edited.len, "/", "-defaults", &plain);
	if (rc >= 0)
		rc = imgp_fstab_get_((char *)plain.data, plain.len, "/", &e);
	if (rc < 0)
		goto out;
	out->len = 0;
	rc = strcmp(e.options, "defaults") ? imgp_buf_printf(out, "%s", e.options) :
					      imgp_buf_printf(out, "%s", "");
	imgp_fstab_entry_free_(&e);
	rc = rc ? imgp_fail(ENOMEM, "out of memory") : changed;
out:
	imgp_buf_free(&line);
	imgp_buf_free(&edited);
	imgp_buf_free(&plain);
	return rc;
}

/*
 * /etc/fstab on a root imgpatch cannot write is refused. The root's own
 * mount options have another home: rootflags= on the kernel command
 * line, which the kernel (or the initramfs) mounts the root with. The
 * refusal gives the --cmdline edit that does what the --fstab edit
 * asked, made from the rootflags= the boot path's line has (btrfs's
 * subvol=root kept).
 */
static int fstab_refusal(struct imgp_patch *patch, const struct imgp_part *root,
			 const char *mountpoint, const char *ops)
{
	struct imgp_buf line = { 0 }, where = { 0 }, loader = { 0 };
	struct imgp_buf flags = { 0 }, edited = { 0 }, alt = { 0 };
	struct imgp_survey *sv;
	int rc;

	if (strcmp(mountpoint, "/"))
		return imgp_patch_refuse_root_(patch, root, IMGP_FSTAB_PATH, "");
	sv = imgp_patch_survey_(patch);
	if (!sv)
		return -ENOMEM;
	rc = imgp_survey_cmdline(sv, NULL, &line, &where, &loader);
	if (rc == -ENOMEM)
		goto out;
	if (rc) {
		rc = imgp_buf_printf(&alt, "the root's mount options can go into rootflags= on the kernel command line, which imgpatch cannot edit on this image: %s",
				     imgp_errmsg());
		goto refuse;
	}
	rc = imgp_cmdline_get_((char *)line.data, line.len, "rootflags", &flags);
	if (rc == 0)
		rc = imgp_buf_printf(&flags, "%s", "");
	if (rc < 0)
		goto out;
	rc = rootflags_edit((char *)flags.data, ops, &edited);
	if (rc < 0)
		goto out;
	if (rc == 0)
		rc = imgp_buf_printf(&alt, "rootflags= on the kernel command line (%s) needs no such change",
				     flags.len ? (char *)flags.data : "none");
	else
		rc = imgp_buf_printf(&alt, "the root's mount options can go into rootflags= on the kernel command line instead: imgpatch patch IMAGE --cmdline %s%s",
				     edited.len ? "+rootflags=" : "-rootflags",
				     (char *)edited.data);
refuse:
	rc = rc ? imgp_fail(ENOMEM, "out of memory") :
		  imgp_patch_refuse_root_(patch, root, IMGP_FSTAB_PATH, (char *)alt.data);
out:
	imgp_buf_free(&line);
	imgp_buf_free(&where);
	imgp_buf_free(&loader);
	imgp_buf_free(&flags);
	imgp_buf_free(&edited);
	imgp_buf_free(&alt);
	return rc;
}

int imgp_patch_fstab(struct imgp_patch *patch, const char *root,
		     const char *mountpoint, const char *ops)
{
	static const char fstab[] = "/etc/fstab";
	const struct imgp_part *part;
	struct imgp_buf old = { 0 }, new = { 0 };
	struct imgp_fstab_entry before, after;
	char note[1024];
	bool existed;
	int rc;

	part = imgp_patch_part_(patch, root ? root : "root");
	if (!part && !root && patch->survey && patch->survey->root_unread)
		return fstab_refusal(patch, patch->survey->root_unread, mountpoint, ops);
	if (!part)
		return -ENOENT;
	if (imgp_fs_may_hold_root_(part->fstype))
		return fstab_refusal(patch, part, mountpoint, ops);
	rc = imgp_patch_read_(patch, part, fstab, IMGP_TEXT_MAX, &old, &existed);
	if (!rc && !existed)
		rc = imgp_fail(ENOENT, IMGP_PART_FMT " (%s): %s: no such file",
			       part->number, part->fstype, fstab);
	if (rc)
		goto out;
	rc = imgp_fstab_edit_((char *)old.data, old.len, mountpoint, ops, &new);
	if (rc < 0) {
		imgp_fail_ctx(rc, IMGP_PART_FMT " (%s): %s", part->number,
			      part->fstype, fstab);
		goto out;
	}
	note[0] = '\0';
	if (imgp_fstab_get_((char *)old.data, old.len, mountpoint, &before) == 0) {
		if (imgp_fstab_get_((char *)new.data, new.len, mountpoint, &after) == 0) {
			snprintf(note, sizeof(note), "%s: options %s -> %s%s",
				 mountpoint, before.options, after.options,
				 rc ? "" : " (unchanged)");
			imgp_fstab_entry_free_(&after);
		}
		imgp_fstab_entry_free_(&before);
	}
	rc = imgp_patch_write_(patch, part, fstab, new.data, new.len, true,
			      note[0] ? note : NULL);
out:
	imgp_buf_free(&old);
	imgp_buf_free(&new);
	return rc;
}

int imgp_patch_put_file_(struct imgp_patch *patch, const char *part_spec,
			const char *path, const void *data, size_t len)
{
	return imgp_patch_put_file_mode_(patch, part_spec, path, data, len, 0);
}

int imgp_patch_put_file_mode_(struct imgp_patch *patch, const char *part_spec,
			     const char *path, const void *data, size_t len,
			     unsigned mode)
{
	const struct imgp_part *part = files_part(patch, part_spec);
	int rc;

	if (!part)
		return -ENOENT;
	/* Refused while planning, so that the commit never meets it. */
	if (mode && strcmp(part->fstype, "ext2") && strcmp(part->fstype, "ext3") &&
	    strcmp(part->fstype, "ext4"))
		return imgp_fail(ENOTSUP, IMGP_PART_FMT " (%s): %s: mode %04o: this filesystem keeps no permissions",
				 part->number, part->fstype, path, mode);
	rc = imgp_patch_write_(patch, part, path, data, len, false, NULL);
	if (!rc && mode)
		rc = imgp_patch_attr_(patch, part, path, (int)(mode & 07777), -1, -1);
	return rc;
}

/* One edit of an existing text file; edit() fills out, returns 1 if changed. */
typedef int (*text_edit_fn)(const char *text, size_t len, const void *arg,
			    struct imgp_buf *out);

static int patch_text(struct imgp_patch *patch, const char *part_spec,
		      const char *path, text_edit_fn edit, const void *arg,
		      const char *note)
{
	const struct imgp_part *part = files_part(patch, part_spec);
	struct imgp_buf old = { 0 }, new = { 0 };
	bool existed;
	int rc;

	if (!part)
		return -ENOENT;
	rc = imgp_patch_read_(patch, part, path, IMGP_TEXT_MAX, &old, &existed);
	if (!rc && !existed)
		rc = imgp_fail(ENOENT, IMGP_PART_FMT " (%s): %s: no such file",
			       part->number, part->fstype, path);
	if (!rc) {
		rc = edit(old.data ? (char *)old.data : "", old.len, arg, &new);
		if (rc < 0)
			imgp_fail_ctx(rc, IMGP_PART_FMT " (%s): %s", part->number,
				      part->fstype, path);
	}
	if (rc >= 0)
		rc = imgp_patch_write_(patch, part, path, new.data, new.len, true,
				      note);
	imgp_buf_free(&old);
	imgp_buf_free(&new);
	return rc;
}

struct line_arg {
	const char *key, *value, *section;
};

static int edit_line_set(const char *text, size_t len, const void *arg,
			 struct imgp_buf *out)
{
	const struct line_arg *a = arg;

	return imgp_text_set_line_(text, len, a->key, a->value, a->section, out);
}

static int edit_line_remove(const char *text, size_t len, const void *arg,
			    struct imgp_buf *out)
{
	const struct line_arg *a = arg;

	return imgp_text_remove_line_(text, len, a->key, out);
}

static int edit_token_set(const char *text, size_t len, const void *arg,
			  struct imgp_buf *out)
{
	return imgp_text_set_token_(text, len, arg, out);
}

static int edit_token_remove(const char *text, size_t len, const void *arg,
			     struct imgp_buf *out)
{
	return imgp_text_remove_token_(text, len, arg, out);
}

int imgp_patch_line_set_(struct imgp_patch *patch, const char *part,
			const char *path, const char *key, const char *value,
			const char *section)
{
	struct line_arg a = { key, value, section };

	return patch_text(patch, part, path, edit_line_set, &a, NULL);
}

int imgp_patch_line_remove_(struct imgp_patch *patch, const char *part,
			   const char *path, const char *key)
{
	struct line_arg a = { key, NULL, NULL };

	return patch_text(patch, part, path, edit_line_remove, &a, NULL);
}

int imgp_patch_token_set_(struct imgp_patch *patch, const char *part,
			 const char *path, const char *token)
{
	return patch_text(patch, part, path, edit_token_set, token, NULL);
}

int imgp_patch_token_remove_(struct imgp_patch *patch, const char *part,
			    const char *path, const char *key)
{
	return patch_text(patch, part, path, edit_token_remove, key, NULL);
}

struct yaml_arg {
	const char *header, *key, *entry;
};

static int edit_yaml_key(const char *text, size_t len, const void *arg,
			 struct imgp_buf *out)
{
	const struct yaml_arg *a = arg;

	return imgp_yaml_set_key_(text, len, a->header, a->key, a->entry, out);
}

int imgp_patch_yaml_key_(struct imgp_patch *patch, const char *part_spec,
			const char *path, const char *header, const char *key,
			const char *entry)
{
	const struct imgp_part *part = files_part(patch, part_spec);
	struct yaml_arg a = { header, key, entry };
	struct imgp_buf old = { 0 }, new = { 0 };
	bool existed = false;
	int rc;

	if (!part)
		return -ENOENT;
	rc = imgp_patch_read_(patch, part, path, IMGP_TEXT_MAX, &old, &existed);
	if (!rc && existed) {
		imgp_buf_free(&old);
		return patch_text(patch, part_spec, path, edit_yaml_key, &a, NULL);
	}
	/* No file: a removal has nothing to do, a new entry makes one. */
	if (!rc && entry) {
		rc = imgp_yaml_set_key_("", 0, header, key, entry, &new);
		if (rc >= 0)
			rc = imgp_patch_write_(patch, part, path, new.data, new.len,
					      true, NULL);
	}
	imgp_buf_free(&old);
	imgp_buf_free(&new);
	return rc;
}

struct fields_arg {
	const char *key, *value;
};

static int edit_fields_set(const char *text, size_t len, const void *arg,
			   struct imgp_buf *out)
{
	const struct fields_arg *a = arg;

	return imgp_text_set_fields_(text, len, a->key, a->value, out);
}

int imgp_patch_fields_set_(struct imgp_patch *patch, const char *part_spec,
			  const char *path, const char *key, const char *value)
{
	const struct imgp_part *part = files_part(patch, part_spec);
	struct fields_arg a = { key, value };
	struct imgp_buf old = { 0 };
	bool existed = false;
	int rc;

	if (!part)
		return -ENOENT;
	/* No file, nothing that names the key: nothing to keep in step. */
	rc = imgp_patch_read_(patch, part, path, IMGP_TEXT_MAX, &old, &existed);
	imgp_buf_free(&old);
	if (rc || !existed)
		return rc;
	return patch_text(patch, part_spec, path, edit_fields_set, &a, NULL);
}

struct list_arg {
	const char *path, *key, *word, *sections;
};

static int edit_list_add(const char *text, size_t len, const void *arg,
			 struct imgp_buf *out)
{
	const struct list_arg *a = arg;

	return imgp_list_add_(text, len, imgp_list_syntax_of_(a->path, a->key),
			     a->key, a->word, a->sections, out);
}

int imgp_patch_list_add_(struct imgp_patch *patch, const char *part,
			const char *path, const char *key, const char *word,
			const char *sections)
{
	struct list_arg a = { path, key, word, sections };

	return patch_text(patch, part, path, edit_list_add, &a, NULL);
}

/* The header time of a new script: SOURCE_DATE_EPOCH, else now. */
static int bootscr_time(uint32_t *out)
{
	int64_t epoch;
	int rc = imgp_source_date_epoch_(&epoch);

	if (rc)
		return rc;
	/* The legacy image header has 32 bits for it: refuse, never wrap. */
	if (epoch > (int64_t)UINT32_MAX)
		return imgp_fail(EINVAL, "SOURCE_DATE_EPOCH %" PRId64 " does not fit in a U-Boot image header (32 bits)",
				 epoch);
	*out = epoch >= 0 ? (uint32_t)epoch : (uint32_t)time(NULL);
	return 0;
}

int imgp_patch_bootscr_(struct imgp_patch *patch, const char *part_spec,
		       const char *path, const char *text, size_t len,
		       const char *name, const char *arch)
{
	const struct imgp_part *part = files_part(patch, part_spec);
	struct imgp_buf old = { 0 }, made = { 0 };
	struct imgp_bootscr scr;
	uint32_t when = 0;
	bool existed;
	int rc;

	if (!part)
		return -ENOENT;
	rc = bootscr_time(&when);
	if (rc)
		return rc;
	rc = imgp_patch_read_(patch, part, path, IMGP_TEXT_MAX, &old, &existed);
	if (rc)
		goto out;
	/* Same script already there: keep its time so a re-run changes nothing. */
	if (existed && imgp_bootscr_parse_(&scr, old.data, old.len) == 0) {
		if (scr.text_len == len && memcmp(scr.text, text, len) == 0)
			when = scr.time;
		imgp_bootscr_free_(&scr);
	}
	imgp_errclear_();
	rc = imgp_bootscr_make_(text, len, name ? name : "", arch ? arch : "arm64",
			       when, &made);
	if (!rc)
		rc = imgp_patch_write_(patch, part, path, made.data, made.len, false,
				      "U-Boot script image (mkimage -T script)");
out:
	imgp_buf_free(&old);
	imgp_buf_free(&made);
	return rc;
}
