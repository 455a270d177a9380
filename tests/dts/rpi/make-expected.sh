#!/bin/bash
# SPDX-License-Identifier: MIT
#
# make-expected.sh DTMERGE: remakes expected/NAME.dts for each case of
# cases.txt (a name, then the config.txt lines applied in turn) with
# Raspberry Pi's dtmerge (built from its public source; see README.md).
# The tests themselves never run dtmerge.

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
grep -v '^#' "$here/cases.txt" | while IFS=$'\t' read -ra fields; do
	name=${fields[0]}
	cp "$work/base.dtb" "$work/cur.dtb"
	# A case of several lines applies them in turn, as the firmware does.
	for line in "${fields[@]:1}"; do
		key=${line%%=*}
		IFS=, read -ra words <<<"${line#*=}"
		if [ "$key" = dtparam ]; then
			overlay=- params=("${words[@]}")
		else
			overlay=$work/${words[0]}.dtbo params=("${words[@]:1}")
		fi
		"$dtmerge" "$work/cur.dtb" "$work/next.dtb" "$overlay" "${params[@]}"
		mv "$work/next.dtb" "$work/cur.dtb"
	done
	dtc -q -I dtb -O dts -s -o "$here/expected/$name.dts" "$work/cur.dtb"
done
