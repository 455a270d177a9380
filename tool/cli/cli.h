/* SPDX-License-Identifier: MIT */
/* The command line: one file per subcommand, messages through die/error/warning. */
#ifndef IMGP_CLI_H
#define IMGP_CLI_H

#include "imgpatch.h"

/* Exit statuses (documented in README.md). */
#define EXIT_OK 0
#define EXIT_ERROR 1
#define EXIT_USAGE 2

/* "imgpatch: " + message + newline on stderr; die() exits with EXIT_ERROR. */
void error(const char *fmt, ...) IMGP_PRINTF(1, 2);
void warning(const char *fmt, ...) IMGP_PRINTF(1, 2);
__attribute__((noreturn)) void die(const char *fmt, ...) IMGP_PRINTF(1, 2);
/* Prints "imgpatch: <subject>: <library failure message>" and returns EXIT_ERROR. */
int error_lib(const char *subject);
/* Usage error: message plus a hint to --help; returns EXIT_USAGE. */
int usage_error(const char *cmd, const char *fmt, ...) IMGP_PRINTF(2, 3);

/* True when stderr is a terminal (progress lines are shown only then). */
bool cli_stderr_is_tty(void);

/* True when a and b name the same file. */
bool cli_same_file(const char *a, const char *b);
/*
 * Prints the plan, then writes nothing (dry_run), a patched sparse copy to
 * out (made under a temporary name beside it, renamed when complete) or the
 * image in place with Ctrl-C held off. Returns an exit status.
 */
int cli_commit(struct imgp_patch *patch, const char *image, const char *out,
	       bool dry_run);

/* The recipe search path (recipe-path.c), NULL-terminated. */
struct cli_recipe_path {
	char **dirs;
	size_t n;
};
void cli_recipe_path_init(struct cli_recipe_path *rp, char *const *extra,
			  size_t nextra);
void cli_recipe_path_free(struct cli_recipe_path *rp);

int cmd_info(int argc, char **argv);
int cmd_cat(int argc, char **argv);
int cmd_patch(int argc, char **argv);
int cmd_apply(int argc, char **argv);
int cmd_recipes(int argc, char **argv);

#endif
