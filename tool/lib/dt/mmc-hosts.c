// SPDX-License-Identifier: MIT
/*
 * What SD/eMMC host controllers can do, by compatible string: the bus
 * modes their Linux driver enables and the clock the SoC's own device tree
 * gives them. Each entry names the driver (drivers/mmc/host/ in Linux 6.1,
 * the kernel Debian 12 ships) or the tree that says so. A mode the entry
 * leaves IMGP_MMC_CAP_UNKNOWN is one nobody has checked: the doctor then
 * suggests nothing about it.
 */
#include <string.h>

#include <libfdt.h>

#include "dt/dt.h"

#define Y IMGP_MMC_CAP_YES
#define N IMGP_MMC_CAP_NO
#define U IMGP_MMC_CAP_UNKNOWN

/*
 * Most specific first: a node whose compatible list holds several entries
 * ("fsl,imx8mm-usdhc", "fsl,imx7d-usdhc") takes the first match in its own
 * list order, so the SoC's entry wins over the fallback's.
 */
static const struct imgp_mmc_host hosts[] = {
	/* compatible            sdhci uhs  hs200 hs400 max_hz  source */
	{ "xlnx,zynqmp-8.9a",    true, Y, Y, N, 200000000,
	  "sdhci-of-arasan.c: ZynqMP SD 3.0 host, SDR104 and HS200 with tap-delay tuning" },
	{ "arasan,sdhci-8.9a",   true, Y, Y, N, 200000000,
	  "sdhci-of-arasan.c: SD 3.0 host (SDR104, HS200)" },
	{ "rockchip,rk3399-sdhci-5.1", true, N, Y, Y, 150000000,
	  "sdhci-of-arasan.c with phy-rockchip-emmc.c: eMMC 5.1 host, HS400; rk3399.dtsi caps it at 150 MHz" },
	{ "arasan,sdhci-5.1",    true, U, Y, Y, 200000000,
	  "sdhci-of-arasan.c: eMMC 5.1 host (HS200, HS400)" },
	{ "brcm,bcm2711-emmc2",  true, Y, N, N, 0,
	  "sdhci-iproc.c bcm2711_data: SD slot with a 1.8/3.3 V I/O regulator; the Raspberry Pi 4 microSD" },
	{ "brcm,bcm2712-sdhci",  true, Y, U, U, 0,
	  "sdhci-brcmstb.c: Raspberry Pi 5 microSD, SDR104" },
	{ "brcm,bcm2835-sdhci",  true, N, N, N, 0,
	  "sdhci-iproc.c bcm2835_data: 3.3 V only (SDHCI_QUIRK_MISSING_CAPS, no 1.8 V)" },
	{ "brcm,bcm2835-sdhost", false, N, N, N, 0,
	  "bcm2835.c: High Speed at 3.3 V only" },
	{ "allwinner,sun4i-a10-mmc", false, N, N, N, 0,
	  "sunxi-mmc.c sun4i_a10_cfg: no new timing mode, no 1.8 V modes" },
	{ "allwinner,sun5i-a13-mmc", false, N, N, N, 0,
	  "sunxi-mmc.c sun5i_a13_cfg: no new timing mode, no 1.8 V modes" },
	{ "allwinner,sun7i-a20-mmc", false, N, N, N, 0,
	  "sunxi-mmc.c sun7i_a20_cfg: no new timing mode, no 1.8 V modes" },
	{ "allwinner,sun50i-a64-emmc", false, N, Y, N, 200000000,
	  "sunxi-mmc.c sun50i_a64_emmc_cfg: HS200 on the eMMC controller; sun50i-a64.dtsi gives it 200 MHz" },
	{ "allwinner,sun50i-a64-mmc", false, Y, N, N, 150000000,
	  "sunxi-mmc.c sun50i_a64_cfg: modes only as the tree lists them; sun50i-a64.dtsi gives it 150 MHz" },
	{ "ti,omap2-hsmmc",      false, N, N, N, 52000000,
	  "omap_hsmmc.c: High Speed at most (OMAP_MMC_MAX_CLOCK 52 MHz), no UHS or HS200" },
	{ "ti,omap3-hsmmc",      false, N, N, N, 52000000,
	  "omap_hsmmc.c: High Speed at most (OMAP_MMC_MAX_CLOCK 52 MHz), no UHS or HS200" },
	{ "ti,omap3-pre-es3-hsmmc", false, N, N, N, 52000000,
	  "omap_hsmmc.c: High Speed at most (OMAP_MMC_MAX_CLOCK 52 MHz), no UHS or HS200" },
	{ "ti,omap4-hsmmc",      false, N, N, N, 52000000,
	  "omap_hsmmc.c: High Speed at most (OMAP_MMC_MAX_CLOCK 52 MHz), no UHS or HS200" },
	{ "ti,am335-sdhci",      true, N, N, N, 0,
	  "sdhci-omap.c: the AM335x controller has no 1.8 V I/O (SDHCI_QUIRK2_NO_1_8_V)" },
	{ "ti,dra7-sdhci",       true, Y, Y, N, 0,
	  "sdhci-omap.c: DRA7 host with tuning, SDR104 and HS200" },
	{ "fsl,imx25-esdhc",     true, N, N, N, 0,
	  "sdhci-esdhc-imx.c esdhc_imx25_data: no USDHC flag, no 1.8 V modes" },
	{ "fsl,imx35-esdhc",     true, N, N, N, 0,
	  "sdhci-esdhc-imx.c esdhc_imx35_data: no USDHC flag, no 1.8 V modes" },
	{ "fsl,imx50-esdhc",     true, N, N, N, 0,
	  "sdhci-esdhc-imx.c esdhc_imx51_data: no USDHC flag, no 1.8 V modes" },
	{ "fsl,imx51-esdhc",     true, N, N, N, 0,
	  "sdhci-esdhc-imx.c esdhc_imx51_data: no USDHC flag, no 1.8 V modes" },
	{ "fsl,imx53-esdhc",     true, N, N, N, 0,
	  "sdhci-esdhc-imx.c esdhc_imx53_data: no USDHC flag, no 1.8 V modes" },
	{ "fsl,imx6q-usdhc",     true, Y, N, N, 0,
	  "sdhci-esdhc-imx.c usdhc_imx6q_data: USDHC with manual tuning (SDR104), no ESDHC_FLAG_HS200" },
	{ "fsl,imx6sl-usdhc",    true, Y, Y, N, 0,
	  "sdhci-esdhc-imx.c usdhc_imx6sl_data: ESDHC_FLAG_HS200" },
	{ "fsl,imx6sx-usdhc",    true, Y, Y, N, 0,
	  "sdhci-esdhc-imx.c usdhc_imx6sx_data: ESDHC_FLAG_HS200" },
	{ "fsl,imx6ull-usdhc",   true, Y, Y, N, 0,
	  "sdhci-esdhc-imx.c usdhc_imx6ull_data: ESDHC_FLAG_HS200" },
	{ "fsl,imx6sll-usdhc",   true, Y, Y, Y, 0,
	  "sdhci-esdhc-imx.c usdhc_imx6sll_data: ESDHC_FLAG_HS200 and ESDHC_FLAG_HS400" },
	{ "fsl,imx7d-usdhc",     true, Y, Y, Y, 0,
	  "sdhci-esdhc-imx.c usdhc_imx7d_data: ESDHC_FLAG_HS200 and ESDHC_FLAG_HS400" },
	{ "marvell,orion-sdio",  false, N, N, N, 50000000,
	  "mvsdio.c: SDIO/SD host, High Speed at 3.3 V only" },
	{ "wm,wm8505-sdhc",      false, N, N, N, 0,
	  "wmt-sdmmc.c: High Speed at 3.3 V only" },
	{ "marvell,armada-3700-sdhci", true, Y, Y, Y, 0,
	  "sdhci-xenon.c: Xenon host, SDR104, HS200 and HS400" },
	{ "marvell,armada-ap806-sdhci", true, Y, Y, Y, 0,
	  "sdhci-xenon.c: Xenon host, SDR104, HS200 and HS400" },
	{ "marvell,armada-cp110-sdhci", true, Y, Y, Y, 0,
	  "sdhci-xenon.c: Xenon host, SDR104, HS200 and HS400" },
	{ "qcom,sdhci-msm-v4",   true, Y, Y, Y, 0,
	  "sdhci-msm.c: SDR104, HS200 and HS400 with the core DLL" },
	{ "qcom,sdhci-msm-v5",   true, Y, Y, Y, 0,
	  "sdhci-msm.c: SDR104, HS200 and HS400 with the core DLL" },
	{ "amlogic,meson-gx-mmc", false, Y, Y, N, 200000000,
	  "meson-gx-mmc.c: SDR104 and HS200 with phase tuning, no HS400 (MMC_CAP2_HS400 not set)" },
	{ "amlogic,meson-axg-mmc", false, Y, Y, N, 200000000,
	  "meson-gx-mmc.c: SDR104 and HS200 with phase tuning, no HS400" },
	{ "rockchip,rk3288-dw-mshc", false, Y, Y, N, 150000000,
	  "dw_mmc-rockchip.c: SDR104 and HS200 with phase tuning; the Rockchip .dtsi files give 150 MHz" },
	{ "rockchip,rk3568-dwcmshc", true, N, Y, Y, 200000000,
	  "sdhci-of-dwcmshc.c: eMMC host, HS200 and HS400 with the Rockchip DLL" },
};

const struct imgp_mmc_host *imgp_mmc_host_find_(const void *fdt, int node)
{
	const char *p, *end;
	int len;

	p = fdt_getprop(fdt, node, "compatible", &len);
	if (!p || len <= 0 || p[len - 1] != '\0')
		return NULL;
	for (end = p + len; p < end; p += strlen(p) + 1)
		for (size_t i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++)
			if (strcmp(p, hosts[i].compatible) == 0)
				return &hosts[i];
	return NULL;
}
