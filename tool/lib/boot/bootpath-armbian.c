// SPDX-License-Identifier: MIT
/*
 * Boot path "armbian": Armbian's single ext4 root carries /boot/boot.scr,
 * which imports /boot/armbianEnv.txt, loads the tree, applies each of
 * ${overlays} as ${overlay_prefix}-NAME.dtbo from the tree's overlay
 * folder and each of ${user_overlays} as overlay-user/NAME.dtbo, in that
 * order, then sources the kernel's ${overlay_prefix}-fixup.scr and the
 * user's fixup.scr when they are there. With a separate boot filesystem
 * the script's ${prefix} is "/" and the same files sit at its root.
 *
 * Armbian's scripts (config/bootscripts/boot-*.cmd) differ in where the
 * tree is: boot-rockchip64.cmd loads ${prefix}dtb/${fdtfile} and its
 * overlays from ${prefix}dtb/rockchip/overlay/; boot-sunxi.cmd and
 * boot-sun50i-next.cmd set ${vendor}, drop "${vendor}/" from ${fdtfile}
 * and load ${fdtdir}/${fdtfile}, ${fdtdir} being ${prefix}dtb/${vendor}
 * unless armbianEnv.txt sets it, or ${prefix}dtb when the tree is only
 * there. So the paths are read from the script itself: the file its
 * "load" to ${fdt_addr_r} names and the folder of its kernel overlays,
 * with only those variables filled in.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"
#include "boot/boot.h"
#include "boot/bootpath.h"

/* U-Boot's distro boot prefixes, in the order it tries them on a partition. */
static const char *const prefixes[] = { "/", "/boot/" };
#define NPREFIXES (sizeof(prefixes) / sizeof(prefixes[0]))
/* The same order, as the paths of the settings file. */
static const char *const env_paths[] = { "/armbianEnv.txt", "/boot/armbianEnv.txt" };
#define NENV_PATHS (sizeof(env_paths) / sizeof(env_paths[0]))
#define ENV_NAME "armbianEnv.txt"
/* What a script without those lines does (boot-rockchip64.cmd's shape). */
#define DEFAULT_TREE "${prefix}dtb/${fdtfile}"
/* How the kernel overlays are loaded: the folder comes before it. */
#define OVERLAY_WORD "/${overlay_prefix}-${overlay_file}.dtbo"

/* The variables the paths are made of, as the script has them set. */
struct vars {
	const char *prefix, *fdtdir, *fdtfile, *overlay_prefix, *vendor;
};

static int armbian_probe(struct imgp_survey *sv)
{
	return imgp_survey_probe_paths_(sv, env_paths, NENV_PATHS);
}

/* The prefix under which the boot partition has armbianEnv.txt. */
static const char *env_prefix(struct imgp_survey *sv)
{
	for (size_t i = 0; i < NPREFIXES; i++)
		if (imgp_bootinfo_exists_(sv, env_paths[i]))
			return prefixes[i];
	return prefixes[NPREFIXES - 1];
}

/*
 * The start of the blank-separated word of text that contains needle (the
 * first such), up to the first character of needle: into out (emptied).
 * Returns 1, 0 when text has no needle, or -ENOMEM.
 */
static int script_word(const char *text, const char *needle, struct imgp_buf *out)
{
	const char *hit = text ? strstr(text, needle) : NULL;
	const char *start;

	if (!hit)
		return 0;
	for (start = hit; start > text && !strchr(" \t\n", start[-1]); start--)
		;
	out->len = 0;
	return imgp_buf_printf(out, "%.*s", (int)(hit + 1 - start), start) < 0 ? -ENOMEM : 1;
}

/*
 * The file a "load" line of the script puts at ${fdt_addr_r}: the word
 * after it on the first such line. Returns 1 with it in out, 0, -ENOMEM.
 */
static int script_tree(const char *text, struct imgp_buf *out)
{
	const char *at = text;

	while (at && (at = strstr(at, "${fdt_addr_r} "))) {
		const char *line = at;

		while (line > text && line[-1] != '\n')
			line--;
		line += strspn(line, " \t");
		at += strlen("${fdt_addr_r} ");
		if (strncmp(line, "load ", 5) != 0)
			continue;
		out->len = 0;
		return imgp_buf_printf(out, "%.*s", (int)strcspn(at, " \t\n;"), at) < 0 ?
			       -ENOMEM : 1;
	}
	return 0;
}

/* The value "setenv NAME VALUE" (quotes dropped) gives, from the script; 1, 0, -ENOMEM. */
static int script_setenv(const char *text, const char *name, struct imgp_buf *out)
{
	struct imgp_buf word = { 0 };
	const char *at = text;
	int rc = 0;

	rc = imgp_buf_printf(&word, "setenv %s ", name);
	at = rc || !at ? NULL : strstr(at, (char *)word.data);
	if (at) {
		const char *v = at + word.len;

		v += strspn(v, " \t\"");
		out->len = 0;
		rc = imgp_buf_printf(out, "%.*s", (int)strcspn(v, "\"\n;"), v) < 0 ? -ENOMEM : 1;
	}
	imgp_buf_free(&word);
	return rc;
}

/*
 * s with each ${NAME} of v filled in, into out (emptied). Returns 0,
 * -ENOENT for a variable that is not one of them (out then unusable), or
 * -ENOMEM.
 */
static int expand(struct imgp_buf *out, const char *s, const struct vars *v)
{
	int rc = 0;

	out->len = 0;
	while (!rc && *s) {
		const char *end, *value = NULL;
		size_t n;

		if (strncmp(s, "${", 2) != 0 || !(end = strchr(s, '}'))) {
			n = strcspn(s + 1, "$") + 1;
			rc = imgp_buf_printf(out, "%.*s", (int)n, s);
			s += n;
			continue;
		}
		n = (size_t)(end - s - 2);
		if (n == 6 && !strncmp(s + 2, "prefix", n))
			value = v->prefix;
		else if (n == 6 && !strncmp(s + 2, "fdtdir", n))
			value = v->fdtdir;
		else if (n == 7 && !strncmp(s + 2, "fdtfile", n))
			value = v->fdtfile;
		else if (n == 14 && !strncmp(s + 2, "overlay_prefix", n))
			value = v->overlay_prefix;
		else if (n == 6 && !strncmp(s + 2, "vendor", n))
			value = v->vendor;
		if (!value)
			return -ENOENT;
		rc = imgp_buf_printf(out, "%s", value);
		s = end + 1;
	}
	return rc ? rc : imgp_buf_printf(out, "%s", "");
}

/* word (when found is 1) with v filled in, else fallback: into out. */
static int resolve(struct imgp_buf *out, int found, const char *word,
		   const char *fallback, const struct vars *v)
{
	int rc = found == 1 ? expand(out, word, v) : -ENOENT;

	return rc == -ENOENT ? expand(out, fallback, v) : rc;
}

/*
 * ${fdtdir} and ${fdtfile} as a script that sets ${vendor} leaves them
 * (boot-sun50i-next.cmd): fdtfile without "vendor/", fdtdir from
 * armbianEnv.txt or ${prefix}dtb/${vendor}, else ${prefix}dtb when only
 * that folder has the tree. Into dir and file.
 */
static int vendor_paths(struct imgp_survey *sv, const struct vars *v, const char *env_fdtdir,
			struct imgp_buf *dir, struct imgp_buf *file)
{
	struct imgp_buf path = { 0 };
	size_t n = strlen(v->vendor);
	const char *f = v->fdtfile;
	int rc;

	if (strncmp(f, v->vendor, n) == 0 && f[n] == '/')
		f += n + 1;
	file->len = dir->len = 0;
	rc = imgp_buf_printf(file, "%s", f);
	if (!rc)
		rc = env_fdtdir ? imgp_buf_printf(dir, "%s", env_fdtdir) :
				  imgp_buf_printf(dir, "%sdtb/%s", v->prefix, v->vendor);
	if (!rc)
		rc = imgp_buf_printf(&path, "%s/%s", (char *)dir->data, f);
	if (!rc && !imgp_bootinfo_exists_(sv, (char *)path.data)) {
		path.len = 0;
		rc = imgp_buf_printf(&path, "%sdtb/%s", v->prefix, f);
		if (!rc && imgp_bootinfo_exists_(sv, (char *)path.data)) {
			dir->len = 0;
			rc = imgp_buf_printf(dir, "%sdtb", v->prefix);
		}
	}
	imgp_buf_free(&path);
	return rc;
}

/*
 * The fixup scripts the boot script sources after the overlays, when there
 * (the kernel's, then the user's): onto dt, and ", fixup: A, B" onto out.
 */
static int add_fixups(struct imgp_survey *sv, const char *overlay_dir, const struct vars *v,
		      struct imgp_survey_bootdt *dt, struct imgp_buf *out)
{
	struct imgp_buf path = { 0 };
	int rc = 0, found = 0;

	for (int i = 0; !rc && i < 2; i++) {
		path.len = 0;
		rc = i == 0 ? imgp_buf_printf(&path, "%s%s-fixup.scr", overlay_dir,
					      v->overlay_prefix) :
			      imgp_buf_printf(&path, "%sfixup.scr", v->prefix);
		if (rc || !imgp_bootinfo_exists_(sv, (char *)path.data))
			continue;
		rc = imgp_buf_printf(out, "%s%s", found++ ? ", " : ", fixup: ",
				     (char *)path.data);
		if (!rc)
			rc = imgp_bootinfo_add_script_(dt, (char *)path.data);
	}
	imgp_buf_free(&path);
	return rc;
}

static int armbian_describe(struct imgp_survey *sv, struct imgp_survey_bootinfo *bi)
{
	const char *fdtfile = NULL, *fdtdir = NULL, *overlay_prefix = "", *overlays = "";
	const char *user = "", *from = "";
	struct imgp_buf path = { 0 }, word = { 0 }, vendor = { 0 }, dir = { 0 },
			file = { 0 }, ovl = { 0 }, fallback = { 0 }, fixups = { 0 };
	const char *script = sv->script.parsed ? sv->script.scr.text : NULL;
	struct imgp_survey_bootdt *dt;
	char *text, *cursor, *line;
	const char **settings = NULL;
	size_t nsettings = 0;
	struct vars v;
	int rc;

	const char *pre = env_prefix(sv);
	char env[32];

	snprintf(env, sizeof(env), "%s" ENV_NAME, pre);
	rc = imgp_bootinfo_summary_(bi, "U-Boot script %sboot.scr (Armbian), %s", pre, env);
	if (!rc)
		rc = imgp_bootinfo_read_(sv, bi, sv->boot, env, &text);
	if (rc)
		return rc == -ENOMEM ? rc : 0;
	/* env import -t: the last setting of a name wins. */
	cursor = text;
	while ((line = imgp_bootinfo_line_(&cursor))) {
		const char *val, **grown;

		if (strchr(line, '=')) {
			grown = realloc(settings, (nsettings + 1) * sizeof(*settings));
			if (!grown) {
				rc = imgp_fail(ENOMEM, "out of memory");
				goto out;
			}
			settings = grown;
			settings[nsettings++] = line;
		}
		if ((val = imgp_bootinfo_value_(line, "fdtfile")))
			fdtfile = val;
		else if ((val = imgp_bootinfo_value_(line, "fdtdir")))
			fdtdir = val;
		else if ((val = imgp_bootinfo_value_(line, "overlay_prefix")))
			overlay_prefix = val;
		else if ((val = imgp_bootinfo_value_(line, "overlays")))
			overlays = val;
		else if ((val = imgp_bootinfo_value_(line, "user_overlays")))
			user = val;
	}
	/* Without fdtfile= the script loads U-Boot's own (armbian/build writes
	 * it only for boards with BOOT_FDT_FILE). */
	if (!fdtfile && sv->uboot.fdtfile && sv->uboot.tree &&
	    !strcmp(sv->uboot.tree_from, "fdtfile")) {
		fdtfile = sv->uboot.tree;
		from = " (U-Boot's default environment)";
	}
	if (!fdtfile)
		goto summary;
	v = (struct vars){ .prefix = pre, .fdtdir = fdtdir, .fdtfile = fdtfile,
			   .overlay_prefix = overlay_prefix };
	rc = script_setenv(script, "vendor", &vendor);
	if (rc == 1) {
		v.vendor = (char *)vendor.data;
		rc = vendor_paths(sv, &v, fdtdir, &dir, &file);
		v.fdtdir = (char *)dir.data;
		v.fdtfile = (char *)file.data;
	}
	/* The tree the script loads, else where Armbian's kernels put it. */
	if (rc >= 0)
		rc = script_tree(script, &word);
	if (rc >= 0)
		rc = resolve(&path, rc, (char *)word.data, DEFAULT_TREE, &v);
	/* The folder of its kernel overlays, else that of the tree's vendor. */
	if (rc >= 0) {
		const char *slash = strchr(fdtfile, '/');
		size_t n = slash ? (size_t)(slash - fdtfile) + 1 : 0;

		rc = imgp_buf_printf(&fallback, "${prefix}dtb/%.*soverlay/", (int)n, fdtfile);
	}
	if (rc >= 0)
		rc = script_word(script, OVERLAY_WORD, &word);
	if (rc >= 0)
		rc = resolve(&ovl, rc, (char *)word.data, (char *)fallback.data, &v);
	if (rc < 0)
		goto out;
	dt = imgp_bootinfo_add_dt_(bi, NULL, (char *)path.data);
	if (!dt) {
		rc = -ENOMEM;
		goto out;
	}
	dt->uboot_default = *from != '\0';
	path.len = 0;
	rc = imgp_buf_printf(&path, "%s%s-", (char *)ovl.data, overlay_prefix);
	if (!rc)
		rc = imgp_bootinfo_add_overlays_(dt, (char *)path.data, overlays, ".dtbo");
	path.len = 0;
	if (!rc)
		rc = imgp_buf_printf(&path, "%soverlay-user/", pre);
	if (!rc)
		rc = imgp_bootinfo_add_overlays_(dt, (char *)path.data, user, ".dtbo");
	if (!rc)
		rc = add_fixups(sv, (char *)ovl.data, &v, dt, &fixups);
	/* The fixup scripts see what armbianEnv.txt sets (param_*, ...). */
	for (size_t i = 0; !rc && i < nsettings; i++)
		rc = imgp_bootinfo_add_script_var_(dt, settings[i]);
	if (rc)
		goto out;
summary:
	rc = imgp_bootinfo_summary_(bi, "U-Boot script %sboot.scr (Armbian), "
				   "fdtfile %s%s, overlays: %s%s%s%s", pre,
				   fdtfile ? fdtfile : "(unset)", from,
				   *overlays ? overlays : "none",
				   *user ? ", user_overlays: " : "", user,
				   fixups.len ? (char *)fixups.data : "");
out:
	free(settings);
	imgp_buf_free(&fixups);
	imgp_buf_free(&fallback);
	imgp_buf_free(&ovl);
	imgp_buf_free(&file);
	imgp_buf_free(&dir);
	imgp_buf_free(&vendor);
	imgp_buf_free(&word);
	imgp_buf_free(&path);
	free(text);
	return rc < 0 ? -ENOMEM : rc;
}

/*
 * armbianEnv.txt's extraargs=: Armbian's boot.cmd builds bootargs itself
 * (root=${rootdev} rootwait ... ${extraargs} ${extraboardargs}) and leaves
 * the user that variable; its lines setting bootargs say the rest.
 */
static int armbian_cmdline(struct imgp_survey *sv, const struct imgp_survey_bootdt *dt,
			   struct imgp_cmdline_site *site)
{
	struct imgp_buf lines = { 0 }, loader = { 0 };
	char env[32];
	int rc;

	(void)dt;
	snprintf(env, sizeof(env), "%s" ENV_NAME, env_prefix(sv));
	rc = imgp_cmdline_script_lines_(sv->script.parsed ? sv->script.scr.text : NULL, &lines);
	if (rc == 1)
		rc = imgp_buf_printf(&loader, "%s builds bootargs around it: %s",
				     sv->script.path, (char *)lines.data);
	if (rc >= 0)
		rc = imgp_cmdline_site_set_(site, sv->boot, env, "extraargs=",
					   loader.len ? (char *)loader.data : NULL, "extraargs");
	site->locate = imgp_cmdline_locate_env_;
	imgp_buf_free(&loader);
	imgp_buf_free(&lines);
	return rc < 0 ? imgp_fail(ENOMEM, "out of memory") : 0;
}

/* A user overlay: /boot/overlay-user/NAME.dtbo, listed in armbianEnv.txt's user_overlays. */
static int armbian_overlay_site(const struct imgp_boot_view *boot,
			const struct imgp_survey_bootdt *dt, const char *name,
			const struct imgp_uboot_menu *gen, struct imgp_overlay_site *h)
{
	const char *tree = dt->path;
	/* "${prefix}dtb/FDTFILE": the prefix also holds armbianEnv.txt. */
	const char *dtb = strstr(tree, "dtb/");
	int pre = dtb ? (int)(dtb - tree) : 1;

	(void)boot;
	(void)gen;
	snprintf(h->file, sizeof(h->file), "%.*soverlay-user/%s.dtbo", pre, tree, name);
	/*
	 * Armbian's build makes no overlay-user folder; its
	 * armbian-add-overlay does "mkdir -p /boot/overlay-user" (armbian/build
	 * packages/bsp/common/usr/sbin/armbian-add-overlay).
	 */
	snprintf(h->folder, sizeof(h->folder), "%.*soverlay-user", pre, tree);
	h->folder_why = "made as Armbian's armbian-add-overlay makes it (mkdir -p /boot/overlay-user)";
	snprintf(h->list, sizeof(h->list), "%.*sarmbianEnv.txt", pre, tree);
	h->key = "user_overlays";
	snprintf(h->word, sizeof(h->word), "%s", name);
	return 0;
}

/* What Armbian's boot.scr reads (the script itself is the script path's). */
static const char *const armbian_loads[] = {
	"*/armbianEnv.txt", "*/fixup.scr", "*/Image", "*/zImage", "*/uInitrd", NULL,
};

const struct imgp_bootpath imgp_bootpath_armbian_ = {
	.name = "armbian",
	.named_by = "armbianEnv.txt",
	.loads = armbian_loads,
	.probe = armbian_probe,
	.describe = armbian_describe,
	.cmdline = armbian_cmdline,
	.overlay_site = armbian_overlay_site,
};
