# SPDX-License-Identifier: MIT
SUMMARY = "Patch SD-card disk images offline: boot device tree and /etc/fstab"
DESCRIPTION = "imgpatch changes the boot device tree and /etc/fstab of a disk \
image file, or of a card in a reader, without mounting, loop \
devices or root: it reads the partition table, takes the device \
tree out of the FIT on the FAT boot partition, edits it, writes \
user-override.dtb back and rewrites fstab in the ext4 root. Board \
recipes (kv260-uhs, fstab-noatime, ...) apply checked sets of such \
changes as one transaction."
# imgpatch has no public home page yet: IMGPATCH_HOMEPAGE says where it is.
IMGPATCH_HOMEPAGE ??= ""
HOMEPAGE = "${IMGPATCH_HOMEPAGE}"
SECTION = "devel"
LICENSE = "MIT"
LIC_FILES_CHKSUM = "file://LICENSE;md5=d20c1d2df900d7b3815ed4a7aa0bc1c7"

# dtc gives libfdt (and dtc-native compiles the overlays the shipped recipes
# carry), e2fsprogs libext2fs and libcom_err, util-linux libblkid, xz liblzma,
# virtual/crypt (libxcrypt with glibc) libcrypt, which hashes the passwords
# `customize` sets.
DEPENDS = "dtc dtc-native e2fsprogs libarchive libconfuse nettle util-linux virtual/crypt xz zlib"
# For -native, OE-Core takes the host's libcrypt as given (virtual/crypt-native
# is in ASSUME_PROVIDED), but the Makefile asks pkg-config for libxcrypt.pc
# and the sysroot's pkg-config sees only what is staged there.
DEPENDS:append:class-native = " libxcrypt-native"

PV = "0.1+git"

# By default: the imgpatch source tree this layer is part of, at the commit
# below (one with the Makefile's MAN=0 and libxcrypt; nobranch: any commit
# of the tree will do). For another repository (a fork, a mirror), in local.conf:
#   IMGPATCH_GIT_URI = "git://git.example.com/imgpatch.git;protocol=https;branch=main"
#   IMGPATCH_SRCREV = "<a commit on that branch>"
# destsuffix: unpacked into ${BP}, which is S on every series (UNPACKDIR
# from styhead on, WORKDIR before).
IMGPATCH_GIT_URI ??= "git://${IMGPATCH_SRCDIR};protocol=file;nobranch=1"
IMGPATCH_SRCREV ??= "75ef06137200b6518d5137c87408baeb0607e6aa"
SRC_URI = "${IMGPATCH_GIT_URI};destsuffix=${BP}"
SRCREV = "${IMGPATCH_SRCREV}"

inherit bash-completion pkgconfig

# The manual needs scdoc, which oe-core has from walnascar on: on scarthgap
# it is left out unless PACKAGECONFIG asks for it (and a layer of yours
# provides scdoc-native).
PACKAGECONFIG ??= "${@'' if 'scarthgap' in d.getVar('LAYERSERIES_CORENAMES').split() else 'manual'}"
PACKAGECONFIG[manual] = "MAN=1,MAN=0,scdoc-native"

# CC, CFLAGS and the pkg-config wrapper come from the environment BitBake
# sets up. WARN drops the Makefile's -Werror: a compiler newer than the
# ones imgpatch is tested with may warn where they did not, and that must
# not stop a distribution build.
EXTRA_OEMAKE = "PREFIX=${prefix} DESTDIR=${D} V=1 'WARN=-Wall -Wextra' ${PACKAGECONFIG_CONFARGS}"

# do_compile is BitBake's default: oe_runmake in ${B}, which is ${S}.
do_install() {
    oe_runmake install
}

# `make install` also installs the bash completion (${PN}-bash-completion,
# from the class) and the zsh one.
PACKAGES += "${PN}-zsh-completion"

FILES:${PN}-zsh-completion:append = " ${datadir}/zsh"

# mtools' programs (mdir, mtype, mcopy) read and write the FAT partitions.
RDEPENDS:${PN} = "mtools"

BBCLASSEXTEND = "native nativesdk"
