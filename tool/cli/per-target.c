// SPDX-License-Identifier: MIT
/*
 * What apply (over several images) and write (over several cards) do for
 * each target alike: take --set NAME=VALUE, bind a recipe with a target's
 * own parameters (--set, then its row of --each), and run the target's
 * work in a child process of its own, so that one that fails or crashes
 * neither stops nor touches the others; then write the report of them all.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "json.h"

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

int cli_child_start(struct cli_child *child, int (*work)(void *ctx, int fd), void *ctx)
{
	int pipefd[2];

	if (pipe(pipefd) < 0)
		return imgp_fail(errno, "pipe: %s", strerror(errno));
	/* Nothing buffered is printed twice, by the parent and by the child. */
	fflush(stdout);
	fflush(stderr);
	clock_gettime(CLOCK_MONOTONIC, &child->start);
	child->pid = fork();
	if (child->pid < 0) {
		int err = errno;

		close(pipefd[0]);
		close(pipefd[1]);
		return imgp_fail(err, "fork: %s", strerror(err));
	}
	if (child->pid == 0) {
		close(pipefd[0]);
		_exit(work(ctx, pipefd[1]));
	}
	close(pipefd[1]);
	child->fd = pipefd[0];
	return 0;
}

double cli_child_seconds(const struct cli_child *child)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - child->start.tv_sec) +
	       (double)(now.tv_nsec - child->start.tv_nsec) / 1e9;
}

int cli_report_open(const char *path, struct json *j, FILE **f)
{
	*f = fopen(path, "w");
	if (!*f)
		return imgp_fail(errno, "cannot write: %s", strerror(errno));
	json_init(j, *f);
	return 0;
}

int cli_report_close(struct json *j, FILE *f)
{
	int rc = json_finish(j);

	if (fclose(f) && !rc)
		rc = -errno;
	return rc ? imgp_fail(-rc, "cannot write: %s", strerror(-rc)) : 0;
}
