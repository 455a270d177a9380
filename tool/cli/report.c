// SPDX-License-Identifier: MIT
/* Messages to the user: "imgpatch: " + context + reason, one line each. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* The last error line, for the --json report of a run that stops on it. */
static char last_error[1024];

/*
 * The temporary copies of the user's files that messages may name (the
 * library names the file it reads), each with the name to give instead.
 */
#define NAMED_MAX 16
static struct {
	char *copy, *name;
} named[NAMED_MAX];

void cli_name_copy(const char *copy, const char *name)
{
	size_t i, free_slot = NAMED_MAX;

	for (i = 0; i < NAMED_MAX; i++) {
		if (named[i].copy && !strcmp(named[i].copy, copy))
			break;
		if (!named[i].copy && free_slot == NAMED_MAX)
			free_slot = i;
	}
	if (i < NAMED_MAX) {
		free(named[i].copy);
		free(named[i].name);
		named[i].copy = named[i].name = NULL;
		free_slot = i;
	}
	if (!name || free_slot == NAMED_MAX)
		return;
	named[free_slot].copy = strdup(copy);
	named[free_slot].name = strdup(name);
	if (!named[free_slot].copy || !named[free_slot].name)
		die("out of memory");
}

const char *cli_name_of(const char *path)
{
	for (size_t i = 0; i < NAMED_MAX; i++)
		if (named[i].copy && !strcmp(named[i].copy, path))
			return named[i].name;
	return path;
}

void cli_names_apply(char *msg, size_t size)
{
	for (size_t i = 0; i < NAMED_MAX; i++) {
		size_t clen, nlen;
		char *at;

		if (!named[i].copy)
			continue;
		clen = strlen(named[i].copy);
		nlen = strlen(named[i].name);
		for (at = strstr(msg, named[i].copy); at; at = strstr(at + nlen, named[i].copy)) {
			size_t pos = (size_t)(at - msg), rest = strlen(at + clen);

			/* A name longer than the copy's path: the end is cut, never overflowed. */
			if (pos + nlen >= size) {
				*at = '\0';
				break;
			}
			if (rest > size - pos - nlen - 1)
				rest = size - pos - nlen - 1;
			memmove(at + nlen, at + clen, rest);
			at[nlen + rest] = '\0';
			memcpy(at, named[i].name, nlen);
		}
	}
}

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	char msg[4096];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	cli_names_apply(msg, sizeof(msg));
	if (!*prefix) {
		strncpy(last_error, msg, sizeof(last_error) - 1);
		last_error[sizeof(last_error) - 1] = '\0';
	}
	fprintf(stderr, "imgpatch: %s%s\n", prefix, msg);
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
