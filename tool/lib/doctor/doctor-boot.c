// SPDX-License-Identifier: MIT
/*
 * The boot script: does it load the file a device-tree fix is written to
 * (user-override.dtb next to a FIT, user.scr on postmarketOS), and which
 * FIT configuration does it pick for each board it tells apart? The
 * second follows the shape of Ubuntu's Kria script: "setenv fit_config
 * NAME" lines inside "if test ...; then / else / fi" blocks, one
 * statement a line; anything else that touches fit_config makes the
 * check say nothing rather than guess.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "doctor/doctor.h"

#define COND_DEPTH 16
#define COND_MAX 256
#define CONFIG_MAX 32

/* A board the script selects, and the configuration it boots. */
struct fit_choice {
	char when[COND_DEPTH * (COND_MAX + 8)];
	char conf[128];
	int line;
};

/* Findings about the trees the board boots: what a hook would let one fix. */
static size_t tree_findings(const struct doctor *d)
{
	size_t n = 0;

	for (size_t i = 0; i < d->out->n; i++)
		n += d->out->findings[i].node != NULL;
	return n;
}

static int check_hook(struct doctor *d)
{
	const char *word = NULL;
	struct imgp_finding *f;
	int rc;

	/* The boot path says which file its script must load (bootpath-*.c). */
	word = d->sv.hook;
	if (!word || d->sv.hook_loaded)
		return 0;
	f = doctor_add_milder(d, DOCTOR_BOOT_OVERRIDE_IGNORED, !tree_findings(d));
	if (!f)
		return -ENOMEM;
	f->partition = d->sv.boot->number;
	rc = doctor_set(&f->property, "%s", word);
	if (!rc && d->sv.script.path)
		rc = doctor_set(&f->file, "%s", d->sv.script.path);
	if (!rc)
		rc = d->sv.script.path ?
		     doctor_set(&f->title, "the boot script %s never loads %s: a fixed tree there is ignored",
				d->sv.script.path, word) :
		     doctor_set(&f->title, "no boot script (boot.scr.uimg, boot.scr) loads %s: a fixed tree there is ignored",
				word);
	if (!rc)
		rc = doctor_set(&f->cost, "device-tree fixes cannot take effect this way: the board keeps booting the tree it has%s",
				tree_findings(d) ? ", with the findings above" : "");
	if (!rc)
		rc = doctor_set(&f->hint, strcmp(word, "user.scr") == 0 ?
				"boot with a boot.scr that loads and sources user.scr after loading the tree, as postmarketOS's does" :
				"boot with a script that loads " IMGP_OVERRIDE_PATH " when it exists, as Ubuntu's Kria boot.scr.uimg does");
	return rc;
}

/* "test \"${card1_rev}\" = \"B\" || test ..." -> "card1_rev = B or ..." */
static void cond_text(const char *s, size_t len, char *out, size_t outlen)
{
	size_t o = 0;

	for (size_t i = 0; i < len && o + 4 < outlen; i++) {
		if (strncmp(s + i, "test ", 5) == 0 && (i == 0 || s[i - 1] == ' ')) {
			i += 4;
		} else if (strncmp(s + i, "${", 2) == 0) {
			i++;
		} else if (s[i] == '"' || s[i] == '}') {
			continue;
		} else if (strncmp(s + i, "||", 2) == 0 || strncmp(s + i, "&&", 2) == 0) {
			const char *w = s[i] == '|' ? "or" : "and";

			memcpy(out + o, w, strlen(w));
			o += strlen(w);
			i++;
		} else {
			out[o++] = s[i];
		}
	}
	out[o] = '\0';
}

static bool starts(const char *s, size_t len, const char *word)
{
	size_t n = strlen(word);

	return len >= n && strncmp(s, word, n) == 0 &&
	       (len == n || s[n] == ' ' || s[n] == '\t' || s[n] == ';');
}

struct cond {
	char text[COND_MAX];
	bool negated;
};

static void choice_when(const struct cond *stack, int depth, char *out, size_t len)
{
	size_t o = 0;

	out[0] = '\0';
	if (depth == 0)
		snprintf(out, len, "by default");
	for (int i = 0; i < depth && o < len; i++) {
		/* "a and (b or c)": an "or" inside an "and" keeps its parentheses. */
		bool paren = stack[i].negated || (depth > 1 && strstr(stack[i].text, " or "));
		int n = snprintf(out + o, len - o, "%s%s%s%s%s", i ? " and " : "",
				 stack[i].negated ? "not " : "", paren ? "(" : "",
				 stack[i].text, paren ? ")" : "");

		if (n < 0)
			break;
		o += (size_t)n;
	}
}

/*
 * Reads the choices; returns how many, or 0 when the script does not
 * choose by board or has a shape this reader does not follow.
 */
static size_t read_choices(const char *text, size_t text_len,
			   struct fit_choice *out, size_t max)
{
	struct cond stack[COND_DEPTH];
	const char *end = text + text_len, *p = text;
	int depth = 0, line = 0;
	size_t n = 0;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *s = p, *e = eol ? eol : end;
		size_t len;

		line++;
		p = eol ? eol + 1 : end;
		while (s < e && (*s == ' ' || *s == '\t'))
			s++;
		while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == ';'))
			e--;
		len = (size_t)(e - s);
		if (len == 0 || *s == '#')
			continue;
		if (starts(s, len, "if")) {
			const char *then = len > 7 ? s + len - 4 : NULL;

			/* "if COND; then" on its own line, nothing after "then". */
			if (!then || strncmp(then, "then", 4) != 0 || depth == COND_DEPTH ||
			    memmem(s, len, "fit_config", 10))
				return 0;
			cond_text(s + 3, (size_t)(then - s - 3), stack[depth].text,
				  sizeof(stack[depth].text));
			/* Drop the "; " left before "then". */
			for (char *t = stack[depth].text + strlen(stack[depth].text);
			     t > stack[depth].text && (t[-1] == ' ' || t[-1] == ';'); t--)
				t[-1] = '\0';
			stack[depth++].negated = false;
		} else if (len == 4 && strncmp(s, "else", 4) == 0) {
			if (depth == 0 || stack[depth - 1].negated)
				return 0;
			stack[depth - 1].negated = true;
		} else if (len == 2 && strncmp(s, "fi", 2) == 0) {
			if (depth == 0)
				return 0;
			depth--;
		} else if (starts(s, len, "setenv") && memmem(s, len, "fit_config", 10)) {
			const char *name = s + 6;
			size_t nlen;

			while (name < e && (*name == ' ' || *name == '\t'))
				name++;
			if ((size_t)(e - name) < 11 || strncmp(name, "fit_config", 10) != 0 ||
			    (name[10] != ' ' && name[10] != '\t') || n == max)
				return 0;
			name += 11;
			while (name < e && (*name == ' ' || *name == '"'))
				name++;
			nlen = (size_t)(e - name);
			while (nlen && name[nlen - 1] == '"')
				nlen--;
			if (nlen == 0 || nlen >= sizeof(out[n].conf) || memchr(name, ' ', nlen))
				return 0;
			memcpy(out[n].conf, name, nlen);
			out[n].conf[nlen] = '\0';
			out[n].line = line;
			choice_when(stack, depth, out[n].when, sizeof(out[n].when));
			n++;
		} else if (starts(s, len, "elif") || starts(s, len, "while") ||
			   starts(s, len, "for") || (memmem(s, len, "fit_config", 10) &&
						     !memmem(s, len, "${fit_config}", 13))) {
			return 0;
		}
	}
	/* One default alone is no choice by board. */
	return depth == 0 && n > 1 ? n : 0;
}

static const struct imgp_fit_conf *find_conf(const struct doctor *d, const char *name)
{
	for (size_t i = 0; i < d->sv.fit.fit.nconfs; i++)
		if (strcmp(d->sv.fit.fit.confs[i].name, name) == 0)
			return &d->sv.fit.fit.confs[i];
	return NULL;
}

/* Warnings already found in the FIT tree fdt. */
static size_t fdt_warnings(const struct doctor *d, const char *fdt)
{
	size_t n = 0;

	for (size_t i = 0; i < d->out->n; i++) {
		const struct imgp_finding *f = &d->out->findings[i];

		n += f->severity == IMGP_SEVERITY_WARNING && f->fdt &&
		     strcmp(f->fdt, fdt) == 0;
	}
	return n;
}

static int add_choice(struct doctor *d, const struct fit_choice *c)
{
	const struct imgp_fit_conf *conf = find_conf(d, c->conf);
	const char *fdt = conf && conf->fdt ? conf->fdt : NULL;
	struct imgp_finding *f;
	size_t warnings;
	int rc;

	f = doctor_add(d, DOCTOR_FIT_CONFIG);
	if (!f)
		return -ENOMEM;
	f->partition = d->sv.boot->number;
	f->line = c->line;
	rc = doctor_set(&f->file, "%s", d->sv.script.path);
	if (!rc)
		rc = doctor_set(&f->property, "fit_config");
	if (!rc && fdt)
		rc = doctor_set(&f->fdt, "%s", fdt);
	if (!rc)
		rc = doctor_set(&f->title, "%s: boots %s (%s)", c->when, c->conf,
				fdt ? fdt : conf ? "no fdt" : "not in the FIT");
	warnings = fdt ? fdt_warnings(d, fdt) : 0;
	if (rc)
		return rc;
	if (doctor_override_in_effect(d))
		return doctor_set(&f->cost, "none: " IMGP_OVERRIDE_PATH " replaces this tree");
	if (warnings)
		return doctor_set(&f->cost, "this tree has %zu of the warnings above", warnings);
	return doctor_set(&f->cost, "none known");
}

static int check_fit_config(struct doctor *d)
{
	struct fit_choice *choices;
	size_t n;
	int rc = 0;

	if (!d->sv.fit.parsed || !d->sv.script.path)
		return 0;
	choices = calloc(CONFIG_MAX, sizeof(*choices));
	if (!choices)
		return imgp_fail(ENOMEM, "out of memory");
	n = read_choices(d->sv.script.scr.text, d->sv.script.scr.text_len, choices, CONFIG_MAX);
	for (size_t i = 0; i < n && !rc; i++)
		rc = add_choice(d, &choices[i]);
	free(choices);
	return rc;
}

/* An overlay of an effective tree that failed: what it was, and what the loader does. */
static int check_overlay(struct doctor *d, const struct imgp_effective *t)
{
	bool missing = t->rc == -ENOENT;
	struct imgp_finding *f;
	int rc;

	if (!t->rc || !t->failed)
		return 0;
	/* Milder where the loader only skips it: the other overlays still count. */
	f = doctor_add_milder(d, DOCTOR_OVERLAY_NOT_APPLIED, t->dtb.fdt && !t->reverted);
	if (!f)
		return -ENOMEM;
	f->partition = t->part->number;
	/* A Raspberry Pi entry may be a dtparam= line rather than a file. */
	rc = doctor_set(*t->failed == '/' ? &f->file : &f->property, "%s", t->failed);
	if (!rc)
		rc = doctor_set(&f->boot_path, "%s", t->boot_path);
	if (!rc && t->model)
		rc = doctor_set(&f->model, "%s", t->model);
	if (!rc)
		rc = doctor_set(&f->tree, "%s", t->provenance);
	if (!rc)
		rc = doctor_set(&f->title, missing ? "%s, listed by boot path %s for %s, is not there" :
				"%s, listed by boot path %s for %s, does not apply",
				t->failed, t->boot_path, t->path);
	if (!rc)
		rc = doctor_set(&f->cost, "%s", t->error);
	if (!rc)
		rc = doctor_set(&f->hint, missing ?
				"install the overlay, or take it off the list" :
				"rebuild the overlay or its base tree (dtc -@) until fdtoverlay applies it; imgpatch cat IMAGE --dtb shows the tree the board boots");
	return rc;
}

int doctor_check_boot(struct doctor *d)
{
	int rc;

	if (!d->sv.boot)
		return 0;
	rc = check_hook(d);
	if (!rc)
		rc = check_fit_config(d);
	for (size_t i = 0; !rc && i < d->neffective; i++)
		rc = check_overlay(d, &d->effective[i]);
	return rc;
}
