// SPDX-License-Identifier: MIT
/*
 * The undo journal of an in-place commit. Before the first byte of the
 * image is written, every region about to be overwritten is saved here
 * with its offset and the SHA-256 of its old and new content, and synced;
 * then the image is written and synced; then the journal is marked done.
 * imgpatch undo puts the old bytes back and checks every region's hash.
 *
 * The done mark is not synced: the image's sync already made the run
 * final, and a ready journal whose every region holds its new content
 * belongs to a run that finished, whose mark a power cut lost. Only the
 * journal, its folder (a new file's name) and the image are synced.
 *
 * The journal is synced once: its header says "being written" while the
 * regions are added, then "ready" with the length and CRC-32 of everything
 * after it, and only then is the file synced. A run killed before that sync
 * leaves "being written" or a complete journal; a power cut during it may
 * leave "ready" over regions that never reached the disk, which the CRC
 * tells apart: the image is written only after the sync, so such a journal
 * has nothing to restore.
 *
 * A journal is bound to its image: the header records the image's size and
 * its partition table's disk identifier (the GPT disk GUID or the MBR disk
 * id, which a card keeps whatever device node it gets), and undo refuses an
 * image that differs in either, or whose regions hold neither their old nor
 * their new content, before the first byte is restored. The journal is
 * created exclusively and never through a symbolic link.
 *
 * Layout: a 4096-byte header, then per region: offset (u64), length (u64),
 * SHA-256 of the old bytes, SHA-256 of the new bytes, the old bytes.
 * Integers are little-endian. Version 1 had no identity (it reads as ""),
 * versions 1 and 2 no length and CRC of the regions (they read as zero).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nettle/sha2.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "fs/fs.h"
#include "patch/patch.h"
#include "core/io.h"
#include "core/endian.h"

#define JOURNAL_MAGIC "IMGPUNDO"
#define JOURNAL_VERSION 3
#define HEADER_SIZE 4096
#define ENTRY_SIZE (8 + 8 + 32 + 32)
#define IDENTITY_SIZE 64
/* Read at a time when the regions' CRC is checked. */
#define JOURNAL_CHUNK ((size_t)1 << 20)

enum journal_state {
	STATE_WRITING = 1,       /* being written: the image is untouched */
	STATE_READY = 2,         /* complete and synced: image writes may have begun */
	STATE_DONE = 3,          /* every image write done and synced */
	STATE_UNDONE = 4,        /* the old bytes were put back */
};

struct journal_header {
	char magic[8];
	uint8_t version[4];
	uint8_t state[4];
	uint8_t target_size[8];
	uint8_t nregions[8];
	uint8_t crc[4];          /* of the header with this field zero */
	char target[HEADER_SIZE - 48 - IDENTITY_SIZE]; /* the image's path */
	uint8_t body_len[8];     /* version 3: bytes of regions after the header */
	uint8_t body_crc[4];     /* version 3: their CRC-32, set when ready */
	char identity[IDENTITY_SIZE]; /* "dos disk 0x1234abcd", "gpt disk <guid>" */
};
_Static_assert(sizeof(struct journal_header) == HEADER_SIZE, "journal header size");

struct imgp_journal {
	char *path;
	int fd;
	struct journal_header hdr;
};

static void sha256(const void *data, size_t len, uint8_t out[32])
{
	struct sha256_ctx ctx;

	sha256_init(&ctx);
	sha256_update(&ctx, len, data);
	sha256_digest(&ctx, 32, out);
}

static int write_at(int fd, const char *path, uint64_t off, const void *data,
		    size_t len)
{
	int rc = imgp_write_all_(fd, data, len, (off_t)off);

	if (rc)
		return imgp_fail(-rc, "undo journal %s: %s", path, strerror(-rc));
	imgp_fault_point_();
	return 0;
}

static int sync_fd(int fd, const char *path)
{
	if (fsync(fd) < 0)
		return imgp_fail(errno, "undo journal %s: fsync: %s", path, strerror(errno));
	return 0;
}

/* Writes the header in state; synced when sync says so. */
static int header_write(struct imgp_journal *j, enum journal_state state, bool sync)
{
	int rc;

	put_le32(j->hdr.state, state);
	memset(j->hdr.crc, 0, sizeof(j->hdr.crc));
	put_le32(j->hdr.crc, imgp_crc32_(0, &j->hdr, sizeof(j->hdr)));
	rc = write_at(j->fd, j->path, 0, &j->hdr, sizeof(j->hdr));
	return rc || !sync ? rc : sync_fd(j->fd, j->path);
}

static int header_read(int fd, const char *path, struct journal_header *hdr)
{
	uint32_t crc;
	ssize_t n = imgp_read_all_(fd, hdr, sizeof(*hdr), 0);

	if (n != (ssize_t)sizeof(*hdr) || memcmp(hdr->magic, JOURNAL_MAGIC, 8))
		return imgp_fail(EINVAL, "%s is not an imgpatch undo journal", path);
	crc = (uint32_t)get_le32(hdr->crc);
	memset(hdr->crc, 0, sizeof(hdr->crc));
	if (imgp_crc32_(0, hdr, sizeof(*hdr)) != crc)
		return imgp_fail(EINVAL, "undo journal %s: header checksum mismatch (damaged)", path);
	put_le32(hdr->crc, crc);
	hdr->target[sizeof(hdr->target) - 1] = '\0';
	hdr->identity[sizeof(hdr->identity) - 1] = '\0';
	if (get_le32(hdr->version) != 1 && get_le32(hdr->version) != JOURNAL_VERSION)
		return imgp_fail(EINVAL, "undo journal %s: version %llu is not supported",
				 path, (unsigned long long)get_le32(hdr->version));
	return 0;
}

/*
 * Whether a ready journal's regions are not what its header says they are
 * (version 3; older ones are taken as whole): 1 torn, 0 whole, or -errno.
 */
static int body_torn(const struct imgp_journal *j, uint64_t file_size)
{
	uint64_t len = get_le64(j->hdr.body_len), off = 0;
	uint32_t crc = 0;
	uint8_t *buf;
	int rc = 0;

	if (get_le32(j->hdr.version) < 3)
		return 0;
	if (file_size < HEADER_SIZE || len > file_size - HEADER_SIZE)
		return 1;
	buf = malloc(JOURNAL_CHUNK);
	if (!buf)
		return imgp_fail(ENOMEM, "out of memory");
	while (!rc && off < len) {
		size_t n = len - off < JOURNAL_CHUNK ? (size_t)(len - off) : JOURNAL_CHUNK;

		if (imgp_read_all_(j->fd, buf, n, (off_t)(HEADER_SIZE + off)) != (ssize_t)n)
			rc = imgp_fail(EIO, "undo journal %s: read error", j->path);
		crc = imgp_crc32_(crc, buf, n);
		off += n;
	}
	free(buf);
	return rc ? rc : crc != get_le32(j->hdr.body_crc);
}

/* Makes the journal's directory entry durable too. */
static void sync_dir(const char *path)
{
	char *copy = strdup(path), *slash;
	int fd;

	if (!copy)
		return;
	slash = strrchr(copy, '/');
	if (slash == copy)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	fd = open(slash ? copy : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(copy);
}

/*
 * Opens a journal, never through a symbolic link: a link could make undo
 * write its state into any file the user can write. Returns an fd or -errno.
 */
static int journal_open(const char *path, int flags)
{
	int fd = open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	int err;

	if (fd < 0 && errno == ELOOP)
		return imgp_fail(ELOOP, "undo journal %s is a symbolic link: not following it",
				 path);
	if (fd < 0) {
		err = errno;
		return imgp_fail(err, "undo journal %s: %s", path, strerror(err));
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return imgp_fail(EINVAL, "undo journal %s is not a regular file", path);
	}
	return fd;
}

/*
 * What identifies an image apart from its size: its partition table's
 * disk identifier. A device name does not: another card may get it.
 */
static void image_identity(const struct imgp_image *img, char *out, size_t len)
{
	struct imgp_table tab;

	if (imgp_table_read_(img, &tab)) {
		imgp_errclear_();
		snprintf(out, len, "no partition table");
		return;
	}
	snprintf(out, len, "%s disk %s", tab.label, tab.id);
	imgp_table_free_(&tab);
}

/* Refuses an image the journal was not made for (version 1: size only). */
static int check_identity(const char *path, const struct journal_header *hdr,
			  const struct imgp_image *img)
{
	unsigned long long want = get_le64(hdr->target_size);
	char have[IDENTITY_SIZE];

	image_identity(img, have, sizeof(have));
	if (want == img->size && (!hdr->identity[0] || !strcmp(hdr->identity, have)))
		return 0;
	if (!hdr->identity[0])
		return imgp_fail(EINVAL, "undo journal %s was made for %s (%llu bytes), not this image (%llu bytes)",
				 path, hdr->target, want, (unsigned long long)img->size);
	return imgp_fail(EINVAL, "undo journal %s was made for %s (%s, %llu bytes), not this image (%s, %llu bytes)",
			 path, hdr->target, hdr->identity, want, have,
			 (unsigned long long)img->size);
}

/*
 * Whether every region of a whole journal (fd, file_size bytes) holds its
 * new content in img: the image was written whole, so the run finished
 * even if its done mark never reached the disk. 1 yes, 0 no (a region
 * differs, or the journal is not img's or is damaged), or -errno.
 */
static int regions_hold_new(int fd, const char *path, const struct journal_header *hdr,
			    uint64_t file_size, const struct imgp_image *img)
{
	uint64_t off = HEADER_SIZE, n = get_le64(hdr->nregions);
	uint8_t entry[ENTRY_SIZE], hash[32];
	uint8_t *buf;
	int rc = 1;

	if (check_identity(path, hdr, img)) {
		imgp_errclear_();
		return 0;
	}
	buf = malloc(JOURNAL_CHUNK);
	if (!buf)
		return imgp_fail(ENOMEM, "out of memory");
	for (uint64_t i = 0; i < n && rc == 1; i++) {
		uint64_t roff, rlen, done = 0;
		struct sha256_ctx sha;

		if (imgp_read_all_(fd, entry, sizeof(entry), (off_t)off) != (ssize_t)sizeof(entry)) {
			rc = 0;
			break;
		}
		roff = get_le64(entry);
		rlen = get_le64(entry + 8);
		if (rlen > file_size || off + ENTRY_SIZE + rlen > file_size ||
		    roff > img->size || rlen > img->size - roff) {
			rc = 0;
			break;
		}
		sha256_init(&sha);
		while (rc == 1 && done < rlen) {
			size_t len = rlen - done < JOURNAL_CHUNK ? (size_t)(rlen - done) : JOURNAL_CHUNK;

			rc = imgp_image_read_(img, roff + done, buf, len);
			if (!rc) {
				sha256_update(&sha, len, buf);
				rc = 1;
			}
			done += len;
		}
		if (rc == 1) {
			sha256_digest(&sha, sizeof(hash), hash);
			rc = !memcmp(hash, entry + 48, sizeof(hash));
		}
		off += ENTRY_SIZE + rlen;
	}
	free(buf);
	return rc;
}

/*
 * Whether the journal open as fd ends an interrupted run: 1 when it is
 * being written, or ready and img (NULL: the image at image, opened
 * read-only) was not written whole; 0 when the run finished; -errno.
 */
static int journal_interrupted(int fd, const char *path, const struct journal_header *hdr,
			       const struct imgp_image *img, const char *image)
{
	struct imgp_image own;
	struct stat st;
	int rc;

	if (get_le32(hdr->state) == STATE_WRITING)
		return 1;
	if (get_le32(hdr->state) != STATE_READY)
		return 0;
	if (fstat(fd, &st) < 0)
		return imgp_fail(errno, "undo journal %s: %s", path, strerror(errno));
	if (!img) {
		/* An image not named, or that does not open, is not shown to be whole. */
		if (!image || imgp_image_open_(&own, image, false)) {
			imgp_errclear_();
			return 1;
		}
		img = &own;
	}
	rc = regions_hold_new(fd, path, hdr, (uint64_t)st.st_size, img);
	if (img == &own)
		imgp_image_close_(&own);
	return rc < 0 ? rc : !rc;
}

int imgp_journal_touched_(const char *path, const struct imgp_image *img,
			 const struct imgp_extent *ext, size_t n)
{
	struct journal_header hdr;
	uint8_t entry[ENTRY_SIZE];
	uint64_t off = HEADER_SIZE, nregions;
	struct stat st;
	int fd = journal_open(path, O_RDONLY), rc = 0;

	if (fd < 0) {
		imgp_errclear_();
		return 0;
	}
	/* Only a finished run of this image: an undone one left the old bytes. */
	if (header_read(fd, path, &hdr) || fstat(fd, &st) < 0 ||
	    (get_le32(hdr.state) != STATE_DONE && get_le32(hdr.state) != STATE_READY) ||
	    check_identity(path, &hdr, img) ||
	    journal_interrupted(fd, path, &hdr, img, NULL)) {
		imgp_errclear_();
		close(fd);
		return 0;
	}
	nregions = get_le64(hdr.nregions);
	for (uint64_t i = 0; i < nregions && !rc; i++) {
		uint64_t roff, rlen;

		if (imgp_read_all_(fd, entry, sizeof(entry), (off_t)off) != (ssize_t)sizeof(entry))
			break;
		roff = get_le64(entry);
		rlen = get_le64(entry + 8);
		if (rlen > (uint64_t)st.st_size || off + ENTRY_SIZE + rlen > (uint64_t)st.st_size)
			break;
		for (size_t e = 0; e < n && !rc; e++)
			rc = roff < ext[e].img_off + ext[e].len && ext[e].img_off < roff + rlen;
		off += ENTRY_SIZE + rlen;
	}
	close(fd);
	return rc;
}

int imgp_journal_check_(const char *path, const char *image)
{
	struct journal_header hdr;
	int fd = journal_open(path, O_RDONLY);
	int rc;

	if (fd == -ENOENT) {
		imgp_errclear_();
		return 0;
	}
	if (fd < 0)
		return fd;
	rc = header_read(fd, path, &hdr);
	if (!rc)
		rc = journal_interrupted(fd, path, &hdr, NULL, image);
	close(fd);
	if (rc < 0)
		return rc;
	if (rc)
		return imgp_fail(EBUSY, "an interrupted imgpatch run on %s left %s: run 'imgpatch undo' on the image first (or give --recover)",
				 hdr.target, path);
	return 0;
}

/*
 * Makes room for a new journal at path: nothing there, or a finished
 * journal (removed). Anything else is refused, never overwritten.
 */
static int journal_make_room(const char *path, const struct imgp_image *img)
{
	struct journal_header hdr;
	struct stat st;
	int fd, rc;

	if (lstat(path, &st) < 0 && errno == ENOENT)
		return 0;
	fd = journal_open(path, O_RDONLY);
	if (fd < 0)
		return fd;
	rc = header_read(fd, path, &hdr);
	if (rc) {
		close(fd);
		return imgp_fail(EEXIST, "%s exists and is not an imgpatch undo journal: not overwriting it",
				 path);
	}
	rc = journal_interrupted(fd, path, &hdr, img, NULL);
	close(fd);
	if (rc < 0)
		return rc;
	if (rc)
		return imgp_fail(EBUSY, "an interrupted imgpatch run on %s left %s: run 'imgpatch undo' on that image first",
				 hdr.target, path);
	if (unlink(path) < 0)
		return imgp_fail(errno, "undo journal %s: %s", path, strerror(errno));
	return 0;
}

int imgp_journal_begin_(const char *path, const struct imgp_image *img,
		       const struct imgp_range *ranges, size_t n,
		       struct imgp_journal **out)
{
	struct imgp_journal *j = calloc(1, sizeof(*j));
	uint8_t entry[ENTRY_SIZE];
	uint64_t off = HEADER_SIZE;
	uint8_t *old = NULL;
	uint32_t crc = 0;
	int rc = 0;

	if (!j || !(j->path = strdup(path))) {
		free(j);
		return imgp_fail(ENOMEM, "out of memory");
	}
	rc = journal_make_room(path, img);
	/* O_EXCL: a link or file put there since is refused, not followed. */
	j->fd = rc ? -1 : open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (j->fd < 0) {
		if (!rc)
			rc = imgp_fail(errno, "cannot create the undo journal %s: %s", path,
				       strerror(errno));
		free(j->path);
		free(j);
		return rc;
	}
	image_identity(img, j->hdr.identity, sizeof(j->hdr.identity));
	memcpy(j->hdr.magic, JOURNAL_MAGIC, 8);
	put_le32(j->hdr.version, JOURNAL_VERSION);
	put_le64(j->hdr.target_size, img->size);
	put_le64(j->hdr.nregions, n);
	snprintf(j->hdr.target, sizeof(j->hdr.target), "%s", img->path);
	rc = header_write(j, STATE_WRITING, false);
	for (size_t i = 0; !rc && i < n; i++) {
		uint8_t *grown = realloc(old, ranges[i].len ? ranges[i].len : 1);

		if (!grown) {
			rc = imgp_fail(ENOMEM, "out of memory");
			break;
		}
		old = grown;
		rc = imgp_image_read_(img, ranges[i].off, old, ranges[i].len);
		if (rc)
			break;
		put_le64(entry, ranges[i].off);
		put_le64(entry + 8, ranges[i].len);
		sha256(old, ranges[i].len, entry + 16);
		sha256(ranges[i].data, ranges[i].len, entry + 48);
		rc = write_at(j->fd, path, off, entry, sizeof(entry));
		if (!rc)
			rc = write_at(j->fd, path, off + ENTRY_SIZE, old, ranges[i].len);
		crc = imgp_crc32_(imgp_crc32_(crc, entry, sizeof(entry)), old, ranges[i].len);
		off += ENTRY_SIZE + ranges[i].len;
	}
	free(old);
	put_le64(j->hdr.body_len, off - HEADER_SIZE);
	put_le32(j->hdr.body_crc, crc);
	/* One sync for regions and header: the image is written only after it. */
	if (!rc)
		rc = header_write(j, STATE_READY, true);
	if (!rc)
		sync_dir(path);
	if (!rc)
		imgp_test_pause_("journal");
	if (rc) {
		close(j->fd);
		unlink(path);
		free(j->path);
		free(j);
		return rc;
	}
	*out = j;
	return 0;
}

int imgp_journal_done_(struct imgp_journal *j)
{
	/* Unsynced: a lost mark reads as done from the image (journal_interrupted). */
	int rc = header_write(j, STATE_DONE, false);

	close(j->fd);
	free(j->path);
	free(j);
	return rc;
}

void imgp_journal_abandon_(struct imgp_journal *j)
{
	if (!j)
		return;
	close(j->fd);
	free(j->path);
	free(j);
}

/*
 * Undo, stage 1: the regions, in two passes. The first, before anything
 * is restored, checks that every region is readable and holds its old or
 * its new content: after an interruption each region was written whole or
 * not at all, and anything else means another image, or one that moved on.
 * The second writes back every region that does not hold its old bytes.
 */
static int undo_regions(const struct imgp_journal *j, struct imgp_image *img,
			uint64_t journal_size, bool force, size_t *restored,
			uint64_t *bytes)
{
	uint64_t n = get_le64(j->hdr.nregions), state = get_le32(j->hdr.state);
	uint8_t entry[ENTRY_SIZE], hash[32];
	uint8_t *old = NULL, *cur = NULL;
	int rc = 0;

	for (int pass = 0; pass < 2 && !rc; pass++) {
		uint64_t off = HEADER_SIZE;

		for (uint64_t i = 0; i < n && !rc; i++) {
			uint64_t roff, rlen;

			if (imgp_read_all_(j->fd, entry, sizeof(entry), (off_t)off) != (ssize_t)sizeof(entry)) {
				rc = imgp_fail(EINVAL, "undo journal %s: region %llu is missing (truncated journal)",
					       j->path, (unsigned long long)i);
				break;
			}
			roff = get_le64(entry);
			rlen = get_le64(entry + 8);
			if (rlen > ((uint64_t)1 << 30) || off + ENTRY_SIZE + rlen > journal_size ||
			    roff > img->size || rlen > img->size - roff) {
				rc = imgp_fail(EINVAL, "undo journal %s: region %llu is damaged",
					       j->path, (unsigned long long)i);
				break;
			}
			free(old);
			free(cur);
			old = malloc(rlen ? rlen : 1);
			cur = malloc(rlen ? rlen : 1);
			if (!old || !cur) {
				rc = imgp_fail(ENOMEM, "out of memory");
				break;
			}
			if (imgp_read_all_(j->fd, old, rlen, (off_t)(off + ENTRY_SIZE)) != (ssize_t)rlen) {
				rc = imgp_fail(EIO, "undo journal %s: read error", j->path);
				break;
			}
			sha256(old, rlen, hash);
			if (memcmp(hash, entry + 16, 32)) {
				rc = imgp_fail(EINVAL, "undo journal %s: region %llu does not match its checksum",
					       j->path, (unsigned long long)i);
				break;
			}
			rc = imgp_image_read_(img, roff, cur, rlen);
			if (rc)
				break;
			sha256(cur, rlen, hash);
			if (pass == 0) {
				bool known = !memcmp(hash, entry + 48, 32) ||
					     !memcmp(hash, entry + 16, 32);

				if (!known && !force && state == STATE_DONE)
					rc = imgp_fail(EEXIST, "the image changed since it was patched (bytes %llu-%llu): not undoing (--force does it anyway)",
						       (unsigned long long)roff,
						       (unsigned long long)(roff + rlen - 1));
				else if (!known && !force)
					rc = imgp_fail(EEXIST, "bytes %llu-%llu hold neither the content before nor after the run that left undo journal %s (for %s): not undoing (--force does it anyway)",
						       (unsigned long long)roff,
						       (unsigned long long)(roff + rlen - 1),
						       j->path, j->hdr.target);
			} else if (memcmp(hash, entry + 16, 32)) {
				rc = imgp_image_write_(img, roff, old, rlen);
				if (!rc) {
					imgp_fault_point_();
					(*restored)++;
					*bytes += rlen;
				}
			}
			off += ENTRY_SIZE + rlen;
		}
		if (!rc && pass == 1)
			rc = imgp_image_sync_(img);
	}
	free(old);
	free(cur);
	return rc;
}

/* Undo, stage 2: every region now holds its old bytes. */
static int undo_verify(const struct imgp_journal *j, struct imgp_image *img)
{
	uint64_t off = HEADER_SIZE, n = get_le64(j->hdr.nregions);
	uint8_t entry[ENTRY_SIZE], hash[32];
	uint8_t *cur = NULL;
	int rc = 0;

	for (uint64_t i = 0; i < n && !rc; i++) {
		uint64_t roff, rlen;

		if (imgp_read_all_(j->fd, entry, sizeof(entry), (off_t)off) != (ssize_t)sizeof(entry))
			break;
		roff = get_le64(entry);
		rlen = get_le64(entry + 8);
		free(cur);
		cur = malloc(rlen ? rlen : 1);
		if (!cur) {
			rc = imgp_fail(ENOMEM, "out of memory");
			break;
		}
		rc = imgp_image_read_(img, roff, cur, rlen);
		sha256(cur, rlen, hash);
		if (!rc && memcmp(hash, entry + 16, 32))
			rc = imgp_fail(EIO, "bytes %llu-%llu do not read back as they were after undo",
				       (unsigned long long)roff,
				       (unsigned long long)(roff + rlen - 1));
		off += ENTRY_SIZE + rlen;
	}
	free(cur);
	return rc;
}

static int journal_undo(const char *path, struct imgp_image *img, bool force,
			size_t *restored, uint64_t *bytes)
{
	struct imgp_journal j = { .path = (char *)path };
	uint64_t state;
	struct stat st;
	int rc;

	*restored = 0;
	*bytes = 0;
	j.fd = journal_open(path, O_RDWR);
	if (j.fd < 0)
		return j.fd;
	rc = header_read(j.fd, path, &j.hdr);
	if (!rc && fstat(j.fd, &st) < 0)
		rc = imgp_fail(errno, "undo journal %s: %s", path, strerror(errno));
	/* In every state: a journal never touches an image it was not made for. */
	if (!rc)
		rc = check_identity(path, &j.hdr, img);
	if (rc)
		goto out;
	state = get_le32(j.hdr.state);
	if (state == STATE_UNDONE) {
		rc = imgp_fail(EALREADY, "undo journal %s was already undone", path);
		goto out;
	}
	/* A journal still being written means the image was never touched. */
	if (state == STATE_WRITING)
		goto mark;
	/* Nor does one whose regions never reached the disk (a power cut). */
	if (state == STATE_READY) {
		rc = body_torn(&j, (uint64_t)st.st_size);
		if (rc > 0) {
			rc = 0;
			goto mark;
		}
		if (rc)
			goto out;
	}
	rc = undo_regions(&j, img, (uint64_t)st.st_size, force, restored, bytes);
	if (!rc)
		rc = undo_verify(&j, img);
mark:
	if (!rc)
		rc = header_write(&j, STATE_UNDONE, true);
out:
	close(j.fd);
	return rc;
}

int imgp_journal_restore_(const char *path, const char *image, bool force,
			 size_t *restored, uint64_t *bytes)
{
	struct imgp_image img;
	int rc;

	*restored = 0;
	*bytes = 0;
	rc = imgp_image_open_(&img, image, true);
	if (rc)
		return rc;
	rc = journal_undo(path, &img, force, restored, bytes);
	imgp_image_close_(&img);
	return rc;
}

int imgp_journal_undo(const char *path, const char *image, bool force,
		      size_t *restored, uint64_t *bytes)
{
	int lock = imgp_lock_(image), rc;

	*restored = 0;
	*bytes = 0;
	if (lock < 0)
		return lock;
	rc = imgp_journal_restore_(path, image, force, restored, bytes);
	imgp_unlock_(lock);
	return rc;
}

static bool is_blockdev(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISBLK(st.st_mode);
}

char *imgp_journal_path(const char *image)
{
	char *path = NULL, *copy;

	/* Not beside a device node in /dev: in the current folder instead. */
	if (is_blockdev(image)) {
		copy = strdup(image);
		if (copy && asprintf(&path, "%s.imgpatch-undo", basename(copy)) < 0)
			path = NULL;
		free(copy);
		return path;
	}
	return asprintf(&path, "%s.imgpatch-undo", image) < 0 ? NULL : path;
}
