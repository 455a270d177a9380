// SPDX-License-Identifier: MIT
/*
 * Every kind of doctor finding, in one table: its stable id, severity,
 * what it is and costs in general, and where imgpatch(1) documents it. A
 * check names the kind by its enum (doctor.h), never by a copy of the id;
 * tests/t1105-doctor-findings.sh proves that the manual and
 * tool/schema/doctor.schema.json list the same ids as this table.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "doctor/doctor.h"

#define WARNING IMGP_SEVERITY_WARNING
#define INFO IMGP_SEVERITY_INFO

/* The man page's subsections of DOCTOR FINDINGS. */
#define MAN_MMC "SD and eMMC controllers"
#define MAN_MOUNTS "Mounts and swap"
#define MAN_BOOT "Boot"
#define MAN_KERNEL "Kernel"
#define MAN_RPI "Raspberry Pi"

const struct doctor_finding_kind imgp_doctor_findings_[DOCTOR_NFINDINGS] = {
	[DOCTOR_UHS_BLOCKED] = {
		"uhs-blocked", WARNING, INFO,
		"a controller may not switch to 1.8 V (no-1-8-v)",
		"UHS-I modes of SD cards, HS200 and HS400 of eMMC are blocked",
		MAN_MMC },
	[DOCTOR_UHS_MODES_MISSING] = {
		"uhs-modes-missing", WARNING, INFO,
		"an SD controller lists no UHS-I mode",
		"the card may stay at High Speed (50 MHz)",
		MAN_MMC },
	[DOCTOR_MAX_FREQUENCY_CAP] = {
		"max-frequency-cap", INFO, INFO,
		"max-frequency holds the bus clock below what the controller allows",
		"the transfer rate drops with the clock",
		MAN_MMC },
	[DOCTOR_BROKEN_CD] = {
		"broken-cd", INFO, INFO,
		"an SD slot polls for the card (broken-cd)",
		"a wakeup every second, and a card change is seen late",
		MAN_MMC },
	[DOCTOR_EMMC_HS200_MISSING] = {
		"emmc-hs200-missing", INFO, INFO,
		"an eMMC controller lists neither HS200 nor HS400",
		"the eMMC may stay at 52 MHz",
		MAN_MMC },
	[DOCTOR_EMMC_VQMMC_3V3] = {
		"emmc-vqmmc-3v3", INFO, INFO,
		"the eMMC's I/O supply is fixed at 3.3 V",
		"HS200 and HS400 need a hardware change",
		MAN_MMC },
	[DOCTOR_BUS_WIDTH_LOW] = {
		"bus-width-low", WARNING, WARNING,
		"a controller uses one data line",
		"a quarter or an eighth of the bandwidth",
		MAN_MMC },
	[DOCTOR_FSTAB_DISCARD] = {
		"fstab-discard", WARNING, WARNING,
		"a filesystem on the card is mounted with discard",
		"a TRIM for every delete: slow deletes, write stalls",
		MAN_MOUNTS },
	[DOCTOR_FSTAB_ATIME] = {
		"fstab-atime", INFO, INFO,
		"/ makes no access-time choice",
		"reading files writes their inodes",
		MAN_MOUNTS },
	[DOCTOR_FSTRIM_TIMER_OFF] = {
		"fstrim-timer-off", INFO, INFO,
		"the card is never trimmed",
		"writes slow down as the card fills",
		MAN_MOUNTS },
	[DOCTOR_SWAP_ON_SD] = {
		"swap-on-sd", WARNING, WARNING,
		"swap on the card",
		"small random writes, the slowest thing a card does, which also wear it",
		MAN_MOUNTS },
	[DOCTOR_BOOT_OVERRIDE_IGNORED] = {
		"boot-override-ignored", WARNING, INFO,
		"no boot script loads the override tree",
		"device-tree fixes cannot take effect that way",
		MAN_BOOT },
	[DOCTOR_FIT_CONFIG] = {
		"fit-config", INFO, INFO,
		"which FIT configuration the boot script boots, per carrier board",
		"how many of the warnings concern that tree",
		MAN_BOOT },
	[DOCTOR_OVERLAY_NOT_APPLIED] = {
		"overlay-not-applied", WARNING, INFO,
		"an overlay the boot path lists does not take effect",
		"its change never reaches the board",
		MAN_BOOT },
	[DOCTOR_OVERLAY_NO_ROOM] = {
		"overlay-no-room", WARNING, WARNING,
		"an overlay needs more room than U-Boot gives the tree",
		"fdt apply fails (FDT_ERR_NOSPACE): the tree is lost, and the boot with it or the label",
		MAN_BOOT },
	[DOCTOR_TREE_MISSING] = {
		"tree-missing", WARNING, WARNING,
		"the device tree a boot path names is not there",
		"the board does not boot that tree: the boot stops, or goes on with another",
		MAN_BOOT },
	[DOCTOR_OVERLAY_NOT_DURABLE] = {
		"overlay-not-durable", WARNING, WARNING,
		"an overlay the boot path lists is dropped when the distribution writes its boot configuration anew",
		"its change is lost at the next kernel upgrade",
		MAN_BOOT },
	[DOCTOR_OVERRIDE_STALE] = {
		"override-stale", WARNING, INFO,
		"the override tree the boot script loads is a whole copy of a tree, which a kernel upgrade does not renew",
		"the board keeps booting the copied tree after a kernel upgrade, without the new kernel's tree changes",
		MAN_BOOT },
	[DOCTOR_KERNEL_STORAGE_FIX_MISSING] = {
		"kernel-storage-fix-missing", WARNING, WARNING,
		"the kernel is older than a release that fixed a storage problem",
		"the problem that release fixed",
		MAN_KERNEL },
	[DOCTOR_RPI_SD_OVERCLOCK] = {
		"rpi-sd-overclock", INFO, INFO,
		"config.txt does not set dtparam=sd_overclock",
		"the SD clock stays at 50 MHz",
		MAN_RPI },
};

struct imgp_finding *imgp_doctor_add_milder_(struct doctor *d, enum doctor_finding_id id,
				       bool milder)
{
	const struct doctor_finding_kind *kind = &imgp_doctor_findings_[id];
	struct imgp_doctor *out = d->out;
	struct imgp_finding *grown, *f;

	grown = realloc(out->findings, (out->n + 1) * sizeof(*grown));
	if (!grown) {
		imgp_fail(ENOMEM, "out of memory");
		return NULL;
	}
	out->findings = grown;
	f = &out->findings[out->n++];
	memset(f, 0, sizeof(*f));
	f->id = kind->id;
	f->severity = milder ? kind->milder : kind->severity;
	return f;
}

struct imgp_finding *imgp_doctor_add_(struct doctor *d, enum doctor_finding_id id)
{
	return imgp_doctor_add_milder_(d, id, false);
}
