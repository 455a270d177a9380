// SPDX-License-Identifier: MIT
/*
 * Boot path "flash-kernel": Debian's flash-kernel (3.107, Debian 12) on a
 * root that holds it. At every kernel install or removal (its
 * /etc/kernel/postinst.d and postrm.d hooks) it copies the board's tree
 * into /boot/dtbs/VERSION/DIR/NAME (DTB-Id "DIR/NAME" of its machine
 * database, the board named by /etc/flash-kernel/machine or the running
 * kernel's /proc/device-tree/model), links /boot/dtb-VERSION and /boot/dtb
 * to it, and writes /boot/boot.scr anew from its boot script
 * (bootscr.uboot-generic, after a "# flash-kernel: bootscr.uboot-generic"
 * line) with /etc/default/flash-kernel's command line and the
 * /etc/flash-kernel/ubootenv.d snippets. /boot is the root's folder or a
 * partition of its own (the root's fstab mounts it there): then the files
 * are at that partition's top (/boot.scr, /dtbs/...), where U-Boot's
 * distro boot, prefix "/", finds them.
 *
 * The tree it copies is the first file of that name "find
 * /etc/flash-kernel/dtbs -name NAME" lists (any depth, in directory
 * order) when there is one, else the new kernel's: a tree edited in
 * /boot/dtbs lasts until the next kernel, one kept in
 * /etc/flash-kernel/dtbs lasts, as the copy of the tree it was made from.
 * The script loads ${prefix}dtbs/${fk_kvers}/${fdtfile} (or
 * ${prefix}dtb-${fk_kvers} without fdtfile), fk_kvers the version it was
 * written for, and sets bootargs to "DEFAULTS ${bootargs} CMDLINE" from
 * LINUX_KERNEL_CMDLINE_DEFAULTS and LINUX_KERNEL_CMDLINE; the snippets
 * follow that line, so one that sets bootargs or fdtfile has the last word.
 *
 * Read (not copied) from flash-kernel 3.107, Debian's package:
 * /usr/share/flash-kernel/functions (find_dtb_file, handle_dtb,
 * gen_ubootenv, get_kernel_cmdline, mkimage_script, main),
 * /etc/flash-kernel/bootscript/bootscr.uboot-generic,
 * /usr/share/flash-kernel/default/flash-kernel and
 * /usr/share/flash-kernel/db/all.db.
 */
#include <errno.h>
#include <stdio.h>
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

#define FK_FUNCTIONS "/usr/share/flash-kernel/functions"
#define FK_SCRIPT "/boot/boot.scr"
#define FK_PART_SCRIPT "/boot.scr"
#define FK_DTBS "/etc/flash-kernel/dtbs"
#define FK_DEFAULT "/etc/default/flash-kernel"
#define FK_MARK "# flash-kernel: bootscr."
#define FK_CMDLINE "LINUX_KERNEL_CMDLINE"
#define FK_DEFAULTS "LINUX_KERNEL_CMDLINE_DEFAULTS"
/* bootscr.uboot-generic's line, as mkimage_script fills it in. */
#define FK_SETENV "setenv bootargs \""
#define FK_BOOTARGS " ${bootargs} "
/* find_dtb_file's find has no depth bound; this one keeps a walk finite. */
#define FK_DEPTH 16

/* Where the snippets of the script come from, the first shadowing the second (gen_ubootenv). */
static const char *const env_dirs[] = {
	"/etc/flash-kernel/ubootenv.d", "/usr/share/flash-kernel/ubootenv.d",
};

/*
 * flash-kernel's own /boot.scr on a partition of its own that the root's
 * fstab mounts at /boot (sv->boot set to it, its script read), with the
 * root, flash-kernel's, in sv->root: 1, else 0 (sv->boot NULL); -ENOMEM.
 */
static int probe_boot_part(struct imgp_survey *sv, const struct imgp_part *root)
{
	const struct imgp_table *tab = imgp_disk_table_(sv->disk);
	int rc;

	if (sv->root != root)
		return 0;
	for (size_t i = 0; i < tab->nparts; i++) {
		const struct imgp_part *p = &tab->parts[i];

		if (p == root || !sv->fs_open[i] || imgp_fs_exists_(&sv->fs[i], FK_PART_SCRIPT) != 1) {
			imgp_errclear_();
			continue;
		}
		sv->boot = p;
		rc = imgp_survey_boot_mounted_(sv);
		if (rc == 1)
			rc = imgp_survey_script_(sv) ? -ENOMEM : 1;
		if (rc < 0)
			return rc;
		if (rc == 1 && sv->script.parsed && !strcmp(sv->script.path, FK_PART_SCRIPT) &&
		    imgp_bootscr_mentions_(&sv->script.scr, FK_MARK))
			return 1;
		sv->boot = NULL;
	}
	imgp_errclear_();
	return 0;
}

/* A root with flash-kernel installed and its /boot/boot.scr, on it or on its /boot partition. */
static int fk_probe(struct imgp_survey *sv)
{
	const struct imgp_part *part;
	struct imgp_fs *fs;
	char *error = NULL;
	int rc;

	rc = imgp_survey_find_(sv, FK_FUNCTIONS, &part, &error);
	free(error);
	if (rc == -ENOMEM)
		return rc;
	if (rc) {
		imgp_errclear_();
		return 0;
	}
	fs = imgp_survey_fs_(sv, part);
	if (fs && imgp_fs_exists_(fs, FK_SCRIPT) == 1) {
		sv->boot = part;
		return 1;
	}
	imgp_errclear_();
	return probe_boot_part(sv, part);
}

/* /boot as the boot partition names it: "/boot" on the root, "" at a /boot partition's top. */
static const char *boot_dir(const struct imgp_survey *sv)
{
	return sv->boot != sv->root ? "" : "/boot";
}

/* The root's filesystem, where flash-kernel and its configuration are. */
static struct imgp_fs *root_fs(const struct imgp_survey *sv)
{
	return imgp_survey_fs_(sv, sv->root ? sv->root : sv->boot);
}

static bool is_dtb(const char *name)
{
	size_t n = strlen(name);

	return n > 4 && !strcmp(name + n - 4, ".dtb");
}

/* The version boot.scr was written for: its "setenv fk_kvers 'V'". */
static int script_version(const struct imgp_survey *sv, char *out, size_t size)
{
	const char *text = sv->script.parsed ? sv->script.scr.text : NULL;
	const char *v = text ? strstr(text, "setenv fk_kvers '") : NULL;
	size_t n;

	if (!v)
		return -ENOENT;
	v += strlen("setenv fk_kvers '");
	n = strcspn(v, "'\n");
	if (!n || n >= size || v[n] != '\'')
		return -ENOENT;
	memcpy(out, v, n);
	out[n] = '\0';
	return 0;
}

/*
 * find DIR -name NAME: the entries named name under dir (dir itself not
 * matched), in the order find lists them (each before what is in it,
 * directory order), counted in *count, the first in *first (owned).
 * Returns 0 or -ENOMEM.
 */
static int find_name(struct imgp_fs *fs, const char *dir, const char *name, int depth,
		     char **first, size_t *count)
{
	char **names = NULL;
	size_t n = 0;
	int rc = 0;

	if (depth > FK_DEPTH || imgp_fs_list_(fs, dir, &names, &n)) {
		imgp_errclear_();
		return 0;
	}
	for (size_t i = 0; !rc && i < n; i++) {
		char *path;

		if (asprintf(&path, "%s/%s", dir, names[i]) < 0)
			return imgp_fail(ENOMEM, "out of memory");
		if (!strcmp(names[i], name) && !(*count)++)
			*first = strdup(path);
		if (*count && !*first)
			rc = imgp_fail(ENOMEM, "out of memory");
		if (!rc)
			rc = find_name(fs, path, name, depth + 1, first, count);
		free(path);
	}
	imgp_fs_list_free_(names, n);
	return rc;
}

/*
 * Where the next kernel's copy of the tree name comes from into dt's
 * kept_in (find_dtb_file: the first of that name under
 * /etc/flash-kernel/dtbs, else where a kept copy would be found), and
 * what that means into kept. Returns 0 or -ENOMEM.
 */
static int add_kept(struct imgp_survey *sv, struct imgp_survey_bootdt *dt, const char *name,
		    struct imgp_buf *kept)
{
	struct imgp_fs *fs = root_fs(sv);
	size_t count = 0;
	int rc = fs ? find_name(fs, FK_DTBS, name, 0, &dt->kept_in, &count) : 0;

	imgp_errclear_();
	if (!rc && !dt->kept_in && asprintf(&dt->kept_in, FK_DTBS "/%s", name) < 0) {
		dt->kept_in = NULL;
		rc = imgp_fail(ENOMEM, "out of memory");
	}
	if (rc)
		return rc;
	if (!count)
		return imgp_buf_printf(kept, "%s%s is not there: flash-kernel copies the new kernel's tree, an edited tree file is not carried over",
				       kept->len ? "; " : "", dt->kept_in);
	rc = imgp_buf_printf(kept, "%s%s is there: flash-kernel copies it, a copy of the tree it was made from, for every new kernel",
			     kept->len ? "; " : "", dt->kept_in);
	if (!rc && count > 1)
		rc = imgp_buf_printf(kept, " (the first of %zu files named %s under " FK_DTBS ", in the order find lists them)",
				     count, name);
	return rc;
}

/*
 * The trees of BOOT/dtbs/VERSION/DIR/ (flash-kernel's copy; the link
 * beside them, dtbs/VERSION/NAME, is the same file), each with where the
 * next kernel's copy comes from. Returns 0 or -ENOMEM.
 */
static int add_trees(struct imgp_survey *sv, struct imgp_survey_bootinfo *bi,
		     const char *version, struct imgp_buf *kept)
{
	struct imgp_fs *fs = imgp_survey_fs_(sv, sv->boot);
	struct imgp_buf dir = { 0 }, path = { 0 };
	char **subs = NULL;
	size_t nsubs = 0;
	int rc;

	rc = imgp_buf_printf(&dir, "%s/dtbs/%s", boot_dir(sv), version);
	if (rc || !fs || imgp_fs_list_(fs, (char *)dir.data, &subs, &nsubs)) {
		imgp_errclear_();
		imgp_buf_free(&dir);
		return rc;
	}
	for (size_t i = 0; !rc && i < nsubs; i++) {
		char **names = NULL;
		size_t n = 0;

		path.len = 0;
		rc = imgp_buf_printf(&path, "%s/%s", (char *)dir.data, subs[i]);
		if (rc || is_dtb(subs[i]) || imgp_fs_list_(fs, (char *)path.data, &names, &n)) {
			imgp_errclear_();
			continue;
		}
		for (size_t k = 0; !rc && k < n; k++) {
			struct imgp_survey_bootdt *dt;
			struct imgp_buf tree = { 0 };

			if (!is_dtb(names[k]))
				continue;
			rc = imgp_buf_printf(&tree, "%s/%s", (char *)path.data, names[k]);
			dt = rc ? NULL : imgp_bootinfo_add_dt_(bi, NULL, (char *)tree.data);
			if (!dt)
				rc = imgp_fail(ENOMEM, "out of memory");
			if (!rc)
				rc = add_kept(sv, dt, names[k], kept);
			imgp_buf_free(&tree);
		}
		imgp_fs_list_free_(names, n);
	}
	imgp_fs_list_free_(subs, nsubs);
	imgp_buf_free(&dir);
	imgp_buf_free(&path);
	return rc;
}

/* A name gen_ubootenv takes: find -regex '.*\/[0-9a-zA-Z_-]+'. */
static bool snippet_name(const char *name)
{
	return *name && name[strspn(name, "0123456789abcdefghijklmnopqrstuvwxyz"
				    "ABCDEFGHIJKLMNOPQRSTUVWXYZ_-")] == '\0';
}

/* Whether a snippet's text sets variable var ("setenv VAR" or "env set VAR"). */
static bool snippet_sets(const char *text, const char *var)
{
	static const char *const sets[] = { "setenv ", "env set " };
	size_t n = strlen(var);

	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++)
		for (const char *p = strstr(text, sets[i]); p; p = strstr(p + 1, sets[i])) {
			const char *v = p + strlen(sets[i]);

			v += strspn(v, " \t");
			if (!strncmp(v, var, n) && strchr(" \t\n;", v[n] ? v[n] : ' '))
				return true;
		}
	return false;
}

/*
 * The ubootenv.d snippets flash-kernel puts into boot.scr after its
 * bootargs line (by name, sorted; one in /etc/flash-kernel/ubootenv.d
 * hides one of that name in /usr/share/flash-kernel/ubootenv.d): their
 * paths into all ("; " between), those that set bootargs into bootargs,
 * those that set fdtfile into fdtfile. Returns 0 or -ENOMEM.
 */
static int snippets(struct imgp_survey *sv, struct imgp_buf *all, struct imgp_buf *bootargs,
		    struct imgp_buf *fdtfile)
{
	struct imgp_fs *fs = root_fs(sv);
	char **names[2] = { NULL, NULL };
	size_t n[2] = { 0, 0 };
	int rc = 0;

	for (size_t d = 0; fs && d < 2; d++)
		if (imgp_fs_list_(fs, env_dirs[d], &names[d], &n[d]))
			imgp_errclear_();
	/* Both lists merged in name order (LC_ALL=C sort -u): each step takes the least name left. */
	for (const char *last = NULL;;) {
		const char *least = NULL;
		size_t from = 0;

		for (size_t d = 0; d < 2; d++)
			for (size_t i = 0; i < n[d]; i++) {
				const char *s = names[d][i];

				if (!snippet_name(s) || (last && strcmp(s, last) <= 0) ||
				    (least && strcmp(s, least) >= 0))
					continue;
				least = s;
				from = d;
			}
		if (!least)
			break;
		/* The /etc one hides the other of the same name. */
		for (size_t i = 0; from == 1 && i < n[0]; i++)
			from = strcmp(names[0][i], least) ? from : 0;
		last = least;
		{
			struct imgp_buf path = { 0 }, text = { 0 };

			rc = imgp_buf_printf(&path, "%s/%s", env_dirs[from], least);
			if (!rc && imgp_survey_read_file_(fs, (char *)path.data, IMGP_TEXT_MAX, &text)) {
				/* A folder or an unreadable file: find -type f takes no folder. */
				imgp_errclear_();
				imgp_buf_free(&path);
				imgp_buf_free(&text);
				continue;
			}
			if (!rc)
				rc = imgp_buf_printf(&text, "%s", "");
			if (!rc)
				rc = imgp_buf_printf(all, "%s%s", all->len ? ", " : "", (char *)path.data);
			if (!rc && bootargs && snippet_sets((char *)text.data, "bootargs"))
				rc = imgp_buf_printf(bootargs, "%s%s", bootargs->len ? ", " : "",
						     (char *)path.data);
			if (!rc && fdtfile && snippet_sets((char *)text.data, "fdtfile"))
				rc = imgp_buf_printf(fdtfile, "%s%s", fdtfile->len ? ", " : "",
						     (char *)path.data);
			imgp_buf_free(&path);
			imgp_buf_free(&text);
		}
		if (rc)
			break;
	}
	for (size_t d = 0; d < 2; d++)
		imgp_fs_list_free_(names[d], n[d]);
	return rc ? imgp_fail(ENOMEM, "out of memory") : 0;
}

/* What the snippets mean for the trees: a note on each where one sets fdtfile. */
static int describe_snippets(struct imgp_survey *sv, struct imgp_survey_bootinfo *bi,
			     struct imgp_buf *out)
{
	struct imgp_buf all = { 0 }, args = { 0 }, fdt = { 0 }, note = { 0 };
	int rc = snippets(sv, &all, &args, &fdt);

	if (!rc && all.len)
		rc = imgp_buf_printf(out, "; its ubootenv.d snippets, put into boot.scr after its bootargs line: %s",
				     (char *)all.data);
	if (!rc && args.len)
		rc = imgp_buf_printf(out, " (%s set%s bootargs: an edit of the kernel command line is overridden there)",
				     (char *)args.data, strchr((char *)args.data, ',') ? "" : "s");
	if (!rc && fdt.len)
		rc = imgp_buf_printf(&note, "%s set%s fdtfile in boot.scr: U-Boot loads the tree that names, not this one's edit",
				     (char *)fdt.data, strchr((char *)fdt.data, ',') ? "" : "s");
	for (size_t i = 0; !rc && fdt.len && i < bi->ndts; i++)
		rc = imgp_bootinfo_add_note_(&bi->dts[i], (char *)note.data);
	imgp_buf_free(&note);
	imgp_buf_free(&fdt);
	imgp_buf_free(&args);
	imgp_buf_free(&all);
	return rc ? imgp_fail(ENOMEM, "out of memory") : 0;
}

static int fk_describe(struct imgp_survey *sv, struct imgp_survey_bootinfo *bi)
{
	struct imgp_buf kept = { 0 }, env = { 0 };
	const char *script = sv->boot != sv->root ? FK_PART_SCRIPT : FK_SCRIPT;
	char version[128];
	bool ours = sv->script.parsed && imgp_bootscr_mentions_(&sv->script.scr, FK_MARK);
	int rc;

	if (script_version(sv, version, sizeof(version)))
		return imgp_bootinfo_summary_(bi, "flash-kernel %s%s", script,
					     ours ? ", no fk_kvers in it" : " (not written by flash-kernel)");
	rc = imgp_bootinfo_summary_(bi, "flash-kernel %s, kernel %s, tree %s/dtbs/%s/${fdtfile}",
				   script, version, boot_dir(sv), version);
	if (!rc)
		rc = add_trees(sv, bi, version, &kept);
	if (!rc)
		rc = describe_snippets(sv, bi, &env);
	if (!rc && asprintf(&bi->updates, "boot.scr and /boot/dtbs/VERSION are written anew by flash-kernel at every kernel install or removal (boot.scr from its boot script, " FK_DEFAULT " and /etc/flash-kernel/ubootenv.d; an edit of boot.scr is not carried over); %s%s",
			    kept.len ? (char *)kept.data : "no tree under /boot/dtbs/",
			    env.len ? (char *)env.data : "") < 0) {
		bi->updates = NULL;
		rc = imgp_fail(ENOMEM, "out of memory");
	}
	imgp_buf_free(&env);
	imgp_buf_free(&kept);
	return rc;
}

/*
 * flash-kernel's bootargs line in a script's text: the first
 * "setenv bootargs "DEFAULTS ${bootargs} CMDLINE"" at the start of a line
 * (the console line before it is indented in its if). Its value's start
 * and end (inside the quotes) and where " ${bootargs} " is. True if found.
 */
static bool fk_line(const char *text, size_t len, size_t *start, size_t *mid, size_t *end)
{
	for (size_t pos = 0, next; pos < len; pos = next) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t e = nl ? (size_t)(nl - text) : len;
		const char *m;

		next = nl ? e + 1 : len;
		if (e - pos < strlen(FK_SETENV) + 1 || memcmp(text + pos, FK_SETENV, strlen(FK_SETENV)) ||
		    text[e - 1] != '"')
			continue;
		*start = pos + strlen(FK_SETENV);
		*end = e - 1;
		m = memmem(text + *start, *end - *start, FK_BOOTARGS, strlen(FK_BOOTARGS));
		if (!m)
			continue;
		*mid = (size_t)(m - text);
		return true;
	}
	return false;
}

/* locate(): in boot.scr, LINUX_KERNEL_CMDLINE's words or (arg the defaults') theirs. */
static int locate_script(const struct imgp_cmdline_site *site, const char *text, size_t len,
			 struct imgp_cmdline_span *span)
{
	size_t start, mid, end;

	memset(span, 0, sizeof(*span));
	if (!fk_line(text, len, &start, &mid, &end))
		return imgp_fail(ENOENT, "%s: no flash-kernel bootargs line (" FK_SETENV "..." FK_BOOTARGS "...\")",
				 site->path);
	span->found = true;
	span->start = strcmp(site->arg, FK_DEFAULTS) ? mid + strlen(FK_BOOTARGS) : start;
	span->end = strcmp(site->arg, FK_DEFAULTS) ? end : mid;
	return 0;
}

/*
 * The line boot.scr hands over: LINUX_KERNEL_CMDLINE_DEFAULTS's words,
 * U-Boot's own bootargs, LINUX_KERNEL_CMDLINE's, as flash-kernel wrote
 * them into its bootargs line; an edit is made there and in
 * /etc/default/flash-kernel, whence the next run writes the line anew.
 */
static int fk_cmdline(struct imgp_survey *sv, const struct imgp_survey_bootdt *dt,
		      struct imgp_cmdline_site *site)
{
	const char *text = sv->script.parsed ? sv->script.scr.text : NULL;
	struct imgp_buf loader = { 0 }, all = { 0 }, args = { 0 }, what = { 0 };
	size_t start, mid, end;
	int rc;

	(void)dt;
	if (!text || !imgp_bootscr_mentions_(&sv->script.scr, FK_MARK) ||
	    !fk_line(text, strlen(text), &start, &mid, &end))
		return imgp_cmdline_script_refusal_(sv, NULL);
	rc = snippets(sv, &all, &args, NULL);
	if (!rc)
		rc = imgp_buf_printf(&loader, "U-Boot's own bootargs (with console=${console} where the board sets console) go between " FK_DEFAULTS "'s words and " FK_CMDLINE "'s; flash-kernel writes the line anew from " FK_DEFAULT " at every kernel install%s%s%s",
				     args.len ? "; then " : "", args.len ? (char *)args.data : "",
				     args.len ? ", put after it, sets bootargs itself: this line is overridden" : "");
	/* Said where the line is named: in info, cat --cmdline and the plan. */
	if (!rc)
		rc = imgp_buf_printf(&what, FK_CMDLINE "%s%s%s", args.len ? " (overridden: " : "",
				     args.len ? (char *)args.data : "",
				     args.len ? " sets bootargs after it)" : "");
	if (!rc)
		rc = imgp_cmdline_site_set_(site, sv->boot, sv->script.path, (char *)what.data,
					   (char *)loader.data, FK_CMDLINE);
	if (!rc) {
		site->script = true;
		site->locate = locate_script;
		site->lead = strdup(FK_DEFAULTS);
		site->source = calloc(1, sizeof(*site->source));
		rc = site->lead && site->source ? 0 : -ENOMEM;
	}
	if (!rc)
		rc = imgp_cmdline_site_set_(site->source, sv->root ? sv->root : sv->boot, FK_DEFAULT,
					   FK_CMDLINE, NULL, FK_CMDLINE);
	if (!rc) {
		/* A shell file flash-kernel sources: the last assignment counts. */
		site->source->locate = imgp_cmdline_locate_sh_;
		site->source->lead = strdup(FK_DEFAULTS);
		rc = site->source->lead ? 0 : -ENOMEM;
	}
	/* mkimage_script puts the values in with sed "s!@@...@@!VALUE!g": & and ! would not stay. */
	site->bad = "\"\\$`!&";
	site->bad_why = "flash-kernel puts the line into boot.scr between double quotes with sed s!...!...!";
	if (site->source) {
		site->source->bad = site->bad;
		site->source->bad_why = site->bad_why;
	}
	imgp_buf_free(&what);
	imgp_buf_free(&args);
	imgp_buf_free(&all);
	imgp_buf_free(&loader);
	return rc ? imgp_fail(ENOMEM, "out of memory") : 0;
}

/* What flash-kernel's boot.scr loads (the script itself is the script path's). */
static const char *const fk_loads[] = {
	"*/vmlinuz*", "*/initrd.img*", "*/uImage", "*/uInitrd", NULL,
};

const struct imgp_bootpath imgp_bootpath_flash_kernel_ = {
	.name = "flash-kernel",
	.loads = fk_loads,
	.probe = fk_probe,
	.describe = fk_describe,
	.cmdline = fk_cmdline,
};
