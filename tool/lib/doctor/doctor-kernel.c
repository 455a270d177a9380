// SPDX-License-Identifier: MIT
/*
 * Kernels older than a known storage fix (doctor-kernel-fixes.c), on
 * boards whose tree has the device the fix is in. The kernel version is
 * the newest of the root's /lib/modules/<version> directories, else one
 * written in the FIT kernel image's description.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libfdt.h>

#include "doctor/doctor.h"

struct kver {
	unsigned v[3];
	char where[300];         /* "/lib/modules/4.19.0-27-armmp" */
	bool found;
	bool in_fit;
};

/* "4.19.0-27-armmp" -> 4 19 0; false when s does not start with N.N. */
static bool parse_version(const char *s, unsigned v[3])
{
	unsigned a = 0, b = 0, c = 0;
	int n = 0;

	if (sscanf(s, "%5u.%5u%n", &a, &b, &n) != 2 || n == 0)
		return false;
	if (s[n] == '.')
		sscanf(s + n + 1, "%5u", &c);
	v[0] = a;
	v[1] = b;
	v[2] = c;
	return true;
}

static int version_cmp(const unsigned a[3], const unsigned b[3])
{
	for (int i = 0; i < 3; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

static void consider(struct kver *k, const unsigned v[3], const char *where,
		     bool in_fit)
{
	if (k->found && version_cmp(v, k->v) <= 0)
		return;
	memcpy(k->v, v, sizeof(k->v));
	snprintf(k->where, sizeof(k->where), "%s", where);
	k->found = true;
	k->in_fit = in_fit;
}

static int kernel_version(struct doctor *d, struct kver *k)
{
	char **names = NULL;
	size_t n = 0;
	unsigned v[3];
	int rc = 0;

	memset(k, 0, sizeof(*k));
	if (d->sv.root) {
		rc = imgp_doctor_list_(d, d->sv.root, "/lib/modules", &names, &n);
		if (rc == -ENOENT || rc == -ENOTDIR || rc == -ENOTSUP) {
			imgp_errclear_();
			rc = 0;
		}
		for (size_t i = 0; i < n; i++) {
			char where[300];

			if (!parse_version(names[i], v))
				continue;
			snprintf(where, sizeof(where), "/lib/modules/%s", names[i]);
			consider(k, v, where, false);
		}
		imgp_fs_list_free_(names, n);
	}
	if (rc || k->found || !d->sv.fit.parsed)
		return rc;
	for (size_t i = 0; i < d->sv.fit.fit.nimages; i++) {
		const struct imgp_fit_image *img = &d->sv.fit.fit.images[i];

		if (strcmp(img->type, "kernel") != 0)
			continue;
		/* The first "N.N" that starts a word: "Linux 5.15.0-1027-xilinx". */
		for (const char *p = img->description; *p; p++)
			if ((p == img->description || p[-1] == ' ' || p[-1] == '-') &&
			    parse_version(p, v)) {
				consider(k, v, img->name, true);
				break;
			}
	}
	return 0;
}

/* The path of an enabled node compatible with device, or false. */
static bool find_device(const struct doctor_tree *t, const char *device,
			char *path, size_t len)
{
	const void *fdt = t->dtb.fdt;
	int node;

	for (node = fdt_node_offset_by_compatible(fdt, -1, device); node >= 0;
	     node = fdt_node_offset_by_compatible(fdt, node, device)) {
		const char *status = fdt_getprop(fdt, node, "status", NULL);

		if (status && strcmp(status, "okay") != 0 && strcmp(status, "ok") != 0)
			continue;
		return fdt_get_path(fdt, node, path, (int)len) == 0;
	}
	return false;
}

static int check_fix(struct doctor *d, const struct doctor_kernel_fix *fix,
		     const struct kver *k)
{
	const struct doctor_tree *t = NULL;
	struct imgp_finding *f;
	char node[256];
	int rc;

	for (size_t i = 0; i < d->ntrees && !t; i++)
		if (imgp_doctor_dt_has_string_(d->trees[i].dtb.fdt, 0, "compatible", fix->soc) &&
		    find_device(&d->trees[i], fix->device, node, sizeof(node)))
			t = &d->trees[i];
	if (!t || version_cmp(k->v, fix->version) >= 0)
		return 0;
	f = imgp_doctor_add_(d, DOCTOR_KERNEL_STORAGE_FIX_MISSING);
	if (!f)
		return -ENOMEM;
	rc = imgp_doctor_set_(&f->node, "%s", node);
	if (!rc && k->in_fit) {
		f->partition = d->sv.boot->number;
		rc = imgp_doctor_set_(&f->file, "%s", d->sv.fit_path);
		if (!rc)
			rc = imgp_doctor_set_(&f->fdt, "%s", k->where);
	} else if (!rc) {
		f->partition = d->sv.root->number;
		rc = imgp_doctor_set_(&f->file, "%s", k->where);
	}
	if (!rc)
		rc = imgp_doctor_set_(&f->title, "kernel %u.%u.%u is older than the %s (%s)",
				k->v[0], k->v[1], k->v[2], fix->title, fix->soc);
	if (!rc)
		rc = imgp_doctor_set_(&f->cost, "%s", fix->cost);
	if (!rc)
		rc = imgp_doctor_set_(&f->hint, "update the kernel to %u.%u or later, or to one that backports the fix",
				fix->version[0], fix->version[1]);
	return rc;
}

int imgp_doctor_check_kernel_(struct doctor *d)
{
	struct kver k;
	int rc;

	rc = kernel_version(d, &k);
	if (rc || !k.found)
		return rc;
	for (size_t i = 0; i < imgp_doctor_nkernel_fixes_ && !rc; i++)
		rc = check_fix(d, &imgp_doctor_kernel_fixes_[i], &k);
	return rc;
}
