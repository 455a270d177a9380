// SPDX-License-Identifier: MIT
/*
 * U-Boot boot scripts: a legacy image (uImage) of type "script". Read only,
 * to tell whether boot.scr loads the file we are about to write.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"

#define UIMAGE_MAGIC 0x27051956u
#define UIMAGE_TYPE_SCRIPT 6
#define UIMAGE_COMP_NONE 0

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
	uint8_t name[32];        /* NUL-padded, not always NUL-terminated */
} __attribute__((packed));

_Static_assert(sizeof(struct uimage_header) == 64, "uImage header is 64 bytes");

static uint32_t be32(uint32_t v)
{
	return be32toh(v);
}

static uint32_t be32_at(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
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
		if (be32_at(data + (size_t)n * 4) == 0)
			break;
	}
	if (n == 0)
		return imgp_fail(EINVAL, "script image has no parts");
	pos = (uint64_t)n * 4 + 4;
	for (i = 0; i < n; i++) {
		part = be32_at(data + (size_t)i * 4);
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

int imgp_bootscr_parse(struct imgp_bootscr *scr, const void *data, size_t len)
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
	crc = imgp_crc32(0, &zeroed, sizeof(zeroed));
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
	crc = imgp_crc32(0, payload, size);
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

void imgp_bootscr_free(struct imgp_bootscr *scr)
{
	free(scr->text);
	memset(scr, 0, sizeof(*scr));
}

bool imgp_bootscr_mentions(const struct imgp_bootscr *scr, const char *word)
{
	/* memmem: a script may hold NUL bytes, the search must not stop there. */
	return scr->text && *word &&
		memmem(scr->text, scr->text_len, word, strlen(word)) != NULL;
}
