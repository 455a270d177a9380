// SPDX-License-Identifier: MIT
/*
 * Fuzzes the fstab parser and editor. The input is split at NUL bytes into
 * the fstab text, a mount point and the option edits; missing parts take
 * the values a recipe would give.
 */
#include "imgpatch.h"
#include "core/core.h"
#include "text/text.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *f = NULL, *m = NULL, *o = NULL;
	size_t pos = 0, flen = 0, mlen = 0, olen = 0;
	struct imgp_fstab_entry e;
	struct imgp_buf out = { 0 };
	char *text, *mnt, *ops;

	fuzz_field(data, size, &pos, &f, &flen);
	fuzz_field(data, size, &pos, &m, &mlen);
	fuzz_field(data, size, &pos, &o, &olen);
	text = fuzz_dup(f, flen);
	mnt = m ? fuzz_str(m, mlen) : fuzz_str("/", 1);
	ops = o ? fuzz_str(o, olen) : fuzz_str("-discard,+noatime", 17);
	if (!text || !mnt || !ops)
		goto out;
	if (imgp_fstab_get_(text, flen, mnt, &e) == 0)
		imgp_fstab_entry_free_(&e);
	imgp_fstab_edit_(text, flen, mnt, ops, &out);
	imgp_fstab_edit_(text, flen, "/boot/firmware", "+commit=600,-defaults",
			&out);
out:
	imgp_buf_free(&out);
	free(ops);
	free(mnt);
	free(text);
	imgp_errclear_();
	return 0;
}
