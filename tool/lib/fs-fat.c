// SPDX-License-Identifier: MIT
/*
 * FAT12/16/32 through mtools, run as programs on "IMAGE@@OFFSET" so nothing
 * is mounted. imgpatch itself only reads the boot sector, to refuse a FAT
 * whose geometry does not fit its partition before mtools ever writes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "imgpatch.h"

struct fat_priv {
	char drive[4200];        /* "-i" argument: IMAGE@@OFFSET */
	char copy[4096];         /* capture mode: the private copy mtools writes */
};

/* Chunk of the private copy and of the comparison after it. */
#define FAT_CHUNK ((size_t)1 << 20)
#define FAT_SECTOR 512

/* mtools must not read a user's ~/.mtoolsrc, nor refuse odd geometries. */
static const char *const mtools_env[] = {
	"MTOOLS_SKIP_CHECK=1",
	"MTOOLSRC=/dev/null",
	NULL,
};

static uint16_t get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static bool fat_handles(const char *fstype)
{
	return strcmp(fstype, "vfat") == 0 || strcmp(fstype, "msdos") == 0;
}

/* The boot-sector fields that say how large the filesystem claims to be. */
static int fat_check_geometry(struct imgp_fs *fs)
{
	uint8_t bs[512];
	uint64_t total, bytes;
	unsigned bps;
	int rc;

	rc = imgp_part_read(fs->img, fs->part, 0, bs, sizeof(bs));
	if (rc)
		return rc;
	bps = get_le16(bs + 11);
	if (bps < 512 || bps > 4096 || (bps & (bps - 1)) || bs[13] == 0 ||
	    bs[510] != 0x55 || bs[511] != 0xaa)
		return imgp_fail(EINVAL, "FAT boot sector is invalid (bytes per sector %u, sectors per cluster %u)",
				 bps, bs[13]);
	total = get_le16(bs + 19);
	if (total == 0)
		total = get_le32(bs + 32);
	{
		uint64_t reserved = get_le16(bs + 14), nfats = bs[16];
		uint64_t fatsz = get_le16(bs + 22) ? get_le16(bs + 22) : get_le32(bs + 36);
		uint64_t rootsecs = ((uint64_t)get_le16(bs + 17) * 32 + bps - 1) / bps;

		/* The areas before the data must fit, or mtools reads past them. */
		if (!reserved || !nfats || !fatsz ||
		    reserved + nfats * fatsz + rootsecs >= total)
			return imgp_fail(EINVAL, "FAT geometry is inconsistent: %llu reserved + %llu FATs of %llu sectors + a root directory of %llu sectors leave no data area in %llu sectors",
					 (unsigned long long)reserved, (unsigned long long)nfats,
					 (unsigned long long)fatsz, (unsigned long long)rootsecs,
					 (unsigned long long)total);
	}
	bytes = total * bps;
	if (bytes > fs->part->size)
		return imgp_fail(EINVAL, "FAT filesystem (%llu bytes) is larger than its partition (%llu bytes)",
				 (unsigned long long)bytes,
				 (unsigned long long)fs->part->size);
	return 0;
}

/*
 * Capture mode: mtools cannot be journaled from inside, and which free
 * clusters it takes is its own choice. So it works on a private copy of the
 * partition, and the sectors that differ afterwards are the write set: the
 * journal then knows every byte before the image is touched. The copy skips
 * the image's holes and zero blocks, so it costs what the partition holds.
 */
static bool sector_is_zero(const uint8_t *p, size_t left)
{
	size_t m = left < FAT_SECTOR ? left : FAT_SECTOR;

	return p[0] == 0 && memcmp(p, p + 1, m - 1) == 0;
}

static int fat_copy_partition(struct imgp_fs *fs, const char *dst)
{
	const struct imgp_part *part = fs->part;
	uint8_t *buf = malloc(FAT_CHUNK);
	uint64_t off = 0;
	int fd, rc = 0;

	if (!buf)
		return imgp_fail(ENOMEM, "out of memory");
	fd = open(dst, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return imgp_fail(errno, "%s: %s", dst, strerror(errno));
	}
	while (!rc && off < part->size) {
		size_t n = part->size - off < FAT_CHUNK ? (size_t)(part->size - off) : FAT_CHUNK;
		off_t data = lseek(fs->img->fd, (off_t)(part->start + off), SEEK_DATA);

		/* Skip a hole of the image in one step. */
		if (data >= 0 && (uint64_t)data > part->start + off) {
			off = (uint64_t)data - part->start;
			continue;
		}
		if (data < 0 && errno == ENXIO)
			break;
		rc = imgp_part_read(fs->img, part, off, buf, n);
		/* Runs of non-zero sectors go out in one write each. */
		for (size_t i = 0; !rc && i < n;) {
			size_t run = i;

			while (run < n && !sector_is_zero(buf + run, n - run))
				run += FAT_SECTOR < n - run ? FAT_SECTOR : n - run;
			if (run > i && pwrite(fd, buf + i, run - i, (off_t)(off + i)) != (ssize_t)(run - i))
				rc = imgp_fail(errno ? errno : EIO, "%s: write error", dst);
			i = run;
			while (i < n && sector_is_zero(buf + i, n - i))
				i += FAT_SECTOR < n - i ? FAT_SECTOR : n - i;
		}
		off += n;
	}
	if (!rc && ftruncate(fd, (off_t)part->size) < 0)
		rc = imgp_fail(errno, "%s: %s", dst, strerror(errno));
	close(fd);
	free(buf);
	return rc;
}

static int fat_open(struct imgp_fs *fs)
{
	struct fat_priv *priv;
	const char *tmpdir = getenv("TMPDIR");
	int rc, n, fd;

	if (strstr(fs->img->path, "@@"))
		return imgp_fail(EINVAL, "image path contains '@@', which mtools cannot take");
	rc = fat_check_geometry(fs);
	if (rc)
		return rc;
	priv = calloc(1, sizeof(*priv));
	if (!priv)
		return imgp_fail(ENOMEM, "out of memory");
	fs->priv = priv;
	if (!fs->capture) {
		n = snprintf(priv->drive, sizeof(priv->drive), "%s@@%llu", fs->img->path,
			     (unsigned long long)fs->part->start);
		if (n < 0 || (size_t)n >= sizeof(priv->drive))
			rc = imgp_fail(ENAMETOOLONG, "image path too long");
	} else {
		snprintf(priv->copy, sizeof(priv->copy), "%s/imgpatch-fat-XXXXXX",
			 tmpdir && *tmpdir ? tmpdir : "/tmp");
		fd = mkstemp(priv->copy);
		if (fd < 0) {
			rc = imgp_fail(errno, "cannot create %s: %s", priv->copy, strerror(errno));
			priv->copy[0] = '\0';
		} else {
			close(fd);
			rc = fat_copy_partition(fs, priv->copy);
			snprintf(priv->drive, sizeof(priv->drive), "%s@@0", priv->copy);
		}
	}
	if (rc) {
		if (priv->copy[0])
			unlink(priv->copy);
		free(priv);
		fs->priv = NULL;
	}
	return rc;
}

/* Capture mode: every sector the private copy changed goes into the write set. */
static int fat_finish(struct imgp_fs *fs)
{
	struct fat_priv *priv = fs->priv;
	const struct imgp_part *part = fs->part;
	uint8_t *a, *b;
	uint64_t off = 0;
	int fd, rc = 0;

	if (!fs->capture)
		return 0;
	a = malloc(FAT_CHUNK);
	b = malloc(FAT_CHUNK);
	fd = open(priv->copy, O_RDONLY | O_CLOEXEC);
	if (!a || !b || fd < 0) {
		rc = fd < 0 ? imgp_fail(errno, "%s: %s", priv->copy, strerror(errno))
			    : imgp_fail(ENOMEM, "out of memory");
		goto out;
	}
	while (!rc && off < part->size) {
		size_t n = part->size - off < FAT_CHUNK ? (size_t)(part->size - off) : FAT_CHUNK;
		ssize_t got = pread(fd, b, n, (off_t)off);

		if (got != (ssize_t)n) {
			rc = imgp_fail(EIO, "%s: short read", priv->copy);
			break;
		}
		rc = imgp_part_read(fs->img, part, off, a, n);
		for (size_t i = 0; !rc && i < n; i += FAT_SECTOR) {
			size_t m = n - i < FAT_SECTOR ? n - i : FAT_SECTOR;

			if (memcmp(a + i, b + i, m))
				rc = imgp_writeset_write(fs->capture, part->start + off + i,
							 b + i, m);
		}
		off += n;
	}
out:
	if (fd >= 0)
		close(fd);
	free(a);
	free(b);
	return rc;
}

static void fat_close(struct imgp_fs *fs)
{
	struct fat_priv *priv = fs->priv;

	if (priv && priv->copy[0])
		unlink(priv->copy);
	free(priv);
}

/* "::/path" as mtools names files on the -i drive. */
static int fat_target(const char *path, char *out, size_t outlen)
{
	int n = snprintf(out, outlen, "::%s%s", path[0] == '/' ? "" : "/", path);

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

	rc = imgp_run(argv, mtools_env, &out);
	if (rc) {
		bool missing = strstr(imgp_errmsg(), "not found") != NULL;

		imgp_buf_free(&out);
		if (missing) {
			imgp_errclear();
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
	int rc = fat_target(path, target, len);

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

	rc = fat_file(fs, path, target, sizeof(target), false);
	if (rc)
		return rc;
	rc = imgp_run(argv, mtools_env, out);
	if (rc)
		return rc;
	if (out->len > max)
		return imgp_fail(EFBIG, "file is larger than %zu bytes", max);
	return 0;
}

/* A private temporary copy for mcopy to read, its mtime pinned when asked. */
static int fat_stage(const void *data, size_t len, char *tmpl, size_t tmplen)
{
	const char *dir = getenv("TMPDIR");
	struct timespec times[2];
	const char *epoch = getenv("SOURCE_DATE_EPOCH");
	const uint8_t *p = data;
	int fd, n, err;

	n = snprintf(tmpl, tmplen, "%s/imgpatch-XXXXXX", dir && *dir ? dir : "/tmp");
	if (n < 0 || (size_t)n >= tmplen)
		return imgp_fail(ENAMETOOLONG, "TMPDIR too long");
	fd = mkstemp(tmpl);
	if (fd < 0) {
		err = errno;
		return imgp_fail(err, "cannot create temporary file %s: %s", tmpl,
				 strerror(err));
	}
	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			err = w < 0 ? errno : EIO;
			close(fd);
			unlink(tmpl);
			return imgp_fail(err, "cannot write temporary file %s: %s",
					 tmpl, strerror(err));
		}
		p += w;
		len -= (size_t)w;
	}
	/* Reproducible images: the FAT timestamp comes from SOURCE_DATE_EPOCH. */
	times[0].tv_nsec = times[1].tv_nsec = UTIME_NOW;
	if (epoch && *epoch) {
		times[0].tv_sec = times[1].tv_sec = (time_t)strtoll(epoch, NULL, 10);
		times[0].tv_nsec = times[1].tv_nsec = 0;
	}
	if (futimens(fd, times) < 0 || close(fd) < 0) {
		err = errno;
		unlink(tmpl);
		return imgp_fail(err, "temporary file %s: %s", tmpl, strerror(err));
	}
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

	rc = fat_file(fs, path, target, sizeof(target), true);
	if (rc)
		return rc;
	rc = fat_stage(data, len, tmp, sizeof(tmp));
	if (rc)
		return rc;
	rc = imgp_run(argv, mtools_env, NULL);
	unlink(tmp);
	return rc;
}

static int fat_exists(struct imgp_fs *fs, const char *path)
{
	char target[4200];
	int rc = fat_target(path, target, sizeof(target));

	if (rc)
		return rc;
	rc = fat_stat(fs, target);
	return rc < 0 ? rc : rc > 0;
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

const struct imgp_fs_ops imgp_fs_fat = {
	.name = "vfat",
	.handles = fat_handles,
	.open = fat_open,
	.close = fat_close,
	.read_file = fat_read_file,
	.write_file = fat_write_file,
	.exists = fat_exists,
	.symlink = fat_symlink,
	.readlink = fat_readlink,
	.finish = fat_finish,
};
