// SPDX-License-Identifier: MIT
/*
 * What cat --dtb shows: the tree the board boots, as DTS, after a comment
 * that says where it comes from (the same provenance doctor's "tree:" and
 * info's tree lines give).
 */
#include <errno.h>

#include "imgpatch.h"
#include "dt/dt.h"
#include "boot/boot.h"

/* Why the survey has no tree to show: its boot path's failure, or none. */
static int no_tree(const struct imgp_survey_view *v)
{
	if (v->bootpath_rc)
		return imgp_survey_fail_(v->bootpath_rc, v->bootpath_error);
	if (!v->bootpath)
		return imgp_survey_fail_(v->boot_rc ? v->boot_rc : -ENOENT,
					v->boot_error ? v->boot_error :
					"no boot path recognised");
	return imgp_fail(ENOENT, "boot path %s names no tree", v->bootpath);
}

int imgp_survey_dts(struct imgp_survey *sv, const char *model, struct imgp_buf *dts,
		    struct imgp_buf *warning)
{
	struct imgp_effective_view t;
	struct imgp_survey_view v;
	size_t pick = 0;
	int rc;

	imgp_survey_get_(sv, &v);
	rc = v.neffective ? imgp_survey_pick_(sv, model, false, &pick) : no_tree(&v);
	if (rc)
		return rc;
	/* The warnings of the tree shown, of no other. */
	imgp_effective_warn_(imgp_survey_ctx_(sv), &sv->effective[pick], 1);
	imgp_survey_get_effective_(sv, pick, &t);
	if (!t.dtb)
		return imgp_fail(t.rc ? -t.rc : ENOENT, "%s: %s", t.provenance, t.error);
	if (t.rc)
		rc = imgp_buf_printf(warning, "%s (booting %s)", t.error, t.name);
	if (!rc)
		rc = imgp_buf_printf(dts, "// %s\n", t.provenance);
	return rc ? rc : imgp_dt_to_dts_(t.dtb, dts);
}
