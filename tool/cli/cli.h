/* SPDX-License-Identifier: MIT */
/* The command line: one file per subcommand, messages through die/error/warning. */
#ifndef IMGP_CLI_H
#define IMGP_CLI_H

#include <signal.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include "imgpatch.h"
#include "options.h"

/* Exit statuses (documented in imgpatch(1), EXIT STATUS). */
#define EXIT_OK 0
#define EXIT_ERROR 1
#define EXIT_USAGE 2

/* "imgpatch: " + message + newline on stderr; die() exits with EXIT_ERROR. */
void error(const char *fmt, ...) IMGP_PRINTF(1, 2);
void warning(const char *fmt, ...) IMGP_PRINTF(1, 2);
__attribute__((noreturn)) void die(const char *fmt, ...) IMGP_PRINTF(1, 2);
/* Prints "imgpatch: <subject>: <library failure message>" and returns EXIT_ERROR. */
int error_lib(const char *subject);
/*
 * As error_lib, but EXIT_USAGE when typed (the user typed a name, such as
 * --model) and the failure is that name naming none of the image's choices
 * (imgp_err_is_name): a mistake in what was typed.
 */
int error_lib_typed(const char *subject, bool typed);
/*
 * Messages name the user's files, never the temporary copies made of them:
 * from now on a message (error, warning, a card's failure) that names copy
 * names name instead; name NULL forgets copy. cli_name_of: the name
 * messages give path. cli_names_apply rewrites msg (a buffer of size bytes).
 */
void cli_name_copy(const char *copy, const char *name);
const char *cli_name_of(const char *path);
void cli_names_apply(char *msg, size_t size);
/* The last error() line printed (without "imgpatch: "), or NULL. */
const char *cli_last_error(void);
/* Usage error: message plus a hint to --help; returns EXIT_USAGE. */
int usage_error(const char *cmd, const char *fmt, ...) IMGP_PRINTF(2, 3);

/*
 * Signals (main.c). cli_signal: the signal that interrupted the run (SIGINT,
 * SIGTERM, SIGHUP, SIGQUIT, SIGPIPE), 0 while none did. While
 * cli_signals_deferred is set, the handler only forwards the signal to the
 * children, says so and records it: the command reports what it did, then
 * calls cli_signals_finish(), which removes the temporary files, waits for
 * the children and ends the process by the signal.
 */
extern volatile sig_atomic_t cli_signal;
extern volatile sig_atomic_t cli_signals_deferred;
void cli_signals_finish(void);
/* "interrupted (SIGINT)" for cli_signal, NULL while none came. */
const char *cli_signal_text(void);
/* In a freshly forked worker: it removes only its own files when signalled. */
void cli_signals_child(void);
/* The children alive (per-target.c): signalled and waited for, signal-safely. */
void cli_children_signal(int sig);
void cli_children_wait(void);

/*
 * The run's library context (main.c): warnings to warning(), progress
 * lines, interrupted by cli_signal. Every image the commands open gets it.
 */
extern struct imgp_ctx *cli_ctx;

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
	const char *undo;         /* --undo FILE: the journal of an in-place commit */
	bool recover;             /* --recover: undo an interrupted run first */
	struct imgp_job *job;     /* IMAGE as the library works on it, once open */
};

/* The ids of the options every writing command takes (cli_io_options). */
enum {
	CLI_OPT_COMPRESS = 512, CLI_OPT_LEVEL, CLI_OPT_THREADS, CLI_OPT_BMAP,
	CLI_OPT_IN_PLACE, CLI_OPT_QUIET, CLI_OPT_UNDO, CLI_OPT_RECOVER,
};
extern const struct cli_option cli_io_options[];

void cli_io_init(struct cli_io *io);
/*
 * Takes one of cli_io_options; returns 1 when c was one of them, 0 when
 * not, or EXIT_USAGE (after a message) for a bad value.
 */
int cli_io_option(struct cli_io *io, const struct cli_parser *p, int c);
/*
 * Checks the options, then opens IMAGE as a writing job (imgp_job_open):
 * imgp_job_disk_open(io->job) is then the image to plan on. Returns an
 * exit status.
 */
int cli_io_open(struct cli_io *io, const char *cmd);
/*
 * Prints the plan, then writes nothing (--dry-run), the image in place, or
 * the output: sparse raw or compressed, made under a temporary name in its
 * folder and renamed when complete, and the bmap. Returns an exit status.
 */
int cli_io_commit(struct cli_io *io, struct imgp_patch *patch);
/* Frees the job: what it made and did not put in place goes. */
void cli_io_close(struct cli_io *io);

/*
 * Removes the temporary files named for base that a killed run left in dir
 * (imgp_temp_sweep; base NULL: those of every kind a run makes in $TMPDIR,
 * dir ignored), and says so in one line on stderr.
 */
void cli_sweep(const char *dir, const char *base);
/*
 * Checks, before any work, that new files can be made in dir (the folder
 * itself) or beside path: else one error line naming it, why not and the
 * hint, and EXIT_ERROR.
 */
int cli_check_folder(const char *dir, const char *what, const char *hint);
int cli_check_output(const char *path, const char *what);

/*
 * Do paths a and b name one file (same-file.c)? By what they resolve to:
 * the file's device and inode, a block device's number, or for a file not
 * there yet its folder's device and inode and its last name. NULL names none.
 */
bool cli_same_file(const char *a, const char *b);
/* Is part a partition of the block device disk (sysfs)? */
bool cli_disk_holds(const char *disk, const char *part);

/* An image opened only to be read (info, cat, doctor). */
struct cli_read {
	struct imgp_job *job;     /* a reading job: its format is the image's */
	struct imgp_disk *disk;   /* NULL until open */
};
/* Opens image read-only (reports the failure): an exit status. */
int cli_read_open(struct cli_read *r, const char *image);
void cli_read_close(struct cli_read *r);

/* The recipe search path (recipe-path.c), NULL-terminated. */
struct cli_recipe_path {
	char **dirs;
	size_t n;
};
void cli_recipe_path_init(struct cli_recipe_path *rp, char *const *extra,
			  size_t nextra);
void cli_recipe_path_free(struct cli_recipe_path *rp);
/*
 * imgp_recipe_find() over the path; a name not found is offered the closest
 * recipe name ("did you mean 'kv260-uhs'?"). Returns 0 or -errno.
 */
int cli_recipe_find(const struct cli_recipe_path *rp, const char *spec,
		    char **path);

/* --each FILE.csv (each.c): a row of recipe parameters per image or target. */
struct cli_each {
	const char *path;
	struct imgp_csv *table;
	const char *const *ignore; /* --each-ignore COLUMN: set before reading */
	size_t nignore;
};
/*
 * Reads the table: its first column must be key ("image", "target"), no
 * two rows name the same one, and each of names has a row. Returns
 * EXIT_OK, or EXIT_USAGE after a message naming FILE:LINE where it can.
 */
int cli_each_read(struct cli_each *e, const char *path, const char *key,
		  const char *const *names, size_t n);
/* Is column col one that --each-ignore names? */
bool cli_each_ignored(const struct cli_each *e, size_t col);
/* The recipe's name of the parameter a column names (without case), or NULL. */
const char *cli_each_param(const struct imgp_recipe *r, const char *column);
/* The row of name, or 0 when it has none. */
size_t cli_each_row(const struct cli_each *e, const char *name);
/* Does the recipe declare the parameter name (len bytes of it)? */
bool cli_recipe_has_param(const struct imgp_recipe *r, const char *name, size_t len);
/*
 * The "NAME=VALUE" list for recipe r: those of sets it declares, then the
 * non-empty cells of row (e may be NULL, row 0: none) it declares. The
 * strings made for it are in *owned; free both with cli_each_sets_free.
 */
const char **cli_each_sets(const struct cli_each *e, size_t row, const struct imgp_recipe *r,
			   const char *const *sets, size_t nsets, char ***owned, size_t *n);
void cli_each_sets_free(const char **sets, char **owned);
void cli_each_free(struct cli_each *e);

/* Each target of apply and write alike (per-target.c). */
struct imgp_json;
/* --set NAME=VALUE: checked and added to *sets; 0 or EXIT_USAGE. */
int cli_set_option(const struct cli_parser *p, const char ***sets, size_t *nsets);
/*
 * Binds r with target's parameters: those of sets r declares, then the
 * non-empty cells of target's row in each (may be NULL). 0 or -errno.
 */
int cli_target_bind(struct imgp_recipe *r, const struct cli_each *each, const char *target,
		    const char *const *sets, size_t nsets);
/*
 * "parameters": {NAME: VALUE...} of target in the --json report: the value
 * each of recipes got, bound for it (a secret one as "set").
 */
void cli_json_parameters(struct imgp_json *j, struct imgp_recipe *const *recipes, size_t n,
			 const struct cli_each *each, const char *target,
			 const char *const *sets, size_t nsets);
/* A target's work in a process of its own. */
struct cli_child {
	pid_t pid;
	int fd;                    /* the read end of the pipe the work writes to */
	struct timespec start;
};
/*
 * Forks a child that runs work(ctx, fd), fd the write end of a pipe, and
 * exits with its return value. Returns 0 or -errno.
 */
int cli_child_start(struct cli_child *child, int (*work)(void *ctx, int fd), void *ctx);
/*
 * Waits for the child to end (its exit status in *wstatus) and forgets it.
 * Returns 0 or -errno.
 */
int cli_child_wait(struct cli_child *child, int *wstatus);
/* Forgets a child reaped by waitpid(-1, ...). */
void cli_child_reaped(const struct cli_child *child);
/* Seconds since the child started. */
double cli_child_seconds(const struct cli_child *child);
/* One target of a run over many (an image of apply, a card of write). */
struct cli_target {
	struct cli_child child;    /* child.fd: what its work sends, -1 after its end */
	bool started, finished;
	bool result;               /* its work sent its result (set by ops->read) */
	bool interrupted;          /* a signal stopped the run before its result */
};
/* What a command does for each of its targets (cli_targets_run). */
struct cli_targets_ops {
	struct cli_target *(*target)(void *ctx, size_t i);
	/* Starts target i's work with cli_child_start: 0 or -errno. */
	int (*start)(void *ctx, size_t i);
	/* Target i could not start: why. */
	void (*start_failed)(void *ctx, size_t i, const char *why);
	/* Reads what target i's child sent on child.fd; false at its end. */
	bool (*read)(void *ctx, size_t i);
	/* Target i's child ended with wstatus (interrupted is set already). */
	void (*reaped)(void *ctx, size_t i, int wstatus);
	/* Its line as target i ends, the finished-th of n. */
	void (*print)(void *ctx, size_t i, size_t finished, size_t n);
	/* After each wait, over the n targets (NULL: nothing to show). */
	void (*progress)(void *ctx, size_t n);
};
/*
 * Runs n targets, at most max at once, the next starting as one ends. The
 * caller sets cli_signals_deferred first: a signal is then a result.
 * Nothing more starts, those not started are interrupted, those running
 * end (the signal reached them too) and are interrupted unless they sent
 * their result. The caller then reports (cli_targets_status) and calls
 * cli_signals_finish().
 */
void cli_targets_run(const struct cli_targets_ops *ops, void *ctx, size_t n, size_t max);
/*
 * The --json status of such a run: "interrupted" (*why: the signal),
 * "failed" when any target failed, else "done" (*why NULL).
 */
const char *cli_targets_status(size_t failed, const char **why);
/*
 * The --json report of a run over many targets, opened and closed: each
 * returns 0 or -errno with a failure.
 */
struct imgp_json;
int cli_report_open(const char *path, struct imgp_json *j, FILE **f);
/*
 * Opens it and writes its head, the same for apply and write: the object
 * begun, schema_version 1, status and error (why; NULL: null).
 */
int cli_report_begin(const char *path, struct imgp_json *j, FILE **f,
		     const char *status, const char *why);
int cli_report_close(struct imgp_json *j, FILE *f);

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
	const char *each;          /* --each FILE.csv */
	enum imgp_via via;         /* --via; IMGP_VIA_DEFAULT: the recipe's */
	struct cli_each table;     /* its rows, one per image */
	const char **ignore;       /* --each-ignore COLUMN (table.nignore of them) */
	char **argv_images;        /* RECIPE IMAGE...: images points into it */
	bool stop;                 /* --help was printed */
};
/* Applies a bound recipe to one image; returns an exit status. */
int cli_apply_one(const struct cli_apply *o, struct imgp_recipe *r,
		  const char *image, const char *out, size_t *changes);
/*
 * The --json report of a run that stopped before its images (status: the
 * exit status it stops with, r NULL when the recipe did not load).
 * Returns an exit status.
 */
int cli_apply_report(const struct cli_apply *o, struct imgp_recipe *r, int status);
/* Applies it to every image, -j at once; returns an exit status. */
int cli_batch(const struct cli_apply *o, struct imgp_recipe *r);

/* The undo journal of an image: --undo, else IMAGE.imgpatch-undo (malloc'd). */
char *cli_journal_path(const char *image, const char *undo);

int cmd_info(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_undo(int argc, char **argv);
int cmd_cat(int argc, char **argv);
int cmd_patch(int argc, char **argv);
int cmd_apply(int argc, char **argv);
int cmd_recipes(int argc, char **argv);
int cmd_write(int argc, char **argv);
int cmd_customize(int argc, char **argv);

/*
 * customize's options (custom-options.c), which customize and write take:
 * ids from CLI_OPT_CUSTOM up; cli_custom_name gives the library's name of
 * one (imgp_custom_add), NULL for another option's id.
 */
#define CLI_OPT_CUSTOM 800
extern const struct cli_option cli_custom_options[];
const char *cli_custom_name(int id);

/* customize's settings per card (card-custom.c): the command line's, in order. */
struct cli_custom_args {
	const char **names;
	const char **values;
	size_t n;
	/* The run's recipes: a table column one of them declares is its parameter. */
	struct imgp_recipe *const *recipes;
	size_t nrecipes;
};
void cli_custom_args_add(struct cli_custom_args *a, const char *name, const char *value);
void cli_custom_args_free(struct cli_custom_args *a);
/* The option a --each column names (case aside), or NULL. */
const char *cli_each_custom(const char *column);
/* Whether any card gets a setting (the command line, or a column of the table). */
bool cli_custom_any(const struct cli_custom_args *a, const struct cli_each *each);
/*
 * The settings of target: a's, then its row's non-empty cells of the
 * columns named after options (a cell replaces a's option of its name).
 * 0, or -errno with "--NAME VALUE: why".
 */
int cli_custom_for(const struct cli_custom_args *a, const struct cli_each *each,
		   const char *target, struct imgp_custom **out);
/* A run's facts (imgp_custom_facts) in a report: "ssh_host_keys" [{type, fingerprint}], "machine_id". */
struct imgp_json;
void cli_json_custom_facts(struct imgp_json *j, const char *facts);
/* The same on stdout, "PREFIX" + "ssh-host-key: ED25519 SHA256:..." a line. */
void cli_print_custom_facts(const char *prefix, const char *facts);

#endif
