// SPDX-License-Identifier: MIT
/*
 * What apply (over several images) and write (over several cards) do for
 * each target alike: take --set NAME=VALUE, bind a recipe with a target's
 * own parameters (--set, then its row of --each), and run the target's
 * work in a child process of its own, so that one that fails or crashes
 * neither stops nor touches the others, and take a signal as a result (each
 * target's status); then write the report of them all.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "text/json.h"

int cli_set_option(const struct cli_parser *p, const char ***sets, size_t *nsets)
{
	if (!strchr(p->value, '=') || p->value[0] == '=')
		return cli_bad_value(p, "NAME=VALUE");
	*sets = cli_grow(*sets, *nsets, sizeof(**sets));
	(*sets)[(*nsets)++] = p->value;
	return 0;
}

int cli_target_bind(struct imgp_recipe *r, const struct cli_each *each, const char *target,
		    const char *const *sets, size_t nsets)
{
	char **owned;
	size_t n;
	const char **mine = cli_each_sets(each, each ? cli_each_row(each, target) : 0, r,
					  sets, nsets, &owned, &n);
	int rc = imgp_recipe_bind(r, mine, n);

	cli_each_sets_free(mine, owned);
	return rc;
}

void cli_json_parameters(struct imgp_json *j, struct imgp_recipe *const *recipes, size_t n,
			 const struct cli_each *each, const char *target,
			 const char *const *sets, size_t nsets)
{
	const char **names = NULL;
	size_t nnames = 0;

	imgp_json_key_(j, "parameters");
	imgp_json_object_begin_(j);
	for (size_t k = 0; k < n; k++) {
		const struct imgp_recipe_param *params;
		size_t np;

		if (cli_target_bind(recipes[k], each, target, sets, nsets))
			continue;
		np = imgp_recipe_params(recipes[k], &params);
		for (size_t i = 0; i < np; i++) {
			bool seen = false;

			/* Two recipes with one parameter name got the same value. */
			for (size_t q = 0; q < nnames && !seen; q++)
				seen = !strcmp(names[q], params[i].name);
			if (seen || !params[i].value)
				continue;
			names = cli_grow(names, nnames, sizeof(*names));
			names[nnames++] = params[i].name;
			imgp_json_kv_string_(j, params[i].name, params[i].secret ? "set" : params[i].value);
		}
	}
	imgp_json_object_end_(j);
	free(names);
}

/*
 * The workers alive, for the signal handler: as many slots as a run has
 * workers at once (children_reserve, before the first starts), published
 * and cleared with atomic operations (a slot is 0 when free). The handler
 * runs on this one thread, so it never sees the slots half made or freed.
 */
static _Atomic pid_t *_Atomic children;
static _Atomic size_t nchildren;

static void children_reserve(size_t n)
{
	_Atomic pid_t *slots = calloc(n ? n : 1, sizeof(*slots));

	if (!slots)
		die("out of memory");
	atomic_store(&children, slots);
	atomic_store(&nchildren, n ? n : 1);
}

static void children_release(void)
{
	_Atomic pid_t *slots = atomic_load(&children);

	atomic_store(&nchildren, 0);
	atomic_store(&children, NULL);
	free((void *)slots);
}

static void children_add(pid_t pid)
{
	_Atomic pid_t *slots = atomic_load(&children);
	size_t n = atomic_load(&nchildren);

	for (size_t i = 0; i < n; i++) {
		pid_t none = 0;

		if (atomic_compare_exchange_strong(&slots[i], &none, pid))
			return;
	}
}

void cli_child_reaped(const struct cli_child *child)
{
	_Atomic pid_t *slots = atomic_load(&children);
	size_t n = atomic_load(&nchildren);
	pid_t pid = child->pid;

	for (size_t i = 0; i < n; i++) {
		pid_t p = pid;

		if (atomic_compare_exchange_strong(&slots[i], &p, 0))
			return;
	}
}

void cli_children_signal(int sig)
{
	_Atomic pid_t *slots = atomic_load(&children);
	size_t n = atomic_load(&nchildren);

	for (size_t i = 0; i < n; i++) {
		pid_t pid = atomic_load(&slots[i]);

		if (pid > 0)
			kill(pid, sig);
	}
}

void cli_children_wait(void)
{
	_Atomic pid_t *slots = atomic_load(&children);
	size_t n = atomic_load(&nchildren);

	for (size_t i = 0; i < n; i++) {
		pid_t pid = atomic_exchange(&slots[i], 0);

		while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
}

int cli_child_start(struct cli_child *child, int (*work)(void *ctx, int fd), void *ctx)
{
	pid_t parent = getpid();
	sigset_t all, saved;
	int pipefd[2], err;

	if (pipe(pipefd) < 0)
		return imgp_fail(errno, "pipe: %s", strerror(errno));
	/* Nothing buffered is printed twice, by the parent and by the child. */
	fflush(stdout);
	fflush(stderr);
	clock_gettime(CLOCK_MONOTONIC, &child->start);
	/* A signal reaches the child as a worker, and the parent knows it first. */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &saved);
	child->pid = fork();
	err = errno;
	if (child->pid == 0) {
		/* The run's workers are not this worker's to signal. */
		atomic_store(&nchildren, 0);
		cli_signals_child();
		/* It dies with the run: by SIGTERM, so that it removes its files. */
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != parent)
			_exit(EXIT_ERROR);
		sigprocmask(SIG_SETMASK, &saved, NULL);
		close(pipefd[0]);
		_exit(work(ctx, pipefd[1]));
	}
	if (child->pid > 0)
		children_add(child->pid);
	sigprocmask(SIG_SETMASK, &saved, NULL);
	if (child->pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return imgp_fail(err, "fork: %s", strerror(err));
	}
	close(pipefd[1]);
	child->fd = pipefd[0];
	return 0;
}

int cli_child_wait(struct cli_child *child, int *wstatus)
{
	int rc = 0;

	while (waitpid(child->pid, wstatus, 0) < 0) {
		if (errno != EINTR) {
			rc = -errno;
			*wstatus = 0;
			break;
		}
	}
	cli_child_reaped(child);
	return rc;
}

double cli_child_seconds(const struct cli_child *child)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - child->start.tv_sec) +
	       (double)(now.tv_nsec - child->start.tv_nsec) / 1e9;
}

void cli_targets_run(const struct cli_targets_ops *ops, void *ctx, size_t n, size_t max)
{
	struct pollfd *pfd = calloc(n, sizeof(*pfd));
	size_t next = 0, running = 0, finished = 0;

	if (!pfd)
		die("out of memory");
	children_reserve(max < n ? max : n);
	while (finished < n) {
		/* Interrupted: nothing more starts; the running ones end. */
		for (; cli_signal && next < n; next++) {
			struct cli_target *t = ops->target(ctx, next);

			t->interrupted = t->finished = true;
			ops->print(ctx, next, ++finished, n);
		}
		for (; next < n && running < max; next++) {
			struct cli_target *t = ops->target(ctx, next);

			t->started = true;
			t->child.fd = -1;
			if (!ops->start(ctx, next)) {
				running++;
				continue;
			}
			ops->start_failed(ctx, next, imgp_errmsg());
			t->finished = true;
			ops->print(ctx, next, ++finished, n);
		}
		for (size_t i = 0; i < n; i++) {
			const struct cli_target *t = ops->target(ctx, i);

			pfd[i].fd = t->started && !t->finished ? t->child.fd : -1;
			pfd[i].events = POLLIN;
			pfd[i].revents = 0;
		}
		if (running && poll(pfd, n, 200) < 0 && errno != EINTR)
			die("poll: %s", strerror(errno));
		for (size_t i = 0; i < n; i++) {
			struct cli_target *t = ops->target(ctx, i);
			int wstatus;

			if (pfd[i].fd < 0 || !(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)) ||
			    ops->read(ctx, i))
				continue;
			close(t->child.fd);
			t->child.fd = -1;
			cli_child_wait(&t->child, &wstatus);
			t->interrupted = !t->result && cli_signal;
			ops->reaped(ctx, i, wstatus);
			t->finished = true;
			running--;
			ops->print(ctx, i, ++finished, n);
		}
		if (ops->progress)
			ops->progress(ctx, n);
	}
	children_release();
	free(pfd);
}

const char *cli_targets_status(size_t failed, const char **why)
{
	*why = cli_signal_text();
	return cli_signal ? "interrupted" : failed ? "failed" : "done";
}

int cli_report_open(const char *path, struct imgp_json *j, FILE **f)
{
	*f = fopen(path, "w");
	if (!*f)
		return imgp_fail(errno, "cannot write: %s", strerror(errno));
	imgp_json_init_(j, *f);
	return 0;
}

int cli_report_begin(const char *path, struct imgp_json *j, FILE **f,
		     const char *status, const char *why)
{
	int rc = cli_report_open(path, j, f);

	if (rc)
		return rc;
	imgp_json_object_begin_(j);
	imgp_json_kv_uint_(j, "schema_version", 1);
	imgp_json_kv_string_(j, "status", status);
	imgp_json_kv_string_(j, "error", why);
	return 0;
}

int cli_report_close(struct imgp_json *j, FILE *f)
{
	int rc = imgp_json_finish_(j);

	if (fclose(f) && !rc)
		rc = -errno;
	return rc ? imgp_fail(-rc, "cannot write: %s", strerror(-rc)) : 0;
}
