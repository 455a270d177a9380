// SPDX-License-Identifier: MIT
/*
 * SD/eMMC controllers of real Debian trees: for every controller listed in
 * tests/dtb/mmc-classes.txt, the class imgp_dt_list_mmc_() gives its slot and
 * the findings the doctor's SD/eMMC check makes about it must be the ones
 * reviewed there. Each line: FILE NODE CLASS FINDINGS REASON..., FINDINGS
 * being "-" or id:severity joined by ",".
 *
 * Each rule of imgp_dt_mmc_kind_of_() is also held to a small tree dtc
 * compiles here, one controller per shape a Debian tree showed, so a
 * change of the order of the rules is seen without the reviewed trees.
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
					 used ? "," : "", f->id, imgp_severity_name_(f->severity));
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
	rc = imgp_dtb_load_(dtb, raw, len);
	free(raw);
	if (rc)
		return rc;
	rc = imgp_dt_list_mmc_(dtb, &found, &nfound, NULL);
	if (rc)
		return rc;
	/* The callers' list holds MMC_MAX: more is a tree to look at. */
	CHECK(nfound <= MMC_MAX, "classes: no tree has more than MMC_MAX controllers");
	*n = nfound <= MMC_MAX ? (int)nfound : MMC_MAX;
	if (*n)  /* found is NULL for a tree without controllers */
		memcpy(list, found, (size_t)*n * sizeof(*list));
	free(found);
	tree.dtb = *dtb;
	return imgp_doctor_check_mmc_(&d);
}

/* One controller per rule, each shaped like the Debian tree named in rules[]. */
static const char rules_dts[] =
	"/dts-v1/;\n"
	"/ {\n"
	"	#address-cells = <1>;\n"
	"	#size-cells = <1>;\n"
	"	wifi_seq: pwrseq-wifi {\n"
	"		compatible = \"mmc-pwrseq-simple\";\n"
	"	};\n"
	"	emmc_seq: pwrseq-emmc {\n"
	"		compatible = \"mmc-pwrseq-emmc\";\n"
	"	};\n"
	"	soc {\n"
	"		#address-cells = <1>;\n"
	"		#size-cells = <1>;\n"
	"		mmc@1000 {\n"
	"			compatible = \"acme,soc-sdhci\";\n"
	"			reg = <0x1000 0x100>;\n"
	"			bus-width = <4>;\n"
	"			broken-cd;\n"
	"			mmc-pwrseq = <&wifi_seq>;\n"
	"		};\n"
	"		mmc@2000 {\n"
	"			compatible = \"acme,soc-sdhci\";\n"
	"			reg = <0x2000 0x100>;\n"
	"			bus-width = <8>;\n"
	"			broken-cd;\n"
	"			cap-mmc-highspeed;\n"
	"		};\n"
	"		mmc@3000 {\n"
	"			compatible = \"acme,soc-sdhci\";\n"
	"			reg = <0x3000 0x100>;\n"
	"			bus-width = <8>;\n"
	"			broken-cd;\n"
	"			wp-inverted;\n"
	"		};\n"
	"		mmc@4000 {\n"
	"			compatible = \"acme,soc-sdhci\";\n"
	"			reg = <0x4000 0x100>;\n"
	"			bus-width = <4>;\n"
	"			non-removable;\n"
	"			wifi {\n"
	"				compatible = \"ti,wl1271\";\n"
	"			};\n"
	"		};\n"
	"		mmc@5000 {\n"
	"			compatible = \"acme,soc-sdhci\";\n"
	"			reg = <0x5000 0x100>;\n"
	"			#address-cells = <1>;\n"
	"			#size-cells = <0>;\n"
	"			bus-width = <8>;\n"
	"			non-removable;\n"
	"			no-sd;\n"
	"			no-sdio;\n"
	"			mmccard@0 {\n"
	"				compatible = \"mmc-card\";\n"
	"				reg = <0>;\n"
	"			};\n"
	"		};\n"
	"		mmc@6000 {\n"
	"			compatible = \"acme,soc-sdhci\";\n"
	"			reg = <0x6000 0x100>;\n"
	"			bus-width = <4>;\n"
	"			cd-gpios = <0 12 1>;\n"
	"			cap-sdio-irq;\n"
	"			keep-power-in-suspend;\n"
	"			mmc-pwrseq = <&wifi_seq>;\n"
	"		};\n"
	"		mmc@7000 {\n"
	"			compatible = \"acme,soc-sdhci\";\n"
	"			reg = <0x7000 0x100>;\n"
	"			bus-width = <8>;\n"
	"			broken-cd;\n"
	"			mmc-pwrseq = <&emmc_seq>;\n"
	"		};\n"
	"		mmc@8000 {\n"
	"			compatible = \"acme,soc-sdhci\";\n"
	"			reg = <0x8000 0x100>;\n"
	"			bus-width = <4>;\n"
	"			cd-gpios = <0 3 1>;\n"
	"			opp-table {\n"
	"				compatible = \"operating-points-v2\";\n"
	"			};\n"
	"		};\n"
	"		mmc@9000 {\n"
	"			compatible = \"acme,soc-sdio\";\n"
	"			reg = <0x9000 0x100>;\n"
	"			#address-cells = <1>;\n"
	"			#size-cells = <0>;\n"
	"			slot@0 {\n"
	"				compatible = \"mmc-slot\";\n"
	"				reg = <0>;\n"
	"				status = \"disabled\";\n"
	"				non-removable;\n"
	"				no-sd;\n"
	"				no-sdio;\n"
	"			};\n"
	"			slot@1 {\n"
	"				compatible = \"mmc-slot\";\n"
	"				reg = <1>;\n"
	"				bus-width = <4>;\n"
	"				no-sdio;\n"
	"				cd-gpios = <0 53 1>;\n"
	"			};\n"
	"		};\n"
	"		mmc@a000 {\n"
	"			compatible = \"acme,soc-sdhci\";\n"
	"			reg = <0xa000 0x100>;\n"
	"			bus-width = <4>;\n"
	"			broken-cd;\n"
	"			mmc-ddr-3_3v;\n"
	"		};\n"
	"		mmc@b000 {\n"
	"			compatible = \"acme,soc-sdhci\";\n"
	"			reg = <0xb000 0x100>;\n"
	"			bus-width = <4>;\n"
	"			broken-cd;\n"
	"			mmc-hs200-1_8v;\n"
	"		};\n"
	"		mmc@c000 {\n"
	"			compatible = \"acme,soc-sdhci\";\n"
	"			reg = <0xc000 0x100>;\n"
	"			bus-width = <8>;\n"
	"			cd-gpios = <0 4 1>;\n"
	"		};\n"
	"		mmc@d000 {\n"
	"			compatible = \"acme,soc-sdhci\";\n"
	"			reg = <0xd000 0x100>;\n"
	"			broken-cd;\n"
	"			mmc-pwrseq = <0xdead>;\n"
	"		};\n"
	"		mmc@e000 {\n"
	"			compatible = \"acme,soc-sdhci\";\n"
	"			reg = <0xe000 0x100>;\n"
	"			mmc-pwrseq = [00 01];\n"
	"			bus-width = <8>;\n"
	"		};\n"
	"		mmc@f000 {\n"
	"			compatible = \"acme,soc-sdio\";\n"
	"			reg = <0xf000 0x100>;\n"
	"			#address-cells = <1>;\n"
	"			#size-cells = <0>;\n"
	"			slot@0 {\n"
	"				compatible = \"mmc-slot\";\n"
	"				reg = <0>;\n"
	"				#address-cells = <1>;\n"
	"				#size-cells = <0>;\n"
	"				slot@0 {\n"
	"					compatible = \"mmc-slot\";\n"
	"					reg = <0>;\n"
	"					non-removable;\n"
	"					no-sd;\n"
	"					no-sdio;\n"
	"				};\n"
	"			};\n"
	"		};\n"
	"	};\n"
	"};\n";

static const struct {
	const char *node;
	enum imgp_dt_mmc_kind kind;
	const char *why;
} rules[] = {
	{ "/soc/mmc@1000", IMGP_DT_MMC_SDIO,
	  "a Wi-Fi power sequence outweighs broken-cd (meson-axg-jethome-jethub-j110 sd@5000)" },
	{ "/soc/mmc@2000", IMGP_DT_MMC_EMMC,
	  "an 8-bit bus outweighs broken-cd (exynos4412-origen, fsl-lx2160a-rdb)" },
	{ "/soc/mmc@3000", IMGP_DT_MMC_SD,
	  "a write-protect line is a removable slot, 8 bits or not (armada-388-gp)" },
	{ "/soc/mmc@4000", IMGP_DT_MMC_SDIO,
	  "a Wi-Fi child with a compatible and no reg is an SDIO function (imx6q-prti6q)" },
	{ "/soc/mmc@5000", IMGP_DT_MMC_EMMC,
	  "an mmc-card child is an eMMC (imx6dl-mba6a mmc@2198000)" },
	{ "/soc/mmc@6000", IMGP_DT_MMC_SDIO,
	  "a Wi-Fi power sequence outweighs cd-gpios: a Wi-Fi module (imx8mq-librem5)" },
	{ "/soc/mmc@7000", IMGP_DT_MMC_EMMC,
	  "mmc-pwrseq-emmc outweighs broken-cd: an eMMC module socket (exynos4412-odroidu3)" },
	{ "/soc/mmc@8000", IMGP_DT_MMC_SD,
	  "an OPP table child says nothing about the card (qcom sdhci)" },
	{ "/soc/mmc@9000", IMGP_DT_MMC_SD,
	  "a host holds what its first enabled mmc-slot child holds (meson8b-odroidc1)" },
	{ "/soc/mmc@a000", IMGP_DT_MMC_SD,
	  "broken-cd on a 4-bit slot with no eMMC mode stays an SD slot (bcm2711-rpi-4-b)" },
	{ "/soc/mmc@b000", IMGP_DT_MMC_EMMC,
	  "an eMMC mode outweighs broken-cd (fsl-ls1012a-rdb esdhc@1580000)" },
	{ "/soc/mmc@c000", IMGP_DT_MMC_SD,
	  "cd-gpios outweighs an 8-bit bus: an SD/MMC slot (imx6q-sabresd)" },
	{ "/soc/mmc@d000", IMGP_DT_MMC_SD,
	  "a power sequence pointing nowhere is no evidence" },
	{ "/soc/mmc@e000", IMGP_DT_MMC_EMMC,
	  "a power sequence shorter than a phandle is no evidence" },
	{ "/soc/mmc@f000", IMGP_DT_MMC_SD,
	  "a slot inside a slot is not looked into: one level down at most" },
};

/* Each rule of the class, on the tree above, as imgp_dt_list_mmc_() lists it. */
static void test_rules(void)
{
	const char *argv[] = { "dtc", "-q", "-I", "dts", "-O", "dtb", "-o", NULL, NULL, NULL };
	char dtb_path[512], dts_path[512], title[256];
	struct imgp_dt_mmc *list = NULL;
	struct imgp_dtb dtb;
	size_t len, n = 0;
	void *raw = NULL;

	argv[7] = unit_path_keep(dtb_path, sizeof(dtb_path), "rules.dtb");
	argv[8] = unit_path_keep(dts_path, sizeof(dts_path), "rules.dts");
	if (unit_write_text(dts_path, rules_dts) || unit_run(argv, NULL, NULL) ||
	    !(raw = unit_read_file(dtb_path, &len)) || imgp_dtb_load_(&dtb, raw, len)) {
		free(raw);
		CHECK(0, "rules: dtc compiles the tree of rules and it loads");
		return;
	}
	free(raw);
	CHECK(imgp_dt_list_mmc_(&dtb, &list, &n, NULL) == 0 &&
	      n == sizeof(rules) / sizeof(rules[0]), "rules: every controller of the tree is listed");
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		const char *got = "(not listed)";

		for (size_t k = 0; k < n; k++)
			if (strcmp(list[k].path, rules[i].node) == 0)
				got = imgp_dt_mmc_kind_name_(list[k].kind);
		snprintf(title, sizeof(title), "rules: %s is %s: %s", rules[i].node,
			 imgp_dt_mmc_kind_name_(rules[i].kind), rules[i].why);
		CHECK_STR(got, imgp_dt_mmc_kind_name_(rules[i].kind), title);
	}
	free(list);
	imgp_dtb_free_(&dtb);
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
				kind = imgp_dt_mmc_kind_name_(list[i].kind);
		findings_of(&out, node, got, sizeof(got));
		total++;
		snprintf(title, sizeof(title), "classes: %s %s is %s with %s", file, node, class, want);
		if (!rc && kind && strcmp(kind, class) == 0 && strcmp(got, want) == 0)
			agree++;
		else
			printf("#   got:  %s %s %s %s (rc %d)\n", file, node,
			       kind ? kind : "(not a controller)", got, rc);
		CHECK(!rc && kind && strcmp(kind, class) == 0 && strcmp(got, want) == 0, title);
		imgp_doctor_clear_(&out);
		imgp_dtb_free_(&dtb);
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
				imgp_dt_mmc_kind_name_(list[i].kind), got, list[i].status);
	}
	for (size_t i = 0; i < out.n; i++)
		for (int k = 0; k < DOCTOR_NFINDINGS; k++)
			if (strcmp(out.findings[i].id, imgp_doctor_findings_[k].id) == 0)
				s->findings[k]++;
	imgp_doctor_clear_(&out);
	imgp_dtb_free_(&dtb);
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
			printf("# sweep: %u %s\n", s.findings[k], imgp_doctor_findings_[k].id);
	CHECK(s.trees > 0 && s.broken == 0, "sweep: every tree reads");
}

int main(void)
{
	const char *dir = getenv("IMGP_TEST_DTB_DIR");
	const char *debian = getenv("IMGP_DEBIAN_DTB_DIR");
	int status;

	if (unit_tmpdir_create("mmc-classes")) {
		perror("mkdtemp");
		return 1;
	}
	test_rules();
	test_reviewed(dir && *dir ? dir : "tests/dtb");
	if (debian && *debian)
		test_sweep(debian);
	status = unit_done();
	unit_tmpdir_remove();
	return status;
}
