// SPDX-License-Identifier: MIT
/*
 * Kernel releases that fixed a storage-performance problem of some boards.
 * The doctor reports a kernel older than the fix on a tree that has the
 * device. By version only: a vendor kernel may carry the fix as a backport,
 * which is why the finding says "older than", not "lacks".
 *
 * One entry a fix; cite where it landed.
 */
#include "doctor/doctor.h"

const struct doctor_kernel_fix imgp_doctor_kernel_fixes_[] = {
	/*
	 * Allwinner A10/A20 SATA: "drivers: ata: ahci_sunxi: Increased
	 * SATA/AHCI DMA TX/RX FIFOs" (Uenal Mutlu, May 2019) sets the port's
	 * DMA transaction sizes (P0DMACR.TXTS/RXTS) from 0 to 3; writes went
	 * from about 36-45 MiB/s to 120-132 MiB/s. Merged for Linux 5.3
	 * (libata pull "for-5.3/libata-20190708", July 2019).
	 */
	{
		.soc = "allwinner,sun7i-a20",
		.device = "allwinner,sun4i-a10-ahci",
		.version = { 5, 3, 0 },
		.title = "ahci_sunxi DMA transaction size (P0DMACR) fix, Linux 5.3",
		.cost = "SATA writes about 36-45 MiB/s instead of about 120 MiB/s",
	},
};

const size_t imgp_doctor_nkernel_fixes_ =
	sizeof(imgp_doctor_kernel_fixes_) / sizeof(imgp_doctor_kernel_fixes_[0]);
