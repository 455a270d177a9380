// SPDX-License-Identifier: MIT
/*
 * Boot path "script": no FIT, a boot script (/boot.scr.uimg, else
 * /boot.scr, U-Boot's distro-boot order) loads kernel and tree itself.
 * postmarketOS's script sources /user.scr after loading the tree: that is
 * where a fix goes, and the hook this way honours there. A script that
 * loads ${fdtfile} boots the tree U-Boot's board names: each .dtb at the
 * top of the boot partition is a candidate. boot.scr, and user.scr where
 * it sources it, run as U-Boot runs them (uboot-shell.c): the overlays
 * they load and apply ("load ... ADDR FILE", then "fdt apply ADDR" on the
 * loaded tree) are applied to it in that order, each in the room the last
 * "fdt resize" left.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "fs/fs.h"
#include "boot/boot.h"
#include "boot/bootpath.h"
#include "patch/patch.h"

/* The first partition with a boot script is the boot partition. */
static int script_probe(struct imgp_survey *sv)
{
	return imgp_survey_probe_paths_(sv, imgp_bootscr_paths_, imgp_nbootscr_paths_);
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
#define ALT_VALUES 2

/* A command that loads a file: "load IFACE DEV ADDR FILE" and its older names. */
static bool is_load(const char *cmd)
{
	static const char *const loads[] = { "load", "fatload", "ext2load", "ext4load" };

	for (size_t i = 0; i < sizeof(loads) / sizeof(loads[0]); i++)
		if (strcmp(cmd, loads[i]) == 0)
			return true;
	return false;
}

/*
 * The variables a board's default environment sets (distro boot's and
 * sunxi's): they stand for themselves, "${fdt_addr_r}", as addresses and
 * names the script passes on. Any other the script does not set is unset.
 */
static const char *const board_vars[] = {
	"fdt_addr_r", "fdtoverlay_addr_r", "kernel_addr_r", "ramdisk_addr_r",
	"scriptaddr", "pxefile_addr_r", "fdtfile", "fdtcontroladdr", "fdt_addr",
	"loadaddr", "mmc_bootdev", "devtype", "devnum", "distro_bootpart",
	"bootpart", "prefix", "soc", "board", "board_name", "cpu", "arch",
	"vendor", "console", "baudrate", "filesize",
};

/* A file a "load" put at an address of the script's. */
struct loaded {
	char *addr, *file;
};

/* One run of boot.scr (and the user.scr it sources) over the image. */
struct run {
	struct imgp_survey *sv;
	const char *hook;        /* user.scr's text; NULL: none */
	struct imgp_buf loads;   /* struct loaded, as many as the script runs */
	size_t nloads;
	char *addr;              /* "fdt addr": the tree fdt works on */
	char *tree;              /* where ${fdtfile} was loaded */
	long room;               /* an "fdt resize" not yet followed by an apply */
	bool booted, sourcing;
	const char *alt_name, *alt_value; /* a board variable given a value */
	char symbol[64];
	struct imgp_survey_bootdt out; /* the overlays applied, with their room */
};

static const char *run_board(void *ctx, const char *name)
{
	struct run *r = ctx;

	if (r->alt_name && strcmp(name, r->alt_name) == 0)
		return r->alt_value;
	for (size_t i = 0; i < sizeof(board_vars) / sizeof(board_vars[0]); i++)
		if (strcmp(name, board_vars[i]) == 0) {
			snprintf(r->symbol, sizeof(r->symbol), "${%s}", name);
			return r->symbol;
		}
	return NULL;
}

static const char *loaded_at(const struct run *r, const char *addr)
{
	const struct loaded *loads = (const struct loaded *)r->loads.data;

	for (size_t n = r->nloads; n-- > 0;)
		if (strcmp(loads[n].addr, addr) == 0)
			return loads[n].file;
	return NULL;
}

static int set_owned(char **field, const char *s)
{
	free(*field);
	*field = strdup(s);
	return *field ? 0 : imgp_fail(ENOMEM, "out of memory");
}

/*
 * The commands that touch the tree: "load" (fails when the file is not on
 * the boot partition), "fdt addr/resize/apply" on the loaded tree,
 * "source" of user.scr; "fdt get/list/print" on U-Boot's own tree is taken
 * to fail (a board tree without the node); the rest succeed.
 */
static int run_command(void *ctx, struct imgp_ushell *sh, int argc, char **argv,
		       int *status)
{
	struct run *r = ctx;
	const char *file;
	char path[512];
	int rc = 0;

	*status = 0;
	if (r->booted)
		return 0;
	if (is_load(argv[0]) && argc >= 5) {
		if (strcmp(argv[4], "${fdtfile}") == 0)
			return set_owned(&r->tree, argv[3]);
		struct loaded l = { strdup(argv[3]), strdup(argv[4]) };

		if (!l.addr || !l.file || imgp_buf_append(&r->loads, &l, sizeof(l))) {
			free(l.addr);
			free(l.file);
			return imgp_fail(ENOMEM, "out of memory");
		}
		r->nloads++;
		/* U-Boot's filesystems take the name with or without its '/'. */
		snprintf(path, sizeof(path), "/%s", argv[4] + (*argv[4] == '/'));
		*status = imgp_bootinfo_exists_(r->sv, path) ? 0 : 1;
	} else if (strcmp(argv[0], "fdt") == 0 && argc >= 3 && strcmp(argv[1], "addr") == 0) {
		rc = set_owned(&r->addr, argv[2]);
	} else if (strcmp(argv[0], "fdt") == 0 && argc >= 2 && !strncmp(argv[1], "re", 2)) {
		/* cmd/fdt.c reads the size in hex: "fdt resize 2048" is 0x2048 bytes. */
		if (r->addr && r->tree && strcmp(r->addr, r->tree) == 0)
			r->room = argc > 2 ? (long)strtoul(argv[2], NULL, 16) : 0;
	} else if (strcmp(argv[0], "fdt") == 0 && argc >= 3 && strcmp(argv[1], "apply") == 0) {
		file = loaded_at(r, argv[2]);
		if (file && r->addr && r->tree && strcmp(r->addr, r->tree) == 0) {
			rc = imgp_bootinfo_add_overlays_(&r->out, *file == '/' ? "" : "/", file, "");
			if (!rc) {
				/* The overlay just added gets the pending resize. */
				long *grown = realloc(r->out.room, r->out.noverlays * sizeof(*grown));

				if (!grown)
					return imgp_fail(ENOMEM, "out of memory");
				r->out.room = grown;
				grown[r->out.noverlays - 1] = r->room;
				r->room = -1;
			}
		}
	} else if (strcmp(argv[0], "fdt") == 0 && argc >= 2 &&
		   (!strcmp(argv[1], "get") || !strcmp(argv[1], "list") || !strcmp(argv[1], "print"))) {
		*status = r->addr && r->tree && strcmp(r->addr, r->tree) == 0 ? 0 : 1;
	} else if (strcmp(argv[0], "source") == 0 && argc >= 2) {
		file = loaded_at(r, argv[1]);
		if (file && r->hook && !r->sourcing &&
		    strcmp(file + (*file == '/'), &HOOK_PATH[1]) == 0) {
			r->sourcing = true;
			rc = imgp_ushell_run_(sh, r->hook);
			r->sourcing = false;
		} else {
			*status = 1;
		}
	} else if (!strcmp(argv[0], "booti") || !strcmp(argv[0], "bootm") ||
		   !strcmp(argv[0], "bootz")) {
		r->booted = true;
	}
	return rc;
}

static void run_free(struct run *r)
{
	struct loaded *loads = (struct loaded *)r->loads.data;

	for (size_t i = 0; i < r->nloads; i++) {
		free(loads[i].addr);
		free(loads[i].file);
	}
	imgp_buf_free(&r->loads);
	for (size_t k = 0; k < r->out.noverlays; k++)
		free(r->out.overlays[k]);
	free(r->out.overlays);
	free(r->out.room);
	free(r->addr);
	free(r->tree);
}

/*
 * Runs boot.scr as the board does, with the variable alt_name set to
 * alt_value (NULL: none), into r->out; the variables a test found unset
 * into *unset (a copy, with sh). Returns 0 or -errno.
 */
static int run_script(struct imgp_survey *sv, const char *hook, const char *alt_name,
		      const char *alt_value, struct run *r, struct imgp_ushell **sh)
{
	static const struct imgp_ushell_ops ops = { run_board, run_command };

	memset(r, 0, sizeof(*r));
	r->sv = sv;
	r->hook = hook;
	r->room = -1;
	r->alt_name = alt_name;
	r->alt_value = alt_value;
	*sh = imgp_ushell_new_(&ops, r);
	if (!*sh)
		return -ENOMEM;
	return imgp_ushell_run_(*sh, sv->script.scr.text);
}

/* "a.dtbo b.dtbo", or "no overlay": what one run applies. */
static int outcome(const struct run *r, struct imgp_buf *b)
{
	int rc = 0;

	b->len = 0;
	for (size_t i = 0; !rc && i < r->out.noverlays; i++)
		rc = imgp_buf_printf(b, "%s%s", i ? " + " : "", r->out.overlays[i]);
	if (!rc && !r->out.noverlays)
		rc = imgp_buf_printf(b, "no overlay");
	return rc;
}

/*
 * The board variables the outcome hangs on: each one a test read unset is
 * tried at 0 and 1; a value that changes what is applied becomes a note.
 */
static int alternatives(struct imgp_survey *sv, const char *hook, struct run *def,
			struct imgp_ushell *sh, struct imgp_survey_bootdt *notes)
{
	static const char *const values[ALT_VALUES] = { "0", "1" };
	struct imgp_buf mine = { 0 }, theirs = { 0 }, note = { 0 };
	const char *const *names;
	size_t n = imgp_ushell_unset_(sh, &names);
	int rc = outcome(def, &mine);

	for (size_t i = 0; !rc && i < n; i++)
		for (size_t v = 0; !rc && v < ALT_VALUES; v++) {
			struct imgp_ushell *alt = NULL;
			struct run r;

			rc = run_script(sv, hook, names[i], values[v], &r, &alt);
			if (!rc)
				rc = outcome(&r, &theirs);
			if (!rc && strcmp((char *)theirs.data, (char *)mine.data) != 0) {
				note.len = 0;
				rc = imgp_buf_printf(&note, "%s: what is applied depends on %s, which the image does not set: unset (the board's default environment): %s; with %s=%s on the board: %s",
						     sv->script.path, names[i], (char *)mine.data,
						     names[i], values[v], (char *)theirs.data);
				if (!rc)
					rc = imgp_bootinfo_add_note_(notes, (char *)note.data);
			}
			run_free(&r);
			imgp_ushell_free_(alt);
		}
	imgp_buf_free(&mine);
	imgp_buf_free(&theirs);
	imgp_buf_free(&note);
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
	struct imgp_fs *fs = imgp_survey_fs_(sv, sv->boot);
	struct imgp_buf buf = { 0 };
	struct imgp_bootscr scr;
	int rc;

	*text = NULL;
	rc = fs ? imgp_survey_read_file_(fs, HOOK_PATH, IMGP_TEXT_MAX, &buf) : -ENOTSUP;
	if (!rc) {
		rc = imgp_bootscr_parse_(&scr, buf.data, buf.len);
		if (rc)
			imgp_fail_ctx(rc, IMGP_PART_FMT " (%s): %s", sv->boot->number,
				      sv->boot->fstype, HOOK_PATH);
	}
	imgp_buf_free(&buf);
	if (rc == -ENOENT) {
		imgp_errclear_();
		return 0;
	}
	if (rc) {
		bi->rc = rc;
		return imgp_survey_keep_(rc, &bi->error) == -ENOMEM && !bi->error ? -ENOMEM : 0;
	}
	*text = scr.text;
	scr.text = NULL;
	imgp_bootscr_free_(&scr);
	return 0;
}

static bool is_dtb(const char *name)
{
	size_t n = strlen(name);

	return n > 4 && strcmp(name + n - 4, ".dtb") == 0;
}

/* dt gets what the run applied and the notes on what it hangs on. */
static int copy_run(const struct run *r, const struct imgp_survey_bootdt *notes,
		    struct imgp_survey_bootdt *dt)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < r->out.noverlays; i++)
		rc = imgp_bootinfo_add_overlay_room_(dt, r->out.overlays[i], r->out.room[i]);
	for (size_t i = 0; !rc && i < notes->nnotes; i++)
		rc = imgp_bootinfo_add_note_(dt, notes->notes[i]);
	return rc;
}

/*
 * The script is named; the trees are those it can load as ${fdtfile}, with
 * what boot.scr and the user.scr it sources apply to them, in its order.
 */
static int script_describe(struct imgp_survey *sv, struct imgp_survey_bootinfo *bi)
{
	struct imgp_fs *fs = imgp_survey_fs_(sv, sv->boot);
	struct imgp_survey_bootdt notes = { 0 };
	struct imgp_ushell *sh = NULL;
	char **names = NULL, *hook = NULL, path[512];
	struct run run;
	size_t n = 0;
	int rc;

	memset(&run, 0, sizeof(run));
	rc = imgp_bootinfo_summary_(bi, "U-Boot script %s%s%s",
				   sv->script.path ? sv->script.path : "",
				   sv->hook ? ", hook " : "", sv->hook ? sv->hook : "");
	if (rc || !sv->script.parsed || !imgp_bootscr_mentions_(&sv->script.scr, "${fdtfile}"))
		return rc;
	if (!fs || imgp_fs_list_(fs, "/", &names, &n)) {
		imgp_errclear_();
		return 0;
	}
	if (sv->hook_loaded)
		rc = read_hook(sv, bi, &hook);
	if (!rc)
		rc = run_script(sv, hook, NULL, NULL, &run, &sh);
	if (!rc)
		rc = alternatives(sv, hook, &run, sh, &notes);
	for (size_t i = 0; !rc && i < n; i++) {
		struct imgp_survey_bootdt *dt;

		if (!is_dtb(names[i]) ||
		    (size_t)snprintf(path, sizeof(path), "/%s", names[i]) >= sizeof(path))
			continue;
		dt = imgp_bootinfo_add_dt_(bi, names[i], path);
		rc = dt ? copy_run(&run, &notes, dt) : -ENOMEM;
	}
	for (size_t k = 0; k < notes.nnotes; k++)
		free(notes.notes[k]);
	free(notes.notes);
	run_free(&run);
	imgp_ushell_free_(sh);
	free(hook);
	imgp_fs_list_free_(names, n);
	if (rc && rc != -ENOMEM) {
		/* A script this reading cannot follow: kept as the boot path's failure. */
		bi->rc = rc;
		rc = imgp_survey_keep_(rc, &bi->error) == -ENOMEM && !bi->error ? -ENOMEM : 0;
	}
	return rc;
}

#define SETENV "setenv bootargs "

/*
 * The last "setenv bootargs VALUE" line of text (a script): start and end
 * of VALUE (inside its quotes when quoted whole), past the blanks before
 * it. Returns true when there is one.
 */
static bool setenv_value(const char *text, size_t len, size_t *start, size_t *end)
{
	bool found = false;

	for (size_t pos = 0, next; pos < len; pos = next) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t e = nl ? (size_t)(nl - text) : len, v;

		next = nl ? e + 1 : len;
		v = pos + strspn(text + pos, " \t");
		if (e - v < strlen(SETENV) || memcmp(text + v, SETENV, strlen(SETENV)))
			continue;
		v += strlen(SETENV);
		while (v < e && (text[v] == ' ' || text[v] == '\t'))
			v++;
		while (e > v && strchr(" \t\r;", text[e - 1]))
			e--;
		if (e - v >= 2 && text[v] == '"' && text[e - 1] == '"') {
			v++;
			e--;
		}
		*start = v;
		*end = e;
		found = true;
	}
	return found;
}

/* The hook's own setenv bootargs line; a new one goes at its end. */
static int locate_setenv(const struct imgp_cmdline_site *site, const char *text,
			 size_t len, struct imgp_cmdline_span *span)
{
	(void)site;
	memset(span, 0, sizeof(*span));
	span->found = setenv_value(text, len, &span->start, &span->end);
	if (!span->found) {
		span->start = span->end = len;
		snprintf(span->head, sizeof(span->head), "%s" SETENV "\"",
			 len && text[len - 1] != '\n' ? "\n" : "");
		snprintf(span->tail, sizeof(span->tail), "\"\n");
	}
	return 0;
}

/*
 * The script sets bootargs itself. postmarketOS's sources its hook
 * /user.scr after that line and before it boots: a "setenv bootargs" there
 * replaces the line, so that is where an edit goes (the script's own value
 * its start, its ${variables} kept for U-Boot to fill in). Any other is
 * refused, its lines named.
 */
static int script_cmdline(struct imgp_survey *sv, const struct imgp_survey_bootdt *dt,
			  struct imgp_cmdline_site *site)
{
	const char *text = sv->script.parsed ? sv->script.scr.text : NULL;
	const char *hook = text && sv->hook ? strstr(text, sv->hook) : NULL;
	struct imgp_buf lines = { 0 }, base = { 0 }, loader = { 0 };
	size_t start = 0, end = 0;
	int rc;

	(void)dt;
	if (!hook || !setenv_value(text, (size_t)(hook - text), &start, &end) ||
	    memchr(text + start, '"', end - start))
		return imgp_cmdline_script_refusal_(sv, NULL);
	rc = imgp_cmdline_script_lines_(text, &lines) < 0 ? -ENOMEM : 0;
	if (!rc)
		rc = imgp_buf_printf(&base, "%.*s", (int)(end - start), text + start);
	if (!rc)
		rc = imgp_buf_printf(&loader, "%s sets bootargs (%s), then sources %s, whose setenv bootargs replaces it",
				     sv->script.path, (char *)lines.data, HOOK_PATH);
	if (!rc)
		rc = imgp_cmdline_site_set_(site, sv->boot, HOOK_PATH, "setenv bootargs",
					   (char *)loader.data, NULL);
	if (!rc) {
		site->script = true;
		site->base = (char *)imgp_buf_steal_(&base, NULL);
		site->locate = locate_setenv;
	}
	imgp_buf_free(&loader);
	imgp_buf_free(&base);
	imgp_buf_free(&lines);
	return rc ? imgp_fail(ENOMEM, "out of memory") : 0;
}

/* The scripts distro boot runs and sources, and the kernels they load. */
static const char *const script_loads[] = {
	"*/boot.scr", "*/boot.scr.uimg", "*/boot.cmd", "*/user.scr", "*/uImage", "*/Image", "*/Image.gz", "*/zImage", "*/uInitrd", NULL,
};

const struct imgp_bootpath imgp_bootpath_script_ = {
	.name = "script",
	.named_by = "boot script",
	.loads = script_loads,
	.probe = script_probe,
	.hook = script_hook,
	.describe = script_describe,
	.cmdline = script_cmdline,
};
