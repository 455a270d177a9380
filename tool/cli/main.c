// SPDX-License-Identifier: MIT
/* imgpatch: patch SD-card disk images offline. Dispatches to cmd-<verb>.c. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#ifndef IMGP_VERSION
#define IMGP_VERSION "0.1"
#endif

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "info", cmd_info, "show partitions, FIT, boot script, SD controllers, root fstab" },
	{ "doctor", cmd_doctor, "list what slows the image's storage down, with fixes" },
	{ "cat", cmd_cat, "print a file from inside a partition" },
	{ "patch", cmd_patch, "change device tree and fstab of an image, offline" },
	{ "apply", cmd_apply, "apply a board recipe to an image as one checked transaction" },
	{ "write", cmd_write, "write an image to many cards at once, patched per card, verified" },
	{ "recipes", cmd_recipes, "list recipes, or show what one does" },
	{ "undo", cmd_undo, "restore an image patched in place, from its undo journal" },
};

/* Library warnings and progress reach the user only through these hooks. */
static void log_handler(enum imgp_log_level level, const char *msg, void *ctx)
{
	(void)ctx;
	if (level == IMGP_LOG_WARNING)
		warning("%s", msg);
	else if (level == IMGP_LOG_ERROR)
		error("%s", msg);
	else if (level == IMGP_LOG_DEBUG && getenv("IMGPATCH_DEBUG"))
		fprintf(stderr, "imgpatch: debug: %s\n", msg);
}

bool cli_quiet;

/* A progress line is on the screen without its newline. */
static volatile sig_atomic_t progress_open;

/*
 * Ctrl-C, kill, a closed terminal: the temporary files go, the progress
 * line is ended, one line says why the run stopped, and the process dies of
 * the signal (exit status 128+N in the shell). An in-place write holds these
 * signals off until it is complete (image-io.c). Only async-signal-safe calls.
 */
static void on_signal(int sig)
{
	const char *msg = sig == SIGINT ? "imgpatch: interrupted (SIGINT)\n" :
			  sig == SIGTERM ? "imgpatch: interrupted (SIGTERM)\n" :
			  "imgpatch: interrupted (SIGHUP)\n";
	ssize_t ignored;

	imgp_temp_remove_all();
	if (progress_open)
		ignored = write(STDERR_FILENO, "\n", 1);
	ignored = write(STDERR_FILENO, msg, strlen(msg));
	(void)ignored;
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Signals ignored when we start (nohup, a background job) stay ignored. */
static void catch_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa = { .sa_handler = on_signal }, old;

	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
}

/*
 * One progress line, rewritten in place: bytes, rate and time left. Only on
 * a terminal, and never with --quiet.
 */
static void progress_handler(const char *what, uint64_t done, uint64_t total,
			     void *ctx)
{
	static char last_what[32];
	static struct timespec start;
	struct timespec now;
	double secs, rate;

	(void)ctx;
	if (cli_quiet || !cli_stderr_is_tty())
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (strncmp(last_what, what, sizeof(last_what) - 1) != 0) {
		snprintf(last_what, sizeof(last_what), "%s", what);
		start = now;
	}
	secs = (double)(now.tv_sec - start.tv_sec) +
	       (double)(now.tv_nsec - start.tv_nsec) / 1e9;
	rate = secs > 0.05 ? (double)done / secs : 0;
	progress_open = 1;
	fprintf(stderr, "\r\033[K%s: %.1f", what, (double)done / (1 << 20));
	if (total)
		fprintf(stderr, "/%.1f MiB (%u%%)", (double)total / (1 << 20),
			(unsigned)(done * 100 / total));
	else
		fputs(" MiB", stderr);
	if (rate > 0)
		fprintf(stderr, ", %.1f MiB/s", rate / (1 << 20));
	if (rate > 0 && total > done)
		fprintf(stderr, ", %.0f s left", (double)(total - done) / rate);
	if (total && done >= total) {
		fputc('\n', stderr);
		progress_open = 0;
		last_what[0] = '\0';
	}
}

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

/* "'instal' is not an imgpatch command (did you mean 'info'?)": exit 2. */
static int unknown_command(const char *word)
{
	const char *names[NCOMMANDS], *near;

	for (size_t i = 0; i < NCOMMANDS; i++)
		names[i] = commands[i].name;
	near = word[0] == '-' ? NULL : cli_closest(word, names, NCOMMANDS);
	if (word[0] == '-')
		return usage_error(NULL, "unknown option '%s'", word);
	if (near)
		return usage_error(NULL, "'%s' is not an imgpatch command (did you mean '%s'?)",
				   word, near);
	return usage_error(NULL, "'%s' is not an imgpatch command", word);
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: imgpatch COMMAND [ARGS]\n"
		"       imgpatch --help | --version\n"
		"Patch SD-card disk images offline: no mounting, no loop devices, no root.\n\n"
		"Commands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\nRun 'imgpatch COMMAND --help' for a command's options.\n"
		     "Exit status: 0 done, 1 error, 2 usage error, 3 a doctor finding\n"
		     "at the --fail-on severity. See imgpatch(1).\n");
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage(stderr), EXIT_USAGE;
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("imgpatch %s\n", IMGP_VERSION);
		return EXIT_OK;
	}
	/* Past a file-size limit, a write must fail with EFBIG, not kill us. */
	signal(SIGXFSZ, SIG_IGN);
	catch_signals();
	atexit(imgp_temp_remove_all);
	imgp_log_set_handler(log_handler, NULL);
	imgp_progress_set_handler(progress_handler, NULL);
	for (size_t i = 0; i < NCOMMANDS; i++) {
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	}
	return unknown_command(argv[1]);
}
