#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='a crafted overlay (fixups past their property, bad entries, alias loops) is refused, never applied'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk mke2fs debugfs e2fsck dtc fdtget

V=/usr/lib/linux-image-6.1.0-13-arm64
TREE=$V/allwinner/sun50i-a64-pinephone-1.2.dtb

# fixup_dtbo OUT ENTRY: an overlay whose one fragment targets label mmc0
# through __fixups__ entry ENTRY (a dtc value: "..." or [bytes]), written
# as a plain tree since no /plugin/ source can spell a bad entry.
fixup_dtbo()
{
	printf '/dts-v1/;\n/ {\n\tfragment@0 {\n\t\ttarget = <0xffffffff>;\n\t\t__overlay__ { overlay-test = <1>; };\n\t};\n\t__fixups__ { mmc0 = %s; };\n};\n' \
		"$2" | dtc -q -I dts -O dtb -o "$1" -
}

test_expect_success 'build the Debian extlinux image (a tree with __symbols__, fdtoverlays)' '
	mkdir symbols &&
	cp "$DTB_DIR"/*.dtb symbols/ &&
	cp "$DTB_DIR/u-boot-sunxi-pinephone.dtb" symbols/sun50i-a64-pinephone-1.2.dtb &&
	DTB_DIR=$PWD/symbols "$FIXTURES/mkimage-extlinux.sh" ext.img --fdt &&
	fdtget symbols/sun50i-a64-pinephone-1.2.dtb /__symbols__ mmc0
'

test_expect_success 'a well-formed overlay through the same fixup applies (the control)' '
	fixup_dtbo good.dtbo "\"/fragment@0:target:0\"" &&
	cp ext.img good.img &&
	imgpatch patch good.img --overlay good.dtbo --via file --dry-run >out &&
	cat out &&
	grep -q "^dry run: 1 change planned" out
'

# name, __fixups__ value, what the message says of it
while IFS="|" read -r name value says; do
	test_expect_success "patch --overlay: $name is refused, the image unchanged" "
		fixup_dtbo $name.dtbo '$value' &&
		cp ext.img $name.img &&
		refused_intact $name.img 1 \"imgpatch: $name.img: p1 $TREE: overlay $name.dtbo: broken overlay: __fixups__ of label 'mmc0': $says\" \
			imgpatch patch $name.img --overlay $name.dtbo --via file
	"
done <<-\EOF
	negative|"/fragment@0:target:-4"|entry '/fragment@0:target:-4': the offset is not a decimal number of at most 10 digits
	wrapping|"/fragment@0:target:4294967292"|entry '/fragment@0:target:4294967292': offset 4294967292 is past the end of the property (4 bytes; a phandle takes 4)
	overflowing|"/fragment@0:target:99999999999999999999"|entry '/fragment@0:target:99999999999999999999': the offset is not a decimal number of at most 10 digits
	past-end|"/fragment@0:target:4"|entry '/fragment@0:target:4': offset 4 is past the end of the property (4 bytes; a phandle takes 4)
	spaced|"/fragment@0:target: 0"|entry '/fragment@0:target: 0': the offset is not a decimal number of at most 10 digits
	signed|"/fragment@0:target:+0"|entry '/fragment@0:target:+0': the offset is not a decimal number of at most 10 digits
	no-colons|"/fragment@0target0"|entry '/fragment@0target0': not PATH:PROPERTY:OFFSET
	one-colon|"/fragment@0:target"|entry '/fragment@0:target': not PATH:PROPERTY:OFFSET
	three-colons|"/fragment@0:target:0:0"|entry '/fragment@0:target:0:0': not PATH:PROPERTY:OFFSET
	no-name|"/fragment@0::0"|entry '/fragment@0::0': no property name
	no-offset|"/fragment@0:target:"|entry '/fragment@0:target:': no offset
	relative|"fragment@0:target:0"|entry 'fragment@0:target:0': the path does not start at the root
	no-node|"/nothere:target:0"|entry '/nothere:target:0': the overlay has no such node
	no-property|"/fragment@0:nothere:0"|entry '/fragment@0:nothere:0': the node has no such property
	second-bad|"/fragment@0:target:0", "/fragment@0:target:8"|entry '/fragment@0:target:8': offset 8 is past the end of the property (4 bytes; a phandle takes 4)
	empty|""|an empty entry
	empty-entry|"/fragment@0:target:0", ""|an empty entry
	unterminated|[2f 66 72 61 67]|not NUL-terminated
EOF

test_expect_success 'patch --overlay: a __local_fixups__ offset past its property is refused' '
	cat >local.dts <<-\EOF &&
	/dts-v1/;
	/ {
		fragment@0 {
			target-path = "/";
			__overlay__ { r = <1>; };
		};
		__local_fixups__ { fragment@0 { __overlay__ { r = <8>; }; }; };
	};
	EOF
	dtc -q -I dts -O dtb -o local.dtbo local.dts &&
	cp ext.img local.img &&
	refused_intact local.img 1 "imgpatch: local.img: p1 $TREE: overlay local.dtbo: broken overlay: __local_fixups__ of .r. in /fragment@0/__overlay__: offset 8 is past its end (4 bytes; a phandle takes 4)" \
		imgpatch patch local.img --overlay local.dtbo --via file
'

test_expect_success 'patch --overlay: nodes nested 70 deep are refused' '
	{
		printf "/dts-v1/;\n/ { fragment@0 { target-path = \"/\"; __overlay__ {"
		for i in $(seq 70); do printf " n {"; done
		for i in $(seq 70); do printf " };"; done
		printf " }; }; };\n"
	} | dtc -q -I dts -O dtb -o deep.dtbo - &&
	cp ext.img deep.img &&
	refused_intact deep.img 1 "imgpatch: deep.img: p1 $TREE: overlay deep.dtbo: broken overlay: nodes nested more than 64 deep" \
		imgpatch patch deep.img --overlay deep.dtbo --via file
'

test_expect_success 'patch --overlay: a target-path alias that names itself is refused' '
	cat >loop.dts <<-\EOF &&
	/dts-v1/;
	/ {
		fragment@0 {
			target-path = "/aliases";
			__overlay__ { loop = "loop"; };
		};
	};
	EOF
	dtc -q -I dts -O dtb -o loop.dtbo loop.dts &&
	cp ext.img loop.img &&
	refused_intact loop.img 1 "imgpatch: loop.img: p1 $TREE: overlay loop.dtbo: broken overlay: fragment@0: alias .loop. is not a path from the root" \
		imgpatch patch loop.img --overlay loop.dtbo --via file
'

test_expect_success 'patch --overlay: a label the base lacks is named' '
	printf "/dts-v1/;\n/ {\n\tfragment@0 {\n\t\ttarget = <0xffffffff>;\n\t\t__overlay__ { status = \"okay\"; };\n\t};\n\t__fixups__ { nolabel = \"/fragment@0:target:0\"; };\n};\n" |
		dtc -q -I dts -O dtb -o nolabel.dtbo - &&
	cp ext.img nolabel.img &&
	refused_intact nolabel.img 1 "imgpatch: nolabel.img: p1 $TREE: overlay nolabel.dtbo: unresolved label .nolabel. (overlay fragment@0)" \
		imgpatch patch nolabel.img --overlay nolabel.dtbo --via file
'

test_expect_success 'the image lists such an overlay in fdtoverlays' '
	cp ext.img listed.img &&
	root_put listed.img negative.dtbo /boot/dtbo/sdfix.dtbo
'

for cmd in "info" "info --json" "doctor" "doctor --json" "cat --dtb"; do
	test_expect_success "$cmd: one line naming the file and the entry, the image unchanged" "
		refused_intact listed.img 1 \"imgpatch: listed.img: p1 (ext4): /boot/dtbo//sdfix.dtbo: broken overlay: __fixups__ of label 'mmc0': entry '/fragment@0:target:-4': the offset is not a decimal number of at most 10 digits\" \
			imgpatch $cmd listed.img
	"
done

test_expect_success 'a recipe dt-overlay step with such an overlay is refused' '
	mkdir recipe &&
	cp wrapping.dtbo recipe/bad.dtbo &&
	cat >recipe/bad-overlay.recipe <<-\EOF &&
	name = "bad-overlay"
	summary = "applies a crafted overlay"
	description = "Its __fixups__ entry points past its property."
	source = "this test"
	risks = "none"
	undo = "none"
	step { action = "dt-from-boot" }
	step { action = "dt-overlay" overlay = "bad.dtbo" }
	step { action = "write-tree" via = "file" }
	EOF
	cp ext.img recipe.img &&
	refused_intact recipe.img 1 ".*overlay bad.dtbo: broken overlay: __fixups__ of label .mmc0.: entry ./fragment@0:target:4294967292.: offset 4294967292 is past the end of the property (4 bytes; a phandle takes 4)" \
		imgpatch apply ./recipe/bad-overlay.recipe recipe.img
'

test_done
