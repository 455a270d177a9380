// SPDX-License-Identifier: MIT
/*
 * One card of "imgpatch write", in a process of its own: its own copy of
 * the image patched with its own parameters (one transaction for all the
 * recipes), then the blocks the copy's filesystems use written to the card
 * and read back (imgp_flash). Progress and the result go to the parent
 * through a pipe.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "write.h"

/* A message is one write(2) of at most PIPE_BUF bytes: never interleaved. */
_Static_assert(sizeof(struct card_msg) <= PIPE_BUF, "card_msg fits one pipe write");

struct card_run {
	const struct write_card *card;
	int msg_fd;
	struct card_result res;
	uint64_t done, total;
	struct timespec last;
};

static void send_msg(struct card_run *run, int kind)
{
	struct card_msg msg;
	ssize_t n;

	memset(&msg, 0, sizeof(msg));
	msg.kind = kind;
	msg.done = run->done;
	msg.total = run->total;
	msg.result = run->res;
	/* Smaller than PIPE_BUF: one write, never interleaved. */
	do
		n = write(run->msg_fd, &msg, sizeof(msg));
	while (n < 0 && errno == EINTR);
}

/* A few times a second at most. */
static void progress(struct card_run *run, uint64_t bytes)
{
	struct timespec now;

	run->done += bytes;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if ((now.tv_sec - run->last.tv_sec) * 1000 +
	    (now.tv_nsec - run->last.tv_nsec) / 1000000 < 200)
		return;
	run->last = now;
	send_msg(run, CARD_MSG_PROGRESS);
}

static int fail(struct card_run *run, bool has_offset, uint64_t offset,
		const char *fmt, ...) IMGP_PRINTF(4, 5);

static int fail(struct card_run *run, bool has_offset, uint64_t offset,
		const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(run->res.error, sizeof(run->res.error), fmt, ap);
	va_end(ap);
	cli_names_apply(run->res.error, sizeof(run->res.error));
	run->res.failed = true;
	run->res.has_offset = has_offset;
	run->res.offset = offset;
	return EXIT_ERROR;
}

/*
 * A dry run shows, before the bytes, what this card would get: its
 * parameters (a secret one as "set") and the plan, as apply --dry-run
 * prints it. The cards of a dry run take turns, so nothing comes between
 * its lines.
 */
static int show_plan(const struct write_card *c, struct imgp_patch *patch)
{
	struct imgp_buf text = { 0 };
	int rc = imgp_buf_printf(&text, "%s: parameters:", c->target);

	for (size_t k = 0; !rc && k < c->nrecipes; k++) {
		const struct imgp_recipe_param *params;
		size_t n = imgp_recipe_params(c->recipes[k], &params);

		for (size_t i = 0; !rc && i < n; i++)
			if (params[i].value)
				rc = imgp_buf_printf(&text, " %s=%s", params[i].name,
						     params[i].secret ? "set" : params[i].value);
	}
	if (!rc)
		rc = imgp_buf_printf(&text, "\n");
	if (!rc)
		rc = imgp_patch_describe(patch, &text);
	if (!rc && (fwrite(text.data, 1, text.len, stdout) != text.len || fflush(stdout)))
		rc = -EIO;
	imgp_buf_free(&text);
	return rc;
}

/* The card's settings planned on its copy; what identifies it goes into its result. */
static int customize_copy(struct card_run *run, struct imgp_patch *patch)
{
	const struct write_card *c = run->card;
	struct imgp_custom *custom;
	int rc = cli_custom_for(c->custom, c->each, c->target, &custom);

	if (!rc)
		rc = imgp_custom_plan(custom, patch);
	if (!rc)
		snprintf(run->res.facts, sizeof(run->res.facts), "%s", imgp_custom_facts(custom));
	imgp_custom_free(custom);
	return rc;
}

/* The card's copy of the image with every recipe applied: one commit. */
static int patch_copy(struct card_run *run, char **path)
{
	const struct write_card *c = run->card;
	struct imgp_patch *patch = NULL;
	struct imgp_disk *disk;
	const char *copy;
	int fd, rc;

	fd = imgp_temp_make(imgp_tmpdir(), "imgpatch-card", path);
	if (fd < 0)
		return fail(run, false, 0, "%s", imgp_errmsg());
	close(fd);
	copy = *path;
	/* This card's copy of the user's image: messages name the image. */
	cli_name_copy(copy, cli_name_of(c->image));
	if (imgp_copy_sparse(cli_ctx, c->image, copy) ||
	    imgp_disk_open(&disk, cli_ctx, copy, false))
		return fail(run, false, 0, "%s", imgp_errmsg());
	rc = imgp_patch_new(&patch, disk);
	/* The recipes first, then the settings: as apply, then customize. */
	for (size_t k = 0; !rc && k < c->nrecipes; k++) {
		rc = cli_target_bind(c->recipes[k], c->each, c->target, c->sets, c->nsets);
		if (!rc)
			rc = imgp_recipe_match(c->recipes[k], patch);
		/* A step's failure names the step, not its recipe. */
		if (!rc && (rc = imgp_recipe_apply(c->recipes[k], patch)))
			imgp_fail_ctx(rc, "recipe %s", imgp_recipe_name(c->recipes[k]));
	}
	if (!rc && c->customized)
		rc = customize_copy(run, patch);
	if (!rc && c->dry_run)
		rc = show_plan(c, patch);
	if (!rc)
		rc = imgp_patch_commit(patch, copy, NULL);
	imgp_patch_free(patch);
	imgp_disk_close(disk);
	return rc ? fail(run, false, 0, "%s", imgp_errmsg()) : EXIT_OK;
}

static void flash_progress(uint64_t bytes, void *ctx)
{
	progress(ctx, bytes);
}

/* The map of what this card gets, written and checked (a dry run: only made). */
static int write_and_verify(struct card_run *run, const char *image)
{
	struct imgp_fsmap *map;
	uint64_t bad;
	int rc;

	if (imgp_fsmap_build(cli_ctx, image, &map))
		return fail(run, false, 0, "%s", imgp_errmsg());
	run->res.mapped = imgp_fsmap_mapped(map);
	if (run->card->dry_run) {
		imgp_fsmap_free(map);
		return EXIT_OK;
	}
	run->total = 2 * run->res.mapped;
	send_msg(run, CARD_MSG_PROGRESS);
	rc = imgp_flash(image, map, run->card->path ? run->card->path : run->card->target,
			flash_progress, run, &run->res.written, &bad);
	imgp_fsmap_free(map);
	return rc ? fail(run, bad != UINT64_MAX, bad, "%s", imgp_errmsg()) : EXIT_OK;
}

int write_card_run(const struct write_card *card, int fd)
{
	struct card_run run = { .card = card, .msg_fd = fd };
	char *copy = NULL;
	int rc = EXIT_OK;

	/* The parent shows progress; library progress would garble it. */
	cli_quiet = true;
	if (card->nrecipes || card->customized)
		rc = patch_copy(&run, &copy);
	if (!rc)
		rc = write_and_verify(&run, copy ? copy : card->image);
	if (copy) {
		imgp_temp_remove(copy);
		free(copy);
	}
	run.res.done = true;
	send_msg(&run, CARD_MSG_RESULT);
	close(fd);
	return rc;
}
