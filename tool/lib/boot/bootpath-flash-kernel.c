// SPDX-License-Identifier: MIT
/*
 * Boot path "flash-kernel": Debian's flash-kernel (3.107, Debian 12) on a
 * root that holds /boot. At every kernel install or removal (its
 * /etc/kernel/postinst.d and postrm.d hooks) it copies the board's tree
 * into /boot/dtbs/VERSION/DIR/NAME (DTB-Id "DIR/NAME" of its machine
 * database, the board named by /etc/flash-kernel/machine or the running
 * kernel's /proc/device-tree/model), links /boot/dtb-VERSION and /boot/dtb
 * to it, and writes /boot/boot.scr anew from its boot script
 * (bootscr.uboot-generic) with /etc/default/flash-kernel's command line
 * and the /etc/flash-kernel/ubootenv.d snippets. The tree it copies is
 * /etc/flash-kernel/dtbs/NAME when there is one (found by name), else the
 * new kernel's: a tree edited in /boot/dtbs lasts until the next kernel,
 * one kept in /etc/flash-kernel/dtbs lasts, as the copy of the tree it was
 * made from. The script loads ${prefix}dtbs/${fk_kvers}/${fdtfile} (or
 * ${prefix}dtb-${fk_kvers} without fdtfile), fk_kvers the version it was
 * written for.
 *
 * Read (not copied) from flash-kernel 3.107, Debian's package:
 * /usr/share/flash-kernel/functions (find_dtb_file, handle_dtb,
 * gen_ubootenv, mkimage_script), /etc/flash-kernel/bootscript/
 * bootscr.uboot-generic and /usr/share/flash-kernel/db/all.db.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch-internal.h"

#define FK_FUNCTIONS "/usr/share/flash-kernel/functions"
#define FK_SCRIPT "/boot/boot.scr"
#define FK_DTBS "/etc/flash-kernel/dtbs"
#define FK_MARK "# flash-kernel: bootscr."

/* A root with flash-kernel installed and its /boot/boot.scr. */
static int fk_probe(struct imgp_survey *sv)
{
	const struct imgp_part *part;
	struct imgp_fs *fs;
	char *error = NULL;
	int rc;

	rc = imgp_survey_find(sv, FK_FUNCTIONS, &part, &error);
	free(error);
	if (rc == -ENOMEM)
		return rc;
	if (rc) {
		imgp_errclear();
		return 0;
	}
	fs = imgp_survey_fs(sv, part);
	if (!fs || imgp_fs_exists(fs, FK_SCRIPT) != 1) {
		imgp_errclear();
		return 0;
	}
	sv->boot = part;
	return 1;
}

static bool is_dtb(const char *name)
{
	size_t n = strlen(name);

	return n > 4 && !strcmp(name + n - 4, ".dtb");
}

/* The version boot.scr was written for: its "setenv fk_kvers 'V'". */
static int script_version(const struct imgp_survey *sv, char *out, size_t size)
{
	const char *text = sv->script.parsed ? sv->script.scr.text : NULL;
	const char *v = text ? strstr(text, "setenv fk_kvers '") : NULL;
	size_t n;

	if (!v)
		return -ENOENT;
	v += strlen("setenv fk_kvers '");
	n = strcspn(v, "'\n");
	if (!n || n >= size || v[n] != '\'')
		return -ENOENT;
	memcpy(out, v, n);
	out[n] = '\0';
	return 0;
}

/*
 * The trees of /boot/dtbs/VERSION/DIR/ (flash-kernel's copy; the link
 * beside them, dtbs/VERSION/NAME, is the same file), each with where the
 * next kernel's copy comes from. Returns 0 or -ENOMEM.
 */
static int add_trees(struct imgp_survey *sv, struct imgp_survey_bootinfo *bi,
		     const char *version, struct imgp_buf *kept)
{
	struct imgp_fs *fs = imgp_survey_fs(sv, sv->boot);
	struct imgp_buf dir = { 0 }, path = { 0 };
	char **subs = NULL;
	size_t nsubs = 0;
	int rc;

	rc = imgp_buf_printf(&dir, "/boot/dtbs/%s", version);
	if (rc || imgp_fs_list(fs, (char *)dir.data, &subs, &nsubs)) {
		imgp_errclear();
		imgp_buf_free(&dir);
		return rc;
	}
	for (size_t i = 0; !rc && i < nsubs; i++) {
		char **names = NULL;
		size_t n = 0;

		path.len = 0;
		rc = imgp_buf_printf(&path, "%s/%s", (char *)dir.data, subs[i]);
		if (rc || is_dtb(subs[i]) || imgp_fs_list(fs, (char *)path.data, &names, &n)) {
			imgp_errclear();
			continue;
		}
		for (size_t k = 0; !rc && k < n; k++) {
			struct imgp_survey_bootdt *dt;
			struct imgp_buf tree = { 0 };

			if (!is_dtb(names[k]))
				continue;
			rc = imgp_buf_printf(&tree, "%s/%s", (char *)path.data, names[k]);
			dt = rc ? NULL : imgp_bootinfo_add_dt(bi, NULL, (char *)tree.data);
			if (!dt)
				rc = imgp_fail(ENOMEM, "out of memory");
			if (!rc && asprintf(&dt->kept_in, FK_DTBS "/%s", names[k]) < 0) {
				dt->kept_in = NULL;
				rc = imgp_fail(ENOMEM, "out of memory");
			}
			if (!rc) {
				int there = imgp_fs_exists(fs, dt->kept_in);

				imgp_errclear();
				rc = imgp_buf_printf(kept, "%s%s %s", kept->len ? "; " : "",
						     dt->kept_in, there == 1 ?
						     "is there: flash-kernel copies it, a copy of the tree it was made from, for every new kernel" :
						     "is not there: flash-kernel copies the new kernel's tree, an edited tree file is not carried over");
			}
			imgp_buf_free(&tree);
		}
		imgp_fs_list_free(names, n);
	}
	imgp_fs_list_free(subs, nsubs);
	imgp_buf_free(&dir);
	imgp_buf_free(&path);
	return rc;
}

static int fk_describe(struct imgp_survey *sv, struct imgp_survey_bootinfo *bi)
{
	struct imgp_buf kept = { 0 };
	char version[128];
	bool ours = sv->script.parsed && imgp_bootscr_mentions(&sv->script.scr, FK_MARK);
	int rc;

	if (script_version(sv, version, sizeof(version)))
		return imgp_bootinfo_summary(bi, "flash-kernel " FK_SCRIPT "%s",
					     ours ? ", no fk_kvers in it" : " (not written by flash-kernel)");
	rc = imgp_bootinfo_summary(bi, "flash-kernel " FK_SCRIPT ", kernel %s, tree /boot/dtbs/%s/${fdtfile}",
				   version, version);
	if (!rc)
		rc = add_trees(sv, bi, version, &kept);
	if (!rc && asprintf(&bi->updates, "boot.scr and /boot/dtbs/VERSION are written anew by flash-kernel at every kernel install or removal (boot.scr from its boot script, /etc/default/flash-kernel and /etc/flash-kernel/ubootenv.d; an edit of boot.scr is not carried over); %s",
			    kept.len ? (char *)kept.data : "no tree under /boot/dtbs/" ) < 0) {
		bi->updates = NULL;
		rc = imgp_fail(ENOMEM, "out of memory");
	}
	imgp_buf_free(&kept);
	return rc;
}

const struct imgp_bootpath imgp_bootpath_flash_kernel = {
	.name = "flash-kernel",
	.probe = fk_probe,
	.describe = fk_describe,
};
