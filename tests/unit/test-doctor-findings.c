// SPDX-License-Identifier: MIT
/*
 * The doctor's table of finding kinds (tool/lib/doctor/findings.c): every
 * entry filled in, ids well-formed and unique, and findings added through
 * it carry its id and severity.
 *
 * With --list it prints the table instead, one kind a line:
 * "ID<TAB>SEVERITY[, or MILDER]<TAB>ANCHOR<TAB>TITLE<TAB>COST", as
 * imgpatch(1) writes an entry's severity; tests/t1105-doctor-findings.sh
 * compares that with the manual and the JSON schema.
 */
#include <stdlib.h>
#include <string.h>

#include "doctor/doctor.h"
#include "unit.h"

static void list(void)
{
	for (size_t i = 0; i < DOCTOR_NFINDINGS; i++) {
		const struct doctor_finding_kind *k = &imgp_doctor_findings_[i];

		printf("%s\t%s", k->id, imgp_severity_name_(k->severity));
		if (k->milder != k->severity)
			printf(", or %s", imgp_severity_name_(k->milder));
		printf("\t%s\t%s\t%s\n", k->anchor, k->title, k->cost);
	}
}

static bool filled(const char *s)
{
	return s && *s;
}

static bool well_formed(const char *id)
{
	return filled(id) && strspn(id, "abcdefghijklmnopqrstuvwxyz0123456789-") == strlen(id) &&
	       id[0] != '-' && id[strlen(id) - 1] != '-';
}

static void test_table(void)
{
	bool complete = true, formed = true, unique = true, milder = true;

	for (size_t i = 0; i < DOCTOR_NFINDINGS; i++) {
		const struct doctor_finding_kind *k = &imgp_doctor_findings_[i];

		complete &= filled(k->id) && filled(k->title) && filled(k->cost) &&
			    filled(k->anchor);
		if (!k->id)
			continue;
		formed &= well_formed(k->id);
		milder &= k->milder <= k->severity;
		for (size_t j = 0; j < i; j++)
			unique &= !imgp_doctor_findings_[j].id ||
				  strcmp(imgp_doctor_findings_[j].id, k->id) != 0;
	}
	CHECK(complete, "table: every kind has an id, title, cost and man-page anchor");
	CHECK(formed, "table: ids are lowercase words joined by dashes");
	CHECK(unique, "table: no id twice");
	CHECK(milder, "table: a milder severity is not a worse one");
}

static void test_add(void)
{
	struct imgp_doctor out = { 0 };
	struct doctor d = { .out = &out };
	struct imgp_doctor_view view;
	struct imgp_finding *f;

	f = imgp_doctor_add_(&d, DOCTOR_UHS_BLOCKED);
	CHECK(f && f->severity == IMGP_SEVERITY_WARNING, "add: the table's severity");
	CHECK_STR(f ? f->id : NULL, "uhs-blocked", "add: the table's id");
	f = imgp_doctor_add_milder_(&d, DOCTOR_UHS_MODES_MISSING, true);
	CHECK(f && f->severity == IMGP_SEVERITY_INFO, "add: milder: the milder severity");
	f = imgp_doctor_add_milder_(&d, DOCTOR_UHS_MODES_MISSING, false);
	CHECK(f && f->severity == IMGP_SEVERITY_WARNING, "add: not milder: the usual severity");
	CHECK(out.n == 3 && out.findings[0].id == imgp_doctor_findings_[DOCTOR_UHS_BLOCKED].id,
	      "add: findings in order, the id the table's own string");
	imgp_doctor_get_(&out, &view);
	CHECK(view.nfindings == 3 && !view.picked && !view.chooser && !view.root_unread,
	      "view: the report's count, nothing picked");
	CHECK(imgp_doctor_finding_(&out, 0) == &out.findings[0] &&
	      imgp_doctor_finding_(&out, 2) == &out.findings[2] && !imgp_doctor_finding_(&out, 3),
	      "view: finding i is the report's, none past the last");
	imgp_doctor_clear_(&out);
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "--list") == 0) {
		list();
		return 0;
	}
	test_table();
	test_add();
	return unit_done();
}
