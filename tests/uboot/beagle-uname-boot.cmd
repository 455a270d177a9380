# SPDX-License-Identifier: MIT
#
# BeagleBoard's U-Boot for the BeagleBone boots Debian from its built-in
# environment, not from a script on the card. This is that environment as
# a script, for t0640: the BeagleBone Black's settings (board.c), the
# helpers of include/environment/ti/mmc.h and ti_armv7_common.h's "boot"
# loop and "uname_boot", with their commands, variables, paths and order,
# written here. Source (read, not copied): RobertCNelson/Bootloader-Builder
# at commit 24491084c6511a185591245ac5ab4ba1ed391d9f, patches/v2021.10/
# am335x_evm/0002/include/configs/ti_armv7_common.h,
# include/environment/ti/mmc.h, board/ti/am335x/board.c. Left out: the
# cape EEPROM probe (no capes here), the boot of the kernel when bootz is
# there, the FIT and netinstall branches. ${devtype} and ${mmcdev} come
# from the caller.

# ti_armv7_common.h's load addresses
setenv loadaddr 0x82000000
setenv fdtaddr 0x88000000
setenv rdaddr 0x88080000

# What board.c sets for a BeagleBone Black (findfdt and the virtual capes)
setenv fdtfile am335x-boneblack.dtb
setenv uboot_base_dtb_univ am335x-boneblack-uboot-univ.dtb
setenv uboot_base_dtb am335x-boneblack-uboot.dtb
setenv uboot_emmc BB-BONE-eMMC1-01-00A0.dtbo
setenv uboot_video BB-HDMI-TDA998x-00A0.dtbo
setenv uboot_video_naudio BB-NHDMI-TDA998x-00A0.dtbo

setenv loadimage 'load ${devtype} ${bootpart} ${loadaddr} ${bootdir}/${bootfile}'
setenv loadrd 'load ${devtype} ${bootpart} ${rdaddr} ${bootdir}/${rdfile}; setenv rdsize ${filesize}'
setenv loadfdt 'echo loading ${fdtdir}/${fdtfile} ...; load ${devtype} ${bootpart} ${fdtaddr} ${fdtdir}/${fdtfile}'
setenv loadoverlay 'echo uboot_overlays: loading ${actual_uboot_overlay} ...;
	load ${devtype} ${bootpart} ${rdaddr} ${actual_uboot_overlay};
	fdt addr ${fdtaddr}; fdt resize ${fdt_buffer};
	fdt apply ${rdaddr}; fdt resize ${fdt_buffer};'
# An overlay from ${fdtdir}/overlays/, else /lib/firmware/, else as a path.
setenv virtualloadoverlay 'if test -e ${devtype} ${bootpart} ${fdtdir}/overlays/${uboot_overlay}; then
		setenv actual_uboot_overlay ${fdtdir}/overlays/${uboot_overlay}; run loadoverlay;
	else if test -e ${devtype} ${bootpart} /lib/firmware/${uboot_overlay}; then
		setenv actual_uboot_overlay /lib/firmware/${uboot_overlay}; run loadoverlay;
	else if test -e ${devtype} ${bootpart} ${uboot_overlay}; then
		setenv actual_uboot_overlay ${uboot_overlay}; run loadoverlay;
	else
		echo uboot_overlays: unable to find [${devtype} ${bootpart} ${uboot_overlay}]...;
	fi; fi; fi;'
setenv uname_boot 'setenv bootdir /boot; setenv bootfile vmlinuz-${uname_r};
	if test -e ${devtype} ${bootpart} ${bootdir}/${bootfile}; then
		echo loading ${bootdir}/${bootfile} ...; run loadimage;
		setenv fdtdir /boot/dtbs/${uname_r};
		if test -n ${enable_uboot_overlays}; then
			if test -n ${enable_uboot_cape_universal} && test -e ${devtype} ${bootpart} ${fdtdir}/${uboot_base_dtb_univ}; then
				setenv fdtfile ${uboot_base_dtb_univ}; echo uboot_overlays: Switching too: dtb=${fdtfile} ...;
			else if test -e ${devtype} ${bootpart} ${fdtdir}/${uboot_base_dtb}; then
				setenv fdtfile ${uboot_base_dtb}; echo uboot_overlays: Switching too: dtb=${fdtfile} ...;
			fi; fi;
		fi;
		if test -e ${devtype} ${bootpart} ${fdtdir}/${fdtfile}; then run loadfdt;
		else setenv fdtdir /usr/lib/linux-image-${uname_r}; if test -e ${devtype} ${bootpart} ${fdtdir}/${fdtfile}; then run loadfdt;
		else setenv fdtdir /lib/firmware/${uname_r}/device-tree; if test -e ${devtype} ${bootpart} ${fdtdir}/${fdtfile}; then run loadfdt;
		else setenv fdtdir /boot/dtb-${uname_r}; if test -e ${devtype} ${bootpart} ${fdtdir}/${fdtfile}; then run loadfdt;
		else setenv fdtdir /boot/dtbs; if test -e ${devtype} ${bootpart} ${fdtdir}/${fdtfile}; then run loadfdt;
		else setenv fdtdir /boot/dtb; if test -e ${devtype} ${bootpart} ${fdtdir}/${fdtfile}; then run loadfdt;
		else setenv fdtdir /boot; if test -e ${devtype} ${bootpart} ${fdtdir}/${fdtfile}; then run loadfdt;
		else if test -e ${devtype} ${bootpart} ${fdtfile}; then run loadfdt;
		else echo unable to find [dtb=${fdtfile}] did you name it correctly? ...;
		fi; fi; fi; fi; fi; fi; fi; fi;
		if test -n ${enable_uboot_overlays}; then
			setenv fdt_buffer 0x60000;
			if test -n ${uboot_fdt_buffer}; then setenv fdt_buffer ${uboot_fdt_buffer}; fi;
			if test -n ${disable_uboot_overlay_adc}; then
				echo uboot_overlays: uboot loading of [BB-ADC-00A0.dtbo] disabled by /boot/uEnv.txt [disable_uboot_overlay_adc=1]...;
			else
				setenv uboot_overlay BB-ADC-00A0.dtbo; run virtualloadoverlay;
			fi;
			if test -n ${uboot_overlay_addr0}; then
				if test -n ${disable_uboot_overlay_addr0}; then
					echo uboot_overlays: uboot loading of [${uboot_overlay_addr0}] disabled by /boot/uEnv.txt [disable_uboot_overlay_addr0=1]...;
				else
					setenv uboot_overlay ${uboot_overlay_addr0}; run virtualloadoverlay;
				fi;
			fi;
			if test -n ${uboot_overlay_addr1}; then
				if test -n ${disable_uboot_overlay_addr1}; then
					echo uboot_overlays: uboot loading of [${uboot_overlay_addr1}] disabled by /boot/uEnv.txt [disable_uboot_overlay_addr1=1]...;
				else
					setenv uboot_overlay ${uboot_overlay_addr1}; run virtualloadoverlay;
				fi;
			fi;
			if test -n ${uboot_overlay_addr2}; then
				if test -n ${disable_uboot_overlay_addr2}; then
					echo uboot_overlays: uboot loading of [${uboot_overlay_addr2}] disabled by /boot/uEnv.txt [disable_uboot_overlay_addr2=1]...;
				else
					setenv uboot_overlay ${uboot_overlay_addr2}; run virtualloadoverlay;
				fi;
			fi;
			if test -n ${uboot_overlay_addr3}; then
				if test -n ${disable_uboot_overlay_addr3}; then
					echo uboot_overlays: uboot loading of [${uboot_overlay_addr3}] disabled by /boot/uEnv.txt [disable_uboot_overlay_addr3=1]...;
				else
					setenv uboot_overlay ${uboot_overlay_addr3}; run virtualloadoverlay;
				fi;
			fi;
			if test -n ${uboot_overlay_addr4}; then setenv uboot_overlay ${uboot_overlay_addr4}; run virtualloadoverlay; fi;
			if test -n ${uboot_overlay_addr5}; then setenv uboot_overlay ${uboot_overlay_addr5}; run virtualloadoverlay; fi;
			if test -n ${uboot_overlay_addr6}; then setenv uboot_overlay ${uboot_overlay_addr6}; run virtualloadoverlay; fi;
			if test -n ${uboot_overlay_addr7}; then setenv uboot_overlay ${uboot_overlay_addr7}; run virtualloadoverlay; fi;
			if test -n ${uboot_emmc}; then
				if test -n ${disable_uboot_overlay_emmc}; then
					echo uboot_overlays: uboot loading of [${uboot_emmc}] disabled by /boot/uEnv.txt [disable_uboot_overlay_emmc=1]...;
				else
					setenv uboot_overlay ${uboot_emmc}; run virtualloadoverlay;
				fi;
			fi;
			if test -n ${uboot_video}; then
				if test -n ${disable_uboot_overlay_video}; then
					echo uboot_overlays: uboot loading of [${uboot_video}] disabled by /boot/uEnv.txt [disable_uboot_overlay_video=1]...;
				else if test -n ${disable_uboot_overlay_audio}; then
					setenv uboot_overlay ${uboot_video_naudio}; run virtualloadoverlay;
				else
					setenv uboot_overlay ${uboot_video}; run virtualloadoverlay;
				fi; fi;
			fi;
			if test -n ${uboot_overlay_pru}; then setenv uboot_overlay ${uboot_overlay_pru}; run virtualloadoverlay; fi;
			if test -n ${uboot_overlay_pru_add}; then setenv uboot_overlay ${uboot_overlay_pru_add}; run virtualloadoverlay; fi;
			if test -n ${dtb_overlay}; then setenv uboot_overlay ${dtb_overlay}; run virtualloadoverlay; fi;
		else
			echo uboot_overlays: add [enable_uboot_overlays=1] to /boot/uEnv.txt to enable...;
		fi;
		setenv rdfile initrd.img-${uname_r};
		if test -e ${devtype} ${bootpart} ${bootdir}/${rdfile}; then
			echo loading ${bootdir}/${rdfile} ...; run loadrd;
		fi;
	fi;'

# "boot": every partition with /boot/uEnv.txt is imported; uname_r boots.
for i in 1 2 3 4 5 6 7; do
	setenv mmcpart ${i}
	setenv bootpart ${mmcdev}:${mmcpart}
	if test -e ${devtype} ${bootpart} /boot/uEnv.txt; then
		load ${devtype} ${bootpart} ${loadaddr} /boot/uEnv.txt
		env import -t ${loadaddr} ${filesize}
		echo Loaded environment from /boot/uEnv.txt
		if test -n ${dtb}; then
			setenv fdtfile ${dtb}
			echo Using: dtb=${fdtfile} ...
		fi
		if test -n ${uname_r}; then
			echo Running uname_boot ...
			run uname_boot
		fi
	fi
done
