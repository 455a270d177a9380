// SPDX-License-Identifier: MIT
/*
 * imgpatch info: what an image holds, read-only. Every fact is collected
 * first and printed afterwards, as text or as one JSON document, so both
 * outputs always say the same. A damaged section (bad FIT hash, corrupt boot
 * script, dirty ext4) is reported where it belongs and turns the exit status
 * into 1, but never stops the other sections.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json.h"

/* Upper bounds for files read into memory (the FIT is read piecewise). */
#define SCRIPT_MAX ((size_t)1 << 20)
#define DTB_MAX ((size_t)16 << 20)
#define FSTAB_MAX ((size_t)1 << 20)
#define MMC_MAX 64

#define OVERRIDE_PATH "/user-override.dtb"
#define OVERRIDE_WORD "user-override.dtb"

static const char *const script_paths[] = { "/boot.scr.uimg", "/boot.scr" };

enum hash_state { HASH_NONE, HASH_OK, HASH_BAD, HASH_UNSUPPORTED };

static const char *const hash_text[] = { "-", "ok", "BAD", "unsupported" };
static const char *const hash_json[] = { "none", "ok", "bad", "unsupported" };

struct info_hash {
	enum hash_state state;
	char *error;             /* why the hashes do not verify */
};

struct info_fit {
	const char *path;
	const struct imgp_part *part; /* NULL when no partition has the file */
	char *missing;           /* why part is NULL */
	char *error;             /* the file could not be read or parsed */
	size_t size;
	bool parsed;
	struct imgp_fit fit;
	struct info_hash *hash;  /* one per fit.images entry */
};

struct info_script {
	const struct imgp_part *part;
	const char *path;        /* NULL when there is no script */
	char *missing;
	char *error;
	size_t size;
	int parse_rc;            /* -EBADMSG: a CRC does not match */
	bool parsed;
	struct imgp_bootscr scr;
	bool loads_override;
};

/* /user-override.dtb on the boot partition (the FIT's, else the script's). */
struct info_override {
	const struct imgp_part *part; /* where it was looked for */
	char *missing;           /* there was no boot partition to look on */
	char *error;
	bool exists;
	struct imgp_buf data;
};

enum dt_state { DT_OK, DT_COMPRESSED, DT_SKIPPED, DT_ERROR };

/* One device tree whose SD/eMMC controllers are listed. */
struct info_dt {
	const struct imgp_fit_image *image; /* NULL: user-override.dtb */
	enum dt_state state;
	char *error;             /* DT_SKIPPED, DT_ERROR: why */
	size_t nmmc;
	struct imgp_dt_mmc *mmc;
};

struct info_fstab {
	const struct imgp_part *part;
	char *missing;
	char *error;
	char *no_root;           /* the file has no "/" entry (not a problem) */
	bool have_root;
	struct imgp_fstab_entry root;
};

struct info {
	const char *path;
	struct imgp_disk disk;
	char **fs_error;         /* per partition: why its filesystem does not open */
	struct info_fit fit;
	struct info_script script;
	struct info_override override;
	size_t ndts;
	struct info_dt *dts;
	struct info_fstab fstab;
	int problems;
};

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		die("out of memory");
	return p;
}

static char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		die("out of memory");
	return p;
}

/* The library's reason for rc, kept: the next call overwrites the message. */
static char *reason(int rc)
{
	const char *msg = imgp_errmsg();

	return xstrdup(*msg ? msg : strerror(rc < 0 ? -rc : rc));
}

/* Like reason(), for a failure that makes info exit with status 1. */
static char *problem(struct info *in, int rc)
{
	in->problems++;
	return reason(rc);
}

static int part_read(struct info *in, const struct imgp_part *part,
		     const char *path, size_t max, struct imgp_buf *out)
{
	struct imgp_fs fs;
	int rc;

	rc = imgp_fs_open(&fs, &in->disk.img, part, false);
	if (rc)
		return rc;
	rc = imgp_fs_read_file(&fs, path, max, out);
	imgp_fs_close(&fs);
	if (rc)
		imgp_buf_free(out);
	return rc;
}

/* Returns 1 when path exists on part, 0 when not, <0 on error. */
static int part_exists(struct info *in, const struct imgp_part *part,
		       const char *path)
{
	struct imgp_fs fs;
	int rc;

	rc = imgp_fs_open(&fs, &in->disk.img, part, false);
	if (rc)
		return rc;
	rc = imgp_fs_exists(&fs, path);
	imgp_fs_close(&fs);
	return rc;
}

/* A filesystem that does not open (dirty, larger than its partition) is a problem. */
static void collect_fs(struct info *in)
{
	in->fs_error = xcalloc(in->disk.tab.nparts, sizeof(*in->fs_error));
	for (size_t i = 0; i < in->disk.tab.nparts; i++) {
		const struct imgp_part *part = &in->disk.tab.parts[i];
		struct imgp_fs fs;
		int rc;

		if (part->container || !part->fstype[0])
			continue;
		rc = imgp_fs_open(&fs, &in->disk.img, part, false);
		if (rc == -ENOTSUP)
			continue;
		if (rc) {
			in->fs_error[i] = problem(in, rc);
			continue;
		}
		imgp_fs_close(&fs);
	}
}

/*
 * The FIT is read piecewise: its structure, then each payload once to
 * verify its hashes, so memory holds one payload at a time, not the file.
 */
static void collect_fit(struct info *in)
{
	struct info_fit *f = &in->fit;
	struct imgp_fs fs;
	int rc;

	f->part = imgp_disk_find_file(&in->disk, f->path);
	if (!f->part) {
		f->missing = reason(-ENOENT);
		return;
	}
	rc = imgp_fs_open(&fs, &in->disk.img, f->part, false);
	if (!rc) {
		rc = imgp_fs_load_fit(&fs, f->path, &f->fit);
		imgp_fs_close(&fs);
	}
	if (rc) {
		f->error = problem(in, rc);
		return;
	}
	f->size = f->fit.size;
	f->parsed = true;
	f->hash = xcalloc(f->fit.nimages, sizeof(*f->hash));
	for (size_t i = 0; i < f->fit.nimages; i++) {
		const struct imgp_fit_image *img = &f->fit.images[i];
		struct info_hash *h = &f->hash[i];

		if (!img->hash_algos[0])
			continue;
		rc = imgp_fit_verify(&f->fit, img);
		if (rc == 0) {
			h->state = HASH_OK;
		} else if (rc == -ENOTSUP) {
			/* Not known to be bad: shown, but no reason to fail. */
			h->state = HASH_UNSUPPORTED;
			h->error = reason(rc);
		} else {
			h->state = HASH_BAD;
			h->error = problem(in, rc);
		}
	}
}

/* The first of script_paths on part; NULL when none is there, or on error. */
static const char *script_on(struct info *in, const struct imgp_part *part)
{
	struct info_script *s = &in->script;

	for (size_t i = 0; i < sizeof(script_paths) / sizeof(script_paths[0]); i++) {
		int rc = part_exists(in, part, script_paths[i]);

		if (rc < 0) {
			s->error = problem(in, rc);
			return NULL;
		}
		if (rc > 0)
			return script_paths[i];
	}
	return NULL;
}

static void collect_script(struct info *in)
{
	struct info_script *s = &in->script;
	struct imgp_buf buf = { 0 };
	int rc;

	if (in->fit.part) {
		s->path = script_on(in, in->fit.part);
		if (s->error)
			return;
		if (s->path)
			s->part = in->fit.part;
	}
	for (size_t i = 0; !s->path &&
	     i < sizeof(script_paths) / sizeof(script_paths[0]); i++) {
		s->part = imgp_disk_find_file(&in->disk, script_paths[i]);
		if (s->part)
			s->path = script_paths[i];
	}
	if (!s->path) {
		s->part = NULL;
		s->missing = xstrdup("no partition has /boot.scr.uimg or /boot.scr");
		return;
	}
	rc = part_read(in, s->part, s->path, SCRIPT_MAX, &buf);
	if (rc) {
		s->error = problem(in, rc);
		return;
	}
	s->size = buf.len;
	rc = imgp_bootscr_parse(&s->scr, buf.data, buf.len);
	imgp_buf_free(&buf);
	s->parse_rc = rc;
	if (rc) {
		imgp_fail_ctx(rc, IMGP_PART_FMT " (%s): %s", s->part->number,
			      s->part->fstype, s->path);
		s->error = problem(in, rc);
		return;
	}
	s->parsed = true;
	s->loads_override = imgp_bootscr_mentions(&s->scr, OVERRIDE_WORD);
}

static void collect_override(struct info *in)
{
	struct info_override *o = &in->override;
	int rc;

	o->part = in->fit.part ? in->fit.part : in->script.part;
	if (!o->part) {
		o->part = imgp_disk_find_file(&in->disk, OVERRIDE_PATH);
		if (!o->part) {
			o->missing = reason(-ENOENT);
			return;
		}
		rc = 1;
	} else {
		rc = part_exists(in, o->part, OVERRIDE_PATH);
	}
	if (rc < 0) {
		o->error = problem(in, rc);
		return;
	}
	o->exists = rc > 0;
	if (!o->exists)
		return;
	rc = part_read(in, o->part, OVERRIDE_PATH, DTB_MAX, &o->data);
	if (rc)
		o->error = problem(in, rc);
}

static void collect_mmc(struct info *in, struct info_dt *dt, const void *blob,
			size_t size)
{
	struct imgp_dtb dtb;
	int rc;

	rc = imgp_dtb_load(&dtb, blob, size);
	if (rc) {
		dt->state = DT_ERROR;
		dt->error = problem(in, rc);
		return;
	}
	dt->mmc = xcalloc(MMC_MAX, sizeof(*dt->mmc));
	rc = imgp_dt_list_mmc(&dtb, dt->mmc, MMC_MAX);
	imgp_dtb_free(&dtb);
	if (rc < 0) {
		dt->state = DT_ERROR;
		dt->error = problem(in, rc);
		return;
	}
	dt->nmmc = (size_t)rc;
}

static void collect_fit_dt(struct info *in, struct info_dt *dt, size_t i)
{
	const struct imgp_fit_image *img = &in->fit.fit.images[i];
	const struct info_hash *h = &in->fit.hash[i];
	const uint8_t *data;
	size_t size;
	int rc;

	dt->image = img;
	if (strcmp(img->compression, "none") != 0) {
		dt->state = DT_COMPRESSED;
		return;
	}
	/* Already reported with the image: counting it twice would mislead. */
	if (h->state == HASH_BAD || h->state == HASH_UNSUPPORTED) {
		dt->state = DT_SKIPPED;
		dt->error = xstrdup(h->error);
		return;
	}
	rc = imgp_fit_payload(&in->fit.fit, img, &data, &size);
	if (rc) {
		dt->state = DT_ERROR;
		dt->error = problem(in, rc);
		return;
	}
	collect_mmc(in, dt, data, size);
}

static void collect_dts(struct info *in)
{
	const struct imgp_fit *fit = &in->fit.fit;
	bool override = in->override.exists && !in->override.error;
	size_t n = 0;

	if (in->fit.parsed)
		for (size_t i = 0; i < fit->nimages; i++)
			n += strcmp(fit->images[i].type, "flat_dt") == 0;
	in->dts = xcalloc(n + override, sizeof(*in->dts));
	if (in->fit.parsed) {
		for (size_t i = 0; i < fit->nimages; i++)
			if (strcmp(fit->images[i].type, "flat_dt") == 0)
				collect_fit_dt(in, &in->dts[in->ndts++], i);
	}
	if (override)
		collect_mmc(in, &in->dts[in->ndts++], in->override.data.data,
			    in->override.data.len);
}

static void collect_fstab(struct info *in)
{
	struct info_fstab *f = &in->fstab;
	struct imgp_buf buf = { 0 };
	int rc;

	f->part = imgp_disk_find_file(&in->disk, "/etc/fstab");
	if (!f->part) {
		f->missing = reason(-ENOENT);
		return;
	}
	rc = part_read(in, f->part, "/etc/fstab", FSTAB_MAX, &buf);
	if (rc) {
		f->error = problem(in, rc);
		return;
	}
	rc = imgp_fstab_get((const char *)buf.data, buf.len, "/", &f->root);
	imgp_buf_free(&buf);
	if (rc == -ENOENT) {
		/* Legitimate: the root may come from the kernel command line. */
		f->no_root = reason(rc);
	} else if (rc) {
		imgp_fail_ctx(rc, IMGP_PART_FMT " (%s): /etc/fstab",
			      f->part->number, f->part->fstype);
		f->error = problem(in, rc);
	} else {
		f->have_root = true;
	}
}

static void info_free(struct info *in)
{
	for (size_t i = 0; in->fs_error && i < in->disk.tab.nparts; i++)
		free(in->fs_error[i]);
	free(in->fs_error);
	for (size_t i = 0; i < in->ndts; i++) {
		free(in->dts[i].error);
		free(in->dts[i].mmc);
	}
	free(in->dts);
	if (in->fit.hash)
		for (size_t i = 0; i < in->fit.fit.nimages; i++)
			free(in->fit.hash[i].error);
	free(in->fit.hash);
	if (in->fit.parsed)
		imgp_fit_free(&in->fit.fit);
	free(in->fit.missing);
	free(in->fit.error);
	if (in->script.parsed)
		imgp_bootscr_free(&in->script.scr);
	free(in->script.missing);
	free(in->script.error);
	imgp_buf_free(&in->override.data);
	free(in->override.missing);
	free(in->override.error);
	if (in->fstab.have_root)
		imgp_fstab_entry_free(&in->fstab.root);
	free(in->fstab.missing);
	free(in->fstab.error);
	free(in->fstab.no_root);
	imgp_disk_close(&in->disk);
}

/* ------------------------------------------------------------------ text */

/*
 * Prints a string from the image with control characters (C0, DEL, C1) and
 * invalid UTF-8 shown as '?', so a crafted name cannot drive the terminal.
 * Returns the number of characters printed.
 */
static size_t put_text(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t len = strlen(str), cols = 0, i = 0;

	while (i < len) {
		size_t n = s[i] < 0x20 || s[i] == 0x7f ? 0 :
			   json_utf8_len(s + i, len - i);

		if (n == 2 && s[i] == 0xc2 && s[i + 1] < 0xa0)
			n = 0;
		if (n == 0) {
			putchar('?');
			i++;
		} else {
			fwrite(s + i, 1, n, stdout);
			i += n;
		}
		cols++;
	}
	return cols;
}

static size_t text_width(const char *str)
{
	size_t cols = 0;

	for (const unsigned char *s = (const unsigned char *)str; *s; s++)
		cols += (*s & 0xc0) != 0x80;
	return cols;
}

#define TABLE_COLS 10

/*
 * An aligned table. Columns in `right` are right-aligned; columns in
 * `optional` are left out when every cell in them is empty.
 */
struct table {
	size_t ncols;
	const char *head[TABLE_COLS];
	unsigned right, optional;
	size_t nrows;
	char **cells;            /* nrows * ncols, owned */
};

static void table_row(struct table *t, const char *const cells[])
{
	char **grown = realloc(t->cells, (t->nrows + 1) * t->ncols * sizeof(*grown));

	if (!grown)
		die("out of memory");
	t->cells = grown;
	for (size_t c = 0; c < t->ncols; c++)
		t->cells[t->nrows * t->ncols + c] = xstrdup(cells[c] ? cells[c] : "");
	t->nrows++;
}

static void table_print(struct table *t, const char *indent)
{
	size_t width[TABLE_COLS] = { 0 };
	bool show[TABLE_COLS];

	for (size_t c = 0; c < t->ncols; c++) {
		show[c] = !(t->optional & 1u << c);
		width[c] = text_width(t->head[c]);
		for (size_t r = 0; r < t->nrows; r++) {
			const char *cell = t->cells[r * t->ncols + c];
			size_t w = text_width(cell);

			if (w > width[c])
				width[c] = w;
			if (*cell)
				show[c] = true;
		}
	}
	for (size_t r = 0; r <= t->nrows; r++) {
		const char *const *row = r ? (const char *const *)t->cells +
					     (r - 1) * t->ncols : t->head;
		const char *sep = indent;
		size_t end = 0;

		/* Empty cells at the end of a row leave no trailing blanks. */
		for (size_t c = 0; c < t->ncols; c++)
			if (show[c] && *row[c])
				end = c + 1;
		for (size_t c = 0; c < end; c++) {
			size_t pad = width[c] - text_width(row[c]);

			if (!show[c])
				continue;
			fputs(sep, stdout);
			sep = "  ";
			if (t->right & 1u << c)
				printf("%*s", (int)pad, "");
			put_text(row[c]);
			if (!(t->right & 1u << c) && c + 1 < end)
				printf("%*s", (int)pad, "");
		}
		putchar('\n');
	}
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	t->cells = NULL;
	t->nrows = 0;
}

/* "64.0M": binary units with one decimal, as partitioning tools show sizes. */
static void human_size(uint64_t bytes, char *out, size_t outlen)
{
	static const char units[] = "KMGTPE";
	double v = (double)bytes;
	size_t u = 0;

	if (bytes < 1024) {
		snprintf(out, outlen, "%uB", (unsigned)bytes);
		return;
	}
	v /= 1024;
	while (v >= 1024 && u + 1 < sizeof(units) - 1) {
		v /= 1024;
		u++;
	}
	snprintf(out, outlen, "%.1f%c", v, units[u]);
}

static unsigned sector_size(const struct info *in)
{
	return in->disk.tab.sector_size ? in->disk.tab.sector_size : 512;
}

static void text_partitions(const struct info *in)
{
	const struct imgp_table *tab = &in->disk.tab;
	struct table t = {
		.ncols = 9,
		.head = { "Num", "Boot", "Start(sector)", "Size", "Type", "Name",
			  "FS", "Label", "UUID" },
		.right = 1u << 0 | 1u << 2,
		.optional = 1u << 1 | 1u << 5 | 1u << 7 | 1u << 8,
	};

	put_text(in->path);
	printf(": %llu bytes, %s, disk ", (unsigned long long)in->disk.img.size,
	       tab->label);
	put_text(tab->id);
	printf("; sector size %u%s\n", sector_size(in),
	       tab->used_backup ? "; primary GPT header damaged, backup header used" : "");
	for (size_t i = 0; i < tab->nparts; i++) {
		const struct imgp_part *p = &tab->parts[i];
		char num[16], start[24], size[16];
		const char *cells[9];

		snprintf(num, sizeof(num), "%d", p->number);
		snprintf(start, sizeof(start), "%llu",
			 (unsigned long long)(p->start / sector_size(in)));
		human_size(p->size, size, sizeof(size));
		cells[0] = num;
		cells[1] = p->bootable ? "*" : "";
		cells[2] = start;
		cells[3] = size;
		cells[4] = p->type_name ? p->type_name : p->type;
		cells[5] = p->name;
		cells[6] = p->fstype[0] ? p->fstype : "-";
		cells[7] = p->fslabel;
		cells[8] = p->fsuuid;
		table_row(&t, cells);
	}
	table_print(&t, "");
	for (size_t i = 0; i < tab->nparts; i++) {
		if (!in->fs_error[i])
			continue;
		fputs("error: ", stdout);
		put_text(in->fs_error[i]);
		putchar('\n');
	}
}

/* After "no partition has X": the partitions that could not be searched. */
static void text_unreadable(const struct info *in)
{
	for (size_t i = 0; i < in->disk.tab.nparts; i++)
		if (in->fs_error[i])
			printf("; " IMGP_PART_FMT " unreadable (see above)",
			       in->disk.tab.parts[i].number);
}

static void text_fit(const struct info *in)
{
	const struct info_fit *f = &in->fit;
	struct table images = {
		.ncols = 8,
		.head = { "#", "Image", "Type", "Compression", "Size", "Hash",
			  "Verify", "Description" },
		.right = 1u << 0 | 1u << 4,
		.optional = 1u << 7,
	};
	struct table confs = {
		.ncols = 5,
		.head = { "Configuration", "Default", "Kernel", "FDT",
			  "Description" },
		.optional = 1u << 4,
	};

	fputs("fit: ", stdout);
	if (f->missing) {
		put_text(f->missing);
		text_unreadable(in);
		putchar('\n');
		return;
	}
	if (f->error) {
		fputs("error: ", stdout);
		put_text(f->error);
		putchar('\n');
		return;
	}
	printf(IMGP_PART_FMT " ", f->part->number);
	put_text(f->path);
	printf(", %zu bytes, %zu images, %zu configurations\n", f->size,
	       f->fit.nimages, f->fit.nconfs);
	for (size_t i = 0; i < f->fit.nimages; i++) {
		const struct imgp_fit_image *img = &f->fit.images[i];
		char idx[16], size[24];
		const char *cells[8];

		snprintf(idx, sizeof(idx), "%d", img->index);
		snprintf(size, sizeof(size), "%zu", img->size);
		cells[0] = idx;
		cells[1] = img->name;
		cells[2] = img->type;
		cells[3] = img->compression;
		cells[4] = size;
		cells[5] = img->hash_algos[0] ? img->hash_algos : "-";
		cells[6] = hash_text[f->hash[i].state];
		cells[7] = img->description;
		table_row(&images, cells);
	}
	if (f->fit.nimages)
		table_print(&images, "  ");
	for (size_t i = 0; i < f->fit.nimages; i++) {
		if (!f->hash[i].error)
			continue;
		fputs(f->hash[i].state == HASH_BAD ? "error: " : "warning: ", stdout);
		put_text(f->hash[i].error);
		putchar('\n');
	}
	for (size_t i = 0; i < f->fit.nconfs; i++) {
		const struct imgp_fit_conf *c = &f->fit.confs[i];
		const char *cells[5] = {
			c->name, c->is_default ? "yes" : "",
			c->kernel ? c->kernel : "-", c->fdt ? c->fdt : "-",
			c->description,
		};

		table_row(&confs, cells);
	}
	if (f->fit.nconfs)
		table_print(&confs, "  ");
}

static void text_script(const struct info *in)
{
	const struct info_script *s = &in->script;
	const struct info_override *o = &in->override;

	fputs("boot script: ", stdout);
	if (s->missing) {
		put_text(s->missing);
		text_unreadable(in);
	} else if (s->error) {
		fputs("error: ", stdout);
		put_text(s->error);
	} else {
		printf(IMGP_PART_FMT " %s (\"", s->part->number, s->path);
		put_text(s->scr.name);
		printf("\"), CRCs ok, loads " OVERRIDE_WORD ": %s",
		       s->loads_override ? "yes" : "no");
	}
	putchar('\n');

	fputs(OVERRIDE_WORD ": ", stdout);
	if (o->missing) {
		put_text(o->missing);
	} else if (o->error) {
		fputs("error: ", stdout);
		put_text(o->error);
	} else if (o->exists) {
		printf(IMGP_PART_FMT " " OVERRIDE_PATH ", %zu bytes",
		       o->part->number, o->data.len);
	} else {
		printf("not on " IMGP_PART_FMT, o->part->number);
	}
	putchar('\n');
}

static bool is_uhs_blocker(const char *prop)
{
	return strcmp(prop, "no-1-8-v") == 0;
}

static void text_dt(const struct info *in, const struct info_dt *dt)
{
	if (dt->image) {
		fputs("fdt '", stdout);
		put_text(dt->image->name);
		printf("' (#%d): ", dt->image->index);
	} else {
		printf(OVERRIDE_WORD " (" IMGP_PART_FMT "): ",
		       in->override.part->number);
	}
	switch (dt->state) {
	case DT_COMPRESSED:
		printf("compressed (");
		put_text(dt->image->compression);
		printf("), not inspected\n");
		return;
	case DT_SKIPPED:
		fputs("not inspected: ", stdout);
		put_text(dt->error);
		putchar('\n');
		return;
	case DT_ERROR:
		fputs("error: ", stdout);
		put_text(dt->error);
		putchar('\n');
		return;
	case DT_OK:
		break;
	}
	if (!dt->nmmc) {
		puts("no SD/eMMC controller nodes");
		return;
	}
	printf("%zu SD/eMMC controller%s\n", dt->nmmc, dt->nmmc == 1 ? "" : "s");
	for (size_t i = 0; i < dt->nmmc; i++) {
		const struct imgp_dt_mmc *m = &dt->mmc[i];

		fputs("  ", stdout);
		put_text(m->path);
		putchar(' ');
		put_text(m->status);
		for (size_t k = 0; k < m->nprops; k++) {
			fputs(k ? ", " : ": ", stdout);
			put_text(m->props[k].name);
			if (m->props[k].value[0]) {
				putchar('=');
				put_text(m->props[k].value);
			}
			if (is_uhs_blocker(m->props[k].name))
				fputs(" (UHS-I blocked)", stdout);
		}
		putchar('\n');
	}
}

static void text_fstab(const struct info *in)
{
	const struct info_fstab *f = &in->fstab;
	const struct imgp_fstab_entry *e = &f->root;

	fputs("root fstab: ", stdout);
	if (f->missing) {
		put_text(f->missing);
		text_unreadable(in);
	} else if (f->error) {
		fputs("error: ", stdout);
		put_text(f->error);
	} else if (!f->have_root) {
		printf(IMGP_PART_FMT " /etc/fstab: ", f->part->number);
		put_text(f->no_root);
	} else {
		printf(IMGP_PART_FMT " /etc/fstab line %d: ", f->part->number,
		       e->line);
		put_text(e->spec);
		putchar(' ');
		put_text(e->file);
		putchar(' ');
		put_text(e->vfstype);
		putchar(' ');
		put_text(e->options);
		printf(" %d %d", e->freq, e->passno);
	}
	putchar('\n');
}

static void print_text(const struct info *in)
{
	text_partitions(in);
	putchar('\n');
	text_fit(in);
	putchar('\n');
	text_script(in);
	putchar('\n');
	if (!in->ndts)
		puts("device trees: none to inspect (no FIT fdt, no " OVERRIDE_WORD ")");
	for (size_t i = 0; i < in->ndts; i++)
		text_dt(in, &in->dts[i]);
	putchar('\n');
	text_fstab(in);
}

/* ------------------------------------------------------------------ JSON */

/* A string field that is null when empty. */
static void info_json_opt(struct json *j, const char *key, const char *s)
{
	json_kv_string(j, key, s && *s ? s : NULL);
}

static void info_json_partitions(struct json *j, const struct info *in)
{
	const struct imgp_table *tab = &in->disk.tab;
	unsigned ss = sector_size(in);

	json_key(j, "image");
	json_object_begin(j);
	json_kv_string(j, "path", in->path);
	json_kv_uint(j, "size", in->disk.img.size);
	json_object_end(j);

	json_key(j, "table");
	json_object_begin(j);
	json_kv_string(j, "label", tab->label);
	json_kv_string(j, "id", tab->id);
	json_kv_uint(j, "sector_size", ss);
	json_kv_bool(j, "used_backup", tab->used_backup);
	json_object_end(j);

	json_key(j, "partitions");
	json_array_begin(j);
	for (size_t i = 0; i < tab->nparts; i++) {
		const struct imgp_part *p = &tab->parts[i];

		json_object_begin(j);
		json_kv_int(j, "number", p->number);
		json_kv_uint(j, "start", p->start);
		json_kv_uint(j, "start_sector", p->start / ss);
		json_kv_uint(j, "size", p->size);
		json_kv_uint(j, "size_sectors", p->size / ss);
		json_kv_string(j, "type", p->type);
		json_kv_string(j, "type_name", p->type_name);
		info_json_opt(j, "name", p->name);
		info_json_opt(j, "uuid", p->uuid);
		json_kv_bool(j, "bootable", p->bootable);
		json_kv_bool(j, "logical", p->logical);
		json_kv_bool(j, "container", p->container);
		info_json_opt(j, "fstype", p->fstype);
		info_json_opt(j, "fslabel", p->fslabel);
		info_json_opt(j, "fsuuid", p->fsuuid);
		json_kv_string(j, "fs_error", in->fs_error[i]);
		json_object_end(j);
	}
	json_array_end(j);
}

static void info_json_fit(struct json *j, const struct info *in)
{
	const struct info_fit *f = &in->fit;

	json_key(j, "fit");
	if (f->missing) {
		json_null(j);
		return;
	}
	json_object_begin(j);
	json_kv_int(j, "partition", f->part->number);
	json_kv_string(j, "path", f->path);
	json_kv_string(j, "error", f->error);
	if (f->error) {
		json_object_end(j);
		return;
	}
	json_kv_uint(j, "size", f->size);
	json_key(j, "images");
	json_array_begin(j);
	for (size_t i = 0; i < f->fit.nimages; i++) {
		const struct imgp_fit_image *img = &f->fit.images[i];
		const char *algo = img->hash_algos;

		json_object_begin(j);
		json_kv_int(j, "index", img->index);
		json_kv_string(j, "name", img->name);
		json_kv_string(j, "type", img->type);
		json_kv_string(j, "description", img->description);
		json_kv_string(j, "compression", img->compression);
		json_kv_uint(j, "size", img->size);
		json_kv_bool(j, "external", img->external);
		json_key(j, "hash_algos");
		json_array_begin(j);
		while (*algo) {
			size_t n = strcspn(algo, ",");

			json_string_len(j, algo, n);
			algo += n + (algo[n] == ',');
		}
		json_array_end(j);
		json_kv_string(j, "hash_status", hash_json[f->hash[i].state]);
		json_kv_string(j, "hash_error", f->hash[i].error);
		json_object_end(j);
	}
	json_array_end(j);
	json_key(j, "configurations");
	json_array_begin(j);
	for (size_t i = 0; i < f->fit.nconfs; i++) {
		const struct imgp_fit_conf *c = &f->fit.confs[i];

		json_object_begin(j);
		json_kv_string(j, "name", c->name);
		json_kv_string(j, "description", c->description);
		json_kv_string(j, "kernel", c->kernel);
		json_kv_string(j, "fdt", c->fdt);
		json_kv_bool(j, "default", c->is_default);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

static void info_json_script(struct json *j, const struct info *in)
{
	const struct info_script *s = &in->script;
	const struct info_override *o = &in->override;

	json_key(j, "boot_script");
	if (s->missing) {
		json_null(j);
	} else {
		json_object_begin(j);
		if (s->part) {
			json_kv_int(j, "partition", s->part->number);
			json_kv_string(j, "path", s->path);
		} else {
			json_kv_null(j, "partition");
			json_kv_null(j, "path");
		}
		json_kv_string(j, "error", s->error);
		json_key(j, "crc_ok");
		if (s->parsed || s->parse_rc == -EBADMSG)
			json_bool(j, s->parsed);
		else
			json_null(j);
		if (s->parsed) {
			json_kv_uint(j, "size", s->size);
			json_kv_string(j, "name", s->scr.name);
			json_kv_bool(j, "loads_user_override", s->loads_override);
		}
		json_object_end(j);
	}

	json_key(j, "user_override");
	if (o->missing) {
		json_null(j);
		return;
	}
	json_object_begin(j);
	json_kv_int(j, "partition", o->part->number);
	json_kv_string(j, "path", OVERRIDE_PATH);
	json_kv_bool(j, "exists", o->exists);
	if (o->exists && !o->error)
		json_kv_uint(j, "size", o->data.len);
	json_kv_string(j, "error", o->error);
	json_object_end(j);
}

static const char *const dt_state_json[] = {
	[DT_OK] = "ok",
	[DT_COMPRESSED] = "compressed",
	[DT_SKIPPED] = "skipped",
	[DT_ERROR] = "error",
};

static void info_json_dts(struct json *j, const struct info *in)
{
	json_key(j, "device_trees");
	json_array_begin(j);
	for (size_t i = 0; i < in->ndts; i++) {
		const struct info_dt *dt = &in->dts[i];

		json_object_begin(j);
		if (dt->image) {
			json_kv_string(j, "source", "fit");
			json_kv_string(j, "image", dt->image->name);
			json_kv_int(j, "index", dt->image->index);
			json_kv_string(j, "description", dt->image->description);
		} else {
			json_kv_string(j, "source", OVERRIDE_WORD);
			json_kv_int(j, "partition", in->override.part->number);
			json_kv_string(j, "path", OVERRIDE_PATH);
		}
		json_kv_string(j, "status", dt_state_json[dt->state]);
		json_kv_string(j, "error", dt->error);
		json_key(j, "controllers");
		json_array_begin(j);
		for (size_t k = 0; k < dt->nmmc; k++) {
			const struct imgp_dt_mmc *m = &dt->mmc[k];
			bool blocked = false;

			json_object_begin(j);
			json_kv_string(j, "path", m->path);
			json_kv_string(j, "status", m->status);
			json_key(j, "properties");
			json_object_begin(j);
			for (size_t p = 0; p < m->nprops; p++) {
				json_kv_string(j, m->props[p].name, m->props[p].value);
				blocked |= is_uhs_blocker(m->props[p].name);
			}
			json_object_end(j);
			json_kv_bool(j, "uhs_blocked", blocked);
			json_object_end(j);
		}
		json_array_end(j);
		json_object_end(j);
	}
	json_array_end(j);
}

static void info_json_fstab(struct json *j, const struct info *in)
{
	const struct info_fstab *f = &in->fstab;
	const struct imgp_fstab_entry *e = &f->root;

	json_key(j, "fstab");
	if (f->missing) {
		json_null(j);
		return;
	}
	json_object_begin(j);
	json_kv_int(j, "partition", f->part->number);
	json_kv_string(j, "path", "/etc/fstab");
	json_kv_string(j, "error", f->error);
	json_key(j, "root");
	if (f->have_root) {
		json_object_begin(j);
		json_kv_int(j, "line", e->line);
		json_kv_string(j, "spec", e->spec);
		json_kv_string(j, "file", e->file);
		json_kv_string(j, "vfstype", e->vfstype);
		json_kv_string(j, "options", e->options);
		json_kv_int(j, "freq", e->freq);
		json_kv_int(j, "passno", e->passno);
		json_object_end(j);
	} else {
		json_null(j);
	}
	json_kv_string(j, "no_root", f->no_root);
	json_object_end(j);
}

static int print_json(const struct info *in)
{
	struct json j;
	int rc;

	json_init(&j, stdout);
	json_object_begin(&j);
	json_kv_uint(&j, "schema_version", 1);
	info_json_partitions(&j, in);
	info_json_fit(&j, in);
	info_json_script(&j, in);
	info_json_dts(&j, in);
	info_json_fstab(&j, in);
	json_kv_int(&j, "problems", in->problems);
	json_object_end(&j);
	rc = json_finish(&j);
	if (rc == -EINVAL)
		error("internal error: malformed JSON output");
	return rc;
}

/* ------------------------------------------------------------------- cmd */

static void info_usage(FILE *out)
{
	fprintf(out,
		"Usage: imgpatch info [--json] [--fit PATH] IMAGE\n"
		"Show an image's partitions, its FIT, boot script, SD/eMMC controller\n"
		"settings and the root fstab entry. Read-only.\n\n"
		"Options:\n"
		"      --json       print one JSON document (schema_version 1)\n"
		"      --fit PATH   FIT file to look for (default /image.fit)\n"
		"  -h, --help       show this help\n\n"
		"Exit status: 0 all fine, 1 a problem was found (reported in its\n"
		"section) or the image cannot be read, 2 usage error.\n");
}

int cmd_info(int argc, char **argv)
{
	struct cli_io io;
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "fit", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct info in = { 0 };
	char *fit_path = NULL;
	bool json = false;
	int c, rc;

	/* 0, not 1: GNU getopt then also forgets state from an earlier parse. */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'f':
			if (!*optarg) {
				free(fit_path);
				return usage_error("info", "--fit needs a path, e.g. /image.fit");
			}
			free(fit_path);
			if (asprintf(&fit_path, "%s%s", *optarg == '/' ? "" : "/",
				     optarg) < 0)
				die("out of memory");
			break;
		case 'h':
			free(fit_path);
			info_usage(stdout);
			return EXIT_OK;
		case ':':
			free(fit_path);
			return usage_error("info", "option '%s' needs a value",
					   argv[optind - 1]);
		default:
			free(fit_path);
			if (optopt)
				return usage_error("info", "unknown option '-%c'", optopt);
			return usage_error("info", "unknown option '%s'",
					   argv[optind - 1]);
		}
	}
	if (optind >= argc) {
		free(fit_path);
		return usage_error("info", "missing IMAGE");
	}
	if (argc - optind > 1) {
		free(fit_path);
		return usage_error("info", "too many arguments: '%s'",
				   argv[optind + 1]);
	}
	in.path = argv[optind];
	in.fit.path = fit_path ? fit_path : "/image.fit";

	/* A compressed or archived image is read from an unpacked copy. */
	cli_io_init(&io);
	io.image = in.path;
	io.dry_run = true;
	rc = cli_io_open(&io, "info");
	if (!rc && imgp_disk_open(&in.disk, io.work, false))
		rc = error_lib(in.path);
	if (rc) {
		cli_io_close(&io);
		free(fit_path);
		return rc;
	}
	if (in.disk.tab.used_backup)
		in.problems++;
	collect_fs(&in);
	collect_fit(&in);
	collect_script(&in);
	collect_override(&in);
	collect_dts(&in);
	collect_fstab(&in);

	if (json) {
		rc = print_json(&in);
	} else {
		print_text(&in);
		rc = fflush(stdout) || ferror(stdout) ? -EIO : 0;
	}
	if (rc == -EIO)
		error("cannot write output: %s", strerror(EIO));
	if (!rc && in.problems)
		error("%s: %d problem%s found", in.path, in.problems,
		      in.problems == 1 ? "" : "s");
	rc = (rc || in.problems) ? EXIT_ERROR : EXIT_OK;
	info_free(&in);
	cli_io_close(&io);
	free(fit_path);
	return rc;
}
