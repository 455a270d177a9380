// SPDX-License-Identifier: MIT
/*
 * The SD/eMMC controllers of a device tree and the properties that limit
 * their bus speed.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <libfdt.h>

#include "dt-internal.h"
#include "core/core.h"
#include "dt/dt.h"

/* ---------------------------------------------------------------- mmc */

/*
 * A compatible string of an SD/eMMC host driver: the SDHCI family ("sdhci",
 * "esdhc", "usdhc", "wm8505-sdhc"), Synopsys ("dw-mshc", "dwcmshc"), TI
 * "hsmmc", Atmel "hsmci", Renesas "sdhi", Cadence "sd4hc", Broadcom
 * "sdhost" and "emmc2", ARM PrimeCell "pl18x"/"pl180", and the vendor
 * hosts named "<soc>-mmc", "<soc>-emmc", "<soc>-sdio" (Allwinner, Amlogic,
 * Marvell orion-sdio). Not: "mmc-pwrseq-*", "mmc-card", "mmc-slot", clock
 * controllers ("qcom,mmcc-*"), PHYs and ECC blocks, which also say mmc.
 */
static bool dt_is_host_compatible(const char *c)
{
	static const char *const inside[] = {
		"sdhci", "sdhc", "mshc", "hsmmc", "hsmci", "sdhi", "sd4hc",
		"sdhost", "emmc2", "pl18x", "pl180",
	};
	static const char *const ending[] = { "-mmc", "-emmc", "-sdio" };
	static const char *const never[] = { "pwrseq", "-phy", "-ecc", "clock", "mmcc" };
	const char *model = strchr(c, ',');
	size_t len, i;

	if (strcmp(c, "mmc-spi-slot") == 0)
		return true;
	if (!model)
		return false;
	model++;
	for (i = 0; i < sizeof(never) / sizeof(never[0]); i++)
		if (strstr(model, never[i]))
			return false;
	for (i = 0; i < sizeof(inside) / sizeof(inside[0]); i++)
		if (strstr(model, inside[i]))
			return true;
	len = strlen(model);
	for (i = 0; i < sizeof(ending) / sizeof(ending[0]); i++) {
		size_t n = strlen(ending[i]);

		if (len > n && strcmp(model + len - n, ending[i]) == 0)
			return true;
	}
	return false;
}

bool imgp_dt_is_mmc_(const void *fdt, int node)
{
	const char *name, *p, *end;
	int len;

	if (node <= 0)
		return false;
	p = fdt_getprop(fdt, node, "compatible", &len);
	if (!p) {
		/*
		 * A hand-written tree may leave the compatible to an include it
		 * lacks; the unit address leaves out pin groups and LEDs named mmc.
		 */
		name = fdt_get_name(fdt, node, NULL);
		return name && strchr(name, '@') &&
		       (imgp_dt_base_eq_(name, "mmc", 3) || imgp_dt_base_eq_(name, "sdhci", 5));
	}
	/* A host has registers; regulators, power sequences and boards' root nodes do not. */
	if (!fdt_getprop(fdt, node, "reg", NULL))
		return false;
	if (len <= 0 || p[len - 1] != '\0')
		return false;
	for (end = p + len; p < end; p += strlen(p) + 1)
		if (dt_is_host_compatible(p))
			return true;
	return false;
}

/* The node a one-cell phandle property points at; -1 when none. */
static int dt_phandle_target(const void *fdt, int node, const char *prop)
{
	int len;
	const fdt32_t *p = fdt_getprop(fdt, node, prop, &len);

	if (!p || len < 4)
		return -1;
	return fdt_node_offset_by_phandle(fdt, fdt32_to_cpu(*p));
}

static bool dt_has(const void *fdt, int node, const char *prop)
{
	return fdt_getprop(fdt, node, prop, NULL) != NULL;
}

static bool dt_compatible_has(const void *fdt, int node, const char *compat)
{
	int len;
	const char *c = fdt_getprop(fdt, node, "compatible", &len);

	return c && len > 0 && fdt_stringlist_contains(c, len, compat);
}

static bool dt_has_prefix(const void *fdt, int node, const char *prefix)
{
	int prop;

	fdt_for_each_property_offset(prop, fdt, node) {
		const char *name;

		if (fdt_getprop_by_offset(fdt, prop, &name, NULL) && name &&
		    strncmp(name, prefix, strlen(prefix)) == 0)
			return true;
	}
	return false;
}

/* What a child node of a controller says about its slot. */
enum dt_mmc_child {
	DT_MMC_CHILD_NONE,      /* nothing: an OPP table, a node with neither reg nor compatible */
	DT_MMC_CHILD_CARD,      /* "mmc-card": the eMMC itself */
	DT_MMC_CHILD_FUNCTION,  /* an SDIO function: a Wi-Fi or Bluetooth chip */
	DT_MMC_CHILD_SLOT,      /* "mmc-slot": one slot of a host with several */
};

/*
 * The binding's card and function nodes carry their number in reg, but
 * some trees give a Wi-Fi chip only its compatible ("ti,wl1271" on
 * imx6q-prti6q). Qualcomm hosts hold their OPP table as a child: it says
 * nothing about the card.
 */
static enum dt_mmc_child dt_mmc_child_of(const void *fdt, int child)
{
	static const char opp[] = "operating-points-v2";
	int len;
	const char *c = fdt_getprop(fdt, child, "compatible", &len);

	if (c && len > 0) {
		if (fdt_stringlist_contains(c, len, "mmc-card"))
			return DT_MMC_CHILD_CARD;
		if (fdt_stringlist_contains(c, len, "mmc-slot"))
			return DT_MMC_CHILD_SLOT;
		if ((size_t)len > sizeof(opp) - 1 && strncmp(c, opp, sizeof(opp) - 1) == 0)
			return DT_MMC_CHILD_NONE;
		return DT_MMC_CHILD_FUNCTION;
	}
	return dt_has(fdt, child, "reg") ? DT_MMC_CHILD_FUNCTION : DT_MMC_CHILD_NONE;
}

static bool dt_is_enabled(const void *fdt, int node)
{
	int len;
	const char *s = fdt_getprop(fdt, node, "status", &len);

	return !s || (len > 0 && s[len - 1] == '\0' &&
		      (strcmp(s, "okay") == 0 || strcmp(s, "ok") == 0));
}

/*
 * What the slot holds, from the mmc-controller binding's properties, the
 * strongest evidence first: a child node describing the card ("mmc-card"
 * is an eMMC; an SDIO function is a Wi-Fi chip), the no-sd/no-sdio/no-mmc
 * triple, the power sequence (mmc-pwrseq-emmc resets an eMMC; the others
 * power a Wi-Fi chip, on a removable module too), a card-detect or
 * write-protect line (a removable slot), and for soldered devices the bus
 * width and eMMC modes. broken-cd only says that no card-detect line is
 * wired (an eMMC socket has none either): an 8-bit bus or an eMMC mode
 * outweighs it, and a removable slot with neither is an SD slot.
 * mmc-ddr-* and cap-sdio-irq are host abilities, not evidence of what is
 * plugged in. A host whose
 * slots are child nodes ("mmc-slot", as meson-mx-sdio has) holds what its
 * first enabled slot holds; slots is false for that slot, so the walk goes
 * one level down at most.
 */
static enum imgp_dt_mmc_kind dt_mmc_kind(const void *fdt, int node, bool slots)
{
	bool no_sd = dt_has(fdt, node, "no-sd"), no_sdio = dt_has(fdt, node, "no-sdio");
	bool no_mmc = dt_has(fdt, node, "no-mmc");
	bool fixed = dt_has(fdt, node, "non-removable");
	bool function = false;
	int child, seq, len, slot = -1;
	const fdt32_t *bw;

	fdt_for_each_subnode(child, fdt, node) {
		switch (dt_mmc_child_of(fdt, child)) {
		case DT_MMC_CHILD_CARD:
			return IMGP_DT_MMC_EMMC;
		case DT_MMC_CHILD_FUNCTION:
			function = true;
			break;
		case DT_MMC_CHILD_SLOT:
			if (slots && slot < 0 && dt_is_enabled(fdt, child))
				slot = child;
			break;
		case DT_MMC_CHILD_NONE:
			break;
		}
	}
	if (slot >= 0)
		return dt_mmc_kind(fdt, slot, false);
	if (no_sd && no_sdio && !no_mmc)
		return IMGP_DT_MMC_EMMC;
	if (no_mmc && no_sdio && !no_sd)
		return IMGP_DT_MMC_SD;
	if (no_mmc && no_sd && !no_sdio)
		return IMGP_DT_MMC_SDIO;
	if (function)
		return IMGP_DT_MMC_SDIO;
	seq = dt_phandle_target(fdt, node, "mmc-pwrseq");
	if (seq >= 0)
		return dt_compatible_has(fdt, seq, "mmc-pwrseq-emmc") ?
		       IMGP_DT_MMC_EMMC : IMGP_DT_MMC_SDIO;
	if (!fixed && !no_sd &&
	    (dt_has(fdt, node, "cd-gpios") || dt_has(fdt, node, "cd-inverted") ||
	     dt_has(fdt, node, "wp-gpios") || dt_has(fdt, node, "wp-inverted")))
		return IMGP_DT_MMC_SD;
	if (fixed && (dt_has(fdt, node, "cap-sdio-irq") || no_mmc))
		return IMGP_DT_MMC_SDIO;
	bw = fdt_getprop(fdt, node, "bus-width", &len);
	if (no_sd || (bw && len == 4 && fdt32_to_cpu(*bw) == 8) ||
	    dt_has_prefix(fdt, node, "mmc-hs"))
		return IMGP_DT_MMC_EMMC;
	if (fixed && !dt_has_prefix(fdt, node, "sd-uhs-"))
		return IMGP_DT_MMC_EMMC;
	return IMGP_DT_MMC_SD;
}

enum imgp_dt_mmc_kind imgp_dt_mmc_kind_of_(const void *fdt, int node)
{
	return dt_mmc_kind(fdt, node, true);
}

const char *imgp_dt_mmc_kind_name_(enum imgp_dt_mmc_kind kind)
{
	return kind == IMGP_DT_MMC_EMMC ? "emmc" : kind == IMGP_DT_MMC_SDIO ? "sdio" : "sd";
}

static bool dt_is_speed_prop(const char *name)
{
	static const char *const exact[] = {
		"no-1-8-v", "max-frequency", "bus-width", "non-removable",
		"mmc-hs400-enhanced-strobe", "cap-mmc-highspeed",
		"cap-sd-highspeed", "vqmmc-supply",
	};
	static const char *const prefix[] = {
		"sd-uhs-", "mmc-hs200-", "mmc-hs400-", "mmc-ddr-",
	};
	size_t i;

	for (i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (strcmp(name, exact[i]) == 0)
			return true;
	for (i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (strncmp(name, prefix[i], strlen(prefix[i])) == 0)
			return true;
	return false;
}

/*
 * Fills m (its props still unset) and appends its speed properties to
 * props, whose count it keeps in m->nprops.
 */
static int dt_fill_mmc(const struct imgp_dtb *dtb, int node, struct imgp_dt_mmc *m,
		       struct imgp_buf *props, struct imgp_buf *warnings)
{
	const void *fdt = dtb->fdt;
	const char *status;
	int prop, len, rc;

	memset(m, 0, sizeof(*m));
	rc = imgp_dt_node_path_(dtb, node, m->path, sizeof(m->path));
	if (rc)
		return rc;
	status = fdt_getprop(fdt, node, "status", &len);
	if (status && len > 0 && status[len - 1] == '\0')
		snprintf(m->status, sizeof(m->status), "%s", status);
	else
		snprintf(m->status, sizeof(m->status), "okay");
	m->kind = imgp_dt_mmc_kind_of_(fdt, node);

	fdt_for_each_property_offset(prop, fdt, node) {
		struct imgp_dt_mmc_prop mp;
		const char *name;
		const void *val;

		val = fdt_getprop_by_offset(fdt, prop, &name, &len);
		if (!val || !name)
			return imgp_fail(EINVAL, "%s: %s", m->path, fdt_strerror(len));
		if (!dt_is_speed_prop(name))
			continue;
		memset(&mp, 0, sizeof(mp));
		/* The specification's names have at most 31 characters. */
		if ((size_t)snprintf(mp.name, sizeof(mp.name), "%s", name) >= sizeof(mp.name))
			imgp_warn_into_(warnings, "%s: property '%s...' has a name of more than %zu characters: listed cut",
				       m->path, mp.name, sizeof(mp.name) - 1);
		/* A value too long to show is cut with "...": fine for a listing. */
		rc = imgp_dt_format_value_(val, len, mp.value, sizeof(mp.value));
		if (rc && rc != -ENOSPC)
			return rc;
		if (imgp_buf_append(props, &mp, sizeof(mp)))
			return imgp_fail(ENOMEM, "out of memory");
		m->nprops++;
	}
	return 0;
}

/*
 * One block for the list and the properties after it, so that free() of
 * the list frees all; each controller's props point into the block.
 */
static int dt_mmc_block(const struct imgp_buf *list, const struct imgp_buf *props,
			struct imgp_dt_mmc **out)
{
	size_t n = list->len / sizeof(**out), at = 0;
	struct imgp_dt_mmc *block;
	struct imgp_dt_mmc_prop *p;

	if (props->len > SIZE_MAX - list->len)
		return imgp_fail(ENOMEM, "out of memory");
	block = malloc(list->len + props->len);
	if (!block)
		return imgp_fail(ENOMEM, "out of memory");
	memcpy(block, list->data, list->len);
	p = (struct imgp_dt_mmc_prop *)(block + n);
	if (props->len)
		memcpy(p, props->data, props->len);
	for (size_t i = 0; i < n; i++) {
		block[i].props = block[i].nprops ? p + at : NULL;
		at += block[i].nprops;
	}
	*out = block;
	return 0;
}

int imgp_dt_list_mmc_(const struct imgp_dtb *dtb, struct imgp_dt_mmc **out, size_t *n,
		     struct imgp_buf *warnings)
{
	const void *fdt = dtb->fdt;
	/* struct imgp_dt_mmc and struct imgp_dt_mmc_prop, as many as the tree has */
	struct imgp_buf list = { 0 }, props = { 0 };
	struct imgp_dt_mmc m;
	int node, rc = 0;

	_Static_assert(sizeof(struct imgp_dt_mmc) % _Alignof(struct imgp_dt_mmc_prop) == 0,
		       "the properties follow the list in one block");
	*out = NULL;
	*n = 0;
	for (node = fdt_next_node(fdt, -1, NULL); node >= 0 && !rc;
	     node = fdt_next_node(fdt, node, NULL)) {
		if (!imgp_dt_is_mmc_(fdt, node))
			continue;
		rc = dt_fill_mmc(dtb, node, &m, &props, warnings);
		if (!rc && imgp_buf_append(&list, &m, sizeof(m)))
			rc = imgp_fail(ENOMEM, "out of memory");
	}
	if (!rc && node != -FDT_ERR_NOTFOUND)
		rc = imgp_dt_walk_error_(node);
	if (!rc && list.len)
		rc = dt_mmc_block(&list, &props, out);
	if (!rc)
		*n = list.len / sizeof(m);
	imgp_buf_free(&list);
	imgp_buf_free(&props);
	return rc;
}
