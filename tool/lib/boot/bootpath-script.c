// SPDX-License-Identifier: MIT
/*
 * Boot path "script": no FIT, a boot script (/boot.scr.uimg, else
 * /boot.scr, U-Boot's distro-boot order) loads kernel and tree itself.
 * postmarketOS's script sources /user.scr after loading the tree: that is
 * where a fix goes, and the hook this way honours there. A script that
 * loads ${fdtfile} boots the tree U-Boot's board names: each .dtb at the
 * top of the boot partition is a candidate, and the overlays user.scr
 * loads and applies ("load ... ADDR FILE", then "fdt apply ADDR") are
 * applied to it, in the script's order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch-internal.h"

/* The first partition with a boot script is the boot partition. */
static int script_probe(struct imgp_survey *sv)
{
	return imgp_survey_probe_paths(sv, imgp_bootscr_paths, imgp_nbootscr_paths);
}

static bool is_pmos(const struct imgp_survey *sv)
{
	return (sv->script.parsed &&
		strcmp(sv->script.scr.name, "postmarketos") == 0) ||
	       strcmp(sv->boot->fslabel, "pmOS_boot") == 0;
}

static const char *script_hook(const struct imgp_survey *sv)
{
	return sv->script.parsed && is_pmos(sv) ? "user.scr" : NULL;
}

#define HOOK_PATH "/user.scr"
#define WORDS_MAX 8
#define LOADS_MAX 64

/* The blank-separated words of a statement, quotes dropped; returns how many. */
static size_t split_words(char *stmt, char **words)
{
	size_t n = 0;

	while (n < WORDS_MAX) {
		stmt += strspn(stmt, " \t\"");
		if (!*stmt)
			break;
		words[n++] = stmt;
		stmt += strcspn(stmt, " \t\"");
		if (*stmt)
			*stmt++ = '\0';
	}
	return n;
}

/* A command that loads a file: "load IFACE DEV ADDR FILE" and its older names. */
static bool is_load(const char *cmd)
{
	static const char *const loads[] = { "load", "fatload", "ext2load", "ext4load" };

	for (size_t i = 0; i < sizeof(loads) / sizeof(loads[0]); i++)
		if (strcmp(cmd, loads[i]) == 0)
			return true;
	return false;
}

/* A file a "load" put at an address of the script's. */
struct loaded {
	const char *addr, *file;
};

/* "fdt apply ADDR": the file last loaded at ADDR joins dt's overlays. */
static int add_applied(struct imgp_survey_bootdt *dt, const struct loaded *loads,
		       size_t n, const char *addr)
{
	while (n-- > 0)
		if (strcmp(loads[n].addr, addr) == 0)
			return imgp_bootinfo_add_overlays(dt, *loads[n].file == '/' ? "" : "/",
							  loads[n].file, "");
	return 0;
}

/*
 * The overlays of a hook script's text, onto dt: each "fdt apply ADDR"
 * applies the file the last "load ... ADDR FILE" put there (from the boot
 * partition, where postmarketOS keeps both). Conditions are taken as true
 * (the recipe's "if load ...; then fdt apply" does both when the file is
 * there; a missing file is the effective tree's to report). Writes into
 * text. Returns 0 or -ENOMEM.
 */
static int hook_overlays(char *text, struct imgp_survey_bootdt *dt)
{
	static const char *const keywords[] = { "if", "then", "else", "elif", "do" };
	struct loaded loads[LOADS_MAX];
	size_t nloads = 0;
	char *cursor = text, *line;
	int rc = 0;

	while (!rc && (line = imgp_bootinfo_line(&cursor))) {
		char *stmt = line, *next, *op;

		/* "load ... && fdt apply ...": each side is a statement. */
		while ((op = strstr(line, "&&")) || (op = strstr(line, "||")))
			op[0] = op[1] = ';';

		for (; !rc && stmt; stmt = next) {
			char *words[WORDS_MAX];
			size_t n, w = 0;

			next = strchr(stmt, ';');
			if (next)
				*next++ = '\0';
			n = split_words(stmt, words);
			for (bool again = true; again && w < n;) {
				again = false;
				for (size_t k = 0; k < sizeof(keywords) / sizeof(keywords[0]); k++)
					if (strcmp(words[w], keywords[k]) == 0) {
						w++;
						again = true;
						break;
					}
			}
			if (n - w >= 5 && is_load(words[w]) && nloads < LOADS_MAX) {
				loads[nloads].addr = words[w + 3];
				loads[nloads++].file = words[w + 4];
			} else if (n - w >= 3 && strcmp(words[w], "fdt") == 0 &&
				   strcmp(words[w + 1], "apply") == 0) {
				rc = add_applied(dt, loads, nloads, words[w + 2]);
			}
		}
	}
	return rc;
}

/*
 * The hook script's text into *text (owned): NULL when it is not there
 * (boot.scr's load fails and it goes on) or does not read (kept in bi).
 * Returns 0 or -ENOMEM.
 */
static int read_hook(struct imgp_survey *sv, struct imgp_survey_bootinfo *bi,
		     char **text)
{
	struct imgp_fs *fs = imgp_survey_fs(sv, sv->boot);
	struct imgp_buf buf = { 0 };
	struct imgp_bootscr scr;
	int rc;

	*text = NULL;
	rc = fs ? imgp_survey_read_file(fs, HOOK_PATH, IMGP_TEXT_MAX, &buf) : -ENOTSUP;
	if (!rc) {
		rc = imgp_bootscr_parse(&scr, buf.data, buf.len);
		if (rc)
			imgp_fail_ctx(rc, IMGP_PART_FMT " (%s): %s", sv->boot->number,
				      sv->boot->fstype, HOOK_PATH);
	}
	imgp_buf_free(&buf);
	if (rc == -ENOENT) {
		imgp_errclear();
		return 0;
	}
	if (rc) {
		bi->rc = rc;
		return imgp_survey_keep(rc, &bi->error) == -ENOMEM && !bi->error ? -ENOMEM : 0;
	}
	*text = scr.text;
	scr.text = NULL;
	imgp_bootscr_free(&scr);
	return 0;
}

static bool is_dtb(const char *name)
{
	size_t n = strlen(name);

	return n > 4 && strcmp(name + n - 4, ".dtb") == 0;
}

/* The script is named; the trees are those it can load as ${fdtfile}. */
static int script_describe(struct imgp_survey *sv, struct imgp_survey_bootinfo *bi)
{
	struct imgp_fs *fs = imgp_survey_fs(sv, sv->boot);
	char **names = NULL, *hook = NULL, path[512];
	size_t n = 0;
	int rc;

	rc = imgp_bootinfo_summary(bi, "U-Boot script %s%s%s",
				   sv->script.path ? sv->script.path : "",
				   sv->hook ? ", hook " : "", sv->hook ? sv->hook : "");
	if (rc || !sv->script.parsed || !imgp_bootscr_mentions(&sv->script.scr, "${fdtfile}"))
		return rc;
	if (!fs || imgp_fs_list(fs, "/", &names, &n)) {
		imgp_errclear();
		return 0;
	}
	if (sv->hook_loaded)
		rc = read_hook(sv, bi, &hook);
	for (size_t i = 0; !rc && i < n; i++) {
		struct imgp_survey_bootdt *dt;

		if (!is_dtb(names[i]) ||
		    (size_t)snprintf(path, sizeof(path), "/%s", names[i]) >= sizeof(path))
			continue;
		dt = imgp_bootinfo_add_dt(bi, names[i], path);
		if (!dt)
			rc = -ENOMEM;
		/* Each tree gets the hook's overlays: a fresh copy of its text to cut. */
		if (!rc && hook) {
			char *copy = strdup(hook);

			rc = copy ? hook_overlays(copy, dt) : imgp_fail(ENOMEM, "out of memory");
			free(copy);
		}
	}
	free(hook);
	imgp_fs_list_free(names, n);
	return rc;
}

const struct imgp_bootpath imgp_bootpath_script = {
	.name = "script",
	.probe = script_probe,
	.hook = script_hook,
	.describe = script_describe,
};
