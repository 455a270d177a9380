// SPDX-License-Identifier: MIT
/*
 * The Raspberry Pi firmware's dtoverlay= and dtparam= lines, checked
 * against Raspberry Pi's own dtmerge: for each case of
 * tests/dts/rpi/cases.txt the tree imgpatch makes must decompile (dtc -s)
 * to the very text dtmerge's tree did (tests/dts/rpi/expected/, made with
 * make-expected.sh; dtmerge itself is not needed here). Then what the
 * firmware ignores (warned about, tree as without it), what makes an
 * overlay fail (tree untouched), and the boot path's apply method on a
 * Raspberry Pi OS image whose config.txt sets overlays and parameters.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"
#include "core/core.h"
#include "fs/fs.h"
#include "dt/dt.h"
#include "boot/boot.h"
#include "boot/bootpath.h"
#include "unit.h"
#include "disk/disk.h"

static char dts_dir[PATH_MAX];
/* What was warned, into a warnings buffer or to the log of ctx, a line each. */
static struct imgp_buf warned;
static struct imgp_ctx *log_ctx;

static void log_hook(enum imgp_log_level level, const char *msg, void *data)
{
	(void)data;
	if (level == IMGP_LOG_WARNING)
		imgp_buf_printf(&warned, "%s\n", msg);
}

static const char *warnings(void)
{
	return warned.len ? (const char *)warned.data : "";
}

/* dtc -@ of tests/dts/rpi/SRC into the temporary directory as OUT. */
static int compile(const char *src, const char *out)
{
	char in[PATH_MAX + 64], dst[PATH_MAX];
	const char *argv[] = { "dtc", "-q", "-@", "-I", "dts", "-O", "dtb", "-o",
			       dst, in, NULL };

	snprintf(in, sizeof(in), "%s/%s", dts_dir, src);
	unit_path_keep(dst, sizeof(dst), out);
	return unit_run(argv, NULL, NULL);
}

/* The tree as "dtc -I dtb -O dts -s" prints it; NULL on failure. */
static char *decompile(const void *fdt, size_t size)
{
	char path[PATH_MAX];
	const char *argv[] = { "dtc", "-q", "-I", "dtb", "-O", "dts", "-s", path, NULL };
	struct imgp_buf out = { 0 };

	unit_path_keep(path, sizeof(path), "out.dtb");
	if (unit_write_file(path, fdt, size) || unit_run(argv, NULL, &out) ||
	    imgp_buf_append(&out, "", 1)) {
		imgp_buf_free(&out);
		return NULL;
	}
	return (char *)out.data;
}

/* Prints the first line where got and want differ. */
static void show_difference(const char *got, const char *want)
{
	const char *g = got, *w = want;
	int line = 1;

	while (*g && *g == *w) {
		if (*g == '\n') {
			line++;
			got = g + 1;
			want = w + 1;
		}
		g++;
		w++;
	}
	printf("#   line %d: got '%.*s', want '%.*s'\n", line,
	       (int)strcspn(got, "\n"), got, (int)strcspn(want, "\n"), want);
}

/*
 * Applies one config.txt line ("dtparam=LIST", "dtoverlay=NAME,LIST") to
 * the tree in *fdt; the overlay from NAME.dtbo in the temporary directory.
 */
static int apply_line(const char *line, void **fdt, size_t *size)
{
	char name[256], *params, *dtbo;
	size_t len;
	int rc;

	if (strncmp(line, "dtparam=", 8) == 0)
		return imgp_rpi_dtparam_(fdt, size, line + 8, NULL, &warned);
	if (strncmp(line, "dtoverlay=", 10) != 0)
		return -EINVAL;
	snprintf(name, sizeof(name), "%s", line + 10);
	params = strchr(name, ',');
	if (params)
		*params++ = '\0';
	{
		char file[300];

		snprintf(file, sizeof(file), "%s.dtbo", name);
		dtbo = unit_read_file(unit_path(file), &len);
	}
	if (!dtbo)
		return -ENOENT;
	rc = imgp_rpi_dtoverlay_(fdt, size, dtbo, len, name, params, NULL, &warned);
	free(dtbo);
	return rc;
}

static void *load_base(size_t *size)
{
	return unit_read_file(unit_path("base.dtb"), size);
}

/* The tab-separated config.txt lines, applied in turn. */
static int apply_lines(char *lines, void **fdt, size_t *size)
{
	char *line, *next;
	int rc = 0;

	for (line = lines; line && !rc; line = next) {
		next = strchr(line, '\t');
		if (next)
			*next++ = '\0';
		rc = apply_line(line, fdt, size);
		if (rc)
			printf("# %s: %s\n", line, imgp_errmsg());
	}
	return rc;
}

/* Every case of cases.txt against dtmerge's tree. */
static void test_cases(void)
{
	char path[PATH_MAX + 32];
	char *cases, *line, *next;

	snprintf(path, sizeof(path), "%s/cases.txt", dts_dir);
	cases = unit_read_file(path, NULL);
	CHECK(cases != NULL, "cases.txt is there");
	if (!cases)
		return;
	for (line = cases; line && *line; line = next) {
		char *tab, *want, *got = NULL, name[300];
		size_t size;
		void *fdt;
		int rc;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		tab = strchr(line, '\t');
		if (line[0] == '#' || !tab)
			continue;
		*tab = '\0';
		snprintf(path, sizeof(path), "%s/expected/%s.dts", dts_dir, line);
		want = unit_read_file(path, NULL);
		fdt = load_base(&size);
		warned.len = 0;
		snprintf(name, sizeof(name), "%s: %s gives dtmerge's tree", line, tab + 1);
		for (char *c = name; (c = strchr(c, '\t'));)
			*c = ' ';
		rc = fdt && want ? apply_lines(tab + 1, &fdt, &size) : -EIO;
		if (!rc)
			got = decompile(fdt, size);
		CHECK(got && strcmp(got, want) == 0, name);
		if (got && want && strcmp(got, want) != 0)
			show_difference(got, want);
		snprintf(name, sizeof(name), "%s: no warning", line);
		CHECK(!warned.len, name);
		free(got);
		free(want);
		free(fdt);
	}
	free(cases);
}

/*
 * A line the firmware partly ignores gives the tree of the line without
 * the ignored part, and a warning that names it.
 */
static void check_ignored(const char *line, const char *same_as,
			  const char *warning)
{
	char path[PATH_MAX + 32], name[300];
	char *want, *got = NULL;
	size_t size;
	void *fdt = load_base(&size);
	int rc;

	snprintf(path, sizeof(path), "%s/expected/%s.dts", dts_dir, same_as);
	want = unit_read_file(path, NULL);
	if (!want) {
		/* The base tree as it is. */
		want = fdt ? decompile(fdt, size) : NULL;
	}
	warned.len = 0;
	rc = fdt && want ? apply_line(line, &fdt, &size) : -EIO;
	if (!rc)
		got = decompile(fdt, size);
	snprintf(name, sizeof(name), "%s: applies as %s", line, same_as);
	CHECK(got && want && strcmp(got, want) == 0, name);
	snprintf(name, sizeof(name), "%s: warns", line);
	CHECK(strstr(warnings(), warning) != NULL, name);
	if (!strstr(warnings(), warning))
		printf("#   warnings: '%s'\n", warnings());
	free(got);
	free(want);
	free(fdt);
}

/* With a buffer, what is computed keeps its warnings: no other buffer gets them. */
static void check_kept(void)
{
	static const char want[] =
		"config.txt: dtparam=nosuch: unknown parameter 'nosuch': ignored, as the firmware does\n";
	struct imgp_buf kept = { 0 };
	size_t size;
	void *fdt = load_base(&size);
	bool ok;
	int rc;

	warned.len = 0;
	rc = fdt ? imgp_rpi_dtparam_(&fdt, &size, "nosuch", "config.txt: dtparam=nosuch", &kept)
		 : -EIO;
	ok = rc == 0 && imgp_buf_append(&kept, "", 1) == 0 &&
	     strcmp((char *)kept.data, want) == 0;
	CHECK(ok, "dtparam=nosuch: the warning is kept, a line, where it was asked to go");
	if (!ok)
		printf("#   rc %d, kept: '%s'\n", rc, kept.len ? (char *)kept.data : "");
	CHECK(!warned.len, "dtparam=nosuch: no other buffer gets the warning that was kept");
	imgp_buf_free(&kept);
	free(fdt);
}

static void test_ignored(void)
{
	check_ignored("dtoverlay=sdio,nosuch=1,poll_once=off,bus_width=1,sdio_overclock=50",
		      "sdio-params",
		      "dtoverlay=sdio: unknown parameter 'nosuch': ignored, as the firmware does");
	check_ignored("dtparam=audio", "(base)",
		      "dtparam: parameter 'audio': no match for 'true' in its lookup table");
	check_ignored("dtparam=sd_overclock=fast", "(base)",
		      "parameter 'sd_overclock': invalid value 'fast'");
	check_ignored("dtparam=nosuch,audio=on", "base-audio-on",
		      "dtparam: unknown parameter 'nosuch'");
	check_ignored("dtoverlay=edge,esc=\\q", "edge", "invalid escape");
	check_ignored("dtoverlay=edge,mac=0g", "edge", "invalid byte string '0g'");
	check_kept();
}

/* An overlay that cannot apply leaves the tree as it was. */
static void test_failures(void)
{
	static const char missing_label[] =
		"/dts-v1/;\n/plugin/;\n/ {\n"
		"	fragment@0 {\n		target = <&nosuch>;\n"
		"		__overlay__ { status = \"okay\"; };\n	};\n};\n";
	static const char missing_path[] =
		"/dts-v1/;\n/plugin/;\n/ {\n"
		"	fragment@0 {\n		target-path = \"/nosuch\";\n"
		"		__overlay__ { status = \"okay\"; };\n	};\n};\n";
	/* A cell 2 GiB into its property: the sum overflowed, then 2 GiB were asked for. */
	static const char far_cell[] =
		"/dts-v1/;\n/plugin/;\n/ {\n"
		"	fragment@0 {\n		target-path = \"/\";\n"
		"		__overlay__ { n: node { x = <1>; }; };\n	};\n"
		"	__overrides__ { far = <&n>, \"x:2147483647\"; };\n};\n";
	static const char plain[] = "/dts-v1/;\n/ { model = \"no symbols\"; };\n";
	const struct {
		const char *src, *name, *params, *message;
		int rc;
	} cases[] = {
		{ missing_label, "missing-label", "",
		  "overlay missing-label refers to label 'nosuch', which the base tree does not have",
		  -ENOENT },
		{ missing_path, "missing-path", "",
		  "overlay missing-path: fragment@0: target-path '/nosuch' is not in the base tree",
		  -ENOENT },
		{ far_cell, "far-cell", ",far=5", "offset in 'x' is past 1048576 bytes", -EINVAL },
	};
	size_t size, plain_size;
	void *fdt, *before, *plain_fdt;
	char file[64], name[200];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(file, sizeof(file), "%s-overlay.dts", cases[i].name);
		if (unit_write_text(unit_path(file), cases[i].src)) {
			CHECK(0, "writes the overlay source");
			continue;
		}
		{
			char src[PATH_MAX], dst[PATH_MAX], out[80];
			const char *argv[] = { "dtc", "-q", "-@", "-I", "dts", "-O", "dtb",
					       "-o", dst, src, NULL };

			snprintf(out, sizeof(out), "%s.dtbo", cases[i].name);
			unit_path_keep(src, sizeof(src), file);
			unit_path_keep(dst, sizeof(dst), out);
			unit_run(argv, NULL, NULL);
		}
		fdt = load_base(&size);
		before = fdt ? malloc(size) : NULL;
		if (before)
			memcpy(before, fdt, size);
		snprintf(file, sizeof(file), "dtoverlay=%s%s", cases[i].name, cases[i].params);
		snprintf(name, sizeof(name), "%s: refused with %d", file, cases[i].rc);
		CHECK(before && apply_line(file, &fdt, &size) == cases[i].rc, name);
		CHECK_STR(imgp_errmsg(), cases[i].message, "names the problem");
		CHECK(before && memcmp(before, fdt, size) == 0, "the tree is unchanged");
		free(before);
		free(fdt);
	}

	/* A base tree compiled without -@ has no labels to resolve. */
	if (unit_write_text(unit_path("plain.dts"), plain) == 0) {
		char src[PATH_MAX], dst[PATH_MAX];
		const char *argv[] = { "dtc", "-q", "-I", "dts", "-O", "dtb", "-o", dst,
				       src, NULL };

		unit_path_keep(src, sizeof(src), "plain.dts");
		unit_path_keep(dst, sizeof(dst), "plain.dtb");
		unit_run(argv, NULL, NULL);
	}
	plain_fdt = unit_read_file(unit_path("plain.dtb"), &plain_size);
	CHECK(plain_fdt && apply_line("dtoverlay=sdio", &plain_fdt, &plain_size) == -EINVAL,
	      "dtoverlay on a tree without __symbols__: refused");
	CHECK(strstr(imgp_errmsg(), "has no __symbols__ (it was not compiled with dtc -@)") != NULL,
	      "says the base tree lacks __symbols__");
	warned.len = 0;
	CHECK(plain_fdt && imgp_rpi_dtparam_(&plain_fdt, &plain_size, "audio=on", NULL, &warned) == 0 &&
	      strstr(warnings(), "unknown parameter 'audio'"),
	      "dtparam on a tree without __overrides__: ignored with a warning");
	free(plain_fdt);

	size = 8;
	fdt = calloc(1, size);
	CHECK(fdt && imgp_rpi_dtparam_(&fdt, &size, "audio=on", NULL, NULL) == -EINVAL,
	      "dtparam on 8 zero bytes: refused");
	free(fdt);
}

/* The lines the Raspberry Pi OS fixture's config.txt ends with here. */
static const char config_extra[] =
	"[pi4]\n"
	"dtoverlay=sdio,poll_once=off\n"
	"dtparam=bus_width=1\n"
	"dtparam=sdio_overclock=50\n"
	"dtoverlay=\n"
	"dtparam=sd_overclock=62,sd_poll_once\n"
	"[pi5]\n"
	"dtoverlay=nosuch\n"
	"dtoverlay=sdtweak,poll_once\n"
	"[all]\n";

/* The survey's tree for model, NULL when there is none. */
static const struct imgp_survey_bootdt *tree_for(const struct imgp_survey *sv,
						 const char *model)
{
	for (size_t i = 0; i < sv->bootinfo.ndts; i++)
		if (sv->bootinfo.dts[i].model && strcmp(sv->bootinfo.dts[i].model, model) == 0)
			return &sv->bootinfo.dts[i];
	return NULL;
}

/* A client's views of the survey say what its records hold, entry by entry. */
static void check_entry_views(const struct imgp_survey *sv)
{
	struct imgp_survey_view v;
	struct imgp_entry_view e;
	bool same = true;
	size_t i;

	imgp_survey_get_(sv, &v);
	CHECK(v.bootpath && strcmp(v.bootpath, "rpi") == 0 && v.boot == sv->boot->number &&
	      v.nentries == sv->bootinfo.ndts && v.nentries > 1,
	      "view: boot path rpi, its partition and its trees");
	for (i = 0; !imgp_survey_get_entry_(sv, i, &e); i++) {
		const struct imgp_survey_bootdt *dt = &sv->bootinfo.dts[i];

		same &= e.path == dt->path && e.model == dt->model &&
			e.noverlays == dt->noverlays &&
			e.overlays == (const char *const *)dt->overlays &&
			e.uboot_default == dt->uboot_default;
	}
	CHECK(same && i == v.nentries, "view: entry i is the boot path's tree i, none past the last");
}

/*
 * The boot path's apply method on a Raspberry Pi OS image: the Pi 4 tree
 * with every entry of its list applied is dtmerge's tree for the same
 * lines (case image-pi4).
 */
static void test_image(void)
{
	static const char *const pi4_list[] = {
		"dtparam=audio=on",
		"/overlays/vc4-kms-v3d.dtbo",
		"/overlays/sdio.dtbo,poll_once=off,bus_width=1,sdio_overclock=50",
		"dtparam=sd_overclock=62,sd_poll_once",
	};
	const char *fixtures = getenv("IMGP_TEST_FIXTURES");
	char script[PATH_MAX], img[PATH_MAX], config[PATH_MAX], option[PATH_MAX + 16];
	char path[PATH_MAX + 32], *want = NULL, *got = NULL;
	const char *argv[] = { "bash", script, img, "--rpi-trees", option, NULL };
	struct imgp_survey_opts opts = { .what = IMGP_SURVEY_BOOT };
	const struct imgp_survey_bootdt *pi4, *pi5;
	struct imgp_survey sv;
	struct imgp_disk *disk;
	struct imgp_buf base = { 0 };
	void *fdt = NULL;
	size_t size = 0;
	bool same;
	int rc = 0;

	snprintf(script, sizeof(script), "%s/mkimage-rpi.sh",
		 fixtures && *fixtures ? fixtures : "tests/fixtures");
	unit_path_keep(img, sizeof(img), "rpi.img");
	unit_path_keep(config, sizeof(config), "config-extra.txt");
	snprintf(option, sizeof(option), "--config=%s", config);
	if (unit_write_text(config, config_extra) || unit_spawn(argv, NULL, NULL) != 0) {
		CHECK(0, "mkimage-rpi.sh --rpi-trees builds the image");
		return;
	}
	if (imgp_disk_open(&disk, log_ctx, img, false)) {
		CHECK(0, "opens the image");
		return;
	}
	if (imgp_survey_open_(&sv, disk, &opts)) {
		CHECK(0, "surveys the image");
		imgp_disk_close(disk);
		return;
	}
	CHECK(sv.bootpath == &imgp_bootpath_rpi_, "boot path rpi");
	pi4 = tree_for(&sv, "pi4");
	pi5 = tree_for(&sv, "pi5");
	same = pi4 && pi4->noverlays == sizeof(pi4_list) / sizeof(pi4_list[0]);
	for (size_t i = 0; same && i < pi4->noverlays; i++) {
		same = strcmp(pi4->overlays[i], pi4_list[i]) == 0;
		if (!same)
			printf("#   entry %zu: '%s'\n", i, pi4->overlays[i]);
	}
	CHECK(same, "pi4: dtparam= lines after dtoverlay=sdio are its parameters, up to dtoverlay=");
	check_entry_views(&sv);

	if (pi4 && sv.bootpath && sv.bootpath->apply)
		rc = imgp_fs_read_file_(imgp_survey_fs_(&sv, sv.boot), pi4->path, 1u << 20, &base);
	if (pi4 && !rc && base.len) {
		fdt = imgp_buf_steal_(&base, &size);
		warned.len = 0;
		for (size_t i = 0; !rc && i < pi4->noverlays; i++)
			rc = sv.bootpath->apply(&sv, pi4, i, &fdt, &size, &warned);
		if (rc)
			printf("# %s\n", imgp_errmsg());
		got = rc ? NULL : decompile(fdt, size);
	}
	snprintf(path, sizeof(path), "%s/expected/image-pi4.dts", dts_dir);
	want = unit_read_file(path, NULL);
	CHECK(got && want && strcmp(got, want) == 0,
	      "pi4: the tree the boot path applies is dtmerge's (image-pi4)");
	if (got && want && strcmp(got, want) != 0)
		show_difference(got, want);
	CHECK(!warned.len, "pi4: no warning");
	free(got);
	free(want);

	/* A parameter's value may hold '/' and ".dtbo": the file is what precedes ".dtbo,". */
	if (pi4 && fdt) {
		char entry[] = "/overlays/sdio.dtbo,bus_width=1,x=/overlays/y.dtbo,z";
		char *list[] = { entry };
		struct imgp_survey_bootdt one = { .model = pi4->model, .path = pi4->path,
						  .noverlays = 1, .overlays = list };

		warned.len = 0;
		rc = sv.bootpath->apply(&sv, &one, 0, &fdt, &size, &warned);
		CHECK(rc == 0 && strstr(warnings(), "/bcm2711-rpi-4-b.dtb: dtoverlay=sdio,bus_width=1,x=/overlays/y.dtbo,z: unknown parameter 'x'") &&
		      strstr(warnings(), "unknown parameter 'z'"),
		      "an entry whose parameter value is a path: the overlay file still found");
		if (rc)
			printf("# %s\n", imgp_errmsg());
	}
	free(fdt);
	fdt = NULL;

	/* The stand-in Pi 5 tree has no __overrides__ and no overlays/nosuch.dtbo. */
	CHECK(pi5 && pi5->noverlays == 4 && strcmp(pi5->overlays[2], "/overlays/nosuch.dtbo") == 0 &&
	      strcmp(pi5->overlays[3], "/overlays/sdtweak.dtbo,poll_once") == 0,
	      "pi5: audio=on, vc4-kms-v3d, nosuch, sdtweak");
	base.len = 0;
	rc = pi5 ? imgp_fs_read_file_(imgp_survey_fs_(&sv, sv.boot), pi5->path, 1u << 20, &base) : -ENOENT;
	if (!rc) {
		fdt = imgp_buf_steal_(&base, &size);
		warned.len = 0;
		rc = sv.bootpath->apply(&sv, pi5, 0, &fdt, &size, &warned);
		CHECK(rc == 0 && strstr(warnings(), "/bcm2712-rpi-5-b.dtb: dtparam=audio=on: unknown parameter 'audio': ignored, as the firmware does"),
		      "pi5: dtparam=audio=on on a tree without __overrides__: a warning");
		CHECK(sv.bootpath->apply(&sv, pi5, 1, &fdt, &size, NULL) == 0, "pi5: vc4-kms-v3d applies");
		CHECK(sv.bootpath->apply(&sv, pi5, 2, &fdt, &size, NULL) == -ENOENT,
		      "pi5: a missing overlay file fails");
		CHECK_STR(imgp_errmsg(), "p1 (vfat): /overlays/nosuch.dtbo: no such file",
			  "names the partition and the file");
		CHECK(sv.bootpath->apply(&sv, pi5, 3, &fdt, &size, NULL) == -EINVAL,
		      "pi5: an overlay overlay_map.dtb deprecates fails");
		CHECK_STR(imgp_errmsg(), "/bcm2712-rpi-5-b.dtb: overlay 'sdtweak' is deprecated: use 'dtparam=sd_poll_once' etc. (/overlays/overlay_map.dtb): the firmware does not load it",
			  "says why, as the map does");
	}
	free(fdt);
	imgp_buf_free(&base);
	imgp_survey_close_(&sv);
	imgp_disk_close(disk);
}

int main(void)
{
	const char *dir = getenv("IMGP_TEST_RPI_DTS");
	static const char *const sources[][2] = {
		{ "bcm2711-rpi-4-b.dts", "base.dtb" },
		{ "sdhost-overlay.dts", "sdhost.dtbo" },
		{ "sdio-overlay.dts", "sdio.dtbo" },
		{ "spi0-1cs-overlay.dts", "spi0-1cs.dtbo" },
		{ "dwc2-overlay.dts", "dwc2.dtbo" },
		{ "edge-overlay.dts", "edge.dtbo" },
		{ "vc4-kms-v3d-overlay.dts", "vc4-kms-v3d.dtbo" },
	};
	bool ok = true;

	snprintf(dts_dir, sizeof(dts_dir), "%s", dir && *dir ? dir : "tests/dts/rpi");
	if (unit_tmpdir_create("rpi-params")) {
		perror("tmpdir");
		return 1;
	}
	if (imgp_ctx_new(&log_ctx)) {
		perror("ctx");
		return 1;
	}
	imgp_ctx_set_log(log_ctx, log_hook, NULL);
	for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]); i++)
		ok = ok && compile(sources[i][0], sources[i][1]) == 0;
	CHECK(ok, "dtc -@ compiles the Raspberry Pi trees and overlays");
	if (ok) {
		test_cases();
		test_ignored();
		test_failures();
		test_image();
	}
	unit_tmpdir_remove();
	imgp_ctx_free(log_ctx);
	imgp_buf_free(&warned);
	return unit_done();
}
