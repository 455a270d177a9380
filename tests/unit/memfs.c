// SPDX-License-Identifier: MIT
/*
 * A filesystem in memory and a survey over it (memfs.h): the boot paths'
 * probe and describe read files through struct imgp_fs_ops, so a test or
 * a fuzzer gives them files without making an image.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "memfs.h"
#include "disk/disk.h"

static struct memfs_file *find(const struct memfs *m, const char *path)
{
	for (size_t i = 0; m && i < m->n; i++)
		if (strcmp(m->files[i].path, path) == 0)
			return &m->files[i];
	return NULL;
}

const struct memfs_file *memfs_find(const struct memfs *m, const char *path)
{
	return find(m, path);
}

int memfs_add(struct memfs *m, const char *path, const void *data, size_t len)
{
	struct memfs_file *f = find(m, path), *grown;
	uint8_t *copy = malloc(len ? len : 1);

	if (!copy)
		return -ENOMEM;
	if (len)
		memcpy(copy, data, len);
	if (f) {
		free(f->data);
		f->data = copy;
		f->len = len;
		return 0;
	}
	grown = realloc(m->files, (m->n + 1) * sizeof(*grown));
	if (!grown) {
		free(copy);
		return -ENOMEM;
	}
	m->files = grown;
	f = &m->files[m->n];
	f->path = strdup(path);
	if (!f->path) {
		free(copy);
		return -ENOMEM;
	}
	f->data = copy;
	f->len = len;
	m->n++;
	return 0;
}

int memfs_add_text(struct memfs *m, const char *path, const char *text)
{
	return memfs_add(m, path, text, strlen(text));
}

void memfs_clear(struct memfs *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->files[i].path);
		free(m->files[i].data);
	}
	free(m->files);
	m->files = NULL;
	m->n = 0;
}

/* Whether path is a directory: a prefix of some file's path, up to a '/'. */
static bool is_dir(const struct memfs *m, const char *path)
{
	size_t n = strlen(path);

	if (n && path[n - 1] == '/')
		n--;
	if (n == 0)
		return true;
	for (size_t i = 0; i < m->n; i++)
		if (strncmp(m->files[i].path, path, n) == 0 && m->files[i].path[n] == '/')
			return true;
	return false;
}

static int mem_open(struct imgp_fs *fs)
{
	(void)fs;
	return 0;
}

static void mem_close(struct imgp_fs *fs)
{
	(void)fs;
}

static int mem_read_file(struct imgp_fs *fs, const char *path, size_t max,
			 struct imgp_buf *out)
{
	const struct memfs *m = fs->priv;
	const struct memfs_file *f = find(m, path);

	if (!f)
		return is_dir(m, path) ? imgp_fail(EISDIR, "is a directory") :
					 imgp_fail(ENOENT, "not found");
	if (f->len > max)
		return imgp_fail(EFBIG, "larger than %zu bytes", max);
	out->len = 0;
	return imgp_buf_append(out, f->data, f->len);
}

static int mem_exists(struct imgp_fs *fs, const char *path)
{
	const struct memfs *m = fs->priv;

	return find(m, path) || is_dir(m, path);
}

static int mem_readlink(struct imgp_fs *fs, const char *path, struct imgp_buf *out)
{
	(void)out;
	return mem_exists(fs, path) ? imgp_fail(EINVAL, "not a symbolic link") :
				      imgp_fail(ENOENT, "not found");
}

/* The names in dir: files, and the first component of deeper paths once each. */
static int mem_list(struct imgp_fs *fs, const char *dir, char ***names, size_t *n)
{
	const struct memfs *m = fs->priv;
	size_t dlen = strlen(dir);

	if (dlen && dir[dlen - 1] == '/')
		dlen--;
	if (!is_dir(m, dir))
		return find(m, dir) ? imgp_fail(ENOTDIR, "not a directory") :
				      imgp_fail(ENOENT, "not found");
	for (size_t i = 0; i < m->n; i++) {
		const char *path = m->files[i].path, *name;
		size_t len;
		bool seen = false;

		if (strncmp(path, dir, dlen) != 0 || path[dlen] != '/')
			continue;
		name = path + dlen + 1;
		len = strcspn(name, "/");
		if (!len)
			continue;
		for (size_t k = 0; k < *n && !seen; k++)
			seen = strlen((*names)[k]) == len && strncmp((*names)[k], name, len) == 0;
		if (!seen && imgp_fs_names_add_(names, n, name, len))
			return -ENOMEM;
	}
	return 0;
}

/* Never picked by type: a survey made here sets it on its partitions. */
static bool handles_nothing(const char *fstype)
{
	(void)fstype;
	return false;
}

const struct imgp_fs_ops memfs_ops = {
	.name = "memory",
	.handles = handles_nothing,
	.open = mem_open,
	.close = mem_close,
	.read_file = mem_read_file,
	.exists = mem_exists,
	.readlink = mem_readlink,
	.list = mem_list,
};

/* What survey.c's survey_override finds for a path that honours a hook. */
static void survey_hook_file(struct imgp_survey *sv)
{
	struct imgp_fs *fs = imgp_survey_fs_(sv, sv->boot);
	int rc = fs ? imgp_fs_exists_(fs, IMGP_OVERRIDE_PATH) : 0;

	sv->override.part = sv->boot;
	sv->override.exists = rc > 0;
	sv->override.rc = rc > 0 ? 0 : -ENOENT;
	imgp_errclear_();
}

int memfs_survey(struct imgp_survey *sv, struct imgp_disk *disk, struct memfs *const *fs,
		 const struct imgp_bootpath *const *paths, size_t npaths)
{
	size_t nparts = disk->tab.nparts ? disk->tab.nparts : 1;
	const struct imgp_part *root;
	int rc;

	sv->disk = disk;
	if (!sv->fit_path)
		sv->fit_path = IMGP_FIT_PATH;
	sv->fs = calloc(nparts, sizeof(*sv->fs));
	sv->fs_open = calloc(nparts, sizeof(*sv->fs_open));
	sv->fs_rc = calloc(nparts, sizeof(*sv->fs_rc));
	sv->fs_error = calloc(nparts, sizeof(*sv->fs_error));
	if (!sv->fs || !sv->fs_open || !sv->fs_rc || !sv->fs_error)
		return -ENOMEM;
	for (size_t i = 0; i < disk->tab.nparts; i++) {
		if (!fs[i])
			continue;
		sv->fs[i] = (struct imgp_fs){ .ops = &memfs_ops, .part = &disk->tab.parts[i],
					      .img = &disk->img, .priv = fs[i] };
		sv->fs_open[i] = true;
	}
	/* The root first, as survey.c: a probe may ask whether it mounts the boot partition. */
	rc = imgp_survey_find_(sv, IMGP_FSTAB_PATH, &root, &sv->root_error);
	if (rc == -ENOMEM && !sv->root_error)
		return rc;
	sv->root_rc = rc;
	sv->root = rc ? NULL : root;
	sv->fstab.part = root;
	for (size_t i = 0; i < npaths && !sv->boot; i++) {
		rc = paths[i]->probe(sv);
		if (rc < 0)
			return rc;
		if (rc > 0)
			sv->bootpath = paths[i];
	}
	imgp_errclear_();
	if (!sv->bootpath)
		return 0;
	sv->bootpath_name = sv->bootpath->name;
	rc = imgp_survey_script_(sv);
	if (rc == -ENOMEM)
		return rc;
	if (sv->bootpath->hook)
		survey_hook_file(sv);
	sv->hook = sv->bootpath->hook ? sv->bootpath->hook(sv) : NULL;
	sv->hook_loaded = sv->hook && sv->script.parsed &&
			  imgp_bootscr_mentions_(&sv->script.scr, sv->hook);
	rc = sv->bootpath->describe(sv, &sv->bootinfo);
	imgp_errclear_();
	return rc;
}
