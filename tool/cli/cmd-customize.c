// SPDX-License-Identifier: MIT
/*
 * imgpatch customize IMAGE [options]: a system's identity, network and
 * files set before its first boot, each the way the image applies it (a
 * cloud-init seed, or the files the booted system reads), planned in the
 * order given and committed as one transaction, as patch commits.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "text/json.h"

enum { OPT_JSON = 1000 };

static const struct cli_option customize_json_option[] = {
	{ OPT_JSON, "json", 0, "FILE", "write a report: the settings and how each is made,\n"
	  "the host keys' fingerprints, the machine-id" },
	CLI_OPTIONS_END,
};

static const struct cli_option *const customize_tables[] = {
	cli_custom_options, cli_io_options, customize_json_option, NULL,
};

static const struct cli_command customize_command = {
	"customize",
	"Usage: imgpatch customize IMAGE [options]\n"
	"Set a system's identity, network and files before its first boot, each the\n"
	"way the image applies it: a cloud-init seed where the image has one,\n"
	"Raspberry Pi Imager's firstrun.sh on Raspberry Pi OS without cloud-init,\n"
	"Armbian's first-login presets, else the files the booted system reads.\n"
	"Options run in the order given.\n\n",
	customize_tables,
	"Secrets are read from files and never shown. Exit status: 0 done (also when\n"
	"nothing needed changing), 1 error, 2 usage error.\n",
};

struct customize_opts {
	struct cli_io io;
	struct imgp_custom *custom;
	const char *json;
	bool any;
	bool stop;
};

static int parse_args(int argc, char **argv, struct customize_opts *o)
{
	static const char *const args[] = { "IMAGE" };
	struct cli_parser p;
	int c = CLI_END, rc = 0;

	cli_parser_init(&p, &customize_command, argc, argv);
	while (!rc && (c = cli_next(&p)) > 0) {
		const char *name = cli_custom_name(c);

		if (name) {
			if (imgp_custom_add(o->custom, name, p.value))
				rc = usage_error("customize", "%s", imgp_errmsg());
			o->any = true;
		} else if (c == OPT_JSON) {
			o->json = p.value;
		} else {
			rc = cli_io_option(&o->io, &p, c);
			rc = rc == 1 ? 0 : rc;
		}
	}
	if (!rc && c == CLI_STOP) {
		o->stop = true;
		rc = p.exit;
	}
	if (!rc && !o->stop)
		rc = cli_arguments(&p, 1, 1, args);
	if (!rc && !o->stop) {
		o->io.image = p.args[0];
		if (!o->any)
			rc = usage_error("customize", "nothing to do: give at least one setting (see --help)");
		else if (o->json && (cli_same_file(o->json, o->io.image) ||
				     cli_same_file(o->json, o->io.out)))
			rc = usage_error("customize", "--json %s is the image itself: give the report a name of its own",
					 o->json);
	}
	cli_parser_free(&p);
	return rc;
}

/* The report: what was asked, how each setting is made, the machine's identity. */
static int write_report(const struct customize_opts *o, const char *status,
			const char *why)
{
	const char *facts = imgp_custom_facts(o->custom);
	const char *explain = imgp_custom_explain(o->custom);
	struct imgp_json j;
	FILE *f;
	int rc = cli_report_open(o->json, &j, &f);

	if (rc)
		return rc;
	imgp_json_object_begin_(&j);
	imgp_json_kv_uint_(&j, "schema_version", 1);
	imgp_json_kv_string_(&j, "image", o->io.image);
	imgp_json_kv_string_(&j, "status", status);
	imgp_json_kv_string_(&j, "error", why);
	imgp_json_kv_bool_(&j, "dry_run", o->io.dry_run);
	imgp_json_key_(&j, "settings");
	imgp_json_array_begin_(&j);
	for (const char *line = explain; *line;) {
		size_t n = strcspn(line, "\n");

		/* The lines are indented for the terminal; the report keeps their text. */
		imgp_json_string_len_(&j, line + 2, n > 2 ? n - 2 : 0);
		line += n + (line[n] == '\n');
	}
	imgp_json_array_end_(&j);
	cli_json_custom_facts(&j, facts);
	imgp_json_object_end_(&j);
	return cli_report_close(&j, f);
}

int cmd_customize(int argc, char **argv)
{
	struct customize_opts o = { 0 };
	struct imgp_patch *patch = NULL;
	struct imgp_disk *disk = NULL;
	int rc;

	cli_io_init(&o.io);
	if (imgp_custom_new(&o.custom))
		die("out of memory");
	rc = parse_args(argc, argv, &o);
	if (rc || o.stop)
		goto out;
	rc = cli_io_open(&o.io, "customize");
	if (!rc && imgp_job_disk_open(o.io.job, &disk))
		rc = error_lib(o.io.image);
	if (!rc && imgp_patch_new(&patch, disk))
		rc = error_lib(o.io.image);
	if (!rc && imgp_custom_plan(o.custom, patch))
		rc = error_lib(o.io.image);
	if (!rc) {
		printf("how each setting is made:\n%s", imgp_custom_explain(o.custom));
		rc = cli_io_commit(&o.io, patch);
		if (rc == EXIT_OK)
			cli_print_custom_facts("", imgp_custom_facts(o.custom));
	}
	/* Once the options are read, the report is written however the run ends. */
	if (o.json && write_report(&o, rc == EXIT_OK ? "done" : "failed",
				   rc == EXIT_OK ? NULL : cli_last_error()))
		rc = EXIT_ERROR;
	imgp_patch_free(patch);
	imgp_disk_close(disk);
	cli_io_close(&o.io);
out:
	imgp_custom_free(o.custom);
	return rc;
}
