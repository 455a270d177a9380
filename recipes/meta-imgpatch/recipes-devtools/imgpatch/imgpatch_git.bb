# SPDX-License-Identifier: MIT
SUMMARY = "Patch SD-card disk images offline: boot device tree and /etc/fstab"
DESCRIPTION = "imgpatch changes the boot device tree and /etc/fstab of a disk \
image file, or of a card in a reader, without mounting, loop devices or root: \
it reads the partition table, takes the device tree out of the FIT on the FAT \
boot partition, edits it, writes user-override.dtb back and rewrites fstab in \
the ext4 root. Board recipes (kv260-uhs, fstab-noatime, ...) apply checked sets \
of such changes as one transaction."
SECTION = "devel"
LICENSE = "MIT"
LIC_FILES_CHKSUM = "file://LICENSE;md5=d20c1d2df900d7b3815ed4a7aa0bc1c7"

# dtc: libfdt for the program, and dtc itself (native) to compile the
# overlays the shipped recipes carry. e2fsprogs gives libext2fs and
# libcom_err, util-linux libblkid, xz liblzma; scdoc renders the manual.
DEPENDS = "dtc dtc-native e2fsprogs util-linux nettle zlib libconfuse libarchive xz scdoc-native"
# mtools' programs (mdir, mtype, mcopy) read and write the FAT partitions.
RDEPENDS:${PN} = "mtools"

# Where imgpatch comes from: set IMGPATCH_GIT_URI (a BitBake git URL, e.g.
# "git:///srv/src/imgpatch;protocol=file;branch=main") in local.conf, or
# SRC_URI itself. IMGPATCH_SRCREV pins a commit (default: the branch head).
IMGPATCH_GIT_URI ??= ""
IMGPATCH_SRCREV ??= "${AUTOREV}"
SRC_URI ?= "${IMGPATCH_GIT_URI}"
SRCREV = "${IMGPATCH_SRCREV}"
PV = "0.1+git${SRCPV}"
S = "${WORKDIR}/git"

inherit pkgconfig bash-completion

# `make install` also installs the manual (${PN}-doc), the bash completion
# (${PN}-bash-completion, from the class) and the zsh one.
PACKAGES += "${PN}-zsh-completion"
FILES:${PN}-zsh-completion = "${datadir}/zsh"

# CC, CFLAGS and the pkg-config wrapper come from the environment BitBake
# sets up. WARN drops the Makefile's -Werror: a compiler newer than the
# ones imgpatch is tested with may warn where they did not, and that must
# not stop a distribution build.
EXTRA_OEMAKE = "PREFIX=${prefix} DESTDIR=${D} V=1 'WARN=-Wall -Wextra'"

# do_compile is BitBake's default: oe_runmake in ${B}, which is ${S}.
do_install() {
	oe_runmake install
}

python () {
    if not (d.getVar('SRC_URI') or '').strip():
        raise bb.parse.SkipRecipe("IMGPATCH_GIT_URI is not set: point it at imgpatch's git repository (see meta-imgpatch/README.md)")
}

BBCLASSEXTEND = "native nativesdk"
