// SPDX-License-Identifier: MIT
/*
 * The CLI's option layer (tool/cli/options.c): how argv is read against a
 * table, which errors stop it and with which exit status, and which names
 * "did you mean" offers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "unit.h"

enum { OPT_FIT = 256, OPT_FDT, OPT_DT_DELETE };

static const struct cli_option options[] = {
	{ OPT_FIT, "fit", 0, "PATH", "FIT" },
	{ OPT_FDT, "fdt", 0, "NAME", "fdt" },
	{ OPT_DT_DELETE, "dt-delete", 0, "NODE:PROP", "delete" },
	{ 'n', "dry-run", 'n', NULL, "dry run" },
	{ 'o', "output", 'o', "OUT", "output" },
	CLI_OPTIONS_END,
};
static const struct cli_option *const tables[] = { options, NULL };
static const struct cli_command command = { "test", "Usage: test\n", tables, NULL };

/*
 * Parses the space-separated words of line (argv[0] added) and prints what
 * was read: "id=value" per option, "args=a,b" at the end, or "stop=N".
 */
static char *parse(const char *line)
{
	static char result[512];
	static char prog[] = "test";
	char *copy = strdup(line), *argv[32] = { prog }, *save = NULL;
	struct cli_parser p;
	int argc = 1, c;
	size_t len = 0;

	for (char *w = strtok_r(copy, " ", &save); w && argc < 31; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	result[0] = '\0';
	/* Usage messages go to stderr: out of the TAP stream. */
	cli_parser_init(&p, &command, argc, argv);
	while ((c = cli_next(&p)) > 0)
		len += (size_t)snprintf(result + len, sizeof(result) - len, "%d=%s ",
					c, p.value ? p.value : "-");
	if (c == CLI_STOP) {
		len += (size_t)snprintf(result + len, sizeof(result) - len, "stop=%d", p.exit);
	} else {
		len += (size_t)snprintf(result + len, sizeof(result) - len, "args=");
		for (size_t i = 0; i < p.nargs; i++)
			len += (size_t)snprintf(result + len, sizeof(result) - len, "%s%s",
						i ? "," : "", p.args[i]);
	}
	cli_parser_free(&p);
	free(copy);
	return result;
}

static void check_parse(void)
{
	static const struct { const char *line, *want; } cases[] = {
		{ "a.img --fit /x.fit b", "256=/x.fit args=a.img,b" },
		{ "--fit=/x.fit a.img", "256=/x.fit args=a.img" },
		{ "--fi /x a.img", "256=/x args=a.img" },
		{ "-no out.img a.img", "110=- 111=out.img args=a.img" },
		{ "-noout.img", "110=- 111=out.img args=" },
		{ "-- --fit -n", "args=--fit,-n" },
		{ "- --dry-run", "110=- args=-" },
		{ "--f x", "stop=2" },           /* ambiguous: --fit, --fdt */
		{ "--fit", "stop=2" },           /* needs a value */
		{ "--fit=", "stop=2" },          /* an empty one too */
		{ "--dry-run=1", "stop=2" },     /* a flag takes none */
		{ "--bogus", "stop=2" },
		{ "-x", "stop=2" },
		{ "a.img --help --bogus", "stop=0" },
		{ "-h", "stop=0" },
	};
	char name[128];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(name, sizeof(name), "'%s' reads as %s", cases[i].line, cases[i].want);
		CHECK_STR(parse(cases[i].line), cases[i].want, name);
	}
}

static void check_closest(void)
{
	static const char *const names[] = { "info", "doctor", "cat", "patch", "apply",
					     "recipes", "undo" };
	static const struct { const char *word, *want; } cases[] = {
		{ "pach", "patch" }, { "aply", "apply" }, { "recipe", "recipes" },
		{ "doctr", "doctor" }, { "ifno", "info" }, { "rec", "recipes" },
		{ "frobnicate", NULL }, { "x", NULL }, { "", NULL },
	};
	char name[96];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *got = cli_closest(cases[i].word, names, 7);

		snprintf(name, sizeof(name), "closest to '%s' is %s", cases[i].word,
			 cases[i].want ? cases[i].want : "none");
		CHECK(cases[i].want ? got && !strcmp(got, cases[i].want) : !got, name);
	}
}

int main(void)
{
	/* The help and usage texts are not what is checked here. */
	if (!freopen("/dev/null", "w", stderr))
		return 1;
	check_parse();
	check_closest();
	return unit_done();
}
