// SPDX-License-Identifier: MIT
/*
 * The tree-editing "fdt" commands of U-Boot (cmd/fdt.c, 2023.01) as a boot
 * script runs them on the tree it booted: "fdt set PATH PROP [VALUE...]",
 * "fdt rm PATH [PROP]", "fdt mknode PATH NAME". Armbian's fixup.scr is
 * made of them. U-Boot names a subcommand by its first letters ("se",
 * "rm", "mk"), finds a node by fdt_path_offset() (aliases too; here one that names
 * another alias is not followed, as newer libfdt refuses it) and parses
 * a value as fdt_parse_prop() does: "<1 0x2>" cells, "[01 ab]" bytes, else
 * the words as a string list.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libfdt.h>

#include "imgpatch.h"
#include "core/core.h"
#include "dt/dt.h"
#include "boot/bootpath.h"

/* cmd/fdt.c's SCRATCHPAD: a value longer than this is refused there. */
#define FDT_CMD_VALUE_MAX 1024

/* fdt_parse_prop(): words into data (which holds the old value); 0, or 1 (U-Boot's error). */
static int parse_value(char *const *words, int count, uint8_t *data, size_t *len)
{
	const char *p = words[0];
	int at = 0;

	*len = 0;
	if (*p == '<') {
		p++;
		/* The cells may span words: "<1" "2>" as hush splits them. */
		while (*p != '>' && at < count) {
			char *end;
			unsigned long v;

			if (!*p) {
				if (++at >= count)
					break;
				p = words[at];
				continue;
			}
			if (*len + 4 > FDT_CMD_VALUE_MAX)
				return 1;
			v = strtoul(p, &end, 0);
			if (*p == '?') {
				end = (char *)p + 1; /* keeps the old cell */
			} else {
				if (end == p)
					return 1;
				data[*len] = (uint8_t)(v >> 24);
				data[*len + 1] = (uint8_t)(v >> 16);
				data[*len + 2] = (uint8_t)(v >> 8);
				data[*len + 3] = (uint8_t)v;
			}
			*len += 4;
			p = end;
			while (*p == ' ')
				p++;
		}
		return *p == '>' ? 0 : 1;
	}
	if (*p == '[') {
		p++;
		while (at < count && *p != ']') {
			char *end;

			while (*p == ' ')
				p++;
			if (!*p) {
				if (++at >= count)
					break;
				p = words[at];
				continue;
			}
			if (!isxdigit((unsigned char)*p) || *len + 1 > FDT_CMD_VALUE_MAX)
				break;
			data[(*len)++] = (uint8_t)strtoul(p, &end, 16);
			p = end;
		}
		return *p == ']' ? 0 : 1;
	}
	for (; at < count; at++) {
		size_t n = strlen(words[at]) + 1;

		if (*len + n > FDT_CMD_VALUE_MAX)
			return 1;
		memcpy(data + *len, words[at], n);
		*len += n;
	}
	return 0;
}

static int fdt_set(struct imgp_dtb *dtb, int argc, char *const *argv)
{
	uint8_t data[FDT_CMD_VALUE_MAX];
	size_t len = 0;
	const void *old;
	int node, oldlen;

	if (argc < 4)
		return 1;
	node = imgp_dt_path_offset_(dtb->fdt, argv[2], (int)strlen(argv[2]));
	if (node < 0)
		return 1;
	if (argc > 4) {
		old = fdt_getprop(dtb->fdt, node, argv[3], &oldlen);
		if (old && oldlen > FDT_CMD_VALUE_MAX)
			return 1;
		if (old)
			memcpy(data, old, (size_t)oldlen);
		if (parse_value(&argv[4], argc - 4, data, &len))
			return 1;
	}
	if (imgp_dt_set_prop_(dtb, node, argv[3], data, len)) {
		imgp_errclear_();
		return 1;
	}
	return 0;
}

static int fdt_mknode(struct imgp_dtb *dtb, int argc, char *const *argv)
{
	struct imgp_buf path = { 0 };
	char parent[1024];
	int node, rc;

	if (argc < 4)
		return 1;
	node = imgp_dt_path_offset_(dtb->fdt, argv[2], (int)strlen(argv[2]));
	/* fdt_add_subnode() refuses a name that is there (FDT_ERR_EXISTS). */
	if (node < 0 || fdt_subnode_offset(dtb->fdt, node, argv[3]) >= 0 ||
	    imgp_dt_node_path_(dtb, node, parent, sizeof(parent)))
		return 1;
	rc = imgp_buf_printf(&path, "%s%s%s", parent, strcmp(parent, "/") ? "/" : "",
			     argv[3]);
	if (rc)
		return imgp_fail(ENOMEM, "out of memory");
	rc = imgp_dt_add_node_(dtb, (char *)path.data);
	imgp_buf_free(&path);
	if (rc == -ENOMEM)
		return rc;
	imgp_errclear_();
	return rc < 0 ? 1 : 0;
}

int imgp_uboot_fdt_cmd_(struct imgp_dtb *dtb, int argc, char *const *argv,
		       struct imgp_buf *warnings)
{
	int node, rc;

	if (argc < 2)
		return 1;
	if (!strncmp(argv[1], "se", 2))
		return fdt_set(dtb, argc, argv);
	if (!strncmp(argv[1], "mk", 2))
		return fdt_mknode(dtb, argc, argv);
	if (!strncmp(argv[1], "rm", 2)) {
		if (argc < 3)
			return 1;
		node = imgp_dt_path_offset_(dtb->fdt, argv[2], (int)strlen(argv[2]));
		if (node < 0)
			return 1;
		rc = argc > 3 ? imgp_dt_delete_prop_(dtb, node, argv[3]) :
				imgp_dt_delete_node_(dtb, node);
		imgp_errclear_();
		return rc == 0 ? 0 : 1;
	}
	/* resize: the tree here grows as it needs; the rest do not edit it. */
	if (!strncmp(argv[1], "resize", 6) || !strncmp(argv[1], "print", 5) ||
	    !strncmp(argv[1], "list", 4) || !strncmp(argv[1], "addr", 4))
		return 0;
	imgp_warn_into_(warnings, "'fdt %s' in a script that edits the booted tree is not modelled",
		       argv[1]);
	return 1;
}
