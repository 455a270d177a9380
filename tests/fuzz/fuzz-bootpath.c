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
 * The files sit in a filesystem in memory (a backend of this harness), the
 * only partition of a survey made here; each boot path's probe is asked in
 * the survey's order, the one that answers describes the partition as a
 * survey does, and imgp_effective_build applies the overlays it names.
 * Every tree built must pass fdt_check_full.
 */
#include <errno.h>
#include <libfdt.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "fs/fs.h"
#include "boot/boot.h"
#include "boot/bootpath.h"
#include "core/endian.h"
#include "fuzz.h"

#define FILES_MAX 32
#define UIMAGE_HEADER 64

struct mem_file {
	char *path;
	uint8_t *data;
	size_t len;
};

static struct mem_file files[FILES_MAX];
static size_t nfiles;

/* The boot paths a survey tries, in its order (the FIT's is fuzz-fit's). */
static const struct imgp_bootpath *const bootpaths[] = {
	&imgp_bootpath_extlinux,
	&imgp_bootpath_armbian,
	&imgp_bootpath_uenv,
	&imgp_bootpath_rpi,
	&imgp_bootpath_script,
	&imgp_bootpath_bls,
	&imgp_bootpath_grub,
};

static struct mem_file *mem_find(const char *path)
{
	for (size_t i = 0; i < nfiles; i++)
		if (strcmp(files[i].path, path) == 0)
			return &files[i];
	return NULL;
}

/* Whether path is a directory: a prefix of some file's path, up to a '/'. */
static bool mem_is_dir(const char *path)
{
	size_t n = strlen(path);

	if (n && path[n - 1] == '/')
		n--;
	if (n == 0)
		return true;
	for (size_t i = 0; i < nfiles; i++)
		if (strncmp(files[i].path, path, n) == 0 && files[i].path[n] == '/')
			return true;
	return false;
}

static int mem_open(struct imgp_fs *fs)
{
	(void)fs;
	return 0;
}

static void mem_close(struct imgp_fs *fs)
{
	(void)fs;
}

static int mem_read_file(struct imgp_fs *fs, const char *path, size_t max,
			 struct imgp_buf *out)
{
	const struct mem_file *f = mem_find(path);

	(void)fs;
	if (!f)
		return mem_is_dir(path) ? imgp_fail(EISDIR, "is a directory") :
					  imgp_fail(ENOENT, "not found");
	if (f->len > max)
		return imgp_fail(EFBIG, "larger than %zu bytes", max);
	out->len = 0;
	return imgp_buf_append(out, f->data, f->len);
}

static int mem_exists(struct imgp_fs *fs, const char *path)
{
	(void)fs;
	return mem_find(path) || mem_is_dir(path);
}

static int mem_readlink(struct imgp_fs *fs, const char *path, struct imgp_buf *out)
{
	(void)fs;
	(void)out;
	return mem_exists(fs, path) ? imgp_fail(EINVAL, "not a symbolic link") :
				      imgp_fail(ENOENT, "not found");
}

/* The names in dir: files, and the first component of deeper paths once each. */
static int mem_list(struct imgp_fs *fs, const char *dir, char ***names, size_t *n)
{
	size_t dlen = strlen(dir);

	(void)fs;
	if (dlen && dir[dlen - 1] == '/')
		dlen--;
	if (!mem_is_dir(dir))
		return mem_find(dir) ? imgp_fail(ENOTDIR, "not a directory") :
				       imgp_fail(ENOENT, "not found");
	for (size_t i = 0; i < nfiles; i++) {
		const char *name;
		size_t len;
		bool seen = false;

		if (strncmp(files[i].path, dir, dlen) != 0 || files[i].path[dlen] != '/')
			continue;
		name = files[i].path + dlen + 1;
		len = strcspn(name, "/");
		if (!len)
			continue;
		for (size_t k = 0; k < *n && !seen; k++)
			seen = strlen((*names)[k]) == len && strncmp((*names)[k], name, len) == 0;
		if (!seen && imgp_fs_names_add(names, n, name, len))
			return -ENOMEM;
	}
	return 0;
}

static bool handles_nothing(const char *fstype)
{
	(void)fstype;
	return false;
}

static const struct imgp_fs_ops mem_ops = {
	.name = "memory",
	.handles = handles_nothing,
	.open = mem_open,
	.close = mem_close,
	.read_file = mem_read_file,
	.exists = mem_exists,
	.readlink = mem_readlink,
	.list = mem_list,
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
	put_be32(p + 24, imgp_crc32(0, p + UIMAGE_HEADER, 8 + len));
	put_be32(p + 4, imgp_crc32(0, p, UIMAGE_HEADER));
	*out_len = UIMAGE_HEADER + 8 + len;
	return p;
}

static void load_files(const uint8_t *data, size_t size)
{
	size_t pos = 0;

	nfiles = 0;
	while (pos < size && nfiles < FILES_MAX) {
		const uint8_t *field;
		size_t len;
		struct mem_file *f = &files[nfiles];

		fuzz_field(data, size, &pos, &field, &len);
		f->path = fuzz_str(field, len);
		len = fuzz_fdt_len(data + pos, size - pos, true);
		if (len) {
			field = data + pos;
			pos += len;
		} else if (!fuzz_field(data, size, &pos, &field, &len)) {
			field = data;
			len = 0;
		}
		if (ends_with(f->path, ".scr") || ends_with(f->path, ".scr.uimg"))
			f->data = wrap_script(field, len, &f->len);
		else {
			f->data = (uint8_t *)fuzz_dup(field, len);
			f->len = len;
		}
		if (!f->path || !f->data)
			abort();
		nfiles++;
	}
}

static void free_files(void)
{
	for (size_t i = 0; i < nfiles; i++) {
		free(files[i].path);
		free(files[i].data);
	}
	nfiles = 0;
}

/* What survey.c's survey_script finds: the boot script, parsed. */
static void read_script(struct imgp_survey *sv)
{
	static const char *const paths[] = {
		"/boot.scr.uimg", "/boot.scr", "/boot/boot.scr.uimg", "/boot/boot.scr",
	};

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]) && !sv->script.path; i++) {
		const struct mem_file *f = mem_find(paths[i]);

		if (!f)
			continue;
		sv->script.path = paths[i];
		sv->script.parse_rc = imgp_bootscr_parse(&sv->script.scr, f->data, f->len);
		sv->script.parsed = sv->script.parse_rc == 0;
	}
}

static void survey(struct imgp_disk *disk)
{
	struct imgp_effective *trees = NULL;
	struct imgp_survey sv;
	size_t ntrees = 0;

	memset(&sv, 0, sizeof(sv));
	sv.disk = disk;
	sv.fit_path = IMGP_FIT_PATH;
	sv.fs = calloc(1, sizeof(*sv.fs));
	sv.fs_open = calloc(1, sizeof(*sv.fs_open));
	sv.fs_rc = calloc(1, sizeof(*sv.fs_rc));
	sv.fs_error = calloc(1, sizeof(*sv.fs_error));
	if (!sv.fs || !sv.fs_open || !sv.fs_rc || !sv.fs_error)
		abort();
	sv.fs[0] = (struct imgp_fs){ .ops = &mem_ops, .part = &disk->tab.parts[0] };
	sv.fs_open[0] = true;
	for (size_t i = 0; i < sizeof(bootpaths) / sizeof(bootpaths[0]) && !sv.boot; i++)
		if (bootpaths[i]->probe(&sv) > 0)
			sv.bootpath = bootpaths[i];
	if (sv.bootpath) {
		sv.bootpath_name = sv.bootpath->name;
		read_script(&sv);
		sv.hook = sv.bootpath->hook ? sv.bootpath->hook(&sv) : NULL;
		sv.hook_loaded = sv.hook && sv.script.parsed &&
				 imgp_bootscr_mentions(&sv.script.scr, sv.hook);
		if (sv.bootpath->describe(&sv, &sv.bootinfo) == 0 &&
		    imgp_effective_build(&sv, &trees, &ntrees) == 0) {
			const struct imgp_effective *picked;

			for (size_t i = 0; i < ntrees; i++)
				if (trees[i].dtb.fdt &&
				    fdt_check_full(trees[i].dtb.fdt, trees[i].dtb.bufsize) != 0)
					abort();
			/* As the doctor's and cat's --fdt pick one. */
			imgp_effective_pick(trees, ntrees, NULL, &picked);
			imgp_effective_pick(trees, ntrees, "pi4", &picked);
			imgp_effective_free(trees, ntrees);
		}
	}
	imgp_survey_close(&sv);
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
	free_files();
	imgp_errclear();
	return 0;
}
