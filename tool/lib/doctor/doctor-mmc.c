// SPDX-License-Identifier: MIT
/*
 * SD and eMMC controllers of the trees the board may boot: the device-tree
 * properties that keep a card or an eMMC below the speed the controller
 * and the board allow. The controllers are the ones imgp_dt_list_mmc_()
 * finds; SDIO slots (a Wi-Fi chip behind the controller) are left alone.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libfdt.h>

#include "doctor/doctor.h"

#define HZ_SDR104 200000000u

enum mmc_kind { MMC_SD = IMGP_DT_MMC_SD, MMC_EMMC = IMGP_DT_MMC_EMMC, MMC_SDIO = IMGP_DT_MMC_SDIO };

/* What one controller node says, read once. */
struct mmc {
	const struct doctor_tree *tree;
	const char *path;
	int node;
	enum mmc_kind kind;
	const struct imgp_mmc_host *host;   /* NULL: not in the table (mmc-hosts.c) */
	bool no_1_8_v;
	int bus_width;                      /* 0: absent */
	unsigned max_hz;                    /* 0: absent */
	int vqmmc_min, vqmmc_max;           /* microvolts; 0: unknown */
	char vqmmc_path[256];
};

static bool has_prop(const void *fdt, int node, const char *name)
{
	return fdt_getprop(fdt, node, name, NULL) != NULL;
}

/* A one-cell property; -1 when absent or not one cell. */
static long long cell(const void *fdt, int node, const char *name)
{
	int len;
	const fdt32_t *p = fdt_getprop(fdt, node, name, &len);

	return p && len == 4 ? (long long)fdt32_to_cpu(*p) : -1;
}

static void mmc_vqmmc(struct mmc *m, const void *fdt)
{
	long long ph = cell(fdt, m->node, "vqmmc-supply");
	long long lo, hi;
	int reg;

	if (ph <= 0)
		return;
	reg = fdt_node_offset_by_phandle(fdt, (uint32_t)ph);
	if (reg < 0)
		return;
	lo = cell(fdt, reg, "regulator-min-microvolt");
	hi = cell(fdt, reg, "regulator-max-microvolt");
	if (lo <= 0 || hi <= 0 || lo > INT32_MAX || hi > INT32_MAX)
		return;
	m->vqmmc_min = (int)lo;
	m->vqmmc_max = (int)hi;
	if (fdt_get_path(fdt, reg, m->vqmmc_path, sizeof(m->vqmmc_path)) < 0)
		snprintf(m->vqmmc_path, sizeof(m->vqmmc_path), "<phandle %lld>", ph);
}

static void mmc_read(struct mmc *m, const struct doctor_tree *t, int node,
		     const struct imgp_dt_mmc *listed)
{
	const void *fdt = t->dtb.fdt;
	long long v;

	memset(m, 0, sizeof(*m));
	m->tree = t;
	m->path = listed->path;
	m->node = node;
	m->kind = (enum mmc_kind)listed->kind;
	m->host = imgp_mmc_host_find_(fdt, node);
	m->no_1_8_v = has_prop(fdt, node, "no-1-8-v");
	v = cell(fdt, node, "bus-width");
	m->bus_width = v > 0 && v <= 8 ? (int)v : 0;
	v = cell(fdt, node, "max-frequency");
	m->max_hz = v > 0 ? (unsigned)v : 0;
	mmc_vqmmc(m, fdt);
}

/* The I/O rail cannot go below 2.7 V: no 1.8 V signalling, whatever the tree says. */
static bool vqmmc_3v3_only(const struct mmc *m)
{
	return m->vqmmc_min >= 2700000;
}

static const char *kind_name(const struct mmc *m)
{
	return m->kind == MMC_EMMC ? "eMMC" : "SD";
}

/* The 1.8 V modes of the slot's kind: UHS-I for an SD card, HS200 for an eMMC. */
static enum imgp_mmc_cap fast_modes(const struct mmc *m)
{
	if (!m->host)
		return IMGP_MMC_CAP_UNKNOWN;
	return m->kind == MMC_SD ? m->host->uhs : m->host->hs200;
}

/* A finding of kind id about m (with the kind's milder severity when milder). */
static struct imgp_finding *mmc_finding(struct doctor *d, const struct mmc *m,
					enum doctor_finding_id id, bool milder,
					const char *prop)
{
	struct imgp_finding *f = imgp_doctor_add_milder_(d, id, milder);

	if (f && imgp_doctor_tree_evidence_(f, m->tree, m->path, prop))
		return NULL;
	return f;
}

/*
 * The kv260-uhs recipe fits a FIT tree named after a Kria starter-kit
 * carrier (fdt-smk-k26-revA-sck-kv-g-revB.dtb) when the boot script loads
 * user-override.dtb: it deletes no-1-8-v of mmc@ff170000 there.
 */
static int kria_recipe(struct doctor *d, const struct mmc *m, struct imgp_finding *f)
{
	const char *name = m->tree->image ? m->tree->image->name : "";
	char board[3], carrier[5], end[8];

	if (strcmp(m->path, "/axi/mmc@ff170000") != 0 ||
	    !d->sv.script.loads_override ||
	    sscanf(name, "fdt-smk-k26-revA-sck-%2[a-z]-g-%4[a-zA-Z]%7s", board,
		   carrier, end) != 3 || strcmp(end, ".dtb") != 0 ||
	    (strcmp(board, "kv") != 0 && strcmp(board, "kr") != 0) ||
	    (strcmp(carrier, "revA") != 0 && strcmp(carrier, "revB") != 0 &&
	     strcmp(carrier, "revZ") != 0))
		return 0;
	f->recipe = "kv260-uhs";
	return strcmp(board, "kv") == 0 ?
	       imgp_doctor_set_(&f->recipe_args, "--set carrier=%s", carrier) :
	       imgp_doctor_set_(&f->recipe_args, "--set carrier=%s --set board=kr", carrier);
}

/*
 * The shipped recipes that fix a finding on a board's tree with no
 * parameter to choose, each as its own match rule and step say: the
 * board's root compatible (the recipe's match) and the node its steps
 * change. One line per recipe.
 */
static const struct {
	enum doctor_finding_id id;
	const char *compatible;
	const char *node;
	const char *recipe;
} board_recipes[] = {
	/* recipes/rockpro64-sd-uhs.recipe: compatible pine64,rockpro64, /mmc@fe320000 */
	{ DOCTOR_UHS_MODES_MISSING, "pine64,rockpro64", "/mmc@fe320000", "rockpro64-sd-uhs" },
};

/* Names the shipped recipe of board_recipes[] that fixes f on m's tree, if one does. */
static int board_recipe(const struct mmc *m, enum doctor_finding_id id,
			struct imgp_finding *f)
{
	const void *fdt = m->tree->dtb.fdt;

	for (size_t i = 0; i < sizeof(board_recipes) / sizeof(board_recipes[0]); i++)
		if (board_recipes[i].id == id && !strcmp(m->path, board_recipes[i].node) &&
		    fdt_node_check_compatible(fdt, 0, board_recipes[i].compatible) == 0) {
			f->recipe = board_recipes[i].recipe;
			return imgp_doctor_set_(&f->recipe_args, "%s", "");
		}
	return 0;
}

/*
 * no-1-8-v costs something only where the host has 1.8 V modes, and is
 * sometimes there because the board needs it: a carrier whose level
 * shifter cannot pass 1.8 V signalling fails in UHS mode (the Kria
 * SCK-KV-G rev B overlay says the property "should be removed if the board
 * has level shifter and need to work in UHS mode"). The hint says so.
 */
static int check_no_1_8_v(struct doctor *d, const struct mmc *m)
{
	enum imgp_mmc_cap modes = fast_modes(m);
	struct imgp_finding *f;
	char arg[300];
	int rc;

	/* With the I/O rail fixed at 3.3 V the rail blocks 1.8 V, not the property. */
	if (!m->no_1_8_v || modes == IMGP_MMC_CAP_NO || vqmmc_3v3_only(m))
		return 0;
	f = mmc_finding(d, m, DOCTOR_UHS_BLOCKED, modes != IMGP_MMC_CAP_YES, "no-1-8-v");
	if (!f)
		return -ENOMEM;
	if (m->kind == MMC_SD) {
		rc = imgp_doctor_set_(&f->title, "SD controller %s may not switch to 1.8 V: UHS-I modes blocked",
				m->path);
		if (!rc)
			rc = imgp_doctor_set_(&f->cost, "the card stays at High Speed (50 MHz, about 25 MB/s) instead of SDR104 (200 MHz, 60 MB/s and more)");
	} else {
		rc = imgp_doctor_set_(&f->title, "eMMC controller %s may not switch to 1.8 V: HS200/HS400 blocked",
				m->path);
		if (!rc)
			rc = imgp_doctor_set_(&f->cost, "the eMMC stays at 52 MHz (High Speed or DDR52) instead of HS200 (200 MHz)");
	}
	if (!rc)
		rc = imgp_doctor_set_(&f->hint, "delete no-1-8-v from %s only where the board carries 1.8 V signalling: a vqmmc regulator that switches to 1.8 V and, between SoC and slot, no level shifter or one rated for UHS; boards without one fail at 1.8 V and need the property",
				m->path);
	snprintf(arg, sizeof(arg), "%s:no-1-8-v", m->path);
	if (!rc)
		rc = imgp_doctor_tree_patch_(d, f, m->tree, "--dt-delete", arg);
	if (!rc)
		rc = kria_recipe(d, m, f);
	return rc;
}

static int check_uhs_modes(struct doctor *d, const struct mmc *m)
{
	static const char *const modes[] = { "sd-uhs-sdr50", "sd-uhs-sdr104", "sd-uhs-ddr50" };
	const void *fdt = m->tree->dtb.fdt;
	struct imgp_finding *f;
	char arg[300];
	int rc;

	if (m->kind != MMC_SD || m->no_1_8_v || !m->host ||
	    m->host->uhs != IMGP_MMC_CAP_YES || vqmmc_3v3_only(m))
		return 0;
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (has_prop(fdt, m->node, modes[i]))
			return 0;
	/* Without an SDHCI host's own 1.8 V switch, a 1.8 V capable rail is needed. */
	if (!m->host->sdhci && !(m->vqmmc_min > 0 && m->vqmmc_min <= 1950000))
		return 0;
	f = mmc_finding(d, m, DOCTOR_UHS_MODES_MISSING, m->host->sdhci, NULL);
	if (!f)
		return -ENOMEM;
	rc = imgp_doctor_set_(&f->title, "SD controller %s (%s) lists no UHS-I mode (sd-uhs-sdr50, -sdr104, -ddr50)",
			m->path, m->host->compatible);
	if (!rc)
		rc = imgp_doctor_set_(&f->cost, m->host->sdhci ?
				"none when the controller's capability register reports the modes; else High Speed (about 25 MB/s)" :
				"the driver uses only the modes the tree lists: High Speed (about 25 MB/s) instead of SDR50/SDR104");
	if (!rc)
		rc = imgp_doctor_set_(&f->hint, "add sd-uhs-sdr50 to %s when its I/O supply switches to 1.8 V (sd-uhs-sdr104 too when the board's traces allow 200 MHz; %s)",
				m->path, m->host->source);
	snprintf(arg, sizeof(arg), "%s:sd-uhs-sdr50=", m->path);
	if (!rc)
		rc = imgp_doctor_tree_patch_(d, f, m->tree, "--dt-set", arg);
	if (!rc)
		rc = board_recipe(m, DOCTOR_UHS_MODES_MISSING, f);
	return rc;
}

/*
 * The highest clock the host runs: its SoC tree's, else 200 MHz for a host
 * with SDR104/HS200; at 3.3 V signalling (no-1-8-v, a fixed 3.3 V rail)
 * High Speed's 50 MHz (SD) or 52 MHz (eMMC).
 */
static unsigned host_limit(const struct mmc *m, const char **who)
{
	unsigned limit = m->host ? m->host->max_hz : 0;

	*who = m->host ? m->host->compatible : "";
	if (!limit && fast_modes(m) == IMGP_MMC_CAP_YES)
		limit = HZ_SDR104;
	if (limit > 52000000u && (m->no_1_8_v || vqmmc_3v3_only(m))) {
		*who = "High Speed at 3.3 V";
		limit = m->kind == MMC_SD ? 50000000u : 52000000u;
	}
	return limit < HZ_SDR104 ? limit : HZ_SDR104;
}

/*
 * A cap in a board's tree is that board's choice, made for its traces,
 * level shifters or card: information with the condition for raising it,
 * never a patch.
 */
static int check_max_frequency(struct doctor *d, const struct mmc *m)
{
	const char *who;
	unsigned limit = host_limit(m, &who);
	struct imgp_finding *f;
	int rc;

	if (!limit || !m->max_hz || m->max_hz >= limit)
		return 0;
	f = mmc_finding(d, m, DOCTOR_MAX_FREQUENCY_CAP, false, "max-frequency");
	if (!f)
		return -ENOMEM;
	rc = imgp_doctor_set_(&f->title, "%s controller %s is capped at %u MHz; %s allows %u MHz",
			kind_name(m), m->path, m->max_hz / 1000000, who,
			limit / 1000000);
	if (!rc)
		rc = imgp_doctor_set_(&f->cost, "the bus clock, and with it the transfer rate, stays at %u%% of what the controller can do",
				(unsigned)((unsigned long long)m->max_hz * 100 / limit));
	if (!rc)
		rc = imgp_doctor_set_(&f->hint, "raise max-frequency of %s towards %u only when the board's traces and any level shifter are rated for that clock (the board's vendor knows; %s)",
				m->path, limit, m->host->source);
	return rc;
}

static int check_broken_cd(struct doctor *d, const struct mmc *m)
{
	const void *fdt = m->tree->dtb.fdt;
	bool gpio = has_prop(fdt, m->node, "cd-gpios");
	struct imgp_finding *f;
	char arg[300];
	int rc;

	if (m->kind != MMC_SD || !has_prop(fdt, m->node, "broken-cd"))
		return 0;
	f = mmc_finding(d, m, DOCTOR_BROKEN_CD, false, "broken-cd");
	if (!f)
		return -ENOMEM;
	rc = imgp_doctor_set_(&f->title, "SD slot %s polls for the card (broken-cd)", m->path);
	if (!rc)
		rc = imgp_doctor_set_(&f->cost, "a card-detect poll every second: CPU wakeups, and a card change is seen late");
	if (!rc)
		rc = imgp_doctor_set_(&f->hint, gpio ?
				"delete broken-cd from %s: it has cd-gpios" :
				"if the board wires a card-detect line, describe it (cd-gpios) and delete broken-cd from %s",
				m->path);
	snprintf(arg, sizeof(arg), "%s:broken-cd", m->path);
	if (!rc && gpio)
		rc = imgp_doctor_tree_patch_(d, f, m->tree, "--dt-delete", arg);
	return rc;
}

/* The PinePhone's eMMC rail: only the R615->R614 hardware mod gives it 1.8 V. */
static int pinephone_recipe(struct doctor *d, const struct mmc *m,
			    struct imgp_finding *f)
{
	const void *fdt = m->tree->dtb.fdt;
	char rev[4], end[8];

	if (strcmp(m->path, "/soc/mmc@1c11000") != 0 || m->tree->image ||
	    !imgp_doctor_dt_has_string_(fdt, 0, "compatible", "pine64,pinephone") ||
	    !imgp_doctor_script_mentions_(d, "user.scr") ||
	    sscanf(m->tree->file, "/sun50i-a64-pinephone-%3[0-9.]%7s", rev, end) != 2 ||
	    strcmp(end, ".dtb") != 0)
		return 0;
	f->recipe = "pinephone-vccq-mod";
	return imgp_doctor_set_(&f->recipe_args, "--set hardware-mod=done --set revision=%s", rev);
}

static int check_emmc_vqmmc(struct doctor *d, const struct mmc *m)
{
	struct imgp_finding *f;
	int rc;

	if (m->kind != MMC_EMMC || !vqmmc_3v3_only(m))
		return 0;
	f = mmc_finding(d, m, DOCTOR_EMMC_VQMMC_3V3, false, "vqmmc-supply");
	if (!f)
		return -ENOMEM;
	rc = imgp_doctor_set_(&f->title, "eMMC %s takes its I/O supply from %s, fixed at %d.%d V",
			m->path, m->vqmmc_path, m->vqmmc_min / 1000000,
			m->vqmmc_min / 100000 % 10);
	if (!rc)
		rc = imgp_doctor_set_(&f->cost, "HS200 and HS400 need 1.8 V I/O: the eMMC stays at 52 MHz (about 40 MB/s)");
	if (!rc)
		rc = imgp_doctor_set_(&f->hint, "a hardware change: feed the eMMC's VCCQ from a 1.8 V rail, then point vqmmc-supply at it and add mmc-hs200-1_8v");
	if (!rc)
		rc = pinephone_recipe(d, m, f);
	return rc;
}

static int check_emmc_hs200(struct doctor *d, const struct mmc *m)
{
	const void *fdt = m->tree->dtb.fdt;
	struct imgp_finding *f;
	char arg[300];
	int rc;

	/* A 3.3 V rail or no-1-8-v is the cause then, reported as such. */
	if (m->kind != MMC_EMMC || !m->host || m->host->hs200 != IMGP_MMC_CAP_YES ||
	    m->no_1_8_v || vqmmc_3v3_only(m) ||
	    has_prop(fdt, m->node, "mmc-hs200-1_8v") ||
	    has_prop(fdt, m->node, "mmc-hs400-1_8v"))
		return 0;
	f = mmc_finding(d, m, DOCTOR_EMMC_HS200_MISSING, false, NULL);
	if (!f)
		return -ENOMEM;
	rc = imgp_doctor_set_(&f->title, "eMMC controller %s lists neither mmc-hs200-1_8v nor mmc-hs400-1_8v",
			m->path);
	if (!rc)
		rc = imgp_doctor_set_(&f->cost, m->host->sdhci ?
				"none when the controller's capability register reports HS200; else 52 MHz instead of 200 MHz" :
				"the eMMC stays at 52 MHz instead of HS200 (200 MHz)");
	if (!rc)
		rc = imgp_doctor_set_(&f->hint, "add mmc-hs200-1_8v to %s when the eMMC's I/O supply (VCCQ) is 1.8 V (%s)",
				m->path, m->host->source);
	snprintf(arg, sizeof(arg), "%s:mmc-hs200-1_8v=", m->path);
	if (!rc)
		rc = imgp_doctor_tree_patch_(d, f, m->tree, "--dt-set", arg);
	return rc;
}

static int check_bus_width(struct doctor *d, const struct mmc *m)
{
	struct imgp_finding *f;
	char arg[300];
	int rc;

	/* Only the certain case: one data line where SD and eMMC have four or more. */
	if (m->bus_width != 1)
		return 0;
	f = mmc_finding(d, m, DOCTOR_BUS_WIDTH_LOW, false, "bus-width");
	if (!f)
		return -ENOMEM;
	rc = imgp_doctor_set_(&f->title, "%s controller %s uses one data line (bus-width = <1>)",
			kind_name(m), m->path);
	if (!rc)
		rc = imgp_doctor_set_(&f->cost, m->kind == MMC_SD ?
				"a quarter of the 4-bit bandwidth" :
				"a quarter or an eighth of the 4- or 8-bit bandwidth");
	if (!rc)
		rc = imgp_doctor_set_(&f->hint, "set bus-width of %s to the data lines the board wires (%s)",
				m->path, m->kind == MMC_SD ? "4 for an SD slot" : "4 or 8");
	snprintf(arg, sizeof(arg), "%s:bus-width=<4>", m->path);
	if (!rc && m->kind == MMC_SD)
		rc = imgp_doctor_tree_patch_(d, f, m->tree, "--dt-set", arg);
	return rc;
}

static int check_tree(struct doctor *d, const struct doctor_tree *t)
{
	static int (*const checks[])(struct doctor *, const struct mmc *) = {
		check_no_1_8_v, check_uhs_modes, check_max_frequency,
		check_broken_cd, check_emmc_vqmmc, check_emmc_hs200,
		check_bus_width,
	};
	struct imgp_buf warnings = { 0 };
	struct imgp_dt_mmc *list;
	size_t n;
	int rc;

	rc = imgp_dt_list_mmc_(&t->dtb, &list, &n, &warnings);
	imgp_warn_lines_(imgp_survey_ctx_(&d->sv), (const char *)warnings.data);
	imgp_buf_free(&warnings);
	for (size_t i = 0; i < n && !rc; i++) {
		struct mmc m;
		int node;

		if (strcmp(list[i].status, "okay") != 0 && strcmp(list[i].status, "ok") != 0)
			continue;
		node = fdt_path_offset(t->dtb.fdt, list[i].path);
		if (node < 0)
			continue;
		mmc_read(&m, t, node, &list[i]);
		if (m.kind == MMC_SDIO)
			continue;
		for (size_t k = 0; k < sizeof(checks) / sizeof(checks[0]) && !rc; k++)
			rc = checks[k](d, &m);
	}
	free(list);
	return rc;
}

int imgp_doctor_check_mmc_(struct doctor *d)
{
	int rc = 0;

	for (size_t i = 0; i < d->ntrees && !rc; i++)
		rc = check_tree(d, &d->trees[i]);
	return rc;
}
