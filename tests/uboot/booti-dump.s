/* SPDX-License-Identifier: MIT */
/*
 * A stand-in arm64 kernel for the U-Boot tests: booti starts it as it
 * starts Linux (x0 = the device tree it handed over), and it writes that
 * tree, its header's totalsize bytes, to the host file "booti.dtb" (in
 * QEMU's working directory) through ARM semihosting, then ends QEMU with
 * exit status 0. Any semihosting failure ends QEMU with status 1.
 *
 * QEMU must run with "-semihosting-config enable=on,target=native". The
 * calls are A64 semihosting: "hlt #0xf000", w0 the operation, x1 the
 * address of its parameter block (ARM's "Semihosting for AArch32 and
 * AArch64").
 *
 * The header is the one Linux's Documentation/arm64/booting.rst gives,
 * which U-Boot's booti_setup() checks: the magic "ARM\x64" at 0x38,
 * text_offset and image_size. The code is position independent: booti
 * moves the image to the start of RAM plus text_offset.
 */

	.equ	SYS_OPEN, 0x01
	.equ	SYS_CLOSE, 0x02
	.equ	SYS_WRITE, 0x05
	.equ	SYS_EXIT, 0x18
	.equ	OPEN_MODE_WB, 5	/* fopen's "wb" */
	.equ	ADP_STOPPED_APPLICATION_EXIT, 0x20026

	.section .text
	.global _start
_start:
	b	entry			/* code0 */
	.long	0			/* code1 */
	.quad	0x80000			/* text_offset */
	.quad	image_end - _start	/* image_size */
	.quad	0xa			/* flags: little endian, 4 KiB pages, anywhere */
	.quad	0, 0, 0			/* res2 to res4 */
	.ascii	"ARM\x64"		/* magic */
	.long	0			/* res5 */

entry:
	mov	x19, x0			/* the tree */
	ldr	w20, [x19, #4]		/* fdt_header.totalsize, big endian */
	rev	w20, w20

	adr	x1, open_args
	adr	x2, name		/* the block holds absolute addresses */
	str	x2, [x1]
	mov	w0, #SYS_OPEN
	hlt	#0xf000
	cmn	x0, #1
	b.eq	fail
	mov	x21, x0			/* the handle */

	adr	x1, io_args
	stp	x21, x19, [x1]
	str	x20, [x1, #16]
	mov	w0, #SYS_WRITE
	hlt	#0xf000
	cbnz	x0, fail		/* bytes not written */

	adr	x1, io_args
	str	x21, [x1]
	mov	w0, #SYS_CLOSE
	hlt	#0xf000
	cbnz	x0, fail

	mov	x22, #0
	b	quit
fail:
	mov	x22, #1
quit:
	adr	x1, io_args
	ldr	x0, =ADP_STOPPED_APPLICATION_EXIT
	stp	x0, x22, [x1]
	mov	w0, #SYS_EXIT
	hlt	#0xf000
1:	wfi
	b	1b

	.ltorg
	.balign	8
open_args:
	.quad	0			/* the name's address, set at run time */
	.quad	OPEN_MODE_WB
	.quad	name_end - name - 1
io_args:
	.quad	0, 0, 0
name:
	.asciz	"booti.dtb"
name_end:
	.balign	8
image_end:
