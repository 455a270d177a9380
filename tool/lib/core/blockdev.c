// SPDX-License-Identifier: MIT
/*
 * A card in a reader: refuse to write a block device while it, or any of its
 * partitions, is mounted. The mount table names mounts by device number, so
 * the device's partitions are found through sysfs.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "imgpatch.h"

#define DEVS_MAX 256

/* Reads a "MAJ:MIN" sysfs dev file. */
static bool read_devnum(const char *path, dev_t *out)
{
	unsigned maj, min;
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f)
		return false;
	ok = fscanf(f, "%u:%u", &maj, &min) == 2;
	fclose(f);
	if (ok)
		*out = makedev(maj, min);
	return ok;
}

/* The device and its partitions: subdirectories with a "partition" file. */
static size_t blockdev_family(dev_t dev, dev_t *out, size_t max)
{
	char dir[64], path[600];
	struct dirent *e;
	size_t n = 0;
	DIR *d;

	out[n++] = dev;
	snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u", major(dev), minor(dev));
	d = opendir(dir);
	if (!d)
		return n;
	while (n < max && (e = readdir(d))) {
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/partition", dir, e->d_name);
		if (stat(path, &st) < 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s/dev", dir, e->d_name);
		if (read_devnum(path, &out[n]))
			n++;
	}
	closedir(d);
	return n;
}

int imgp_blockdev_check_unmounted(const char *path)
{
	dev_t family[DEVS_MAX];
	char line[4096];
	struct stat st;
	size_t n;
	FILE *f;
	int rc = 0;

	if (stat(path, &st) < 0 || !S_ISBLK(st.st_mode))
		return 0;
	n = blockdev_family(st.st_rdev, family, DEVS_MAX);
	f = fopen("/proc/self/mountinfo", "r");
	if (!f)
		return imgp_fail(errno, "cannot read the mount table: %s", strerror(errno));
	while (!rc && fgets(line, sizeof(line), f)) {
		unsigned maj, min;
		char mnt[1024];

		/* "36 35 98:0 /mnt1 /mnt2 ...": field 3 is the device number. */
		if (sscanf(line, "%*d %*d %u:%u %*s %1023s", &maj, &min, mnt) != 3)
			continue;
		for (size_t i = 0; i < n; i++) {
			if (family[i] != makedev(maj, min))
				continue;
			rc = imgp_fail(EBUSY, "%s is mounted on %s: unmount it first",
				       i ? "a partition of the device" : "the device", mnt);
			break;
		}
	}
	fclose(f);
	return rc;
}
