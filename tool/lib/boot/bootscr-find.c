// SPDX-License-Identifier: MIT
/*
 * The boot script of a filesystem, until bootscr.c offers the lookup that
 * info, patch's boot-hook check and the doctor each need: U-Boot's distro
 * boot tries boot.scr.uimg before boot.scr, and so does this.
 */
#include <errno.h>

#include "imgpatch-internal.h"

/* A boot script is a few kilobytes; the bound keeps a hostile one cheap. */
#define BOOTSCR_FIND_MAX ((size_t)1 << 20)

static const char *const bootscr_paths[] = { "/boot.scr.uimg", "/boot.scr" };

int imgp_bootscr_find(struct imgp_fs *fs, const char **path,
		      struct imgp_bootscr *scr)
{
	struct imgp_buf buf = { 0 };
	int rc = 0;

	*path = NULL;
	for (size_t i = 0; i < sizeof(bootscr_paths) / sizeof(bootscr_paths[0]); i++) {
		rc = imgp_fs_exists(fs, bootscr_paths[i]);
		if (rc == 0)
			continue;
		if (rc > 0)
			rc = imgp_fs_read_file(fs, bootscr_paths[i], BOOTSCR_FIND_MAX, &buf);
		if (!rc)
			rc = imgp_bootscr_parse(scr, buf.data, buf.len);
		if (rc) {
			imgp_fail_ctx(rc, "%s", bootscr_paths[i]);
			break;
		}
		*path = bootscr_paths[i];
		rc = 1;
		break;
	}
	imgp_buf_free(&buf);
	return rc;
}
