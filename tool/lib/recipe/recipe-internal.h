// SPDX-License-Identifier: MIT
/*
 * What the recipe files share: the model of a loaded recipe and the
 * helpers one stage offers the next. Not part of any API.
 */
#ifndef IMGP_RECIPE_INTERNAL_H
#define IMGP_RECIPE_INTERNAL_H

#include <confuse.h>
#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

#include "imgpatch.h"
#include "patch/patch.h"

#define RECIPE_MAX ((size_t)1 << 20)  /* a recipe file */
#define LOCAL_MAX ((size_t)16 << 20)  /* an overlay, script or file it names */
#define NAME_MAX_LEN 64               /* recipe and parameter names */
#define SCRIPT_NAME_MAX 32            /* U-Boot legacy image name */
#define WRAP 78                       /* describe output width */

/* ------------------------------------------------------------ the model */

/* Every option a step can have; each action takes some of them. */
enum opt {
	OP_ACTION, OP_FIT, OP_FDT, OP_PART, OP_PATH, OP_NODE, OP_PROPERTY, OP_VALUE,
	OP_OVERLAY, OP_WORD, OP_MOUNTPOINT, OP_OPTIONS, OP_CONTENT, OP_FILE, OP_KEY,
	OP_SECTION, OP_TOKEN, OP_TARGET, OP_SCRIPT, OP_NAME, OP_ARCH, OP_MARKER,
	OP_MODEL, OP_VIA, OP_MODE, OP_HEADER, OP_EDITS,
	OP_COUNT
};

static const char *const opt_names[OP_COUNT] = {
	"action", "fit", "fdt", "part", "path", "node", "property", "value",
	"overlay", "word", "mountpoint", "options", "content", "file", "key",
	"section", "token", "target", "script", "name", "arch", "marker",
	"model", "via", "mode", "header", "edits",
};

/* What an option's value must look like. */
enum kind {
	K_FSPATH,       /* absolute path inside a filesystem, no "." or ".." */
	K_PART,         /* "boot", "root", a partition number or a label */
	K_LOCAL,        /* a file next to the recipe (or in overlays/) */
	K_TEXT,         /* any text, newlines too */
	K_LINE,         /* one line, may be empty */
	K_WORD,         /* one non-empty line */
	K_NOSPACE,      /* non-empty, no white space */
	K_DTPATH,       /* absolute device tree node path */
	K_DTVALUE,      /* property value in dtc syntax */
	K_FSTABOPS,     /* "-discard,+noatime" */
	K_ARCH,         /* U-Boot architecture name */
	K_SCRNAME,      /* U-Boot image name */
	K_MODE,         /* permission bits in octal, "0600" */
	K_YAML,         /* one top-level YAML entry: "key: ...", lines under it */
	K_CMDLINE,      /* kernel command line edits, "+cgroup_memory=1,-quiet" */
};

#define REQ 1u  /* required */
#define OPT 2u  /* optional */
#define ALT 4u  /* exactly one of the ALT options */

struct action_opt {
	enum opt opt;
	enum kind kind;
	unsigned flags;         /* 0 ends the list */
};

/*
 * How a step uses the device tree being edited, for the order checks. An
 * overlay that is never written still proves that it applies: a check.
 */
enum dt_use { DT_NONE, DT_LOAD, DT_EDIT, DT_CHECK, DT_WRITE };

struct recipe_step;
struct action {
	const char *name;
	enum dt_use dt;
	/* "{opt}" is the option's value; "[...]" shows only when every option
	 * in it is set; "{?opt}" shows nothing but needs opt. */
	const char *show;
	int (*run)(struct imgp_patch *patch, const struct recipe_step *st);
	struct action_opt opts[8];
};

struct recipe_step {
	const struct action *action;
	int line;
	const char *raw[OP_COUNT];       /* as written; NULL when absent */
	const char *val[OP_COUNT];       /* with parameters substituted */
	const char *local;              /* resolved path of a K_LOCAL option */
	/* A load step: the write-tree step that writes its tree (NULL: write-dtb),
	 * and whether an edit in between deletes (the way depends on both). */
	const struct recipe_step *writer;
	bool deletes;
	/* when = "${NAME}=VALUE": the step runs only when NAME is bound to
	 * when_value (a value as binding leaves it); when NULL, always. */
	const char *when;
	size_t when_param;
	const char *when_value;
};

enum rule_kind { R_LABEL, R_PART, R_FILE, R_FITFDT, R_COMPAT, R_COUNT };

static const char *const rule_keys[R_COUNT] = {
	"partition-label", "partition", "file", "fit-fdt", "compatible",
};

struct match_rule {
	enum rule_kind kind;
	int line;
	const char *raw;
	const char *val;
};

struct imgp_recipe {
	const char *path;
	const char *dir;                /* real path of its directory */
	const char *name, *summary, *description, *source, *risks, *undo;
	size_t nparams;
	struct imgp_recipe_param *params;
	regex_t *patterns;              /* per parameter: its pattern, compiled */
	bool *compiled;                 /* per parameter: patterns[i] to regfree */
	size_t nrules;
	struct match_rule *rules;
	size_t nsteps;
	struct recipe_step *steps;
	bool loaded;                    /* parsed and checked: messages name it */
	bool bound;
	/* Every string above is owned here, freed together. */
	char **pool;
	size_t npool, cappool;
};

/* ---------------------------------------------------------- the scanner */

/*
 * libconfuse reads "${VAR}" in double-quoted and bare strings as an
 * environment variable, and miscounts lines after comments. So the text it
 * parses is first rewritten here: comments become blanks (newlines kept),
 * "${" inside double quotes becomes "\${" (which libconfuse reads back as
 * "${"), and "${" outside quotes is refused. On the way the scanner notes
 * the line of every top-level section and of every key, which libconfuse
 * does not keep, for messages and duplicate checks.
 */
struct scan_sec {
	char kind[32];
	int line;
};

struct scan_key {
	size_t sec;                     /* 0: top level; n: secs[n - 1] */
	char key[32];
	int line;
};

struct scan {
	const char *path;
	struct imgp_buf out;
	size_t nsecs, nkeys;
	struct scan_sec *secs;
	struct scan_key *keys;
	/* parser state */
	enum { S_KEY, S_AFTER_KEY, S_TITLE, S_VALUE, S_LIST, S_FUNC } st;
	int depth;
	size_t cur;
	char key[32];
	int keyline;
};

/* ------------------------------------------------ what the stages share */

/* recipe.c: the string pool every loaded string lives in */
const char *imgp_recipe_pool_keep_(struct imgp_recipe *r, char *s);
const char *imgp_recipe_pool_dup_(struct imgp_recipe *r, const char *s);

/* recipe-path.c: files */
bool imgp_recipe_is_regular_(const char *path);
bool imgp_recipe_ends_with_(const char *s, const char *suffix);

/* recipe-value.c: value checks and parameter references */
bool imgp_recipe_is_ident_(const char *s, size_t len);
bool imgp_recipe_is_name_(const char *s);
bool imgp_recipe_has_ctl_(const char *s, bool tab_ok);
const char *imgp_recipe_show_value_(const char *v, char *buf, size_t len);
bool imgp_recipe_parse_long_(const char *s, long *out);
const char *imgp_recipe_check_value_(enum kind k, const char *v, bool bound,
			       char *why, size_t whylen);
struct imgp_recipe_param *imgp_recipe_find_param_(const struct imgp_recipe *r,
					    const char *name, size_t len);
void imgp_recipe_param_names_(const struct imgp_recipe *r, char *buf, size_t len);
int imgp_recipe_walk_refs_(const struct imgp_recipe *r, const char *s,
		     const char *const *values, struct imgp_buf *out,
		     char *why, size_t whylen);

/* recipe-lex.c: the scanner */
int imgp_recipe_scan_text_(struct scan *s, const char *t, size_t len);
void imgp_recipe_scan_free_(struct scan *s);
size_t imgp_recipe_scan_sec_(const struct scan *s, const char *kind, size_t ordinal);
int imgp_recipe_sec_line_(const struct scan *s, size_t sec);
bool imgp_recipe_has_key_(const struct scan *s, size_t sec, const char *key);
int imgp_recipe_key_line_(const struct scan *s, size_t sec, const char *key);

/* recipe-actions.c: the action table */
extern const struct action imgp_recipe_actions_[];
extern const size_t imgp_recipe_nactions_;
int imgp_recipe_run_fdt_from_fit_(struct imgp_patch *patch, const struct recipe_step *st);
const struct action *imgp_recipe_find_action_(const char *name);
/* The step writes its tree the way the boot path honours / deletes something. */
bool imgp_recipe_is_write_tree_(const struct recipe_step *st);
bool imgp_recipe_is_delete_(const struct recipe_step *st);
const struct action_opt *imgp_recipe_action_opt_(const struct action *a, enum opt o);
/* What is wrong with a step's options together (v: raw or bound), or NULL. */
const char *imgp_recipe_check_step_(const struct action *a, const char *const *v);

/* recipe-load.c: loading */
struct loader {
	struct imgp_recipe *r;
	struct scan sc;
	cfg_t *cfg;
};
/* "FILE:LINE: " + message, as -EINVAL; no line when line is 0. */
int imgp_recipe_load_err_(const struct loader *ld, int line, const char *fmt, ...)
	IMGP_PRINTF(3, 4);
const struct recipe_step *imgp_recipe_first_dt_load_(const struct imgp_recipe *r);
int imgp_recipe_resolve_locals_(struct imgp_recipe *r, bool bound, struct loader *ld);

/* recipe-param.c: parameters */
/* Loads the i-th param section into r->params[i]. */
int imgp_recipe_load_param_(struct loader *ld, size_t i);
int imgp_recipe_param_check_(const struct imgp_recipe *r,
		       const struct imgp_recipe_param *p, const char *v,
		       long *num);
const char *imgp_recipe_param_norm_(struct imgp_recipe *r,
			      const struct imgp_recipe_param *p, const char *v,
			      long num);

/* recipe-load.c: whether step st runs with the parameters bound */
bool imgp_recipe_step_runs_(const struct imgp_recipe *r, const struct recipe_step *st);

/* recipe-bind.c: binding */
int imgp_recipe_check_bound_(const struct imgp_recipe *r);

#endif
