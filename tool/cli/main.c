// SPDX-License-Identifier: MIT
/* imgpatch: patch SD-card disk images offline. Dispatches to cmd-<verb>.c. */
#include <errno.h>
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
	{ "customize", cmd_customize, "set host name, users, network and files before the first boot" },
	{ "apply", cmd_apply, "apply a board recipe to an image as one checked transaction" },
	{ "write", cmd_write, "write an image to many cards at once, patched per card, verified" },
	{ "recipes", cmd_recipes, "list recipes, or show what one does" },
	{ "undo", cmd_undo, "restore an image patched in place, from its undo journal" },
};

/* Library warnings and progress reach the user only through these hooks. */
static void log_handler(enum imgp_log_level level, const char *msg, void *data)
{
	(void)data;
	if (level == IMGP_LOG_WARNING)
		warning("%s", msg);
	else if (level == IMGP_LOG_ERROR)
		error("%s", msg);
	else if (level == IMGP_LOG_INFO)
		fprintf(stderr, "imgpatch: %s\n", msg);
	else if (level == IMGP_LOG_DEBUG && getenv("IMGPATCH_DEBUG"))
		fprintf(stderr, "imgpatch: debug: %s\n", msg);
}

/* The library's temporary copies stand for the user's files in messages. */
static void names_handler(const char *copy, const char *name, void *data)
{
	(void)data;
	cli_name_copy(copy, name);
}

bool cli_quiet;
struct imgp_ctx *cli_ctx;

/* A progress line is on the screen without its newline. */
static volatile sig_atomic_t progress_open;
volatile sig_atomic_t cli_signal;
volatile sig_atomic_t cli_signals_deferred;
/* This process is a target's worker (cli_child_start), not the run. */
static volatile sig_atomic_t in_child;

/*
 * Ctrl-C, kill, a closed terminal or pipe: the children get the signal
 * (SIGTERM for a closed pipe), one line says why the run stopped (none for
 * a closed pipe: nobody reads), and, unless the command takes the
 * interruption as a result (cli_signals_deferred: it reports and ends
 * itself), the temporary files go, the children are waited for and the
 * process dies of the signal (exit status 128+N in the shell). A worker
 * only removes its own files and dies. An in-place write holds these
 * signals off until it is complete (lib/job/job-commit.c). Only
 * async-signal-safe calls.
 */
static void on_signal(int sig)
{
	const char *msg = sig == SIGINT ? "imgpatch: interrupted (SIGINT)\n" :
			  sig == SIGTERM ? "imgpatch: interrupted (SIGTERM)\n" :
			  sig == SIGHUP ? "imgpatch: interrupted (SIGHUP)\n" :
			  sig == SIGQUIT ? "imgpatch: interrupted (SIGQUIT)\n" : NULL;
	int saved_errno = errno;
	ssize_t ignored;

	if (in_child) {
		imgp_temp_remove_all();
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	cli_children_signal(sig == SIGPIPE ? SIGTERM : sig);
	if (!cli_signal && msg) {
		if (progress_open)
			ignored = write(STDERR_FILENO, "\n", 1);
		progress_open = 0;
		ignored = write(STDERR_FILENO, msg, strlen(msg));
		(void)ignored;
	}
	if (!cli_signal)
		cli_signal = sig;
	if (cli_signals_deferred) {
		errno = saved_errno;
		return;
	}
	imgp_temp_remove_all();
	cli_children_wait();
	signal(sig, SIG_DFL);
	raise(sig);
}

static const int caught_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };
#define NCAUGHT (sizeof(caught_signals) / sizeof(caught_signals[0]))

/* Signals ignored when we start (nohup, a background job) stay ignored. */
static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal }, old;

	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < NCAUGHT; i++)
		if (sigaction(caught_signals[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaction(caught_signals[i], &sa, NULL);
}

void cli_signals_child(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	in_child = 1;
	cli_signals_deferred = 0;
	cli_signal = 0;
	/* SIGTERM is how a dying parent ends it (PR_SET_PDEATHSIG): always caught. */
	sigfillset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
}

const char *cli_signal_text(void)
{
	int sig = cli_signal;

	return sig == SIGINT ? "interrupted (SIGINT)" : sig == SIGTERM ? "interrupted (SIGTERM)" :
	       sig == SIGHUP ? "interrupted (SIGHUP)" : sig == SIGQUIT ? "interrupted (SIGQUIT)" :
	       sig == SIGPIPE ? "interrupted (SIGPIPE: the output was closed)" : NULL;
}

void cli_signals_finish(void)
{
	int sig = cli_signal;

	if (!sig)
		return;
	fflush(stdout);
	imgp_temp_remove_all();
	cli_children_wait();
	signal(sig, SIG_DFL);
	raise(sig);
	/* A signal blocked by whoever started us still ends the run: 128+N. */
	_exit(128 + sig);
}

/*
 * One progress line, rewritten in place: bytes, rate and time left. Only on
 * a terminal, and never with --quiet.
 */
static void progress_handler(const char *what, uint64_t done, uint64_t total,
			     void *data)
{
	static char last_what[32];
	static struct timespec start;
	struct timespec now;
	double secs, rate;

	(void)data;
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
		fprintf(out, "  %-9s  %s\n", commands[i].name, commands[i].summary);
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
	if (imgp_ctx_new(&cli_ctx))
		die("%s", imgp_errmsg());
	imgp_ctx_set_log(cli_ctx, log_handler, NULL);
	imgp_ctx_set_names(cli_ctx, names_handler, NULL);
	imgp_ctx_set_progress(cli_ctx, progress_handler, NULL);
	/* A command that takes a signal as a result stops its long work early. */
	imgp_ctx_set_interrupt(cli_ctx, &cli_signal);
	for (size_t i = 0; i < NCOMMANDS; i++) {
		if (!strcmp(argv[1], commands[i].name)) {
			int rc = commands[i].fn(argc - 1, argv + 1);

			imgp_ctx_free(cli_ctx);
			return rc;
		}
	}
	return unknown_command(argv[1]);
}
