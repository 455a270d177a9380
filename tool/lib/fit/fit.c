// SPDX-License-Identifier: MIT
/*
 * FIT images (U-Boot flattened image trees): the index of images and
 * configurations, embedded and external payloads, hash verification.
 * Image numbering follows dumpimage: the position among /images children.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <libfdt.h>
#include <nettle/md5.h>
#include <nettle/nettle-meta.h>
#include <nettle/sha1.h>
#include <nettle/sha2.h>

#include "imgpatch.h"
#include "core/core.h"
#include "fit/fit.h"
#include "dt/dt.h"
#include "core/endian.h"

#define FIT_HASH_MAX SHA512_DIGEST_SIZE
_Static_assert(FIT_HASH_MAX == IMGP_FIT_HASH_MAX, "digest buffer size");
/* Copies a string property; absent -> def (may be NULL). */
static int fit_str(const void *fdt, int node, const char *prop,
		   const char *def, char **out)
{
	const char *val;
	int len;

	*out = NULL;
	val = fdt_getprop(fdt, node, prop, &len);
	if (!val) {
		if (len != -FDT_ERR_NOTFOUND)
			return imgp_fail(EINVAL, "property '%s': %s", prop,
					 fdt_strerror(len));
		if (!def)
			return 0;
		val = def;
	} else if (len < 1 || val[len - 1] != '\0') {
		return imgp_fail(EINVAL, "property '%s' is not a string", prop);
	}
	*out = strdup(val);
	return *out ? 0 : imgp_fail(ENOMEM, "out of memory");
}

/* Returns 1 and the value when present, 0 when absent, -EINVAL when malformed. */
static int fit_u32(const void *fdt, int node, const char *prop, uint32_t *out)
{
	const fdt32_t *val;
	int len;

	val = fdt_getprop(fdt, node, prop, &len);
	if (!val)
		return len == -FDT_ERR_NOTFOUND ? 0 :
			imgp_fail(EINVAL, "property '%s': %s", prop,
				  fdt_strerror(len));
	if (len != 4)
		return imgp_fail(EINVAL, "property '%s' is %d bytes, not one cell",
				 prop, len);
	*out = fdt32_ld(val);
	return 1;
}

static bool fit_is_hash_node(const char *name)
{
	/* U-Boot accepts "hash", "hash-1" and the older "hash@1". */
	return strncmp(name, "hash", 4) == 0;
}

/* The hash algorithms of an image as a comma list ("crc32,sha1"). */
static int fit_hash_list(const void *fdt, int node, char **out)
{
	struct imgp_buf b = { 0 };
	int sub, rc = 0;

	*out = NULL;
	fdt_for_each_subnode(sub, fdt, node) {
		const char *name = fdt_get_name(fdt, sub, NULL);
		const char *algo;
		int len;

		if (!name || !fit_is_hash_node(name))
			continue;
		algo = fdt_getprop(fdt, sub, "algo", &len);
		/* A malformed algo is reported by imgp_fit_verify_. */
		if (!algo || len < 1 || algo[len - 1] != '\0')
			algo = "?";
		rc = imgp_buf_printf(&b, "%s%s", b.len ? "," : "", algo);
		if (rc)
			goto out;
	}
	if (!b.data)
		rc = imgp_buf_append(&b, "", 0);
	if (!rc)
		*out = (char *)imgp_buf_steal_(&b, NULL);
out:
	imgp_buf_free(&b);
	return rc ? imgp_fail(ENOMEM, "out of memory") : 0;
}

/* The value of prop left out of a piecewise-read FIT's node, or NULL. */
static const struct imgp_fit_elided *fit_elided(const struct imgp_fit *fit,
						int node, const char *prop)
{
	for (size_t i = 0; i < fit->nelided; i++)
		if (fit->elided[i].node == node && strcmp(fit->elided[i].prop, prop) == 0)
			return &fit->elided[i];
	return NULL;
}

/*
 * Locates the payload. External data wins over "data" as in U-Boot:
 * data-position is absolute, data-offset counts from the end of the FIT
 * structure rounded up to 4 bytes (what mkimage -E writes).
 */
static int fit_image_data(const struct imgp_fit *fit, int node,
			  struct imgp_fit_image *img)
{
	const struct imgp_fit_elided *el;
	const void *fdt = fit->blob;
	uint32_t pos, size;
	uint64_t base, start;
	const char *what;
	const void *val;
	int rc, len;

	what = "data-position";
	base = 0;
	rc = fit_u32(fdt, node, what, &pos);
	if (rc == 0) {
		what = "data-offset";
		base = ((uint64_t)fit->totalsize + 3) & ~(uint64_t)3;
		rc = fit_u32(fdt, node, what, &pos);
	}
	if (rc < 0)
		return rc;
	if (rc == 0) {
		val = fdt_getprop(fdt, node, "data", &len);
		if (!val)
			return imgp_fail(EINVAL, "no data, data-offset or data-position");
		el = fit_elided(fit, node, "data");
		if (el) {
			img->pos = el->off;
			img->size = el->len;
			return 0;
		}
		img->data = val;
		img->size = (size_t)len;
		return 0;
	}
	rc = fit_u32(fdt, node, "data-size", &size);
	if (rc < 0)
		return rc;
	if (rc == 0)
		return imgp_fail(EINVAL, "%s without data-size", what);
	start = base + pos;
	if (start > fit->size || size > fit->size - start)
		return imgp_fail(EINVAL,
				 "%s %u + data-size %u is beyond the end of the FIT (%zu bytes)",
				 what, pos, size, fit->size);
	img->external = true;
	img->pos = start;
	img->data = fit->rd.read ? NULL : fit->blob + start;
	img->size = size;
	return 0;
}

static int fit_parse_image(struct imgp_fit *fit, int node, int index,
			   struct imgp_fit_image *img)
{
	const void *fdt = fit->blob;
	const char *name;
	int rc, len;

	img->index = index;
	img->node = node;
	name = fdt_get_name(fdt, node, &len);
	if (!name)
		return imgp_fail(EINVAL, "image %d: %s", index, fdt_strerror(len));
	img->name = strdup(name);
	if (!img->name)
		return imgp_fail(ENOMEM, "out of memory");
	rc = fit_str(fdt, node, "type", "unknown", &img->type);
	if (!rc)
		rc = fit_str(fdt, node, "description", "", &img->description);
	if (!rc)
		rc = fit_str(fdt, node, "compression", "none", &img->compression);
	if (!rc)
		rc = fit_hash_list(fdt, node, &img->hash_algos);
	if (!rc)
		rc = fit_image_data(fit, node, img);
	return rc ? imgp_fail_ctx(rc, "image '%s'", name) : 0;
}

static const struct imgp_fit_image *fit_image_by_name(const struct imgp_fit *fit,
						       const char *name)
{
	size_t i;

	for (i = 0; i < fit->nimages; i++)
		if (strcmp(fit->images[i].name, name) == 0)
			return &fit->images[i];
	return NULL;
}

static int fit_name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * Every image a configuration names must exist, or U-Boot fails at boot.
 * Looked up in the names sorted once (names, n of them): a hostile FIT's
 * references cost their number times a logarithm, bounded by its size.
 */
static int fit_check_conf_refs(const struct imgp_fit *fit, int node, const char *conf,
			       const char *const *names, size_t n)
{
	static const char *const props[] = {
		"kernel", "fdt", "ramdisk", "firmware", "loadables", "fpga",
		"setup",
	};
	size_t i;

	for (i = 0; i < sizeof(props) / sizeof(props[0]); i++) {
		const char *val, *p;
		int len;

		val = fdt_getprop(fit->blob, node, props[i], &len);
		if (!val)
			continue;
		if (len < 1 || val[len - 1] != '\0')
			return imgp_fail(EINVAL,
					 "configuration '%s': property '%s' is not a string list",
					 conf, props[i]);
		for (p = val; p < val + len; p += strlen(p) + 1)
			if (!n || !bsearch(&p, names, n, sizeof(*names), fit_name_cmp))
				return imgp_fail(EINVAL,
						 "configuration '%s': %s image '%s' is not in /images",
						 conf, props[i], p);
	}
	return 0;
}

static int fit_parse_confs(struct imgp_fit *fit)
{
	const void *fdt = fit->blob;
	char *def = NULL;
	const char **names = NULL;  /* the images' names, sorted */
	bool found_default = false;
	int confs, node, rc = 0;
	size_t n = 0;

	confs = fdt_path_offset(fdt, "/configurations");
	if (confs == -FDT_ERR_NOTFOUND)
		return 0;
	if (confs < 0)
		return imgp_fail(EINVAL, "/configurations: %s", fdt_strerror(confs));
	rc = fit_str(fdt, confs, "default", NULL, &def);
	if (rc)
		return imgp_fail_ctx(rc, "/configurations");
	if (fit->nimages) {
		names = calloc(fit->nimages, sizeof(*names));
		if (!names) {
			rc = imgp_fail(ENOMEM, "out of memory");
			goto out;
		}
		for (size_t i = 0; i < fit->nimages; i++)
			names[i] = fit->images[i].name;
		qsort(names, fit->nimages, sizeof(*names), fit_name_cmp);
	}

	fdt_for_each_subnode(node, fdt, confs)
		n++;
	if (n) {
		fit->confs = calloc(n, sizeof(*fit->confs));
		if (!fit->confs) {
			rc = imgp_fail(ENOMEM, "out of memory");
			goto out;
		}
	}
	fdt_for_each_subnode(node, fdt, confs) {
		const char *name = fdt_get_name(fdt, node, NULL);
		struct imgp_fit_conf *c;

		if (fit->nconfs == n || !name) {
			rc = imgp_fail(EINVAL, "/configurations: malformed node");
			goto out;
		}
		c = &fit->confs[fit->nconfs++];
		c->name = strdup(name);
		if (!c->name) {
			rc = imgp_fail(ENOMEM, "out of memory");
			goto out;
		}
		rc = fit_str(fdt, node, "description", "", &c->description);
		/* fit_str stops at the first NUL: the first of a string list. */
		if (!rc)
			rc = fit_str(fdt, node, "kernel", NULL, &c->kernel);
		if (!rc)
			rc = fit_str(fdt, node, "fdt", NULL, &c->fdt);
		if (rc) {
			rc = imgp_fail_ctx(rc, "configuration '%s'", name);
			goto out;
		}
		rc = fit_check_conf_refs(fit, node, name, names, fit->nimages);
		if (rc)
			goto out;
		if (def && strcmp(def, name) == 0) {
			c->is_default = true;
			found_default = true;
		}
	}
	if (def && !found_default)
		rc = imgp_fail(EINVAL,
			       "default configuration '%s' is not in /configurations",
			       def);
out:
	free(names);
	free(def);
	return rc;
}

/* The index of images and configurations of the tree in fit->blob. */
static int fit_parse_tree(struct imgp_fit *fit, size_t blob_size)
{
	const void *fdt = fit->blob;
	int images, node, rc;
	size_t n = 0;

	rc = imgp_fdt_check_full_(fdt, blob_size);
	if (rc)
		return imgp_fail(EINVAL, "broken FIT structure: %s", fdt_strerror(rc));
	images = fdt_path_offset(fdt, "/images");
	if (images < 0)
		return imgp_fail(EINVAL, "not a FIT: no /images node");
	fdt_for_each_subnode(node, fdt, images)
		n++;
	if (n) {
		fit->images = calloc(n, sizeof(*fit->images));
		if (!fit->images)
			return imgp_fail(ENOMEM, "out of memory");
	}
	fdt_for_each_subnode(node, fdt, images) {
		if (fit->nimages == n)
			return imgp_fail(EINVAL, "/images: malformed node");
		rc = fit_parse_image(fit, node, (int)fit->nimages,
				     &fit->images[fit->nimages]);
		fit->nimages++;
		if (rc)
			return rc;
	}
	return fit_parse_confs(fit);
}

int imgp_fit_parse_(struct imgp_fit *fit, uint8_t *data, size_t size)
{
	const void *fdt = data;
	int rc;

	memset(fit, 0, sizeof(*fit));
	fit->blob = data;
	fit->size = size;
	if (size < sizeof(struct fdt_header)) {
		rc = imgp_fail(EINVAL, "not a FIT: file is only %zu bytes", size);
		goto fail;
	}
	rc = fdt_check_header(fdt);
	if (rc) {
		rc = imgp_fail(EINVAL, "not a FIT: %s", fdt_strerror(rc));
		goto fail;
	}
	if (fdt_totalsize(fdt) > size) {
		rc = imgp_fail(EINVAL,
			       "FIT structure is %u bytes but the file has only %zu (truncated?)",
			       fdt_totalsize(fdt), size);
		goto fail;
	}
	fit->totalsize = fdt_totalsize(fdt);
	rc = fit_parse_tree(fit, fit->totalsize);
	if (rc)
		goto fail;
	return 0;
fail:
	imgp_fit_free_(fit);
	return rc;
}

/* Payloads up to this size stay in the skeleton: trees, scripts, hashes. */
#define FIT_KEEP_MAX 4096

int imgp_fit_load_(struct imgp_fit *fit, struct imgp_reader *rd)
{
	uint8_t *whole;
	int rc;

	memset(fit, 0, sizeof(*fit));
	if (rd->size > IMGP_FIT_MAX) {
		rc = imgp_fail(EFBIG, "FIT file is larger than %llu bytes",
			       (unsigned long long)IMGP_FIT_MAX);
		goto fail;
	}
	fit->rd = *rd;
	fit->size = (size_t)rd->size;
	rc = imgp_fit_skeleton_(rd, FIT_KEEP_MAX, (void **)&fit->blob,
			       &fit->totalsize, &fit->elided, &fit->nelided);
	if (rc == 0)
		rc = fit_parse_tree(fit, fdt_totalsize(fit->blob));
	if (rc != -ENOTSUP) {
		if (rc)
			imgp_fit_free_(fit);
		return rc;
	}
	/* An old header: the whole file, read and parsed the classic way. */
	imgp_errclear_();
	whole = malloc(fit->size ? fit->size : 1);
	rc = whole ? rd->read(rd->ctx, 0, whole, fit->size)
		   : imgp_fail(ENOMEM, "out of memory");
	imgp_fit_free_(fit);
	if (rc) {
		free(whole);
		return rc;
	}
	return imgp_fit_parse_(fit, whole, (size_t)rd->size);
fail:
	if (rd->close)
		rd->close(rd->ctx);
	return rc;
}

void imgp_fit_free_(struct imgp_fit *fit)
{
	size_t i;

	for (i = 0; i < fit->nimages; i++) {
		free(fit->images[i].name);
		free(fit->images[i].type);
		free(fit->images[i].description);
		free(fit->images[i].compression);
		free(fit->images[i].hash_algos);
	}
	for (i = 0; i < fit->nconfs; i++) {
		free(fit->confs[i].name);
		free(fit->confs[i].description);
		free(fit->confs[i].kernel);
		free(fit->confs[i].fdt);
	}
	for (i = 0; i < fit->nimages; i++)
		free(fit->images[i].loaded);
	free(fit->images);
	free(fit->confs);
	free(fit->blob);
	imgp_fit_elided_free_(fit->elided, fit->nelided);
	if (fit->rd.close)
		fit->rd.close(fit->rd.ctx);
	memset(fit, 0, sizeof(*fit));
}

static bool fit_is_fdt(const struct imgp_fit_image *img)
{
	return strcmp(img->type, "flat_dt") == 0;
}

static int fit_fdt_not_found(const struct imgp_fit *fit, const char *spec)
{
	struct imgp_buf b = { 0 };
	size_t i;
	int rc = 0;

	for (i = 0; i < fit->nimages && !rc; i++)
		if (fit_is_fdt(&fit->images[i]))
			rc = imgp_buf_printf(&b, "%s%s", b.len ? ", " : "",
					     fit->images[i].name);
	if (rc)
		rc = imgp_fail(ENOMEM, "out of memory");
	else if (!b.len)
		rc = imgp_fail(ENOENT,
			       "fdt '%s' not found (the FIT has no flat_dt images)",
			       spec);
	else
		rc = imgp_fail(ENOENT, "fdt '%s' not found (have: %s)", spec,
			       (const char *)b.data);
	imgp_buf_free(&b);
	return rc;
}

static int fit_found(const struct imgp_fit_image *img,
		     const struct imgp_fit_image **out)
{
	if (!fit_is_fdt(img))
		return imgp_fail(EINVAL, "image %d '%s' is a %s, not a flat_dt",
				 img->index, img->name, img->type);
	*out = img;
	return 0;
}

int imgp_fit_find_fdt_(const struct imgp_fit *fit, const char *spec,
		      const struct imgp_fit_image **out)
{
	const struct imgp_fit_image *img;
	size_t i;

	*out = NULL;
	if (spec[0] && strspn(spec, "0123456789") == strlen(spec)) {
		/* Digits only: a dumpimage index; long strings cannot fit. */
		unsigned long idx = strlen(spec) > 9 ? ULONG_MAX :
			strtoul(spec, NULL, 10);

		if (idx >= fit->nimages)
			return fit_fdt_not_found(fit, spec);
		return fit_found(&fit->images[idx], out);
	}
	img = fit_image_by_name(fit, spec);
	if (img)
		return fit_found(img, out);
	/* "a.dtb" for "fdt-a.dtb": the prefix adds nothing on a command line. */
	for (i = 0; i < fit->nimages; i++) {
		img = &fit->images[i];
		if (fit_is_fdt(img) && strncmp(img->name, "fdt-", 4) == 0 &&
		    strcmp(img->name + 4, spec) == 0) {
			*out = img;
			return 0;
		}
	}
	return fit_fdt_not_found(fit, spec);
}

/* ------------------------------------------------------------- hashes */

/* Room for the context of any nettle hash in fit_hashes[]. */
union fit_hash_ctx {
	struct md5_ctx md5;
	struct sha1_ctx sha1;
	struct sha256_ctx sha256;
	struct sha512_ctx sha512; /* also sha384's */
};

static const struct fit_hash {
	const char *name;
	int size;
	const struct nettle_hash *nettle; /* NULL: crc32 */
} fit_hashes[] = {
	{ "crc32", 4, NULL },
	{ "md5", MD5_DIGEST_SIZE, &nettle_md5 },
	{ "sha1", SHA1_DIGEST_SIZE, &nettle_sha1 },
	{ "sha256", SHA256_DIGEST_SIZE, &nettle_sha256 },
	{ "sha384", SHA384_DIGEST_SIZE, &nettle_sha384 },
	{ "sha512", SHA512_DIGEST_SIZE, &nettle_sha512 },
};

/* Writes h->size bytes of data's digest to out. */
static void fit_hash_compute(const struct fit_hash *h, const uint8_t *data,
			     size_t len, uint8_t *out)
{
	union fit_hash_ctx ctx;

	if (!h->nettle) {
		/* FIT stores the CRC as one big-endian cell. */
		put_be32(out, imgp_crc32_(0, data, len));
		return;
	}
	h->nettle->init(&ctx);
	h->nettle->update(&ctx, len, data);
	h->nettle->digest(&ctx, h->nettle->digest_size, out);
}

static const struct fit_hash *fit_hash_find(const char *algo)
{
	for (size_t i = 0; i < sizeof(fit_hashes) / sizeof(fit_hashes[0]); i++)
		if (strcmp(fit_hashes[i].name, algo) == 0)
			return &fit_hashes[i];
	return NULL;
}

int imgp_fit_hash_(const char *algo, const uint8_t *data, size_t len,
		  uint8_t out[IMGP_FIT_HASH_MAX])
{
	const struct fit_hash *h = fit_hash_find(algo);

	if (!h)
		return imgp_fail(ENOTSUP,
				 "hash algorithm '%s' is not supported (have: crc32, md5, sha1, sha256, sha384, sha512)",
				 algo);
	fit_hash_compute(h, data, len, out);
	return h->size;
}

static int fit_check_hash(const struct imgp_fit_image *img, const uint8_t *data,
			  const void *fdt, int node, const char *node_name)
{
	const struct fit_hash *h;
	uint8_t digest[FIT_HASH_MAX];
	const char *algo;
	const void *value;
	int len;

	algo = fdt_getprop(fdt, node, "algo", &len);
	if (!algo || len < 1 || algo[len - 1] != '\0')
		return imgp_fail(EBADMSG, "image '%s': %s has no algo (FIT is corrupt)",
				 img->name, node_name);
	h = fit_hash_find(algo);
	if (!h)
		return imgp_fail(ENOTSUP,
				 "image '%s': hash algorithm '%s' is not supported (have: crc32, md5, sha1, sha256, sha384, sha512)",
				 img->name, algo);
	value = fdt_getprop(fdt, node, "value", &len);
	if (!value)
		return imgp_fail(EBADMSG, "image '%s': %s has no value (FIT is corrupt)",
				 img->name, node_name);
	if (len != h->size)
		return imgp_fail(EBADMSG,
				 "image '%s': %s value is %d bytes, expected %d (FIT is corrupt)",
				 img->name, h->name, len, h->size);
	fit_hash_compute(h, data, img->size, digest);
	if (memcmp(digest, value, (size_t)h->size) != 0)
		return imgp_fail(EBADMSG, "image '%s': %s hash mismatch (FIT is corrupt)",
				 img->name, h->name);
	return 0;
}

/* The payload of a piecewise-read FIT, read from the file into a new buffer. */
static int fit_read_payload(const struct imgp_fit *fit,
			    const struct imgp_fit_image *img, uint8_t **out)
{
	uint8_t *buf = malloc(img->size ? img->size : 1);
	int rc;

	*out = NULL;
	if (!buf)
		return imgp_fail(ENOMEM, "out of memory");
	rc = fit->rd.read(fit->rd.ctx, img->pos, buf, img->size);
	if (rc) {
		free(buf);
		return imgp_fail_ctx(rc, "image '%s'", img->name);
	}
	*out = buf;
	return 0;
}

static int fit_verify_data(const struct imgp_fit *fit,
			   const struct imgp_fit_image *img, const uint8_t *data)
{
	const void *fdt = fit->blob;
	int sub, rc;

	fdt_for_each_subnode(sub, fdt, img->node) {
		const char *name = fdt_get_name(fdt, sub, NULL);

		if (!name || !fit_is_hash_node(name))
			continue;
		rc = fit_check_hash(img, data, fdt, sub, name);
		if (rc)
			return rc;
	}
	if (sub != -FDT_ERR_NOTFOUND)
		return imgp_fail(EINVAL, "image '%s': %s", img->name,
				 fdt_strerror(sub));
	return 0;
}

int imgp_fit_verify_(const struct imgp_fit *fit, const struct imgp_fit_image *img)
{
	uint8_t *data;
	int rc;

	if (img->data)
		return fit_verify_data(fit, img, img->data);
	rc = fit_read_payload(fit, img, &data);
	if (rc)
		return rc;
	rc = fit_verify_data(fit, img, data);
	free(data);
	return rc;
}

int imgp_fit_payload_(struct imgp_fit *fit, const struct imgp_fit_image *img,
		     const uint8_t **data, size_t *size)
{
	struct imgp_fit_image *own = &fit->images[img - fit->images];
	int rc;

	*data = NULL;
	*size = 0;
	if (!own->data) {
		rc = fit_read_payload(fit, own, &own->loaded);
		if (rc)
			return rc;
		own->data = own->loaded;
	}
	rc = fit_verify_data(fit, own, own->data);
	if (rc)
		return rc;
	if (strcmp(img->compression, "none") != 0)
		return imgp_fail(ENOTSUP,
				 "image '%s' is %s-compressed; compressed fdt payloads are not supported",
				 img->name, img->compression);
	*data = own->data;
	*size = own->size;
	return 0;
}
