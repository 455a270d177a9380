// SPDX-License-Identifier: MIT
/*
 * A FIT read from a file of a partition's filesystem: piecewise through
 * the file's map where the backend maps files, else whole.
 */
#include <errno.h>
#include <string.h>

#include "imgpatch.h"
#include "core/core.h"
#include "fs/fs.h"
#include "fit/fit.h"

int imgp_fit_load_file_(struct imgp_fit *fit, struct imgp_fs *fs, const char *path)
{
	struct imgp_file_map map;
	struct imgp_reader rd;
	struct imgp_buf raw = { 0 };
	size_t len;
	int rc;

	memset(fit, 0, sizeof(*fit));
	rc = imgp_fs_map_file_(fs, path, &map);
	if (rc == 0) {
		rc = imgp_file_map_reader_(fs->img, &map, &rd);
		if (rc) {
			imgp_file_map_free_(&map);
			return rc;
		}
		rc = imgp_fit_load_(fit, &rd);
	} else if (rc == -ENOTSUP) {
		/* A filesystem whose files cannot be mapped: the FIT read whole. */
		imgp_errclear_();
		rc = imgp_fs_read_file_(fs, path, IMGP_FIT_MAX, &raw);
		if (rc)
			return rc;
		rc = imgp_fit_parse_(fit, imgp_buf_steal_(&raw, &len), len);
	} else {
		return rc;
	}
	return rc ? imgp_fail_ctx(rc, IMGP_FS_PATH_CTX(fs, path)) : 0;
}
