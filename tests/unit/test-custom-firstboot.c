// SPDX-License-Identifier: MIT
/*
 * The first-boot runner (custom-firstboot.c): the files it returns, the
 * runner read by sh -n and dash -n and run on a folder (once each, in
 * order, gone after, a second run runs nothing, a script that kills its
 * runner still runs once), the unit checked by `systemd-analyze verify`
 * in a root, and enabled there by the real `systemctl --root` into the
 * link custom.h names.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "imgpatch.h"
#include "custom/custom.h"
#include "unit.h"

static const struct imgp_gen_file *file_at(const struct imgp_gen_files *f,
					   const char *path)
{
	for (size_t k = 0; k < f->n; k++)
		if (!strcmp(f->v[k].path, path))
			return &f->v[k];
	return NULL;
}

static char *text_of(const struct imgp_gen_file *g)
{
	char *s = malloc(g->text.len + 1);

	memcpy(s, g->text.data, g->text.len);
	s[g->text.len] = '\0';
	return s;
}

/* Writes a returned file under root with its mode; false on failure. */
static bool install(const char *root, const struct imgp_gen_file *g)
{
	char full[512], cmd_dir[512];

	snprintf(full, sizeof(full), "%s%s", root, g->path);
	snprintf(cmd_dir, sizeof(cmd_dir), "%s", full);
	*strrchr(cmd_dir, '/') = '\0';
	{
		const char *argv[] = { "mkdir", "-p", cmd_dir, NULL };

		if (unit_spawn(argv, NULL, NULL))
			return false;
	}
	return !unit_write_file(full, g->text.data, g->text.len) &&
	       !chmod(full, g->mode);
}

static void check_files(void)
{
	struct imgp_gen_files f = { 0 };
	const struct imgp_gen_file *g;
	char *s;
	int rc;

	rc = imgp_firstboot_files_(1, "/home/me/set up!.sh", "echo hi\n", 8, &f);
	CHECK(rc == 0 && f.n == 3, "the runner, its unit and the script");
	g = file_at(&f, IMGP_FIRSTBOOT_DIR "/0001-set_up_.sh");
	CHECK(g && g->mode == 0755 && !g->secret,
	      "the script: numbered, its name made safe, 0755");
	if (g) {
		s = text_of(g);
		CHECK_STR(s, "#!/bin/sh\necho hi\n", "a script without #! is a shell script");
		free(s);
	}
	g = file_at(&f, IMGP_FIRSTBOOT_RUNNER);
	CHECK(g && g->mode == 0755, "the runner: 0755");
	g = file_at(&f, IMGP_FIRSTBOOT_UNIT_PATH);
	CHECK(g && g->mode == 0644, "the unit: 0644 in /etc/systemd/system");
	if (g) {
		s = text_of(g);
		CHECK(strstr(s, "ConditionDirectoryNotEmpty=" IMGP_FIRSTBOOT_DIR "\n") &&
		      strstr(s, "Type=oneshot\n") &&
		      strstr(s, "ExecStart=" IMGP_FIRSTBOOT_RUNNER "\n") &&
		      strstr(s, "WantedBy=multi-user.target\n"),
		      "the unit: runs the runner once, only while a script waits");
		free(s);
	}
	imgp_gen_files_free_(&f);

	static const struct {
		const char *name, *path;
	} names[] = {
		{ "../../etc/passwd", IMGP_FIRSTBOOT_DIR "/0007-passwd" },
		{ "..", IMGP_FIRSTBOOT_DIR "/0007-script" },
		{ "", IMGP_FIRSTBOOT_DIR "/0007-script" },
		{ NULL, IMGP_FIRSTBOOT_DIR "/0007-script" },
		{ ".hidden", IMGP_FIRSTBOOT_DIR "/0007-hidden" },
		{ "a\nb$(x)`y`", IMGP_FIRSTBOOT_DIR "/0007-a_b__x__y_" },
		{ "\xc3\xa9t\xc3\xa9.sh", IMGP_FIRSTBOOT_DIR "/0007-__t__.sh" },
		{ "x/", IMGP_FIRSTBOOT_DIR "/0007-script" },
	};
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		char what[96];

		snprintf(what, sizeof(what), "a hostile name is made a safe one (%s)",
			 names[k].path + sizeof(IMGP_FIRSTBOOT_DIR));
		rc = imgp_firstboot_files_(7, names[k].name, "#!/bin/sh\n", 10, &f);
		CHECK(rc == 0 && file_at(&f, names[k].path), what);
		imgp_gen_files_free_(&f);
	}
	rc = imgp_firstboot_files_(1, "x", "#!/usr/bin/python3\nprint(1)\n", 28, &f);
	g = file_at(&f, IMGP_FIRSTBOOT_DIR "/0001-x");
	CHECK(rc == 0 && g && g->text.len == 28, "a script with #! is kept as it is");
	imgp_gen_files_free_(&f);
	rc = imgp_firstboot_files_(10000, "x", "true\n", 5, &f);
	CHECK(rc == -EINVAL && f.n == 0, "a number over 9999 would break name order: -EINVAL");
}

static void check_runner(void)
{
	struct imgp_gen_files f = { 0 };
	static char env[400], var[400]; /* putenv keeps them */
	char root[256], dir[300], runner[300], log[300], out[300], *s;
	const char *const shells[] = { "sh", "dash" };

	unit_path_keep(root, sizeof(root), "runner");
	snprintf(dir, sizeof(dir), "%s%s", root, IMGP_FIRSTBOOT_DIR);
	snprintf(runner, sizeof(runner), "%s%s", root, IMGP_FIRSTBOOT_RUNNER);
	snprintf(log, sizeof(log), "%s/ran", root);
	snprintf(out, sizeof(out), "%s/out", root);

	/* Four scripts, given out of order: name order is run order. */
	static const struct {
		unsigned seq;
		const char *name, *text;
	} scripts[] = {
		{ 3, "third", "echo third >>\"$LOG\"\n" },
		{ 1, "first", "#!/bin/sh\necho first >>\"$LOG\"\n" },
		{ 2, "fails", "echo fails >>\"$LOG\"\nexit 3\n" },
		{ 4, "reboots", "echo reboots >>\"$LOG\"\nkill -9 $PPID\n" },
		{ 5, "after", "echo after >>\"$LOG\"\n" },
	};
	for (size_t k = 0; k < sizeof(scripts) / sizeof(scripts[0]); k++)
		imgp_firstboot_files_(scripts[k].seq, scripts[k].name, scripts[k].text,
				     strlen(scripts[k].text), &f);
	bool ok = true;

	for (size_t k = 0; k < f.n; k++)
		ok = ok && install(root, &f.v[k]);
	CHECK(ok, "the files installed in a folder");

	for (size_t k = 0; k < 2; k++) {
		char tool[256], what[64];

		snprintf(what, sizeof(what), "%s -n reads the runner", shells[k]);
		if (!unit_find_tool(shells[k], tool, sizeof(tool))) {
			SKIP_TOOL(what, shells[k]);
			continue;
		}
		const char *argv[] = { shells[k], "-n", runner, NULL };

		CHECK(unit_spawn(argv, NULL, NULL) == 0, what);
	}

	/* The first boot: the runner is killed by the fourth script, as a reboot would. */
	snprintf(env, sizeof(env), "LOG=%s", log);
	putenv(env);
	{
		const char *argv[] = { runner, dir, NULL };

		unit_spawn(argv, NULL, out);
	}
	s = unit_read_file(log, NULL);
	CHECK_STR(s, "first\nfails\nthird\nreboots\n",
		  "first boot: in name order, on past a failure, until the reboot");
	free(s);
	s = unit_read_file(out, NULL);
	CHECK(s && strstr(s, "imgpatch-firstboot: running 0001-first\n") &&
	      strstr(s, "imgpatch-firstboot: 0002-fails exited with status 3\n"),
	      "each script's name and exit status are logged");
	free(s);

	/* The second boot, the folder given by the environment: only what had not run. */
	{
		const char *argv[] = { runner, NULL };

		snprintf(var, sizeof(var), "IMGPATCH_FIRSTBOOT_DIR=%s", dir);
		putenv(var);
		unit_spawn(argv, NULL, out);
		s = unit_read_file(log, NULL);
		CHECK_STR(s, "first\nfails\nthird\nreboots\nafter\n",
			  "second boot: the script that rebooted does not run again");
		free(s);
		unit_spawn(argv, NULL, out);
		s = unit_read_file(log, NULL);
		CHECK_STR(s, "first\nfails\nthird\nreboots\nafter\n",
			  "third boot: nothing runs");
		free(s);
		unsetenv("IMGPATCH_FIRSTBOOT_DIR");
	}
	{
		char left[400];
		struct stat st;

		snprintf(left, sizeof(left), "%s.running", dir);
		const char *argv[] = { "rmdir", dir, NULL };

		CHECK(unit_spawn(argv, NULL, NULL) == 0 && lstat(left, &st) != 0,
		      "the folder is empty, nothing left beside it");
	}
	imgp_gen_files_free_(&f);
}

/* The unit, as systemd 252 reads it in a root with the host's units. */
static void check_unit(void)
{
	struct imgp_gen_files f = { 0 };
	char root[256], tool[256], arg[300], out[300], wants[400], *s;
	struct stat st;
	bool ok = true;

	if (!unit_find_tool("systemd-analyze", tool, sizeof(tool)) ||
	    !unit_find_tool("systemctl", tool, sizeof(tool)) ||
	    stat("/usr/lib/systemd/system/multi-user.target", &st)) {
		SKIP_TOOL("systemd-analyze verify reads the unit", "systemd-analyze");
		SKIP_TOOL("systemctl --root enable makes IMGP_FIRSTBOOT_WANTS", "systemctl");
		return;
	}
	unit_path_keep(root, sizeof(root), "unitroot");
	snprintf(arg, sizeof(arg), "--root=%s", root);
	snprintf(out, sizeof(out), "%s.out", root);
	{
		char usr[300];

		snprintf(usr, sizeof(usr), "%s/usr/lib", root);
		const char *mk[] = { "mkdir", "-p", usr, NULL };
		const char *cp[] = { "cp", "-a", "/usr/lib/systemd", usr, NULL };

		ok = !unit_spawn(mk, NULL, NULL) && !unit_spawn(cp, NULL, NULL);
	}
	ok = ok && !imgp_firstboot_files_(1, "x", "true\n", 5, &f);
	for (size_t k = 0; ok && k < f.n; k++)
		ok = install(root, &f.v[k]);
	{
		const char *argv[] = { "systemd-analyze", arg, "verify", IMGP_FIRSTBOOT_UNIT,
				       NULL };

		ok = ok && unit_spawn(argv, NULL, out) == 0;
	}
	s = unit_read_file(out, NULL);
	CHECK(ok && s && !*s, "systemd-analyze verify reads the unit: no warning");
	if (s && *s)
		printf("#   %s", s);
	free(s);
	{
		const char *argv[] = { "systemctl", arg, "enable", IMGP_FIRSTBOOT_UNIT, NULL };
		char target[512];
		ssize_t n;

		unit_spawn(argv, NULL, out);
		snprintf(wants, sizeof(wants), "%s%s", root, IMGP_FIRSTBOOT_WANTS);
		n = readlink(wants, target, sizeof(target) - 1);
		if (n >= 0)
			target[n] = '\0';
		CHECK(n > 0 && !strcmp(target, IMGP_FIRSTBOOT_UNIT_PATH),
		      "systemctl --root enable makes IMGP_FIRSTBOOT_WANTS");
	}
	imgp_gen_files_free_(&f);
}

int main(void)
{
	if (unit_tmpdir_create("custom-firstboot")) {
		perror("tmpdir");
		return 1;
	}
	check_files();
	check_runner();
	check_unit();
	unit_tmpdir_remove();
	return unit_done();
}
