/* SPDX-License-Identifier: MIT */
/*
 * text/: text edits: fstab, lines and tokens, YAML keys, kernel command lines, diffs.
 * Shared by the library's own files (and white-box tests), not part of
 * the client API in imgpatch.h. A file includes the folders' headers it uses.
 */
#ifndef IMGP_TEXT_H
#define IMGP_TEXT_H

#include "imgpatch.h"

/* ----------------------------------------------------------------- fstab.c */

struct imgp_fstab_entry {
	int line;                /* 1-based line number */
	char *spec, *file, *vfstype, *options; /* unescaped fields, owned */
	int freq, passno;
};

/*
 * Finds the entry mounted at mountpoint. Returns 0, -ENOENT with a message
 * listing the mount points there are, or -EINVAL for a malformed file.
 */
int imgp_fstab_get_(const char *text, size_t len, const char *mountpoint,
		   struct imgp_fstab_entry *out);
void imgp_fstab_entry_free_(struct imgp_fstab_entry *e);
/*
 * Every entry of an fstab in file order. Returns 0, or -EINVAL for a
 * malformed file (as imgp_fstab_get_).
 */
int imgp_fstab_list_(const char *text, size_t len, struct imgp_fstab_entry **out,
		    size_t *n);
void imgp_fstab_list_free_(struct imgp_fstab_entry *e, size_t n);
/*
 * Applies option edits ("-discard,+noatime": -opt removes opt and opt=*,
 * +opt adds it, +key=val replaces key=*) to the entry at mountpoint. Every
 * other byte of the text stays as it was; an option list that becomes empty
 * turns into "defaults". out receives the new text (it equals the input when
 * nothing changed). Returns 1 when changed, 0 when not, or -errno.
 */
int imgp_fstab_edit_(const char *text, size_t len, const char *mountpoint,
		    const char *ops, struct imgp_buf *out);

/* -------------------------------------------------------------- textedit.c */

/*
 * Edits of text files, keeping every byte they do not change. Each returns
 * 1 when the text changed, 0 when it was already so, or -errno; out always
 * receives the resulting text.
 *
 * Line files (config.txt, uEnv.txt): a line "KEY=VALUE" belongs to KEY when
 * it starts with KEY followed by '=' (KEY may itself hold '=', as
 * "dtparam=sd_overclock"). set replaces the first such line that is not
 * commented out and removes later ones; when there is none it appends
 * "KEY=VALUE" at the end, or, when section is given ("all"), at the end of
 * the last "[section]" block (adding "[section]" when the file's last
 * section header is another one, then "[all]" after the line, and before
 * the header too when the file ends under a filter). With a section only
 * lines under that section's headers count ("all" also those above the
 * first header).
 */
int imgp_text_set_line_(const char *text, size_t len, const char *key,
		       const char *value, const char *section,
		       struct imgp_buf *out);
/*
 * Field files (/etc/hosts: blank-separated fields, '#' comments): every
 * line whose first field is KEY gets VALUE for the fields after it (the
 * blanks between, and a comment after them, kept). Lines of other keys,
 * and a text without KEY, stay as they are.
 */
int imgp_text_set_fields_(const char *text, size_t len, const char *key,
			 const char *value, struct imgp_buf *out);
/* Removes every active line of KEY. */
int imgp_text_remove_line_(const char *text, size_t len, const char *key,
			  struct imgp_buf *out);
/*
 * Token files (cmdline.txt: one line of space-separated tokens). token is
 * "key=value" (replaces the token with that key, or appends) or "flag"
 * (appends when absent).
 */
int imgp_text_set_token_(const char *text, size_t len, const char *token,
			struct imgp_buf *out);
/* Removes the tokens "key" and "key=...". */
int imgp_text_remove_token_(const char *text, size_t len, const char *key,
			   struct imgp_buf *out);

/* --------------------------------------------------------------- yamlkey.c */

/*
 * One top-level entry of a YAML block mapping (cloud-init's user-data and
 * meta-data): entry ("KEY: ...\n" and the lines indented under it, or "- "
 * items) replaces KEY's entry where it stands, or is appended when the text
 * has none; a NULL entry removes KEY's entry. With header ("#cloud-config"),
 * the text's first line must be it, and an empty text gets it first. A
 * text the line reading cannot follow (a line at column 0 that is not a
 * comment, "KEY:" or "- ", a tab indent, CR, KEY twice) is -EINVAL with
 * its line. Returns 1 when the text changed, 0 when it was so, or -errno.
 */
int imgp_yaml_set_key_(const char *text, size_t len, const char *header,
		      const char *key, const char *entry, struct imgp_buf *out);
/*
 * KEY's entry in text (read as imgp_yaml_set_key_ reads it) into out, from
 * its "KEY:" line to its last line: 1, 0 when the text has none, or
 * -EINVAL with its line.
 */
int imgp_yaml_get_key_(const char *text, size_t len, const char *header,
		      const char *key, struct imgp_buf *out);
/*
 * Whether entry is one such entry: "KEY:" (KEY's, or any plain key when
 * key is NULL) first, then only indented or "- " lines, '\n' last, no tab
 * or CR. 0 or -EINVAL with a message.
 */
int imgp_yaml_entry_check_(const char *key, const char *entry);

/* --------------------------------------------------------------- cmdline.c */

/*
 * Kernel command line edits. edits is a list of "+WORD" (added when no word
 * has its name), "+KEY=VALUE" (the first word named KEY takes it, later
 * ones are dropped; appended when there is none), "++WORD" (added unless
 * that very word is there, other words of its name kept: console= counts
 * each time it is given), "-KEY" (drops every word named KEY, with or
 * without a value) and "-KEY=VALUE" (drops that word), joined by commas: a
 * comma before '+' or '-' outside double quotes starts the next edit, so
 * values keep theirs ("+console=ttyS2,1500000"). An added word followed by
 * " before KEY" goes before the first word named KEY instead of at the end
 * ("++console=serial0,115200 before root", as raspi-config puts it).
 * Words split as the kernel splits them (double quotes group blanks); no
 * edit looks past "--", and a new word goes before it.
 */

/*
 * The value of the first word named key ("rootflags" in "rootflags=a,b":
 * "a,b", NUL-terminated) before "--". Returns 1 when found, 0 when no
 * word has that name and a value, -ENOMEM.
 */
int imgp_cmdline_get_(const char *line, size_t len, const char *key,
		     struct imgp_buf *value);
/*
 * out = line (len bytes, no newline) with the edits applied in order,
 * every other byte kept (NUL-terminated, not counted). Returns 1 when it
 * changed, 0 when not, -EINVAL (imgp_cmdline_check), -ENOMEM.
 */
int imgp_cmdline_edit_(const char *line, size_t len, const char *edits,
		      struct imgp_buf *out);

/* ------------------------------------------------------------------ diff.c */

/*
 * A unified diff (as "diff -u" prints it: "--- label_a", "+++ label_b",
 * "@@ -l,n +l,n @@" hunks with 3 lines of context) of two texts; nothing
 * is appended when they are equal. When what lies between their common
 * head and tail is over 20000 lines or 1 MiB, all of it shows as changed
 * (one hunk). Returns 0 or -ENOMEM.
 */
int imgp_diff_unified_(const char *a, size_t alen, const char *b, size_t blen,
		      const char *label_a, const char *label_b,
		      struct imgp_buf *out);

/* -------------------------------------------------------------- textedit.c */

/*
 * Whether no config.txt filter is in force at the end of text: it has no
 * "[filter]" line, or "[all]" is the last and no include line follows it.
 */
bool imgp_config_ends_unfiltered_(const char *text, size_t len);

/* --------------------------------------------------------------- textlist.c */

/* One line of a text: [start, end) without its newline, next past it. */
struct imgp_text_line {
	const char *start, *end, *next;
};
/* The line at *cursor (advanced past it) of text; false at the end. */
bool imgp_text_next_line_(const char *text, size_t len, const char **cursor,
			 struct imgp_text_line *l);
/* p past blanks and tabs, at most end. */
const char *imgp_text_skip_blanks_(const char *p, const char *end);
/* Whether word is one of the blank-separated words of [p, end). */
bool imgp_text_has_word_(const char *p, const char *end, const char *word);
/* The end of a line's content, before trailing blanks and a '#' comment. */
const char *imgp_text_content_end_(const struct imgp_text_line *l, bool comments);
/* out = text with ins inserted at pos. 0 or -ENOMEM. */
int imgp_text_splice_(const char *text, size_t len, const char *pos, const char *ins,
		     struct imgp_buf *out);
/* out = text + (a newline when it lacks one) + tail. 0 or -ENOMEM. */
int imgp_text_append_line_(const char *text, size_t len, const char *tail,
			  struct imgp_buf *out);

/*
 * A syntax of list, as its reader parses it: owns() whether the list key
 * (NULL: none) of the file at path is in it, add() as imgp_list_add_() (see
 * patch/patch.h). A boot path's own is its list member (boot/bootlist.c);
 * the lists of no boot path are patch/patch-list.c's.
 */
struct imgp_list_syntax {
	bool (*owns)(const char *path, const char *key);
	int (*add)(const char *text, size_t len, const char *key, const char *word,
		   const char *sections, struct imgp_buf *out);
};

#endif /* IMGP_TEXT_H */
