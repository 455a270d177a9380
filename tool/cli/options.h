/* SPDX-License-Identifier: MIT */
/*
 * One option layer for every command: a command declares its options in
 * tables (long name, short letter, value, help text) and one parser reads
 * argv against them, prints --help from them and words every usage error
 * the same way ("unknown option '--fitt' (did you mean '--fit'?)", "option
 * '--fit' needs a value PATH", "--level 'x': expected ..."), followed by
 * "Try 'imgpatch CMD --help'." Usage errors exit 2, --help exits 0.
 */
#ifndef IMGP_CLI_OPTIONS_H
#define IMGP_CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * One option. id is what cli_next() returns for it (a short option's letter
 * or a number from 256 up); value names the option's argument in --help
 * ("OUT"), NULL for a flag. help may hold '\n' for continuation lines. An
 * entry with neither id nor name is a heading line of --help (its help);
 * an all-zero entry ends a table.
 */
struct cli_option {
	int id;
	const char *name;
	char letter;
	const char *value;
	const char *help;
};

#define CLI_HEADING(text) { 0, NULL, 0, NULL, text }
#define CLI_OPTIONS_END { 0, NULL, 0, NULL, NULL }

/* A command: its usage lines, its option tables in --help order, a footer. */
struct cli_command {
	const char *name;
	const char *usage;                       /* "Usage: ..." up to the options */
	const struct cli_option *const *tables;  /* NULL-terminated */
	const char *footer;                      /* after the options, or NULL */
};

/* Reading one command's argv. Options and arguments may come in any order. */
struct cli_parser {
	const struct cli_command *cmd;
	int argc;
	char **argv;
	int next;                  /* next argv element */
	const char *cluster;       /* the rest of "-nf" after its first letter */
	bool options_done;         /* after "--" */
	const struct cli_option *opt;  /* the option cli_next() returned */
	const char *value;         /* its value, NULL for a flag */
	char **args;               /* the arguments that are not options */
	size_t nargs;
	int exit;                  /* with CLI_STOP: 0 after --help, 2 after an error */
};

/* cli_next(): the end of argv, or a stop (--help printed, or a usage error). */
#define CLI_END 0
#define CLI_STOP (-1)

void cli_parser_init(struct cli_parser *p, const struct cli_command *cmd,
		     int argc, char **argv);
void cli_parser_free(struct cli_parser *p);
/*
 * The next option: its id (p->value holds its value), CLI_END when argv is
 * read (the other arguments are then in p->args), or CLI_STOP with p->exit
 * after --help was printed or a usage error reported.
 */
int cli_next(struct cli_parser *p);
/*
 * Checks the count of arguments against names ("IMAGE", "PART:PATH"; a
 * last name ending in "..." takes any number): "missing PART:PATH" or
 * "unexpected argument 'x'". Returns 0 or EXIT_USAGE after the message.
 */
int cli_arguments(const struct cli_parser *p, size_t min, size_t max,
		  const char *const *names);
/*
 * A bad value of the option just read: "--NAME 'VALUE': expected " + fmt.
 * Returns EXIT_USAGE.
 */
int cli_bad_value(const struct cli_parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The option's value as a whole number from min to max, or EXIT_USAGE. */
int cli_number(const struct cli_parser *p, long min, long max, long *out);
/* --fit PATH: *fit_path becomes PATH made absolute on the boot partition. */
void cli_fit_path(const struct cli_parser *p, char **fit_path);
/* Prints a command's --help to stdout. */
void cli_print_help(const struct cli_command *cmd);

/*
 * The candidate closest to word by edit distance, when it is close enough
 * to be a typo of it (or word is a prefix of it); NULL otherwise.
 */
const char *cli_closest(const char *word, const char *const *candidates,
			size_t n);

#endif
