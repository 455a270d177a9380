// SPDX-License-Identifier: MIT
/*
 * FAT damage that mtools would read as content or write over, found by
 * reading the FAT and every folder as fsck.fat does, before mtools runs:
 * a cluster chain that loops, leaves the data area, runs into a free,
 * reserved or bad cluster, is shared by two files or folders, or does not
 * match its file's size. A finding names the file as fsck.fat names it
 * (its long name, else its 8.3 name) and keeps its 8.3 path too, so that
 * a read by either name finds it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "fs/fs.h"
#include "fs/fat-check.h"
#include "core/endian.h"

/* FAT12 or FAT16 by cluster count, as the specification defines them. */
#define FAT12_MAX_CLUSTERS 4084
/*
 * The other owner of a shared cluster is looked for by walking every chain
 * again: named for the first few, so that a FAT of many cross-links costs
 * no more than a few walks.
 */
#define OWNER_SEARCHES_MAX 8
/* FAT32 entries hold 28 bits; from 0x0ffffff0 on they are reserved or marks. */
#define FAT32_FIRST_MARK 0x0ffffff0u

/*
 * The FAT is read through a small cache of blocks, so that checking a large
 * FAT32 (or one whose boot sector claims one) costs no more memory than the
 * cache, and a chain's next entry is usually in the block just read.
 */
#define CACHE_BLOCK ((size_t)1 << 16)
#define CACHE_SLOTS 64

#define DIRENT_SIZE 32
#define ATTR_LONG_NAME 0x0f
#define ATTR_VOLUME 0x08
#define ATTR_DIRECTORY 0x10
#define ENTRY_FREE 0xe5
/* A long name is at most 255 UTF-16 units, 13 in each of up to 20 entries. */
#define LFN_ENTRIES_MAX 20
#define LFN_UNITS (LFN_ENTRIES_MAX * 13)
/* Paths longer than this are not followed (Linux's PATH_MAX). */
#define FAT_PATH_MAX 4096

/* A path as long as the longest followed, with one long name more. */
#define OWNER_PATH_BYTES (FAT_PATH_MAX + LFN_UNITS * 4 + 16)

/*
 * One chain walked: a file's or a folder's, and how far. Its path is made
 * from its folders' names only for a message, so that a deep tree of many
 * files costs no more than its names.
 */
struct fat_owner {
	uint32_t first;
	uint32_t count;          /* clusters claimed, from first on */
	size_t parent;           /* the folder's owner; SIZE_MAX for the root */
	char *name;              /* as fsck.fat names it: long, else 8.3 */
	char alias[13];          /* its 8.3 name */
	size_t path_len;         /* of its path in names, and in 8.3 names */
	size_t alias_len;
	bool dir;
	bool damaged;            /* a finding is about it: not read further */
};

struct fat_walk {
	const struct imgp_image *img;
	const struct imgp_part *part;
	struct imgp_fat_geom g;
	unsigned bits;
	uint64_t fat_off;        /* the first FAT, bytes into the partition */
	uint64_t fat_len;
	uint64_t end;            /* the first cluster number past the data area */
	uint8_t *claimed;        /* a bit per cluster some chain holds */
	uint8_t *cache;
	size_t slots;            /* of the cache: CACHE_SLOTS, fewer for a small FAT */
	uint64_t tag[CACHE_SLOTS]; /* block number + 1 in each slot; 0: empty */
	struct fat_owner *owners;
	size_t nowners, cap;
	unsigned searches;       /* for the other owner of a shared cluster */
	struct imgp_fat_damage *out;
};

/*
 * The n bytes of the FAT at off, copied to b; a FAT12's last entry may lie
 * one byte past the FAT (read as 0). An entry never straddles a block but
 * a FAT12 one, which is read a byte at a time.
 */
static int fat_bytes(struct fat_walk *w, uint64_t off, uint8_t *b, unsigned n)
{
	uint64_t block = off / CACHE_BLOCK;
	size_t slot = (size_t)(block % w->slots);
	uint8_t *p = w->cache + slot * CACHE_BLOCK;

	if (off % CACHE_BLOCK + n > CACHE_BLOCK || off + n > w->fat_len) {
		int rc = 0;

		for (unsigned i = 0; !rc && i < n; i++) {
			b[i] = 0;
			if (off + i < w->fat_len)
				rc = fat_bytes(w, off + i, b + i, 1);
		}
		return rc;
	}
	if (w->tag[slot] != block + 1) {
		uint64_t start = block * CACHE_BLOCK;
		size_t len = w->fat_len - start < CACHE_BLOCK ? (size_t)(w->fat_len - start) :
								CACHE_BLOCK;
		int rc = imgp_part_read_(w->img, w->part, w->fat_off + start, p, len);

		w->tag[slot] = rc ? 0 : block + 1;
		if (rc)
			return rc;
	}
	memcpy(b, p + off % CACHE_BLOCK, n);
	return 0;
}

/* The entry of cluster c: 12, 16 or 28 bits (FAT32's top 4 are reserved). */
static int fat_next(struct fat_walk *w, uint32_t c, uint32_t *v)
{
	unsigned n = w->bits == 32 ? 4 : 2;
	uint64_t off = w->bits == 32 ? (uint64_t)c * 4 :
		       w->bits == 16 ? (uint64_t)c * 2 : (uint64_t)c + c / 2;
	uint8_t b[4] = { 0 };
	int rc = fat_bytes(w, off, b, n);

	if (rc)
		return rc;
	if (w->bits == 32)
		*v = get_le32(b) & 0x0fffffff;
	else if (w->bits == 16)
		*v = get_le16(b);
	else
		*v = c & 1 ? get_le16(b) >> 4 : get_le16(b) & 0xfff;
	return 0;
}

/* The first value of an entry that is no cluster number: reserved, bad, end. */
static uint32_t fat_first_mark(const struct fat_walk *w)
{
	return w->bits == 32 ? FAT32_FIRST_MARK : w->bits == 16 ? 0xfff0 : 0xff0;
}

static bool fat_is_end(const struct fat_walk *w, uint32_t v)
{
	return v >= fat_first_mark(w) + 8;
}

static bool fat_is_bad(const struct fat_walk *w, uint32_t v)
{
	return v == fat_first_mark(w) + 7;
}

static void claimed_set(struct fat_walk *w, uint32_t c)
{
	w->claimed[c / 8] |= (uint8_t)(1u << (c % 8));
}

static bool claimed_test(const struct fat_walk *w, uint32_t c)
{
	return w->claimed[c / 8] & (1u << (c % 8));
}

/* The path of who ("/" for the root), in names or in 8.3 names, into out. */
static const char *owner_path(const struct fat_walk *w, size_t who, bool alias,
			      char out[OWNER_PATH_BYTES])
{
	const struct fat_owner *o = &w->owners[who];
	size_t len = alias ? o->alias_len : o->path_len;

	/* Lengths are bounded when the entry is read: a longer path is a finding. */
	if (len + 1 > OWNER_PATH_BYTES)
		len = OWNER_PATH_BYTES - 1;
	out[len] = '\0';
	for (; o->parent != SIZE_MAX; o = &w->owners[o->parent]) {
		const char *name = alias ? o->alias : o->name;
		size_t n = strlen(name);

		if (n + 1 > len)
			break;
		len -= n;
		memcpy(out + len, name, n);
		out[--len] = '/';
	}
	/* Cut short (never, by the bound above): the end of the path. */
	if (len)
		memmove(out, out + len, strlen(out + len) + 1);
	if (out[0] == '\0') {
		out[0] = '/';
		out[1] = '\0';
	}
	return out;
}

static int finding_add(struct fat_walk *w, size_t who, const char *why)
{
	struct imgp_fat_damage *d = w->out;
	struct imgp_fat_finding *f;
	char path[OWNER_PATH_BYTES];

	if (d->n == IMGP_FAT_FINDINGS_MAX) {
		d->more++;
		return 0;
	}
	f = realloc(d->f, (d->n + 1) * sizeof(*f));
	if (!f)
		return imgp_fail(ENOMEM, "out of memory");
	d->f = f;
	f += d->n;
	f->path = strdup(owner_path(w, who, false, path));
	f->alias = strdup(owner_path(w, who, true, path));
	f->why = strdup(why);
	d->n++;
	if (!f->path || !f->alias || !f->why)
		return imgp_fail(ENOMEM, "out of memory");
	return 0;
}

static int found(struct fat_walk *w, size_t who, const char *fmt, ...) IMGP_PRINTF(3, 4);
static int found(struct fat_walk *w, size_t who, const char *fmt, ...)
{
	char why[OWNER_PATH_BYTES + 200];
	int n;
	va_list ap;

	w->owners[who].damaged = true;
	owner_path(w, who, false, why);
	n = (int)strlen(why);
	why[n++] = ':';
	why[n++] = ' ';
	va_start(ap, fmt);
	vsnprintf(why + n, sizeof(why) - (size_t)n, fmt, ap);
	va_end(ap);
	return finding_add(w, who, why);
}

/* Whether c is among the first count clusters of the chain from first. */
static int chain_holds(struct fat_walk *w, uint32_t first, uint32_t count, uint32_t c,
		       bool *holds)
{
	uint32_t at = first;
	int rc = 0;

	*holds = false;
	for (uint32_t i = 0; !rc && i < count && !*holds; i++) {
		*holds = at == c;
		if (i + 1 < count)
			rc = fat_next(w, at, &at);
	}
	return rc;
}

/* Cluster c, claimed already: a loop in who's own chain, or shared with another. */
static int fat_collision(struct fat_walk *w, size_t who, uint32_t prev, uint32_t c)
{
	struct fat_owner *o = &w->owners[who];
	bool holds;
	int rc = chain_holds(w, o->first, o->count, c, &holds);

	if (rc)
		return rc;
	if (holds)
		return found(w, who, "circular cluster chain (cluster %u points back to cluster %u)",
			     prev, c);
	/* Searched enough, or findings no longer kept: the other owner is not named. */
	if (w->searches >= OWNER_SEARCHES_MAX || w->out->n == IMGP_FAT_FINDINGS_MAX)
		return found(w, who, "cluster %u is claimed twice", c);
	w->searches++;
	for (size_t k = 0; !rc && k < w->nowners; k++) {
		struct fat_owner *other = &w->owners[k];
		char why[2 * OWNER_PATH_BYTES + 64], a[OWNER_PATH_BYTES], b[OWNER_PATH_BYTES];

		if (k == who || !other->count)
			continue;
		rc = chain_holds(w, other->first, other->count, c, &holds);
		if (rc || !holds)
			continue;
		snprintf(why, sizeof(why), "%s and %s share cluster %u",
			 owner_path(w, k, false, a), owner_path(w, who, false, b), c);
		o->damaged = other->damaged = true;
		rc = finding_add(w, k, why);
		return rc ? rc : finding_add(w, who, why);
	}
	return rc ? rc : found(w, who, "cluster %u is claimed twice", c);
}

/*
 * Claims the chain of owner who, from its first cluster: each must be a
 * data cluster no other chain holds, in use and not marked bad, and the
 * entry before the end a cluster number or an end mark. A chain cannot
 * claim more clusters than there are, so the walk ends.
 */
static int fat_claim_chain(struct fat_walk *w, size_t who)
{
	uint32_t c = w->owners[who].first, prev = 0, v;
	int rc;

	for (;;) {
		if (c < 2 || c >= w->end)
			return prev ? found(w, who, "cluster %u points to cluster %u, outside the data area (clusters 2 to %llu)",
					    prev, c, (unsigned long long)w->end - 1) :
				      found(w, who, "starts at cluster %u, outside the data area (clusters 2 to %llu)",
					    c, (unsigned long long)w->end - 1);
		if (claimed_test(w, c))
			return fat_collision(w, who, prev, c);
		rc = fat_next(w, c, &v);
		if (rc)
			return rc;
		if (v == 0)
			return found(w, who, "its chain contains a free cluster (%u)", c);
		if (fat_is_bad(w, v))
			return found(w, who, "its chain contains a bad cluster (%u)", c);
		claimed_set(w, c);
		w->owners[who].count++;
		if (fat_is_end(w, v))
			return 0;
		if (v >= fat_first_mark(w))
			return found(w, who, "cluster %u holds the reserved value %#x, not a cluster number",
				     c, v);
		prev = c;
		c = v;
	}
}

/* A new owner named name (alias in 8.3) in folder parent (SIZE_MAX: the root itself). */
static int owner_add(struct fat_walk *w, size_t parent, const char *name,
		     const char *alias, uint32_t first, bool dir, size_t *who)
{
	char *copy = strdup(name);
	struct fat_owner *o;

	if (copy && w->nowners == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 64;

		o = realloc(w->owners, cap * sizeof(*o));
		if (o) {
			w->owners = o;
			w->cap = cap;
		}
	}
	if (!copy || w->nowners == w->cap) {
		free(copy);
		return imgp_fail(ENOMEM, "out of memory");
	}
	o = &w->owners[w->nowners];
	memset(o, 0, sizeof(*o));
	o->first = first;
	o->parent = parent;
	o->name = copy;
	snprintf(o->alias, sizeof(o->alias), "%s", alias);
	/* The root is "" here, so that its children are "/NAME". */
	if (parent != SIZE_MAX) {
		o->path_len = w->owners[parent].path_len + 1 + strlen(name);
		o->alias_len = w->owners[parent].alias_len + 1 + strlen(o->alias);
	}
	o->dir = dir;
	*who = w->nowners++;
	return 0;
}

/* A long name being gathered from its entries, last part first. */
struct fat_lfn {
	uint16_t units[LFN_UNITS];
	unsigned next;           /* the part number the next entry must have */
	unsigned parts;
	uint8_t sum;
	bool valid;
};

static void lfn_entry(struct fat_lfn *l, const uint8_t *e)
{
	static const uint8_t at[13] = { 1, 3, 5, 7, 9, 14, 16, 18, 20, 22, 24, 28, 30 };
	unsigned part = e[0] & 0x1f;

	if (e[0] & 0x40) {
		l->valid = part >= 1 && part <= LFN_ENTRIES_MAX;
		l->parts = part;
		l->sum = e[13];
		if (l->valid)
			for (unsigned i = 0; i < LFN_UNITS; i++)
				l->units[i] = 0;
	} else if (!l->valid || part != l->next || e[13] != l->sum) {
		l->valid = false;
	}
	if (!l->valid)
		return;
	for (unsigned i = 0; i < 13; i++)
		l->units[(part - 1) * 13 + i] = get_le16(e + at[i]);
	l->next = part - 1;
}

/* The long name in UTF-8 when its entries end at this 8.3 entry and sum to it. */
static bool lfn_name(const struct fat_lfn *l, const uint8_t *e, char *out, size_t outlen)
{
	uint8_t sum = 0;
	size_t n = 0;

	if (!l->valid || l->next != 0)
		return false;
	for (int i = 0; i < 11; i++)
		sum = (uint8_t)(((sum & 1) << 7) + (sum >> 1) + e[i]);
	if (sum != l->sum)
		return false;
	for (unsigned i = 0; i < l->parts * 13 && l->units[i] && n + 5 < outlen; i++) {
		uint32_t u = l->units[i];

		if (u >= 0xd800 && u < 0xdc00 && i + 1 < l->parts * 13 &&
		    l->units[i + 1] >= 0xdc00 && l->units[i + 1] < 0xe000)
			u = 0x10000 + ((u - 0xd800) << 10) + (l->units[++i] - 0xdc00);
		else if ((u >= 0xd800 && u < 0xe000) || u < 0x20 || u == '/')
			u = '?';
		if (u < 0x80) {
			out[n++] = (char)u;
		} else if (u < 0x800) {
			out[n++] = (char)(0xc0 | u >> 6);
			out[n++] = (char)(0x80 | (u & 0x3f));
		} else if (u < 0x10000) {
			out[n++] = (char)(0xe0 | u >> 12);
			out[n++] = (char)(0x80 | ((u >> 6) & 0x3f));
			out[n++] = (char)(0x80 | (u & 0x3f));
		} else {
			out[n++] = (char)(0xf0 | u >> 18);
			out[n++] = (char)(0x80 | ((u >> 12) & 0x3f));
			out[n++] = (char)(0x80 | ((u >> 6) & 0x3f));
			out[n++] = (char)(0x80 | (u & 0x3f));
		}
	}
	out[n] = '\0';
	return n > 0;
}

/* "NAME.EXT" of an 8.3 entry; bytes outside ASCII (a code page's) as '?'. */
static void short_name(const uint8_t *e, char *out)
{
	size_t n = 0, base, ext;

	for (base = 8; base > 0 && e[base - 1] == ' '; base--)
		;
	for (ext = 3; ext > 0 && e[8 + ext - 1] == ' '; ext--)
		;
	for (size_t i = 0; i < base + ext; i++) {
		uint8_t ch = i < base ? e[i] : e[8 + i - base];

		if (i == base)
			out[n++] = '.';
		if (i == 0 && ch == 0x05)
			ch = ENTRY_FREE;
		out[n++] = ch < 0x20 || ch > 0x7e || ch == '/' ? '?' : (char)ch;
	}
	out[n] = '\0';
}

/* One entry of folder dir: a file's chain and size, or a folder to read later. */
static int fat_entry(struct fat_walk *w, size_t dir, const uint8_t *e, const struct fat_lfn *l)
{
	char name[LFN_UNITS * 4 + 1], alias[13];
	uint32_t first = get_le16(e + 26) | (w->bits == 32 ? (uint32_t)get_le16(e + 20) << 16 : 0);
	bool is_dir = e[11] & ATTR_DIRECTORY;
	uint64_t size = get_le32(e + 28), need, have;
	size_t who;
	int rc;

	short_name(e, alias);
	if (!lfn_name(l, e, name, sizeof(name)))
		memcpy(name, alias, sizeof(alias));
	rc = owner_add(w, dir, name, alias, first, is_dir, &who);
	if (rc)
		return rc;
	if (w->owners[who].path_len >= FAT_PATH_MAX || w->owners[who].alias_len >= FAT_PATH_MAX)
		return found(w, who, "its path is longer than %d bytes", FAT_PATH_MAX);
	if (is_dir && !first)
		return found(w, who, "folder entry with no cluster");
	if (!first && size)
		return found(w, who, "file size is %llu bytes, but it has no cluster",
			     (unsigned long long)size);
	if (!first)
		return 0;
	rc = fat_claim_chain(w, who);
	if (rc || is_dir || w->owners[who].damaged)
		return rc;
	need = (size + w->g.cluster_bytes - 1) / w->g.cluster_bytes;
	have = w->owners[who].count;
	if (need != have)
		return found(w, who, "file size is %llu bytes, cluster chain length is %llu bytes",
			     (unsigned long long)size,
			     (unsigned long long)(have * w->g.cluster_bytes));
	return 0;
}

/* The entries of bytes [0, len) of a folder; *done at its first free-to-the-end entry. */
static int fat_dir_bytes(struct fat_walk *w, size_t dir, const uint8_t *buf, size_t len,
			 struct fat_lfn *l, bool *done)
{
	int rc = 0;

	for (size_t off = 0; !rc && off + DIRENT_SIZE <= len; off += DIRENT_SIZE) {
		const uint8_t *e = buf + off;

		if (e[0] == 0) {
			*done = true;
			break;
		}
		if ((e[11] & 0x3f) == ATTR_LONG_NAME) {
			if (e[0] != ENTRY_FREE)
				lfn_entry(l, e);
			else
				l->valid = false;
			continue;
		}
		if (e[0] != ENTRY_FREE && !(e[11] & ATTR_VOLUME) &&
		    memcmp(e, ".          ", 11) && memcmp(e, "..         ", 11))
			rc = fat_entry(w, dir, e, l);
		l->valid = false;
	}
	return rc;
}

/* Reads folder dir (its chain claimed whole) entry by entry, a cluster at a time. */
static int fat_read_dir(struct fat_walk *w, size_t dir, uint8_t *buf)
{
	struct fat_lfn l = { .valid = false };
	uint32_t c = w->owners[dir].first, n = w->owners[dir].count;
	bool done = false;
	int rc = 0;

	for (uint32_t i = 0; !rc && !done && i < n; i++) {
		rc = imgp_part_read_(w->img, w->part,
				    w->g.meta_end + (uint64_t)(c - 2) * w->g.cluster_bytes,
				    buf, (size_t)w->g.cluster_bytes);
		if (!rc)
			rc = fat_dir_bytes(w, dir, buf, (size_t)w->g.cluster_bytes, &l, &done);
		if (!rc && i + 1 < n)
			rc = fat_next(w, c, &c);
	}
	return rc;
}

/* FAT12/16: the root folder's fixed area before the data. */
static int fat_read_root_area(struct fat_walk *w, const uint8_t *bs)
{
	struct fat_lfn l = { .valid = false };
	uint64_t len = (uint64_t)get_le16(bs + 17) * DIRENT_SIZE;
	uint64_t bps = get_le16(bs + 11), area = (len + bps - 1) / bps * bps;
	uint8_t *buf;
	bool done = false;
	int rc;

	if (area > w->g.meta_end)
		return imgp_fail(EUCLEAN, "FAT root folder (%llu bytes) does not fit before the data area",
				 (unsigned long long)len);
	buf = malloc(len ? (size_t)len : 1);
	if (!buf)
		return imgp_fail(ENOMEM, "out of memory");
	rc = imgp_part_read_(w->img, w->part, w->g.meta_end - area, buf, (size_t)len);
	if (!rc)
		rc = fat_dir_bytes(w, 0, buf, (size_t)len, &l, &done);
	free(buf);
	return rc;
}

static int fat_walk_all(struct fat_walk *w, const uint8_t *bs)
{
	uint8_t *buf;
	size_t root;
	int rc;

	rc = owner_add(w, SIZE_MAX, "", "", w->bits == 32 ? get_le32(bs + 44) : 0, true, &root);
	if (!rc && w->bits == 32)
		rc = fat_claim_chain(w, root);
	else if (!rc)
		rc = fat_read_root_area(w, bs);
	if (rc)
		return rc;
	buf = malloc((size_t)w->g.cluster_bytes);
	if (!buf)
		return imgp_fail(ENOMEM, "out of memory");
	/* Breadth first: the owners read so far are the queue. */
	/* Once a finding is not kept, every path is refused: no need to read on. */
	for (size_t i = w->bits == 32 ? 0 : 1; !rc && !w->out->more && i < w->nowners; i++)
		if (w->owners[i].dir && !w->owners[i].damaged && w->owners[i].count)
			rc = fat_read_dir(w, i, buf);
	free(buf);
	return rc;
}

int imgp_fat_check_(const struct imgp_image *img, const struct imgp_part *part,
		   struct imgp_fat_damage *out)
{
	struct fat_walk w = { .img = img, .part = part, .out = out };
	uint8_t bs[512];
	uint64_t need;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = imgp_part_read_(img, part, 0, bs, sizeof(bs));
	if (!rc)
		rc = imgp_fat_geometry_(bs, part->size, &w.g);
	if (rc)
		return rc;
	/* FAT32 by its layout (no 16-bit FAT size), as Linux, mtools and fsck.fat tell it. */
	w.bits = !get_le16(bs + 22) ? 32 : w.g.nclusters <= FAT12_MAX_CLUSTERS ? 12 : 16;
	w.end = w.g.nclusters + 2;
	w.fat_off = (uint64_t)get_le16(bs + 14) * get_le16(bs + 11);
	w.fat_len = (uint64_t)(get_le16(bs + 22) ? get_le16(bs + 22) : get_le32(bs + 36)) *
		    get_le16(bs + 11);
	/* A FAT32 that does not mirror its FATs names the one in use, which mtools reads. */
	if (w.bits == 32 && (bs[40] & 0x80)) {
		if ((bs[40] & 0x0f) >= bs[16])
			return imgp_fail(EUCLEAN, "FAT32 names FAT %u in use, but has %u FATs",
					 bs[40] & 0x0f, bs[16]);
		w.fat_off += (bs[40] & 0x0f) * w.fat_len;
	}
	need = w.bits == 12 ? w.end * 3 / 2 + 1 : w.end * w.bits / 8;
	if (w.end > FAT32_FIRST_MARK || need > w.fat_len + 1)
		return imgp_fail(EUCLEAN, "FAT of %llu bytes cannot hold %llu clusters",
				 (unsigned long long)w.fat_len, (unsigned long long)w.g.nclusters);
	w.claimed = calloc(1, (size_t)(w.end / 8 + 1));
	w.slots = (size_t)((w.fat_len + CACHE_BLOCK - 1) / CACHE_BLOCK);
	if (w.slots > CACHE_SLOTS)
		w.slots = CACHE_SLOTS;
	w.cache = malloc(w.slots ? w.slots * CACHE_BLOCK : 1);
	w.slots += !w.slots;
	if (!w.claimed || !w.cache)
		rc = imgp_fail(ENOMEM, "out of memory");
	if (!rc)
		rc = fat_walk_all(&w, bs);
	for (size_t i = 0; i < w.nowners; i++)
		free(w.owners[i].name);
	free(w.owners);
	free(w.cache);
	free(w.claimed);
	if (rc)
		imgp_fat_damage_free_(out);
	return rc;
}

void imgp_fat_damage_free_(struct imgp_fat_damage *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->f[i].path);
		free(d->f[i].alias);
		free(d->f[i].why);
	}
	free(d->f);
	memset(d, 0, sizeof(*d));
}

/* The next name of a path, skipping slashes: its length, 0 at the end. */
static size_t next_name(const char **p)
{
	*p += strspn(*p, "/");
	return strcspn(*p, "/");
}

/* Whether finding f is about path itself or a folder on the way to it. */
static bool finding_covers(const struct imgp_fat_finding *f, const char *path)
{
	const char *a = f->path, *b = f->alias, *p = path;
	size_t la, lb, lp;

	for (;;) {
		la = next_name(&a);
		lb = next_name(&b);
		if (!la)
			return true;
		lp = next_name(&p);
		if (!lp || !((lp == la && !strncasecmp(p, a, la)) ||
			     (lp == lb && !strncasecmp(p, b, lb))))
			return false;
		a += la;
		b += lb;
		p += lp;
	}
}

/* path without "." and with ".." taken back (not past the root), as mtools walks it. */
static char *path_normal(const char *path)
{
	char *out = malloc(strlen(path) + 2);
	size_t n = 0, len;

	if (!out)
		return NULL;
	out[0] = '\0';
	while ((len = next_name(&path))) {
		if (len == 2 && !strncmp(path, "..", 2)) {
			while (n && out[--n] != '/')
				;
		} else if (len != 1 || *path != '.') {
			out[n++] = '/';
			memcpy(out + n, path, len);
			n += len;
		}
		out[n] = '\0';
		path += len;
	}
	return out;
}

const struct imgp_fat_finding *imgp_fat_damage_find_(const struct imgp_fat_damage *d,
						    const char *path)
{
	const struct imgp_fat_finding *f = NULL;
	char *normal;

	if (!d->n)
		return NULL;
	/* Findings past the bound were not kept: any of them may be path's. */
	normal = d->more ? NULL : path_normal(path);
	if (!normal)
		return &d->f[0];
	for (size_t i = 0; !f && i < d->n; i++)
		if (finding_covers(&d->f[i], normal))
			f = &d->f[i];
	free(normal);
	return f;
}
