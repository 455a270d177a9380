/* SPDX-License-Identifier: MIT */
/*
 * Minimal unit-test harness: each CHECK prints one TAP line ("ok - name" or
 * "not ok - name") so tests/run.sh counts C and shell tests alike.
 * unit_done() returns the exit status (1 when any check failed).
 *
 * unit.c also holds the helpers several tests share: a temporary directory
 * with paths in it, whole-file reads and writes, and running tools.
 */
#ifndef IMGP_UNIT_H
#define IMGP_UNIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct imgp_buf;
struct imgp_ctx;
struct imgp_label_ops;
struct imgp_table;

extern int unit_failed, unit_count;

#define CHECK(cond, name)                                                     \
	do {                                                                  \
		unit_count++;                                                 \
		if (cond) {                                                   \
			printf("ok %d - %s\n", unit_count, name);             \
		} else {                                                      \
			unit_failed++;                                        \
			printf("not ok %d - %s (%s:%d: %s)\n", unit_count,    \
			       name, __FILE__, __LINE__, #cond);              \
		}                                                             \
	} while (0)

#define CHECK_STR(got, want, name)                                            \
	do {                                                                  \
		const char *g_ = (got), *w_ = (want);                         \
		CHECK(g_ && strcmp(g_, w_) == 0, name);                       \
		if (!g_ || strcmp(g_, w_) != 0)                               \
			printf("#   got:  '%s'\n#   want: '%s'\n",            \
			       g_ ? g_ : "(null)", w_);                       \
	} while (0)

/*
 * A check that cannot run here: one TAP skip line naming the missing tool,
 * the form tests/run.sh counts and, under CI=true, fails for a tool that
 * ci/install-deps.sh installs.
 */
#define SKIP_TOOL(name, tool)                                                 \
	do {                                                                  \
		unit_count++;                                                 \
		printf("ok %d - %s # SKIP missing tool: %s\n", unit_count,   \
		       name, tool);                                           \
	} while (0)

/*
 * Prints the TAP plan (which tests/run.sh checks against the checks that
 * ran) and a summary line; returns the exit status (1 when a check failed).
 */
int unit_done(void);

/*
 * Creates $TMPDIR/imgp-test-<tag>.XXXXXX (or under /tmp) for this test's
 * files. Returns 0, or -1 with errno set.
 */
int unit_tmpdir_create(const char *tag);
/* Removes the temporary directory and all below it; safe to call twice. */
void unit_tmpdir_remove(void);
/*
 * The path of name inside the temporary directory. The storage is reused
 * after 32 calls: a path that has to live longer goes through
 * unit_path_keep().
 */
const char *unit_path(const char *name);
/* Like unit_path(), into the caller's buf of size bytes; returns buf. */
char *unit_path_keep(char *buf, size_t size, const char *name);

/* Writes len bytes to path (created 0644 or truncated). Returns 0 or -1. */
int unit_write_file(const char *path, const void *data, size_t len);
/*
 * Copies len bytes of src at soff into dst at doff (dd conv=notrunc; dst
 * is made when missing). Returns 0 or -1.
 */
int unit_copy_range(const char *src, long long soff, const char *dst,
		    long long doff, size_t len);
/* len bytes written (pwrite) or read (pread) at off in path. Returns 0 or -1. */
int unit_write_at(const char *path, uint64_t off, const void *data, size_t len);
int unit_read_at(const char *path, uint64_t off, void *data, size_t len);
/* A sparse file of size bytes, made or cut to that size. Returns 0 or -1. */
int unit_sparse_file(const char *path, uint64_t size);

/* One of the four 16-byte entries of an MBR or EBR sector. */
struct unit_mbr_slot {
	uint8_t boot, type;
	uint32_t start, sectors;
};
/*
 * Writes an MBR or EBR sector by hand at lba (512-byte sectors): disk_id at
 * 440, the four slots at 446, 0x55aa at 510. Returns 0 or -1.
 */
int unit_write_mbr(const char *path, uint64_t lba, uint32_t disk_id,
		   const struct unit_mbr_slot slots[4]);
/* The warnings logged to unit_log_ctx(), one a line (cut when full). */
extern char unit_warnings[4096];
/*
 * A context whose log hook appends each warning to unit_warnings; made on
 * the first call, the same one after. NULL when out of memory.
 */
struct imgp_ctx *unit_log_ctx(void);

/*
 * One label's probe, or read (tab left to the caller to free), of the image
 * at path, without imgp_table_read_'s checks across labels; read clears the
 * failure message and unit_warnings first and warns to unit_log_ctx().
 */
int unit_label_probe(const struct imgp_label_ops *ops, const char *path);
int unit_label_read(const struct imgp_label_ops *ops, const char *path,
		    struct imgp_table *tab);
/*
 * Checks that the label's read refuses path with -err and exactly msg,
 * and that the image keeps every byte: three checks named after name.
 */
void unit_label_refused(const struct imgp_label_ops *ops, const char *path, int err,
			const char *msg, const char *name);

/*
 * Whether sfdisk --dump of path has every line of want (NULL-terminated,
 * each a line's end without its newline: "/disk.img1 : start=..." after
 * the device's folder): 1 yes, 0 no (the dump printed as a comment), -1
 * when there is no sfdisk.
 */
int unit_sfdisk_dump_has(const char *path, const char *const want[]);

/* unit_write_file() of a string, without its NUL. */
int unit_write_text(const char *path, const char *text);
/*
 * The whole file, malloc'd and NUL-terminated (so text can be used in
 * place); its size in *len when len is not NULL. NULL when unreadable.
 */
void *unit_read_file(const char *path, size_t *len);

/*
 * Runs a tool with imgp_run_ (clean environment plus env, which may be NULL;
 * stdout into out, which may be NULL). Prints the reason on failure.
 * Returns what imgp_run_ returned.
 */
int unit_run(const char *const argv[], const char *const env[],
	     struct imgp_buf *out);
/*
 * Runs argv[0] (searched in $PATH unless it holds a '/') in this process's
 * environment, stdin from in and stdout plus stderr into out (each
 * /dev/null when NULL). Returns its exit status, or -1 when it could not
 * run or was killed.
 */
int unit_spawn(const char *const argv[], const char *in, const char *out);
/* The program's path in $PATH or the sbin folders, into file; false when absent. */
bool unit_find_tool(const char *name, char *file, size_t size);

#endif
