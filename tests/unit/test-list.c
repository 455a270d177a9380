// SPDX-License-Identifier: MIT
/*
 * List edits (patch-list.c): a word added to armbianEnv.txt's key=a b c
 * lines, to the fdtoverlays of the extlinux label U-Boot boots, and to
 * config.txt's dtoverlay= lines for every model, and to a shell variable
 * of /etc/default/u-boot. Each case gives the whole
 * expected text, so every byte the owner wrote is checked to stay.
 */
#include <errno.h>
#include <string.h>

#include "imgpatch.h"
#include "patch/patch.h"
#include "unit.h"

static void expect_in(const char *path, const char *key, const char *text,
		      const char *word, const char *sections, int want_rc,
		      const char *want, const char *name)
{
	struct imgp_buf out = { 0 };
	int rc;

	imgp_buf_append(&out, "stale", 5);
	rc = imgp_list_add_(text, strlen(text), imgp_list_syntax_of_(path, key), key,
			   word, sections, &out);
	if (rc != want_rc)
		printf("#   rc %d, want %d (%s)\n", rc, want_rc, imgp_errmsg());
	CHECK(rc == want_rc, name);
	if (want) {
		CHECK_STR(out.data ? (char *)out.data : "", want, name);
		CHECK(out.len == strlen(want), name);
	}
	imgp_buf_free(&out);
}

static void expect(const char *path, const char *key, const char *text,
		   const char *word, int want_rc, const char *want,
		   const char *name)
{
	expect_in(path, key, text, word, NULL, want_rc, want, name);
}

static void check_words(void)
{
	const char *env = "verbosity=1\noverlays=uart1 i2c0\nuser_overlays=sdfix\nrootfstype=ext4\n";

	expect("/boot/armbianEnv.txt", "user_overlays", env, "mine", 1,
	       "verbosity=1\noverlays=uart1 i2c0\nuser_overlays=sdfix mine\nrootfstype=ext4\n",
	       "words: appended after the owner's");
	expect("/boot/armbianEnv.txt", "user_overlays", env, "sdfix", 0, env,
	       "words: already there, unchanged");
	expect("/boot/armbianEnv.txt", "overlays", env, "i2c0", 0, env,
	       "words: the middle word counts too");
	expect("/boot/armbianEnv.txt", "overlays", env, "i2c", 1,
	       "verbosity=1\noverlays=uart1 i2c0 i2c\nuser_overlays=sdfix\nrootfstype=ext4\n",
	       "words: a prefix of a word is another word");
	expect("/boot/armbianEnv.txt", "fdt_overlays", "a=1\nb=2", "x", 1,
	       "a=1\nb=2\nfdt_overlays=x\n", "words: no line, one added (a newline first)");
	expect("/boot/armbianEnv.txt", "overlays", "overlays=\n", "x", 1,
	       "overlays=x\n", "words: an empty list");
	expect("/boot/armbianEnv.txt", "overlays", "overlays=a\r\nb=1\r\n", "x", 1,
	       "overlays=a x\r\nb=1\r\n", "words: CRLF kept");
	expect("/boot/armbianEnv.txt", "overlays", "overlays=a\noverlays=b  \n", "x", 1,
	       "overlays=a\noverlays=b x  \n", "words: the last line wins, as env import");
	expect("/boot/armbianEnv.txt", "overlays", "overlays=a\n", "a b", -EINVAL,
	       NULL, "words: a word with a blank is refused");
}

static void check_extlinux(void)
{
	const char *conf =
		"default l0\n\nlabel l0r\n\tfdt /a.dtb\n\tfdtoverlays /x.dtbo\n\n"
		"label l0\n\tlinux /vmlinuz\n\tfdt /a.dtb\n\tfdtoverlays  /o.dtbo # mine\n"
		"\tappend ro\n";

	expect("/boot/extlinux/extlinux.conf", "fdtoverlays", conf, "/n.dtbo", 1,
	       "default l0\n\nlabel l0r\n\tfdt /a.dtb\n\tfdtoverlays /x.dtbo\n\n"
	       "label l0\n\tlinux /vmlinuz\n\tfdt /a.dtb\n\tfdtoverlays  /o.dtbo /n.dtbo # mine\n"
	       "\tappend ro\n", "extlinux: the DEFAULT label's list, before a comment");
	expect("/boot/extlinux/extlinux.conf", "fdtoverlays", conf, "/o.dtbo", 0,
	       conf, "extlinux: already listed");
	expect("/boot/extlinux/extlinux.conf", "fdtoverlays", conf, "/x.dtbo", 1, NULL,
	       "extlinux: another label's entry does not count");
	expect("/extlinux/extlinux.conf", "fdtoverlays",
	       "LABEL one\n  FDT /a.dtb\n  APPEND ro\nLABEL two\n  FDT /b.dtb\n", "/n.dtbo", 1,
	       "LABEL one\n  FDT /a.dtb\n  fdtoverlays /n.dtbo\n  APPEND ro\nLABEL two\n  FDT /b.dtb\n",
	       "extlinux: no DEFAULT: the first label; a new line after FDT, indented as it");
	expect("/extlinux/extlinux.conf", "fdtoverlays", "label a\n\tfdt /a.dtb", "/n.dtbo", 1,
	       "label a\n\tfdt /a.dtb\n\tfdtoverlays /n.dtbo\n",
	       "extlinux: the tree's line last, without a newline");
	expect("/boot/extlinux/extlinux.conf", "fdtoverlays",
	       "label l0\n\tfdtdir /usr/lib/linux-image-6.1.0-13-arm64/\n\t\n\tappend ro quiet\n",
	       "/boot/dtbo/n.dtbo", 1,
	       "label l0\n\tfdtdir /usr/lib/linux-image-6.1.0-13-arm64/\n\tfdtoverlays /boot/dtbo/n.dtbo\n\tappend ro quiet\n",
	       "extlinux: u-boot-update's empty slot after the tree takes the new line");
	expect("/extlinux/extlinux.conf", "fdtoverlays", "menu title x\n", "/n.dtbo",
	       -ENOENT, NULL, "extlinux: no label is an error");
}

static void check_config_txt(void)
{
	const char *config = "dtparam=audio=on\ndtoverlay=vc4-kms-v3d\n[cm5]\ndtoverlay=dwc2,dr_mode=host\n[all]\n";

	expect("/config.txt", "dtoverlay", config, "vc4-kms-v3d", 0, config,
	       "config.txt: above any filter counts for every model");
	expect("/config.txt", "dtoverlay", config, "dwc2", 1,
	       "dtparam=audio=on\ndtoverlay=vc4-kms-v3d\n[cm5]\ndtoverlay=dwc2,dr_mode=host\n[all]\ndtoverlay=dwc2\n",
	       "config.txt: one under [cm5] only does not count; added under [all]");
	expect("/config.txt", "dtoverlay", "[pi4]\narm_boost=1\n", "mine", 1,
	       "[pi4]\narm_boost=1\n[all]\ndtoverlay=mine\n",
	       "config.txt: [all] added when the last filter is another");
	expect("/config.txt", "dtoverlay", "dtoverlay=mine,speed=1\n", "mine", 0,
	       "dtoverlay=mine,speed=1\n", "config.txt: with parameters it is there");
	expect("/config.txt", "dtoverlay", "#dtoverlay=mine\n", "mine", 1,
	       "#dtoverlay=mine\ndtoverlay=mine\n", "config.txt: a comment does not count");
	expect("/config.txt", "dtoverlay", "[all]\ninclude usercfg.txt\n", "mine", 1,
	       "[all]\ninclude usercfg.txt\n[all]\ndtoverlay=mine\n",
	       "config.txt: after an include, whose filter may still hold, [all] again");
	expect("/config.txt", "dtoverlay", "include syscfg.txt\ndtoverlay=mine\n", "mine", 1,
	       "include syscfg.txt\ndtoverlay=mine\n[all]\ndtoverlay=mine\n",
	       "config.txt: one after an include without [all] may not count");
	expect("/config.txt", "dtoverlay", "include x\n[all]\ndtoverlay=mine\n", "mine", 0,
	       "include x\n[all]\ndtoverlay=mine\n", "config.txt: [all] after an include counts");
}

/* For the boards of one tree: under the filters that single them out, then [all]. */
static void check_config_txt_sections(void)
{
	const char *config = "dtparam=audio=on\n[cm5]\ndtoverlay=dwc2,dr_mode=host\n[all]\n";
	const char *added = "dtparam=audio=on\n[cm5]\ndtoverlay=dwc2,dr_mode=host\n[all]\n"
			    "[board-type=0x11]\ndtoverlay=mine\n[all]\n";

	expect_in("/config.txt", "dtoverlay", config, "mine", "board-type=0x11\n", 1, added,
		  "sections: a block for the Pi 4 B closed with [all]");
	expect_in("/config.txt", "dtoverlay", added, "mine", "board-type=0x11\n", 0, added,
		  "sections: there already, unchanged");
	expect_in("/config.txt", "dtoverlay", "dtoverlay=mine\n", "mine", "pi400\n", 1,
		  "dtoverlay=mine\n[pi400]\ndtoverlay=mine\n[all]\n",
		  "sections: one for every model is not one for the 400 alone");
	expect_in("/config.txt", "dtoverlay", "[pi4]\ndtoverlay=mine\n", "mine",
		  "board-type=0x11\n", 1,
		  "[pi4]\ndtoverlay=mine\n[all]\n[board-type=0x11]\ndtoverlay=mine\n[all]\n",
		  "sections: one under [pi4] is not the 4B's; the file's open filter reset first");
	expect_in("/config.txt", "dtoverlay", "[EDID=DEL-DELL_U2422H]\nhdmi_group=2", "mine",
		  "board-type=0x0d\nboard-type=0x0e\n", 1,
		  "[EDID=DEL-DELL_U2422H]\nhdmi_group=2\n[all]\n[board-type=0x0d]\ndtoverlay=mine\n"
		  "[board-type=0x0e]\ndtoverlay=mine\n[all]\n",
		  "sections: two board types, after [all] (an EDID filter would combine)");
	expect_in("/config.txt", "dtoverlay",
		  "[board-type=0x0d]\ndtoverlay=mine\n[all]\n", "mine",
		  "board-type=0x0d\nboard-type=0x0e\n", 1,
		  "[board-type=0x0d]\ndtoverlay=mine\n[all]\n[board-type=0x0e]\ndtoverlay=mine\n[all]\n",
		  "sections: only the one missing");
	expect_in("/config.txt", "dtoverlay", "[all]\ninclude usercfg.txt\n", "mine",
		  "cm4\n", 1,
		  "[all]\ninclude usercfg.txt\n[all]\n[cm4]\ndtoverlay=mine\n[all]\n",
		  "sections: after an include, [all] first");
}

static void check_shell(void)
{
	const char *deb = "## /etc/default/u-boot - configuration file for u-boot-update(8)\n\n"
			  "#U_BOOT_FDT_OVERLAYS=\"\"\n";
	const char *d = "/etc/default/u-boot", *k = "U_BOOT_FDT_OVERLAYS";

	expect(d, k, deb, "x.dtbo", 1,
	       "## /etc/default/u-boot - configuration file for u-boot-update(8)\n\n"
	       "#U_BOOT_FDT_OVERLAYS=\"\"\n" "U_BOOT_FDT_OVERLAYS=\"x.dtbo\"\n",
	       "shell: the commented example stays, a line added");
	expect(d, k, "U_BOOT_FDT_OVERLAYS=\"a.dtbo\"  # mine\n", "x.dtbo", 1,
	       "U_BOOT_FDT_OVERLAYS=\"a.dtbo x.dtbo\"  # mine\n",
	       "shell: into the quotes, the comment kept");
	expect(d, k, "U_BOOT_FDT_OVERLAYS=''\nU_BOOT_FDT_OVERLAYS='a.dtbo b.dtbo'\n", "x.dtbo", 1,
	       "U_BOOT_FDT_OVERLAYS=''\nU_BOOT_FDT_OVERLAYS='a.dtbo b.dtbo x.dtbo'\n",
	       "shell: the last assignment counts, single quotes kept");
	expect(d, k, "U_BOOT_FDT_OVERLAYS=\"\"\n", "x.dtbo", 1,
	       "U_BOOT_FDT_OVERLAYS=\"x.dtbo\"\n", "shell: an empty value");
	expect(d, k, "  export U_BOOT_FDT_OVERLAYS=a.dtbo\n", "x.dtbo", 1,
	       "  export U_BOOT_FDT_OVERLAYS=\"a.dtbo x.dtbo\"\n", "shell: a bare word gets quotes");
	expect(d, k, "U_BOOT_FDT_OVERLAYS=\"a.dtbo x.dtbo\"\n", "x.dtbo", 0,
	       "U_BOOT_FDT_OVERLAYS=\"a.dtbo x.dtbo\"\n", "shell: already there, unchanged");
	expect(d, k, "U_BOOT_FDT_OVERLAYS_DIR=\"/boot/dtbo/\"", "x.dtbo", 1,
	       "U_BOOT_FDT_OVERLAYS_DIR=\"/boot/dtbo/\"\nU_BOOT_FDT_OVERLAYS=\"x.dtbo\"\n",
	       "shell: a longer name is another variable");
}

/*
 * /etc/modules: Debian 12 kmod's header (its postinst writes it), then the
 * module lines raspi-config's do_i2c checks with grep "^i2c[-_]dev";
 * modprobe reads '-' and '_' in a name as one.
 */
static void check_modules(void)
{
	const char *m = "/etc/modules";
	const char *kmod = "# /etc/modules: kernel modules to load at boot time.\n#\n"
			   "# This file contains the names of kernel modules that should be loaded\n"
			   "# at boot time, one per line. Lines beginning with \"#\" are ignored.\n"
			   "# Parameters can be specified after the module name.\n\n";
	char want[1024];

	snprintf(want, sizeof(want), "%si2c-dev\n", kmod);
	expect(m, NULL, kmod, "i2c-dev", 1, want, "modules: kmod's header kept, the name after it");
	expect(m, NULL, want, "i2c-dev", 0, want, "modules: already there, unchanged");
	expect(m, NULL, "i2c_dev\n", "i2c-dev", 0, "i2c_dev\n", "modules: '_' is '-'");
	expect(m, NULL, "i2c-dev\n", "i2c_dev", 0, "i2c-dev\n", "modules: '-' is '_'");
	expect(m, NULL, "  i2c-dev debug=1\n", "i2c-dev", 0, "  i2c-dev debug=1\n",
	       "modules: blanks before it, parameters after it");
	expect(m, NULL, "#i2c-dev\n; i2c-dev\n", "i2c-dev", 1, "#i2c-dev\n; i2c-dev\ni2c-dev\n",
	       "modules: comments stay comments, the name goes at the end");
	expect(m, NULL, "i2c-devx\ni2c\n", "i2c-dev", 1, "i2c-devx\ni2c\ni2c-dev\n",
	       "modules: whole names only");
	expect(m, NULL, "snd\nspi-dev", "i2c-dev", 1, "snd\nspi-dev\ni2c-dev\n",
	       "modules: a last line without newline gets one");
	expect(m, NULL, "", "i2c-dev", 1, "i2c-dev\n", "modules: empty file");
	expect(m, NULL, "a\r\n", "i2c-dev", 1, "a\r\ni2c-dev\n", "modules: CRLF line kept");
	expect("/etc/modules-load.d/i2c.conf", NULL, "i2c_dev\n", "i2c-dev", 0, "i2c_dev\n",
	       "modules-load.d/*.conf: the same list");
	expect(m, "x", "", "i2c-dev", -EINVAL, NULL, "modules: no key");
	expect("/boot/armbianEnv.txt", NULL, "", "x", -EINVAL, NULL, "another list needs its key");
}

int main(void)
{
	check_modules();
	check_shell();
	check_words();
	check_extlinux();
	check_config_txt();
	check_config_txt_sections();
	return unit_done();
}
