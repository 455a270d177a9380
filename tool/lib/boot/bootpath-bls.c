// SPDX-License-Identifier: MIT
/*
 * Boot path "bls": Boot Loader Specification Type #1 entries, the
 * *.conf files of /loader/entries that systemd-boot reads on the ESP or the
 * XBOOTLDR partition, and that Fedora's GRUB (blscfg) reads from its /boot
 * partition (/boot/loader/entries where /boot is part of the root). Read
 * as systemd-boot 252's boot.c reads them:
 *
 *  - a line is "key value"; "options", "initrd" and "devicetree-overlay"
 *    may repeat (options joined with a blank, overlays split at blanks and
 *    applied in order), any other key's last line counts;
 *  - an entry without "linux" (or "efi") is no entry, nor one whose
 *    "architecture" is not the board's EFI architecture (known here from
 *    the removable-media loader on the ESP, /EFI/BOOT/BOOTAA64.EFI: aa64),
 *    nor a file whose name starts with "auto-";
 *  - the entries are sorted: those with a sort-key first (by sort-key,
 *    then machine-id, then version, newest first), the others after them;
 *    then by file name, newest first (both compared as versions, the
 *    UAPI version format);
 *  - the default is the first entry whose file name matches loader.conf's
 *    "default" glob (case-insensitive), else the first entry.
 *
 * Not modelled: the EFI variables that override the default (LoaderEntry-
 * Default, LoaderEntryOneShot, "default @saved"), boot counting ("+3-1"
 * in a name), GRUB's own saved_entry, and a merge of the entries of the
 * ESP and of the XBOOTLDR partition: the first partition (in table order)
 * whose entries folder holds a *.conf is the one read. Paths are from the
 * root of that partition.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "fs/fs.h"
#include "disk/disk.h"
#include "boot/boot.h"
#include "boot/bootpath.h"
#include "patch/patch.h"

static const char *const entry_dirs[] = { "/loader/entries", "/boot/loader/entries" };
#define NDIRS (sizeof(entry_dirs) / sizeof(entry_dirs[0]))

/* The removable-media loader names of the EFI architectures, as EFI_MACHINE_TYPE_NAME. */
static const struct {
	const char *loader, *arch;
} efi_arches[] = {
	{ "/EFI/BOOT/BOOTAA64.EFI", "aa64" },
	{ "/EFI/BOOT/BOOTARM.EFI", "arm" },
	{ "/EFI/BOOT/BOOTRISCV64.EFI", "riscv64" },
	{ "/EFI/BOOT/BOOTX64.EFI", "x64" },
	{ "/EFI/BOOT/BOOTIA32.EFI", "ia32" },
};

struct entry {
	char *id;                /* the file name, "<machine-id>-<version>.conf" */
	char *title, *version, *machine_id, *sort_key, *kernel, *devicetree, *arch;
	struct imgp_buf options; /* every options line, joined by a blank */
	struct imgp_buf overlays; /* every devicetree-overlay word, blank-separated */
	bool has_options;
};

struct entries {
	const char *dir;         /* the folder on the entries partition */
	struct entry *e;
	size_t n;
	size_t booted;           /* index of the default; n: none */
	char *deflt;             /* loader.conf's default; NULL: none */
	const char *arch;        /* the board's EFI architecture; NULL: unknown */
	size_t skipped_arch;
};

static void entry_free(struct entry *e)
{
	free(e->id);
	free(e->title);
	free(e->version);
	free(e->machine_id);
	free(e->sort_key);
	free(e->kernel);
	free(e->devicetree);
	free(e->arch);
	imgp_buf_free(&e->options);
	imgp_buf_free(&e->overlays);
}

static void entries_free(struct entries *es)
{
	for (size_t i = 0; i < es->n; i++)
		entry_free(&es->e[i]);
	free(es->e);
	free(es->deflt);
	memset(es, 0, sizeof(*es));
}

/* "key value": the key's value (blanks around it cut); NULL: another key. */
static const char *key_value(const char *line, const char *key)
{
	size_t n = strlen(key);

	if (strncmp(line, key, n) != 0 || (line[n] && line[n] != ' ' && line[n] != '\t'))
		return NULL;
	line += n;
	while (*line == ' ' || *line == '\t')
		line++;
	return line;
}

static int set_field(char **field, const char *v)
{
	free(*field);
	*field = strdup(v);
	return *field ? 0 : imgp_fail(ENOMEM, "out of memory");
}

/* One entry file's text (written into) onto e. 0 or -ENOMEM. */
static int parse_entry(char *text, struct entry *e)
{
	char *cursor = text, *line;
	int rc = 0;

	while (!rc && (line = imgp_bootinfo_line_(&cursor))) {
		const char *v;

		if (!*line)
			continue;
		if ((v = key_value(line, "options"))) {
			e->has_options = true;
			if (*v)
				rc = imgp_buf_printf(&e->options, "%s%s", e->options.len ? " " : "", v);
		} else if ((v = key_value(line, "devicetree-overlay"))) {
			if (*v)
				rc = imgp_buf_printf(&e->overlays, "%s%s", e->overlays.len ? " " : "", v);
		} else if (!*(v = line + strcspn(line, " \t")) ||
			   !*(v + strspn(v, " \t"))) {
			continue;       /* a key without a value: ignored */
		} else if ((v = key_value(line, "title"))) {
			rc = set_field(&e->title, v);
		} else if ((v = key_value(line, "version"))) {
			rc = set_field(&e->version, v);
		} else if ((v = key_value(line, "machine-id"))) {
			rc = set_field(&e->machine_id, v);
		} else if ((v = key_value(line, "sort-key"))) {
			rc = set_field(&e->sort_key, v);
		} else if ((v = key_value(line, "linux")) || (v = key_value(line, "efi"))) {
			rc = set_field(&e->kernel, v);
		} else if ((v = key_value(line, "devicetree"))) {
			rc = set_field(&e->devicetree, v);
		} else if ((v = key_value(line, "architecture"))) {
			rc = set_field(&e->arch, v);
		}
	}
	if (!rc && e->options.len == 0 && imgp_buf_printf(&e->options, "%s", ""))
		rc = -ENOMEM;
	if (!rc && e->overlays.len == 0 && imgp_buf_printf(&e->overlays, "%s", ""))
		rc = -ENOMEM;
	return rc;
}

/*
 * Two versions compared as the UAPI version format orders them (systemd's
 * strverscmp_improved): >0 when a is newer. A NULL is older than any.
 */
static int vercmp(const char *a, const char *b)
{
	static const char keep[] = "~-^.";

	if (!a || !b)
		return (a != NULL) - (b != NULL);
	for (;;) {
		const char *aa, *bb;
		int r;

		while (*a && !isalnum((unsigned char)*a) && !strchr(keep, *a))
			a++;
		while (*b && !isalnum((unsigned char)*b) && !strchr(keep, *b))
			b++;
		/* '~': older than anything, even the end ("1~rc1" < "1"). */
		if (*a == '~' || *b == '~') {
			if (*a != '~')
				return 1;
			if (*b != '~')
				return -1;
			a++, b++;
			continue;
		}
		if (!*a || !*b)
			return (*a != 0) - (*b != 0);
		/* '-': what follows is less than any other continuation. */
		if (*a == '-' || *b == '-') {
			if (*a != '-')
				return 1;
			if (*b != '-')
				return -1;
			a++, b++;
			continue;
		}
		/* '^': newer than the end, older than any other continuation. */
		if (*a == '^' || *b == '^') {
			if (*a != '^')
				return *a ? 1 : -1;
			if (*b != '^')
				return *b ? -1 : 1;
			a++, b++;
			continue;
		}
		if (*a == '.' || *b == '.') {
			if (*a != '.')
				return -1;
			if (*b != '.')
				return 1;
			a++, b++;
			continue;
		}
		if (isdigit((unsigned char)*a) || isdigit((unsigned char)*b)) {
			for (aa = a; isdigit((unsigned char)*aa); aa++)
				;
			for (bb = b; isdigit((unsigned char)*bb); bb++)
				;
			/* A number is newer than letters. */
			if ((aa != a) != (bb != b))
				return aa != a ? 1 : -1;
			while (*a == '0')
				a++;
			while (*b == '0')
				b++;
			if (aa - a != bb - b)
				return aa - a > bb - b ? 1 : -1;
			r = memcmp(a, b, (size_t)(aa - a));
		} else {
			size_t n;

			for (aa = a; isalpha((unsigned char)*aa); aa++)
				;
			for (bb = b; isalpha((unsigned char)*bb); bb++)
				;
			n = (size_t)(aa - a) < (size_t)(bb - b) ? (size_t)(aa - a) : (size_t)(bb - b);
			r = memcmp(a, b, n);
			if (!r && aa - a != bb - b)
				r = aa - a > bb - b ? 1 : -1;
		}
		if (r)
			return r > 0 ? 1 : -1;
		a = aa;
		b = bb;
	}
}

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

/* systemd-boot's config_entry_compare (no boot counting): <0 when a boots first. */
static int entry_cmp(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;
	int r = (a->sort_key == NULL) - (b->sort_key == NULL);

	if (r)
		return r;
	if (a->sort_key && b->sort_key) {
		r = cmp_str(a->sort_key, b->sort_key);
		if (!r)
			r = cmp_str(a->machine_id, b->machine_id);
		if (!r)
			r = -vercmp(a->version, b->version);
		if (r)
			return r;
	}
	return -vercmp(a->id, b->id);
}

/* The entries folder of part: the first of entry_dirs it has. */
static const char *dir_of(struct imgp_survey *sv, const struct imgp_part *part)
{
	struct imgp_fs *fs = imgp_survey_fs_(sv, part);

	for (size_t i = 0; fs && i < NDIRS; i++)
		if (imgp_fs_exists_(fs, entry_dirs[i]) > 0) {
			imgp_errclear_();
			return entry_dirs[i];
		}
	imgp_errclear_();
	return entry_dirs[0];
}

static bool is_entry_name(const char *name)
{
	size_t n = strlen(name);

	return n > 5 && !strcasecmp(name + n - 5, ".conf") && name[0] != '.' &&
	       strncmp(name, "auto-", 5) != 0;
}

/* Whether fs has a *.conf in dir. */
static bool has_entries(struct imgp_fs *fs, const char *dir)
{
	char **names = NULL;
	size_t n = 0;
	bool yes = false;

	if (imgp_fs_list_(fs, dir, &names, &n) == 0)
		for (size_t i = 0; i < n && !yes; i++)
			yes = is_entry_name(names[i]);
	imgp_errclear_();
	imgp_fs_list_free_(names, n);
	return yes;
}

/* The first partition, in table order, whose entries folder holds an entry. 1 or 0. */
static int loader_find(struct imgp_survey *sv, const struct imgp_part **part)
{
	const struct imgp_table *tab = imgp_disk_table_(sv->disk);

	for (size_t i = 0; i < tab->nparts; i++) {
		if (!sv->fs_open[i])
			continue;
		for (size_t k = 0; k < NDIRS; k++)
			if (has_entries(&sv->fs[i], entry_dirs[k])) {
				*part = &tab->parts[i];
				return 1;
			}
	}
	return 0;
}

static int bls_probe(struct imgp_survey *sv)
{
	const struct imgp_part *part;
	int rc = loader_find(sv, &part);

	if (rc == 1)
		sv->boot = part;
	return rc;
}

/* The board's EFI architecture, by the removable-media loader some partition has. */
static const char *board_arch(struct imgp_survey *sv)
{
	for (size_t i = 0; i < sizeof(efi_arches) / sizeof(efi_arches[0]); i++) {
		const struct imgp_part *part;
		char *error = NULL;
		int rc = imgp_survey_find_(sv, efi_arches[i].loader, &part, &error);

		free(error);
		imgp_errclear_();
		if (!rc)
			return efi_arches[i].arch;
	}
	return NULL;
}

/* loader.conf's "default" (the ESP's, else the entries partition's). 0 or -ENOMEM. */
static int read_default(struct imgp_survey *sv, struct entries *es)
{
	const struct imgp_part *part;
	struct imgp_buf buf = { 0 };
	char *error = NULL, *cursor, *line;
	struct imgp_fs *fs;
	int rc = imgp_survey_find_(sv, "/loader/loader.conf", &part, &error);

	free(error);
	imgp_errclear_();
	if (rc == -ENOMEM)
		return rc;
	fs = rc ? NULL : imgp_survey_fs_(sv, part);
	rc = fs ? imgp_survey_read_file_(fs, "/loader/loader.conf", IMGP_TEXT_MAX, &buf) : -ENOENT;
	if (!rc)
		rc = imgp_buf_printf(&buf, "%s", "");
	if (rc) {
		imgp_buf_free(&buf);
		imgp_errclear_();
		return rc == -ENOMEM ? rc : 0;
	}
	cursor = (char *)buf.data;
	while ((line = imgp_bootinfo_line_(&cursor))) {
		const char *v = key_value(line, "default");

		if (v && *v) {
			free(es->deflt);
			es->deflt = strdup(v);
			if (!es->deflt)
				rc = imgp_fail(ENOMEM, "out of memory");
		}
	}
	imgp_buf_free(&buf);
	return rc;
}

/*
 * Every entry of part, sorted, and the default. Entries that cannot be
 * read are skipped as systemd-boot skips them; a folder that does not list
 * is kept in bi (may be NULL). 0 or -ENOMEM.
 */
static int read_entries(struct imgp_survey *sv, const struct imgp_part *part,
			struct imgp_survey_bootinfo *bi, struct entries *es)
{
	struct imgp_fs *fs = imgp_survey_fs_(sv, part);
	struct imgp_buf path = { 0 }, text = { 0 };
	char **names = NULL;
	size_t n = 0;
	int rc;

	memset(es, 0, sizeof(*es));
	es->dir = dir_of(sv, part);
	rc = fs ? imgp_fs_list_(fs, es->dir, &names, &n) : -ENOTSUP;
	if (rc) {
		if (bi && !bi->rc && imgp_survey_keep_(rc, &bi->error) == -ENOMEM && !bi->error)
			return -ENOMEM;
		if (bi && !bi->rc)
			bi->rc = rc;
		return rc == -ENOMEM ? rc : 0;
	}
	es->arch = board_arch(sv);
	es->e = calloc(n ? n : 1, sizeof(*es->e));
	if (!es->e)
		rc = imgp_fail(ENOMEM, "out of memory");
	for (size_t i = 0; !rc && i < n; i++) {
		struct entry *e = &es->e[es->n];

		if (!is_entry_name(names[i]))
			continue;
		path.len = 0;
		text.len = 0;
		rc = imgp_buf_printf(&path, "%s/%s", es->dir, names[i]);
		if (rc)
			break;
		if (imgp_survey_read_file_(fs, (char *)path.data, IMGP_TEXT_MAX, &text)) {
			imgp_errclear_();
			continue;
		}
		rc = imgp_buf_printf(&text, "%s", "");
		e->id = rc ? NULL : strdup(names[i]);
		if (!rc && !e->id)
			rc = imgp_fail(ENOMEM, "out of memory");
		if (!rc)
			rc = parse_entry((char *)text.data, e);
		if (rc) {
			entry_free(e);
			break;
		}
		if (!e->kernel || (e->arch && es->arch && strcasecmp(e->arch, es->arch))) {
			es->skipped_arch += e->kernel != NULL;
			entry_free(e);
			memset(e, 0, sizeof(*e));
			continue;
		}
		es->n++;
	}
	imgp_fs_list_free_(names, n);
	imgp_buf_free(&path);
	imgp_buf_free(&text);
	if (!rc)
		rc = read_default(sv, es);
	if (rc)
		return rc;
	if (es->n)
		qsort(es->e, es->n, sizeof(*es->e), entry_cmp);
	es->booted = es->n ? 0 : es->n;
	for (size_t i = 0; es->deflt && i < es->n; i++)
		if (!fnmatch(es->deflt, es->e[i].id, FNM_CASEFOLD)) {
			es->booted = i;
			break;
		}
	return 0;
}

/* path on the entries partition: from its root; under /boot/loader, the root's /boot. */
static int entry_path(const struct entries *es, const char *p, struct imgp_buf *out)
{
	bool under_boot = !strncmp(es->dir, "/boot/", 6) && strncmp(p, "/boot/", 6) != 0;

	out->len = 0;
	return imgp_buf_printf(out, "%s%s%s", under_boot ? "/boot" : "", p[0] == '/' ? "" : "/", p);
}

/*
 * What kernel-install does at the next kernel: it writes that kernel's own
 * entry (90-loaderentry.install), which then sorts first by version.
 */
static int describe_updates(struct imgp_survey_bootinfo *bi, const struct entry *e)
{
	struct imgp_buf gone = { 0 };
	int rc = 0;

	/* kernel-install names its entries "<machine-id>-<version>.conf". */
	if (strspn(e->id, "0123456789abcdef") != 32 || e->id[32] != '-')
		return 0;
	for (const char *p = (const char *)e->overlays.data; !rc && *p;) {
		size_t k;
		char **grown;

		p += strspn(p, " \t");
		k = strcspn(p, " \t");
		if (!k)
			break;
		grown = realloc(bi->dropped, (bi->ndropped + 1) * sizeof(*grown));
		if (grown)
			bi->dropped = grown;
		if (!grown || !(grown[bi->ndropped] = strndup(p, k)))
			rc = imgp_fail(ENOMEM, "out of memory");
		else
			rc = imgp_buf_printf(&gone, "%s%s", gone.len ? " " : "",
					     grown[bi->ndropped++]);
		p += k;
	}
	if (!rc && asprintf(&bi->updates, "kernel-install writes a new entry for every kernel it installs, which then boots first by its version: its options come from /etc/kernel/cmdline (else the running kernel's), it names no devicetree-overlay, and the new kernel's trees lack an edit made to this one's%s%s",
			    gone.len ? "; dropped: " : "", gone.len ? (char *)gone.data : "") < 0) {
		bi->updates = NULL;
		rc = imgp_fail(ENOMEM, "out of memory");
	}
	imgp_buf_free(&gone);
	return rc;
}

static int bls_describe(struct imgp_survey *sv, struct imgp_survey_bootinfo *bi)
{
	struct imgp_buf path = { 0 }, why = { 0 };
	struct entries es;
	const struct entry *e;
	int rc = read_entries(sv, sv->boot, bi, &es);

	if (rc || bi->rc) {
		entries_free(&es);
		return rc;
	}
	if (!es.n) {
		rc = imgp_bootinfo_summary_(bi, "Boot Loader Specification entries %s, no entry that boots%s",
					   es.dir, es.skipped_arch ? " on this architecture" : "");
		entries_free(&es);
		return rc;
	}
	e = &es.e[es.booted];
	if (es.deflt && es.booted == 0 && fnmatch(es.deflt, e->id, FNM_CASEFOLD))
		rc = imgp_buf_printf(&why, "loader.conf default %s matches none: the first", es.deflt);
	else if (es.deflt)
		rc = imgp_buf_printf(&why, "loader.conf default %s", es.deflt);
	else
		rc = imgp_buf_printf(&why, "the first of %zu in systemd-boot's order", es.n);
	if (!rc)
		rc = imgp_bootinfo_summary_(bi, "Boot Loader Specification entry %s/%s (%s), devicetree %s, overlays: %s",
					   es.dir, e->id, (char *)why.data,
					   e->devicetree ? e->devicetree : "(none: the firmware's own)",
					   e->overlays.len ? (char *)e->overlays.data : "none");
	if (!rc && e->devicetree) {
		struct imgp_survey_bootdt *dt;

		rc = entry_path(&es, e->devicetree, &path);
		dt = rc ? NULL : imgp_bootinfo_add_dt_(bi, NULL, (char *)path.data);
		if (!rc && !dt)
			rc = -ENOMEM;
		for (const char *p = (const char *)e->overlays.data; !rc && *p;) {
			size_t k;
			char *word;

			p += strspn(p, " \t");
			k = strcspn(p, " \t");
			if (!k)
				break;
			word = strndup(p, k);
			rc = word ? entry_path(&es, word, &path) : imgp_fail(ENOMEM, "out of memory");
			if (!rc)
				rc = imgp_bootinfo_add_overlay_(dt, (char *)path.data);
			free(word);
			p += k;
		}
		if (!rc) {
			dt->label = strdup(e->id);
			dt->append = strdup((char *)e->options.data);
			if (!dt->label || !dt->append)
				rc = imgp_fail(ENOMEM, "out of memory");
		}
	}
	if (!rc)
		rc = describe_updates(bi, e);
	imgp_buf_free(&path);
	imgp_buf_free(&why);
	entries_free(&es);
	return rc;
}

/* The last options line of the entry (site->path), or a new one at its end. */
static int locate_options(const struct imgp_cmdline_site *site, const char *text,
			  size_t len, struct imgp_cmdline_span *span)
{
	size_t pos = 0;

	(void)site;
	memset(span, 0, sizeof(*span));
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - text) : len, p = pos;

		if (end > pos && text[end - 1] == '\r')
			end--;
		p += strspn(text + p, " \t");
		if (end - p >= 7 && !memcmp(text + p, "options", 7) &&
		    (end - p == 7 || text[p + 7] == ' ' || text[p + 7] == '\t')) {
			size_t v = p + 7;

			while (v < end && (text[v] == ' ' || text[v] == '\t'))
				v++;
			span->found = true;
			span->start = v;
			span->end = end;
			/* "options" alone: the value needs a blank before it. */
			if (v == end && v == p + 7) {
				span->found = false;
				snprintf(span->head, sizeof(span->head), " ");
			}
		}
		pos = nl ? (size_t)(nl - text) + 1 : len;
	}
	if (!span->found && !span->head[0]) {
		span->start = span->end = len;
		snprintf(span->head, sizeof(span->head), "%soptions ",
			 len && text[len - 1] != '\n' ? "\n" : "");
		snprintf(span->tail, sizeof(span->tail), "\n");
	}
	return 0;
}

/*
 * The options of the default entry of part: systemd-boot hands them over
 * as the kernel command line (every options line joined by a blank; GRUB's
 * blscfg likewise, with its kernelopts variable filled in).
 */
static int cmdline_on(struct imgp_survey *sv, const struct imgp_part *part,
		      struct imgp_cmdline_site *site)
{
	struct imgp_buf path = { 0 }, what = { 0 };
	struct entries es;
	int rc = read_entries(sv, part, NULL, &es);

	if (!rc && !es.n)
		rc = imgp_fail(ENOENT, "%s: no Boot Loader Specification entry that boots", es.dir);
	if (!rc)
		rc = imgp_buf_printf(&path, "%s/%s", es.dir, es.e[es.booted].id);
	if (!rc)
		rc = imgp_buf_printf(&what, "entry %s, options", es.e[es.booted].id);
	if (!rc)
		rc = imgp_cmdline_site_set_(site, part, (char *)path.data, (char *)what.data,
					   "the boot loader joins every options line with a blank and hands them over as they are",
					   es.e[es.booted].id);
	site->locate = locate_options;
	imgp_buf_free(&path);
	imgp_buf_free(&what);
	entries_free(&es);
	return rc;
}

static int bls_cmdline(struct imgp_survey *sv, const struct imgp_survey_bootdt *dt,
		       struct imgp_cmdline_site *site)
{
	(void)dt;
	return cmdline_on(sv, sv->boot, site);
}

/* Whether the default entry of part has a devicetree line (*path its value). 1, 0, -ENOMEM. */
static int loader_devicetree(struct imgp_survey *sv, const struct imgp_part *part,
			     char **path)
{
	struct entries es;
	int rc = read_entries(sv, part, NULL, &es);

	*path = NULL;
	if (!rc && es.n && es.e[es.booted].devicetree) {
		*path = strdup(es.e[es.booted].devicetree);
		rc = *path ? 1 : imgp_fail(ENOMEM, "out of memory");
	}
	entries_free(&es);
	imgp_errclear_();
	return rc == -ENOMEM || rc == 1 ? rc : 0;
}

/* Beside the tree, on the default entry's devicetree-overlay list. */
static int bls_overlay_site(const struct imgp_boot_view *boot,
			const struct imgp_survey_bootdt *dt, const char *name,
			const struct imgp_uboot_menu *gen, struct imgp_overlay_site *h)
{
	const char *tree = dt->path;
	const char *slash = strrchr(tree, '/');
	int dirlen = slash ? (int)(slash - tree) : 0;

	(void)boot;
	(void)gen;
	snprintf(h->file, sizeof(h->file), "%.*s/%s.dtbo", dirlen, tree, name);
	snprintf(h->list, sizeof(h->list), "%s%s/%s",
		 strncmp(tree, "/boot/", 6) ? "" : "/boot", "/loader/entries",
		 dt->label);
	h->key = "devicetree-overlay";
	/* As the entry names files: from the partition's root, /boot dropped. */
	snprintf(h->word, sizeof(h->word), "%s",
		 strncmp(h->file, "/boot/", 6) ? h->file : h->file + 5);
	return 0;
}

/* The entries and their kernels and initrds. */
static const char *const bls_loads[] = {
	"*/loader/loader.conf", "*/loader/entries/*", "*/vmlinuz*", "*/initramfs*", NULL,
};

const struct imgp_bootpath imgp_bootpath_bls_ = {
	.name = "bls",
	.named_by = "Boot Loader Specification entry",
	.loads = bls_loads,
	.probe = bls_probe,
	.describe = bls_describe,
	.cmdline = bls_cmdline,
	.overlay_site = bls_overlay_site,
	.list = &imgp_list_bls_,
	/* kernel-install's entry for a new kernel carries no devicetree-overlay line. */
	.keep_overlay = "kernel-install writes the next kernel's entry without it, and with that kernel's trees: after the upgrade, add it to the new entry (imgpatch patch --via overlay on the upgraded image)",
};

const struct imgp_efi_loader imgp_efi_loader_bls_ = {
	.name = "boot loader entries",
	.updates = "kernel-install writes a new entry for every kernel it installs, which then boots first by its version, its options from /etc/kernel/cmdline (else the running kernel's)",
	.find = loader_find,
	.devicetree = loader_devicetree,
	.cmdline = cmdline_on,
};
