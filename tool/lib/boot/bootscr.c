// SPDX-License-Identifier: MIT
/*
 * U-Boot boot scripts: a legacy image (uImage) of type "script". Read to
 * tell whether boot.scr loads the file we are about to write, and made
 * exactly as mkimage makes them, so that a rewritten boot.scr is the one a
 * board's own build would have produced.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "imgpatch.h"
#include "core/core.h"
#include "boot/boot.h"
#include "core/endian.h"

#define UIMAGE_MAGIC 0x27051956u
#define UIMAGE_OS_LINUX 5
#define UIMAGE_TYPE_SCRIPT 6
#define UIMAGE_COMP_NONE 0
#define UIMAGE_NAME_MAX 32

/* The legacy image header; all multi-byte fields are big-endian. */
struct uimage_header {
	uint32_t magic;
	uint32_t hcrc;           /* over the header with hcrc zeroed */
	uint32_t time;
	uint32_t size;           /* data bytes after the header */
	uint32_t load;
	uint32_t ep;
	uint32_t dcrc;           /* over the data */
	uint8_t os;
	uint8_t arch;
	uint8_t type;
	uint8_t comp;
	uint8_t name[UIMAGE_NAME_MAX]; /* NUL-padded, not always NUL-terminated */
} __attribute__((packed));

_Static_assert(sizeof(struct uimage_header) == 64, "uImage header is 64 bytes");

static uint32_t be32(uint32_t v)
{
	return be32toh(v);
}

static const char *uimage_type_name(uint8_t type)
{
	static const char *const names[] = {
		"invalid", "standalone", "kernel", "ramdisk", "multi",
		"firmware", "script", "filesystem", "flat_dt",
	};

	return type < sizeof(names) / sizeof(names[0]) ? names[type] : "unknown";
}

static const char *uimage_comp_name(uint8_t comp)
{
	static const char *const names[] = {
		"none", "gzip", "bzip2", "lzma", "lzo", "lz4", "zstd",
	};

	return comp < sizeof(names) / sizeof(names[0]) ? names[comp] : "unknown";
}

/*
 * Script data is a list of big-endian part lengths ended by a 0 word, then
 * the parts, each but the last padded to 4 bytes. The first part is the
 * script. Finds it and checks that every part lies inside the data.
 */
static int bootscr_first_part(const uint8_t *data, uint32_t size,
			      uint32_t *off, uint32_t *len)
{
	uint64_t pos, end;
	uint32_t i, n, part;

	*off = *len = 0;
	for (n = 0;; n++) {
		if ((uint64_t)n * 4 + 4 > size)
			return imgp_fail(EINVAL,
					 "part length list has no terminating 0 word");
		if (get_be32(data + (size_t)n * 4) == 0)
			break;
	}
	if (n == 0)
		return imgp_fail(EINVAL, "script image has no parts");
	pos = (uint64_t)n * 4 + 4;
	for (i = 0; i < n; i++) {
		part = get_be32(data + (size_t)i * 4);
		end = pos + part;
		if (end > size)
			return imgp_fail(EINVAL,
					 "part %u (%u bytes at data offset %llu) is beyond the end of the data (%u bytes)",
					 i + 1, part, (unsigned long long)pos, size);
		if (i == 0) {
			*off = (uint32_t)pos;
			*len = part;
		}
		pos = i + 1 < n ? (end + 3) & ~(uint64_t)3 : end;
	}
	return 0;
}

int imgp_bootscr_parse_(struct imgp_bootscr *scr, const void *data, size_t len)
{
	const uint8_t *payload;
	struct uimage_header h, zeroed;
	uint32_t crc, size, off, tlen;
	int rc;

	memset(scr, 0, sizeof(*scr));
	if (len < sizeof(h))
		return imgp_fail(EINVAL,
				 "too short for a U-Boot image header (%zu bytes, need %zu)",
				 len, sizeof(h));
	memcpy(&h, data, sizeof(h));
	if (be32(h.magic) != UIMAGE_MAGIC)
		return imgp_fail(EINVAL,
				 "not a U-Boot image (magic 0x%08x, want 0x%08x)",
				 be32(h.magic), UIMAGE_MAGIC);
	zeroed = h;
	zeroed.hcrc = 0;
	crc = imgp_crc32_(0, &zeroed, sizeof(zeroed));
	if (crc != be32(h.hcrc))
		return imgp_fail(EBADMSG,
				 "header CRC mismatch (stored 0x%08x, computed 0x%08x): the image is corrupt",
				 be32(h.hcrc), crc);
	payload = (const uint8_t *)data + sizeof(h);
	size = be32(h.size);
	if (size > len - sizeof(h))
		return imgp_fail(EINVAL,
				 "data size %u is beyond the end of the file (%zu bytes after the header; truncated?)",
				 size, len - sizeof(h));
	crc = imgp_crc32_(0, payload, size);
	if (crc != be32(h.dcrc))
		return imgp_fail(EBADMSG,
				 "data CRC mismatch (stored 0x%08x, computed 0x%08x): the image is corrupt",
				 be32(h.dcrc), crc);
	if (h.type != UIMAGE_TYPE_SCRIPT)
		return imgp_fail(EINVAL, "image type is %s (%u), not script (%u)",
				 uimage_type_name(h.type), h.type,
				 UIMAGE_TYPE_SCRIPT);
	if (h.comp != UIMAGE_COMP_NONE)
		return imgp_fail(EINVAL,
				 "script is %s-compressed; compressed scripts are not supported",
				 uimage_comp_name(h.comp));
	rc = bootscr_first_part(payload, size, &off, &tlen);
	if (rc)
		return rc;

	scr->text = malloc((size_t)tlen + 1);
	if (!scr->text)
		return imgp_fail(ENOMEM, "out of memory");
	memcpy(scr->text, payload + off, tlen);
	scr->text[tlen] = '\0';
	scr->text_len = tlen;
	memcpy(scr->name, h.name, sizeof(h.name));
	scr->name[sizeof(h.name)] = '\0';
	scr->time = be32(h.time);
	scr->os = h.os;
	scr->arch = h.arch;
	scr->type = h.type;
	scr->comp = h.comp;
	return 0;
}

void imgp_bootscr_free_(struct imgp_bootscr *scr)
{
	free(scr->text);
	memset(scr, 0, sizeof(*scr));
}

bool imgp_bootscr_mentions_(const struct imgp_bootscr *scr, const char *word)
{
	/* memmem: a script may hold NUL bytes, the search must not stop there. */
	return scr->text && *word &&
		memmem(scr->text, scr->text_len, word, strlen(word)) != NULL;
}

/* Architecture numbers of U-Boot's image.h, under the names mkimage -A takes. */
static const struct {
	const char *name;
	uint8_t arch;
} uimage_arches[] = {
	{ "alpha", 1 },       { "arm", 2 },         { "x86", 3 },
	{ "ia64", 4 },        { "mips", 5 },        { "mips64", 6 },
	{ "powerpc", 7 },     { "ppc", 7 },         { "s390", 8 },
	{ "sh", 9 },          { "sparc", 10 },      { "sparc64", 11 },
	{ "m68k", 12 },       { "microblaze", 14 }, { "nios2", 15 },
	{ "blackfin", 16 },   { "avr32", 17 },      { "sandbox", 19 },
	{ "nds32", 20 },      { "or1k", 21 },       { "arm64", 22 },
	{ "arc", 23 },        { "x86_64", 24 },     { "xtensa", 25 },
	{ "riscv", 26 },
};

static int uimage_arch(const char *name, uint8_t *arch)
{
	size_t i;

	/* mkimage matches these names without regard to case. */
	for (i = 0; i < sizeof(uimage_arches) / sizeof(uimage_arches[0]); i++) {
		if (!strcasecmp(name, uimage_arches[i].name)) {
			*arch = uimage_arches[i].arch;
			return 0;
		}
	}
	return imgp_fail(EINVAL,
			 "unknown architecture '%s' (try arm64, arm, riscv, x86_64, x86)",
			 name);
}

int imgp_bootscr_make_(const char *text, size_t len, const char *name,
		      const char *arch, uint32_t time, struct imgp_buf *out)
{
	struct uimage_header h;
	uint8_t table[8];
	size_t nlen = name ? strlen(name) : 0;
	uint8_t archnum = 0;
	uint32_t crc;
	int rc;

	out->len = 0;
	if (out->data)
		out->data[0] = '\0';
	rc = uimage_arch(arch, &archnum);
	if (rc)
		return rc;
	if (nlen > UIMAGE_NAME_MAX)
		return imgp_fail(EINVAL,
				 "image name '%s' is %zu bytes long; U-Boot keeps at most %d",
				 name, nlen, UIMAGE_NAME_MAX);
	/* U-Boot's source command refuses a script of length 0, mkimage too. */
	if (len == 0)
		return imgp_fail(EINVAL, "the script is empty; U-Boot would not run it");
	if (len > UINT32_MAX - sizeof(table))
		return imgp_fail(EFBIG, "the script is too large (%zu bytes) for a U-Boot image",
				 len);

	/*
	 * mkimage writes a script as a multi-file image of one part: the
	 * part's length, the 0 that ends the list, then the script itself
	 * with no padding after it (only parts followed by another are padded).
	 */
	put_be32(table, (uint32_t)len);
	put_be32(table + 4, 0);
	crc = imgp_crc32_(0, table, sizeof(table));
	crc = imgp_crc32_(crc, text, len);

	memset(&h, 0, sizeof(h));
	h.magic = htobe32(UIMAGE_MAGIC);
	h.time = htobe32(time);
	h.size = htobe32((uint32_t)(len + sizeof(table)));
	h.dcrc = htobe32(crc);
	h.os = UIMAGE_OS_LINUX;
	h.arch = archnum;
	h.type = UIMAGE_TYPE_SCRIPT;
	h.comp = UIMAGE_COMP_NONE;
	if (nlen)
		memcpy(h.name, name, nlen);
	/* The header CRC covers the header with its own field still 0. */
	h.hcrc = htobe32(imgp_crc32_(0, &h, sizeof(h)));

	rc = imgp_buf_reserve_(out, sizeof(h) + sizeof(table) + len);
	if (!rc)
		rc = imgp_buf_append(out, &h, sizeof(h));
	if (!rc)
		rc = imgp_buf_append(out, table, sizeof(table));
	if (!rc)
		rc = imgp_buf_append(out, text, len);
	if (rc) {
		imgp_buf_free(out);
		return imgp_fail(ENOMEM, "out of memory");
	}
	return 0;
}
