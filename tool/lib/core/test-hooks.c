// SPDX-License-Identifier: MIT
/*
 * Hooks through which the test builds (-DIMGP_TEST_HOOKS, the sanitizer
 * build the suites run) interrupt a run at a known step; empty in every
 * other build. Here in core/ because copying, the filesystems, unpacking,
 * flashing and the journal all call them.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/core.h"

#ifdef IMGP_TEST_HOOKS
/*
 * Test builds only: IMGPATCH_TEST_CRASH_AFTER_WRITES=N kills the process
 * right after the Nth write of a commit, to prove that no interruption
 * leaves an image that undo cannot restore.
 */
void imgp_fault_point_(void)
{
	static long writes;
	const char *n = getenv("IMGPATCH_TEST_CRASH_AFTER_WRITES");

	if (n && ++writes == strtol(n, NULL, 10))
		raise(SIGKILL);
}

void imgp_test_pause_(const char *point)
{
	const char *spec = getenv("IMGPATCH_TEST_PAUSE");
	size_t len = strlen(point);
	const char *file;
	int fd;

	if (!spec || strncmp(spec, point, len) || spec[len] != ':')
		return;
	file = spec + len + 1;
	fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	for (int i = 0; i < 6000 && access(file, F_OK) == 0; i++)
		usleep(10000);
}
#else
void imgp_fault_point_(void)
{
}

void imgp_test_pause_(const char *point)
{
	(void)point;
}
#endif
