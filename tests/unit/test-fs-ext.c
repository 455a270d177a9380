// SPDX-License-Identifier: MIT
/*
 * ext4 backend against real filesystems made at test time with mke2fs, then
 * checked with independent tools: debugfs (content, inode identity, owner,
 * xattrs) and e2fsck -fn (consistency) on the partition copied back out.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <spawn.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "imgpatch.h"
#include "unit.h"

#define MiB (1024u * 1024u)
#define PART_START (1 * MiB)
#define FS_SIZE (32 * MiB)
#define DISK_SIZE (PART_START + FS_SIZE + 1 * MiB)
#define EPOCH "1700000000"
#define EPOCH_HEX "0x6553f100"

#define FSTAB "# /etc/fstab: static file system information.\n" \
	      "LABEL=writable\t/\text4\tdiscard,errors=remount-ro\t0 1\n"

extern char **environ;

static char dir[64];

/* Scratch paths for short-lived use; long-lived ones are copied by the caller. */
static const char *tmp(const char *name)
{
	static char paths[16][128];
	static int next;
	char *p = paths[next++ % 16];

	snprintf(p, sizeof(paths[0]), "%s/%s", dir, name);
	return p;
}

static char *tmp_keep(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", dir, name);
	return buf;
}

/*
 * Runs a program with stdin from in (or /dev/null) and stdout plus stderr
 * into out (or /dev/null). Returns its exit status, or -1.
 */
static int run(const char *const argv[], const char *in, const char *out)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status, rc;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, in ? in : "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, out ? out : "/dev/null",
					 O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc)
		return -1;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static char *slurp(const char *path, size_t *len)
{
	struct stat st;
	char *buf = NULL;
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && (buf = malloc((size_t)st.st_size + 1))) {
		n = read(fd, buf, (size_t)st.st_size);
		if (n != st.st_size) {
			free(buf);
			buf = NULL;
		} else {
			buf[n] = '\0';
			if (len)
				*len = (size_t)n;
		}
	}
	close(fd);
	return buf;
}

static int spit(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	size_t len = strlen(text);
	int rc;

	if (fd < 0)
		return -1;
	rc = write(fd, text, len) == (ssize_t)len ? 0 : -1;
	close(fd);
	return rc;
}

/* Copies len bytes between files at the given offsets (dd conv=notrunc). */
static int copy_range(const char *src, off_t soff, const char *dst, off_t doff,
		      size_t len)
{
	static char buf[64 * 1024];
	int in = open(src, O_RDONLY), out = open(dst, O_WRONLY | O_CREAT, 0644);
	int rc = -1;

	if (in < 0 || out < 0)
		goto out;
	while (len) {
		size_t want = len < sizeof(buf) ? len : sizeof(buf);
		ssize_t n = pread(in, buf, want, soff);

		if (n <= 0 || pwrite(out, buf, (size_t)n, doff) != n)
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

static bool same_file(const char *a, const char *b)
{
	size_t la = 0, lb = 0;
	char *da = slurp(a, &la), *db = slurp(b, &lb);
	bool same = da && db && la == lb && !memcmp(da, db, la);

	free(da);
	free(db);
	return same;
}

/* Output of a debugfs request on a filesystem file; caller frees. */
static char *debugfs(const char *fsfile, const char *request)
{
	const char *argv[] = { "debugfs", "-R", request, fsfile, NULL };
	const char *out = tmp("debugfs.out");

	if (run(argv, NULL, out) != 0)
		return NULL;
	return slurp(out, NULL);
}

/* Copies the partition out of the disk image and runs e2fsck -fn on it. */
static bool fsck_clean(const char *disk, const char *fsfile)
{
	const char *argv[] = { "e2fsck", "-fn", fsfile, NULL };
	const char *out = tmp("fsck.out");
	char *text;
	int rc;

	if (copy_range(disk, PART_START, fsfile, 0, FS_SIZE))
		return false;
	rc = run(argv, NULL, out);
	if (rc != 0 && (text = slurp(out, NULL))) {
		char *line, *save = NULL;

		printf("# e2fsck -fn exited %d:\n", rc);
		for (line = strtok_r(text, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save))
			printf("#   %s\n", line);
		free(text);
	}
	return rc == 0;
}

struct stat_info {
	unsigned ino, mode, uid, gid, flags;
	unsigned long long size, blockcount;
	char type[32];
	char mtime[16];
};

static bool fs_stat(const char *fsfile, const char *path, struct stat_info *si)
{
	char req[256], *text, *p;
	bool ok = false;

	memset(si, 0, sizeof(*si));
	snprintf(req, sizeof(req), "stat %s", path);
	text = debugfs(fsfile, req);
	if (!text)
		return false;
	p = strstr(text, "Inode:");
	if (p && sscanf(p, "Inode: %u Type: %31s Mode: %o Flags: %x", &si->ino,
			si->type, &si->mode, &si->flags) == 4)
		ok = true;
	p = strstr(text, "User:");
	if (!p || sscanf(p, "User: %u Group: %u", &si->uid, &si->gid) != 2)
		ok = false;
	p = strstr(text, "Size:");
	if (!p || sscanf(p, "Size: %llu", &si->size) != 1)
		ok = false;
	p = strstr(text, "Blockcount:");
	if (!p || sscanf(p, "Blockcount: %llu", &si->blockcount) != 1)
		ok = false;
	p = strstr(text, " mtime:");
	if (!p || sscanf(p, " mtime: %10s", si->mtime) != 1)
		ok = false;
	free(text);
	return ok;
}

static bool fs_cat_equals(const char *fsfile, const char *path,
			  const char *want, size_t want_len)
{
	const char *argv[] = { "debugfs", "-R", NULL, fsfile, NULL };
	const char *out = tmp("cat.out"), *err = tmp("cat.err");
	char req[256], *text;
	size_t len = 0;
	bool same;

	snprintf(req, sizeof(req), "dump %s %s", path, out);
	argv[2] = req;
	unlink(out);
	if (run(argv, NULL, err) != 0)
		return false;
	text = slurp(out, &len);
	same = text && len == want_len && !memcmp(text, want, len);
	free(text);
	return same;
}

struct session {
	struct imgp_image img;
	struct imgp_part part;
	struct imgp_fs fs;
};

static int fs_open(struct session *s, const char *disk, uint64_t part_size,
		   bool writable)
{
	int rc;

	memset(s, 0, sizeof(*s));
	imgp_errclear();
	rc = imgp_image_open(&s->img, disk, writable);
	if (rc)
		return rc;
	s->part.number = 1;
	s->part.start = PART_START;
	s->part.size = part_size;
	snprintf(s->part.fstype, sizeof(s->part.fstype), "ext4");
	s->fs.ops = &imgp_fs_ext;
	s->fs.img = &s->img;
	s->fs.part = &s->part;
	s->fs.writable = writable;
	rc = s->fs.ops->open(&s->fs);
	if (rc)
		imgp_image_close(&s->img);
	return rc;
}

static void fs_close(struct session *s)
{
	s->fs.ops->close(&s->fs);
	imgp_image_close(&s->img);
}

static bool make_fs(const char *fsfile, const char *type, const char *root)
{
	char droot[160];
	const char *ext4[] = { "mke2fs", "-q", "-F", "-t", "ext4", "-b", "4096",
			       "-I", "256", "-O",
			       "has_journal,extent,huge_file,flex_bg,metadata_csum,64bit,dir_nlink,extra_isize",
			       "-U", "4e1bc25a-9d3c-4a5e-8d47-6f2a9c3e1b10",
			       "-E", "root_owner=0:0", "-d", droot, fsfile, "32M",
			       NULL };
	const char *ext2[] = { "mke2fs", "-q", "-F", "-t", "ext2", "-b", "1024",
			       "-I", "128", "-E", "root_owner=0:0", "-d", droot,
			       fsfile, "32M", NULL };

	snprintf(droot, sizeof(droot), "%s", root);
	unlink(fsfile);
	return run(strcmp(type, "ext2") ? ext4 : ext2, NULL, NULL) == 0;
}

/* A GPT disk with one Linux partition at 1 MiB holding fsfile. */
static bool make_disk(const char *disk, const char *fsfile)
{
	const char *script = tmp("sfdisk.in");
	const char *argv[] = { "sfdisk", "-q", "--no-reread", "--no-tell-kernel",
			       disk, NULL };
	int fd;

	unlink(disk);
	fd = open(disk, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, DISK_SIZE) < 0) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	close(fd);
	if (spit(script, "label: gpt\nstart=2048, size=65536, type=L, name=rootfs\n") ||
	    run(argv, script, NULL) != 0)
		return false;
	return copy_range(fsfile, 0, disk, PART_START, FS_SIZE) == 0;
}

static bool make_root(void)
{
	char path[160];
	int i;

	snprintf(path, sizeof(path), "%s/root", dir);
	if (mkdir(path, 0755))
		return false;
	snprintf(path, sizeof(path), "%s/root/etc", dir);
	if (mkdir(path, 0755))
		return false;
	snprintf(path, sizeof(path), "%s/root/srv", dir);
	if (mkdir(path, 0755))
		return false;
	if (spit(tmp("root/etc/fstab"), FSTAB))
		return false;
	/* Like a real /etc: enough entries for e2fsck -D to index it. */
	for (i = 0; i < 300; i++) {
		snprintf(path, sizeof(path), "%s/root/etc/package-%03d.conf", dir, i);
		if (spit(path, "# empty\n"))
			return false;
	}
	if (symlink("fstab", tmp("root/etc/link")) ||
	    symlink("/etc/fstab", tmp("root/etc/abs")) ||
	    symlink("missing.conf", tmp("root/etc/dangling")) ||
	    symlink("loop2", tmp("root/etc/loop1")) ||
	    symlink("loop1", tmp("root/etc/loop2")))
		return false;
	return true;
}

static void test_read(const char *disk, const char *copy)
{
	struct imgp_buf buf = { 0 };
	struct session s;
	int rc;

	rc = fs_open(&s, disk, FS_SIZE, false);
	CHECK(rc == 0, "read: open read-only");
	if (rc) {
		printf("# %s\n", imgp_errmsg());
		return;
	}
	rc = s.fs.ops->read_file(&s.fs, "/etc/fstab", 4096, &buf);
	CHECK(rc == 0 && buf.len == strlen(FSTAB) && !memcmp(buf.data, FSTAB, buf.len),
	      "read: /etc/fstab equals the source");
	buf.len = 0;
	rc = s.fs.ops->read_file(&s.fs, "/etc/link", 4096, &buf);
	CHECK(rc == 0 && buf.len == strlen(FSTAB) && !memcmp(buf.data, FSTAB, buf.len),
	      "read: relative symlink resolved inside the image");
	buf.len = 0;
	rc = s.fs.ops->read_file(&s.fs, "/etc/abs", 4096, &buf);
	CHECK(rc == 0 && buf.len == strlen(FSTAB) && !memcmp(buf.data, FSTAB, buf.len),
	      "read: absolute symlink resolved inside the image, not on the host");
	buf.len = 0;
	rc = s.fs.ops->read_file(&s.fs, "/etc", 4096, &buf);
	CHECK(rc == -EISDIR, "read: directory is -EISDIR");
	rc = s.fs.ops->read_file(&s.fs, "/etc/missing", 4096, &buf);
	CHECK(rc == -ENOENT, "read: missing file is -ENOENT");
	CHECK_STR(imgp_errmsg(), "not found", "read: missing message");
	rc = s.fs.ops->read_file(&s.fs, "/etc/dangling", 4096, &buf);
	CHECK(rc == -ENOENT, "read: dangling symlink is -ENOENT");
	rc = s.fs.ops->read_file(&s.fs, "/nodir/fstab", 4096, &buf);
	CHECK(rc == -ENOENT, "read: missing directory is -ENOENT");
	rc = s.fs.ops->read_file(&s.fs, "/etc/fstab/x", 4096, &buf);
	CHECK(rc == -ENOTDIR, "read: file used as a directory is -ENOTDIR");
	rc = s.fs.ops->read_file(&s.fs, "/etc/loop1", 4096, &buf);
	CHECK(rc == -ELOOP, "read: symlink loop is -ELOOP");
	CHECK_STR(imgp_errmsg(), "Too many symbolic links encountered",
		  "read: libext2fs text kept in the message");
	rc = s.fs.ops->read_file(&s.fs, "/etc/fstab", 10, &buf);
	CHECK(rc == -EFBIG, "read: larger than max is -EFBIG");
	CHECK(buf.len == 0, "read: failed reads add nothing");

	CHECK(s.fs.ops->exists(&s.fs, "/etc/fstab") == 1, "exists: file");
	CHECK(s.fs.ops->exists(&s.fs, "/srv") == 1, "exists: directory");
	CHECK(s.fs.ops->exists(&s.fs, "/etc/dangling") == 1,
	      "exists: dangling symlink exists itself");
	CHECK(s.fs.ops->exists(&s.fs, "/etc/nope") == 0, "exists: missing");
	CHECK(s.fs.ops->exists(&s.fs, "/etc/fstab/x") == 0,
	      "exists: below a regular file");

	rc = s.fs.ops->write_file(&s.fs, "/etc/fstab", "x", 1);
	CHECK(rc == -EROFS, "read: write on a read-only open is -EROFS");
	fs_close(&s);
	imgp_buf_free(&buf);
	CHECK(same_file(disk, copy), "read: image byte-identical after a read-only session");
}

static void test_rewrite(const char *disk, const char *fsfile)
{
	struct stat_info before, after, link;
	struct imgp_buf big = { 0 }, buf = { 0 };
	const char *small = "LABEL=writable\t/\text4\tnoatime\t0 1\n";
	struct session s;
	char *ea;
	int rc, i;

	CHECK(fs_stat(fsfile, "/etc/fstab", &before), "rewrite: debugfs stat before");
	for (i = 0; i < 400; i++)
		imgp_buf_printf(&big, "# padding line %03d to span several blocks\n", i);
	imgp_buf_append(&big, FSTAB, strlen(FSTAB));

	rc = fs_open(&s, disk, FS_SIZE, true);
	CHECK(rc == 0, "rewrite: open read-write");
	if (rc) {
		printf("# %s\n", imgp_errmsg());
		imgp_buf_free(&big);
		return;
	}
	rc = s.fs.ops->write_file(&s.fs, "/etc/fstab", big.data, big.len);
	CHECK(rc == 0, "rewrite: longer content written");
	rc = s.fs.ops->read_file(&s.fs, "/etc/fstab", 1 * MiB, &buf);
	CHECK(rc == 0 && buf.len == big.len && !memcmp(buf.data, big.data, big.len),
	      "rewrite: read back in the same session");
	fs_close(&s);

	CHECK(fsck_clean(disk, fsfile), "rewrite: e2fsck -fn clean after the longer write");
	CHECK(fs_cat_equals(fsfile, "/etc/fstab", (const char *)big.data, big.len),
	      "rewrite: debugfs sees the longer content");
	CHECK(fs_stat(fsfile, "/etc/fstab", &after) && after.ino == before.ino,
	      "rewrite: same inode number");
	CHECK(after.mode == 0640 && after.uid == 1000 && after.gid == 1001,
	      "rewrite: mode and owner kept");
	CHECK(after.size == big.len && after.blockcount == 8 * 5,
	      "rewrite: size and five 4 KiB blocks");
	CHECK_STR(after.mtime, EPOCH_HEX,
		  "rewrite: mtime is SOURCE_DATE_EPOCH");
	ea = debugfs(fsfile, "ea_get /etc/fstab user.note");
	CHECK(ea && strstr(ea, "= \"kept\""), "rewrite: xattr kept");
	free(ea);

	/* Through the symlink: the target is rewritten, the link stays. */
	rc = fs_open(&s, disk, FS_SIZE, true);
	CHECK(rc == 0, "rewrite: reopen read-write");
	if (!rc) {
		rc = s.fs.ops->write_file(&s.fs, "/etc/link", small, strlen(small));
		CHECK(rc == 0, "rewrite: shorter content written through a symlink");
		fs_close(&s);
	}
	CHECK(fsck_clean(disk, fsfile), "rewrite: e2fsck -fn clean after the shorter write");
	CHECK(fs_cat_equals(fsfile, "/etc/fstab", small, strlen(small)),
	      "rewrite: debugfs sees the shorter content");
	CHECK(fs_stat(fsfile, "/etc/fstab", &after) && after.ino == before.ino &&
	      after.mode == 0640 && after.uid == 1000 && after.gid == 1001,
	      "rewrite: identity kept after shrinking");
	CHECK(after.size == strlen(small) && after.blockcount == 8,
	      "rewrite: tail blocks freed");
	CHECK(fs_stat(fsfile, "/etc/link", &link) && !strcmp(link.type, "symlink"),
	      "rewrite: the symlink is still a symlink");
	ea = debugfs(fsfile, "ea_get /etc/fstab user.note");
	CHECK(ea && strstr(ea, "= \"kept\""), "rewrite: xattr kept after shrinking");
	free(ea);

	/* Empty content is a valid file too. */
	rc = fs_open(&s, disk, FS_SIZE, true);
	if (!rc) {
		rc = s.fs.ops->write_file(&s.fs, "/etc/fstab", "", 0);
		CHECK(rc == 0, "rewrite: empty content written");
		rc = s.fs.ops->write_file(&s.fs, "/etc/fstab", FSTAB, strlen(FSTAB));
		CHECK(rc == 0, "rewrite: original content written back");
		fs_close(&s);
	}
	CHECK(fsck_clean(disk, fsfile), "rewrite: e2fsck -fn clean after empty and back");
	CHECK(fs_cat_equals(fsfile, "/etc/fstab", FSTAB, strlen(FSTAB)),
	      "rewrite: original content back");
	imgp_buf_free(&big);
	imgp_buf_free(&buf);
}

static void test_create(const char *disk, const char *fsfile)
{
	const char *conf = "key=value\n";
	struct stat_info si;
	struct session s;
	char path[128], content[128];
	bool all = true;
	int rc, i;

	rc = fs_open(&s, disk, FS_SIZE, true);
	CHECK(rc == 0, "create: open read-write");
	if (rc)
		return;
	rc = s.fs.ops->write_file(&s.fs, "/etc/new.conf", conf, strlen(conf));
	CHECK(rc == 0, "create: /etc/new.conf");
	CHECK(s.fs.ops->exists(&s.fs, "/etc/new.conf") == 1, "create: exists now");
	/* Enough entries to fill the first directory block of /srv. */
	for (i = 0; i < 150 && all; i++) {
		snprintf(path, sizeof(path),
			 "/srv/a-file-with-a-rather-long-name-number-%03d.conf", i);
		snprintf(content, sizeof(content), "file %d\n", i);
		all = s.fs.ops->write_file(&s.fs, path, content, strlen(content)) == 0;
	}
	CHECK(all, "create: 150 files in one directory (it has to grow)");
	fs_close(&s);

	CHECK(fsck_clean(disk, fsfile), "create: e2fsck -fn clean");
	CHECK(fs_cat_equals(fsfile, "/etc/new.conf", conf, strlen(conf)),
	      "create: debugfs sees the new file");
	CHECK(fs_stat(fsfile, "/etc", &si) && (si.flags & 0x1000),
	      "create: /etc is an indexed (htree) directory");
	CHECK(fs_stat(fsfile, "/etc/new.conf", &si) && !strcmp(si.type, "regular") &&
	      si.mode == 0644 && si.uid == 0 && si.gid == 0,
	      "create: regular file, mode 0644, owned by root");
	CHECK(!strcmp(si.mtime, EPOCH_HEX), "create: mtime is SOURCE_DATE_EPOCH");
	CHECK(fs_cat_equals(fsfile, "/srv/a-file-with-a-rather-long-name-number-149.conf",
			    "file 149\n", 9),
	      "create: last file of the grown directory");
	CHECK(fs_stat(fsfile, "/srv", &si) && si.size > 4096,
	      "create: directory grew past one block");
}

static void test_refused(const char *disk, const char *copy)
{
	struct session s;
	char *big;
	int rc;

	if (copy_range(disk, 0, copy, 0, DISK_SIZE))
		return;
	rc = fs_open(&s, disk, FS_SIZE, true);
	CHECK(rc == 0, "refused: open read-write");
	if (rc)
		return;
	rc = s.fs.ops->write_file(&s.fs, "/etc", "x", 1);
	CHECK(rc == -EISDIR, "refused: writing a directory is -EISDIR");
	rc = s.fs.ops->write_file(&s.fs, "/nodir/x.conf", "x", 1);
	CHECK(rc == -ENOENT, "refused: missing parent directory is -ENOENT");
	CHECK_STR(imgp_errmsg(), "cannot create: directory '/nodir' not found",
		  "refused: missing parent message");
	rc = s.fs.ops->write_file(&s.fs, "/etc/fstab/x", "x", 1);
	CHECK(rc == -ENOTDIR, "refused: parent is a file");
	rc = s.fs.ops->write_file(&s.fs, "/etc/dangling", "x", 1);
	CHECK(rc == -ENOENT, "refused: dangling symlink is not replaced");
	rc = s.fs.ops->write_file(&s.fs, "/etc/loop1", "x", 1);
	CHECK(rc == -ELOOP, "refused: symlink loop");
	rc = s.fs.ops->write_file(&s.fs, "/etc/package-000.conf", "x", 1);
	CHECK(rc == -EPERM, "refused: immutable file");
	rc = s.fs.ops->write_file(&s.fs, "/etc/", "x", 1);
	CHECK(rc == -EISDIR || rc == -EINVAL, "refused: path ending in a slash");
	big = calloc(1, FS_SIZE + MiB);
	if (big) {
		rc = s.fs.ops->write_file(&s.fs, "/etc/fstab", big, FS_SIZE + MiB);
		CHECK(rc == -ENOSPC, "refused: rewrite larger than the free space");
		rc = s.fs.ops->write_file(&s.fs, "/etc/huge", big, FS_SIZE + MiB);
		CHECK(rc == -ENOSPC, "refused: new file larger than the free space");
		free(big);
	}
	fs_close(&s);
	CHECK(same_file(disk, copy), "refused: image byte-identical after refused writes");
}

static void test_dirty(const char *fsfile)
{
	char dbuf[128], ddbuf[128];
	const char *dirty = tmp_keep(dbuf, sizeof(dbuf), "dirty.ext4");
	const char *ddisk = tmp_keep(ddbuf, sizeof(ddbuf), "dirty.img");
	const char *ssv[] = { "debugfs", "-w", "-R", "ssv state 2", dirty, NULL };
	const char *rec[] = { "debugfs", "-w", "-R", "feature needs_recovery",
			      dirty, NULL };
	struct session s;
	int rc;

	/* Errors recorded in the superblock. */
	CHECK(copy_range(fsfile, 0, dirty, 0, FS_SIZE) == 0 && run(ssv, NULL, NULL) == 0 &&
	      make_disk(ddisk, dirty), "dirty: fixture with errors");
	rc = fs_open(&s, ddisk, FS_SIZE, true);
	CHECK(rc == -EUCLEAN, "dirty: filesystem with errors refused for writing");
	CHECK_STR(imgp_errmsg(), "ext4 filesystem has errors: run e2fsck -f first",
		  "dirty: errors message");
	if (!rc)
		fs_close(&s);
	rc = fs_open(&s, ddisk, FS_SIZE, false);
	CHECK(rc == -EUCLEAN, "dirty: filesystem with errors refused for reading");
	if (!rc)
		fs_close(&s);

	/* A journal that still has to be replayed. */
	CHECK(copy_range(fsfile, 0, dirty, 0, FS_SIZE) == 0 && run(rec, NULL, NULL) == 0 &&
	      make_disk(ddisk, dirty), "dirty: fixture needing recovery");
	rc = fs_open(&s, ddisk, FS_SIZE, true);
	CHECK(rc == -EUCLEAN, "dirty: journal needing recovery refused");
	CHECK_STR(imgp_errmsg(),
		  "ext4 filesystem needs journal recovery (it was not cleanly unmounted): run e2fsck -fy on it first",
		  "dirty: recovery message");
	if (!rc)
		fs_close(&s);
}

static void test_bounds(const char *disk)
{
	struct session s;
	int rc;

	rc = fs_open(&s, disk, FS_SIZE / 2, false);
	CHECK(rc == -EINVAL, "bounds: filesystem larger than its partition refused");
	CHECK(strstr(imgp_errmsg(), "larger than its partition") != NULL,
	      "bounds: message says why");
	if (!rc)
		fs_close(&s);
	rc = fs_open(&s, disk, DISK_SIZE, false);
	CHECK(rc == -ERANGE, "bounds: partition past the end of the image refused");
	if (!rc)
		fs_close(&s);
	memset(&s, 0, sizeof(s));
	CHECK(imgp_image_open(&s.img, disk, false) == 0, "bounds: image opens");
	s.part.start = 0;
	s.part.size = PART_START;
	s.fs.ops = &imgp_fs_ext;
	s.fs.img = &s.img;
	s.fs.part = &s.part;
	rc = s.fs.ops->open(&s.fs);
	CHECK(rc == -EINVAL, "bounds: no ext superblock is -EINVAL");
	CHECK_STR(imgp_errmsg(), "cannot open filesystem: Bad magic number in super-block",
		  "bounds: libext2fs reason kept");
	if (!rc)
		s.fs.ops->close(&s.fs);
	imgp_image_close(&s.img);
}

/* ext2: block maps instead of extents, 128-byte inodes without extra times. */
static void test_ext2(void)
{
	char fbuf[128], dbuf[128];
	const char *fsfile = tmp_keep(fbuf, sizeof(fbuf), "ext2.fs");
	const char *disk = tmp_keep(dbuf, sizeof(dbuf), "ext2.img");
	const char *text = "tmpfs /tmp tmpfs defaults 0 0\n";
	struct imgp_buf big = { 0 };
	struct session s;
	int rc, i;

	if (!make_fs(fsfile, "ext2", tmp("root")) || !make_disk(disk, fsfile)) {
		CHECK(0, "ext2: fixture");
		return;
	}
	for (i = 0; i < 2000; i++)
		imgp_buf_printf(&big, "line %04d of a file beyond the direct blocks\n", i);
	rc = fs_open(&s, disk, FS_SIZE, true);
	CHECK(rc == 0, "ext2: open read-write");
	if (rc) {
		imgp_buf_free(&big);
		return;
	}
	rc = s.fs.ops->write_file(&s.fs, "/etc/fstab", big.data, big.len);
	CHECK(rc == 0, "ext2: rewrite with indirect blocks");
	rc = s.fs.ops->write_file(&s.fs, "/etc/tmp.conf", text, strlen(text));
	CHECK(rc == 0, "ext2: create");
	fs_close(&s);
	CHECK(fsck_clean(disk, fsfile), "ext2: e2fsck -fn clean");
	CHECK(fs_cat_equals(fsfile, "/etc/fstab", (const char *)big.data, big.len),
	      "ext2: debugfs sees the rewritten file");
	CHECK(fs_cat_equals(fsfile, "/etc/tmp.conf", text, strlen(text)),
	      "ext2: debugfs sees the new file");
	rc = fs_open(&s, disk, FS_SIZE, true);
	if (!rc) {
		rc = s.fs.ops->write_file(&s.fs, "/etc/fstab", text, strlen(text));
		CHECK(rc == 0, "ext2: shrink");
		fs_close(&s);
	}
	CHECK(fsck_clean(disk, fsfile), "ext2: e2fsck -fn clean after shrinking");
	imgp_buf_free(&big);
}

static bool setup(const char *fsfile, const char *disk)
{
	const char *cmds = tmp("debugfs.cmds");
	const char *argv[] = { "debugfs", "-w", "-f", cmds, fsfile, NULL };
	const char *index[] = { "e2fsck", "-fyD", fsfile, NULL };
	int rc;

	if (!make_root() || !make_fs(fsfile, "ext4", tmp("root")))
		return false;
	/* 1: "errors corrected", here the directories it indexed. */
	rc = run(index, NULL, NULL);
	if (rc != 0 && rc != 1)
		return false;
	/* An owner, a mode and an xattr that a rewrite must keep; an immutable file. */
	if (spit(cmds, "ea_set /etc/fstab user.note kept\n"
		       "sif /etc/fstab uid 1000\n"
		       "sif /etc/fstab gid 1001\n"
		       "sif /etc/fstab mode 0100640\n"
		       "sif /etc/package-000.conf flags 0x80010\n") ||
	    run(argv, NULL, NULL) != 0)
		return false;
	return make_disk(disk, fsfile);
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static bool have_tools(void)
{
	const char *const tools[][3] = {
		{ "mke2fs", "-V", NULL }, { "debugfs", "-V", NULL },
		{ "e2fsck", "-V", NULL }, { "sfdisk", "--version", NULL },
	};
	size_t i;

	for (i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		if (run(tools[i], NULL, NULL) != 0)
			return false;
	return true;
}

int main(void)
{
	const char *path = getenv("PATH"), *tmpdir = getenv("TMPDIR");
	char newpath[4096], fbuf[128], dbuf[128], cbuf[128];
	const char *fsfile, *disk, *copy;

	/* e2fsprogs live in sbin, which is not always on PATH. */
	snprintf(newpath, sizeof(newpath), "%s:/usr/sbin:/sbin", path ? path : "/usr/bin:/bin");
	setenv("PATH", newpath, 1);
	setenv("LC_ALL", "C", 1);
	setenv("TZ", "UTC", 1);
	setenv("SOURCE_DATE_EPOCH", EPOCH, 1);
	if (!have_tools()) {
		printf("ok 1 - ext backend # SKIP e2fsprogs or sfdisk not installed\n");
		return 0;
	}
	snprintf(dir, sizeof(dir), "%s/imgp-ext-XXXXXX",
		 tmpdir && strlen(tmpdir) < 40 ? tmpdir : "/tmp");
	if (!mkdtemp(dir)) {
		CHECK(0, "temporary directory");
		return unit_done();
	}
	fsfile = tmp_keep(fbuf, sizeof(fbuf), "root.ext4");
	disk = tmp_keep(dbuf, sizeof(dbuf), "disk.img");
	copy = tmp_keep(cbuf, sizeof(cbuf), "copy.img");

	CHECK(imgp_fs_ext.handles("ext4") && imgp_fs_ext.handles("ext3") &&
	      imgp_fs_ext.handles("ext2") && !imgp_fs_ext.handles("vfat") &&
	      !imgp_fs_ext.handles("ext"), "handles ext2, ext3, ext4 only");
	if (!setup(fsfile, disk)) {
		CHECK(0, "fixture: mke2fs, debugfs and sfdisk");
	} else {
		CHECK(copy_range(disk, 0, copy, 0, DISK_SIZE) == 0, "fixture: copy");
		test_read(disk, copy);
		test_rewrite(disk, fsfile);
		test_create(disk, fsfile);
		test_refused(disk, copy);
		test_dirty(fsfile);
		test_bounds(disk);
		test_ext2();
	}
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return unit_done();
}
