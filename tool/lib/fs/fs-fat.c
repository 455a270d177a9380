// SPDX-License-Identifier: MIT
/*
 * FAT12/16/32 through mtools, run as programs on the image's partition
 * ("/proc/self/fd/N@@OFFSET") so nothing is mounted. imgpatch itself only
 * reads the boot sector: to refuse a FAT whose geometry does not fit its
 * partition before mtools ever writes, and to turn the cluster numbers
 * mtools reports (mshowfat) into image offsets.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fs-fat-internal.h"
#include "core/epoch.h"
#include "core/io.h"

const char *const imgp_fat_mtools_env_[] = {
	"MTOOLS_SKIP_CHECK=1",
	"MTOOLSRC=/dev/null",
	NULL,
};

static bool fat_handles(const char *fstype)
{
	return strcmp(fstype, "vfat") == 0 || strcmp(fstype, "msdos") == 0;
}

static int fat_check_geometry(struct imgp_fs *fs, struct imgp_fat_geom *g)
{
	uint8_t bs[512];
	int rc = imgp_part_read_(fs->img, fs->part, 0, bs, sizeof(bs));

	return rc ? rc : imgp_fat_geometry_(bs, fs->part->size, g);
}

/* mtools' message names what where it named fd's "/proc/self/fd/N". */
static void fat_name_fd(int rc, int fd, const char *what)
{
	char fd_path[32], msg[4200];
	const char *at;
	size_t n;

	if (fd < 0)
		return;
	snprintf(fd_path, sizeof(fd_path), "/proc/self/fd/%d", fd);
	snprintf(msg, sizeof(msg), "%s", imgp_errmsg());
	at = strstr(msg, fd_path);
	n = strlen(fd_path);
	if (at && !isdigit((unsigned char)at[n]))
		imgp_fail(-rc, "%.*s%s%s", (int)(at - msg), msg, what, at + n);
}

int imgp_fat_run_(struct imgp_fs *fs, const char *const argv[],
		 const char *const env[], struct imgp_buf *out)
{
	struct fat_priv *priv = fs->priv;
	const int keep[] = { priv->img_fd, priv->copy_fd };
	int rc = imgp_run_fds_(argv, env, out, keep, priv->copy_fd >= 0 ? 2 : 1);

	if (rc) {
		fat_name_fd(rc, priv->img_fd, "the image");
		fat_name_fd(rc, priv->copy_fd, "the private copy of the FAT");
	}
	return rc;
}

/* Runs mshowfat on one drive for names; their chains appended to out. */
int imgp_fat_chains_(struct imgp_fs *fs, const char *drive, char **names,
		    size_t n, struct imgp_fat_ranges *out)
{
	struct fat_priv *priv = fs->priv;
	const char **argv = calloc(n + 4, sizeof(*argv));
	struct imgp_buf o = { 0 };
	char *line, *save = NULL;
	int rc;

	if (!argv)
		return imgp_fail(ENOMEM, "out of memory");
	argv[0] = "mshowfat";
	argv[1] = "-i";
	argv[2] = drive;
	for (size_t i = 0; i < n; i++)
		argv[3 + i] = names[i];
	rc = imgp_fat_run_(fs, argv, imgp_fat_mtools_env_, &o);
	free(argv);
	if (!rc)
		rc = imgp_buf_append(&o, "", 1);
	for (line = rc ? NULL : strtok_r((char *)o.data, "\n", &save); line && !rc;
	     line = strtok_r(NULL, "\n", &save))
		rc = imgp_fat_parse_chain_(&priv->geom, line, out);
	imgp_buf_free(&o);
	return rc;
}

/*
 * Capture mode: mtools cannot be journaled from inside, and which free
 * clusters it takes is its own choice. So it works on a private copy of
 * the partition, and what differs afterwards is the write set: the journal
 * then knows every byte before the image is touched. The copy is a sparse
 * file in memory holding only what mtools reads to add or replace a file:
 * the reserved sectors, the FATs, the root directory and every directory's
 * clusters. It is filled through a mapping, so the only writes are
 * mtools's own.
 */
static int fat_fill(struct imgp_fs *fs, uint64_t off, uint64_t len)
{
	struct fat_priv *priv = fs->priv;
	long page = sysconf(_SC_PAGESIZE);
	uint64_t start = off & ~(uint64_t)(page - 1);
	size_t maplen = (size_t)(off + len - start);
	uint8_t *map;
	int rc;

	if (!len)
		return 0;
	map = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_SHARED,
		   priv->copy_fd, (off_t)start);
	if (map == MAP_FAILED)
		return imgp_fail(errno, "private copy of the FAT: %s", strerror(errno));
	rc = imgp_part_read_(fs->img, fs->part, off, map + (off - start), (size_t)len);
	munmap(map, maplen);
	if (!rc)
		rc = imgp_fat_ranges_add_(&priv->filled, off, len);
	return rc;
}

int imgp_fat_refuse_damage_(struct imgp_fs *fs, const char *path)
{
	struct fat_priv *priv = fs->priv;
	const struct imgp_fat_finding *f;
	int rc;

	if (!priv->have_damage || priv->damage_writes != fs->img->writes) {
		imgp_fat_damage_free_(&priv->damage);
		priv->have_damage = false;
		rc = imgp_fat_check_(fs->img, fs->part, &priv->damage);
		if (rc)
			return rc;
		priv->have_damage = true;
		priv->damage_writes = fs->img->writes;
	}
	if (path)
		f = imgp_fat_damage_find_(&priv->damage, path);
	else
		f = priv->damage.n ? &priv->damage.f[0] : NULL;
	if (!f)
		return 0;
	return imgp_fail(EUCLEAN, "FAT filesystem has errors (%s): run fsck.fat first",
			 f->why);
}

static void fat_listing_drop(struct fat_listing *l)
{
	free(l->text);
	free(l->dir_chains.r);
	memset(l, 0, sizeof(*l));
}

/*
 * A capture opened on the file a read-only handle (seen) listed takes its
 * listing while that still holds: the commit lists no folder again.
 */
static int fat_listing_take(struct imgp_fs *fs, const struct imgp_fs *seen)
{
	struct fat_listing *l = &((struct fat_priv *)fs->priv)->listing;
	const struct fat_listing *from;
	size_t n;

	if (!seen || seen->ops != fs->ops || !seen->priv)
		return 0;
	from = &((const struct fat_priv *)seen->priv)->listing;
	if (!from->text || !from->ino || from->writes != seen->img->writes)
		return 0;
	*l = *from;
	l->text = strdup(from->text);
	n = from->dir_chains.n;
	l->dir_chains.r = n ? malloc(n * sizeof(*l->dir_chains.r)) : NULL;
	if (!l->text || (n && !l->dir_chains.r)) {
		fat_listing_drop(l);
		return imgp_fail(ENOMEM, "out of memory");
	}
	if (n)
		memcpy(l->dir_chains.r, from->dir_chains.r, n * sizeof(*l->dir_chains.r));
	/* The key's write count is now that of this handle's image. */
	l->writes = fs->img->writes;
	return 0;
}

/*
 * mtools 4.0.33 (Debian 12) fails "mdir -/ ::/" on an empty root folder,
 * exit status 1 and 'File "::/" not found'. Only that exact failure is
 * taken for an empty root, and only when mdir without -/ then lists the
 * root and prints nothing: any other failure stays one.
 */
static bool fat_root_is_empty(struct imgp_fs *fs)
{
	static const char empty_root[] =
		"mdir failed (exit status 1): mdir: File \"::/\" not found";
	struct fat_priv *priv = fs->priv;
	const char *argv[] = { "mdir", "-b", "-a", "-i", priv->src, "::/", NULL };
	struct imgp_buf o = { 0 };
	bool empty;

	if (strcmp(imgp_errmsg(), empty_root))
		return false;
	empty = !imgp_fat_run_(fs, argv, imgp_fat_mtools_env_, &o);
	for (size_t i = 0; empty && i < o.len; i++)
		if (o.data[i] != '\n' && o.data[i] != ' ')
			empty = false;
	imgp_buf_free(&o);
	if (empty)
		imgp_errclear_();
	else
		imgp_fail(EIO, "%s", empty_root);
	return empty;
}

int imgp_fat_list_(struct imgp_fs *fs, const char **text)
{
	struct fat_priv *priv = fs->priv;
	struct fat_listing *l = &priv->listing;
	const char *argv[] = { "mdir", "-/", "-b", "-a", "-i", priv->src, "::/", NULL };
	struct imgp_buf o = { 0 };
	struct stat st;
	int rc;

	if (fs->img->is_blockdev || fstat(priv->img_fd, &st) < 0)
		memset(&st, 0, sizeof(st));
	if (l->text && st.st_ino && l->start == fs->part->start &&
	    l->dev == st.st_dev && l->ino == st.st_ino && l->size == st.st_size &&
	    l->mtime.tv_sec == st.st_mtim.tv_sec &&
	    l->mtime.tv_nsec == st.st_mtim.tv_nsec && l->writes == fs->img->writes) {
		*text = l->text;
		return 0;
	}
	fat_listing_drop(l);
	rc = imgp_fat_run_(fs, argv, imgp_fat_mtools_env_, &o);
	if (rc && fat_root_is_empty(fs)) {
		imgp_buf_free(&o);
		rc = 0;
	}
	if (!rc)
		rc = imgp_buf_append(&o, "", 1);
	if (rc) {
		imgp_buf_free(&o);
		return rc;
	}
	l->text = (char *)imgp_buf_steal_(&o, NULL);
	*text = l->text;
	if (st.st_ino) {
		l->start = fs->part->start;
		l->dev = st.st_dev;
		l->ino = st.st_ino;
		l->size = st.st_size;
		l->mtime = st.st_mtim;
		l->writes = fs->img->writes;
	} else {
		/* Used once, by this caller: the next one lists again. */
		l->ino = 0;
	}
	return 0;
}

static int fat_dirs(struct imgp_fs *fs, char ***out, size_t *n)
{
	const char *text;
	int rc = imgp_fat_list_(fs, &text);

	*out = NULL;
	*n = 0;
	return rc ? rc : imgp_fat_listing_dirs_(text, out, n);
}

static int fat_lookup(struct imgp_fs *fs, const char *target)
{
	const char *text = "";
	/* The answers that need no listing first: no mdir run for them. */
	int rc = imgp_fat_listing_find_(text, target);

	if (rc)
		return rc;
	rc = imgp_fat_list_(fs, &text);
	return rc ? rc : imgp_fat_listing_find_(text, target);
}

/*
 * mtools matches '*', '?' and '[...]' in a name it reads as a pattern
 * (mtype ::/a[1].txt prints a1.txt), and takes the last name of a file it
 * makes literally: no one spelling names such a file for every command.
 * '*', '?' and '\' cannot stand in a FAT name at all.
 */
static const char fat_pattern_chars[] = "*?[]\\";

/*
 * A name from mtools' own listing as mshowfat must be given it to match
 * that one file: its pattern characters escaped with '\'.
 */
static char *fat_pattern_escape(const char *name)
{
	char *out = malloc(2 * strlen(name) + 1), *o = out;

	if (!out)
		return NULL;
	for (; *name; name++) {
		if (strchr(fat_pattern_chars, *name))
			*o++ = '\\';
		*o++ = *name;
	}
	*o = '\0';
	return out;
}

/* The clusters of names (from a listing), mshowfat run on drive in groups. */
static int fat_chains_all(struct imgp_fs *fs, const char *drive, char **names,
			  size_t n, struct imgp_fat_ranges *out)
{
	char **escaped = calloc(n ? n : 1, sizeof(*escaped));
	int rc = escaped ? 0 : imgp_fail(ENOMEM, "out of memory");

	for (size_t i = 0; !rc && i < n; i++)
		if (!(escaped[i] = fat_pattern_escape(names[i])))
			rc = imgp_fail(ENOMEM, "out of memory");
	for (size_t i = 0; !rc && i < n; i += FAT_DIRS_PER_RUN)
		rc = imgp_fat_chains_(fs, drive, escaped + i,
				n - i < FAT_DIRS_PER_RUN ? n - i : FAT_DIRS_PER_RUN, out);
	if (escaped)
		imgp_fs_list_free_(escaped, n);
	return rc;
}

/* Fills the private copy with the metadata and every directory's clusters. */
static int fat_copy_metadata(struct imgp_fs *fs)
{
	struct fat_priv *priv = fs->priv;
	struct imgp_fat_ranges chains = { 0 };
	int rc;

	if (ftruncate(priv->copy_fd, (off_t)fs->part->size) < 0)
		return imgp_fail(errno, "private copy of the FAT: %s", strerror(errno));
	rc = fat_fill(fs, 0, priv->geom.meta_end);
	if (!rc)
		rc = fat_dirs(fs, &priv->dirs, &priv->ndirs);
	/* The listing still holds: so do the folders' clusters mapped with it. */
	if (!rc && priv->listing.have_dir_chains) {
		for (size_t i = 0; !rc && i < priv->listing.dir_chains.n; i++)
			rc = fat_fill(fs, priv->listing.dir_chains.r[i].file_off,
				      priv->listing.dir_chains.r[i].len);
		return rc;
	}
	if (!rc)
		rc = fat_chains_all(fs, priv->src, priv->dirs, priv->ndirs, &chains);
	for (size_t i = 0; !rc && i < chains.n; i++)
		rc = fat_fill(fs, chains.r[i].file_off, chains.r[i].len);
	free(chains.r);
	return rc;
}

/*
 * A descriptor of what fd is open on, past the standard streams (which a
 * program's are), close-on-exec: only mtools inherits it. fd is closed
 * when owned.
 */
static int fat_drive_fd(int fd, bool owned, const char *what)
{
	int err, moved = fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 3);

	err = errno;
	if (fd >= 0 && owned)
		close(fd);
	if (moved < 0)
		return imgp_fail(err, "%s: %s", what, strerror(err));
	return moved;
}

/* The -i argument of mtools for the descriptor fd, the FAT at off. */
static void fat_drive(char *out, size_t len, int fd, uint64_t off)
{
	snprintf(out, len, "/proc/self/fd/%d@@%llu", fd, (unsigned long long)off);
}

static int fat_open(struct imgp_fs *fs)
{
	struct fat_priv *priv;
	int rc;

	priv = calloc(1, sizeof(*priv));
	if (!priv)
		return imgp_fail(ENOMEM, "out of memory");
	priv->copy_fd = -1;
	fs->priv = priv;
	priv->img_fd = fat_drive_fd(fs->img->fd, false, "the image");
	rc = priv->img_fd < 0 ? priv->img_fd : fat_check_geometry(fs, &priv->geom);
	/* mtools reads the file itself: an image unpacked on demand must hold it all. */
	if (!rc)
		rc = imgp_image_fill_(fs->img, fs->part->start, fs->part->size);
	if (!rc)
		fat_drive(priv->src, sizeof(priv->src), priv->img_fd, fs->part->start);
	if (!rc && !fs->capture)
		memcpy(priv->drive, priv->src, sizeof(priv->drive));
	/* mtools writes what it reads: a damaged chain is refused before it runs. */
	if (!rc && fs->capture)
		rc = imgp_fat_refuse_damage_(fs, NULL);
	if (!rc && fs->capture) {
		priv->copy_fd = fat_drive_fd(memfd_create("imgpatch-fat", MFD_CLOEXEC),
					     true, "private copy of the FAT");
		rc = priv->copy_fd < 0 ? priv->copy_fd : 0;
		if (!rc)
			fat_drive(priv->drive, sizeof(priv->drive), priv->copy_fd, 0);
		if (!rc)
			rc = fat_listing_take(fs, fs->seen);
		if (!rc)
			rc = fat_copy_metadata(fs);
	}
	if (rc) {
		fs->ops->close(fs);
		fs->priv = NULL;
	}
	return rc;
}

/* Sectors of [off, off+len) of the partition where the copy differs from the image. */
static int fat_diff(struct imgp_fs *fs, uint64_t off, uint64_t len,
		    uint8_t *a, uint8_t *b)
{
	struct fat_priv *priv = fs->priv;
	const struct imgp_part *part = fs->part;
	int rc = 0;

	while (!rc && len) {
		size_t n = len < FAT_CHUNK ? (size_t)len : FAT_CHUNK;
		ssize_t got = imgp_read_all_(priv->copy_fd, b, n, (off_t)off);

		if (got != (ssize_t)n)
			return imgp_fail(EIO, "private copy of the FAT: short read");
		rc = imgp_part_read_(fs->img, part, off, a, n);
		for (size_t i = 0; !rc && i < n; i += FAT_SECTOR) {
			size_t m = n - i < FAT_SECTOR ? n - i : FAT_SECTOR;

			if (memcmp(a + i, b + i, m))
				rc = imgp_writeset_write_(fs->capture, part->start + off + i,
							 b + i, m);
		}
		off += n;
		len -= n;
	}
	return rc;
}

/*
 * Capture mode: the write set is every changed sector of what the copy was
 * filled with, and of the clusters that now hold the written files and the
 * directories (a directory may have grown into a free cluster).
 */
static int fat_finish(struct imgp_fs *fs)
{
	struct fat_priv *priv = fs->priv;
	struct imgp_fat_ranges chains = { 0 }, all = { 0 };
	uint8_t *a = NULL, *b = NULL;
	char **names;
	size_t n;
	int rc = 0;

	if (!fs->capture)
		return 0;
	/* Files are only written into directories that exist: no new ones to list. */
	n = priv->ndirs + priv->nwritten;
	names = calloc(n ? n : 1, sizeof(*names));
	if (!names)
		return imgp_fail(ENOMEM, "out of memory");
	memcpy(names, priv->dirs, priv->ndirs * sizeof(*names));
	if (priv->nwritten)
		memcpy(names + priv->ndirs, priv->written, priv->nwritten * sizeof(*names));
	rc = fat_chains_all(fs, priv->drive, names, n, &chains);
	free(names);
	for (size_t i = 0; !rc && i < priv->filled.n; i++)
		rc = imgp_fat_ranges_add_(&all, priv->filled.r[i].file_off, priv->filled.r[i].len);
	for (size_t i = 0; !rc && i < chains.n; i++)
		rc = imgp_fat_ranges_add_(&all, chains.r[i].file_off, chains.r[i].len);
	if (!rc) {
		a = malloc(FAT_CHUNK);
		b = malloc(FAT_CHUNK);
		if (!a || !b)
			rc = imgp_fail(ENOMEM, "out of memory");
	}
	for (size_t i = 0; !rc && i < all.n; i++)
		rc = fat_diff(fs, all.r[i].file_off, all.r[i].len, a, b);
	free(a);
	free(b);
	free(chains.r);
	free(all.r);
	return rc;
}

static void fat_close(struct imgp_fs *fs)
{
	struct fat_priv *priv = fs->priv;

	if (!priv)
		return;
	if (priv->copy_fd >= 0)
		close(priv->copy_fd);
	if (priv->img_fd >= 0)
		close(priv->img_fd);
	free(priv->filled.r);
	fat_listing_drop(&priv->listing);
	imgp_fat_damage_free_(&priv->damage);
	imgp_fs_list_free_(priv->dirs, priv->ndirs);
	imgp_fs_list_free_(priv->written, priv->nwritten);
	free(priv);
}

/* "::/path" as mtools names files on the -i drive. */
int imgp_fat_target_(const char *path, char *out, size_t outlen)
{
	size_t bad = strcspn(path, fat_pattern_chars);
	int n;

	if (path[bad])
		return imgp_fail(EINVAL, "a name with '%c' is not supported on FAT (mtools reads it as a pattern)",
				 path[bad]);
	n = snprintf(out, outlen, "::%s%s", path[0] == '/' ? "" : "/", path);

	if (n < 0 || (size_t)n >= outlen)
		return imgp_fail(ENAMETOOLONG, "path too long");
	return 0;
}

/*
 * mdir -b prints "::/path" for a file, and the children for a directory:
 * returns 1 for a file, 2 for a directory, 0 when missing.
 */
static int fat_stat(struct imgp_fs *fs, const char *target)
{
	struct fat_priv *priv = fs->priv;
	const char *argv[] = { "mdir", "-b", "-a", "-i", priv->drive, target, NULL };
	struct imgp_buf out = { 0 };
	size_t tlen = strlen(target);
	int rc;

	/* The image itself (not a capture's copy): the cached listing answers. */
	if (priv->copy_fd < 0) {
		rc = fat_lookup(fs, target);
		if (rc != -ENOENT)
			return rc;
	}
	rc = imgp_fat_run_(fs, argv, imgp_fat_mtools_env_, &out);
	if (rc) {
		bool missing = strstr(imgp_errmsg(), "not found") != NULL;

		imgp_buf_free(&out);
		if (missing) {
			imgp_errclear_();
			return 0;
		}
		return rc;
	}
	/* mdir may end the name with a newline; compare case-insensitively as FAT does. */
	rc = 2;
	if (out.len >= tlen && strncasecmp((char *)out.data, target, tlen) == 0 &&
	    (out.len == tlen || (out.len == tlen + 1 && out.data[tlen] == '\n')))
		rc = 1;
	imgp_buf_free(&out);
	return rc;
}

/*
 * The mtools name of path, refusing a directory; -ENOENT too unless the
 * file may be missing (it is about to be created).
 */
static int fat_file(struct imgp_fs *fs, const char *path, char *target,
		    size_t len, bool may_be_missing)
{
	int rc = imgp_fat_target_(path, target, len);

	if (rc)
		return rc;
	rc = fat_stat(fs, target);
	if (rc < 0)
		return rc;
	if (rc == 0 && !may_be_missing)
		return imgp_fail(ENOENT, "no such file");
	if (rc == 2)
		return imgp_fail(EISDIR, "is a directory, not a file");
	return 0;
}

static int fat_read_file(struct imgp_fs *fs, const char *path, size_t max,
			 struct imgp_buf *out)
{
	struct fat_priv *priv = fs->priv;
	char target[4200];
	const char *argv[] = { "mtype", "-i", priv->drive, target, NULL };
	int rc;

	/* mtype would print a looped chain's bytes as the file's. */
	rc = imgp_fat_refuse_damage_(fs, path);
	if (!rc)
		rc = fat_file(fs, path, target, sizeof(target), false);
	if (rc)
		return rc;
	rc = imgp_fat_run_(fs, argv, imgp_fat_mtools_env_, out);
	if (rc)
		return rc;
	if (out->len > max)
		return imgp_fail(EFBIG, "file is larger than %zu bytes", max);
	return 0;
}

/* A folder's names from the listing; a file of that name instead is -ENOTDIR. */
static int fat_list_dir(struct imgp_fs *fs, const char *dir, char ***names,
			size_t *n)
{
	char target[4200];
	const char *text;
	size_t tlen;
	int rc, what;

	dir += strspn(dir, "/");
	rc = imgp_fat_refuse_damage_(fs, dir);
	if (!rc)
		rc = imgp_fat_target_(dir, target, sizeof(target) - 1);
	if (rc)
		return rc;
	tlen = strlen(target);
	if (target[tlen - 1] == '/')
		target[--tlen] = '\0';
	what = fat_stat(fs, *dir ? target : "::/");
	if (what < 0)
		return what;
	if (what == 0)
		return imgp_fail(ENOENT, "/%s: no such directory", dir);
	if (what == 1)
		return imgp_fail(ENOTDIR, "/%s: not a directory", dir);
	/* The prefix of the folder's lines: "::/dir/", or "::/" for the root. */
	if (!*dir)
		tlen = 2;
	target[tlen++] = '/';
	target[tlen] = '\0';
	rc = imgp_fat_list_(fs, &text);
	return rc ? rc : imgp_fat_listing_children_(text, target, names, n);
}

/* Capture mode: the files whose clusters the write set must hold. */
static int fat_remember(struct fat_priv *priv, const char *target)
{
	char **grown = realloc(priv->written, (priv->nwritten + 1) * sizeof(*grown));

	if (!grown)
		return imgp_fail(ENOMEM, "out of memory");
	priv->written = grown;
	grown[priv->nwritten] = strdup(target);
	if (!grown[priv->nwritten])
		return imgp_fail(ENOMEM, "out of memory");
	priv->nwritten++;
	return 0;
}

/* A private temporary copy for mcopy to read, its mtime pinned when asked. */
static int fat_stage(const void *data, size_t len, char *tmpl, size_t tmplen)
{
	struct timespec times[2];
	char *path;
	const uint8_t *p = data;
	int64_t epoch;
	int fd, n, err = -imgp_source_date_epoch_(&epoch);

	if (err)
		return -err;
	fd = imgp_temp_make(imgp_tmpdir(), "imgpatch-stage", &path);
	if (fd < 0)
		return fd;
	n = snprintf(tmpl, tmplen, "%s", path);
	if (n < 0 || (size_t)n >= tmplen) {
		close(fd);
		imgp_temp_remove(path);
		free(path);
		return imgp_fail(ENAMETOOLONG, "TMPDIR too long");
	}
	free(path);
	err = -imgp_write_all_(fd, p, len, -1);
	if (err) {
		close(fd);
		imgp_temp_remove(tmpl);
		return imgp_fail(err, "cannot write temporary file %s: %s",
				 tmpl, strerror(err));
	}
	/* Reproducible images: the FAT timestamp comes from SOURCE_DATE_EPOCH. */
	times[0].tv_nsec = times[1].tv_nsec = UTIME_NOW;
	if (epoch >= 0) {
		times[0].tv_sec = times[1].tv_sec = (time_t)epoch;
		times[0].tv_nsec = times[1].tv_nsec = 0;
	}
	if (futimens(fd, times) < 0 || close(fd) < 0) {
		err = errno;
		imgp_temp_remove(tmpl);
		return imgp_fail(err, "temporary file %s: %s", tmpl, strerror(err));
	}
	imgp_test_pause_("stage");
	return 0;
}

static int fat_write_file(struct imgp_fs *fs, const char *path,
			  const void *data, size_t len)
{
	struct fat_priv *priv = fs->priv;
	char target[4200], tmp[4200];
	/* -o replaces the existing entry (long name and 8.3 alias alike). */
	const char *argv[] = { "mcopy", "-o", "-m", "-i", priv->drive, tmp,
			       target, NULL };
	int rc;

	/* In capture mode the folders are known: no mdir run to refuse one. */
	if (priv->copy_fd >= 0) {
		rc = imgp_fat_target_(path, target, sizeof(target));
		for (size_t i = 0; !rc && i < priv->ndirs; i++)
			if (strcasecmp(priv->dirs[i], target) == 0)
				rc = imgp_fail(EISDIR, "is a directory, not a file");
		/*
		 * The folders are known by their long names: a short alias
		 * ("LONGFO~1") is asked of mtools, which would copy into it.
		 */
		if (!rc && strchr(strrchr(target, '/'), '~'))
			rc = fat_stat(fs, target);
		if (rc == 2)
			rc = imgp_fail(EISDIR, "is a directory, not a file");
		rc = rc < 0 ? rc : 0;
	} else {
		rc = fat_file(fs, path, target, sizeof(target), true);
	}
	if (rc)
		return rc;
	rc = fat_stage(data, len, tmp, sizeof(tmp));
	if (rc)
		return rc;
	rc = imgp_fat_run_(fs, argv, imgp_fat_mtools_env_, NULL);
	imgp_temp_remove(tmp);
	/* mcopy wrote to the image itself: what was listed may be gone. */
	if (priv->copy_fd < 0)
		fat_listing_drop(&priv->listing);
	if (!rc && priv->copy_fd >= 0)
		rc = fat_remember(priv, target);
	return rc;
}

/*
 * A long name FAT holds and mtools takes as spelled: no character FAT
 * forbids, none of mtools' wildcards ("*", "?", "[", "]"), and no
 * trailing dot or space, which FAT drops (another name than asked for).
 */
static int fat_name_check(const char *name, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c < 0x20 || c == 0x7f)
			return imgp_fail(EINVAL, "is not a FAT file name: \"%.*s\" holds a control byte",
					 (int)len, name);
		if (strchr("\"*:<>?\\|[]", c))
			return imgp_fail(EINVAL, "is not a FAT file name: \"%.*s\" holds '%c'",
					 (int)len, name, c);
	}
	if (name[len - 1] == '.' || name[len - 1] == ' ')
		return imgp_fail(EINVAL, "is not a FAT file name: \"%.*s\" ends in a %s, which FAT drops",
				 (int)len, name, name[len - 1] == '.' ? "dot" : "space");
	return 0;
}

static int fat_exists(struct imgp_fs *fs, const char *path)
{
	char target[4200];
	int rc = imgp_fat_target_(path, target, sizeof(target));

	if (rc)
		return rc;
	rc = fat_stat(fs, target);
	return rc < 0 ? rc : rc > 0;
}

/*
 * Creates the folder path with mmd, its parent existing; one there is
 * kept. Its entry is dated SOURCE_DATE_EPOCH when set (mtools reads it),
 * as mcopy -m dates a file from its staged copy.
 */
static int fat_mkdir(struct imgp_fs *fs, const char *path)
{
	struct fat_priv *priv = fs->priv;
	char target[4200], epoch_env[48];
	const char *argv[] = { "mmd", "-i", priv->drive, target, NULL };
	const char *env[] = { imgp_fat_mtools_env_[0], imgp_fat_mtools_env_[1], NULL, NULL };
	char **grown;
	int64_t epoch;
	int rc;

	rc = imgp_fat_target_(path, target, sizeof(target));
	if (!rc)
		rc = fat_stat(fs, target);
	if (rc < 0)
		return rc;
	if (rc == 2)
		return 0;
	if (rc == 1)
		return imgp_fail(EEXIST, "exists and is not a directory");
	rc = -imgp_source_date_epoch_(&epoch);
	if (rc)
		return imgp_fail(rc, "SOURCE_DATE_EPOCH: %s", strerror(rc));
	if (epoch >= 0) {
		snprintf(epoch_env, sizeof(epoch_env), "SOURCE_DATE_EPOCH=%lld", (long long)epoch);
		env[2] = epoch_env;
	}
	rc = imgp_fat_run_(fs, argv, env, NULL);
	if (rc)
		return rc;
	if (priv->copy_fd < 0) {
		fat_listing_drop(&priv->listing);
		return 0;
	}
	/* A folder like the others: written into later, its chain compared at the finish. */
	grown = realloc(priv->dirs, (priv->ndirs + 1) * sizeof(*grown));
	if (!grown)
		return imgp_fail(ENOMEM, "out of memory");
	priv->dirs = grown;
	grown[priv->ndirs] = strdup(target);
	if (!grown[priv->ndirs])
		return imgp_fail(ENOMEM, "out of memory");
	priv->ndirs++;
	return 0;
}

int imgp_fat_kind_(struct imgp_fs *fs, const char *target)
{
	return fat_stat(fs, target);
}

/* FAT keeps no owners or permission bits: those a mount gives its files by default. */
static int fat_stat_path(struct imgp_fs *fs, const char *path, struct imgp_fs_stat_ *st)
{
	struct imgp_file_map map = { 0 };
	char target[4200];
	int rc = imgp_fat_target_(path, target, sizeof(target));

	if (rc)
		return rc;
	rc = path[strspn(path, "/")] ? fat_stat(fs, target) : 2;
	if (rc < 0)
		return rc;
	if (rc == 0)
		return imgp_fail(ENOENT, "no such file or folder");
	st->type = rc == 2 ? IMGP_FS_DIR : IMGP_FS_REG;
	st->mode = rc == 2 ? 0755 : 0644;
	st->uid = st->gid = 0;
	st->size = 0;
	if (rc == 2)
		return 0;
	rc = imgp_fat_map_file_(fs, path, &map);
	st->size = map.size;
	imgp_file_map_free_(&map);
	return rc;
}

static int fat_symlink(struct imgp_fs *fs, const char *path, const char *target)
{
	(void)fs;
	(void)path;
	(void)target;
	return imgp_fail(ENOTSUP, "FAT has no symbolic links");
}

static int fat_readlink(struct imgp_fs *fs, const char *path, struct imgp_buf *out)
{
	int rc = fat_exists(fs, path);

	(void)out;
	if (rc < 0)
		return rc;
	return rc ? imgp_fail(EINVAL, "not a symbolic link (FAT has none)")
		  : imgp_fail(ENOENT, "no such file");
}

const struct imgp_fs_ops imgp_fs_fat_ = {
	.name = "vfat",
	.handles = fat_handles,
	.open = fat_open,
	.close = fat_close,
	.read_file = fat_read_file,
	.write_file = fat_write_file,
	.name_check = fat_name_check,
	.exists = fat_exists,
	.symlink = fat_symlink,
	.mkdir = fat_mkdir,
	.readlink = fat_readlink,
	.finish = fat_finish,
	.map_file = imgp_fat_map_file_,
	.list = fat_list_dir,
	.stat = fat_stat_path,
	.remove = imgp_fat_remove_,
};
