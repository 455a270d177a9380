// SPDX-License-Identifier: MIT
/*
 * SD/eMMC controllers of real Debian trees: for every controller listed in
 * tests/dtb/mmc-classes.txt, the class imgp_dt_list_mmc() gives its slot and
 * the findings the doctor's SD/eMMC check makes about it must be the ones
 * reviewed there. Each line: FILE NODE CLASS FINDINGS REASON..., FINDINGS
 * being "-" or id:severity joined by ",".
 *
 * With IMGP_DEBIAN_DTB_DIR set (a tree of .dtb files, e.g. a kernel
 * package's /usr/lib/linux-image-*), every tree in it is also swept: the
 * classes and findings are counted, and with IMGP_DEBIAN_DTB_LIST set, one
 * line per controller in the format above is written there for review.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libfdt.h>

#include "doctor/doctor.h"
#include "unit.h"

#define MMC_MAX 64

struct sweep {
	unsigned trees, broken, controllers, classes[3], findings[DOCTOR_NFINDINGS];
	FILE *list;
};

/* "id:severity,..." of the findings about node, or "-". */
static void findings_of(const struct imgp_doctor *out, const char *node,
			char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < out->n; i++) {
		const struct imgp_finding *f = &out->findings[i];

		if (!f->node || strcmp(f->node, node) != 0)
			continue;
		used += (size_t)snprintf(buf + used, used < size ? size - used : 0, "%s%s:%s",
					 used ? "," : "", f->id, imgp_severity_name(f->severity));
	}
	if (!buf[0])
		snprintf(buf, size, "-");
}

/*
 * Runs the doctor's SD/eMMC check over one tree, as a .dtb file on the boot
 * partition that no boot script loads an override for.
 */
static int check_tree(const char *path, const char *name, struct imgp_dtb *dtb,
		      struct imgp_doctor *out, struct imgp_dt_mmc *list, int *n)
{
	static const struct imgp_part part = { .number = 1 };
	struct doctor_tree tree = { .part = &part, .file = (char *)name };
	struct doctor d = { .out = out, .ntrees = 1, .trees = &tree };
	struct imgp_dt_mmc *found;
	size_t len, nfound;
	void *raw = unit_read_file(path, &len);
	int rc;

	memset(out, 0, sizeof(*out));
	if (!raw)
		return -ENOENT;
	rc = imgp_dtb_load(dtb, raw, len);
	free(raw);
	if (rc)
		return rc;
	rc = imgp_dt_list_mmc(dtb, &found, &nfound, NULL);
	if (rc)
		return rc;
	/* The callers' list holds MMC_MAX: more is a tree to look at. */
	CHECK(nfound <= MMC_MAX, "classes: no tree has more than MMC_MAX controllers");
	*n = nfound <= MMC_MAX ? (int)nfound : MMC_MAX;
	memcpy(list, found, (size_t)*n * sizeof(*list));
	free(found);
	tree.dtb = *dtb;
	return imgp_doctor_check_mmc(&d);
}

static void test_reviewed(const char *dir)
{
	char path[512], line[1024];
	struct imgp_dt_mmc *list = calloc(MMC_MAX, sizeof(*list));
	unsigned agree = 0, total = 0;
	FILE *in;

	snprintf(path, sizeof(path), "%s/mmc-classes.txt", dir);
	in = fopen(path, "r");
	CHECK(in && list, "classes: the reviewed list opens");
	if (!in || !list) {
		free(list);
		return;
	}
	while (fgets(line, sizeof(line), in)) {
		char file[128], node[256], class[8], want[256], got[512], name[160], title[800];
		struct imgp_doctor out;
		struct imgp_dtb dtb;
		const char *kind = NULL;
		int n = 0, rc;

		if (line[0] == '#' || line[0] == '\n' ||
		    sscanf(line, "%127s %255s %7s %255s", file, node, class, want) != 4)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, file);
		snprintf(name, sizeof(name), "/%s", file);
		rc = check_tree(path, name, &dtb, &out, list, &n);
		for (int i = 0; !rc && i < n; i++)
			if (strcmp(list[i].path, node) == 0)
				kind = imgp_dt_mmc_kind_name(list[i].kind);
		findings_of(&out, node, got, sizeof(got));
		total++;
		snprintf(title, sizeof(title), "classes: %s %s is %s with %s", file, node, class, want);
		if (!rc && kind && strcmp(kind, class) == 0 && strcmp(got, want) == 0)
			agree++;
		else
			printf("#   got:  %s %s %s %s (rc %d)\n", file, node,
			       kind ? kind : "(not a controller)", got, rc);
		CHECK(!rc && kind && strcmp(kind, class) == 0 && strcmp(got, want) == 0, title);
		imgp_doctor_clear(&out);
		imgp_dtb_free(&dtb);
	}
	fclose(in);
	free(list);
	printf("# reviewed controllers: %u of %u agree\n", agree, total);
	CHECK(total > 0, "classes: the list has controllers");
}

static void sweep_tree(const char *path, const char *rel, struct sweep *s,
		       struct imgp_dt_mmc *list)
{
	struct imgp_doctor out;
	struct imgp_dtb dtb;
	char name[1024], got[512];
	int n = 0;

	snprintf(name, sizeof(name), "/%s", rel);
	s->trees++;
	if (check_tree(path, name, &dtb, &out, list, &n)) {
		s->broken++;
		printf("# sweep: %s: %s\n", rel, imgp_errmsg());
	}
	for (int i = 0; i < n; i++) {
		s->controllers++;
		s->classes[list[i].kind]++;
		findings_of(&out, list[i].path, got, sizeof(got));
		if (s->list)
			fprintf(s->list, "%s %s %s %s status=%s\n", rel, list[i].path,
				imgp_dt_mmc_kind_name(list[i].kind), got, list[i].status);
	}
	for (size_t i = 0; i < out.n; i++)
		for (int k = 0; k < DOCTOR_NFINDINGS; k++)
			if (strcmp(out.findings[i].id, imgp_doctor_findings[k].id) == 0)
				s->findings[k]++;
	imgp_doctor_clear(&out);
	imgp_dtb_free(&dtb);
}

static void sweep_dir(const char *top, const char *rel, struct sweep *s,
		      struct imgp_dt_mmc *list)
{
	char path[1024], sub[900];
	struct dirent **names;
	int n;

	snprintf(path, sizeof(path), "%s%s%s", top, *rel ? "/" : "", rel);
	n = scandir(path, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		const char *e = names[i]->d_name;
		size_t len = strlen(e);

		snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", e);
		snprintf(path, sizeof(path), "%s/%s", top, sub);
		if (e[0] == '.')
			;
		else if (len > 4 && strcmp(e + len - 4, ".dtb") == 0)
			sweep_tree(path, sub, s, list);
		else if (names[i]->d_type == DT_DIR)
			sweep_dir(top, sub, s, list);
		free(names[i]);
	}
	if (n >= 0)
		free(names);
}

static void test_sweep(const char *top)
{
	struct imgp_dt_mmc *list = calloc(MMC_MAX, sizeof(*list));
	const char *listing = getenv("IMGP_DEBIAN_DTB_LIST");
	struct sweep s = { 0 };

	if (!list)
		return;
	s.list = listing && *listing ? fopen(listing, "w") : NULL;
	sweep_dir(top, "", &s, list);
	if (s.list)
		fclose(s.list);
	free(list);
	printf("# sweep: %u trees (%u unreadable), %u controllers: %u sd, %u emmc, %u sdio\n",
	       s.trees, s.broken, s.controllers, s.classes[IMGP_DT_MMC_SD],
	       s.classes[IMGP_DT_MMC_EMMC], s.classes[IMGP_DT_MMC_SDIO]);
	for (int k = 0; k < DOCTOR_NFINDINGS; k++)
		if (s.findings[k])
			printf("# sweep: %u %s\n", s.findings[k], imgp_doctor_findings[k].id);
	CHECK(s.trees > 0 && s.broken == 0, "sweep: every tree reads");
}

int main(void)
{
	const char *dir = getenv("IMGP_TEST_DTB_DIR");
	const char *debian = getenv("IMGP_DEBIAN_DTB_DIR");

	test_reviewed(dir && *dir ? dir : "tests/dtb");
	if (debian && *debian)
		test_sweep(debian);
	return unit_done();
}
