// SPDX-License-Identifier: MIT
/*
 * The structure of a FIT without its payloads. A FIT with embedded data is
 * one flattened tree whose "data" properties hold the kernel and ramdisk, a
 * hundred megabytes; libfdt needs the whole blob in memory. So the tree is
 * walked here through a reader, token by token, and copied with libfdt's
 * sequential writer into a skeleton where every value larger than a bound
 * is left empty; where the value lies in the file is recorded instead. The
 * skeleton is then checked and read with libfdt like any tree.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libfdt.h>

#include "imgpatch.h"
#include "fit/fit.h"

/* Bounds on what a hostile file may make us hold or walk. */
#define SKEL_MAX ((size_t)32 << 20)       /* skeleton and strings block */
#define SKEL_DEPTH 64
#define SKEL_NAME_MAX 4096
#define SKEL_RSV_MAX 1024
#define SKEL_WINDOW ((size_t)64 << 10)   /* read-ahead of the token walk */

/* A buffered, forward-mostly cursor over the reader. */
struct cursor {
	const struct imgp_reader *rd;
	uint64_t pos, end;               /* position, end of the struct block */
	uint8_t *win;
	uint64_t win_off;
	size_t win_len;
};

static int cursor_fill(struct cursor *c, size_t need)
{
	size_t n;
	int rc;

	if (c->pos >= c->win_off && c->pos + need <= c->win_off + c->win_len)
		return 0;
	if (need > c->end - c->pos || c->pos > c->end)
		return imgp_fail(EINVAL, "broken FIT structure: truncated at offset %llu",
				 (unsigned long long)c->pos);
	n = c->end - c->pos < SKEL_WINDOW ? (size_t)(c->end - c->pos) : SKEL_WINDOW;
	if (n < need)
		n = need;
	rc = c->rd->read(c->rd->ctx, c->pos, c->win, n);
	if (rc)
		return rc;
	c->win_off = c->pos;
	c->win_len = n;
	return 0;
}

static int cursor_u32(struct cursor *c, uint32_t *out)
{
	int rc = cursor_fill(c, 4);

	if (rc)
		return rc;
	*out = fdt32_ld((const fdt32_t *)(c->win + (c->pos - c->win_off)));
	c->pos += 4;
	return 0;
}

/* A NUL-terminated node name, then the padding to 4 bytes. */
static int cursor_name(struct cursor *c, char *name)
{
	size_t len = 0;
	int rc;

	for (;;) {
		rc = cursor_fill(c, 1);
		if (rc)
			return rc;
		name[len] = (char)c->win[c->pos - c->win_off];
		c->pos++;
		if (name[len] == '\0')
			break;
		if (++len >= SKEL_NAME_MAX)
			return imgp_fail(EINVAL, "broken FIT structure: node name longer than %d bytes",
					 SKEL_NAME_MAX);
	}
	c->pos = (c->pos + 3) & ~(uint64_t)3;
	return 0;
}

/* The sequential writer grows its buffer on demand, within SKEL_MAX. */
static int skel_grow(void **fdt, size_t *size)
{
	size_t bigger = *size * 2;
	void *p;
	int err;

	if (bigger > SKEL_MAX)
		return imgp_fail(EFBIG, "FIT structure without payloads is larger than %zu MiB",
				 SKEL_MAX >> 20);
	p = malloc(bigger);
	if (!p)
		return imgp_fail(ENOMEM, "out of memory");
	err = fdt_resize(*fdt, p, (int)bigger);
	if (err) {
		free(p);
		return imgp_fail(EINVAL, "fdt_resize: %s", fdt_strerror(err));
	}
	free(*fdt);
	*fdt = p;
	*size = bigger;
	return 0;
}

#define SKEL_CALL(call)                                                       \
	do {                                                                  \
		int err_;                                                     \
		while ((err_ = (call)) == -FDT_ERR_NOSPACE) {                 \
			rc = skel_grow(&s->fdt, &s->size);                    \
			if (rc)                                               \
				return rc;                                    \
		}                                                             \
		if (err_)                                                     \
			return imgp_fail(EINVAL, "broken FIT structure: %s", \
					 fdt_strerror(err_));                 \
	} while (0)

struct skel {
	void *fdt;
	size_t size;
	const char *strings;
	uint32_t strings_len;
	size_t keep_max;
	uint32_t totalsize;              /* of the original tree */
	int node;                        /* depth-first ordinal of the open node */
	struct imgp_fit_elided *el;
	size_t nel;
};

static int skel_elide(struct skel *s, const char *prop, uint64_t off, uint32_t len)
{
	struct imgp_fit_elided *grown = realloc(s->el, (s->nel + 1) * sizeof(*grown));

	if (!grown)
		return imgp_fail(ENOMEM, "out of memory");
	s->el = grown;
	grown[s->nel].node = s->node;
	grown[s->nel].prop = strdup(prop);
	grown[s->nel].off = off;
	grown[s->nel].len = len;
	if (!grown[s->nel].prop)
		return imgp_fail(ENOMEM, "out of memory");
	s->nel++;
	return 0;
}

static int skel_prop(struct skel *s, struct cursor *c)
{
	uint32_t len, nameoff;
	const char *name;
	void *val;
	int rc;

	rc = cursor_u32(c, &len);
	if (!rc)
		rc = cursor_u32(c, &nameoff);
	if (rc)
		return rc;
	if (nameoff >= s->strings_len ||
	    !memchr(s->strings + nameoff, '\0', s->strings_len - nameoff))
		return imgp_fail(EINVAL, "broken FIT structure: property name offset %u outside the strings block",
				 nameoff);
	name = s->strings + nameoff;
	if (len > c->end - c->pos)
		return imgp_fail(EINVAL, "broken FIT structure: property '%s' (%u bytes) runs past the structure block",
				 name, len);
	if (len > s->keep_max) {
		rc = skel_elide(s, name, c->pos, len);
		if (rc)
			return rc;
		SKEL_CALL(fdt_property(s->fdt, name, NULL, 0));
	} else {
		SKEL_CALL(fdt_property_placeholder(s->fdt, name, (int)len, &val));
		if (len) {
			rc = cursor_fill(c, len);
			if (rc)
				return rc;
			memcpy(val, c->win + (c->pos - c->win_off), len);
		}
	}
	c->pos = (c->pos + len + 3) & ~(uint64_t)3;
	return 0;
}

static int skel_walk(struct skel *s, struct cursor *c)
{
	char name[SKEL_NAME_MAX];
	int depth = 0, rc = 0;
	uint32_t tag;

	s->node = -1;
	for (;;) {
		rc = cursor_u32(c, &tag);
		if (rc)
			break;
		if (tag == FDT_BEGIN_NODE) {
			if (depth == 0 && s->node >= 0) {
				rc = imgp_fail(EINVAL, "broken FIT structure: more than one root node");
				break;
			}
			if (++depth > SKEL_DEPTH) {
				rc = imgp_fail(EINVAL, "broken FIT structure: nodes nested deeper than %d",
					       SKEL_DEPTH);
				break;
			}
			rc = cursor_name(c, name);
			if (rc)
				break;
			s->node++;
			SKEL_CALL(fdt_begin_node(s->fdt, name));
		} else if (tag == FDT_END_NODE) {
			if (depth-- == 0) {
				rc = imgp_fail(EINVAL, "broken FIT structure: unbalanced end of node");
				break;
			}
			SKEL_CALL(fdt_end_node(s->fdt));
		} else if (tag == FDT_PROP) {
			if (depth == 0) {
				rc = imgp_fail(EINVAL, "broken FIT structure: property outside any node");
				break;
			}
			rc = skel_prop(s, c);
			if (rc)
				break;
		} else if (tag == FDT_END) {
			if (depth || s->node < 0)
				rc = imgp_fail(EINVAL, "broken FIT structure: ends inside a node");
			break;
		} else if (tag != FDT_NOP) {
			rc = imgp_fail(EINVAL, "broken FIT structure: bad tag 0x%x at offset %llu",
				       tag, (unsigned long long)(c->pos - 4));
			break;
		}
	}
	return rc;
}

/* The header fields the walk relies on, checked against the file. */
static int skel_header(const struct imgp_reader *rd, struct fdt_header *h)
{
	uint64_t total, off_struct, size_struct, off_strings, size_strings;
	int rc;

	if (rd->size < sizeof(*h))
		return imgp_fail(EINVAL, "not a FIT: file is only %llu bytes",
				 (unsigned long long)rd->size);
	rc = rd->read(rd->ctx, 0, h, sizeof(*h));
	if (rc)
		return rc;
	if (fdt_magic(h) != FDT_MAGIC)
		return imgp_fail(EINVAL, "not a FIT: %s", fdt_strerror(-FDT_ERR_BADMAGIC));
	/* Version 17 headers carry the struct block's size; older FITs are not made. */
	if (fdt_version(h) < 17 || fdt_last_comp_version(h) > 17)
		return imgp_fail(ENOTSUP, "FIT header version %u is not read piecewise",
				 fdt_version(h));
	total = fdt_totalsize(h);
	off_struct = fdt_off_dt_struct(h);
	size_struct = fdt_size_dt_struct(h);
	off_strings = fdt_off_dt_strings(h);
	size_strings = fdt_size_dt_strings(h);
	if (total > rd->size)
		return imgp_fail(EINVAL, "FIT structure is %llu bytes but the file has only %llu (truncated?)",
				 (unsigned long long)total, (unsigned long long)rd->size);
	if (off_struct < sizeof(*h) || off_struct + size_struct > total ||
	    off_strings < sizeof(*h) || off_strings + size_strings > total ||
	    fdt_off_mem_rsvmap(h) < sizeof(*h) || fdt_off_mem_rsvmap(h) > total - 16 ||
	    (off_struct & 3) || (fdt_off_mem_rsvmap(h) & 7))
		return imgp_fail(EINVAL, "broken FIT structure: %s", fdt_strerror(-FDT_ERR_TRUNCATED));
	if (size_strings > SKEL_MAX)
		return imgp_fail(EFBIG, "FIT strings block is larger than %zu MiB", SKEL_MAX >> 20);
	return 0;
}

static int skel_rsvmap(struct skel *s, const struct imgp_reader *rd,
		       const struct fdt_header *h)
{
	uint64_t off = fdt_off_mem_rsvmap(h);
	fdt64_t e[2];
	int rc = 0;

	for (int i = 0;; i++, off += sizeof(e)) {
		if (i == SKEL_RSV_MAX || off + sizeof(e) > fdt_totalsize(h))
			return imgp_fail(EINVAL, "broken FIT structure: memory reservations do not end");
		rc = rd->read(rd->ctx, off, e, sizeof(e));
		if (rc)
			return rc;
		if (!fdt64_ld(&e[0]) && !fdt64_ld(&e[1]))
			break;
		SKEL_CALL(fdt_add_reservemap_entry(s->fdt, fdt64_ld(&e[0]), fdt64_ld(&e[1])));
	}
	SKEL_CALL(fdt_finish_reservemap(s->fdt));
	return 0;
}

/*
 * The walk numbered nodes depth-first; the finished skeleton has the same
 * nodes in the same order, so the numbers become libfdt node offsets.
 */
static int skel_node_offsets(struct skel *s)
{
	int node = 0, ordinal = 0, depth = 0;
	size_t i = 0;

	while (i < s->nel && node >= 0) {
		while (i < s->nel && s->el[i].node == ordinal)
			s->el[i++].node = node;
		node = fdt_next_node(s->fdt, node, &depth);
		ordinal++;
	}
	if (i < s->nel)
		return imgp_fail(EINVAL, "broken FIT structure: %s", fdt_strerror(node));
	return 0;
}

static int skel_build(struct skel *s, const struct imgp_reader *rd)
{
	struct fdt_header h;
	struct cursor c = { .rd = rd };
	char *strings = NULL;
	int rc;

	rc = skel_header(rd, &h);
	if (rc)
		return rc;
	s->totalsize = fdt_totalsize(&h);
	s->strings_len = fdt_size_dt_strings(&h);
	strings = malloc(s->strings_len ? s->strings_len : 1);
	c.win = malloc(SKEL_WINDOW);
	if (!strings || !c.win) {
		rc = imgp_fail(ENOMEM, "out of memory");
		goto out;
	}
	rc = rd->read(rd->ctx, fdt_off_dt_strings(&h), strings, s->strings_len);
	if (rc)
		goto out;
	s->strings = strings;
	s->size = 64 << 10;
	s->fdt = malloc(s->size);
	if (!s->fdt) {
		rc = imgp_fail(ENOMEM, "out of memory");
		goto out;
	}
	{
		int err = fdt_create(s->fdt, (int)s->size);

		if (err) {
			rc = imgp_fail(EINVAL, "fdt_create: %s", fdt_strerror(err));
			goto out;
		}
	}
	rc = skel_rsvmap(s, rd, &h);
	if (rc)
		goto out;
	c.pos = fdt_off_dt_struct(&h);
	c.end = c.pos + fdt_size_dt_struct(&h);
	rc = skel_walk(s, &c);
	if (!rc) {
		int err;

		while ((err = fdt_finish(s->fdt)) == -FDT_ERR_NOSPACE) {
			rc = skel_grow(&s->fdt, &s->size);
			if (rc)
				goto out;
		}
		if (err)
			rc = imgp_fail(EINVAL, "broken FIT structure: %s", fdt_strerror(err));
	}
	if (!rc)
		rc = skel_node_offsets(s);
out:
	s->strings = NULL;
	free(strings);
	free(c.win);
	return rc;
}

int imgp_fit_skeleton_(const struct imgp_reader *rd, size_t keep_max,
		      void **fdt, uint32_t *totalsize,
		      struct imgp_fit_elided **el, size_t *nel)
{
	struct skel s = { .keep_max = keep_max };
	int rc;

	*fdt = NULL;
	*el = NULL;
	*nel = 0;
	rc = skel_build(&s, rd);
	if (rc) {
		imgp_fit_elided_free_(s.el, s.nel);
		free(s.fdt);
		return rc;
	}
	*fdt = s.fdt;
	*totalsize = s.totalsize;
	*el = s.el;
	*nel = s.nel;
	return 0;
}

void imgp_fit_elided_free_(struct imgp_fit_elided *el, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(el[i].prop);
	free(el);
}
