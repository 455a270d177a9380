#!/bin/bash
# SPDX-License-Identifier: MIT
#
# make-expected.sh DTMERGE: remakes expected/NAME.dts for each case of
# cases.txt with Raspberry Pi's dtmerge (built from its public source; see
# README.md). The tests themselves never run dtmerge.

set -euo pipefail

dtmerge=${1:?usage: $0 PATH-TO-DTMERGE}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

dtc -q -@ -I dts -O dtb -o "$work/base.dtb" "$here/bcm2711-rpi-4-b.dts"
for src in "$here"/*-overlay.dts; do
	name=$(basename "$src" -overlay.dts)
	dtc -q -@ -I dts -O dtb -o "$work/$name.dtbo" "$src"
done

mkdir -p "$here/expected"
grep -v '^#' "$here/cases.txt" | while IFS=$'\t' read -r name line; do
	key=${line%%=*}
	IFS=, read -ra words <<<"${line#*=}"
	if [ "$key" = dtparam ]; then
		overlay=- params=("${words[@]}")
	else
		overlay=$work/${words[0]}.dtbo params=("${words[@]:1}")
	fi
	"$dtmerge" "$work/base.dtb" "$work/$name.dtb" "$overlay" "${params[@]}"
	dtc -q -I dtb -O dts -s -o "$here/expected/$name.dts" "$work/$name.dtb"
done
