/* SPDX-License-Identifier: MIT */
/*
 * part/: partition tables read from an image.
 * Shared by the library's own files (and white-box tests), not part of
 * the client API in imgpatch.h. A file includes the folders' headers it uses.
 */
#ifndef IMGP_PART_H
#define IMGP_PART_H

#include "imgpatch.h"
#include "core/core.h"

/* ------------------------------------------ part.c, part-mbr.c, part-gpt.c */

#define IMGP_GPT_NAME_MAX 108 /* 36 UTF-16 code units as UTF-8, worst case */

struct imgp_part {
	int number;              /* 1-based; MBR logical partitions from 5 */
	uint64_t start;          /* bytes from the start of the image */
	uint64_t size;           /* bytes */
	char type[40];           /* MBR "0x0c"; GPT type GUID, lower case */
	const char *type_name;   /* "W95 FAT32 (LBA)", "Linux filesystem", or NULL */
	char name[IMGP_GPT_NAME_MAX + 1]; /* GPT partition name, "" on MBR */
	char uuid[40];           /* GPT unique partition GUID; MBR "DISKID-NN" */
	bool bootable;           /* MBR active flag / GPT legacy BIOS bootable */
	bool logical;            /* MBR logical partition inside an extended one */
	bool container;          /* MBR extended partition (holds no filesystem) */
	/* Filled by imgp_table_probe_fs(): */
	char fstype[16];         /* "vfat", "ext4", ...; "" when unknown */
	char fslabel[64];
	char fsuuid[40];
};

struct imgp_table {
	const char *label;       /* "gpt" or "dos" */
	char id[40];             /* disk GUID, or MBR disk identifier "0x1234abcd" */
	unsigned sector_size;
	bool used_backup;        /* GPT: primary header bad, backup header used */
	size_t nparts;
	struct imgp_part *parts; /* in table order */
};

/*
 * Finds a partition by number ("2"), GPT name or filesystem label, in that
 * order. Returns it, or NULL with a failure message listing the partitions.
 */
const struct imgp_part *imgp_table_find(const struct imgp_table *tab,
					const char *spec);
/* Short name used in messages: "p2". */
#define IMGP_PART_FMT "p%d"

/*
 * Reads the partition table. Returns 0, -ENOENT "no partition table (neither
 * GPT nor MBR)", -EINVAL for a table that is present but broken (bad CRC in
 * both GPT headers, entries outside the image, overlapping partitions, an
 * EBR loop), or an I/O error.
 */
int imgp_table_read(const struct imgp_image *img, struct imgp_table *tab);
void imgp_table_free(struct imgp_table *tab);
/* Identifies the filesystem of every partition (libblkid). Returns 0 or -errno. */
int imgp_table_probe_fs(const struct imgp_image *img, struct imgp_table *tab);

/* ------------------------------------------------------------------ disk.c */

/* The image's path and size. */
const char *imgp_disk_path(const struct imgp_disk *disk);
uint64_t imgp_disk_size(const struct imgp_disk *disk);
/* Its partition table, and its image (what imgp_fs_new() opens). */
const struct imgp_table *imgp_disk_table(const struct imgp_disk *disk);
struct imgp_image *imgp_disk_image(struct imgp_disk *disk);

/* A disk (imgpatch.h): the image and its partition table. */
struct imgp_disk {
	struct imgp_image img;
	struct imgp_table tab;
};

/*
 * Finds the first partition, in table order, whose filesystem (any supported
 * backend) has a file at path. Returns it, or NULL with -ENOENT's message
 * "no partition has /image.fit (searched p1 (vfat), p2 (ext4))", or the
 * message of a lookup that failed (a corrupt directory block) when no
 * other partition has it. A survey (below) finds files by the same rule.
 */
const struct imgp_part *imgp_disk_find_file(struct imgp_disk *disk,
					    const char *path);

/* ------------------------------------------------------------------ disk.c */

/*
 * imgp_disk_open() read-only of the file open as fd (path names it),
 * through a duplicate of fd, which the caller keeps; and of a regular
 * file filled on demand, as imgp_image_open_fd() and
 * imgp_image_open_filled() open its image. Return 0 or -errno.
 */
int imgp_disk_open_fd(struct imgp_disk **disk, struct imgp_ctx *ctx, int fd, const char *path);
int imgp_disk_open_filled(struct imgp_disk **disk, struct imgp_ctx *ctx, const char *path,
			  imgp_fill_fn fill, void *fill_ctx);

/* ----------------------- part.c, part-mbr.c, part-gpt.c: the label drivers */

/* One partition-label driver (libfdisk style); registered in part.c. */
struct imgp_label_ops {
	const char *name;
	/* Returns 1 when the label is present, 0 when not, <0 on I/O error. */
	int (*probe)(const struct imgp_image *img);
	/* Fills tab (label, id, sector_size, parts); returns 0 or -errno. */
	int (*read)(const struct imgp_image *img, struct imgp_table *tab);
};

extern const struct imgp_label_ops imgp_label_gpt;
extern const struct imgp_label_ops imgp_label_mbr;

/* Reads inside a partition, bounds-checked against it. Returns 0 or -ERANGE/-EIO. */
int imgp_part_read(const struct imgp_image *img, const struct imgp_part *part,
		   uint64_t off, void *buf, size_t len);

#endif /* IMGP_PART_H */
