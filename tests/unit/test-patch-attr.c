// SPDX-License-Identifier: MIT
/*
 * The plan's modes, owners, deletions and listings (patch-attr.c) and the
 * filesystem operations under them (stat, set_owner, remove), planned and
 * committed on a disk made at test time (sfdisk, mkfs.vfat with mtools'
 * files, mke2fs -d), and read back with independent tools only: debugfs
 * (stat, ls -l), e2fsck -fn, dumpe2fs -h for the free counts, mdir and
 * fsck.fat -n.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "fs/fs.h"
#include "patch/patch.h"
#include "unit.h"
#include "disk/disk.h"

#define MiB (1024u * 1024u)
#define FAT_START (1 * MiB)
#define FAT_SIZE (8 * MiB)
#define EXT_START (FAT_START + FAT_SIZE)
#define EXT_SIZE (32 * MiB)
#define DISK_SIZE (EXT_START + EXT_SIZE + 1 * MiB)
#define SECRET "psk=hunter2-very-secret\n"

static char disk[PATH_MAX], extfile[PATH_MAX], fatfile[PATH_MAX];

/* The output of a tool (stdout and stderr), malloc'd; NULL when it failed. */
static char *tool_out(const char *const argv[], int *status)
{
	const char *out = unit_path("tool.out");
	int rc = unit_spawn(argv, NULL, out);

	if (status)
		*status = rc;
	else if (rc != 0)
		return NULL;
	return unit_read_file(out, NULL);
}

/* The ext partition copied out of the disk, for the e2fsprogs. */
static bool ext_out(void)
{
	unlink(extfile);
	return unit_copy_range(disk, EXT_START, extfile, 0, EXT_SIZE) == 0;
}

static char *debugfs(const char *request)
{
	const char *argv[] = { "debugfs", "-R", request, extfile, NULL };

	return tool_out(argv, NULL);
}

struct inode_info {
	char type[32];
	unsigned ino, mode, uid, gid, links;
	unsigned long long size;
};

/* debugfs stat of path; false when it is not there. */
static bool ext_stat(const char *path, struct inode_info *si)
{
	char req[256], *text, *p;
	bool ok;

	memset(si, 0, sizeof(*si));
	snprintf(req, sizeof(req), "stat %s", path);
	text = debugfs(req);
	if (!text)
		return false;
	p = strstr(text, "Inode:");
	ok = p && sscanf(p, "Inode: %u Type: %31s Mode: %o", &si->ino, si->type,
			 &si->mode) == 3;
	p = strstr(text, "User:");
	ok = ok && p && sscanf(p, "User: %u Group: %u", &si->uid, &si->gid) == 2;
	p = strstr(text, "Links:");
	ok = ok && p && sscanf(p, "Links: %u", &si->links) == 1;
	p = strstr(text, "Size:");
	ok = ok && p && sscanf(p, "Size: %llu", &si->size) == 1;
	free(text);
	return ok;
}

/* Whether a checker (e2fsck -fn, fsck.fat -n) exits 0; its words printed when not. */
static bool runs_clean(const char *const argv[])
{
	char *text;
	int rc;

	text = tool_out(argv, &rc);
	if (rc != 0 && text)
		printf("# %s exited %d:\n# %s\n", argv[0], rc, text);
	free(text);
	return rc == 0;
}

static bool ext_clean(void)
{
	const char *argv[] = { "e2fsck", "-fn", extfile, NULL };

	return ext_out() && runs_clean(argv);
}

/* Free blocks and inodes as dumpe2fs -h reports them. */
static bool ext_free(unsigned long long *blocks, unsigned long long *inodes)
{
	const char *argv[] = { "dumpe2fs", "-h", extfile, NULL };
	char *text, *b, *i;
	bool ok;

	if (!ext_out() || !(text = tool_out(argv, NULL)))
		return false;
	b = strstr(text, "\nFree blocks:");
	i = strstr(text, "\nFree inodes:");
	ok = b && i && sscanf(b, "\nFree blocks: %llu", blocks) == 1 &&
	     sscanf(i, "\nFree inodes: %llu", inodes) == 1;
	free(text);
	return ok;
}

/* mdir -/ -b of the FAT partition in the disk: every path, one a line. */
static char *fat_listing(void)
{
	char drive[PATH_MAX + 32];
	const char *argv[] = { "mdir", "-/", "-b", "-a", "-i", drive, "::/", NULL };

	snprintf(drive, sizeof(drive), "%s@@%u", disk, FAT_START);
	return tool_out(argv, NULL);
}

static bool fat_clean(void)
{
	const char *argv[] = { "fsck.fat", "-n", fatfile, NULL };

	unlink(fatfile);
	return unit_copy_range(disk, FAT_START, fatfile, 0, FAT_SIZE) == 0 &&
	       runs_clean(argv);
}

/* ---------------------------------------------------------------- fixture */

static bool make_ext_root(const char *root)
{
	char p[PATH_MAX + 64];
	const char *dirs[] = { "", "/etc", "/home", "/srv", "/srv/tree", "/srv/tree/sub",
			       "/srv/tree/sub/deeper", "/srv/imm", NULL };
	const char *files[][2] = {
		{ "/etc/fstab", "LABEL=writable / ext4 defaults 0 1\n" },
		{ "/etc/keep.conf", "keep = yes\n" },
		{ "/srv/old.txt", "old file\n" },
		{ "/srv/tree/a.txt", "a\n" },
		{ "/srv/tree/sub/b.txt", "bb\n" },
		{ "/srv/tree/sub/deeper/c.txt", "ccc\n" },
		{ "/srv/imm/x", "x\n" },
		{ NULL, NULL },
	};

	for (size_t i = 0; dirs[i]; i++) {
		snprintf(p, sizeof(p), "%s%s", root, dirs[i]);
		if (mkdir(p, 0755))
			return false;
	}
	for (size_t i = 0; files[i][0]; i++) {
		snprintf(p, sizeof(p), "%s%s", root, files[i][0]);
		if (unit_write_text(p, files[i][1]) || chmod(p, 0644))
			return false;
	}
	snprintf(p, sizeof(p), "%s/srv/link", root);
	if (symlink("tree/a.txt", p))
		return false;
	/* A hard link out of the tree that is deleted: it stays, one link fewer. */
	snprintf(p, sizeof(p), "%s/etc/hard", root);
	{
		char in_tree[PATH_MAX + 64];

		snprintf(in_tree, sizeof(in_tree), "%s/srv/tree/sub/hard", root);
		if (unit_write_text(p, "hard\n") || link(p, in_tree))
			return false;
	}
	return true;
}

static bool make_fat(void)
{
	char drive[PATH_MAX];
	const char *mkfs[] = { "mkfs.vfat", "-C", "-i", "12345678", "-n", "BOOT", fatfile,
			       "8192", NULL };
	const char *mmd[] = { "mmd", "-i", drive, "::/overlays", "::/overlays/sub", NULL };
	const char *mcopy[] = { "mcopy", "-i", drive, NULL, NULL, NULL };
	const char *files[][2] = {
		{ "config.txt", "::/config.txt" },
		{ "cmdline.txt", "::/cmdline.txt" },
		{ "a.dtbo", "::/overlays/a.dtbo" },
		{ "b.txt", "::/overlays/sub/b.txt" },
	};

	unlink(fatfile);
	snprintf(drive, sizeof(drive), "%s", fatfile);
	if (unit_spawn(mkfs, NULL, NULL) || unit_spawn(mmd, NULL, NULL))
		return false;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char src[PATH_MAX];

		unit_path_keep(src, sizeof(src), files[i][0]);
		if (unit_write_text(src, "dtparam=audio=on\n"))
			return false;
		mcopy[3] = src;
		mcopy[4] = files[i][1];
		if (unit_spawn(mcopy, NULL, NULL))
			return false;
	}
	return true;
}

static bool make_disk(void)
{
	char root[PATH_MAX], script[PATH_MAX];
	const char *mke2fs[] = { "mke2fs", "-q", "-F", "-t", "ext4", "-b", "4096",
				 "-U", "4e1bc25a-9d3c-4a5e-8d47-6f2a9c3e1b10",
				 "-E", "root_owner=0:0", "-L", "writable", "-d", root,
				 extfile, "32M", NULL };
	const char *sfdisk[] = { "sfdisk", "-q", "--no-reread", "--no-tell-kernel",
				 disk, NULL };
	const char *immutable[] = { "debugfs", "-w", "-R", "sif /srv/imm/x flags 0x80010",
				    extfile, NULL };
	int fd;

	unit_path_keep(root, sizeof(root), "root");
	unit_path_keep(script, sizeof(script), "sfdisk.in");
	if (!make_ext_root(root) || unit_spawn(mke2fs, NULL, NULL) ||
	    unit_spawn(immutable, NULL, NULL) || !make_fat())
		return false;
	fd = open(disk, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, DISK_SIZE) < 0 || close(fd) < 0)
		return false;
	if (unit_write_text(script, "label: dos\nstart=2048, size=16384, type=c\n"
				    "start=18432, size=65536, type=83\n") ||
	    unit_spawn(sfdisk, script, NULL) != 0)
		return false;
	return unit_copy_range(fatfile, 0, disk, FAT_START, FAT_SIZE) == 0 &&
	       unit_copy_range(extfile, 0, disk, EXT_START, EXT_SIZE) == 0;
}

/* ------------------------------------------------------------- the plan */

struct plan {
	struct imgp_disk *disk;
	struct imgp_patch *patch;
	const struct imgp_part *fat, *ext;
};

static bool plan_open(struct plan *p)
{
	memset(p, 0, sizeof(*p));
	imgp_errclear_();
	if (imgp_disk_open(&p->disk, NULL, disk, false) ||
	    imgp_patch_new(&p->patch, p->disk))
		return false;
	p->fat = imgp_patch_part_(p->patch, "1");
	p->ext = imgp_patch_part_(p->patch, "2");
	return p->fat && p->ext && !strcmp(p->fat->fstype, "vfat") &&
	       !strcmp(p->ext->fstype, "ext4");
}

/* The plan as shown, malloc'd. */
static char *plan_text(struct plan *p)
{
	struct imgp_buf out = { 0 };

	if (imgp_patch_describe(p->patch, &out) || imgp_buf_append(&out, "", 1)) {
		imgp_buf_free(&out);
		return NULL;
	}
	return (char *)imgp_buf_steal_(&out, NULL);
}

/* --dry-run's check, then the commit; 0 or the first -errno. */
static int plan_commit(struct plan *p)
{
	int rc = imgp_patch_check_(p->patch);

	if (rc)
		printf("# check: %s\n", imgp_errmsg());
	if (!rc)
		rc = imgp_patch_commit(p->patch, disk, NULL);
	if (rc)
		printf("# commit: %s\n", imgp_errmsg());
	return rc;
}

static void plan_close(struct plan *p)
{
	imgp_patch_free(p->patch);
	imgp_disk_close(p->disk);
}

static bool has_line(const char *text, const char *line)
{
	const char *at = text ? strstr(text, line) : NULL;
	bool found = at && (at == text || at[-1] == '\n') && at[strlen(line)] == '\n';

	if (!found)
		printf("# no line '%s' in:\n%s", line, text ? text : "(none)\n");
	return found;
}

static bool fails_with(int rc, int want, const char *msg)
{
	bool ok = rc == want && !strcmp(imgp_errmsg(), msg);

	if (!ok)
		printf("#   rc %d (want %d): '%s'\n#   want: '%s'\n", rc, want,
		       imgp_errmsg(), msg);
	imgp_errclear_();
	return ok;
}

/* The names as one line, "a b c", for comparing. */
static char *joined(char **names, size_t n)
{
	struct imgp_buf out = { 0 };

	for (size_t i = 0; i < n; i++)
		imgp_buf_printf(&out, "%s%s", i ? " " : "", names[i]);
	imgp_buf_append(&out, "", 1);
	return (char *)imgp_buf_steal_(&out, NULL);
}

static bool lists(struct plan *p, const struct imgp_part *part, const char *dir,
		  const char *want)
{
	char **names = NULL, *got;
	size_t n = 0;
	bool ok;

	if (imgp_patch_list_(p->patch, part, dir, &names, &n)) {
		printf("# list %s: %s\n", dir, imgp_errmsg());
		return false;
	}
	got = joined(names, n);
	ok = got && !strcmp(got, want);
	if (!ok)
		printf("#   %s lists '%s', want '%s'\n", dir, got ? got : "", want);
	free(got);
	imgp_fs_list_free_(names, n);
	return ok;
}

/* ------------------------------------------------------------------ tests */

static void test_modes_owners(void)
{
	struct imgp_fs_stat_ st;
	struct inode_info si;
	struct plan p;
	char *text;
	bool exists;

	CHECK(plan_open(&p), "attr: the disk opens, p1 vfat and p2 ext4");
	CHECK(imgp_patch_write_(p.patch, p.ext, "/etc/secret.conf", SECRET,
			       strlen(SECRET), true, NULL) == 0 &&
	      imgp_patch_attr_(p.patch, p.ext, "/etc/secret.conf", 0600, 1000, 1000) == 0,
	      "attr: a new file planned 0600, 1000:1000");
	imgp_patch_secret_(p.patch, p.ext, "/etc/secret.conf");
	CHECK(imgp_patch_attr_(p.patch, p.ext, "/etc/keep.conf", 0640, -1, -1) == 0,
	      "attr: chmod of an existing file, its content kept");
	CHECK(imgp_patch_mkdir_(p.patch, p.ext, "/home/u", "a home") == 0 &&
	      imgp_patch_mkdir_(p.patch, p.ext, "/home/u/.ssh", "keys") == 0 &&
	      imgp_patch_attr_(p.patch, p.ext, "/home/u", 0700, 1000, 1000) == 0 &&
	      imgp_patch_attr_(p.patch, p.ext, "/home/u/.ssh", -1, 1000, -1) == 0,
	      "attr: new folders, parent first, with their owners");
	CHECK(imgp_patch_attr_(p.patch, p.ext, "/srv/link", -1, 1000, 1000) == 0,
	      "attr: a symbolic link's own owner");
	CHECK(fails_with(imgp_patch_attr_(p.patch, p.ext, "/srv/link", 0600, -1, -1), -EINVAL,
			 "p2 (ext4): /srv/link: is a symbolic link, which has no mode of its own: give its target's path"),
	      "attr: a link's mode is refused");
	CHECK(fails_with(imgp_patch_attr_(p.patch, p.ext, "/srv/nothing", 0600, -1, -1), -ENOENT,
			 "p2 (ext4): /srv/nothing: no such file or folder"),
	      "attr: nothing there is refused, named");
	CHECK(fails_with(imgp_patch_attr_(p.patch, p.ext, "/etc/keep.conf", 010000, -1, -1), -EINVAL,
			 "p2 (ext4): /etc/keep.conf: mode 4096 is out of range (0 to 07777)"),
	      "attr: a mode past 07777 is refused");
	CHECK(imgp_patch_stat_(p.patch, p.ext, "/etc/secret.conf", &st, &exists) == 0 &&
	      exists && st.type == IMGP_FS_REG && st.mode == 0600 && st.uid == 1000 &&
	      st.size == strlen(SECRET), "stat: the planned file, its planned mode and owner");
	CHECK(imgp_patch_stat_(p.patch, p.ext, "/srv/link", &st, &exists) == 0 &&
	      exists && st.type == IMGP_FS_LNK && st.uid == 1000,
	      "stat: the link itself, not followed");
	CHECK(lists(&p, p.ext, "/home", "u") && lists(&p, p.ext, "/home/u", ".ssh") &&
	      lists(&p, p.ext, "/etc/", "fstab hard keep.conf secret.conf"),
	      "list: the folders as the plan leaves them, sorted");
	text = plan_text(&p);
	CHECK(has_line(text, "p2 (ext4) /etc/secret.conf: new file, 24 bytes (holds a secret: not shown), mode 0600, owner 1000:1000") &&
	      !strstr(text, "hunter2") && !strstr(text, "sha256"),
	      "describe: a secret's sizes only, no diff, no digest");
	CHECK(has_line(text, "p2 (ext4) /etc/keep.conf: mode 0644 -> 0640") &&
	      has_line(text, "p2 (ext4) /home/u: new folder, mode 0700, owner 1000:1000") &&
	      has_line(text, "p2 (ext4) /home/u/.ssh: new folder, owner 1000:0") &&
	      has_line(text, "p2 (ext4) /srv/link: owner 0:0 -> 1000:1000"),
	      "describe: modes and owners, old -> new, a new one's when not the default");
	free(text);
	CHECK(plan_commit(&p) == 0, "attr: checked and committed");
	plan_close(&p);

	CHECK(ext_clean(), "attr: e2fsck -fn finds nothing");
	CHECK(ext_stat("/etc/secret.conf", &si) && si.mode == 0600 && si.uid == 1000 &&
	      si.gid == 1000 && si.size == strlen(SECRET) && !strcmp(si.type, "regular"),
	      "debugfs: the new file is 0600, 1000:1000");
	CHECK(ext_stat("/etc/keep.conf", &si) && si.mode == 0640 && si.size == 11,
	      "debugfs: the existing file is 0640, its content as it was");
	CHECK(ext_stat("/home/u", &si) && si.mode == 0700 && si.uid == 1000 &&
	      !strcmp(si.type, "directory") && si.links == 3,
	      "debugfs: the new folder is 0700, 1000:1000, with its subfolder's link");
	CHECK(ext_stat("/home/u/.ssh", &si) && si.mode == 0755 && si.uid == 1000 &&
	      si.gid == 0, "debugfs: the subfolder keeps 0755, owner 1000:0");
	CHECK(ext_stat("/srv/link", &si) && !strcmp(si.type, "symlink") && si.uid == 1000 &&
	      si.gid == 1000, "debugfs: the link's own inode is 1000:1000");
	CHECK(ext_stat("/srv/tree/a.txt", &si) && si.uid == 0,
	      "debugfs: the link's target keeps its owner");

	/* The same asked again: nothing to do. */
	CHECK(plan_open(&p), "attr again: the disk opens");
	CHECK(imgp_patch_write_(p.patch, p.ext, "/etc/secret.conf", SECRET,
			       strlen(SECRET), true, NULL) == 0 &&
	      imgp_patch_attr_(p.patch, p.ext, "/etc/secret.conf", 0600, 1000, 1000) == 0 &&
	      imgp_patch_attr_(p.patch, p.ext, "/etc/keep.conf", 0640, -1, -1) == 0 &&
	      imgp_patch_mkdir_(p.patch, p.ext, "/home/u", "a home") == 0 &&
	      imgp_patch_attr_(p.patch, p.ext, "/home/u", 0700, 1000, 1000) == 0 &&
	      imgp_patch_attr_(p.patch, p.ext, "/srv/link", -1, 1000, 1000) == 0,
	      "attr again: the same plan");
	text = plan_text(&p);
	CHECK(imgp_patch_pending(p.patch) == 0 &&
	      has_line(text, "p2 (ext4) /etc/keep.conf: unchanged (already applied)"),
	      "attr again: nothing pending, unchanged");
	free(text);
	plan_close(&p);

	/* A secret rewritten: sizes only. */
	CHECK(plan_open(&p) && imgp_patch_write_(p.patch, p.ext, "/etc/secret.conf", "psk=other\n",
						 10, true, NULL) == 0,
	      "secret: an existing secret file rewritten");
	imgp_patch_secret_(p.patch, p.ext, "/etc/secret.conf");
	text = plan_text(&p);
	CHECK(has_line(text, "p2 (ext4) /etc/secret.conf: 24 -> 10 bytes (holds a secret: not shown)") &&
	      !strstr(text, "psk") && !strstr(text, "@@"), "secret: neither text is shown, no diff");
	free(text);
	plan_close(&p);
}

static void test_delete(void)
{
	unsigned long long blocks0, inodes0, blocks1, inodes1;
	struct imgp_buf buf = { 0 };
	struct inode_info si;
	struct plan p;
	char *text;
	bool existed;
	static char big[20000];

	/* Made and then deleted in two commits: the free counts come back. */
	CHECK(ext_free(&blocks0, &inodes0), "delete: dumpe2fs -h reads the free counts");
	memset(big, 'x', sizeof(big));
	CHECK(plan_open(&p) &&
	      imgp_patch_mkdir_(p.patch, p.ext, "/srv/new", "test") == 0 &&
	      imgp_patch_mkdir_(p.patch, p.ext, "/srv/new/sub", "test") == 0 &&
	      imgp_patch_write_(p.patch, p.ext, "/srv/new/f1", big, sizeof(big), false, NULL) == 0 &&
	      imgp_patch_write_(p.patch, p.ext, "/srv/new/sub/f2", "two\n", 4, true, NULL) == 0 &&
	      imgp_patch_symlink_(p.patch, "2", "/srv/new/l", "f1") == 0 &&
	      plan_commit(&p) == 0, "delete: a folder tree made");
	plan_close(&p);
	CHECK(ext_free(&blocks1, &inodes1) && blocks1 < blocks0 && inodes1 == inodes0 - 5,
	      "delete: the tree took blocks and five inodes");
	CHECK(plan_open(&p) && imgp_patch_delete_(p.patch, p.ext, "/srv/new") == 0,
	      "delete: the folder tree planned away");
	text = plan_text(&p);
	CHECK(has_line(text, "p2 (ext4) /srv/new: deleted (folder)"), "describe: deleted (folder)");
	free(text);
	CHECK(plan_commit(&p) == 0, "delete: committed");
	plan_close(&p);
	CHECK(ext_free(&blocks1, &inodes1) && blocks1 == blocks0 && inodes1 == inodes0,
	      "delete: free blocks and inodes are what they were before");
	CHECK(ext_clean(), "delete: e2fsck -fn finds nothing");

	/* The image's own: a file, a link, a folder with files and folders, a hard link. */
	CHECK(plan_open(&p), "delete: the disk opens");
	CHECK(imgp_patch_delete_(p.patch, p.ext, "/srv/old.txt") == 0 &&
	      imgp_patch_delete_(p.patch, p.ext, "/srv/link") == 0 &&
	      imgp_patch_delete_(p.patch, p.ext, "/srv/tree/") == 0 &&
	      imgp_patch_delete_(p.patch, p.ext, "/srv/tree/a.txt") == 0 &&
	      imgp_patch_delete_(p.patch, p.ext, "/srv/never") == 0,
	      "delete: a file, a link, a folder; under a deleted one and nothing there plan nothing");
	CHECK(lists(&p, p.ext, "/srv", "imm"), "list: the deleted are gone");
	CHECK(imgp_patch_read_(p.patch, p.ext, "/srv/tree/sub/b.txt", 100, &buf, &existed) == 0 &&
	      !existed, "read: a file under a deleted folder does not exist");
	text = plan_text(&p);
	CHECK(has_line(text, "p2 (ext4) /srv/old.txt: deleted (file, 9 bytes)") &&
	      has_line(text, "p2 (ext4) /srv/link: deleted (symbolic link -> tree/a.txt)") &&
	      has_line(text, "p2 (ext4) /srv/tree: deleted (folder)") &&
	      !strstr(text, "a.txt:") && !strstr(text, "never"),
	      "describe: each deletion once, what it was");
	free(text);
	CHECK(imgp_patch_pending(p.patch) == 3, "delete: three pending");
	CHECK(fails_with(imgp_patch_delete_(p.patch, p.ext, "/"), -EPERM,
			 "p2 (ext4): /: is the root folder, which cannot be removed") &&
	      fails_with(imgp_patch_delete_(p.patch, p.ext, "/etc/../srv"), -EINVAL,
			 "p2 (ext4): /etc/../srv: is not a file name: a part of it is \"..\""),
	      "delete: the root and a path through .. are refused");
	CHECK(plan_commit(&p) == 0, "delete: committed");
	plan_close(&p);
	CHECK(ext_clean(), "delete: e2fsck -fn finds nothing");
	CHECK(!ext_stat("/srv/old.txt", &si) && !ext_stat("/srv/link", &si) &&
	      !ext_stat("/srv/tree", &si), "debugfs: the file, the link and the folder are gone");
	CHECK(ext_stat("/etc/hard", &si) && si.links == 1,
	      "debugfs: a hard link outside the tree stays, with one link");
	text = debugfs("ls -l /srv");
	CHECK(text && !strstr(text, "tree") && !strstr(text, "old.txt"),
	      "debugfs ls -l: /srv holds none of them");
	free(text);
	imgp_buf_free(&buf);
}

static void test_delete_write(void)
{
	struct imgp_buf buf = { 0 };
	struct inode_info before, si;
	struct plan p;
	char *text, *same;
	bool existed;
	size_t len;

	CHECK(ext_stat("/etc/keep.conf", &before), "delete+write: the file is there");
	CHECK(plan_open(&p) && imgp_patch_delete_(p.patch, p.ext, "/etc/keep.conf") == 0,
	      "delete+write: deleted");
	CHECK(imgp_patch_read_(p.patch, p.ext, "/etc/keep.conf", 100, &buf, &existed) == 0 &&
	      !existed, "read: a deleted file does not exist");
	CHECK(imgp_patch_write_(p.patch, p.ext, "/etc/keep.conf", "new\n", 4, true, NULL) == 0,
	      "delete+write: written again");
	text = plan_text(&p);
	CHECK(has_line(text, "p2 (ext4) /etc/keep.conf: deleted (file, 11 bytes)") &&
	      strstr(text, "p2 (ext4) /etc/keep.conf: new file, 4 bytes, sha256 ") != NULL,
	      "describe: the removal, then the new file");
	free(text);
	/* Written, then deleted: no trace. */
	CHECK(imgp_patch_write_(p.patch, p.ext, "/etc/ghost.conf", "boo\n", 4, true, NULL) == 0 &&
	      imgp_patch_attr_(p.patch, p.ext, "/etc/ghost.conf", 0600, -1, -1) == 0 &&
	      imgp_patch_delete_(p.patch, p.ext, "/etc/ghost.conf") == 0,
	      "write+delete: planned and dropped");
	text = plan_text(&p);
	CHECK(text && !strstr(text, "ghost"), "write+delete: not in the plan");
	free(text);
	CHECK(plan_commit(&p) == 0, "delete+write: committed");
	plan_close(&p);
	CHECK(ext_clean(), "delete+write: e2fsck -fn finds nothing");
	CHECK(ext_stat("/etc/keep.conf", &si) && si.size == 4 && si.mode == 0644 &&
	      !ext_stat("/etc/ghost.conf", &si), "debugfs: a new file, 0644 again; no ghost");

	/* A folder deleted and made again: empty, its new mode, root's. */
	CHECK(plan_open(&p) && imgp_patch_delete_(p.patch, p.ext, "/home/u") == 0 &&
	      fails_with(imgp_patch_attr_(p.patch, p.ext, "/home/u/.ssh", -1, 0, 0), -ENOENT,
			 "p2 (ext4): /home/u/.ssh: no such file or folder") &&
	      imgp_patch_mkdir_(p.patch, p.ext, "/home/u", "again") == 0 &&
	      imgp_patch_attr_(p.patch, p.ext, "/home/u", 0750, -1, -1) == 0 &&
	      lists(&p, p.ext, "/home/u", "") && lists(&p, p.ext, "/home", "u"),
	      "delete+mkdir: the folder planned again holds nothing");
	text = plan_text(&p);
	CHECK(has_line(text, "p2 (ext4) /home/u: deleted (folder)") &&
	      has_line(text, "p2 (ext4) /home/u: new folder, mode 0750"),
	      "delete+mkdir: describe");
	free(text);
	CHECK(plan_commit(&p) == 0, "delete+mkdir: committed");
	plan_close(&p);
	CHECK(ext_clean() && ext_stat("/home/u", &si) && si.mode == 0750 && si.uid == 0 &&
	      si.links == 2 && !ext_stat("/home/u/.ssh", &si),
	      "debugfs: /home/u is 0750, root's, without .ssh; e2fsck -fn finds nothing");

	/* A plan that writes and deletes the same new file changes no byte. */
	same = unit_read_file(disk, &len);
	CHECK(plan_open(&p) &&
	      imgp_patch_mkdir_(p.patch, p.ext, "/srv/tmp", "x") == 0 &&
	      imgp_patch_write_(p.patch, p.ext, "/srv/tmp/f", "f\n", 2, true, NULL) == 0 &&
	      imgp_patch_delete_(p.patch, p.ext, "/srv/tmp") == 0 &&
	      imgp_patch_pending(p.patch) == 0 && plan_commit(&p) == 0,
	      "write+delete: nothing pending, the commit runs");
	plan_close(&p);
	{
		size_t len2;
		char *after = unit_read_file(disk, &len2);

		CHECK(same && after && len == len2 && !memcmp(same, after, len),
		      "write+delete: the image is byte-identical");
		free(after);
	}
	free(same);
	imgp_buf_free(&buf);
}

static void test_fat(void)
{
	struct imgp_fs_stat_ st;
	struct plan p;
	char *text, *same, *after;
	bool exists;
	size_t len, len2;

	same = unit_read_file(disk, &len);
	CHECK(plan_open(&p), "fat: the disk opens");
	CHECK(fails_with(imgp_patch_attr_(p.patch, p.fat, "/config.txt", 0600, -1, -1), -ENOTSUP,
			 "p1 (vfat): /config.txt: FAT has no permissions") &&
	      fails_with(imgp_patch_attr_(p.patch, p.fat, "/config.txt", -1, 1000, -1), -ENOTSUP,
			 "p1 (vfat): /config.txt: FAT has no owners") &&
	      p.patch->nchanges == 0, "fat: mode and owner refused, nothing planned");
	CHECK(imgp_patch_stat_(p.patch, p.fat, "/overlays", &st, &exists) == 0 && exists &&
	      st.type == IMGP_FS_DIR && st.mode == 0755 &&
	      imgp_patch_stat_(p.patch, p.fat, "/config.txt", &st, &exists) == 0 && exists &&
	      st.type == IMGP_FS_REG && st.mode == 0644 && st.size == 17,
	      "fat: stat says a folder 0755, a file 0644 with its size");
	CHECK(imgp_patch_delete_(p.patch, p.fat, "/cmdline.txt") == 0 &&
	      imgp_patch_delete_(p.patch, p.fat, "/overlays") == 0, "fat: a file and a folder tree deleted");
	CHECK(lists(&p, p.fat, "/", "config.txt"), "fat: the listing as planned");
	text = plan_text(&p);
	CHECK(has_line(text, "p1 (vfat) /cmdline.txt: deleted (file, 17 bytes)") &&
	      has_line(text, "p1 (vfat) /overlays: deleted (folder)"), "fat: describe");
	free(text);
	plan_close(&p);
	after = unit_read_file(disk, &len2);
	CHECK(same && after && len == len2 && !memcmp(same, after, len),
	      "fat: planning writes nothing");
	free(after);
	free(same);
	CHECK(plan_open(&p) && imgp_patch_delete_(p.patch, p.fat, "/cmdline.txt") == 0 &&
	      imgp_patch_delete_(p.patch, p.fat, "/overlays") == 0 && plan_commit(&p) == 0,
	      "fat: committed");
	plan_close(&p);
	text = fat_listing();
	CHECK(text && !strcmp(text, "::/config.txt\n"), "mdir: only config.txt is left");
	if (text && strcmp(text, "::/config.txt\n"))
		printf("# mdir: %s\n", text);
	free(text);
	CHECK(fat_clean(), "fsck.fat -n finds nothing");

	/* Removed, then written again, in plan order. */
	CHECK(plan_open(&p) && imgp_patch_delete_(p.patch, p.fat, "/config.txt") == 0 &&
	      imgp_patch_write_(p.patch, p.fat, "/config.txt", "new\n", 4, true, NULL) == 0 &&
	      imgp_patch_mkdir_(p.patch, p.fat, "/overlays", "again") == 0 && plan_commit(&p) == 0,
	      "fat: a file deleted and written again, a folder made again");
	plan_close(&p);
	text = fat_listing();
	CHECK(text && !strcmp(text, "::/config.txt\n::/overlays/\n"), "mdir: config.txt and overlays/");
	if (text && strcmp(text, "::/config.txt\n::/overlays/\n"))
		printf("# mdir: %s\n", text);
	free(text);
	CHECK(fat_clean(), "fsck.fat -n finds nothing after");
	CHECK(plan_open(&p), "fat: the disk opens again");
	{
		struct imgp_buf buf = { 0 };

		CHECK(imgp_patch_read_(p.patch, p.fat, "/config.txt", 100, &buf, &exists) == 0 &&
		      exists && buf.len == 4 && !memcmp(buf.data, "new\n", 4),
		      "fat: the new content reads back");
		imgp_buf_free(&buf);
	}
	plan_close(&p);
}

/* Refused by the commit's check, as --dry-run refuses it, and the image left as it was. */
static void test_refused(void)
{
	const char *msg;
	char *same, *after;
	size_t len, len2;
	struct plan p;
	int rc;

	same = unit_read_file(disk, &len);
	CHECK(plan_open(&p) && imgp_patch_delete_(p.patch, p.ext, "/srv/imm") == 0,
	      "refused: a folder holding an immutable file is planned");
	rc = imgp_patch_check_(p.patch);
	msg = imgp_errmsg();
	CHECK(rc == -EPERM && !strncmp(msg, "p2 (ext4): /srv/imm: holds an immutable or append-only inode (", 62) &&
	      strstr(msg, "): clear the flag with chattr -ia first"),
	      "refused: --dry-run's check names the partition, the folder and the flag");
	if (rc != -EPERM)
		printf("# %d: %s\n", rc, msg);
	CHECK(imgp_patch_commit(p.patch, disk, NULL) == -EPERM, "refused: so does the commit");
	CHECK(fails_with(imgp_patch_delete_(p.patch, p.fat, "/a*b"), -EINVAL,
			 "p1 (vfat): /a*b: a name with '*' is not supported on FAT (mtools reads it as a pattern)"),
	      "refused: a FAT name mtools would read as a pattern");
	plan_close(&p);
	after = unit_read_file(disk, &len2);
	CHECK(same && after && len == len2 && !memcmp(same, after, len),
	      "refused: the image is byte-identical");
	free(after);
	free(same);
}

static const char *missing_tool(void)
{
	static const char *const tools[][3] = {
		{ "mke2fs", "-V", NULL }, { "debugfs", "-V", NULL },
		{ "e2fsck", "-V", NULL }, { "dumpe2fs", "-V", NULL },
		{ "sfdisk", "--version", NULL }, { "mdir", "--version", NULL },
		{ "mkfs.vfat", "--help", NULL }, { "fsck.fat", "--help", NULL },
	};

	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		char file[PATH_MAX];

		if (!unit_find_tool(tools[i][0], file, sizeof(file)))
			return tools[i][0];
	}
	return NULL;
}

int main(void)
{
	const char *path = getenv("PATH"), *missing;
	char newpath[4096];

	snprintf(newpath, sizeof(newpath), "%s:/usr/sbin:/sbin", path ? path : "/usr/bin:/bin");
	setenv("PATH", newpath, 1);
	setenv("LC_ALL", "C", 1);
	setenv("TZ", "UTC", 1);
	setenv("SOURCE_DATE_EPOCH", "1700000000", 1);
	setenv("MTOOLS_SKIP_CHECK", "1", 1);
	missing = missing_tool();
	if (missing) {
		printf("ok 1 - modes, owners, deletion # SKIP missing tool: %s\n1..1\n", missing);
		return 0;
	}
	if (unit_tmpdir_create("patch-attr")) {
		CHECK(0, "temporary directory");
		return unit_done();
	}
	unit_path_keep(disk, sizeof(disk), "disk.img");
	unit_path_keep(extfile, sizeof(extfile), "root.ext4");
	unit_path_keep(fatfile, sizeof(fatfile), "boot.vfat");
	if (!make_disk()) {
		CHECK(0, "fixture: sfdisk, mkfs.vfat, mtools, mke2fs -d");
	} else {
		CHECK(ext_clean() && fat_clean(), "fixture: both filesystems are clean");
		test_modes_owners();
		test_delete();
		test_delete_write();
		test_fat();
		test_refused();
	}
	unit_tmpdir_remove();
	return unit_done();
}
