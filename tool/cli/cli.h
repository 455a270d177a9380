/* SPDX-License-Identifier: MIT */
/* The command line: one file per subcommand, messages through die/error/warning. */
#ifndef IMGP_CLI_H
#define IMGP_CLI_H

#include "imgpatch.h"

/* Exit statuses (documented in README.md). */
#define EXIT_OK 0
#define EXIT_ERROR 1
#define EXIT_USAGE 2

/* "imgpatch: " + message + newline on stderr; die() exits with EXIT_ERROR. */
void error(const char *fmt, ...) IMGP_PRINTF(1, 2);
void warning(const char *fmt, ...) IMGP_PRINTF(1, 2);
__attribute__((noreturn)) void die(const char *fmt, ...) IMGP_PRINTF(1, 2);
/* Prints "imgpatch: <subject>: <library failure message>" and returns EXIT_ERROR. */
int error_lib(const char *subject);
/* Usage error: message plus a hint to --help; returns EXIT_USAGE. */
int usage_error(const char *cmd, const char *fmt, ...) IMGP_PRINTF(2, 3);

/* --quiet: no progress lines even on a terminal. */
extern bool cli_quiet;

/* An array of n elements grown by one (dies when out of memory). */
void *cli_grow(void *p, size_t n, size_t size);

/* True when stderr is a terminal (progress lines are shown only then). */
bool cli_stderr_is_tty(void);

/* Input and output of the writing commands (image-io.c). */
struct cli_io {
	const char *image;        /* IMAGE as given */
	const char *out;          /* -o OUT */
	const char *bmap;         /* --bmap FILE */
	bool in_place;            /* --in-place: recompress over a compressed IMAGE */
	bool dry_run;
	bool compress_set;        /* --compress given */
	struct imgp_pack_opts pack;
	enum imgp_format in_fmt;  /* detected by content */
	char *work;               /* the raw image the patch is planned on */
	bool work_is_temp;
	const char *undo;         /* --undo FILE: the journal of an in-place commit */
	bool recover;             /* --recover: undo an interrupted run first */
	char *journal;            /* the journal path in use (in place only) */
	int lock_fd;              /* the image's lock, in place only */
	struct imgp_xz_image *xz; /* a multi-block .xz patched block-wise */
};

/* The options every writing command takes, for getopt_long tables. */
enum {
	CLI_OPT_COMPRESS = 512, CLI_OPT_LEVEL, CLI_OPT_THREADS, CLI_OPT_BMAP,
	CLI_OPT_IN_PLACE, CLI_OPT_QUIET, CLI_OPT_UNDO, CLI_OPT_RECOVER,
};
#define CLI_IO_OPTIONS                                                        \
	{ "output", required_argument, NULL, 'o' },                           \
	{ "dry-run", no_argument, NULL, 'n' },                                \
	{ "compress", required_argument, NULL, CLI_OPT_COMPRESS },            \
	{ "level", required_argument, NULL, CLI_OPT_LEVEL },                  \
	{ "threads", required_argument, NULL, CLI_OPT_THREADS },              \
	{ "bmap", required_argument, NULL, CLI_OPT_BMAP },                    \
	{ "in-place", no_argument, NULL, CLI_OPT_IN_PLACE },                 \
	{ "quiet", no_argument, NULL, CLI_OPT_QUIET },                       \
	{ "undo", required_argument, NULL, CLI_OPT_UNDO },                   \
	{ "recover", no_argument, NULL, CLI_OPT_RECOVER }
#define CLI_IO_HELP                                                           \
	"  -o, --output OUT       write a patched copy to OUT, leave IMAGE untouched;\n"   \
	"                         compressed when OUT ends in .xz .gz .zst .bz2 .lz4\n"    \
	"  --compress FMT         output format: xz, zst, gz, bz2, lz4 or none\n"          \
	"  --level N              compression level\n"                                    \
	"  --threads N            compression threads (0: all cores)\n"                   \
	"  --bmap FILE            also write a bmaptool block map of the output\n"         \
	"  --in-place             recompress over a compressed IMAGE\n"                    \
	"  -n, --dry-run          print the plan as diffs, write nothing\n"        \
	"  --quiet                no progress lines, even on a terminal\n"        \
	"  --undo FILE            undo journal of an in-place run (default\n"     \
	"                         IMAGE.imgpatch-undo; for a device, in this folder)\n" \
	"  --recover              first undo what an interrupted run left\n"

void cli_io_init(struct cli_io *io);
/*
 * Takes one of the CLI_IO_OPTIONS; returns 1 when c was one of them, 0 when
 * not, or EXIT_USAGE (after a message) for a bad value.
 */
int cli_io_option(struct cli_io *io, const char *cmd, int c, const char *arg);
/* Sets --compress by name; -1 for an unknown one. */
int cli_io_parse_compress(struct cli_io *io, const char *name);
/*
 * Checks the options against IMAGE's format (detected by content) and
 * unpacks a compressed or archived IMAGE into a working copy beside the
 * output. io->work is then the raw image to plan on. Returns an exit status.
 */
int cli_io_open(struct cli_io *io, const char *cmd);
/*
 * Prints the plan, then writes nothing (--dry-run), the image in place, or
 * the output: sparse raw or compressed, made under a temporary name in its
 * folder and renamed when complete, and the bmap. Returns an exit status.
 */
int cli_io_commit(struct cli_io *io, struct imgp_patch *patch);
/* Removes the working copy, if it was a temporary one. */
void cli_io_close(struct cli_io *io);

/* The recipe search path (recipe-path.c), NULL-terminated. */
struct cli_recipe_path {
	char **dirs;
	size_t n;
};
void cli_recipe_path_init(struct cli_recipe_path *rp, char *const *extra,
			  size_t nextra);
void cli_recipe_path_free(struct cli_recipe_path *rp);

/* apply's options (cmd-apply.c), shared with batch.c. */
struct cli_apply {
	const char *recipe;
	const char *const *images;
	size_t nimages;
	struct cli_io io;          /* io.image/io.out are set per image */
	size_t nsets, npaths;
	const char **sets;
	char **paths;
	long jobs;                 /* -j */
	const char *json;          /* --json FILE */
	const char *output_dir;    /* --output-dir DIR */
};
/* Applies a bound recipe to one image; returns an exit status. */
int cli_apply_one(const struct cli_apply *o, const struct imgp_recipe *r,
		  const char *image, const char *out, size_t *changes);
/* Applies it to every image, -j at once; returns an exit status. */
int cli_batch(const struct cli_apply *o, const struct imgp_recipe *r);

/* The undo journal of an image: --undo, else IMAGE.imgpatch-undo (malloc'd). */
char *cli_journal_path(const char *image, const char *undo);

int cmd_info(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_undo(int argc, char **argv);
int cmd_cat(int argc, char **argv);
int cmd_patch(int argc, char **argv);
int cmd_apply(int argc, char **argv);
int cmd_recipes(int argc, char **argv);

#endif
