// SPDX-License-Identifier: MIT
/*
 * The U-Boot an image carries in the space before its first partition,
 * read (never run) for what it tells about the board: its version string
 * and its default environment, the NUL-separated "key=value" strings
 * U-Boot starts with when no saved environment is found. fdtfile= in it
 * names the tree U-Boot loads where the boot path leaves the choice to it
 * (extlinux's FDTDIR, Armbian's boot.scr without fdtfile= in armbianEnv.txt).
 *
 * Where each board family's documentation has it written:
 * - Rockchip: idbloader.img at sector 64, u-boot.itb at sector 16384
 *   (Debian's u-boot-install-rockchip, U-Boot's doc/board/rockchip);
 * - Allwinner: u-boot-sunxi-with-spl.bin at 8 KiB; 64-bit boards as
 *   Debian's u-boot-install-sunxi64 writes them: the SPL at 8 KiB and
 *   u-boot-sunxi-with-spl.fit.itb at 40 KiB (U-Boot's doc/board/allwinner);
 * - i.MX6: SPL at 1 KiB and u-boot.img at 69 KiB, or one u-boot.imx /
 *   u-boot-dtb.imx at 1 KiB (Debian's u-boot-imx README.Debian); i.MX8M:
 *   flash.bin at 33 KiB (8M, 8MM) or 32 KiB (8MN, 8MP) (U-Boot's
 *   doc/board/nxp).
 * A FIT's U-Boot image may be compressed (gzip, lzma); it is unpacked,
 * bounded, before its bytes are searched.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libfdt.h>
#include <lzma.h>
#include <zlib.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "fit/fit.h"
#include "boot/boot.h"
#include "core/endian.h"

#define KIB ((uint64_t)1024)
#define MIB (KIB * 1024)
/*
 * How much of a place is read: a U-Boot proper with its trees and
 * firmware is 1-2 MiB; 4 MiB bounds what a hostile image makes us read.
 */
#define PLACE_MAX (4 * MIB)
/* A compressed U-Boot unpacks to at most this (real ones: about 1 MiB). */
#define UNPACKED_MAX (16 * MIB)
/* Fewer "key=value" strings than this in a row are no environment. */
#define ENV_MIN_ENTRIES 3

enum magic { MAGIC_FDT, MAGIC_EGON, MAGIC_UIMAGE, MAGIC_IVT };

struct place {
	const char *what;
	uint64_t off;
	enum magic magic;
};

/* Tried in this order: a family's U-Boot proper before its first stage. */
static const struct place places[] = {
	{ "u-boot.itb at sector 16384 (Rockchip)", 16384 * 512, MAGIC_FDT },
	{ "u-boot-sunxi-with-spl.fit.itb at 40 KiB (Allwinner)", 40 * KIB, MAGIC_FDT },
	{ "u-boot-sunxi-with-spl.bin at 8 KiB (Allwinner)", 8 * KIB, MAGIC_EGON },
	{ "u-boot.img at 69 KiB (i.MX)", 69 * KIB, MAGIC_UIMAGE },
	{ "flash.bin at 33 KiB (i.MX8M)", 33 * KIB, MAGIC_IVT },
	{ "flash.bin at 32 KiB (i.MX8M)", 32 * KIB, MAGIC_IVT },
	{ "u-boot.imx at 1 KiB (i.MX)", 1 * KIB, MAGIC_IVT },
};

static bool has_magic(const uint8_t *h, enum magic m)
{
	switch (m) {
	case MAGIC_FDT:
		return get_be32(h) == FDT_MAGIC;
	case MAGIC_EGON:
		return memcmp(h + 4, "eGON.BT0", 8) == 0;
	case MAGIC_UIMAGE:
		/* A legacy image, or the FIT an SPL with SPL_LOAD_FIT loads. */
		return get_be32(h) == 0x27051956 || get_be32(h) == FDT_MAGIC;
	case MAGIC_IVT:
		/* The i.MX image vector table: tag 0xd1, length 0x0020, version 0x4x. */
		return h[0] == 0xd1 && h[1] == 0x00 && h[2] == 0x20 && (h[3] & 0xf0) == 0x40;
	}
	return false;
}

static bool is_key_char(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
}

/*
 * The length of the "key=value" string at p (up to its NUL, before end),
 * 0 when it is none: a key of name characters, printable value, a NUL.
 */
static size_t entry_len(const uint8_t *p, const uint8_t *end)
{
	const uint8_t *s = p;

	while (s < end && is_key_char(*s))
		s++;
	if (s == p || s >= end || *s != '=')
		return 0;
	for (s++; s < end && *s; s++)
		if ((*s < 0x20 || *s > 0x7e) && *s != '\t' && *s != '\n')
			return 0;
	return s < end ? (size_t)(s - p) : 0;
}

/* Keeps a copy of value (n bytes) in *out unless one was kept; 0 or -ENOMEM. */
static int keep(char **out, const char *value, size_t n)
{
	if (*out)
		return 0;
	*out = strndup(value, n);
	return *out ? 0 : imgp_fail(ENOMEM, "out of memory");
}

/* The settings imgpatch uses, from the environment block [p, end). */
static int take_env(const uint8_t *p, const uint8_t *end, struct imgp_uboot *ub)
{
	static const struct { const char *key; size_t off; } keys[] = {
		{ "fdtfile", offsetof(struct imgp_uboot, fdtfile) },
		{ "board", offsetof(struct imgp_uboot, board) },
		{ "board_name", offsetof(struct imgp_uboot, board_name) },
		{ "soc", offsetof(struct imgp_uboot, soc) },
		{ "vendor", offsetof(struct imgp_uboot, vendor) },
	};
	int rc = 0;

	while (!rc && p < end && *p) {
		size_t n = entry_len(p, end);
		const char *eq = memchr(p, '=', n);

		if (!n)
			break;
		for (size_t i = 0; !rc && i < sizeof(keys) / sizeof(keys[0]); i++)
			if ((size_t)(eq - (const char *)p) == strlen(keys[i].key) &&
			    !memcmp(p, keys[i].key, strlen(keys[i].key)))
				rc = keep((char **)((char *)ub + keys[i].off), eq + 1,
					  n - (size_t)(eq + 1 - (const char *)p));
		ub->nenv++;
		p += n + 1;
	}
	return rc;
}

/*
 * Finds the default environment in [buf, buf+len): a run of at least
 * ENV_MIN_ENTRIES "key=value" strings that holds a bootcmd= or fdtfile=.
 * Returns 1 with it read into ub, 0 when there is none, -ENOMEM.
 */
static int find_env(const uint8_t *buf, size_t len, struct imgp_uboot *ub)
{
	static const char *const anchors[] = { "fdtfile=", "bootcmd=" };
	const uint8_t *end = buf + len;

	for (size_t a = 0; a < sizeof(anchors) / sizeof(anchors[0]); a++) {
		size_t alen = strlen(anchors[a]);
		const uint8_t *at = buf;

		while ((at = memmem(at, (size_t)(end - at), anchors[a], alen))) {
			const uint8_t *start = at, *p;
			size_t count = 0;

			at += alen;
			if (start > buf && start[-1] != '\0')
				continue;
			if (!entry_len(start, end))
				continue;
			/* Back over the strings before it that are settings too. */
			while (start - buf >= 2 && start[-1] == '\0') {
				const uint8_t *prev = start - 1;

				while (prev > buf && prev[-1] != '\0')
					prev--;
				if (prev == start - 1 || entry_len(prev, start) != (size_t)(start - 1 - prev))
					break;
				start = prev;
			}
			for (p = start; p < end && *p; count++) {
				size_t n = entry_len(p, end);

				if (!n)
					break;
				p += n + 1;
			}
			if (count < ENV_MIN_ENTRIES)
				continue;
			return take_env(start, end, ub) ? -ENOMEM : 1;
		}
	}
	return 0;
}

/*
 * U-Boot proper's version string, "U-Boot 2023.01... (date - time ...)",
 * not the SPL's ("U-Boot SPL ..."): the version into ub. 0 or -ENOMEM.
 */
static int find_version(const uint8_t *buf, size_t len, struct imgp_uboot *ub)
{
	static const char word[] = "U-Boot 20";
	const uint8_t *end = buf + len, *at = buf;

	while (!ub->version && (at = memmem(at, (size_t)(end - at), word, sizeof(word) - 1))) {
		const uint8_t *v = at + strlen("U-Boot "), *s = v;

		at += sizeof(word) - 1;
		while (s < end && *s > 0x20 && *s < 0x7f)
			s++;
		/* "2023.01" at least, then " (" and the build date. */
		if (s - v < 7 || v[4] != '.' || end - s < 2 || memcmp(s, " (", 2) != 0)
			continue;
		if (keep(&ub->version, (const char *)v, (size_t)(s - v)))
			return -ENOMEM;
	}
	return 0;
}

/*
 * More room in out for a decoder, doubling from 64 KiB up to UNPACKED_MAX
 * (a real U-Boot unpacks to about 1 MiB: no 16 MiB up front): 0, 1 when
 * out is at the bound, -ENOMEM.
 */
static int unpack_grow(struct imgp_buf *out, size_t *room)
{
	size_t want = out->cap ? out->cap : 64 * KIB;

	if (out->len >= UNPACKED_MAX)
		return 1;
	if (want > UNPACKED_MAX - out->len)
		want = UNPACKED_MAX - out->len;
	if (imgp_buf_reserve_(out, want))
		return imgp_fail(ENOMEM, "out of memory");
	*room = out->cap - out->len - 1;
	if (*room > UNPACKED_MAX - out->len)
		*room = UNPACKED_MAX - out->len;
	return 0;
}

/* gzip or lzma (U-Boot's mkimage -C: the .lzma "alone" format) into out, bounded. */
static int unpack(const char *comp, const uint8_t *in, size_t len, struct imgp_buf *out)
{
	size_t room = 0;
	int rc;

	if (!strcmp(comp, "gzip")) {
		z_stream z = { 0 };

		if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
			return imgp_fail(ENOMEM, "out of memory");
		z.next_in = (Bytef *)in;
		z.avail_in = len > UINT32_MAX ? UINT32_MAX : (uInt)len;
		do {
			rc = unpack_grow(out, &room);
			if (rc)
				break;
			z.next_out = out->data + out->len;
			z.avail_out = (uInt)(room > UINT32_MAX ? UINT32_MAX : room);
			rc = inflate(&z, Z_FINISH);
			out->len = z.total_out;
		} while (rc == Z_OK || (rc == Z_BUF_ERROR && z.avail_out == 0));
		inflateEnd(&z);
		if (rc < 0 && rc != Z_BUF_ERROR && rc != -ENOMEM)
			return imgp_fail(EINVAL, "gzip: %s", z.msg ? z.msg : "broken stream");
		/* A stream cut short still holds what was read before the cut. */
		return rc == -ENOMEM ? rc : 0;
	}
	if (!strcmp(comp, "lzma")) {
		lzma_stream z = LZMA_STREAM_INIT;
		lzma_ret lr = LZMA_OK;

		if (lzma_alone_decoder(&z, 256 * MIB) != LZMA_OK)
			return imgp_fail(ENOMEM, "out of memory");
		z.next_in = in;
		z.avail_in = len;
		do {
			rc = unpack_grow(out, &room);
			if (rc)
				break;
			z.next_out = out->data + out->len;
			z.avail_out = room;
			lr = lzma_code(&z, LZMA_FINISH);
			out->len = (size_t)z.total_out;
		} while (lr == LZMA_OK);
		lzma_end(&z);
		if (rc < 0)
			return rc;
		return lr == LZMA_STREAM_END || lr == LZMA_OK || lr == LZMA_BUF_ERROR ? 0 :
		       imgp_fail(EINVAL, "lzma: broken stream");
	}
	return imgp_fail(ENOTSUP, "compression '%s'", comp);
}

/*
 * The FIT at buf (len bytes read of it): its U-Boot image's bytes,
 * unpacked. Returns 1 with them in out (or *data, *size pointing into
 * the FIT), 0 when it has no U-Boot image, -errno.
 */
static int fit_uboot(struct imgp_fit *fit, struct imgp_buf *out,
		     const uint8_t **data, size_t *size)
{
	for (size_t i = 0; i < fit->nimages; i++) {
		const struct imgp_fit_image *img = &fit->images[i];

		if (strcmp(img->type, "standalone") && strcmp(img->type, "firmware") &&
		    strcmp(img->type, "kernel"))
			continue;
		if (strcmp(img->name, "uboot") && strncmp(img->description, "U-Boot", 6))
			continue;
		if (!img->data)
			return 0;
		if (!strcmp(img->compression, "none")) {
			*data = img->data;
			*size = img->size;
			return 1;
		}
		if (unpack(img->compression, img->data, img->size, out))
			return -EINVAL;
		*data = out->data;
		*size = out->len;
		return 1;
	}
	return 0;
}

/* One place: 1 when U-Boot's environment is there (read into ub), 0, -ENOMEM. */
static int read_place(const struct imgp_image *img, const struct place *pl,
		      uint64_t limit, struct imgp_uboot *ub)
{
	uint8_t head[16];
	uint8_t *buf = NULL;
	struct imgp_buf unpacked = { 0 };
	const uint8_t *data;
	size_t len, size;
	int rc = 0;

	if (pl->off + sizeof(head) > limit ||
	    imgp_image_read_(img, pl->off, head, sizeof(head)) || !has_magic(head, pl->magic)) {
		imgp_errclear_();
		return 0;
	}
	len = (size_t)(limit - pl->off < PLACE_MAX ? limit - pl->off : PLACE_MAX);
	buf = malloc(len);
	if (!buf)
		return imgp_fail(ENOMEM, "out of memory");
	if (imgp_image_read_(img, pl->off, buf, len)) {
		imgp_errclear_();
		free(buf);
		return 0;
	}
	data = buf;
	size = len;
	if (get_be32(head) == FDT_MAGIC) {
		struct imgp_fit fit = { 0 };
		uint8_t *copy = malloc(len);

		if (!copy) {
			free(buf);
			return imgp_fail(ENOMEM, "out of memory");
		}
		memcpy(copy, buf, len);
		/* A FIT that does not parse, or has no U-Boot image: its raw bytes. */
		if (imgp_fit_parse_(&fit, copy, len) == 0) {
			const uint8_t *d;
			size_t n;

			if (fit_uboot(&fit, &unpacked, &d, &n) == 1) {
				rc = find_env(d, n, ub);
				if (rc == 1)
					rc = find_version(d, n, ub);
			}
			imgp_fit_free_(&fit);
		}
		imgp_errclear_();
		if (rc == -ENOMEM)
			goto out;
	}
	if (!ub->nenv)
		rc = find_env(data, size, ub);
	if (rc >= 0 && ub->nenv)
		rc = find_version(data, size, ub);
	if (rc >= 0)
		rc = ub->nenv ? 1 : 0;
out:
	imgp_buf_free(&unpacked);
	free(buf);
	return rc < 0 ? -ENOMEM : rc;
}

/* The tree U-Boot loads from fdtfile, else ${soc}-${board}.dtb as its pxe code does. */
static int pick_tree(struct imgp_uboot *ub)
{
	if (ub->fdtfile && *ub->fdtfile && strcmp(ub->fdtfile, "undefined")) {
		ub->tree = strdup(ub->fdtfile);
		ub->tree_from = "fdtfile";
	} else if (!ub->fdtfile && ub->soc && ub->board) {
		if (asprintf(&ub->tree, "%s-%s.dtb", ub->soc, ub->board) < 0)
			ub->tree = NULL;
		ub->tree_from = "${soc}-${board}.dtb";
	} else {
		return 0;
	}
	return ub->tree ? 0 : imgp_fail(ENOMEM, "out of memory");
}

int imgp_uboot_read_(const struct imgp_image *img, const struct imgp_table *tab,
		    struct imgp_uboot *ub)
{
	uint64_t limit = img->size;
	int rc = 0;

	memset(ub, 0, sizeof(*ub));
	/* Only the space before the first partition: never a filesystem's bytes. */
	for (size_t i = 0; tab && i < tab->nparts; i++)
		if (tab->parts[i].start && tab->parts[i].start < limit)
			limit = tab->parts[i].start;
	for (size_t i = 0; !rc && i < sizeof(places) / sizeof(places[0]); i++) {
		rc = read_place(img, &places[i], limit, ub);
		if (rc == 1) {
			ub->where = places[i].what;
			ub->offset = places[i].off;
		}
	}
	if (rc == 1)
		rc = pick_tree(ub);
	if (rc < 0)
		imgp_uboot_free_(ub);
	return rc < 0 ? rc : 0;
}

void imgp_uboot_free_(struct imgp_uboot *ub)
{
	free(ub->version);
	free(ub->fdtfile);
	free(ub->board);
	free(ub->board_name);
	free(ub->soc);
	free(ub->vendor);
	free(ub->tree);
	memset(ub, 0, sizeof(*ub));
}
