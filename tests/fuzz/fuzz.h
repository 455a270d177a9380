/* SPDX-License-Identifier: MIT */
/*
 * Shared by the libFuzzer harnesses (tests/fuzz/fuzz-*.c): the entry point
 * libFuzzer calls, exact-size copies of the input so that AddressSanitizer
 * catches a read one byte past what the library was given, and the memory
 * files (memfile.c) that hold an input where the library wants a path.
 */
#ifndef IMGP_FUZZ_H
#define IMGP_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libfdt.h>

#include "dt/dt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A memory file, made once per process and rewritten for every input. */
struct fuzz_memfile {
	bool open;
	int fd;
	char path[64]; /* /proc/self/fd/N: what the library opens */
};

/*
 * Makes f hold exactly size bytes of data (made on first use, named name),
 * its offset at 0. Returns 0, or -1 with errno set.
 */
int fuzz_memfile_set(struct fuzz_memfile *f, const char *name,
		     const uint8_t *data, size_t size);

/* A malloc'd copy of exactly len bytes (one byte when len is 0); NULL on ENOMEM. */
static inline char *fuzz_dup(const void *data, size_t len)
{
	char *p = malloc(len ? len : 1);

	if (p && len)
		memcpy(p, data, len);
	return p;
}

/* A malloc'd NUL-terminated copy of len bytes (inner NULs cut it short). */
static inline char *fuzz_str(const void *data, size_t len)
{
	char *p = malloc(len + 1);

	if (p) {
		memcpy(p, data, len);
		p[len] = '\0';
	}
	return p;
}

/*
 * Splits [*pos, size) at the next NUL byte: the field's start and length,
 * and *pos moved past the NUL (or to size). Returns 1, or 0 when no bytes are
 * left.
 */
static inline int fuzz_field(const uint8_t *data, size_t size, size_t *pos,
			     const uint8_t **field, size_t *len)
{
	const uint8_t *nul;

	if (*pos >= size)
		return 0;
	*field = data + *pos;
	nul = memchr(*field, '\0', size - *pos);
	*len = nul ? (size_t)(nul - *field) : size - *pos;
	*pos += *len + (nul ? 1 : 0);
	return 1;
}

/*
 * The length of the device tree at data, from its header's totalsize (read
 * bytewise with fdt32_ld: a blob after another may be unaligned): 0 when
 * there is no tree there; a totalsize past size is cut to size when cut,
 * else 0.
 */
static inline size_t fuzz_fdt_len(const uint8_t *data, size_t size, bool cut)
{
	size_t total;

	if (size < sizeof(struct fdt_header) ||
	    fdt32_ld((const fdt32_t *)data) != FDT_MAGIC)
		return 0;
	total = fdt32_ld((const fdt32_t *)(data + 4));
	if (total <= size)
		return total;
	return cut ? size : 0;
}

/* imgp_dt_list_mmc_, its list freed. */
static inline void fuzz_list_mmc(const struct imgp_dtb *dtb)
{
	struct imgp_dt_mmc *list;
	size_t n;

	if (imgp_dt_list_mmc_(dtb, &list, &n, NULL) == 0)
		free(list);
}

#endif
