// SPDX-License-Identifier: MIT
/*
 * Messages name the user's files, never the temporary copies made of them
 * (tool/cli/report.c): every occurrence rewritten, within the buffer.
 */
#include <string.h>

#include "cli.h"
#include "unit.h"

int main(void)
{
	char msg[64];

	cli_name_copy("/tmp/.imgpatch-work.42.AbCdEf", "img.xz");
	cli_name_copy("./.o.img.42.XyZ123", "o.img");
	CHECK_STR(cli_name_of("/tmp/.imgpatch-work.42.AbCdEf"), "img.xz", "a copy's name");
	CHECK_STR(cli_name_of("other.img"), "other.img", "any other path is its own name");

	snprintf(msg, sizeof(msg), "%s", "/tmp/.imgpatch-work.42.AbCdEf: GPT is corrupt");
	cli_names_apply(msg, sizeof(msg));
	CHECK_STR(msg, "img.xz: GPT is corrupt", "the copy is named as the user's file");

	snprintf(msg, sizeof(msg), "%s", "./.o.img.42.XyZ123@@1048576 and ./.o.img.42.XyZ123");
	cli_names_apply(msg, sizeof(msg));
	CHECK_STR(msg, "o.img@@1048576 and o.img", "every occurrence, in the middle too");

	snprintf(msg, sizeof(msg), "%s", "nothing to rewrite here");
	cli_names_apply(msg, sizeof(msg));
	CHECK_STR(msg, "nothing to rewrite here", "other text is left as it is");

	/* A name longer than the copy's path near the end: cut, never overflowed. */
	cli_name_copy("/w/.c.7.QwErTy", "a-name-much-longer-than-the-path-it-replaces.img.xz");
	snprintf(msg, sizeof(msg), "%s", "0123456789 /w/.c.7.QwErTy: the end of the message");
	cli_names_apply(msg, sizeof(msg));
	CHECK_STR(msg, "0123456789 a-name-much-longer-than-the-path-it-replaces.img.xz:",
		  "a longer name is cut at the buffer's end");
	cli_name_copy("/w/.c.7.QwErTy", NULL);

	cli_name_copy("/tmp/.imgpatch-work.42.AbCdEf", NULL);
	snprintf(msg, sizeof(msg), "%s", "/tmp/.imgpatch-work.42.AbCdEf: x");
	cli_names_apply(msg, sizeof(msg));
	CHECK_STR(msg, "/tmp/.imgpatch-work.42.AbCdEf: x", "a forgotten copy is named by its path");
	CHECK_STR(cli_name_of("/tmp/.imgpatch-work.42.AbCdEf"), "/tmp/.imgpatch-work.42.AbCdEf",
		  "and has no other name");
	return unit_done();
}
