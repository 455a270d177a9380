// SPDX-License-Identifier: MIT
/*
 * The option layer (options.h): argv read against a command's option
 * tables, --help printed from them, and every usage error worded here.
 * Long options may be abbreviated to a unique prefix and take their value
 * as "--name=VALUE" or "--name VALUE"; short ones cluster ("-nf") and take
 * theirs as "-oOUT" or "-o OUT"; "--" ends the options.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "options.h"

/* --help's option column: help text starts here. */
#define HELP_COLUMN 25
/* Candidates gathered for a "did you mean" or an ambiguity. */
#define NAMES_MAX 64

static const struct cli_option help_option = {
	'h', "help", 'h', NULL, "this help",
};

/* Every option of the command, --help last; i counts from 0. */
static const struct cli_option *option_at(const struct cli_command *cmd, size_t i)
{
	for (size_t t = 0; cmd->tables && cmd->tables[t]; t++) {
		for (const struct cli_option *o = cmd->tables[t]; o->name || o->help; o++) {
			if (!o->name)
				continue;
			if (i-- == 0)
				return o;
		}
	}
	return i == 0 ? &help_option : NULL;
}

void cli_parser_init(struct cli_parser *p, const struct cli_command *cmd,
		     int argc, char **argv)
{
	memset(p, 0, sizeof(*p));
	p->cmd = cmd;
	p->argc = argc;
	p->argv = argv;
	p->next = 1;
}

void cli_parser_free(struct cli_parser *p)
{
	free(p->args);
	p->args = NULL;
	p->nargs = 0;
}

static int stop(struct cli_parser *p, int status)
{
	p->exit = status;
	return CLI_STOP;
}

/* Optimal string alignment distance: typos, missing letters, swaps. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), *d, w = lb + 1, r;

	d = malloc((la + 1) * w * sizeof(*d));
	if (!d)
		die("out of memory");
	for (size_t i = 0; i <= la; i++)
		d[i * w] = i;
	for (size_t j = 0; j <= lb; j++)
		d[j] = j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t best = d[(i - 1) * w + j - 1] + cost;

			if (d[(i - 1) * w + j] + 1 < best)
				best = d[(i - 1) * w + j] + 1;
			if (d[i * w + j - 1] + 1 < best)
				best = d[i * w + j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[(i - 2) * w + j - 2] + 1 < best)
				best = d[(i - 2) * w + j - 2] + 1;
			d[i * w + j] = best;
		}
	}
	r = d[la * w + lb];
	free(d);
	return r;
}

const char *cli_closest(const char *word, const char *const *candidates,
			size_t n)
{
	size_t len = strlen(word), best_d = SIZE_MAX;
	/* A third of the word may be wrong, at least one letter, at most three. */
	size_t limit = len < 3 ? 1 : len / 3 > 3 ? 3 : len / 3;
	const char *best = NULL;

	if (!len)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		size_t d = edit_distance(word, candidates[i]);

		/* "fst" for "fstab": a word cut short is close too. */
		if (len >= 2 && !strncmp(candidates[i], word, len))
			d = 1;
		if (d <= limit && d < best_d) {
			best_d = d;
			best = candidates[i];
		}
	}
	return best;
}

/*
 * shown is the option as typed ("--fitt", "-x"); a close long name is
 * offered, so "-dry-run" and "--dryrun" alike find "--dry-run".
 */
static int unknown_option(struct cli_parser *p, const char *shown)
{
	const char *names[NAMES_MAX];
	const struct cli_option *o;
	const char *near;
	size_t n = 0;

	for (size_t i = 0; n < NAMES_MAX && (o = option_at(p->cmd, i)); i++)
		names[n++] = o->name;
	near = strlen(shown) > 2 ? cli_closest(shown + strspn(shown, "-"), names, n) : NULL;
	/* "-xyz" that is no long option's typo: only its unknown letter. */
	if (!near && shown[1] != '-' && shown[2])
		usage_error(p->cmd->name, "unknown option '-%c'", shown[1]);
	else if (near)
		usage_error(p->cmd->name, "unknown option '%s' (did you mean '--%s'?)",
			    shown, near);
	else
		usage_error(p->cmd->name, "unknown option '%s'", shown);
	return stop(p, EXIT_USAGE);
}

/* "--name[=value]" with the dashes gone. */
static int read_long(struct cli_parser *p, const char *arg)
{
	size_t len = strcspn(arg, "="), nmatch = 0;
	const struct cli_option *o, *match = NULL;
	char list[256] = "";
	int rc;

	for (size_t i = 0; (o = option_at(p->cmd, i)); i++) {
		if (strncmp(o->name, arg, len))
			continue;
		if (strlen(o->name) == len) {
			match = o;
			nmatch = 1;
			break;
		}
		match = o;
		nmatch++;
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s--%s",
			 nmatch > 1 ? ", " : "", o->name);
	}
	if (!nmatch) {
		char *shown;

		if (asprintf(&shown, "--%.*s", (int)len, arg) < 0)
			die("out of memory");
		rc = unknown_option(p, shown);
		free(shown);
		return rc;
	}
	if (nmatch > 1) {
		usage_error(p->cmd->name, "option '--%.*s' is ambiguous: %s", (int)len,
			    arg, list);
		return stop(p, EXIT_USAGE);
	}
	p->opt = match;
	p->value = NULL;
	if (!match->value && arg[len] == '=') {
		usage_error(p->cmd->name, "option '--%s' takes no value", match->name);
		return stop(p, EXIT_USAGE);
	}
	if (match->value) {
		if (arg[len] == '=')
			p->value = arg + len + 1;
		else if (p->next < p->argc)
			p->value = p->argv[p->next++];
	}
	return 0;
}

/* The next letter of a "-abc" cluster. */
static int read_short(struct cli_parser *p)
{
	const struct cli_option *o;
	const char *shown;
	char letter = *p->cluster++;

	for (size_t i = 0; (o = option_at(p->cmd, i)); i++) {
		if (o->letter != letter)
			continue;
		p->opt = o;
		p->value = NULL;
		if (o->value) {
			if (*p->cluster)
				p->value = p->cluster;
			else if (p->next < p->argc)
				p->value = p->argv[p->next++];
			p->cluster = NULL;
		}
		if (p->cluster && !*p->cluster)
			p->cluster = NULL;
		return 0;
	}
	/* "-dry-run": the whole word, when it starts the cluster, may be a typo. */
	shown = p->cluster - 1 == p->argv[p->next - 1] + 1 ? p->argv[p->next - 1]
							    : (char[]){ '-', letter, '\0' };
	p->cluster = NULL;
	return unknown_option(p, shown);
}

int cli_next(struct cli_parser *p)
{
	int rc;

	while (!p->cluster) {
		const char *arg;

		if (p->next >= p->argc)
			return CLI_END;
		arg = p->argv[p->next++];
		if (p->options_done || arg[0] != '-' || !arg[1]) {
			p->args = cli_grow(p->args, p->nargs, sizeof(*p->args));
			p->args[p->nargs++] = (char *)arg;
			continue;
		}
		if (!strcmp(arg, "--")) {
			p->options_done = true;
			continue;
		}
		if (arg[1] == '-') {
			rc = read_long(p, arg + 2);
			if (rc)
				return rc;
			goto got;
		}
		p->cluster = arg + 1;
	}
	rc = read_short(p);
	if (rc)
		return rc;
got:
	if (p->opt->value && (!p->value || !*p->value)) {
		usage_error(p->cmd->name, "option '--%s' needs a value (%s)",
			    p->opt->name, p->opt->value);
		return stop(p, EXIT_USAGE);
	}
	if (p->opt == &help_option) {
		cli_print_help(p->cmd);
		return stop(p, EXIT_OK);
	}
	return p->opt->id;
}

int cli_arguments(const struct cli_parser *p, size_t min, size_t max,
		  const char *const *names)
{
	if (p->nargs < min) {
		const char *name = names[p->nargs];
		size_t len = strlen(name);

		if (len > 3 && !strcmp(name + len - 3, "..."))
			len -= 3;
		return usage_error(p->cmd->name, "missing %.*s", (int)len, name);
	}
	if (p->nargs > max)
		return usage_error(p->cmd->name, "unexpected argument '%s'",
				   p->args[max]);
	return 0;
}

int cli_bad_value(const struct cli_parser *p, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "imgpatch: --%s '%s': expected ", p->opt->name,
		p->value ? p->value : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'imgpatch %s --help'.\n", p->cmd->name);
	return EXIT_USAGE;
}

int cli_number(const struct cli_parser *p, long min, long max, long *out)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(p->value, &end, 10);
	if (errno || *end || end == p->value || n < min || n > max)
		return cli_bad_value(p, "a number from %ld to %ld", min, max);
	*out = n;
	return 0;
}

static void print_option(const struct cli_option *o)
{
	const char *help = o->help, *nl;
	char left[64];
	int width;

	if (!o->name) {
		printf("%s\n", help);
		return;
	}
	if (o->letter)
		snprintf(left, sizeof(left), "  -%c, --%s", o->letter, o->name);
	else
		snprintf(left, sizeof(left), "  --%s", o->name);
	if (o->value)
		snprintf(left + strlen(left), sizeof(left) - strlen(left), " %s", o->value);
	width = printf("%s", left);
	if (width >= HELP_COLUMN - 1) {
		putchar('\n');
		width = 0;
	}
	for (;;) {
		nl = strchr(help, '\n');
		printf("%*s%.*s\n", HELP_COLUMN - width, "",
		       (int)(nl ? nl - help : (long)strlen(help)), help);
		if (!nl)
			break;
		help = nl + 1;
		width = 0;
	}
}

void cli_fit_path(const struct cli_parser *p, char **fit_path)
{
	free(*fit_path);
	if (asprintf(fit_path, "%s%s", *p->value == '/' ? "" : "/", p->value) < 0)
		die("out of memory");
}

void cli_print_help(const struct cli_command *cmd)
{
	fputs(cmd->usage, stdout);
	for (size_t t = 0; cmd->tables && cmd->tables[t]; t++)
		for (const struct cli_option *o = cmd->tables[t]; o->name || o->help; o++)
			print_option(o);
	print_option(&help_option);
	if (cmd->footer)
		printf("\n%s", cmd->footer);
}
