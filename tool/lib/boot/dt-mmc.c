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

/* ---------------------------------------------------------------- mmc */

bool dt_is_mmc(const void *fdt, int node)
{
	static const char *const names[] = { "mmc", "sdhci", "sdmmc", "emmc", "sd" };
	static const char *const drivers[] = { "sdhci", "mmc", "dw-mshc" };
	const char *name, *p, *end;
	size_t i;
	int len;

	name = fdt_get_name(fdt, node, NULL);
	if (!name)
		return false;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (dt_base_eq(name, names[i], strlen(names[i])))
			return true;
	p = fdt_getprop(fdt, node, "compatible", &len);
	if (!p || len <= 0 || p[len - 1] != '\0')
		return false;
	for (end = p + len; p < end; p += strlen(p) + 1) {
		/* "mmc-pwrseq-simple" powers a card; it is not a controller. */
		if (strstr(p, "pwrseq"))
			continue;
		for (i = 0; i < sizeof(drivers) / sizeof(drivers[0]); i++)
			if (strstr(p, drivers[i]))
				return true;
	}
	return false;
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

static int dt_fill_mmc(const struct imgp_dtb *dtb, int node,
		       struct imgp_dt_mmc *m)
{
	const size_t maxprops = sizeof(m->props) / sizeof(m->props[0]);
	const void *fdt = dtb->fdt;
	const char *status;
	int prop, len, rc;

	memset(m, 0, sizeof(*m));
	rc = imgp_dt_node_path(dtb, node, m->path, sizeof(m->path));
	if (rc)
		return rc;
	status = fdt_getprop(fdt, node, "status", &len);
	if (status && len > 0 && status[len - 1] == '\0')
		snprintf(m->status, sizeof(m->status), "%s", status);
	else
		snprintf(m->status, sizeof(m->status), "okay");

	fdt_for_each_property_offset(prop, fdt, node) {
		struct imgp_dt_mmc_prop *mp;
		const char *name;
		const void *val;

		val = fdt_getprop_by_offset(fdt, prop, &name, &len);
		if (!val || !name)
			return imgp_fail(EINVAL, "%s: %s", m->path, fdt_strerror(len));
		if (!dt_is_speed_prop(name))
			continue;
		if (m->nprops == maxprops) {
			imgp_warn("%s: more than %zu speed properties, '%s' not listed",
				  m->path, maxprops, name);
			continue;
		}
		mp = &m->props[m->nprops++];
		snprintf(mp->name, sizeof(mp->name), "%s", name);
		/* A value too long to show is cut with "...": fine for a listing. */
		rc = imgp_dt_format_value(val, len, mp->value, sizeof(mp->value));
		if (rc && rc != -ENOSPC)
			return rc;
	}
	return 0;
}

int imgp_dt_list_mmc(const struct imgp_dtb *dtb, struct imgp_dt_mmc *out,
		     size_t max)
{
	const void *fdt = dtb->fdt;
	size_t n = 0;
	int node, rc;

	if (max > INT_MAX)
		max = INT_MAX;
	for (node = fdt_next_node(fdt, -1, NULL); node >= 0;
	     node = fdt_next_node(fdt, node, NULL)) {
		if (!dt_is_mmc(fdt, node))
			continue;
		if (n == max) {
			imgp_warn("more than %zu SD/eMMC controllers, listing the first %zu",
				  max, max);
			return (int)n;
		}
		rc = dt_fill_mmc(dtb, node, &out[n]);
		if (rc)
			return rc;
		n++;
	}
	if (node != -FDT_ERR_NOTFOUND)
		return dt_walk_error(node);
	return (int)n;
}
