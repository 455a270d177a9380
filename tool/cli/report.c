// SPDX-License-Identifier: MIT
/* Messages to the user: "imgpatch: " + context + reason, one line each. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"

/* The last error line, for the --json report of a run that stops on it. */
static char last_error[1024];

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	va_list copy;

	if (!*prefix) {
		va_copy(copy, ap);
		vsnprintf(last_error, sizeof(last_error), fmt, copy);
		va_end(copy);
	}
	fputs("imgpatch: ", stderr);
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

const char *cli_last_error(void)
{
	return last_error[0] ? last_error : NULL;
}

void error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
	exit(EXIT_ERROR);
}

int error_lib(const char *subject)
{
	const char *msg = imgp_errmsg();

	error("%s: %s", subject, *msg ? msg : "unknown error");
	return EXIT_ERROR;
}

int error_lib_typed(const char *subject, bool typed)
{
	int rc = error_lib(subject);

	return typed && imgp_err_is_name() ? EXIT_USAGE : rc;
}

int usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try 'imgpatch %s%s--help'.\n", cmd ? cmd : "",
		cmd ? " " : "");
	return EXIT_USAGE;
}

bool cli_stderr_is_tty(void)
{
	return isatty(STDERR_FILENO) == 1;
}


void *cli_grow(void *p, size_t n, size_t size)
{
	p = realloc(p, (n + 1) * size);
	if (!p)
		die("out of memory");
	return p;
}
