// SPDX-License-Identifier: MIT
/*
 * External programs (mtools): fork/exec with an argv, never a shell, in a
 * clean environment, stdout captured. A program never outlives its parent:
 * it is killed when the process that started it dies (PR_SET_PDEATHSIG).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "imgpatch.h"
#include "core/core.h"

#define TOOL_PATH_MAX 4096
#define ENV_MAX 16
#define STDERR_KEEP 4096

static bool is_executable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       access(path, X_OK) == 0;
}

const char *imgp_tool_path_(const char *name, char *tool_path, size_t size)
{
	char var[64] = "IMGPATCH_";
	const char *override, *path, *p;
	size_t n = strlen(var);

	for (p = name; *p && n + 1 < sizeof(var); p++)
		var[n++] = *p == '-' ? '_' : (char)toupper((unsigned char)*p);
	var[n] = '\0';
	override = getenv(var);
	if (override && *override) {
		if (!is_executable(override)) {
			imgp_fail(ENOENT, "%s=%s is not an executable file", var,
				  override);
			return NULL;
		}
		snprintf(tool_path, size, "%s", override);
		return tool_path;
	}
	path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; *p;) {
		const char *end = strchr(p, ':');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len && len + strlen(name) + 2 < size) {
			memcpy(tool_path, p, len);
			tool_path[len] = '/';
			strcpy(tool_path + len + 1, name);
			if (is_executable(tool_path))
				return tool_path;
		}
		p += len;
		if (*p == ':')
			p++;
	}
	imgp_fail(ENOENT, "program '%s' not found in PATH (install mtools, or set %s)",
		  name, var);
	return NULL;
}

/* Reads both pipes until EOF so neither child pipe can fill up and block. */
static int run_collect(int out_fd, int err_fd, struct imgp_buf *out,
		       char *errtext, size_t errcap)
{
	struct pollfd fds[2] = { { out_fd, POLLIN, 0 }, { err_fd, POLLIN, 0 } };
	size_t errlen = 0;
	uint8_t chunk[65536];
	int open_fds = 2, rc = 0;

	while (open_fds) {
		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (int i = 0; i < 2; i++) {
			ssize_t n;

			if (fds[i].fd < 0 || !fds[i].revents)
				continue;
			n = read(fds[i].fd, chunk, sizeof(chunk));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				fds[i].fd = -1;
				open_fds--;
				continue;
			}
			if (i == 0 && out && !rc) {
				rc = imgp_buf_append(out, chunk, (size_t)n);
			} else if (i == 1 && errlen + 1 < errcap) {
				size_t keep = (size_t)n;

				if (keep > errcap - errlen - 1)
					keep = errcap - errlen - 1;
				memcpy(errtext + errlen, chunk, keep);
				errlen += keep;
			}
		}
	}
	errtext[errlen] = '\0';
	return rc;
}

/* The first non-empty line of a program's stderr, for the failure message. */
static const char *first_line(char *text)
{
	char *p = text, *nl;

	while (*p == '\n' || *p == ' ')
		p++;
	nl = strchr(p, '\n');
	if (nl)
		*nl = '\0';
	return p;
}

/* The descriptors a program keeps open, which it names /proc/self/fd/N. */
struct run_keep {
	const int *fds;
	size_t n;
};

/*
 * Between fork and exec: only async-signal-safe calls. The program dies
 * with parent (its death signal, then a check that parent did not die
 * before the signal was set), gets the default action for the signals the
 * parent catches (not for those it ignores), /dev/null, out, err, and the
 * descriptors of keep (close-on-exec everywhere else, so that no other
 * program a thread starts meanwhile inherits them).
 */
static void run_child(pid_t parent, const sigset_t *mask, int out, int err,
		      const struct run_keep *keep, const char *prog,
		      const char *const argv[], const char *const env[])
{
	static const int caught[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };
	int in;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(127);
	for (size_t i = 0; i < sizeof(caught) / sizeof(caught[0]); i++) {
		struct sigaction sa;

		if (sigaction(caught[i], NULL, &sa) == 0 && sa.sa_handler != SIG_IGN) {
			sa.sa_handler = SIG_DFL;
			sa.sa_flags = 0;
			sigaction(caught[i], &sa, NULL);
		}
	}
	sigprocmask(SIG_SETMASK, mask, NULL);
	in = open("/dev/null", O_RDONLY);
	if (in < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
		_exit(127);
	for (size_t i = 0; i < keep->n; i++)
		if (fcntl(keep->fds[i], F_SETFD, 0) < 0)
			_exit(127);
	execve(prog, (char *const *)argv, (char *const *)env);
	_exit(127);
}

int imgp_run_fds_(const char *const argv[], const char *const extra_env[],
		 struct imgp_buf *out, const int *keep_fds, size_t nkeep)
{
	const struct run_keep keep = { keep_fds, nkeep };
	const char *env[ENV_MAX + 4];
	char errtext[STDERR_KEEP], path[TOOL_PATH_MAX];
	int outp[2] = { -1, -1 }, errp[2] = { -1, -1 };
	sigset_t all, saved;
	const char *prog;
	size_t n = 0;
	pid_t pid, parent = getpid();
	int rc, status;

	/* 0 to 2 become the program's standard streams. */
	for (size_t i = 0; i < nkeep; i++)
		if (keep_fds[i] < 3)
			return imgp_fail(EINVAL, "%s: descriptor %d cannot be handed over",
					 argv[0], keep_fds[i]);
	prog = imgp_tool_path_(argv[0], path, sizeof(path));
	if (!prog)
		return -ENOENT;
	env[n++] = "PATH=/usr/local/bin:/usr/bin:/bin";
	env[n++] = "LC_ALL=C";
	env[n++] = "TZ=UTC";
	for (size_t i = 0; extra_env && extra_env[i] && i < ENV_MAX; i++)
		env[n++] = extra_env[i];
	env[n] = NULL;

	if (pipe2(outp, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0) {
		rc = imgp_fail(errno, "pipe: %s", strerror(errno));
		goto out_close;
	}
	/* No handler of ours may run in the child before exec. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	pid = fork();
	if (pid == 0)
		run_child(parent, &saved, outp[1], errp[1], &keep, prog, argv, env);
	rc = pid < 0 ? errno : 0;
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	if (rc) {
		rc = imgp_fail(rc, "cannot run %s: %s", prog, strerror(rc));
		goto out_close;
	}
	close(outp[1]);
	close(errp[1]);
	outp[1] = errp[1] = -1;

	rc = run_collect(outp[0], errp[0], out, errtext, sizeof(errtext));
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			rc = imgp_fail(errno, "waitpid: %s", strerror(errno));
			goto out_close;
		}
	}
	if (rc) {
		rc = imgp_fail(-rc, "%s: cannot collect output: %s", argv[0],
			       strerror(-rc));
	} else if (WIFSIGNALED(status)) {
		rc = imgp_fail(EIO, "%s was killed by signal %d", argv[0],
			       WTERMSIG(status));
	} else if (WEXITSTATUS(status) != 0) {
		const char *line = first_line(errtext);

		rc = imgp_fail(EIO, "%s failed (exit status %d)%s%s", argv[0],
			       WEXITSTATUS(status), *line ? ": " : "", line);
	}
out_close:
	for (int i = 0; i < 2; i++) {
		if (outp[i] >= 0)
			close(outp[i]);
		if (errp[i] >= 0)
			close(errp[i]);
	}
	return rc;
}

int imgp_run_(const char *const argv[], const char *const extra_env[],
	     struct imgp_buf *out)
{
	return imgp_run_fds_(argv, extra_env, out, NULL, 0);
}
