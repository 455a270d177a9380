#!/bin/bash
# SPDX-License-Identifier: MIT
#
# layer.sh VARIANT BASE.tar ROOT OUT.tar: unpacks mmdebstrap's BASE.tar into
# the empty folder ROOT, lays the first-boot suite's files over it and packs
# it as OUT.tar. Run by build-rootfs.sh as root or under fakeroot, so that
# every file keeps its owner. File work only: nothing runs in the root.
#
# Where a file reproduces one of Ubuntu's preinstalled server images, the
# comment above it names the repository, commit and path it comes from.

set -eu

variant=$1
base=$2
root=$3
out=$4
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

mkdir "$root"
tar -C "$root" --numeric-owner -xpf "$base"

# put PATH MODE: stdin becomes ROOT/PATH, owned by root, with MODE.
put()
{
	mkdir -p "$root$(dirname "$1")"
	cat >"$root$1"
	chown 0:0 "$root$1"
	chmod "$2" "$root$1"
}

# --- identity: what a freshly written card has.
echo debian | put /etc/hostname 0644
put /etc/hosts 0644 <<'HOSTS'
127.0.0.1	localhost
127.0.1.1	debian

::1	localhost ip6-localhost ip6-loopback
ff02::1	ip6-allnodes
ff02::2	ip6-allrouters
HOSTS
# mmdebstrap copies the building machine's; NetworkManager writes its own.
rm -f "$root/etc/resolv.conf"

# --- the layout of Ubuntu's preinstalled images: the root labelled
# "writable", the FAT partition "system-boot" at /boot/firmware.
#   / : canonical/ubuntu-image 4b5258ee2dcbc3a4dbaf1a0804aa2f7321f503e2,
#       internal/statemachine/classic_states.go, generateFstabLines
#   /boot/firmware : lubuntu-team/livecd-rootfs (Ubuntu's livecd-rootfs)
#       5fb3d42d36bdbd710f6f7e92ebe6c1b0f650699c, live-build/auto/config,
#       the arm64+raspi hook 999-raspi-fixes.chroot
put /etc/fstab 0644 <<'FSTAB'
LABEL=writable	/	ext4	discard,errors=remount-ro	0	1
LABEL=system-boot       /boot/firmware  vfat    defaults        0       1
FSTAB
mkdir -p "$root/boot/firmware"
# Ubuntu's default locale; without it cloud-init's locale module asks
# Debian's locale-gen for en_US.UTF-8, which that one does not generate, and
# fails. canonical/ubuntu-image 4b5258ee2dcbc3a4dbaf1a0804aa2f7321f503e2,
# internal/statemachine/classic_states.go, setDefaultLocale
printf '# Default Ubuntu locale\nLANG=C.UTF-8\n' | put /etc/default/locale 0644

# --- the probe, at every boot.
put /usr/local/sbin/imgpatch-probe 0755 <"$here/probe.sh"
# Type=simple: the unit's start job ends at once, so the probe's own wait
# for "systemctl is-system-running" does not wait for itself.
# DefaultDependencies=no: multi-user.target would otherwise be ordered
# after the probe, and cloud-final.service is ordered after
# multi-user.target, a cycle systemd breaks by dropping cloud-final.
put /etc/systemd/system/imgpatch-probe.service 0644 <<'UNIT'
[Unit]
Description=imgpatch first-boot probe: report the system on the serial console
DefaultDependencies=no
Requires=basic.target
After=basic.target cloud-final.service
Conflicts=shutdown.target
Before=shutdown.target

[Service]
Type=simple
ExecStart=/usr/local/sbin/imgpatch-probe

[Install]
WantedBy=multi-user.target
UNIT
mkdir -p "$root/etc/systemd/system/multi-user.target.wants"
ln -sf /etc/systemd/system/imgpatch-probe.service \
	"$root/etc/systemd/system/multi-user.target.wants/imgpatch-probe.service"
# Where the tests' first-boot scripts leave their marks.
mkdir -p "$root/var/lib/imgpatch-test"

case "$variant" in
cloud-init)
	# The NoCloud seed on system-boot, and cloud-init told to read it:
	#   lubuntu-team/livecd-rootfs 5fb3d42d36bdbd710f6f7e92ebe6c1b0f650699c,
	#   live-build/ubuntu-cpc/hooks.d/chroot/999-ubuntu-image-customization.chroot
	put /etc/cloud/cloud.cfg.d/99-fake_cloud.cfg 0644 <<'CFG'
# configure cloud-init for NoCloud
datasource_list: [ NoCloud, None ]
datasource:
  NoCloud:
    fs_label: system-boot
CFG
	put /etc/systemd/system/cloud-init-local.service.d/mount-seed.conf 0644 <<'CFG'
# Ensure our customized seed location is mounted prior to execution

[Unit]
RequiresMountsFor=/boot/firmware
CFG
	put /etc/systemd/system/cloud-config.service.d/getty-wait.conf 0644 <<'CFG'
# Wait for cloud-init to finish (creating users, etc.) before running getty

[Unit]
Before=getty.target
CFG
	# Ubuntu's default user, which the seed's user-data names. Debian's
	# package names its own "debian"; the user is Ubuntu's as cloud-init's
	# own template gives it: cloud-init 22.4.2 (Debian's source package
	# cloud-init 22.4.2-1+deb12u4), config/cloud.cfg.tmpl, variant ubuntu.
	put /etc/cloud/cloud.cfg.d/90-ubuntu-default-user.cfg 0644 <<'CFG'
system_info:
  default_user:
    name: ubuntu
    lock_passwd: True
    gecos: Ubuntu
    groups: [adm, audio, cdrom, dialout, dip, floppy, lxd, netdev, plugdev, sudo, video]
    sudo: ["ALL=(ALL) NOPASSWD:ALL"]
    shell: /bin/bash
CFG
	# The seed as Ubuntu 22.04's preinstalled server images ship it:
	#   canonical/pi-gadget, branch 22-arm64,
	#   71f7e6d2d5c98a706cebda0dfd0af287ffe2a789, configs/user-data,
	#   configs/meta-data, configs/network-config
	for f in user-data meta-data network-config; do
		put "/boot/firmware/$f" 0644 <"$here/seed/$f"
	done
	# As on Ubuntu's images: cloud-init makes the host keys and systemd
	# the machine-id at the first boot.
	rm -f "$root"/etc/ssh/ssh_host_*
	: | put /etc/machine-id 0444
	;;
plain)
	# A card copied from a running one: the host keys openssh-server's
	# installation made, and a machine-id.
	ls "$root"/etc/ssh/ssh_host_*_key.pub >/dev/null
	printf '%s\n' "$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')" |
		put /etc/machine-id 0444
	;;
esac

tar -C "$root" --numeric-owner -cpf "$out" .
