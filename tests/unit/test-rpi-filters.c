// SPDX-License-Identifier: MIT
/*
 * config.txt's model filters as the Raspberry Pi firmware reads them:
 * which trees each filter reaches (the table of model filters in Raspberry
 * Pi's config.txt documentation, conditional.adoc, commit
 * 010d81518516e7f57418a6b2ecc6da6aced1b940), [board-type=N] by the types of
 * the revision codes (revision-codes.adoc, commit
 * 0456a78c93ba57be2d9e95733df961069925555b: 0x11 4B, 0x13 400, 0x14 CM4,
 * 0x15 CM4S, 0x08 3B, 0x0d 3B+, 0x0e 3A+, 0x0a CM3, 0x10 CM3+, 0x17 5,
 * ...), and the filters that single out the boards of one tree, as a change
 * for one model is written.
 */
#include <errno.h>
#include <string.h>

#include "imgpatch.h"
#include "boot/bootpath.h"
#include "unit.h"

static void sees(const char *dtb, const char *filter, bool want)
{
	char name[160];

	snprintf(name, sizeof(name), "%s %s [%s]", dtb, want ? "sees" : "does not see",
		 filter);
	CHECK(imgp_rpi_tree_sees_(dtb, filter) == want, name);
}

static void own(const char *dtb, int want_rc, const char *want)
{
	struct imgp_buf out = { 0 };
	char name[160];
	int rc = imgp_rpi_own_filters_(dtb, &out);

	snprintf(name, sizeof(name), "own filters of %s", dtb);
	CHECK(rc == want_rc, name);
	if (!rc)
		CHECK_STR((const char *)out.data, want, name);
	imgp_buf_free(&out);
}

static void check_board_type(void)
{
	/* The documentation's own example: [board-type=0x14] is the CM4. */
	sees("bcm2711-rpi-cm4.dtb", "board-type=0x14", true);
	sees("bcm2711-rpi-cm4-io.dtb", "board-type=0x14", true);
	sees("bcm2711-rpi-4-b.dtb", "board-type=0x14", false);
	/* [board-type=0x11]: the 4B alone, where [pi4] is also the 400, CM4, CM4S. */
	sees("bcm2711-rpi-4-b.dtb", "board-type=0x11", true);
	sees("bcm2711-rpi-400.dtb", "board-type=0x11", false);
	sees("bcm2711-rpi-cm4s.dtb", "board-type=0x11", false);
	sees("bcm2710-rpi-3-b.dtb", "board-type=0x11", false);
	sees("bcm2711-rpi-400.dtb", "pi4", true);
	sees("bcm2711-rpi-cm4.dtb", "pi4", true);
	sees("bcm2711-rpi-cm4s.dtb", "pi4", true);
	/* A decimal number is the same type; a whole revision code is none. */
	sees("bcm2711-rpi-4-b.dtb", "board-type=17", true);
	sees("bcm2711-rpi-4-b.dtb", "board-type=c03111", false);
	sees("bcm2711-rpi-4-b.dtb", "board-type=0xc03111", false);
	sees("bcm2711-rpi-4-b.dtb", "board-type=", false);
	sees("bcm2711-rpi-4-b.dtb", "board-type=0x11x", false);
	/* The 3B+ and 3A+ share a tree: one of their types may apply only. */
	sees("bcm2710-rpi-3-b-plus.dtb", "board-type=0x0d", false);
	sees("bcm2837-rpi-3-b-plus.dtb", "board-type=0x0d", true);
	sees("bcm2837-rpi-3-a-plus.dtb", "board-type=0x0e", true);
	sees("bcm2710-rpi-3-b-plus.dtb", "pi3+", true);
	sees("bcm2710-rpi-cm3.dtb", "pi3", true);
	sees("bcm2710-rpi-cm3.dtb", "cm3", false);
	sees("bcm2712-rpi-500.dtb", "board-type=0x19", true);
	sees("bcm2712-rpi-cm5l-cm5io.dtb", "board-type=0x1a", true);
	sees("bcm2712-rpi-cm5l-cm5io.dtb", "cm5", true);
	sees("bcm2710-rpi-cm0.dtb", "pi0", true);
	sees("bcm2710-rpi-cm0.dtb", "board-type=0x12", false);
	sees("bcm2710-rpi-zero-2-w.dtb", "board-type=0x12", true);
	/* Types no board has: internal use (0x0f, 0x16), the Alpha (0x05). */
	sees("bcm2711-rpi-4-b.dtb", "board-type=0x16", false);
	sees("nosuch.dtb", "pi4", false);
}

static void check_own(void)
{
	own("/bcm2711-rpi-4-b.dtb", 0, "board-type=0x11\n");
	own("bcm2711-rpi-400.dtb", 0, "pi400\n");
	own("/bcm2711-rpi-cm4.dtb", 0, "cm4\n");
	own("/bcm2711-rpi-cm4s.dtb", 0, "cm4s\n");
	own("/bcm2710-rpi-3-b.dtb", 0, "board-type=0x08\n");
	own("/bcm2710-rpi-3-b-plus.dtb", 0, "board-type=0x0d\nboard-type=0x0e\n");
	own("/bcm2710-rpi-cm3.dtb", 0, "board-type=0x0a\nboard-type=0x10\n");
	own("/bcm2712-rpi-5-b.dtb", 0, "board-type=0x17\n");
	own("/os/bcm2712-rpi-500.dtb", 0, "pi500\n");
	own("/bcm2712-rpi-cm5-cm5io.dtb", 0, "board-type=0x18\n");
	own("/bcm2708-rpi-b-plus.dtb", 0, "board-type=0x02\nboard-type=0x03\n");
	own("/bcm2710-rpi-cm0.dtb", 0, "cm0\n");
	own("/bcm2709-rpi-cm2.dtb", -ENOENT, NULL);
	own("/rk3399-rockpro64.dtb", -ENOENT, NULL);
}

int main(void)
{
	check_board_type();
	check_own();
	return unit_done();
}
