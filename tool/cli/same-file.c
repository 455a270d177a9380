// SPDX-License-Identifier: MIT
/*
 * Whether two paths the user gave name one file: by what each resolves to,
 * never by its spelling. t/d.img, t/./d.img, ./t//d.img, t/../t/d.img, the
 * absolute path, a symbolic link to the file or to its folder and another
 * hard link are one file (device and inode); /dev/sdb and a
 * /dev/disk/by-id/ link to it are one card (device number). A file not
 * there yet is the one a run would make: its folder, resolved the same
 * way, plus its last name. A partition and the card it is on are not one
 * target, but writing both would write one over the other.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cli.h"

/*
 * What path names, in *st: the file, or when it is missing its folder,
 * with *name its last name (else NULL). False when neither can be known
 * (that path is never the same as another: what uses it fails on its own).
 */
static bool resolve(const char *path, struct stat *st, const char **name)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	bool found;

	*name = NULL;
	if (stat(path, st) == 0)
		return true;
	if (errno != ENOENT)
		return false;
	*name = slash ? slash + 1 : path;
	/* "t/", "t/." and "t/..": no file is made under such a name. */
	if (!**name || !strcmp(*name, ".") || !strcmp(*name, ".."))
		return false;
	dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	if (!dir)
		die("out of memory");
	found = stat(dir, st) == 0 && S_ISDIR(st->st_mode);
	free(dir);
	return found;
}

bool cli_same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	const char *na, *nb;

	if (!a || !b || !resolve(a, &sa, &na) || !resolve(b, &sb, &nb) || !na != !nb)
		return false;
	if (na)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino && !strcmp(na, nb);
	/* Two nodes of one device (a by-id link is followed; a copy made with mknod is not). */
	if (S_ISBLK(sa.st_mode) || S_ISBLK(sb.st_mode))
		return S_ISBLK(sa.st_mode) && S_ISBLK(sb.st_mode) && sa.st_rdev == sb.st_rdev;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* The disk that partition dev is on (from sysfs), else dev itself. */
static dev_t whole_disk(dev_t dev)
{
	char path[80], text[32];
	unsigned maj, min;
	bool found;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/partition", major(dev), minor(dev));
	if (access(path, F_OK))
		return dev;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/../dev", major(dev), minor(dev));
	f = fopen(path, "r");
	if (!f)
		return dev;
	found = fgets(text, sizeof(text), f) && sscanf(text, "%u:%u", &maj, &min) == 2;
	fclose(f);
	return found ? makedev(maj, min) : dev;
}

bool cli_disk_holds(const char *disk, const char *part)
{
	struct stat sd, sp;

	return disk && part && stat(disk, &sd) == 0 && stat(part, &sp) == 0 &&
	       S_ISBLK(sd.st_mode) && S_ISBLK(sp.st_mode) && sd.st_rdev != sp.st_rdev &&
	       whole_disk(sp.st_rdev) == sd.st_rdev;
}
