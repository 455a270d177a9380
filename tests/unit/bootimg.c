// SPDX-License-Identifier: MIT
/*
 * The boot path tests' image (bootimg.h): partitions whose files are in
 * memory (memfs.c), surveyed with every boot path of the registry, and
 * the questions the tests ask of what the paths answer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bootimg.h"
#include "unit.h"
#include "patch/patch.h"

const char *const bootimg_paths[BOOTIMG_NPATHS] = {
	"fit", "extlinux", "armbian", "uenv", "rpi", "flash-kernel", "script", "efi",
	"bls", "grub",
};

void bootimg_init(struct bootimg *im, size_t nparts)
{
	static const char *const types[] = { "vfat", "ext4" };
	static const char *const labels[] = { "BOOT", "rootfs" };

	memset(im, 0, sizeof(*im));
	for (size_t i = 0; i < nparts; i++) {
		im->parts[i].number = (int)i + 1;
		snprintf(im->parts[i].fstype, sizeof(im->parts[i].fstype), "%s", types[i]);
		snprintf(im->parts[i].fslabel, sizeof(im->parts[i].fslabel), "%s", labels[i]);
	}
	im->disk.tab.label = "dos";
	im->disk.tab.nparts = nparts;
	im->disk.tab.parts = im->parts;
	im->disk.img.path = (char *)"card.img";
}

void bootimg_free(struct bootimg *im)
{
	if (im->sv)
		imgp_survey_free(im->sv);
	im->sv = NULL;
	memfs_clear(&im->fs[0]);
	memfs_clear(&im->fs[1]);
}

void bootimg_put(struct bootimg *im, int part, const char *path, const char *text)
{
	if (memfs_add_text(&im->fs[part - 1], path, text))
		abort();
}

void bootimg_put_script(struct bootimg *im, int part, const char *path, const char *name,
			const char *text)
{
	struct imgp_buf img = { 0 };

	if (imgp_bootscr_make_(text, strlen(text), name, "arm64", 0, &img) ||
	    memfs_add(&im->fs[part - 1], path, img.data, img.len))
		abort();
	imgp_buf_free(&img);
}

int bootimg_survey(struct bootimg *im)
{
	const struct imgp_bootpath *paths[BOOTIMG_NPATHS];
	struct memfs *fs[2] = { NULL, NULL };
	int rc;

	for (size_t i = 0; i < BOOTIMG_NPATHS; i++)
		if (!(paths[i] = imgp_bootpath_named_(bootimg_paths[i])))
			abort();
	for (size_t i = 0; i < im->disk.tab.nparts; i++)
		fs[i] = &im->fs[i];
	if (im->sv)
		imgp_survey_free(im->sv);
	im->sv = calloc(1, sizeof(*im->sv));
	if (!im->sv)
		abort();
	rc = memfs_survey(im->sv, &im->disk, fs, paths, BOOTIMG_NPATHS);
	return rc;
}

static const char *bootimg_path(const struct bootimg *im)
{
	return im->sv->bootpath_name ? im->sv->bootpath_name : "(none)";
}

const char *bootimg_overlays(const struct bootimg *im, size_t i)
{
	static char joined[2048];
	const struct imgp_survey_bootdt *dt;
	size_t at = 0;

	joined[0] = '\0';
	if (i >= im->sv->bootinfo.ndts)
		return "(no tree)";
	dt = &im->sv->bootinfo.dts[i];
	for (size_t k = 0; k < dt->noverlays && at < sizeof(joined); k++)
		at += (size_t)snprintf(joined + at, sizeof(joined) - at, "%s%s", k ? " " : "",
				       dt->overlays[k]);
	return joined;
}

const char *bootimg_tree(const struct bootimg *im, size_t i)
{
	return i < im->sv->bootinfo.ndts ? im->sv->bootinfo.dts[i].path : "(no tree)";
}

const char *bootimg_summary(const struct bootimg *im)
{
	return im->sv->bootinfo.summary ? im->sv->bootinfo.summary : "(none)";
}

const char *bootimg_claimed(const struct bootimg *im)
{
	static char out[64];

	snprintf(out, sizeof(out), "%s p%d", bootimg_path(im), im->sv->boot ? im->sv->boot->number : 0);
	return out;
}

/* Why the last call failed, for a check's name and a failure's note. */
static void note_error(int rc)
{
	if (rc)
		printf("#   rc %d: %s\n", rc, imgp_errmsg());
}

void bootimg_expect_cmdline(struct bootimg *im, const char *model, const char *line,
			    const char *where, const char *name)
{
	struct imgp_buf got = { 0 }, at = { 0 }, loader = { 0 };
	int rc = imgp_survey_cmdline(im->sv, model, &got, &at, &loader);
	char check[256];

	note_error(rc);
	if (!rc && (imgp_buf_printf(&got, "%s", "") || imgp_buf_printf(&at, "%s", "")))
		abort();
	snprintf(check, sizeof(check), "%s: the command line", name);
	CHECK_STR(rc ? NULL : (char *)got.data, line, check);
	snprintf(check, sizeof(check), "%s: where it is kept", name);
	CHECK_STR(rc ? NULL : (char *)at.data, where, check);
	imgp_buf_free(&got);
	imgp_buf_free(&at);
	imgp_buf_free(&loader);
}

void bootimg_expect_cmdline_refused(struct bootimg *im, const char *model, int want,
				    const char *msg, const char *name)
{
	struct imgp_buf got = { 0 }, at = { 0 }, loader = { 0 };
	int rc = imgp_survey_cmdline(im->sv, model, &got, &at, &loader);
	char check[256];

	snprintf(check, sizeof(check), "%s: refused (%d)", name, want);
	CHECK(rc == want, check);
	note_error(rc == want ? 0 : rc);
	snprintf(check, sizeof(check), "%s: the message says why", name);
	CHECK_STR(imgp_errmsg(), msg, check);
	imgp_buf_free(&got);
	imgp_buf_free(&at);
	imgp_buf_free(&loader);
}

int bootimg_overlay_site(struct bootimg *im, size_t i, const char *name, const char *sections,
			 struct imgp_overlay_site *site, struct imgp_buf *list)
{
	struct imgp_patch *patch;
	struct imgp_boot_view boot;
	bool existed = false;
	int rc;

	memset(site, 0, sizeof(*site));
	list->len = 0;
	if (!im->sv->bootpath->overlay_site || i >= im->sv->bootinfo.ndts)
		return -ENOTSUP;
	if (imgp_patch_new(&patch, &im->disk))
		abort();
	/* The plan reads the image through this survey, as it would through its own. */
	patch->survey = im->sv;
	patch->boot_part = im->sv->boot;
	imgp_patch_boot_view_(patch, &boot);
	rc = im->sv->bootpath->overlay_site(&boot, &im->sv->bootinfo.dts[i], name,
					    im->sv->generator, site);
	if (!rc)
		rc = imgp_patch_list_add_(patch, "boot", site->list, site->key, site->word,
					 sections);
	if (!rc)
		rc = imgp_patch_read_(patch, im->sv->boot, site->list, IMGP_TEXT_MAX, list,
				     &existed);
	if (!rc)
		rc = imgp_buf_printf(list, "%s", "");
	patch->survey = NULL;
	imgp_patch_free(patch);
	note_error(rc);
	return rc;
}

