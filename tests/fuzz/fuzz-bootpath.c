// SPDX-License-Identifier: MIT
/*
 * Fuzzes the boot paths' readers of their configuration (config.txt with
 * its [filters] and dtoverlay=/dtparam= lines, overlay_map.dtb,
 * postmarketOS's user.scr, extlinux.conf, armbianEnv.txt, BeagleBone's
 * uEnv.txt, Boot Loader Specification entries, grub.cfg) and the
 * effective tree built from what they read: the input is the boot
 * partition's files, each a path, NUL, and its content. A device tree's
 * content is as long as its header's totalsize says; any other runs to
 * the next NUL. A file whose name ends in .scr or .scr.uimg is given as
 * the script's text: the harness wraps it in a script image (mkimage -T
 * script) with correct CRCs, so that mutations reach the statements.
 *
 * The files sit in a filesystem in memory (tests/unit/memfs.c, which the
 * boot path unit tests use too), the only partition of a survey made there;
 * each boot path's probe is asked in the survey's order, the one that
 * answers describes the partition as a survey does, and
 * imgp_effective_build_ applies the overlays it names.
 * Every tree built must pass fdt_check_full.
 */
#include <errno.h>
#include <libfdt.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "boot/boot.h"
#include "boot/bootpath.h"
#include "core/endian.h"
#include "fuzz.h"
#include "../unit/memfs.h"
#include "disk/disk.h"

#define FILES_MAX 32
#define UIMAGE_HEADER 64

/* The boot partition's files, made anew for each input. */
static struct memfs files;

/* The boot paths a survey tries, in its order (the FIT's is fuzz-fit's). */
static const struct imgp_bootpath *const bootpaths[] = {
	&imgp_bootpath_extlinux_,
	&imgp_bootpath_armbian_,
	&imgp_bootpath_uenv_,
	&imgp_bootpath_rpi_,
	&imgp_bootpath_script_,
	&imgp_bootpath_bls_,
	&imgp_bootpath_grub_,
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* text as a single-part script image, as mkimage -T script -n postmarketos makes it. */
static uint8_t *wrap_script(const uint8_t *text, size_t len, size_t *out_len)
{
	static const uint8_t name[] = "postmarketos";
	uint8_t *p = calloc(1, UIMAGE_HEADER + 8 + len);

	if (!p)
		abort();
	put_be32(p, 0x27051956u);
	put_be32(p + 12, (uint32_t)(8 + len));
	p[28] = 5;       /* os: Linux */
	p[29] = 2;       /* arch: ARM */
	p[30] = 6;       /* type: script */
	memcpy(p + 32, name, sizeof(name) - 1);
	put_be32(p + UIMAGE_HEADER, (uint32_t)len);
	memcpy(p + UIMAGE_HEADER + 8, text, len);
	put_be32(p + 24, imgp_crc32_(0, p + UIMAGE_HEADER, 8 + len));
	put_be32(p + 4, imgp_crc32_(0, p, UIMAGE_HEADER));
	*out_len = UIMAGE_HEADER + 8 + len;
	return p;
}

static void load_files(const uint8_t *data, size_t size)
{
	size_t pos = 0;

	while (pos < size && files.n < FILES_MAX) {
		const uint8_t *field;
		size_t len;
		char *path;
		int rc;

		fuzz_field(data, size, &pos, &field, &len);
		path = fuzz_str(field, len);
		if (!path)
			abort();
		len = fuzz_fdt_len(data + pos, size - pos, true);
		if (len) {
			field = data + pos;
			pos += len;
		} else if (!fuzz_field(data, size, &pos, &field, &len)) {
			field = data;
			len = 0;
		}
		if (ends_with(path, ".scr") || ends_with(path, ".scr.uimg")) {
			size_t wrapped_len;
			uint8_t *wrapped = wrap_script(field, len, &wrapped_len);

			rc = memfs_add(&files, path, wrapped, wrapped_len);
			free(wrapped);
		} else {
			rc = memfs_add(&files, path, field, len);
		}
		free(path);
		if (rc)
			abort();
	}
}

static void survey(struct imgp_disk *disk)
{
	struct memfs *const fs[] = { &files };
	struct imgp_effective *trees = NULL;
	struct imgp_survey sv;
	size_t ntrees = 0;

	memset(&sv, 0, sizeof(sv));
	if (memfs_survey(&sv, disk, fs, bootpaths, sizeof(bootpaths) / sizeof(bootpaths[0])) == 0 &&
	    sv.bootpath && imgp_effective_build_(&sv, &trees, &ntrees) == 0) {
		const struct imgp_effective *picked;

		for (size_t i = 0; i < ntrees; i++)
			if (trees[i].dtb.fdt &&
			    fdt_check_full(trees[i].dtb.fdt, trees[i].dtb.bufsize) != 0)
				abort();
		/* As the doctor's and cat's --fdt pick one. */
		imgp_effective_pick_(trees, ntrees, NULL, &picked);
		imgp_effective_pick_(trees, ntrees, "pi4", &picked);
		imgp_effective_free_(trees, ntrees);
	}
	imgp_survey_close_(&sv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct imgp_part part = {
		.number = 1, .fstype = "vfat", .fslabel = "pmOS_boot",
	};
	struct imgp_disk disk;

	memset(&disk, 0, sizeof(disk));
	disk.tab.label = "dos";
	disk.tab.nparts = 1;
	disk.tab.parts = &part;
	load_files(data, size);
	survey(&disk);
	memfs_clear(&files);
	imgp_errclear_();
	return 0;
}
