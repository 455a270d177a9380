// SPDX-License-Identifier: MIT
/*
 * The way an edited tree goes (patch-via.c, chosen through patch-tree.c):
 * imgp_via_parse for every word, and the way chosen on images the shell
 * suites' fixture scripts make with real tools (sfdisk, mkfs.vfat, mtools,
 * mke2fs, mkimage, dtc): a FIT whose boot script loads the override file,
 * one whose script does not, extlinux with an overlay list, and a U-Boot
 * script that has none. Every refusal's message is exact, and no image
 * changes (cmp against a copy made first).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"
#include "core/core.h"
#include "boot/boot.h"
#include "patch/patch.h"
#include "unit.h"
#include "disk/disk.h"

#define KV_FDT "fdt-smk-k26-revA-sck-kv-g-revB.dtb"
#define PINE "/usr/lib/linux-image-6.1.0-13-arm64/allwinner/sun50i-a64-pinephone-1.2.dtb"
#define EXTLINUX "extlinux /boot/extlinux/extlinux.conf, label l0, fdt " PINE \
		 ", overlays: /boot/dtbo//sdfix.dtbo"

struct plan {
	struct imgp_disk *disk;
	struct imgp_patch *patch;
};

/* Opens path and a plan on it; a fixture that does not open ends the test. */
static void plan_open(struct plan *p, const char *path)
{
	memset(p, 0, sizeof(*p));
	imgp_errclear_();
	if (imgp_disk_open(&p->disk, NULL, path, false) == 0 &&
	    imgp_patch_new(&p->patch, p->disk) == 0)
		return;
	printf("# %s: %s\n", path, imgp_errmsg());
	CHECK(0, "a fixture opens with a plan on it");
	exit(unit_done());
}

static void plan_close(struct plan *p)
{
	imgp_patch_free(p->patch);
	imgp_disk_close(p->disk);
}

static bool says(const char *want)
{
	bool same = !strcmp(imgp_errmsg(), want);

	if (!same)
		printf("#   got:  '%s'\n#   want: '%s'\n", imgp_errmsg(), want);
	imgp_errclear_();
	return same;
}

/* Makes path with a fixture script and a copy of it to compare with at the end. */
static bool fixture(const char *script, const char *path, const char *option)
{
	const char *env = getenv("IMGP_TEST_FIXTURES");
	char prog[PATH_MAX], copy[PATH_MAX + 8];
	const char *argv[] = { prog, path, option, NULL };
	const char *cp[] = { "cp", "--sparse=always", path, copy, NULL };

	snprintf(prog, sizeof(prog), "%s/%s", env && *env ? env : "tests/fixtures", script);
	snprintf(copy, sizeof(copy), "%s.orig", path);
	return unit_spawn(argv, NULL, NULL) == 0 && unit_spawn(cp, NULL, NULL) == 0;
}

static bool unchanged(const char *path)
{
	char copy[PATH_MAX + 8];
	const char *argv[] = { "cmp", "-s", path, copy, NULL };

	snprintf(copy, sizeof(copy), "%s.orig", path);
	return unit_spawn(argv, NULL, NULL) == 0;
}

/* ------------------------------------------------------------- the words */

static void test_parse(void)
{
	static const struct {
		const char *word;
		enum imgp_via via;
	} words[] = {
		{ "override", IMGP_VIA_OVERRIDE },
		{ "fit", IMGP_VIA_FIT },
		{ "overlay", IMGP_VIA_OVERLAY },
		{ "file", IMGP_VIA_FILE },
	};
	static const char *const bad[] = { "default", "FIT", "", "files", "fit " };
	enum imgp_via via;
	char what[96];

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		via = IMGP_VIA_DEFAULT;
		snprintf(what, sizeof(what), "parse: '%s'", words[i].word);
		CHECK(imgp_via_parse(words[i].word, &via) == 0 && via == words[i].via, what);
		snprintf(what, sizeof(what), "name: '%s' back", words[i].word);
		CHECK_STR(imgp_via_name_(via), words[i].word, what);
	}
	CHECK_STR(imgp_via_name_(IMGP_VIA_DEFAULT), "default", "name: the default's");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[96];

		via = IMGP_VIA_FILE;
		snprintf(what, sizeof(what), "parse: '%s' refused, the way untouched", bad[i]);
		CHECK(imgp_via_parse(bad[i], &via) == -EINVAL && via == IMGP_VIA_FILE, what);
		snprintf(want, sizeof(want), "unknown way '%s' (override, fit, overlay or file)", bad[i]);
		snprintf(what, sizeof(what), "parse: '%s': the message", bad[i]);
		CHECK(says(want), what);
	}
}

/* ------------------------------------------------------------------ FITs */

/* imgp_patch_tree_begin on path with opts; the plan is left open in p. */
static int tree_begin(struct plan *p, const char *path, const struct imgp_tree_opts *o)
{
	plan_open(p, path);
	return imgp_patch_tree_begin(p->patch, o);
}

static void test_fit(const char *kv, const char *nohook)
{
	struct imgp_tree_opts o = { .fdt = KV_FDT };
	struct plan p;

	CHECK(tree_begin(&p, kv, &o) == 0, "fit, hook: the tree loads");
	CHECK(!imgp_patch_boots_files_(p.patch), "fit, hook: the board boots a FIT's tree");
	CHECK(p.patch->tree_via == IMGP_VIA_OVERRIDE && !p.patch->dt_in_place,
	      "fit, hook: the way is the override file");
	CHECK_STR(p.patch->tree_why, "via override: the boot script loads /user-override.dtb",
		  "fit, hook: the plan's line");
	CHECK_STR(p.patch->tree_override, "/user-override.dtb", "fit, hook: the file");
	plan_close(&p);

	o.via = IMGP_VIA_FIT;
	CHECK(tree_begin(&p, kv, &o) == 0 && p.patch->tree_via == IMGP_VIA_FIT &&
	      p.patch->dt_in_place, "fit, hook, --via fit: back into the FIT");
	CHECK_STR(p.patch->tree_why, "via fit: --via fit", "fit, hook, --via fit: the plan's line");
	plan_close(&p);

	o.via = IMGP_VIA_OVERRIDE;
	o.asked_by = "the recipe's via";
	CHECK(tree_begin(&p, nohook, &o) == 0 && p.patch->tree_via == IMGP_VIA_OVERRIDE,
	      "fit, no hook, asked: the override file anyway");
	CHECK_STR(p.patch->tree_why, "via override: the recipe's via",
		  "fit, asked by a recipe: the plan names who asked");
	plan_close(&p);

	o.via = IMGP_VIA_DEFAULT;
	o.asked_by = NULL;
	CHECK(tree_begin(&p, nohook, &o) == 0 && p.patch->tree_via == IMGP_VIA_FIT &&
	      p.patch->dt_in_place, "fit, no hook: back into the FIT");
	CHECK_STR(p.patch->tree_why, "via fit: the boot script loads no override file",
		  "fit, no hook: the plan's line");
	plan_close(&p);

	o.via = IMGP_VIA_FILE;
	CHECK(tree_begin(&p, kv, &o) == -EINVAL &&
	      says("--via file: the tree is a FIT's (/image.fit): use --via override or fit") &&
	      p.patch->tree_via == IMGP_VIA_DEFAULT, "fit, --via file: refused");
	plan_close(&p);
	o.via = IMGP_VIA_OVERLAY;
	CHECK(tree_begin(&p, kv, &o) == -EINVAL &&
	      says("--via overlay: the tree is a FIT's (/image.fit): use --via override or fit"),
	      "fit, --via overlay: refused");
	plan_close(&p);
	o.via = IMGP_VIA_DEFAULT;
	o.model = "kv260";
	CHECK(tree_begin(&p, kv, &o) == -EINVAL &&
	      says("--model: the tree is a FIT's (/image.fit): pick it with --fdt"),
	      "fit, --model: refused, --fdt named");
	/* Nothing begun: the finish has no way to go. */
	CHECK(imgp_patch_tree_finish(p.patch) == -EINVAL && says("no device tree loaded"),
	      "finish without a tree: refused");
	plan_close(&p);
	CHECK(unchanged(kv) && unchanged(nohook), "fit: neither image changed");
}

/* ----------------------------------------------------------- tree files */

/* imgp_patch_via_choose_ on path: the way, its line and dt_in_place. */
static void chosen(const char *path, enum imgp_via asked, bool deletes, enum imgp_via want,
		   const char *why, const char *name)
{
	struct plan p;
	enum imgp_via via = IMGP_VIA_DEFAULT;
	const char *said = NULL;
	char what[160];
	int rc;

	plan_open(&p, path);
	rc = imgp_patch_via_choose_(p.patch, asked, deletes, &via, &said);
	snprintf(what, sizeof(what), "%s: the way", name);
	CHECK(rc == 0 && via == want, what);
	snprintf(what, sizeof(what), "%s: the plan's line", name);
	CHECK_STR(said, why, what);
	snprintf(what, sizeof(what), "%s: edited in place %s", name,
		 want == IMGP_VIA_FILE ? "yes" : "no");
	CHECK(rc == 0 && p.patch->dt_in_place == (want == IMGP_VIA_FILE), what);
	plan_close(&p);
}

static void refused(const char *path, enum imgp_via asked, bool deletes, const char *msg,
		    const char *name)
{
	struct plan p;
	enum imgp_via via = IMGP_VIA_DEFAULT;
	const char *said = "unset";
	char what[160];
	int rc;

	plan_open(&p, path);
	rc = imgp_patch_via_choose_(p.patch, asked, deletes, &via, &said);
	snprintf(what, sizeof(what), "%s: refused", name);
	CHECK(rc == -EINVAL && via == IMGP_VIA_DEFAULT && !p.patch->dt_in_place, what);
	snprintf(what, sizeof(what), "%s: the message", name);
	CHECK(says(msg), what);
	plan_close(&p);
}

static void test_extlinux(const char *ext)
{
	struct imgp_tree_opts o = { .deletes = true };
	const struct imgp_survey_bootdt *dt = NULL;
	struct plan p;

	chosen(ext, IMGP_VIA_DEFAULT, false, IMGP_VIA_OVERLAY,
	       "via overlay: the boot path applies a list of overlays: the change is a new one added to it, the owner's entries kept",
	       "extlinux");
	chosen(ext, IMGP_VIA_DEFAULT, true, IMGP_VIA_FILE,
	       "via file: an overlay cannot delete: the tree file is edited in place",
	       "extlinux, a deletion");
	chosen(ext, IMGP_VIA_FILE, false, IMGP_VIA_FILE, "via file: --via file",
	       "extlinux, --via file");
	chosen(ext, IMGP_VIA_OVERLAY, false, IMGP_VIA_OVERLAY, "via overlay: --via overlay",
	       "extlinux, --via overlay");
	refused(ext, IMGP_VIA_FIT, false,
		"--via fit: the board boots " EXTLINUX ", not a FIT: use --via overlay or file",
		"extlinux, --via fit");
	refused(ext, IMGP_VIA_OVERRIDE, false,
		"--via override: the board boots " EXTLINUX ", not a FIT: use --via overlay or file",
		"extlinux, --via override");
	refused(ext, IMGP_VIA_OVERLAY, true,
		"--via overlay: an overlay cannot delete a property or node: use --via file to edit the tree file in place",
		"extlinux, --via overlay with a deletion");

	/* Through the tree's begin: the tree the label names, edited in place. */
	CHECK(tree_begin(&p, ext, &o) == 0 && imgp_patch_boots_files_(p.patch),
	      "extlinux, begin: the board boots a tree file");
	CHECK(p.patch->tree_via == IMGP_VIA_FILE && p.patch->dt_in_place,
	      "extlinux, begin: a deletion goes into the file");
	CHECK_STR(p.patch->tree_why, "via file: an overlay cannot delete: the tree file is edited in place",
		  "extlinux, begin: the plan's line");
	CHECK(imgp_patch_find_booted_(p.patch, NULL, &dt) == 0 && dt,
	      "extlinux: the booted tree is found");
	CHECK_STR(dt ? dt->path : NULL, PINE, "extlinux: it is the label's fdt");
	CHECK(imgp_patch_find_booted_(p.patch, "nope", &dt) == -ENOENT &&
	      says(EXTLINUX ": no tree for model 'nope' (have: " PINE ")"),
	      "extlinux: an unknown model is refused, the trees listed");
	plan_close(&p);

	/* A new overlay where the owner's already fail to apply is refused. */
#define OWNERS_FAIL "--via overlay: a new overlay would not take effect: p1 (ext4): " \
	"/boot/dtbo//sdfix.dtbo: the base tree has no __symbols__ (compile it with dtc -@)"
	o.deletes = false;
	CHECK(tree_begin(&p, ext, &o) == -EINVAL &&
	      !strncmp(imgp_errmsg(), OWNERS_FAIL, strlen(OWNERS_FAIL)) &&
	      strstr(imgp_errmsg(), "; fix that overlay first, or use --via file") &&
	      p.patch->tree_via == IMGP_VIA_DEFAULT,
	      "extlinux, begin: an overlay that cannot take effect is refused");
	imgp_errclear_();
	plan_close(&p);
	CHECK(unchanged(ext), "extlinux: the image unchanged");
}

/* A U-Boot script with a hook: one tree file, no overlay list. */
static void test_script(const char *pmos)
{
	chosen(pmos, IMGP_VIA_DEFAULT, false, IMGP_VIA_FILE,
	       "via file: the boot path names one tree file and no overlay list: it is edited in place",
	       "script");
	refused(pmos, IMGP_VIA_OVERLAY, false,
		"--via overlay: U-Boot script /boot.scr, hook user.scr applies no list of overlays imgpatch can add to (its hook is one script the owner may have written, not a list): use --via file",
		"script, --via overlay");
	refused(pmos, IMGP_VIA_FIT, false,
		"--via fit: the board boots U-Boot script /boot.scr, hook user.scr, not a FIT: use --via file",
		"script, --via fit");
	CHECK(unchanged(pmos), "script: the image unchanged");
}

int main(void)
{
	static const char *const tools[] = { "sfdisk", "mke2fs", "debugfs", "mkfs.vfat", "mcopy",
					     "mkimage", "dtc", "xxd" };
	char kv[PATH_MAX], nohook[PATH_MAX], ext[PATH_MAX], pmos[PATH_MAX];
	bool made;

	if (unit_tmpdir_create("patch-via")) {
		printf("not ok 1 - cannot create a temporary directory\n");
		return 1;
	}
	atexit(unit_tmpdir_remove);
	test_parse();
	/* What the fixture scripts run. */
	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		char file[PATH_MAX];

		if (!unit_find_tool(tools[i], file, sizeof(file))) {
			SKIP_TOOL("the way chosen on images", tools[i]);
			return unit_done();
		}
	}
	unit_path_keep(kv, sizeof(kv), "kv.img");
	unit_path_keep(nohook, sizeof(nohook), "nohook.img");
	unit_path_keep(ext, sizeof(ext), "extlinux.img");
	unit_path_keep(pmos, sizeof(pmos), "pmos.img");
	made = fixture("mkimage-kv260.sh", kv, NULL) &&
	       fixture("mkimage-kv260.sh", nohook, "--no-hook") &&
	       fixture("mkimage-extlinux.sh", ext, "--fdt") &&
	       fixture("mkimage-pmos.sh", pmos, NULL);
	CHECK(made, "fixtures: the fixture scripts make the four images");
	if (!made)
		return unit_done();
	test_fit(kv, nohook);
	test_extlinux(ext);
	test_script(pmos);
	return unit_done();
}
