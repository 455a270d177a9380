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
	/* Filled by imgp_fs_identify_() (fs/): */
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
const struct imgp_part *imgp_table_find_(const struct imgp_table *tab,
					const char *spec);
/* Short name used in messages: "p2". */
#define IMGP_PART_FMT "p%d"

/* What libblkid reads at each end of a partition or disk, at most. */
#define IMGP_PROBE_SPAN ((uint64_t)1 << 20)

/*
 * Reads the partition table. Returns 0, -ENOENT "no partition table (neither
 * GPT nor MBR)", -EINVAL for a table that is present but broken (bad CRC in
 * both GPT headers, entries outside the image, overlapping partitions, an
 * EBR loop), or an I/O error.
 */
int imgp_table_read_(const struct imgp_image *img, struct imgp_table *tab);
void imgp_table_free_(struct imgp_table *tab);

/* ----------------------- part.c, part-mbr.c, part-gpt.c: the label drivers */

/* One partition-label driver (libfdisk style); registered in part.c. */
struct imgp_label_ops {
	const char *name;
	/* Returns 1 when the label is present, 0 when not, <0 on I/O error. */
	int (*probe)(const struct imgp_image *img);
	/* Fills tab (label, id, sector_size, parts); returns 0 or -errno. */
	int (*read)(const struct imgp_image *img, struct imgp_table *tab);
};

extern const struct imgp_label_ops imgp_label_gpt_;
extern const struct imgp_label_ops imgp_label_mbr_;

/* Reads inside a partition, bounds-checked against it. Returns 0 or -ERANGE/-EIO. */
int imgp_part_read_(const struct imgp_image *img, const struct imgp_part *part,
		   uint64_t off, void *buf, size_t len);

#endif /* IMGP_PART_H */
