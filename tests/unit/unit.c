// SPDX-License-Identifier: MIT
/*
 * Helpers the unit tests share: the check counters, a temporary directory
 * for fixtures, whole-file reads and writes, and running tools.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "core/endian.h"
#include "unit.h"

/* Paths built from $TMPDIR go into fixed buffers and debugfs requests. */
#define TMPDIR_MAX 40
#define PATH_SLOTS 32

extern char **environ;

int unit_failed, unit_count;

static char tmpdir[128];

int unit_copy_range(const char *src, long long soff, const char *dst,
		    long long doff, size_t len)
{
	static char buf[64 * 1024];
	int in = open(src, O_RDONLY), out = open(dst, O_WRONLY | O_CREAT, 0644);
	int rc = -1;

	if (in < 0 || out < 0)
		goto out;
	while (len) {
		size_t want = len < sizeof(buf) ? len : sizeof(buf);
		ssize_t n = pread(in, buf, want, (off_t)soff);

		if (n <= 0 || pwrite(out, buf, (size_t)n, (off_t)doff) != n)
			goto out;
		soff += n;
		doff += n;
		len -= (size_t)n;
	}
	rc = 0;
out:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return rc;
}

int unit_done(void)
{
	printf("1..%d\n# %d checks, %d failed\n", unit_count, unit_count, unit_failed);
	return unit_failed ? 1 : 0;
}

int unit_tmpdir_create(const char *tag)
{
	const char *base = getenv("TMPDIR");
	int n;

	if (!base || !*base || strlen(base) >= TMPDIR_MAX)
		base = "/tmp";
	n = snprintf(tmpdir, sizeof(tmpdir), "%s/imgp-test-%s.XXXXXX", base, tag);
	if (n < 0 || (size_t)n >= sizeof(tmpdir)) {
		tmpdir[0] = '\0';
		errno = ENAMETOOLONG;
		return -1;
	}
	if (!mkdtemp(tmpdir)) {
		tmpdir[0] = '\0';
		return -1;
	}
	return 0;
}

static int remove_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void unit_tmpdir_remove(void)
{
	if (!tmpdir[0])
		return;
	nftw(tmpdir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	tmpdir[0] = '\0';
}

char *unit_path_keep(char *buf, size_t size, const char *name)
{
	int n = snprintf(buf, size, "%s/%s", tmpdir, name);

	/* A cut-off path would name another file: stop the test instead. */
	if (n < 0 || (size_t)n >= size) {
		fprintf(stderr, "unit: path '%s/%s' is too long\n", tmpdir, name);
		abort();
	}
	return buf;
}

const char *unit_path(const char *name)
{
	static char paths[PATH_SLOTS][PATH_MAX];
	static unsigned int next;

	return unit_path_keep(paths[next++ % PATH_SLOTS], PATH_MAX, name);
}

int unit_write_file(const char *path, const void *data, size_t len)
{
	const uint8_t *p = data;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int rc = 0;

	if (fd < 0)
		return -1;
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = -1;
			break;
		}
		p += n;
		len -= (size_t)n;
	}
	if (close(fd) && !rc)
		rc = -1;
	return rc;
}

int unit_write_at(const char *path, uint64_t off, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int rc;

	if (fd < 0)
		return -1;
	rc = pwrite(fd, data, len, (off_t)off) == (ssize_t)len ? 0 : -1;
	if (close(fd))
		rc = -1;
	return rc;
}

int unit_read_at(const char *path, uint64_t off, void *data, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int rc;

	if (fd < 0)
		return -1;
	rc = pread(fd, data, len, (off_t)off) == (ssize_t)len ? 0 : -1;
	close(fd);
	return rc;
}

int unit_sparse_file(const char *path, uint64_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int rc;

	if (fd < 0)
		return -1;
	rc = ftruncate(fd, (off_t)size);
	if (close(fd))
		rc = -1;
	return rc;
}

int unit_write_mbr(const char *path, uint64_t lba, uint32_t disk_id,
		   const struct unit_mbr_slot slots[4])
{
	uint8_t s[512] = { 0 };

	put_le32(s + 440, disk_id);
	for (int i = 0; i < 4; i++) {
		uint8_t *e = s + 446 + 16 * i;

		e[0] = slots[i].boot;
		e[4] = slots[i].type;
		put_le32(e + 8, slots[i].start);
		put_le32(e + 12, slots[i].sectors);
	}
	s[510] = 0x55;
	s[511] = 0xaa;
	return unit_write_at(path, lba * 512, s, sizeof(s));
}

char unit_warnings[4096];

static void log_warning(enum imgp_log_level level, const char *msg, void *data)
{
	size_t n = strlen(unit_warnings);

	(void)data;
	if (level == IMGP_LOG_WARNING && n + 1 < sizeof(unit_warnings))
		snprintf(unit_warnings + n, sizeof(unit_warnings) - n, "%s\n", msg);
}

struct imgp_ctx *unit_log_ctx(void)
{
	static struct imgp_ctx *ctx;

	if (!ctx && imgp_ctx_new(&ctx) == 0)
		imgp_ctx_set_log(ctx, log_warning, NULL);
	return ctx;
}

int unit_label_probe(const struct imgp_label_ops *ops, const char *path)
{
	struct imgp_image img;
	int rc = imgp_image_open_(&img, path, false);

	if (rc)
		return rc;
	rc = ops->probe(&img);
	imgp_image_close_(&img);
	return rc;
}

int unit_label_read(const struct imgp_label_ops *ops, const char *path,
		    struct imgp_table *tab)
{
	struct imgp_image img;
	int rc;

	imgp_errclear_();
	unit_warnings[0] = '\0';
	memset(tab, 0, sizeof(*tab));
	rc = imgp_image_open_(&img, path, false);
	if (rc)
		return rc;
	img.ctx = unit_log_ctx();
	rc = ops->read(&img, tab);
	imgp_image_close_(&img);
	return rc;
}

void unit_label_refused(const struct imgp_label_ops *ops, const char *path, int err,
			const char *msg, const char *name)
{
	size_t len_before = 0, len_after = 0;
	char *before = unit_read_file(path, &len_before), *after;
	struct imgp_table tab;
	int rc = unit_label_read(ops, path, &tab);
	char what[256];

	snprintf(what, sizeof(what), "%s: refused", name);
	CHECK(rc == -err, what);
	snprintf(what, sizeof(what), "%s: the message", name);
	CHECK_STR(imgp_errmsg(), msg, what);
	after = unit_read_file(path, &len_after);
	snprintf(what, sizeof(what), "%s: the image unchanged", name);
	CHECK(before && after && len_before == len_after &&
	      !memcmp(before, after, len_before), what);
	imgp_table_free_(&tab);
	free(before);
	free(after);
}

int unit_sfdisk_dump_has(const char *path, const char *const want[])
{
	char sfdisk[PATH_MAX];
	const char *argv[] = { sfdisk, "--dump", path, NULL };
	const char *out = unit_path("sfdisk.dump");
	char *text = NULL;
	int rc = 1;

	if (!unit_find_tool("sfdisk", sfdisk, sizeof(sfdisk)))
		return -1;
	if (unit_spawn(argv, NULL, out) == 0)
		text = unit_read_file(out, NULL);
	for (size_t i = 0; rc && want[i]; i++) {
		const char *at = text ? strstr(text, want[i]) : NULL;

		rc = at && at[strlen(want[i])] == '\n';
	}
	if (!rc)
		printf("# sfdisk --dump %s:\n%s", path, text ? text : "(failed)\n");
	free(text);
	return rc;
}

int unit_write_text(const char *path, const char *text)
{
	return unit_write_file(path, text, strlen(text));
}

void *unit_read_file(const char *path, size_t *len)
{
	struct imgp_buf b = { 0 };
	uint8_t chunk[4096];
	FILE *f = fopen(path, "rb");
	size_t n;
	bool ok;

	if (len)
		*len = 0;
	if (!f)
		return NULL;
	/* An empty file gives an empty string, not NULL. */
	ok = imgp_buf_append(&b, "", 0) == 0;
	while (ok && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		ok = imgp_buf_append(&b, chunk, n) == 0;
	ok = ok && !ferror(f);
	fclose(f);
	if (!ok) {
		imgp_buf_free(&b);
		return NULL;
	}
	return imgp_buf_steal_(&b, len);
}

int unit_run(const char *const argv[], const char *const env[],
	     struct imgp_buf *out)
{
	int rc = imgp_run_(argv, env, out);

	if (rc)
		printf("# %s: %s\n", argv[0], imgp_errmsg());
	return rc;
}

bool unit_find_tool(const char *name, char *file, size_t size)
{
	const char *path = getenv("PATH");
	char dirs[4096];
	char *save = NULL;

	snprintf(dirs, sizeof(dirs), "%s:/usr/sbin:/sbin", path ? path : "/usr/bin:/bin");
	for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(file, size, "%s/%s", d, name);
		if (access(file, X_OK) == 0)
			return true;
	}
	return false;
}

int unit_spawn(const char *const argv[], const char *in, const char *out)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status, rc;

	if (posix_spawn_file_actions_init(&fa))
		return -1;
	rc = posix_spawn_file_actions_addopen(&fa, 0, in ? in : "/dev/null",
					      O_RDONLY, 0);
	if (!rc)
		rc = posix_spawn_file_actions_addopen(&fa, 1,
						      out ? out : "/dev/null",
						      O_WRONLY | O_CREAT | O_TRUNC,
						      0644);
	if (!rc)
		rc = posix_spawn_file_actions_adddup2(&fa, 1, 2);
	/* posix_spawnp takes char *const[] but leaves the strings alone. */
	if (!rc)
		rc = posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv,
				  environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc)
		return -1;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
