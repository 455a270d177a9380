// SPDX-License-Identifier: MIT
/*
 * The boot paths of the Raspberry Pi firmware and the EFI loaders
 * (tool/lib/boot/bootpath-*.c: rpi, grub, efi, bls), each over the files
 * its distribution ships, in filesystems in memory (bootimg.h): whether
 * the path claims the image, what its describe() says the board boots,
 * the kernel command line and where it is kept, where a new overlay goes
 * and the list entry that names it, and that a broken or hostile file is
 * an answer, never a crash. U-Boot's paths are test-bootpath-uboot.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bootimg.h"
#include "unit.h"
#include "boot/boot.h"
#include "patch/patch.h"

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* ---------------------------------------------------------------------- rpi */

/* Raspberry Pi OS's config.txt (bookworm), with a [pi4] overlay added by its owner. */
static const char rpi_config[] =
	"# For more options and information see\n"
	"# http://rptl.io/configtxt\n"
	"# Some settings may impact device functionality. See link above for details\n"
	"\n"
	"# Enable audio (loads snd_bcm2835)\n"
	"dtparam=audio=on\n"
	"\n"
	"# Automatically load overlays for detected cameras\n"
	"camera_auto_detect=1\n"
	"\n"
	"# Enable DRM VC4 V3D driver\n"
	"dtoverlay=vc4-kms-v3d\n"
	"max_framebuffers=2\n"
	"\n"
	"# Run in 64-bit mode\n"
	"arm_64bit=1\n"
	"\n"
	"[cm4]\n"
	"otg_mode=1\n"
	"\n"
	"[pi4]\n"
	"dtoverlay=sdtweak,poll_once=on\n"
	"\n"
	"[all]\n";

static void test_rpi(void)
{
	struct imgp_buf list = { 0 }, filters = { 0 };
	struct imgp_overlay_site site;
	struct imgp_buf line = { 0 }, at = { 0 }, loader = { 0 };
	struct bootimg im;
	int rc;

	bootimg_init(&im, 2);
	snprintf(im.parts[0].fslabel, sizeof(im.parts[0].fslabel), "bootfs");
	bootimg_put(&im, 1, "/config.txt", rpi_config);
	bootimg_put(&im, 1, "/cmdline.txt", "console=serial0,115200 console=tty1 root=PARTUUID=4e639091-02 rootfstype=ext4 fsck.repair=yes rootwait\n");
	bootimg_put(&im, 1, "/start4.elf", "firmware");
	bootimg_put(&im, 1, "/bcm2711-rpi-4-b.dtb", "tree");
	bootimg_put(&im, 1, "/bcm2712-rpi-5-b.dtb", "tree");
	bootimg_put(&im, 1, "/overlays/vc4-kms-v3d.dtbo", "overlay");
	bootimg_put(&im, 2, "/etc/fstab", "PARTUUID=4e639091-02  /  ext4  defaults,noatime  0  1\n");
	CHECK(bootimg_survey(&im) == 0, "rpi: survey");
	CHECK_STR(bootimg_claimed(&im), "rpi p1", "rpi: config.txt beside its trees claims bootfs");
	CHECK_STR(bootimg_summary(&im), "Raspberry Pi firmware /config.txt, a tree by model from the FAT root",
		  "rpi: describe");
	CHECK(im.sv->bootinfo.ndts == 2, "rpi: a tree per model");
	CHECK_STR(im.sv->bootinfo.ndts ? im.sv->bootinfo.dts[0].model : NULL, "pi4", "rpi: the Pi 4's model filter");
	CHECK_STR(bootimg_tree(&im, 0), "/bcm2711-rpi-4-b.dtb", "rpi: the Pi 4's tree");
	CHECK_STR(bootimg_overlays(&im, 0), "dtparam=audio=on /overlays/vc4-kms-v3d.dtbo /overlays/sdtweak.dtbo,poll_once=on",
		  "rpi: the Pi 4 gets its [pi4] overlay, with its parameter");
	CHECK_STR(bootimg_tree(&im, 1), "/bcm2712-rpi-5-b.dtb", "rpi: the Pi 5's tree");
	CHECK_STR(bootimg_overlays(&im, 1), "dtparam=audio=on /overlays/vc4-kms-v3d.dtbo",
		  "rpi: the Pi 5 does not see [pi4] or [cm4]");
	bootimg_expect_cmdline(&im, "pi5", "console=serial0,115200 console=tty1 root=PARTUUID=4e639091-02 rootfstype=ext4 fsck.repair=yes rootwait",
			       "p1 (vfat): /cmdline.txt, the first line", "rpi: cmdline.txt's first line");
	rc = imgp_bootpath_rpi_.overlay_filters("/bcm2711-rpi-4-b.dtb", &filters);
	CHECK_STR(rc ? NULL : (char *)filters.data, "board-type=0x11\n",
		  "rpi: the Pi 4 B's tree alone is [board-type=0x11] ([pi4] is the 400's and CM4's too)");
	CHECK(bootimg_overlay_site(&im, 0, "imgpatch-1", rc ? NULL : (char *)filters.data, &site, &list) == 0,
	      "rpi: overlay site");
	CHECK_STR(site.file, "/overlays/imgpatch-1.dtbo", "rpi: the overlay in /overlays");
	CHECK(!strcmp(site.list, "/config.txt") && !strcmp(site.key, "dtoverlay") &&
	      !strcmp(site.word, "imgpatch-1"), "rpi: a dtoverlay= line of config.txt");
	CHECK(list.data && strstr((char *)list.data, "\n[all]\n[board-type=0x11]\ndtoverlay=imgpatch-1\n[all]\n"),
	      "rpi: the line under the tree's own filter, [all] after it");
	imgp_buf_free(&filters);
	CHECK(imgp_bootpath_rpi_.overlay_filters("/not-a-pi.dtb", &filters) == -ENOENT,
	      "rpi: a tree of no board has no filter");

	/* config.txt including itself and a file that includes it back: bounded, not a hang. */
	bootimg_free(&im);
	bootimg_init(&im, 1);
	bootimg_put(&im, 1, "/config.txt", "include config.txt\ndtoverlay=a\n[pi4]\ninclude extra.txt\n");
	bootimg_put(&im, 1, "/extra.txt", "include config.txt\ndtparam=spi=on\n");
	bootimg_put(&im, 1, "/bcm2711-rpi-4-b.dtb", "tree");
	CHECK(bootimg_survey(&im) == 0, "rpi, an include loop, no cmdline.txt: survey");
	CHECK(im.sv->bootinfo.ndts == 1 && im.sv->bootinfo.dts[0].noverlays > 0 &&
	      im.sv->bootinfo.dts[0].noverlays < 64 &&
	      !strcmp(im.sv->bootinfo.dts[0].overlays[0], "/overlays/a.dtbo"),
	      "rpi, an include loop: read to a bound");
	rc = imgp_survey_cmdline(im.sv, NULL, &line, &at, &loader);
	CHECK(rc == -ENOENT && ends_with(imgp_errmsg(), "p1 (vfat): /cmdline.txt: not found"),
	      "rpi, no cmdline.txt: refused, naming the partition and the file");
	imgp_buf_free(&line);
	imgp_buf_free(&at);
	imgp_buf_free(&loader);
	imgp_buf_free(&list);
	bootimg_free(&im);
}

/* ---------------------------------------------------------------- efi, grub */

/* Debian's grub.cfg as grub-mkconfig writes it (00_header's default, 10_linux's entries). */
static const char debian_grub_cfg[] =
	"#\n"
	"# DO NOT EDIT THIS FILE\n"
	"#\n"
	"### BEGIN /etc/grub.d/00_header ###\n"
	"if [ -s $prefix/grubenv ]; then\n"
	"  set have_grubenv=true\n"
	"  load_env\n"
	"fi\n"
	"if [ \"${next_entry}\" ] ; then\n"
	"   set default=\"${next_entry}\"\n"
	"   set next_entry=\n"
	"   save_env next_entry\n"
	"   set boot_once=true\n"
	"else\n"
	"   set default=\"0\"\n"
	"fi\n"
	"### END /etc/grub.d/00_header ###\n"
	"\n"
	"### BEGIN /etc/grub.d/10_linux ###\n"
	"menuentry 'Debian GNU/Linux' --class debian --class gnu-linux --class gnu --class os $menuentry_id_option 'gnulinux-simple-d6b1a9e5' {\n"
	"\tload_video\n"
	"\tinsmod gzio\n"
	"\tsearch --no-floppy --fs-uuid --set=root d6b1a9e5-0000-4000-8000-000000000002\n"
	"\techo\t'Loading Linux 6.1.0-18-arm64 ...'\n"
	"\tlinux\t/boot/vmlinuz-6.1.0-18-arm64 root=UUID=d6b1a9e5-0000-4000-8000-000000000002 ro  quiet\n"
	"\techo\t'Loading initial ramdisk ...'\n"
	"\tinitrd\t/boot/initrd.img-6.1.0-18-arm64\n"
	"\techo\t'Loading device tree ...'\n"
	"\tdevicetree\t/boot/dtb-6.1.0-18-arm64\n"
	"}\n"
	"submenu 'Advanced options for Debian GNU/Linux' $menuentry_id_option 'gnulinux-advanced-d6b1a9e5' {\n"
	"\tmenuentry 'Debian GNU/Linux, with Linux 6.1.0-18-arm64 (recovery mode)' --class debian $menuentry_id_option 'gnulinux-6.1.0-18-arm64-recovery-d6b1a9e5' {\n"
	"\t\tlinux\t/boot/vmlinuz-6.1.0-18-arm64 root=UUID=d6b1a9e5-0000-4000-8000-000000000002 ro single \n"
	"\t\tinitrd\t/boot/initrd.img-6.1.0-18-arm64\n"
	"\t\tdevicetree\t/boot/dtb-6.1.0-18-arm64.recovery\n"
	"\t}\n"
	"}\n"
	"### END /etc/grub.d/10_linux ###\n";

/* An ESP with the removable-media loader and GRUB's stub, and a Debian root. */
static void put_debian_efi(struct bootimg *im, const char *grub_cfg)
{
	bootimg_init(im, 2);
	bootimg_put(im, 1, "/EFI/BOOT/BOOTAA64.EFI", "MZ");
	bootimg_put(im, 1, "/EFI/debian/grub.cfg", "search.fs_uuid d6b1a9e5-0000-4000-8000-000000000002 root \nset prefix=($root)'/boot/grub'\nconfigfile $prefix/grub.cfg\n");
	bootimg_put(im, 2, "/etc/fstab", "UUID=d6b1a9e5-0000-4000-8000-000000000002 / ext4 errors=remount-ro 0 1\n");
	bootimg_put(im, 2, "/etc/default/grub", "GRUB_DEFAULT=0\nGRUB_TIMEOUT=5\nGRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\nGRUB_CMDLINE_LINUX=\"\"\n");
	bootimg_put(im, 2, "/boot/grub/grub.cfg", grub_cfg);
	bootimg_put(im, 2, "/boot/vmlinuz-6.1.0-18-arm64", "kernel");
}

#define GRUB_WHERE "p2 (ext4): /boot/grub/grub.cfg, menuentry 'Debian GNU/Linux', linux; also kept in p2 (ext4): /etc/default/grub, GRUB_CMDLINE_LINUX_DEFAULT= then GRUB_CMDLINE_LINUX"

static void test_grub(void)
{
	struct imgp_buf cfg = { 0 };
	struct bootimg im;

	put_debian_efi(&im, debian_grub_cfg);
	bootimg_put(&im, 2, "/boot/dtb-6.1.0-18-arm64", "tree");
	CHECK(bootimg_survey(&im) == 0, "grub: survey");
	CHECK_STR(bootimg_claimed(&im), "grub p2", "grub: a devicetree line makes GRUB's grub.cfg the path, on the root");
	CHECK_STR(bootimg_summary(&im), "GRUB /boot/grub/grub.cfg, menuentry 'Debian GNU/Linux' (set default=0), devicetree /boot/dtb-6.1.0-18-arm64",
		  "grub: describe names the default entry and its devicetree");
	CHECK(im.sv->bootinfo.ndts == 1, "grub: one tree");
	CHECK_STR(bootimg_tree(&im, 0), "/boot/dtb-6.1.0-18-arm64", "grub: the default entry's tree");
	bootimg_expect_cmdline(&im, NULL, "root=UUID=d6b1a9e5-0000-4000-8000-000000000002 ro  quiet", GRUB_WHERE,
			       "grub: the linux line's arguments, and update-grub's source");
	CHECK(im.sv->bootpath->overlay_site == NULL, "grub: no overlay list");

	/* A later "set default" (as 40_custom may add) of "1>0": into the submenu, its first entry. */
	if (imgp_buf_printf(&cfg, "%sset default=\"1>0\"\n", debian_grub_cfg) ||
	    memfs_add(&im.fs[1], "/boot/grub/grub.cfg", cfg.data, cfg.len))
		abort();
	imgp_buf_free(&cfg);
	CHECK(bootimg_survey(&im) == 0, "grub, a submenu default: survey");
	CHECK_STR(bootimg_tree(&im, 0), "/boot/dtb-6.1.0-18-arm64.recovery",
		  "grub, a submenu default: the last set default wins, A>B walks into the submenu");
	bootimg_expect_cmdline(&im, NULL, "root=UUID=d6b1a9e5-0000-4000-8000-000000000002 ro single",
			       "p2 (ext4): /boot/grub/grub.cfg, menuentry 'Debian GNU/Linux, with Linux 6.1.0-18-arm64 (recovery mode)', linux; also kept in p2 (ext4): /etc/default/grub, GRUB_CMDLINE_LINUX_DEFAULT= then GRUB_CMDLINE_LINUX",
			       "grub, a submenu default: that entry's line");
	bootimg_free(&im);

	/* A default past the entries, and a file cut inside a submenu. */
	bootimg_init(&im, 1);
	snprintf(im.parts[0].fstype, sizeof(im.parts[0].fstype), "ext4");
	bootimg_put(&im, 1, "/boot/grub/grub.cfg", "set default=\"7\"\nmenuentry 'A' {\n\tlinux /a a=1\n\tdevicetree /a.dtb\n}\nsubmenu 'More' {\n\tmenuentry 'B' {\n");
	CHECK(bootimg_survey(&im) == 0, "grub, a default past the entries: survey");
	CHECK_STR(bootimg_summary(&im), "GRUB /boot/grub/grub.cfg, menuentry 'A' (set default=7, which names no entry: the first), devicetree /a.dtb",
		  "grub, a default past the entries: the first, and said");
	bootimg_expect_cmdline(&im, NULL, "a=1", "p1 (ext4): /boot/grub/grub.cfg, menuentry 'A', linux",
			       "grub, a default past the entries: the first entry's line");
	bootimg_free(&im);
}

static void test_efi(void)
{
	const struct imgp_survey_bootdt *dt;
	struct imgp_patch *patch;
	struct bootimg im;

	/* GRUB's entry names no devicetree: U-Boot's EFI boot hands over the ESP's tree. */
	put_debian_efi(&im, "set default=\"0\"\nmenuentry 'Debian GNU/Linux' {\n\tlinux\t/boot/vmlinuz-6.1.0-18-arm64 root=UUID=d6b1a9e5-0000-4000-8000-000000000002 ro  quiet\n}\n");
	bootimg_put(&im, 1, "/dtb/rockchip/rk3399-rockpro64.dtb", "tree");
	CHECK(bootimg_survey(&im) == 0, "efi: survey");
	CHECK_STR(bootimg_claimed(&im), "efi p1", "efi: the removable-media loader and trees claim the ESP");
	CHECK_STR(bootimg_summary(&im), "U-Boot EFI boot of /EFI/BOOT/BOOTAA64.EFI, tree ${fdtfile} from the last of / /dtb/ /dtb/current/ that has it (1 tree), no overlay list; fdtfile: the board's U-Boot's (none in the image)",
		  "efi: describe names the loader and where U-Boot looks for the tree");
	CHECK_STR(im.sv->bootinfo.chooser, "fdtfile", "efi: U-Boot's fdtfile picks");
	CHECK(im.sv->bootinfo.ndts == 1, "efi: one tree");
	CHECK_STR(bootimg_tree(&im, 0), "/dtb/rockchip/rk3399-rockpro64.dtb", "efi: the ESP's tree");
	CHECK_STR(im.sv->bootinfo.updates, "the EFI loader's kernel command line (GRUB, p2): update-grub (grub-mkconfig) writes grub.cfg anew at every kernel install or removal, the linux line's arguments from GRUB_CMDLINE_LINUX and GRUB_CMDLINE_LINUX_DEFAULT of /etc/default/grub (a --cmdline edit goes there too)",
		  "efi: the loader's update is told");
	bootimg_expect_cmdline(&im, NULL, "root=UUID=d6b1a9e5-0000-4000-8000-000000000002 ro  quiet", GRUB_WHERE,
			       "efi: the command line is GRUB's, on the root");
	CHECK(im.sv->bootpath->overlay_site == NULL, "efi: no overlay list");
	bootimg_free(&im);

	/* The loader alone, no tree and no configuration: no path claims it. */
	bootimg_init(&im, 2);
	bootimg_put(&im, 1, "/EFI/BOOT/BOOTAA64.EFI", "MZ");
	CHECK(bootimg_survey(&im) == 0, "efi, a bare loader: survey");
	CHECK_STR(bootimg_claimed(&im), "(none) p0", "efi, a bare loader: claims nothing");
	bootimg_expect_cmdline_refused(&im, NULL, -ENOENT, "no boot path recognised",
				       "efi, a bare loader: no command line");
	if (imgp_patch_new(&patch, &im.disk))
		abort();
	patch->survey = im.sv;
	CHECK(imgp_patch_find_booted_(patch, NULL, &dt) == -ENOENT, "efi, a bare loader: no tree to patch");
	/* The list is the boot paths' own words, in survey.c's order. */
	CHECK_STR(imgp_errmsg(), "no boot path recognised: no FIT, extlinux.conf, armbianEnv.txt, config.txt, boot script, Boot Loader Specification entry or grub.cfg names a tree",
		  "efi, a bare loader: the message names what names a tree on each path");
	patch->survey = NULL;
	imgp_patch_free(patch);
	bootimg_free(&im);
}

/* ---------------------------------------------------------------------- bls */

#define FEDORA_ENTRY(v, extra)                                                  \
	"title Fedora Linux (" v ") 40 (Server Edition)\n"                        \
	"version " v "\n"                                                         \
	"linux /vmlinuz-" v "\n"                                                  \
	"initrd /initramfs-" v ".img\n"                                           \
	"options root=UUID=f3d0b007-0000-4000-8000-000000000003 ro rhgb quiet\n"  \
	extra                                                                     \
	"grub_users $grub_users\n"                                                \
	"grub_arg --unrestricted\n"                                               \
	"grub_class fedora\n"
#define MID "4f3c1a2b5d6e7f8091a2b3c4d5e6f708"
#define NEW "6.8.9-300.fc40.aarch64"

static void test_bls(void)
{
	struct imgp_overlay_site site;
	struct imgp_buf list = { 0 };
	struct bootimg im;

	/* Fedora's ESP, and its /boot (XBOOTLDR) with the entries kernel-install wrote. */
	bootimg_init(&im, 2);
	snprintf(im.parts[1].fslabel, sizeof(im.parts[1].fslabel), "boot");
	bootimg_put(&im, 1, "/EFI/BOOT/BOOTAA64.EFI", "MZ");
	bootimg_put(&im, 1, "/EFI/fedora/grub.cfg", "search --no-floppy --fs-uuid --set=dev f3d0b007\nset prefix=($dev)/grub2\nexport $prefix\nconfigfile $prefix/grub.cfg\n");
	bootimg_put(&im, 2, "/loader/entries/" MID "-6.8.5-301.fc40.aarch64.conf",
	    FEDORA_ENTRY("6.8.5-301.fc40.aarch64", ""));
	bootimg_put(&im, 2, "/loader/entries/" MID "-" NEW ".conf",
	    FEDORA_ENTRY(NEW, "devicetree /dtb-" NEW "/rockchip/rk3399-rockpro64.dtb\ndevicetree-overlay /overlays/sdfix.dtbo\n"));
	bootimg_put(&im, 2, "/dtb-" NEW "/rockchip/rk3399-rockpro64.dtb", "tree");
	bootimg_put(&im, 2, "/vmlinuz-" NEW, "kernel");
	CHECK(bootimg_survey(&im) == 0, "bls: survey");
	CHECK_STR(bootimg_claimed(&im), "bls p2", "bls: the entries claim /boot");
	CHECK_STR(bootimg_summary(&im), "Boot Loader Specification entry /loader/entries/" MID "-" NEW ".conf (the first of 2 in systemd-boot's order), devicetree /dtb-" NEW "/rockchip/rk3399-rockpro64.dtb, overlays: /overlays/sdfix.dtbo",
		  "bls: the newest version boots first");
	CHECK(im.sv->bootinfo.ndts == 1, "bls: one tree");
	CHECK_STR(bootimg_tree(&im, 0), "/dtb-" NEW "/rockchip/rk3399-rockpro64.dtb", "bls: the entry's devicetree");
	CHECK_STR(bootimg_overlays(&im, 0), "/overlays/sdfix.dtbo", "bls: its devicetree-overlay");
	CHECK_STR(im.sv->bootinfo.updates, "kernel-install writes a new entry for every kernel it installs, which then boots first by its version: its options come from /etc/kernel/cmdline (else the running kernel's), it names no devicetree-overlay, and the new kernel's trees lack an edit made to this one's; dropped: /overlays/sdfix.dtbo",
		  "bls: kernel-install's new entry is told, and the overlay it drops");
	bootimg_expect_cmdline(&im, NULL, "root=UUID=f3d0b007-0000-4000-8000-000000000003 ro rhgb quiet",
			       "p2 (ext4): /loader/entries/" MID "-" NEW ".conf, entry " MID "-" NEW ".conf, options",
			       "bls: the entry's options");
	CHECK(bootimg_overlay_site(&im, 0, "imgpatch-1", NULL, &site, &list) == 0, "bls: overlay site");
	CHECK_STR(site.file, "/dtb-" NEW "/rockchip/imgpatch-1.dtbo", "bls: the overlay beside the tree");
	CHECK_STR(site.key, "devicetree-overlay", "bls: listed on devicetree-overlay");
	CHECK_STR(site.list, "/loader/entries/" MID "-" NEW ".conf", "bls: in the entry that boots");
	CHECK(list.data && strstr((char *)list.data, "\ndevicetree-overlay /overlays/sdfix.dtbo /dtb-" NEW "/rockchip/imgpatch-1.dtbo\n"),
	      "bls: after the entry's own overlay");
	bootimg_free(&im);

	/* loader.conf's default glob; an entry of another architecture, one without linux, an auto- one. */
	bootimg_init(&im, 1);
	bootimg_put(&im, 1, "/EFI/BOOT/BOOTAA64.EFI", "MZ");
	bootimg_put(&im, 1, "/loader/loader.conf", "timeout 3\ndefault *6.8.5*\n");
	bootimg_put(&im, 1, "/loader/entries/f-6.8.5.conf", "title A\nlinux /a\noptions a=1\ndevicetree /a.dtb\n");
	bootimg_put(&im, 1, "/loader/entries/f-6.8.9.conf", "title B\nlinux /b\noptions b=1\n");
	CHECK(bootimg_survey(&im) == 0, "bls, a default glob: survey");
	CHECK_STR(bootimg_summary(&im), "Boot Loader Specification entry /loader/entries/f-6.8.5.conf (loader.conf default *6.8.5*), devicetree /a.dtb, overlays: none",
		  "bls, a default glob: the entry it matches");
	memfs_clear(&im.fs[0]);
	bootimg_put(&im, 1, "/EFI/BOOT/BOOTAA64.EFI", "MZ");
	bootimg_put(&im, 1, "/loader/entries/a.conf", "title A\narchitecture x64\nlinux /a\noptions a=1\n");
	bootimg_put(&im, 1, "/loader/entries/b.conf", "title B\noptions b=1\n");
	bootimg_put(&im, 1, "/loader/entries/auto-c.conf", "title C\nlinux /c\n");
	CHECK(bootimg_survey(&im) == 0, "bls, no entry that boots: survey");
	CHECK_STR(bootimg_summary(&im), "Boot Loader Specification entries /loader/entries, no entry that boots on this architecture",
		  "bls, no entry that boots: said");
	CHECK(im.sv->bootinfo.ndts == 0, "bls, no entry that boots: no tree");
	bootimg_expect_cmdline_refused(&im, NULL, -ENOENT,
				       "/loader/entries: no Boot Loader Specification entry that boots",
				       "bls, no entry that boots: no command line");
	imgp_buf_free(&list);
	bootimg_free(&im);
}

int main(void)
{
	test_rpi();
	test_grub();
	test_efi();
	test_bls();
	return unit_done();
}
