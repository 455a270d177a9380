// SPDX-License-Identifier: MIT
/*
 * FAT backend: removing a file (mdel) or a folder with all it holds
 * (mdeltree), as mtools does it on the private copy of a capture: the
 * entries marked free and the chains freed in the FATs, all of it within
 * what the copy was filled with, so the finish's comparison finds it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fs-fat-internal.h"

/* Whether mtools name name is target or lies under it (FAT names fold case). */
static bool fat_at_or_under(const char *name, const char *target, size_t tlen)
{
	return !strncasecmp(name, target, tlen) && (!name[tlen] || name[tlen] == '/');
}

/* Drops the names at or under target from a list the finish reads chains of. */
static void fat_forget(char **names, size_t *n, const char *target)
{
	size_t tlen = strlen(target), kept = 0;

	for (size_t i = 0; i < *n; i++) {
		if (fat_at_or_under(names[i], target, tlen))
			free(names[i]);
		else
			names[kept++] = names[i];
	}
	*n = kept;
}

int imgp_fat_remove_(struct imgp_fs *fs, const char *path)
{
	struct fat_priv *priv = fs->priv;
	char target[4200];
	const char *argv[] = { "mdel", "-i", priv->drive, target, NULL };
	size_t tlen;
	int rc, kind;

	if (priv->copy_fd < 0)
		return imgp_fail(EROFS, "filesystem is opened read-only");
	rc = imgp_fat_target_(path, target, sizeof(target));
	if (rc)
		return rc;
	tlen = strlen(target);
	while (tlen > 3 && target[tlen - 1] == '/')
		target[--tlen] = '\0';
	kind = imgp_fat_kind_(fs, target);
	if (kind < 0)
		return kind;
	if (kind == 0)
		return imgp_fail(ENOENT, "no such file or folder");
	if (kind == 2)
		argv[0] = "mdeltree";
	rc = imgp_fat_run_(fs, argv, imgp_fat_mtools_env_, NULL);
	if (rc)
		return rc;
	/* Gone: the finish asks mshowfat for the chains of what is still there. */
	fat_forget(priv->dirs, &priv->ndirs, target);
	fat_forget(priv->written, &priv->nwritten, target);
	return 0;
}
