// SPDX-License-Identifier: MIT
/*
 * ext4 backend against real filesystems made at test time with mke2fs, then
 * checked with independent tools: debugfs (content, inode identity, owner,
 * xattrs) and e2fsck -fn (consistency) on the partition copied back out.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "fs/fs.h"
#include "unit.h"

#define MiB (1024u * 1024u)
#define PART_START (1 * MiB)
#define FS_SIZE (32 * MiB)
#define DISK_SIZE (PART_START + FS_SIZE + 1 * MiB)
#define EPOCH "1700000000"
#define EPOCH_HEX "0x6553f100"

#define FSTAB "# /etc/fstab: static file system information.\n" \
	      "LABEL=writable\t/\text4\tdiscard,errors=remount-ro\t0 1\n"

static bool same_file(const char *a, const char *b)
{
	size_t la = 0, lb = 0;
	char *da = unit_read_file(a, &la), *db = unit_read_file(b, &lb);
	bool same = da && db && la == lb && !memcmp(da, db, la);

	free(da);
	free(db);
	return same;
}

/* Output of a debugfs request on a filesystem file; caller frees. */
static char *debugfs(const char *fsfile, const char *request)
{
	const char *argv[] = { "debugfs", "-R", request, fsfile, NULL };
	const char *out = unit_path("debugfs.out");

	if (unit_spawn(argv, NULL, out) != 0)
		return NULL;
	return unit_read_file(out, NULL);
}

/* Copies the partition out of the disk image and runs e2fsck -fn on it. */
static bool fsck_clean(const char *disk, const char *fsfile)
{
	const char *argv[] = { "e2fsck", "-fn", fsfile, NULL };
	const char *out = unit_path("fsck.out");
	char *text;
	int rc;

	if (unit_copy_range(disk, PART_START, fsfile, 0, FS_SIZE))
		return false;
	rc = unit_spawn(argv, NULL, out);
	if (rc != 0 && (text = unit_read_file(out, NULL))) {
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
	const char *out = unit_path("cat.out"), *err = unit_path("cat.err");
	char req[256], *text;
	size_t len = 0;
	bool same;

	snprintf(req, sizeof(req), "dump %s %s", path, out);
	argv[2] = req;
	unlink(out);
	if (unit_spawn(argv, NULL, err) != 0)
		return false;
	text = unit_read_file(out, &len);
	same = text && len == want_len && !memcmp(text, want, len);
	free(text);
	return same;
}

struct session {
	struct imgp_image img;
	struct imgp_part part;
	struct imgp_fs fs;
	struct imgp_writeset *ws; /* writable: what the writes captured */
};

/*
 * writable: opened as a patch commit opens it, capturing the writes into a
 * write set that fs_close() then writes into the image.
 */
static int fs_open(struct session *s, const char *disk, uint64_t part_size,
		   bool writable)
{
	int rc;

	memset(s, 0, sizeof(*s));
	imgp_errclear_();
	rc = imgp_image_open_(&s->img, disk, writable);
	if (rc)
		return rc;
	s->part.number = 1;
	s->part.start = PART_START;
	s->part.size = part_size;
	snprintf(s->part.fstype, sizeof(s->part.fstype), "ext4");
	s->fs.ops = &imgp_fs_ext_;
	s->fs.img = &s->img;
	s->fs.part = &s->part;
	if (writable) {
		rc = imgp_writeset_new_(&s->ws, &s->img);
		s->fs.capture = s->ws;
	}
	if (!rc)
		rc = s->fs.ops->open(&s->fs);
	if (rc) {
		imgp_writeset_free_(s->ws);
		imgp_image_close_(&s->img);
	}
	return rc;
}

/* Writes what the session captured into the image; 0 or -errno. */
static int fs_commit(struct session *s)
{
	struct imgp_range *ranges = NULL;
	size_t n = 0;
	int rc;

	rc = imgp_writeset_ranges_(s->ws, &ranges, &n);
	for (size_t i = 0; !rc && i < n; i++)
		rc = imgp_image_write_(&s->img, ranges[i].off, ranges[i].data,
				      ranges[i].len);
	imgp_ranges_free_(ranges, n);
	return rc;
}

static void fs_close(struct session *s)
{
	s->fs.ops->close(&s->fs);
	if (s->ws) {
		CHECK(fs_commit(s) == 0, "session: captured writes reach the image");
		imgp_writeset_free_(s->ws);
	}
	imgp_image_close_(&s->img);
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
	return unit_spawn(strcmp(type, "ext2") ? ext4 : ext2, NULL, NULL) == 0;
}

/* A GPT disk with one Linux partition at 1 MiB holding fsfile. */
static bool make_disk(const char *disk, const char *fsfile)
{
	const char *script = unit_path("sfdisk.in");
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
	if (unit_write_text(script,
			    "label: gpt\nstart=2048, size=65536, type=L, name=rootfs\n") ||
	    unit_spawn(argv, script, NULL) != 0)
		return false;
	return unit_copy_range(fsfile, 0, disk, PART_START, FS_SIZE) == 0;
}

static bool make_root(void)
{
	char name[64], path[PATH_MAX];
	int i;

	if (mkdir(unit_path("root"), 0755) || mkdir(unit_path("root/etc"), 0755) ||
	    mkdir(unit_path("root/srv"), 0755))
		return false;
	if (unit_write_text(unit_path("root/etc/fstab"), FSTAB))
		return false;
	/* Like a real /etc: enough entries for e2fsck -D to index it. */
	for (i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "root/etc/package-%03d.conf", i);
		if (unit_write_text(unit_path_keep(path, sizeof(path), name),
				    "# empty\n"))
			return false;
	}
	if (symlink("fstab", unit_path("root/etc/link")) ||
	    symlink("/etc/fstab", unit_path("root/etc/abs")) ||
	    symlink("missing.conf", unit_path("root/etc/dangling")) ||
	    symlink("loop2", unit_path("root/etc/loop1")) ||
	    symlink("loop1", unit_path("root/etc/loop2")))
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

/* Entries removed from an indexed (htree) folder and a grown one leave both as e2fsck wants them. */
static void test_remove_indexed(const char *disk, const char *fsfile)
{
	struct stat_info si;
	struct session s;
	bool all = true;
	char path[128];
	int rc;

	rc = fs_open(&s, disk, FS_SIZE, true);
	CHECK(rc == 0, "remove: open read-write");
	if (rc)
		return;
	CHECK(imgp_fs_remove_(&s.fs, "/etc/new.conf") == 0 &&
	      imgp_fs_remove_(&s.fs, "/etc/package-150.conf/") == 0,
	      "remove: two files of the indexed /etc (one named with a trailing slash)");
	for (int i = 0; i < 150 && all; i += 7) {
		snprintf(path, sizeof(path),
			 "/srv/a-file-with-a-rather-long-name-number-%03d.conf", i);
		all = imgp_fs_remove_(&s.fs, path) == 0;
	}
	CHECK(all, "remove: every seventh file of the grown /srv");
	fs_close(&s);
	CHECK(fsck_clean(disk, fsfile), "remove: e2fsck -fn clean");
	CHECK(!fs_stat(fsfile, "/etc/new.conf", &si) && !fs_stat(fsfile, "/etc/package-150.conf", &si) &&
	      fs_stat(fsfile, "/etc/package-151.conf", &si) &&
	      !fs_stat(fsfile, "/srv/a-file-with-a-rather-long-name-number-007.conf", &si) &&
	      fs_stat(fsfile, "/srv/a-file-with-a-rather-long-name-number-008.conf", &si),
	      "remove: debugfs finds the removed gone, their neighbours there");
}

static void test_refused(const char *disk, const char *copy)
{
	struct session s;
	char *big;
	int rc;

	if (unit_copy_range(disk, 0, copy, 0, DISK_SIZE))
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
	const char *dirty = unit_path_keep(dbuf, sizeof(dbuf), "dirty.ext4");
	const char *ddisk = unit_path_keep(ddbuf, sizeof(ddbuf), "dirty.img");
	const char *ssv[] = { "debugfs", "-w", "-R", "ssv state 2", dirty, NULL };
	const char *rec[] = { "debugfs", "-w", "-R", "feature needs_recovery",
			      dirty, NULL };
	struct session s;
	int rc;

	/* Errors recorded in the superblock. */
	CHECK(unit_copy_range(fsfile, 0, dirty, 0, FS_SIZE) == 0 &&
	      unit_spawn(ssv, NULL, NULL) == 0 && make_disk(ddisk, dirty), "dirty: fixture with errors");
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
	CHECK(unit_copy_range(fsfile, 0, dirty, 0, FS_SIZE) == 0 &&
	      unit_spawn(rec, NULL, NULL) == 0 && make_disk(ddisk, dirty), "dirty: fixture needing recovery");
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
	CHECK(imgp_image_open_(&s.img, disk, false) == 0, "bounds: image opens");
	s.part.start = 0;
	s.part.size = PART_START;
	s.fs.ops = &imgp_fs_ext_;
	s.fs.img = &s.img;
	s.fs.part = &s.part;
	rc = s.fs.ops->open(&s.fs);
	CHECK(rc == -EINVAL, "bounds: no ext superblock is -EINVAL");
	CHECK_STR(imgp_errmsg(), "cannot open filesystem: Bad magic number in super-block",
		  "bounds: libext2fs reason kept");
	if (!rc)
		s.fs.ops->close(&s.fs);
	imgp_image_close_(&s.img);
}

/* ext2: block maps instead of extents, 128-byte inodes without extra times. */
/* Free blocks and inodes as debugfs stats reads them from the superblock. */
static bool free_counts(const char *fsfile, unsigned long long *blocks,
			unsigned long long *inodes)
{
	char *text = debugfs(fsfile, "stats"), *b, *i;
	bool ok;

	b = text ? strstr(text, "Free blocks:") : NULL;
	i = text ? strstr(text, "Free inodes:") : NULL;
	ok = b && i && sscanf(b, "Free blocks: %llu", blocks) == 1 &&
	     sscanf(i, "Free inodes: %llu", inodes) == 1;
	free(text);
	return ok;
}

/*
 * ext2 (1 KiB blocks, indirect blocks, no extents): a folder tree made and
 * removed gives back every block and inode; an owner past 16 bits; stat.
 */
static void test_ext2_remove(void)
{
	char fbuf[128], dbuf[128];
	const char *fsfile = unit_path_keep(fbuf, sizeof(fbuf), "ext2rm.fs");
	const char *disk = unit_path_keep(dbuf, sizeof(dbuf), "ext2rm.img");
	unsigned long long b0, i0, b1, i1;
	struct imgp_buf big = { 0 };
	struct imgp_fs_stat_ st;
	struct stat_info si;
	struct session s;
	char *text;
	int rc;

	if (!make_fs(fsfile, "ext2", unit_path("root")) || !make_disk(disk, fsfile) ||
	    !free_counts(fsfile, &b0, &i0)) {
		CHECK(0, "ext2 remove: fixture");
		return;
	}
	for (int i = 0; i < 2000; i++)
		imgp_buf_printf(&big, "line %04d of a file beyond the direct blocks\n", i);
	rc = fs_open(&s, disk, FS_SIZE, true);
	CHECK(rc == 0 && imgp_fs_mkdir_(&s.fs, "/srv/d") == 0 &&
	      imgp_fs_mkdir_(&s.fs, "/srv/d/sub") == 0 &&
	      imgp_fs_write_file_(&s.fs, "/srv/d/big", big.data, big.len) == 0 &&
	      imgp_fs_write_file_(&s.fs, "/srv/d/sub/small", "s\n", 2) == 0 &&
	      imgp_fs_symlink_(&s.fs, "/srv/d/l", "big") == 0 &&
	      imgp_fs_set_owner_(&s.fs, "/srv/d/sub", 70000, 70001) == 0 &&
	      imgp_fs_set_mode_(&s.fs, "/srv/d/sub", 0700) == 0,
	      "ext2 remove: a tree made, a folder's owner and mode set");
	CHECK(imgp_fs_stat_(&s.fs, "/srv/d/sub", &st) == 0 && st.type == IMGP_FS_DIR &&
	      st.mode == 0700 && st.uid == 70000 && st.gid == 70001 &&
	      imgp_fs_stat_(&s.fs, "/srv/d/l", &st) == 0 && st.type == IMGP_FS_LNK &&
	      st.size == 3 && imgp_fs_stat_(&s.fs, "/srv/d/big", &st) == 0 &&
	      st.type == IMGP_FS_REG && st.size == big.len,
	      "ext2 remove: stat says what each is, the link not followed");
	CHECK(imgp_fs_set_mode_(&s.fs, "/srv/d/l", 0600) == -EINVAL,
	      "ext2 remove: a link's mode is refused");
	imgp_errclear_();
	if (!rc)
		fs_close(&s);
	CHECK(fsck_clean(disk, fsfile), "ext2 remove: e2fsck -fn clean after the tree is made");
	/* Small inodes: debugfs prints no " mtime:" for fs_stat() to read. */
	text = debugfs(fsfile, "stat /srv/d/sub");
	memset(&si, 0, sizeof(si));
	CHECK(text && strstr(text, "Mode:") && strstr(text, "User:") &&
	      sscanf(strstr(text, "Mode:"), "Mode: %o", &si.mode) == 1 &&
	      sscanf(strstr(text, "User:"), "User: %u Group: %u", &si.uid, &si.gid) == 2 &&
	      si.uid == 70000 && si.gid == 70001 && si.mode == 0700,
	      "ext2 remove: debugfs sees owner 70000:70001 and mode 0700");
	free(text);
	CHECK(free_counts(fsfile, &b1, &i1) && b1 < b0 && i1 == i0 - 5,
	      "ext2 remove: the tree took blocks and five inodes");
	rc = fs_open(&s, disk, FS_SIZE, true);
	CHECK(rc == 0 && imgp_fs_remove_(&s.fs, "/srv/d") == 0, "ext2 remove: rm -rf /srv/d");
	CHECK(rc == 0 && imgp_fs_remove_(&s.fs, "/srv/d") == -ENOENT &&
	      !strcmp(imgp_errmsg(), "p1 (ext4): /srv/d: no such file or folder"),
	      "ext2 remove: again: no such file or folder");
	CHECK(rc == 0 && imgp_fs_remove_(&s.fs, "//") == -EPERM,
	      "ext2 remove: the root is refused");
	imgp_errclear_();
	if (!rc)
		fs_close(&s);
	CHECK(fsck_clean(disk, fsfile) && free_counts(fsfile, &b1, &i1) && b1 == b0 &&
	      i1 == i0, "ext2 remove: e2fsck -fn clean, the free counts as before");
	imgp_buf_free(&big);
}

static void test_ext2(void)
{
	char fbuf[128], dbuf[128];
	const char *fsfile = unit_path_keep(fbuf, sizeof(fbuf), "ext2.fs");
	const char *disk = unit_path_keep(dbuf, sizeof(dbuf), "ext2.img");
	const char *text = "tmpfs /tmp tmpfs defaults 0 0\n";
	struct imgp_buf big = { 0 };
	struct session s;
	int rc, i;

	if (!make_fs(fsfile, "ext2", unit_path("root")) || !make_disk(disk, fsfile)) {
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
	const char *cmds = unit_path("debugfs.cmds");
	const char *argv[] = { "debugfs", "-w", "-f", cmds, fsfile, NULL };
	const char *index[] = { "e2fsck", "-fyD", fsfile, NULL };
	int rc;

	if (!make_root() || !make_fs(fsfile, "ext4", unit_path("root")))
		return false;
	/* 1: "errors corrected", here the directories it indexed. */
	rc = unit_spawn(index, NULL, NULL);
	if (rc != 0 && rc != 1)
		return false;
	/* An owner, a mode and an xattr that a rewrite must keep; an immutable file. */
	if (unit_write_text(cmds, "ea_set /etc/fstab user.note kept\n"
				  "sif /etc/fstab uid 1000\n"
				  "sif /etc/fstab gid 1001\n"
				  "sif /etc/fstab mode 0100640\n"
				  "sif /etc/package-000.conf flags 0x80010\n") ||
	    unit_spawn(argv, NULL, NULL) != 0)
		return false;
	return make_disk(disk, fsfile);
}

/* The first tool of the fixtures that does not run, or NULL. */
static const char *missing_tool(void)
{
	static const char *const tools[][3] = {
		{ "mke2fs", "-V", NULL }, { "debugfs", "-V", NULL },
		{ "e2fsck", "-V", NULL }, { "sfdisk", "--version", NULL },
	};
	size_t i;

	for (i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		if (unit_spawn(tools[i], NULL, NULL) != 0)
			return tools[i][0];
	return NULL;
}

/* ---------------------------------------------------------- symbolic links */

#define TIMER_LINK "/etc/systemd/system/timers.target.wants/fstrim.timer"
#define TIMER_UNIT "/lib/systemd/system/fstrim.timer"
#define TIMER_TEXT "[Timer]\nOnCalendar=weekly\n"

/* A root with the directories systemd units live in, and things in the way. */
static bool make_link_root(const char *root)
{
	static const char *const dirs[] = {
		"", "/etc", "/etc/systemd", "/etc/systemd/system",
		"/etc/systemd/system/timers.target.wants", "/etc/many", "/lib",
		"/lib/systemd", "/lib/systemd/system", "/usr", "/usr/lib",
	};
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", root, dirs[i]);
		if (mkdir(path, 0755))
			return false;
	}
	snprintf(path, sizeof(path), "%s%s", root, TIMER_UNIT);
	if (unit_write_text(path, TIMER_TEXT))
		return false;
	snprintf(path, sizeof(path), "%s/etc/hostname", root);
	if (unit_write_text(path, "board\n"))
		return false;
	/* A link the library did not make, as an image would have it. */
	snprintf(path, sizeof(path), "%s/etc/localtime", root);
	return symlink("/usr/share/zoneinfo/Etc/UTC", path) == 0;
}

/* debugfs's "stat" text of path, or "" when it has none. */
static char *fs_stat_text(const char *fsfile, const char *path)
{
	char req[256], *text;

	snprintf(req, sizeof(req), "stat %s", path);
	text = debugfs(fsfile, req);
	return text ? text : strdup("");
}

/* readlink through the library into a static buffer; "" with rc on failure. */
static const char *lib_readlink(struct session *s, const char *path, int *rc)
{
	static char target[4096];
	struct imgp_buf out = { 0 };

	target[0] = '\0';
	*rc = s->fs.ops->readlink(&s->fs, path, &out);
	if (!*rc)
		snprintf(target, sizeof(target), "%s", (const char *)out.data);
	imgp_buf_free(&out);
	return target;
}

static void test_symlink_create(const char *disk, const char *fsfile)
{
	struct imgp_buf buf = { 0 };
	struct stat_info si;
	struct session s;
	char *text;
	int rc;

	rc = fs_open(&s, disk, FS_SIZE, true);
	CHECK(rc == 0, "symlink: open read-write");
	if (rc)
		return;
	rc = s.fs.ops->symlink(&s.fs, TIMER_LINK, TIMER_UNIT);
	CHECK(rc == 0, "symlink: fstrim.timer into timers.target.wants");
	CHECK_STR(lib_readlink(&s, TIMER_LINK, &rc), TIMER_UNIT,
		  "symlink: readlink gives the target");
	rc = s.fs.ops->read_file(&s.fs, TIMER_LINK, 4096, &buf);
	CHECK(rc == 0 && !strcmp((const char *)buf.data, TIMER_TEXT),
	      "symlink: read_file follows it to the unit");
	CHECK_STR(lib_readlink(&s, "/etc/localtime", &rc),
		  "/usr/share/zoneinfo/Etc/UTC", "symlink: readlink of a link mke2fs made");
	fs_close(&s);
	imgp_buf_free(&buf);

	CHECK(fsck_clean(disk, fsfile), "symlink: e2fsck -fn clean");
	text = fs_stat_text(fsfile, TIMER_LINK);
	CHECK(strstr(text, "Type: symlink") &&
	      strstr(text, "Fast link dest: \"" TIMER_UNIT "\""),
	      "symlink: debugfs sees a fast symlink to the unit");
	free(text);
	CHECK(fs_stat(fsfile, TIMER_LINK, &si) && si.mode == 0777 && si.uid == 0 &&
	      si.gid == 0 && si.blockcount == 0,
	      "symlink: mode 0777, owned by root, no data block");
	CHECK_STR(si.mtime, EPOCH_HEX, "symlink: mtime is SOURCE_DATE_EPOCH");
	CHECK(fs_stat(fsfile, "/etc/systemd/system/timers.target.wants", &si),
	      "symlink: debugfs stat of the directory");
	CHECK_STR(si.mtime, EPOCH_HEX, "symlink: the directory's mtime changed too");
}

static void test_symlink_replace(const char *disk, const char *fsfile,
				 const char *copy)
{
	const char *usr = "/usr/lib/systemd/system/fstrim.timer";
	char longer[301], *text;
	struct stat_info si, before;
	struct session s;
	int rc, i;

	memset(longer, 0, sizeof(longer));
	for (i = 0; i < 300; i += 10)
		memcpy(longer + i, "/long-path", 10);
	CHECK(fs_stat(fsfile, TIMER_LINK, &before), "replace: debugfs stat before");
	rc = fs_open(&s, disk, FS_SIZE, true);
	CHECK(rc == 0, "replace: open read-write");
	if (rc)
		return;
	rc = s.fs.ops->symlink(&s.fs, TIMER_LINK, usr);
	CHECK(rc == 0, "replace: an existing symlink gets a new target");
	CHECK_STR(lib_readlink(&s, TIMER_LINK, &rc), usr, "replace: readlink gives the new target");
	rc = s.fs.ops->symlink(&s.fs, "/etc/long", longer);
	CHECK(rc == 0, "replace: a 300-byte target");
	CHECK_STR(lib_readlink(&s, "/etc/long", &rc), longer,
		  "replace: readlink of the slow symlink");
	fs_close(&s);

	CHECK(fsck_clean(disk, fsfile), "replace: e2fsck -fn clean");
	text = fs_stat_text(fsfile, TIMER_LINK);
	CHECK(strstr(text, "Fast link dest: \"/usr/lib/systemd/system/fstrim.timer\"") != NULL,
	      "replace: debugfs sees the new target");
	free(text);
	CHECK(fs_stat(fsfile, TIMER_LINK, &si) && !strcmp(si.type, "symlink") &&
	      si.ino != before.ino, "replace: a new symlink inode");
	text = fs_stat_text(fsfile, "/etc/long");
	CHECK(strstr(text, "Type: symlink") && strstr(text, "Size: 300") &&
	      strstr(text, "Blockcount: 8") && !strstr(text, "Fast link dest"),
	      "replace: the long target is a slow symlink with one block");
	free(text);
	CHECK(fs_cat_equals(fsfile, "/etc/long", longer, 300),
	      "replace: debugfs reads the long target from its block");

	/* The same target again is not a change; slow and fast swap places. */
	if (unit_copy_range(disk, 0, copy, 0, DISK_SIZE))
		return;
	rc = fs_open(&s, disk, FS_SIZE, true);
	if (rc)
		return;
	rc = s.fs.ops->symlink(&s.fs, TIMER_LINK, usr);
	CHECK(rc == 0, "replace: the same target again");
	fs_close(&s);
	CHECK(same_file(disk, copy), "replace: the same target leaves the image byte-identical");
	rc = fs_open(&s, disk, FS_SIZE, true);
	if (rc)
		return;
	CHECK(s.fs.ops->symlink(&s.fs, "/etc/long", "short") == 0 &&
	      s.fs.ops->symlink(&s.fs, TIMER_LINK, longer) == 0,
	      "replace: slow by fast and fast by slow");
	CHECK_STR(lib_readlink(&s, "/etc/long", &rc), "short", "replace: readlink of the now fast one");
	CHECK_STR(lib_readlink(&s, TIMER_LINK, &rc), longer, "replace: readlink of the now slow one");
	fs_close(&s);
	CHECK(fsck_clean(disk, fsfile), "replace: e2fsck -fn clean after swapping (block freed)");
}

static void test_symlink_refused(const char *disk, const char *copy)
{
	char huge[4097];
	struct imgp_buf buf = { 0 };
	struct session s;
	int rc;

	if (unit_copy_range(disk, 0, copy, 0, DISK_SIZE))
		return;
	rc = fs_open(&s, disk, FS_SIZE, true);
	CHECK(rc == 0, "link refused: open read-write");
	if (rc)
		return;
	rc = s.fs.ops->symlink(&s.fs, "/etc/hostname", "/etc/other");
	CHECK(rc == -EEXIST, "link refused: a regular file is -EEXIST");
	CHECK_STR(imgp_errmsg(), "exists and is not a symbolic link",
		  "link refused: the message");
	rc = s.fs.ops->symlink(&s.fs, "/etc/systemd", "/x");
	CHECK(rc == -EEXIST, "link refused: a directory is -EEXIST");
	rc = s.fs.ops->symlink(&s.fs, "/nodir/link", "/x");
	CHECK(rc == -ENOENT, "link refused: a missing parent is -ENOENT");
	CHECK_STR(imgp_errmsg(), "cannot create: directory '/nodir' not found",
		  "link refused: missing parent message");
	rc = s.fs.ops->symlink(&s.fs, "/etc/hostname/x", "/x");
	CHECK(rc == -ENOTDIR, "link refused: a file as the parent is -ENOTDIR");
	rc = s.fs.ops->symlink(&s.fs, "/etc/x", "");
	CHECK(rc == -EINVAL, "link refused: an empty target is -EINVAL");
	memset(huge, 'a', sizeof(huge) - 1);
	huge[sizeof(huge) - 1] = '\0';
	rc = s.fs.ops->symlink(&s.fs, "/etc/x", huge);
	CHECK(rc == -ENAMETOOLONG, "link refused: a 4096-byte target is -ENAMETOOLONG");
	rc = s.fs.ops->symlink(&s.fs, "/etc/", "/x");
	CHECK(rc == -EINVAL, "link refused: a path ending in '/'");

	rc = s.fs.ops->readlink(&s.fs, "/etc/hostname", &buf);
	CHECK(rc == -EINVAL, "readlink: a regular file is -EINVAL");
	CHECK_STR(imgp_errmsg(), "not a symbolic link", "readlink: the message");
	rc = s.fs.ops->readlink(&s.fs, "/etc", &buf);
	CHECK(rc == -EINVAL, "readlink: a directory is -EINVAL");
	rc = s.fs.ops->readlink(&s.fs, "/etc/nope", &buf);
	CHECK(rc == -ENOENT, "readlink: a missing path is -ENOENT");
	CHECK(buf.len == 0, "readlink: failures add nothing");
	fs_close(&s);
	CHECK(same_file(disk, copy), "link refused: image byte-identical");

	rc = fs_open(&s, disk, FS_SIZE, false);
	if (!rc) {
		rc = s.fs.ops->symlink(&s.fs, "/etc/x", "/y");
		CHECK(rc == -EROFS, "link refused: read-only open is -EROFS");
		CHECK_STR(lib_readlink(&s, "/etc/long", &rc), "short",
			  "readlink: works on a read-only open");
		fs_close(&s);
	}
}

/* Enough links to fill a directory block: the directory has to grow. */
static void test_symlink_many(const char *disk, const char *fsfile)
{
	char path[128], target[128];
	struct stat_info si;
	struct session s;
	bool all = true;
	int rc, i;

	rc = fs_open(&s, disk, FS_SIZE, true);
	if (rc)
		return;
	for (i = 0; i < 150 && all; i++) {
		snprintf(path, sizeof(path),
			 "/etc/many/a-link-with-a-rather-long-name-number-%03d", i);
		snprintf(target, sizeof(target), "../target-%03d", i);
		all = s.fs.ops->symlink(&s.fs, path, target) == 0;
	}
	CHECK(all, "many links: 150 symlinks in one directory");
	fs_close(&s);
	CHECK(fsck_clean(disk, fsfile), "many links: e2fsck -fn clean");
	CHECK(fs_stat(fsfile, "/etc/many", &si) && si.size > 4096,
	      "many links: the directory grew past one block");
	CHECK(fs_stat(fsfile, "/etc/many/a-link-with-a-rather-long-name-number-149", &si) &&
	      !strcmp(si.type, "symlink"), "many links: the last one is there");
}

/* inline_data: a target too long for i_block goes into the inode's xattr space. */
static void test_symlink_inline(const char *root)
{
	char fbuf[PATH_MAX], dbuf[PATH_MAX], droot[PATH_MAX];
	const char *fsfile = unit_path_keep(fbuf, sizeof(fbuf), "inline.ext4");
	const char *disk = unit_path_keep(dbuf, sizeof(dbuf), "inline.img");
	const char *mkfs[] = { "mke2fs", "-q", "-F", "-t", "ext4", "-b", "4096",
			       "-I", "256", "-O", "inline_data,metadata_csum",
			       "-E", "root_owner=0:0", "-d", droot, fsfile, "32M",
			       NULL };
	char target[81], *text;
	struct session s;
	int rc, i;

	snprintf(droot, sizeof(droot), "%s", root);
	memset(target, 0, sizeof(target));
	for (i = 0; i < 80; i += 8)
		memcpy(target + i, "/inline/", 8);
	if (unit_spawn(mkfs, NULL, NULL) != 0 || !make_disk(disk, fsfile)) {
		CHECK(0, "inline: fixture");
		return;
	}
	rc = fs_open(&s, disk, FS_SIZE, true);
	CHECK(rc == 0, "inline: open read-write");
	if (rc)
		return;
	rc = s.fs.ops->symlink(&s.fs, "/etc/inline", target);
	CHECK(rc == 0, "inline: an 80-byte target");
	CHECK_STR(lib_readlink(&s, "/etc/inline", &rc), target, "inline: readlink");
	fs_close(&s);
	CHECK(fsck_clean(disk, fsfile), "inline: e2fsck -fn clean");
	text = fs_stat_text(fsfile, "/etc/inline");
	/* 0x10000000: EXT4_INLINE_DATA_FL; 60 bytes in i_block, 20 in the xattr. */
	CHECK(strstr(text, "Type: symlink") && strstr(text, "Flags: 0x10000000") &&
	      strstr(text, "system.data (20)") && strstr(text, "Blockcount: 0"),
	      "inline: debugfs sees an inline-data symlink");
	free(text);
	rc = fs_open(&s, disk, FS_SIZE, true);
	if (rc)
		return;
	CHECK(s.fs.ops->symlink(&s.fs, "/etc/inline", "/fast") == 0,
	      "inline: replaced by a fast one");
	CHECK_STR(lib_readlink(&s, "/etc/inline", &rc), "/fast", "inline: readlink after");
	fs_close(&s);
	CHECK(fsck_clean(disk, fsfile), "inline: e2fsck -fn clean after replacing");
}

/* ext2: 1 KiB blocks mapped without extents. */
static void test_symlink_ext2(const char *root)
{
	char fbuf[PATH_MAX], dbuf[PATH_MAX], target[701], whole[1025];
	const char *fsfile = unit_path_keep(fbuf, sizeof(fbuf), "link-ext2.fs");
	const char *disk = unit_path_keep(dbuf, sizeof(dbuf), "link-ext2.img");
	const char *ea[] = { "debugfs", "-w", "-R",
			     "ea_set /etc/fast security.selinux system_u:object_r:etc_t:s0",
			     fsfile, NULL };
	struct session s;
	char *text;
	int rc;

	memset(target, 0, sizeof(target));
	memset(target, 'x', 700);
	memset(whole, 'y', 1024);
	whole[1024] = '\0';
	if (!make_fs(fsfile, "ext2", root) || !make_disk(disk, fsfile)) {
		CHECK(0, "ext2 links: fixture");
		return;
	}
	rc = fs_open(&s, disk, FS_SIZE, true);
	if (rc) {
		CHECK(0, "ext2 links: open");
		return;
	}
	CHECK(s.fs.ops->symlink(&s.fs, TIMER_LINK, target) == 0 &&
	      s.fs.ops->symlink(&s.fs, "/etc/fast", "fstab") == 0,
	      "ext2 links: a slow and a fast symlink");
	CHECK_STR(lib_readlink(&s, TIMER_LINK, &rc), target, "ext2 links: readlink of the slow one");
	rc = s.fs.ops->symlink(&s.fs, "/etc/y", whole);
	CHECK(rc == -ENAMETOOLONG, "ext2 links: a target of a whole 1 KiB block is refused");
	fs_close(&s);
	CHECK(fsck_clean(disk, fsfile), "ext2 links: e2fsck -fn clean");
	/* 128-byte inodes: an xattr (an SELinux label, say) takes a block. */
	text = NULL;
	if (unit_spawn(ea, NULL, NULL) == 0 &&
	    unit_copy_range(fsfile, 0, disk, PART_START, FS_SIZE) == 0)
		text = fs_stat_text(fsfile, "/etc/fast");
	CHECK(text && !strstr(text, "File ACL: 0"),
	      "ext2 links: the fast symlink has an xattr block");
	free(text);
	rc = fs_open(&s, disk, FS_SIZE, true);
	if (!rc) {
		CHECK_STR(lib_readlink(&s, "/etc/fast", &rc), "fstab",
			  "ext2 links: readlink of a fast symlink with an xattr block");
		CHECK(s.fs.ops->symlink(&s.fs, TIMER_LINK, "short") == 0,
		      "ext2 links: slow replaced by fast");
		CHECK(s.fs.ops->symlink(&s.fs, "/etc/fast", "fstab.d") == 0,
		      "ext2 links: the one with the xattr block replaced");
		fs_close(&s);
	}
	CHECK(fsck_clean(disk, fsfile), "ext2 links: e2fsck -fn clean after replacing (xattr block freed)");
}

static void test_symlinks(void)
{
	char fbuf[PATH_MAX], dbuf[PATH_MAX], cbuf[PATH_MAX], rbuf[PATH_MAX];
	const char *fsfile = unit_path_keep(fbuf, sizeof(fbuf), "links.ext4");
	const char *disk = unit_path_keep(dbuf, sizeof(dbuf), "links.img");
	const char *copy = unit_path_keep(cbuf, sizeof(cbuf), "links-copy.img");
	const char *root = unit_path_keep(rbuf, sizeof(rbuf), "link-root");

	if (!make_link_root(root) || !make_fs(fsfile, "ext4", root) ||
	    !make_disk(disk, fsfile)) {
		CHECK(0, "symlink: fixture");
		return;
	}
	test_symlink_create(disk, fsfile);
	test_symlink_replace(disk, fsfile, copy);
	test_symlink_refused(disk, copy);
	test_symlink_many(disk, fsfile);
	test_symlink_inline(root);
	test_symlink_ext2(root);
}

int main(void)
{
	const char *path = getenv("PATH");
	char newpath[4096], fbuf[128], dbuf[128], cbuf[128];
	const char *fsfile, *disk, *copy, *missing;

	/* e2fsprogs live in sbin, which is not always on PATH. */
	snprintf(newpath, sizeof(newpath), "%s:/usr/sbin:/sbin", path ? path : "/usr/bin:/bin");
	setenv("PATH", newpath, 1);
	setenv("LC_ALL", "C", 1);
	setenv("TZ", "UTC", 1);
	setenv("SOURCE_DATE_EPOCH", EPOCH, 1);
	missing = missing_tool();
	if (missing) {
		/* The form tests/run.sh reads: in CI the tool cannot be missing. */
		printf("ok 1 - ext backend # SKIP missing tool: %s\n1..1\n", missing);
		return 0;
	}
	if (unit_tmpdir_create("fs-ext")) {
		CHECK(0, "temporary directory");
		return unit_done();
	}
	fsfile = unit_path_keep(fbuf, sizeof(fbuf), "root.ext4");
	disk = unit_path_keep(dbuf, sizeof(dbuf), "disk.img");
	copy = unit_path_keep(cbuf, sizeof(cbuf), "copy.img");

	CHECK(imgp_fs_ext_.handles("ext4") && imgp_fs_ext_.handles("ext3") &&
	      imgp_fs_ext_.handles("ext2") && !imgp_fs_ext_.handles("vfat") &&
	      !imgp_fs_ext_.handles("ext"), "handles ext2, ext3, ext4 only");
	if (!setup(fsfile, disk)) {
		CHECK(0, "fixture: mke2fs, debugfs and sfdisk");
	} else {
		CHECK(unit_copy_range(disk, 0, copy, 0, DISK_SIZE) == 0, "fixture: copy");
		test_read(disk, copy);
		test_rewrite(disk, fsfile);
		test_create(disk, fsfile);
		test_remove_indexed(disk, fsfile);
		test_refused(disk, copy);
		test_dirty(fsfile);
		test_bounds(disk);
		test_ext2();
		test_ext2_remove();
		test_symlinks();
	}
	unit_tmpdir_remove();
	return unit_done();
}
