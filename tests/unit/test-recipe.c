// SPDX-License-Identifier: MIT
/*
 * Recipes: files written at test time check loading, every static error
 * (with its line), parameters, substitution, path safety, finding and
 * listing; then small recipes run against the KV260 fixture image into a
 * patch that is never committed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libfdt.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "patch/patch.h"
#include "recipe/recipe-internal.h"
#include "unit.h"
#include "disk/disk.h"

#define HEAD_LINES 4

static char dir_a[512], dir_b[512], dir_bad[512], dir_e2e[512];

/* The lines every test recipe starts with; its body starts on line 5. */
static int write_recipe(const char *dir, const char *name, const char *body)
{
	char path[1024];
	struct imgp_buf b = { 0 };
	int rc;

	snprintf(path, sizeof(path), "%s/%s.recipe", dir, name);
	rc = imgp_buf_printf(&b, "name = \"%s\"\nsummary = \"s\"\ndescription = \"d\"\nsource = \"src\"\n%s",
			     name, body);
	if (!rc)
		rc = unit_write_text(path, (char *)b.data);
	imgp_buf_free(&b);
	return rc;
}

static const char *rpath(const char *dir, const char *name)
{
	static char path[4][1024];
	static unsigned int next;
	char *p = path[next++ % 4];

	snprintf(p, 1024, "%s/%s.recipe", dir, name);
	return p;
}

/* True when the failure message holds want; shows it when not. */
static bool msg_has(const char *want)
{
	if (strstr(imgp_errmsg(), want))
		return true;
	printf("#   message: '%s'\n#   wanted:  '%s'\n", imgp_errmsg(), want);
	return false;
}

static bool buf_has(const struct imgp_buf *b, const char *want)
{
	if (b->len && strstr((char *)b->data, want))
		return true;
	printf("#   text: '%s'\n#   wanted: '%s'\n", b->len ? (char *)b->data : "",
	       want);
	return false;
}

static const char full_recipe[] =
	"# SPDX-License-Identifier: MIT\n"
	"/* a block\n"
	"   comment */\n"
	"name = \"full\"   // trailing comment\n"
	"summary = \"Test board: every kind of step\"\n"
	"description = \"First paragraph line one\n"
	"continues here.\n"
	"\n"
	"- a list item\n"
	"- another\"\n"
	"source = \"the tests\"\n"
	"risks = \"none known\"\n"
	"undo = \"restore the image\"\n"
	"\n"
	"param carrier {\n"
	"\tdescription = \"carrier revision\"\n"
	"\tvalues = {\"revA\", \"revB\", \"revZ\"}\n"
	"\trequired = true\n"
	"}\n"
	"param sd_overclock { description = \"SD clock in MHz\" type = \"int\" min = 50 max = 120 default = \"100\" }\n"
	"match {\n"
	"\tpartition-label = {\"system-boot\", \"writable\"}\n"
	"\tfile = {\"boot:/image.fit\"}\n"
	"\tfit-fdt = {\"fdt-smk-k26-revA-sck-kv-g-${carrier}.dtb\"}\n"
	"\tcompatible = {'xlnx,zynqmp-smk-k26'}\n"
	"}\n"
	"step { action = \"fdt-from-fit\" fit = \"/image.fit\" fdt = \"fdt-smk-k26-revA-sck-kv-g-${carrier}.dtb\" }\n"
	"step { action = \"dt-set-property\" node = \"mmc@ff170000\" property = \"max-frequency\" value = \"<${sd_overclock}000000>\" }\n"
	"step { action = \"dt-overlay\" overlay = \"x.dtbo\" }\n"
	"step { action = \"write-dtb\" path = \"/user-override.dtb\" }\n"
	"step { action = \"write-file\" part = \"root\" path = \"/etc/motd\" file = \"motd.txt\" }\n"
	"step { action = \"set-line\" part = \"boot\" path = \"/config.txt\" key = \"dtparam=sd_overclock\" value = '${sd_overclock}' section = \"all\" }\n"
	"step { action = \"boot-script\" part = \"boot\" path = \"/boot.scr\" script = \"echo $${x} $kernel_addr_r ${carrier}\\n\" name = \"boot\" }\n"
	"step { action = \"fstab\" mountpoint = \"/\" options = \"-discard,+noatime\" }\n"
	"step { action = \"symlink\" part = \"root\" path = \"/etc/a\" target = \"../b\" }\n";

static void test_full(void)
{
	const struct imgp_recipe_param *params;
	struct imgp_recipe *r = NULL;
	struct imgp_buf d = { 0 };
	const char *sets[2];
	size_t n;
	int rc;

	rc = imgp_recipe_load(rpath(dir_a, "full"), &r);
	CHECK(rc == 0, "full: loads");
	if (rc) {
		printf("# %s\n", imgp_errmsg());
		return;
	}
	CHECK_STR(imgp_recipe_name(r), "full", "full: name");
	CHECK_STR(imgp_recipe_summary(r), "Test board: every kind of step",
		  "full: summary");
	CHECK_STR(imgp_recipe_source(r), "the tests", "full: source");
	CHECK_STR(imgp_recipe_risks(r), "none known", "full: risks");
	CHECK_STR(imgp_recipe_undo(r), "restore the image", "full: undo");
	CHECK_STR(imgp_recipe_path(r), rpath(dir_a, "full"), "full: path");
	n = imgp_recipe_params(r, &params);
	CHECK(n == 2, "full: two parameters");
	CHECK(n == 2 && !strcmp(params[0].name, "carrier") && params[0].required &&
	      params[0].nvalues == 3 && !strcmp(params[0].values[2], "revZ") &&
	      !params[0].def && !params[0].value,
	      "full: carrier is required, three values, unbound");
	CHECK(n == 2 && !strcmp(params[1].name, "sd_overclock") &&
	      params[1].is_int && params[1].has_min && params[1].min == 50 &&
	      params[1].has_max && params[1].max == 120 &&
	      !strcmp(params[1].def, "100") && !params[1].required,
	      "full: sd_overclock is an int 50..120, default 100");

	rc = imgp_recipe_describe(r, &d);
	CHECK(rc == 0 && d.len, "describe: renders");
	CHECK(buf_has(&d, "full: Test board: every kind of step\n\n"),
	      "describe: name and summary first");
	CHECK(buf_has(&d, "  First paragraph line one continues here.\n\n  - a list item\n  - another\n"),
	      "describe: description reflowed, list kept");
	CHECK(buf_has(&d, "\nparameters:\n  carrier (required; one of: revA, revB, revZ)\n      carrier revision\n"),
	      "describe: required parameter with its values");
	CHECK(buf_has(&d, "  sd_overclock (integer 50..120; default: 100)\n      SD clock in MHz\n"),
	      "describe: int parameter with bounds and default");
	CHECK(buf_has(&d, "  partition labels: system-boot, writable\n"),
	      "describe: partition labels");
	CHECK(buf_has(&d, "  fdt images in the FIT: fdt-smk-k26-revA-sck-kv-g-${carrier}.dtb (in /image.fit)\n"),
	      "describe: fit-fdt rule");
	CHECK(buf_has(&d, "  root compatible: xlnx,zynqmp-smk-k26 (of the tree step 1 loads)\n"),
	      "describe: compatible rule says which tree");
	CHECK(buf_has(&d, "\nsteps:\n  1. fdt-from-fit: take the device tree 'fdt-smk-k26-revA-sck-kv-g-${carrier}.dtb' from the FIT /image.fit\n"),
	      "describe: step 1");
	CHECK(buf_has(&d, "  2. dt-set-property: set property 'max-frequency' of node mmc@ff170000 to <${sd_overclock}000000>\n"),
	      "describe: step 2");
	CHECK(buf_has(&d, "  3. dt-overlay: apply the overlay x.dtbo\n"), "describe: step 3");
	CHECK(buf_has(&d, "  5. write-file: write root:/etc/motd from the file motd.txt\n"),
	      "describe: step 5");
	CHECK(buf_has(&d, "  6. set-line: set 'dtparam=sd_overclock=${sd_overclock}' in boot:/config.txt (section 'all')\n"),
	      "describe: step 6 with its optional section");
	CHECK(buf_has(&d, "  7. boot-script: write the U-Boot script image boot:/boot.scr from inline text, name 'boot'\n"),
	      "describe: step 7, inline text not shown");
	CHECK(buf_has(&d, "  8. fstab: change the options of / in /etc/fstab: -discard,+noatime\n"),
	      "describe: step 8 without the optional part");
	CHECK(buf_has(&d, "  9. symlink: link root:/etc/a -> ../b\n\nsource:\n  the tests\n\nrisks:\n  none known\n\nundo:\n  restore the image\n"),
	      "describe: last step, source, risks, undo");
	imgp_buf_free(&d);

	/* Binding. */
	rc = imgp_recipe_bind(r, NULL, 0);
	CHECK(rc == -EINVAL, "bind: required parameter missing");
	CHECK_STR(imgp_errmsg(), "parameter 'carrier' is required (one of: revA, revB, revZ): give --set carrier=revA",
		  "bind: required message with values and hint");
	sets[0] = "nope=1";
	rc = imgp_recipe_bind(r, sets, 1);
	CHECK(rc == -EINVAL && msg_has("recipe 'full' has no parameter 'nope' (parameters: carrier, sd_overclock)"),
	      "bind: unknown parameter lists the parameters");
	sets[0] = "carrier=revC";
	rc = imgp_recipe_bind(r, sets, 1);
	CHECK(rc == -EINVAL && msg_has("parameter 'carrier' must be one of: revA, revB, revZ (got 'revC')"),
	      "bind: bad value lists the values");
	sets[0] = "carrier=revB";
	sets[1] = "sd_overclock=200";
	rc = imgp_recipe_bind(r, sets, 2);
	CHECK(rc == -EINVAL, "bind: out of bounds");
	CHECK_STR(imgp_errmsg(), "sd_overclock must be 50..120 (got 200)",
		  "bind: bounds message");
	sets[1] = "sd_overclock=fast";
	rc = imgp_recipe_bind(r, sets, 2);
	CHECK(rc == -EINVAL && msg_has("parameter 'sd_overclock' must be an integer (got 'fast')"),
	      "bind: int parameter wants an integer");
	sets[1] = "carrier";
	rc = imgp_recipe_bind(r, sets, 2);
	CHECK(rc == -EINVAL && msg_has("'carrier': expected NAME=VALUE"),
	      "bind: setting without '='");
	sets[1] = "carrier=revA";
	rc = imgp_recipe_bind(r, sets, 2);
	CHECK(rc == -EINVAL && msg_has("parameter 'carrier' is given twice"),
	      "bind: parameter given twice");
	CHECK(!params[0].value && !params[1].value, "bind: failures bind nothing");

	rc = imgp_recipe_bind(r, sets, 1);
	CHECK(rc == 0, "bind: carrier=revB");
	if (rc)
		printf("# %s\n", imgp_errmsg());
	CHECK(params[0].value && !strcmp(params[0].value, "revB") &&
	      params[1].value && !strcmp(params[1].value, "100"),
	      "bind: value set, default filled in");
	sets[0] = "carrier=revA";
	sets[1] = "sd_overclock=077";
	rc = imgp_recipe_bind(r, sets, 2);
	CHECK(rc == 0 && !strcmp(params[0].value, "revA") &&
	      !strcmp(params[1].value, "77"),
	      "bind: integers are normalized");
	sets[1] = "sd_overclock=121";
	rc = imgp_recipe_bind(r, sets, 2);
	CHECK(rc == -EINVAL && !strcmp(params[1].value, "77") &&
	      !strcmp(params[0].value, "revA"),
	      "bind: a failed bind keeps the earlier binding");
	imgp_recipe_free(r);
}

/* Parameters substitute, "$$" escapes, and bound paths are checked again. */
static void test_subst(void)
{
	struct imgp_recipe *r = NULL;
	const struct imgp_recipe_param *params;
	const char *sets[1];
	int rc;

	/* libconfuse would take "${dir}" from the environment. */
	setenv("dir", "FROM-ENV", 1);
	rc = imgp_recipe_load(rpath(dir_a, "subst"), &r);
	CHECK(rc == 0, "subst: loads, bound to its defaults");
	if (rc) {
		printf("# %s\n", imgp_errmsg());
		return;
	}
	imgp_recipe_params(r, &params);
	CHECK(params[0].value && !strcmp(params[0].value, "x"),
	      "subst: default bound at load");
	sets[0] = "dir=..";
	rc = imgp_recipe_bind(r, sets, 1);
	CHECK(rc == -EINVAL && msg_has("subst.recipe:7: step 1 (write-file): path '/${x}/../f': '..' component"),
	      "subst: a value that makes '..' is refused; $$ and ${} substituted, not the environment");
	sets[0] = "dir=a/b";
	rc = imgp_recipe_bind(r, sets, 1);
	CHECK(rc == 0, "subst: a value with '/' inside the path is fine");
	sets[0] = "ov=../b/x";
	rc = imgp_recipe_bind(r, sets, 1);
	CHECK(rc == -EINVAL && msg_has("subst.recipe:9: step 3 (dt-overlay): overlay '../b/x.dtbo': '..' component"),
	      "subst: a local file name from a parameter is checked");
	sets[0] = "ov=missing";
	rc = imgp_recipe_bind(r, sets, 1);
	CHECK(rc == -ENOENT && msg_has("subst.recipe:9: step 3 (dt-overlay): overlay: 'missing.dtbo' not found next to the recipe"),
	      "subst: a local file named by a parameter must exist");
	imgp_recipe_free(r);
	unsetenv("dir");
}

/*
 * pattern: anchored to the whole value, checked at bind time with the
 * recipe named; control characters refused everywhere, shown escaped.
 */
static void test_pattern(void)
{
	const struct imgp_recipe_param *params;
	struct imgp_recipe *r = NULL;
	struct imgp_buf d = { 0 };
	const char *sets[1];
	char big[300];
	int rc;

	rc = imgp_recipe_load(rpath(dir_bad, "pat"), &r);
	CHECK(rc == 0, "pattern: loads, its default matches");
	if (rc) {
		printf("# %s\n", imgp_errmsg());
		return;
	}
	imgp_recipe_params(r, &params);
	CHECK(params[0].pattern && !strcmp(params[0].pattern, "[a-z]+|x[0-9]") &&
	      params[0].pattern_text && !strcmp(params[0].pattern_text, "letters, or x and a digit") &&
	      params[1].pattern && !params[1].pattern_text && !params[2].pattern,
	      "pattern: pattern and pattern-text reach the parameter");
	sets[0] = "host=abc";
	CHECK(imgp_recipe_bind(r, sets, 1) == 0, "pattern: a matching value binds");
	sets[0] = "host=x7";
	CHECK(imgp_recipe_bind(r, sets, 1) == 0, "pattern: either alternative of the whole");
	sets[0] = "host=abc1";
	CHECK(imgp_recipe_bind(r, sets, 1) == -EINVAL &&
	      msg_has("recipe 'pat': parameter 'host' must be letters, or x and a digit (got 'abc1')"),
	      "pattern: anchored at the end, even with an alternation");
	sets[0] = "host=1abc";
	CHECK(imgp_recipe_bind(r, sets, 1) == -EINVAL, "pattern: anchored at the start");
	sets[0] = "host=ax7";
	CHECK(imgp_recipe_bind(r, sets, 1) == -EINVAL,
	      "pattern: '^(a|b)$', not '^a|b$'");
	sets[0] = "host=";
	CHECK(imgp_recipe_bind(r, sets, 1) == -EINVAL, "pattern: an empty value is checked too");
	sets[0] = "id=ab-1";
	CHECK(imgp_recipe_bind(r, sets, 1) == -EINVAL &&
	      msg_has("recipe 'pat': parameter 'id' must match the pattern '[a-z]+-[0-9]\\.' (got 'ab-1')"),
	      "pattern: without pattern-text the message shows the pattern");
	sets[0] = "id=ab-1.";
	CHECK(imgp_recipe_bind(r, sets, 1) == 0, "pattern: a '\\\\.' in the recipe is a literal dot");
	CHECK(params[0].value && !strcmp(params[0].value, "lab"),
	      "pattern: a refused binding kept the earlier values");
	sets[0] = "free=lab\n    sudo: ALL";
	CHECK(imgp_recipe_bind(r, sets, 1) == -EINVAL &&
	      msg_has("recipe 'pat': parameter 'free' must be one line without control characters (got 'lab\\n    sudo: ALL')"),
	      "control characters: a newline is refused, shown as \\n");
	sets[0] = "free=a\tb\x1b[31m\x7f\\";
	CHECK(imgp_recipe_bind(r, sets, 1) == -EINVAL &&
	      msg_has("(got 'a\\tb\\x1b[31m\\x7f\\\\')"),
	      "control characters: tab, ESC and DEL escaped, '\\\\' doubled");
	sets[0] = "host=a\rb";
	CHECK(imgp_recipe_bind(r, sets, 1) == -EINVAL &&
	      msg_has("parameter 'host' must be one line without control characters (got 'a\\rb')"),
	      "control characters: refused before the pattern is tried");
	memset(big, 'a', sizeof(big));
	memcpy(big, "free=", 5);
	big[100] = '\n';
	big[sizeof(big) - 1] = '\0';
	sets[0] = big;
	CHECK(imgp_recipe_bind(r, sets, 1) == -EINVAL && msg_has("aaa...')") &&
	      strlen(imgp_errmsg()) < 300,
	      "control characters: a long value is cut in the message");
	sets[0] = "free=plain \"text\" and $x";
	CHECK(imgp_recipe_bind(r, sets, 1) == 0, "control characters: other text is free");
	CHECK(imgp_recipe_describe(r, &d) == 0 &&
	      buf_has(&d, "      must be letters, or x and a digit\n      pattern: [a-z]+|x[0-9]\n") &&
	      buf_has(&d, "      pattern: [a-z]+-[0-9]\\.\n"),
	      "pattern: recipes show gives the words and the pattern");
	imgp_buf_free(&d);
	imgp_recipe_free(r);
}

struct bad_case {
	const char *name;
	const char *body;
	const char *want;
};

/* Each file holds the common head (4 lines) and then body; want is in the message. */
static const struct bad_case cases[] = {
	{ "when-param", "param sc { description = \"s\" values = {\"keep\", \"on\"} default = \"keep\" }\n"
	  "step {\n action = \"cmdline\"\n edits = \"+quiet\"\n when = \"${serial}=on\"\n}\n",
	  "when-param.recipe:9: step 1 (cmdline): when '${serial}=on': no parameter 'serial' (parameters: sc)" },
	{ "when-value", "param sc { description = \"s\" values = {\"keep\", \"on\"} alias = {\"yes=on\"} default = \"keep\" }\n"
	  "step {\n action = \"cmdline\"\n edits = \"+quiet\"\n when = \"${sc}=yes\"\n}\n",
	  "when-value.recipe:9: step 1 (cmdline): when '${sc}=yes': 'yes' is not a value of parameter 'sc' (values: keep, on)" },
	{ "when-int", "param mhz { description = \"m\" type = \"int\" min = 50 max = 120 default = \"100\" }\n"
	  "step { action = \"cmdline\" edits = \"+quiet\" when = \"${mhz}=200\" }\n",
	  "when-int.recipe:6: step 1 (cmdline): when '${mhz}=200': mhz must be 50..120 (got 200)" },
	{ "when-shape", "param sc { description = \"s\" default = \"x\" }\n"
	  "step { action = \"cmdline\" edits = \"+quiet\" when = \"sc=on\" }\n",
	  "when-shape.recipe:6: step 1 (cmdline): when 'sc=on': must be \"${PARAMETER}=VALUE\"" },
	{ "when-dt", "param sc { description = \"s\" default = \"x\" }\n"
	  "step { action = \"dt-from-boot\" when = \"${sc}=x\" }\nstep { action = \"write-tree\" }\n",
	  "when-dt.recipe:6: step 1 (dt-from-boot): when: a device tree step always runs" },
	{ "when-twice", "param sc { description = \"s\" default = \"x\" }\n"
	  "step { action = \"cmdline\" edits = \"+quiet\" when = \"${sc}=x\"\n when = \"${sc}=y\" }\n",
	  "when-twice.recipe:7: 'when' is set twice (first on line 6)" },
	{ "modules-key", "step { action = \"add-to-list\" part = \"root\" path = \"/etc/modules\" key = \"m\" word = \"i2c-dev\" }\n",
	  "modules-key.recipe:5: step 1 (add-to-list): a list of kernel modules (/etc/modules, modules-load.d/*.conf) has one name a line: no 'key'" },
	{ "list-no-key", "step { action = \"add-to-list\" part = \"boot\" path = \"/armbianEnv.txt\" word = \"x\" }\n",
	  "list-no-key.recipe:5: step 1 (add-to-list): missing 'key'" },
	{ "unknown-key", "step {\n\taction = \"write-file\"\n\tnodee = \"x\"\n}\n",
	  "unknown-key.recipe:7: no such option 'nodee' (did you mean 'node'?)" },
	{ "unknown-top", "# c\n/* c\n */\nboard = \"kv\"\n",
	  "unknown-top.recipe:8: no such option 'board'" },
	{ "unknown-action", "step { action = \"frobnicate\" }\n",
	  "unknown-action.recipe:5: step 1: unknown action 'frobnicate' (actions: fdt-from-fit, dtb-from-file," },
	{ "no-action", "step { path = \"/x\" }\n",
	  "no-action.recipe:5: step 1: missing 'action'" },
	{ "missing-opt", "step { action = \"fdt-from-fit\" fit = \"/image.fit\" }\n\nstep {\n\taction = \"dt-delete-property\"\n\tnode = \"mmc@ff170000\"\n}\n",
	  "missing-opt.recipe:7: step 2 (dt-delete-property): missing 'property'" },
	{ "not-taken", "step {\n action = \"fstab\"\n mountpoint = \"/\"\n options = \"+noatime\"\n path = \"/x\"\n}\n",
	  "not-taken.recipe:9: step 1 (fstab): option 'path' is not taken by fstab (it takes: mountpoint, options, part)" },
	{ "dotdot", "step { action = \"write-file\" part = \"root\" path = \"/etc/../x\" content = \"x\" }\n",
	  "step 1 (write-file): path '/etc/../x': '..' component" },
	{ "relative", "step { action = \"write-file\" part = \"root\" path = \"etc/x\" content = \"x\" }\n",
	  "step 1 (write-file): path 'etc/x': must be an absolute path" },
	{ "abs-local", "step { action = \"write-file\" part = \"root\" path = \"/etc/x\" file = \"/etc/passwd\" }\n",
	  "step 1 (write-file): file '/etc/passwd': must be a file name relative to the recipe's directory" },
	{ "dotdot-local", "step { action = \"write-file\" part = \"root\" path = \"/etc/x\" file = \"../a/motd.txt\" }\n",
	  "step 1 (write-file): file '../a/motd.txt': '..' component" },
	{ "missing-local", "step { action = \"write-file\" part = \"root\" path = \"/etc/x\" file = \"nope.txt\" }\n",
	  "step 1 (write-file): file: 'nope.txt' not found next to the recipe" },
	{ "escape-local", "step { action = \"write-file\" part = \"root\" path = \"/etc/x\" file = \"escape.txt\" }\n",
	  "step 1 (write-file): file: 'escape.txt' leads outside the recipe's directory" },
	{ "undeclared", "step { action = \"fstab\" mountpoint = \"/\" options = \"+${x}\" }\n",
	  "undeclared.recipe:5: step 1 (fstab): options: undeclared parameter 'x' (the recipe declares none" },
	{ "undeclared-match", "param p { description = \"d\" default = \"a\" }\nmatch { file = {\"root:/${p}\", \"root:/${q}\"} }\nstep { action = \"fstab\" mountpoint = \"/\" options = \"+noatime\" }\n",
	  "undeclared-match.recipe:6: match: file: undeclared parameter 'q' (declared: p)" },
	{ "bad-ref", "step { action = \"fstab\" mountpoint = \"/\" options = \"+${x\" }\n",
	  "step 1 (fstab): options: unterminated '${'" },
	{ "env-unquoted", "step { action = \"fstab\" mountpoint = \"/\" options = +${x} }\n",
	  "env-unquoted.recipe:5: '${' outside quotes" },
	{ "param-min-string", "param p { description = \"d\" min = 1 default = \"a\" }\nstep { action = \"fstab\" mountpoint = \"/\" options = \"+${p}\" }\n",
	  "parameter 'p': min and max need type = \"int\"" },
	{ "param-req-default", "param p {\n description = \"d\"\n required = true\n default = \"a\"\n}\nstep { action = \"fstab\" mountpoint = \"/\" options = \"+${p}\" }\n",
	  "param-req-default.recipe:8: parameter 'p' is required and has a default: choose one" },
	{ "param-neither", "param p { description = \"d\" }\nstep { action = \"fstab\" mountpoint = \"/\" options = \"+${p}\" }\n",
	  "param-neither.recipe:5: parameter 'p' needs a default or required = true" },
	{ "param-bad-default", "param p { description = \"d\" values = {\"a\", \"b\"} default = \"c\" }\nstep { action = \"fstab\" mountpoint = \"/\" options = \"+${p}\" }\n",
	  "parameter 'p': default: parameter 'p' must be one of: a, b (got 'c')" },
	{ "param-bad-name", "param -x { description = \"d\" default = \"a\" }\nstep { action = \"fstab\" mountpoint = \"/\" options = \"+noatime\" }\n",
	  "param-bad-name.recipe:5: parameter name '-x' must be letters" },
	{ "param-bad-type", "param p { description = \"d\" type = \"float\" default = \"1\" }\nstep { action = \"fstab\" mountpoint = \"/\" options = \"+${p}\" }\n",
	  "parameter 'p': type must be \"string\" or \"int\" (got 'float')" },
	{ "param-min-max", "param p { description = \"d\" type = \"int\" min = 9 max = 1 default = \"5\" }\nstep { action = \"fstab\" mountpoint = \"/\" options = \"+${p}\" }\n",
	  "parameter 'p': min 9 is above max 1" },
	{ "param-no-desc", "param p { default = \"a\" }\nstep { action = \"fstab\" mountpoint = \"/\" options = \"+${p}\" }\n",
	  "parameter 'p': missing 'description'" },
	{ "param-dup", "param p { description = \"d\" default = \"a\" }\nparam p { description = \"d\" default = \"a\" }\n",
	  "param-dup.recipe:6: found duplicate title 'p'" },
	{ "param-bad-bool", "param p {\n description = \"d\"\n required = maybe\n}\n",
	  "param-bad-bool.recipe:7: invalid boolean value for option 'required'" },
	{ "param-bad-int", "param p {\n description = \"d\"\n type = \"int\"\n min = \"five\"\n}\n",
	  "param-bad-int.recipe:8: invalid integer value for option 'min'" },
	{ "dup-key", "step {\n action = \"dt-delete-node\"\n node = \"a\"\n node = \"b\"\n}\n",
	  "dup-key.recipe:8: 'node' is set twice (first on line 7)" },
	{ "dup-match", "match { file = {\"root:/x\"} }\nmatch { file = {\"root:/y\"} }\nstep { action = \"fstab\" mountpoint = \"/\" options = \"+noatime\" }\n",
	  "dup-match.recipe:6: 'match' is set twice (first on line 5)" },
	{ "no-steps", "\n", "no-steps.recipe: no steps" },
	{ "edit-first", "step { action = \"dt-delete-property\" node = \"a\" property = \"b\" }\n",
	  "edit-first.recipe:5: step 1 (dt-delete-property): no device tree loaded yet" },
	{ "never-written", "step { action = \"fdt-from-fit\" fit = \"/image.fit\" }\nstep { action = \"dt-delete-node\" node = \"a\" }\n",
	  "never-written.recipe:6: step 2 (dt-delete-node): the device tree is never written after this change (add a write-dtb step)" },
	{ "two-ways", "step { action = \"fdt-from-fit\" fit = \"/image.fit\" }\nstep { action = \"dt-delete-node\" node = \"a\" }\n"
	  "step { action = \"write-tree\" via = \"override\" }\nstep { action = \"dt-delete-node\" node = \"b\" }\n"
	  "step { action = \"write-tree\" via = \"fit\" }\n",
	  "two-ways.recipe:9: step 5 (write-tree): via 'fit': step 3 already chose how this tree is written (via override); give the same or none" },
	{ "two-names", "step { action = \"fdt-from-fit\" fit = \"/image.fit\" }\nstep { action = \"dt-delete-node\" node = \"a\" }\n"
	  "step { action = \"write-tree\" }\nstep { action = \"write-tree\" name = \"x\" }\n",
	  "two-names.recipe:8: step 4 (write-tree): name 'x': step 3 already chose how this tree is written (no name); give the same or none" },
	{ "two-loads", "step { action = \"fdt-from-fit\" fit = \"/image.fit\" }\nstep { action = \"dtb-from-file\" part = \"boot\" path = \"/a.dtb\" }\n",
	  "two-loads.recipe:6: step 2 (dtb-from-file): step 1 already loaded a device tree" },
	{ "compat-no-load", "match { compatible = {\"a,b\"} }\nstep { action = \"fstab\" mountpoint = \"/\" options = \"+noatime\" }\n",
	  "match: compatible needs a step that loads a device tree" },
	{ "match-file-form", "match { file = {\"/etc/fstab\"} }\nstep { action = \"fstab\" mountpoint = \"/\" options = \"+noatime\" }\n",
	  "match: file '/etc/fstab': must be PART:/PATH (as boot:/image.fit)" },
	{ "both-alt", "step { action = \"write-file\" part = \"root\" path = \"/x\" content = \"a\" file = \"motd.txt\" }\n",
	  "step 1 (write-file): give 'content' or 'file', not both" },
	{ "no-alt", "step { action = \"boot-script\" part = \"boot\" path = \"/boot.scr\" }\n",
	  "step 1 (boot-script): needs 'script' or 'file'" },
	{ "bad-dtvalue", "step { action = \"fdt-from-fit\" fit = \"/image.fit\" }\nstep { action = \"dt-set-property\" node = \"a\" property = \"b\" value = \"<1 2\" }\nstep { action = \"write-dtb\" path = \"/o.dtb\" }\n",
	  "step 2 (dt-set-property): value '<1 2': " },
	{ "bad-arch", "step { action = \"boot-script\" part = \"boot\" path = \"/boot.scr\" script = \"x\" arch = \"pdp11\" }\n",
	  "step 1 (boot-script): arch 'pdp11': unknown architecture 'pdp11'" },
	{ "bad-part", "step { action = \"symlink\" part = \"0\" path = \"/a\" target = \"b\" }\n",
	  "step 1 (symlink): part '0': partition numbers start at 1" },
	{ "bad-fstabops", "step { action = \"fstab\" mountpoint = \"/\" options = \"noatime\" }\n",
	  "step 1 (fstab): options 'noatime': must be a list of +option and -option" },
	{ "unterminated", "summary = \"x\n", "unterminated.recipe:5: unterminated string" },
	{ "pattern-bad", "param p {\n description = \"d\"\n default = \"a\"\n pattern = \"[a-z\"\n}\nstep { action = \"fstab\" mountpoint = \"/\" options = \"+${p}\" }\n",
	  "pattern-bad.recipe:8: parameter 'p': pattern '[a-z': " },
	{ "pattern-paren", "param p {\n description = \"d\"\n default = \"a\"\n pattern = \"a)|(.*\"\n}\nstep { action = \"fstab\" mountpoint = \"/\" options = \"+${p}\" }\n",
	  "pattern-paren.recipe:8: parameter 'p': pattern 'a)|(.*': a ')' closes no '('" },
	{ "pattern-large", "param p {\n description = \"d\"\n default = \"a\"\n pattern = \"(((a{99}){99}){99}){99}\"\n}\nstep { action = \"fstab\" mountpoint = \"/\" options = \"+${p}\" }\n",
	  "pattern-large.recipe:8: parameter 'p': pattern '(((a{99}){99}){99}){99}': too large once its repetitions are expanded" },
	{ "pattern-default", "param p {\n description = \"d\"\n default = \"ab1\"\n pattern = \"[a-z]+\"\n pattern-text = \"letters\"\n}\nstep { action = \"fstab\" mountpoint = \"/\" options = \"+${p}\" }\n",
	  "pattern-default.recipe:7: parameter 'p': default: parameter 'p' must be letters (got 'ab1')" },
	{ "pattern-values", "param p {\n description = \"d\"\n values = {\"a\", \"B\"}\n default = \"a\"\n pattern = \"[a-z]\"\n}\nstep { action = \"fstab\" mountpoint = \"/\" options = \"+${p}\" }\n",
	  "pattern-values.recipe:7: parameter 'p': parameter 'p' must match the pattern '[a-z]' (got 'B')" },
	{ "pattern-int", "param p {\n description = \"d\"\n type = \"int\"\n default = \"1\"\n pattern = \"[0-9]\"\n}\nstep { action = \"fstab\" mountpoint = \"/\" options = \"+${p}\" }\n",
	  "pattern-int.recipe:9: parameter 'p': pattern needs type = \"string\"" },
	{ "pattern-text-alone", "param p {\n description = \"d\"\n default = \"a\"\n pattern-text = \"letters\"\n}\nstep { action = \"fstab\" mountpoint = \"/\" options = \"+${p}\" }\n",
	  "pattern-text-alone.recipe:8: parameter 'p': pattern-text without a pattern" },
	{ "pattern-empty", "param p {\n description = \"d\"\n default = \"a\"\n pattern = \"\"\n}\nstep { action = \"fstab\" mountpoint = \"/\" options = \"+${p}\" }\n",
	  "pattern-empty.recipe:8: parameter 'p': pattern must be a non-empty single line" },
	{ "pattern-twice", "param p {\n description = \"d\"\n default = \"a\"\n pattern = \"a\"\n pattern = \"b\"\n}\nstep { action = \"fstab\" mountpoint = \"/\" options = \"+${p}\" }\n",
	  "pattern-twice.recipe:9: 'pattern' is set twice (first on line 8)" },
};

static void test_errors(void)
{
	static const char *const missing[2] = {
		"no-summary.recipe: missing 'summary'",
		"wrong-name.recipe:1: name 'other' differs from the file name 'wrong-name.recipe' (rename one of them)",
	};
	struct imgp_recipe *r;
	char name[128];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc;

		r = (struct imgp_recipe *)1;
		rc = imgp_recipe_load(rpath(dir_bad, cases[i].name), &r);
		snprintf(name, sizeof(name), "error: %s", cases[i].name);
		CHECK(rc < 0 && !r && msg_has(cases[i].want), name);
	}
	for (size_t i = 0; i < 2; i++) {
		const char *file = i ? "wrong-name" : "no-summary";

		snprintf(name, sizeof(name), "error: %s", file);
		CHECK(imgp_recipe_load(rpath(dir_bad, file), &r) == -EINVAL &&
		      msg_has(missing[i]), name);
	}
	CHECK(imgp_recipe_load(rpath(dir_bad, "does-not-exist"), &r) == -ENOENT,
	      "error: a missing file is -ENOENT");
	CHECK(imgp_recipe_load(rpath(dir_bad, "nul"), &r) == -EINVAL &&
	      msg_has("nul.recipe:3: NUL byte in the file"),
	      "error: a NUL byte, named with its line (not a string cut short)");

	/* Not errors: a parameter that only confirms, an overlay as a check. */
	r = NULL;
	CHECK(imgp_recipe_load(rpath(dir_bad, "confirm"), &r) == 0 && r,
	      "ok: a required parameter no step uses (a confirmation)");
	imgp_recipe_free(r);
	r = NULL;
	CHECK(imgp_recipe_load(rpath(dir_bad, "overlay-check"), &r) == 0 && r,
	      "ok: an overlay that is never written checks that it applies");
	imgp_recipe_free(r);
}

static int write_error_recipes(void)
{
	char path[1024];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (write_recipe(dir_bad, cases[i].name, cases[i].body))
			return -1;
	snprintf(path, sizeof(path), "%s/no-summary.recipe", dir_bad);
	if (unit_write_text(path, "name = \"no-summary\"\ndescription = \"d\"\nsource = \"s\"\n"))
		return -1;
	snprintf(path, sizeof(path), "%s/wrong-name.recipe", dir_bad);
	if (unit_write_text(path, "name = \"other\"\nsummary = \"s\"\ndescription = \"d\"\nsource = \"s\"\n"))
		return -1;
	if (write_recipe(dir_bad, "confirm",
			 "param hardware-mod { description = \"confirm the mod\" values = {\"done\"} required = true }\n"
			 "step { action = \"fstab\" mountpoint = \"/\" options = \"+noatime\" }\n") ||
	    write_recipe(dir_bad, "overlay-check",
			 "step { action = \"dtb-from-file\" part = \"boot\" path = \"/a.dtb\" }\n"
			 "step { action = \"dt-overlay\" overlay = \"check.dtbo\" }\n") ||
	    unit_write_text(unit_path("bad/check.dtbo"), "x"))
		return -1;
	snprintf(path, sizeof(path), "%s/nul.recipe", dir_bad);
	if (unit_write_file(path, "name = \"nul\"\nsummary = \"s\"\ndescription = \"d\0x\"\n", 47))
		return -1;
	/* A local file that is a link out of the recipe's directory. */
	snprintf(path, sizeof(path), "%s/escape.txt", dir_bad);
	return symlink("../a/motd.txt", path);
}

static void test_find(void)
{
	const char *const dirs[] = { dir_a, dir_b, NULL };
	char *path = NULL, want[1200];
	int rc;

	rc = imgp_recipe_find("full", dirs, &path);
	CHECK(rc == 0 && path && !strcmp(path, rpath(dir_a, "full")),
	      "find: the first directory wins");
	free(path);
	rc = imgp_recipe_find("only-b", dirs, &path);
	CHECK(rc == 0 && path && !strcmp(path, rpath(dir_b, "only-b")),
	      "find: a name only the second directory has");
	free(path);
	rc = imgp_recipe_find("only-b.recipe", dirs, &path);
	CHECK(rc == 0 && path && !strcmp(path, rpath(dir_b, "only-b")),
	      "find: NAME.recipe that is no file here is looked up by name");
	free(path);
	rc = imgp_recipe_find(rpath(dir_b, "full"), dirs, &path);
	CHECK(rc == 0 && path && !strcmp(path, rpath(dir_b, "full")),
	      "find: a path is taken as it is");
	free(path);
	path = (char *)1;
	rc = imgp_recipe_find("nope", dirs, &path);
	snprintf(want, sizeof(want), "no recipe 'nope' (searched: %s, %s; see 'imgpatch recipes')",
		 dir_a, dir_b);
	CHECK(rc == -ENOENT && !path, "find: unknown name is -ENOENT");
	CHECK_STR(imgp_errmsg(), want, "find: message lists the directories");
	rc = imgp_recipe_find("./none/x.recipe", dirs, &path);
	CHECK(rc == -ENOENT && msg_has("./none/x.recipe: No such file"),
	      "find: a missing path is -ENOENT");
}

static char warnings[2048];

static void catch_log(enum imgp_log_level level, const char *msg, void *ctx)
{
	size_t n = strlen(warnings);

	(void)ctx;
	if (level == IMGP_LOG_WARNING)
		snprintf(warnings + n, sizeof(warnings) - n, "%s\n", msg);
}

static void test_list(void)
{
	const char *const dirs[] = { dir_a, dir_b, "/nonexistent-dir", NULL };
	struct imgp_recipe **list = NULL;
	struct imgp_ctx *ctx = NULL;
	size_t n = 0;
	int rc;

	rc = imgp_ctx_new(&ctx);
	if (!rc) {
		imgp_ctx_set_log(ctx, catch_log, NULL);
		rc = imgp_recipe_list(ctx, dirs, &list, &n);
	}
	imgp_ctx_free(ctx);
	CHECK(rc == 0 && n == 3, "list: three recipes (one hidden, one broken)");
	CHECK(n == 3 && !strcmp(imgp_recipe_name(list[0]), "full") &&
	      !strcmp(imgp_recipe_name(list[1]), "only-b") &&
	      !strcmp(imgp_recipe_name(list[2]), "subst"),
	      "list: sorted by name");
	CHECK(n >= 1 && !strcmp(imgp_recipe_path(list[0]), rpath(dir_a, "full")),
	      "list: the first directory's recipe hides the second's");
	CHECK(strstr(warnings, "broken.recipe:5: no such option 'oops'") != NULL,
	      "list: a broken recipe is left out with a warning");
	imgp_recipe_list_free(list, n);
}

/* ------------------------------------------------------------- end to end */

static const char e2e_head[] =
	"param carrier { description = \"carrier\" values = {\"revA\", \"revB\", \"revZ\"} required = true }\n";

static const char e2e_steps[] =
	"step { action = \"fdt-from-fit\" fit = \"/image.fit\" fdt = \"fdt-smk-k26-revA-sck-kv-g-${carrier}.dtb\" }\n"
	"step { action = \"require-boot-hook\" word = \"user-override.dtb\" }\n"
	"step { action = \"dt-delete-property\" node = \"mmc@ff170000\" property = \"no-1-8-v\" }\n"
	"step { action = \"write-dtb\" path = \"/user-override.dtb\" }\n"
	"step { action = \"fstab\" mountpoint = \"/\" options = \"-discard,+noatime\" }\n";

static int write_e2e(const char *name, const char *match, const char *steps)
{
	struct imgp_buf b = { 0 };
	int rc = imgp_buf_printf(&b, "%s%s%s", e2e_head, match, steps);

	if (!rc)
		rc = write_recipe(dir_e2e, name, (char *)b.data);
	imgp_buf_free(&b);
	return rc;
}

/* Loads, binds and matches; returns match's result (or -1 before it). */
static int e2e_match(struct imgp_disk *disk, struct imgp_patch **patch,
		     const char *name, const char *carrier,
		     struct imgp_recipe **out)
{
	struct imgp_recipe *r = NULL;
	char set[64];
	const char *sets[1] = { set };
	int rc;

	snprintf(set, sizeof(set), "carrier=%s", carrier);
	rc = imgp_patch_new(patch, disk);
	if (rc) {
		*out = NULL;
		return -1;
	}
	rc = imgp_recipe_load(rpath(dir_e2e, name), &r);
	if (!rc)
		rc = imgp_recipe_bind(r, sets, 1);
	if (rc) {
		printf("# %s: %s\n", name, imgp_errmsg());
		imgp_recipe_free(r);
		*out = NULL;
		return -1;
	}
	*out = r;
	return imgp_recipe_match(r, *patch);
}

static void test_e2e(void)
{
	const char *argv[] = { "bash", "tests/fixtures/mkimage-kv260.sh", NULL, NULL };
	const char *match =
		"match {\n"
		"\tpartition-label = {\"system-boot\", \"writable\"}\n"
		"\tfile = {\"boot:/image.fit\", \"boot:/boot.scr.uimg\", \"root:/etc/fstab\"}\n"
		"\tfit-fdt = {\"fdt-smk-k26-revA-sck-kv-g-${carrier}.dtb\"}\n"
		"\tcompatible = {\"xlnx,zynqmp-smk-k26-${carrier}\"}\n"
		"}\n";
	struct imgp_recipe *r;
	struct imgp_patch *patch = NULL;
	struct imgp_disk *disk;
	struct imgp_buf b = { 0 };
	char img[1024];
	bool existed = false;
	int rc;

	if (access(argv[1], R_OK) != 0) {
		unit_count++;
		printf("ok %d - e2e # SKIP %s not found (run from the source tree)\n",
		       unit_count, argv[1]);
		return;
	}
	argv[2] = unit_path_keep(img, sizeof(img), "kv260.img");
	CHECK(unit_spawn(argv, NULL, NULL) == 0, "e2e: KV260 fixture image");
	CHECK(write_e2e("e2e", match, e2e_steps) == 0 &&
	      write_e2e("e2e-label", "match { partition-label = {\"system-boot\", \"bootfs\"} }\n", e2e_steps) == 0 &&
	      write_e2e("e2e-file", "match { file = {\"boot:/image.fit\", \"boot:/nope\"} }\n", e2e_steps) == 0 &&
	      write_e2e("e2e-file-number", "match { file = {\"2:/etc/fstab\"} }\n", e2e_steps) == 0 &&
	      write_e2e("e2e-compat", "match { compatible = {\"xlnx,zynqmp-sk-kv260-${carrier}\"} }\n", e2e_steps) == 0 &&
	      write_e2e("e2e-fail", "",
			"step { action = \"fdt-from-fit\" fit = \"/image.fit\" fdt = \"fdt-smk-k26-revA-sck-kv-g-${carrier}.dtb\" }\n"
			"step { action = \"dt-delete-property\" node = \"mmc@dead\" property = \"no-1-8-v\" }\n"
			"step { action = \"write-dtb\" path = \"/user-override.dtb\" }\n") == 0 &&
	      write_recipe(dir_e2e, "e2e-text",
			   "param who { description = \"who\" default = \"world\" }\n"
			   "step { action = \"write-file\" part = \"root\" path = \"/etc/motd\" content = \"hello $${HOME} ${who} $5\\n\" }\n") == 0,
	      "e2e: recipes written");
	rc = imgp_disk_open(&disk, NULL, img, false);
	CHECK(rc == 0, "e2e: image opens");
	if (rc) {
		printf("# %s\n", imgp_errmsg());
		return;
	}

	rc = e2e_match(disk, &patch, "e2e", "revB", &r);
	CHECK(rc == 0, "e2e: the KV260 image matches (labels, files, fit-fdt, compatible)");
	if (rc)
		printf("# %s\n", imgp_errmsg());
	rc = r ? imgp_recipe_apply(r, patch) : -1;
	CHECK(rc == 0, "e2e: the steps apply");
	if (rc)
		printf("# %s\n", imgp_errmsg());
	CHECK(imgp_patch_pending(patch) == 2,
	      "e2e: two pending changes (user-override.dtb, fstab)");
	if (!rc && patch->boot_part) {
		int node;

		rc = imgp_patch_read_(patch, patch->boot_part, "/user-override.dtb",
				     IMGP_DTB_MAX, &b, &existed);
		node = rc || !existed ? -1 : fdt_path_offset(b.data, "/axi/mmc@ff170000");
		CHECK(node >= 0 && !fdt_getprop(b.data, node, "no-1-8-v", NULL) &&
		      fdt_getprop(b.data, node, "disable-wp", NULL),
		      "e2e: the planned tree lacks no-1-8-v and keeps the rest");
		b.len = 0;
	}
	rc = imgp_patch_describe(patch, &b);
	CHECK(rc == 0 && buf_has(&b, "/user-override.dtb") && buf_has(&b, "noatime"),
	      "e2e: the plan names both changes");
	imgp_buf_free(&b);
	imgp_patch_free(patch);
	rc = r ? imgp_recipe_describe(r, &b) : -1;
	CHECK(rc == 0 && buf_has(&b, "  3. dt-delete-property: delete property 'no-1-8-v' of node mmc@ff170000\n") &&
	      buf_has(&b, "  root compatible: xlnx,zynqmp-smk-k26-${carrier} (of the tree step 1 loads)\n"),
	      "e2e: describe shows the steps and rules");
	imgp_buf_free(&b);
	imgp_recipe_free(r);

	rc = e2e_match(disk, &patch, "e2e", "revZ", &r);
	CHECK(rc == -ENOENT && msg_has("recipe 'e2e' does not match this image: expected FIT fdt 'fdt-smk-k26-revA-sck-kv-g-revZ.dtb' in /image.fit (have: fdt-zynqmp-smk-k26-revA.dtb, fdt-smk-k26-revA-sck-kr-g-revA.dtb, fdt-smk-k26-revA-sck-kv-g-revA.dtb, fdt-smk-k26-revA-sck-kr-g-revB.dtb, fdt-smk-k26-revA-sck-kv-g-revB.dtb)"),
	      "e2e: fit-fdt rule says what it expected and what there is");
	CHECK(imgp_patch_pending(patch) == 0, "e2e: a failed match plans nothing");
	imgp_patch_free(patch);
	imgp_recipe_free(r);

	rc = e2e_match(disk, &patch, "e2e-label", "revB", &r);
	CHECK(rc == -ENOENT && msg_has("expected a partition labelled 'bootfs', found: p1 'system-boot' (vfat), p2 'writable' (ext4)"),
	      "e2e: partition-label rule lists the partitions");
	imgp_patch_free(patch);
	imgp_recipe_free(r);

	rc = e2e_match(disk, &patch, "e2e-file", "revB", &r);
	CHECK(rc == -ENOENT && msg_has("expected boot:/nope, found: no such file on p1 (vfat)"),
	      "e2e: file rule");
	imgp_patch_free(patch);
	imgp_recipe_free(r);

	rc = e2e_match(disk, &patch, "e2e-file-number", "revB", &r);
	CHECK(rc == 0 && patch->survey,
	      "e2e: file rule on a numbered partition reads through the patch's survey");
	imgp_patch_free(patch);
	imgp_recipe_free(r);

	rc = e2e_match(disk, &patch, "e2e-compat", "revB", &r);
	CHECK(rc == -ENOENT && msg_has("expected root compatible 'xlnx,zynqmp-sk-kv260-revB', found: 'xlnx,zynqmp-smk-k26-rev1', 'xlnx,zynqmp-smk-k26-revB'"),
	      "e2e: compatible rule lists the tree's compatible");
	CHECK(!patch->have_dtb, "e2e: matching loads no tree into the patch");
	imgp_patch_free(patch);
	imgp_recipe_free(r);

	rc = e2e_match(disk, &patch, "e2e-fail", "revB", &r);
	CHECK(rc == 0, "e2e-fail: matches (no rules)");
	rc = r ? imgp_recipe_apply(r, patch) : 0;
	CHECK(rc < 0 && !strncmp(imgp_errmsg(), "step 2 (dt-delete-property): ", 29),
	      "e2e-fail: the failing step is named");
	if (rc >= 0 || strncmp(imgp_errmsg(), "step 2 (dt-delete-property): ", 29))
		printf("# %s\n", imgp_errmsg());
	imgp_patch_free(patch);
	imgp_recipe_free(r);

	rc = imgp_patch_new(&patch, disk);
	if (!rc)
		rc = imgp_recipe_load(rpath(dir_e2e, "e2e-text"), &r);
	if (!rc)
		rc = imgp_recipe_match(r, patch);
	if (!rc)
		rc = imgp_recipe_apply(r, patch);
	CHECK(rc == 0 && imgp_patch_pending(patch) == 1, "e2e-text: inline file planned");
	if (!rc) {
		const struct imgp_part *root = imgp_patch_part_(patch, "root");

		rc = root ? imgp_patch_read_(patch, root, "/etc/motd", 4096, &b,
					    &existed) : -1;
		CHECK(rc == 0 && existed && b.len &&
		      !strcmp((char *)b.data, "hello ${HOME} world $5\n"),
		      "e2e-text: $$ is a literal $, ${who} its default, $5 as it is");
		imgp_buf_free(&b);
		imgp_recipe_free(r);
	}
	imgp_patch_free(patch);
	imgp_disk_close(disk);
}

static int setup(void)
{
	char path[1024];
	static const char subst[] =
		"param dir { description = \"a directory\" default = \"x\" }\n"
		"param ov { description = \"overlay\" default = \"x\" }\n"
		"step { action = \"write-file\" part = \"root\" path = \"/$${x}/${dir}/f\" content = \"c\" }\n"
		"step { action = \"fdt-from-fit\" fit = \"/image.fit\" }\n"
		"step { action = \"dt-overlay\" overlay = \"${ov}.dtbo\" }\n"
		"step { action = \"write-dtb\" path = \"/o.dtb\" }\n";

	if (unit_tmpdir_create("recipe"))
		return -1;
	unit_path_keep(dir_a, sizeof(dir_a), "a");
	unit_path_keep(dir_b, sizeof(dir_b), "b");
	unit_path_keep(dir_bad, sizeof(dir_bad), "bad");
	unit_path_keep(dir_e2e, sizeof(dir_e2e), "e2e");
	if (mkdir(dir_a, 0755) || mkdir(dir_b, 0755) || mkdir(dir_bad, 0755) ||
	    mkdir(dir_e2e, 0755) || mkdir(unit_path("a/overlays"), 0755))
		return -1;
	snprintf(path, sizeof(path), "%s/full.recipe", dir_a);
	if (unit_write_text(path, full_recipe) ||
	    unit_write_text(unit_path("a/overlays/x.dtbo"), "not really a dtbo") ||
	    unit_write_text(unit_path("a/motd.txt"), "hello\n") ||
	    unit_write_text(unit_path("a/README"), "not a recipe") ||
	    write_recipe(dir_a, "subst", subst) ||
	    write_recipe(dir_bad, "pat",
			 "param host {\n description = \"h\"\n default = \"lab\"\n"
			 " pattern = \"[a-z]+|x[0-9]\"\n pattern-text = \"letters, or x and a digit\"\n}\n"
			 "param id { description = \"i\" default = \"a-1.\" pattern = \"[a-z]+-[0-9]\\\\.\" }\n"
			 "param free { description = \"f\" default = \"\" }\n"
			 "step { action = \"write-file\" part = \"root\" path = \"/etc/hostname\" content = \"${host} ${id} ${free}\" }\n") ||
	    write_recipe(dir_a, "broken", "step { oops = 1 }\n") ||
	    write_recipe(dir_b, "full", "step { action = \"fstab\" mountpoint = \"/\" options = \"+noatime\" }\n") ||
	    write_recipe(dir_b, "only-b", "step { action = \"fstab\" mountpoint = \"/\" options = \"+noatime\" }\n"))
		return -1;
	return write_error_recipes();
}

int main(void)
{
	if (setup()) {
		printf("not ok - setup: %s\n", strerror(errno));
		unit_tmpdir_remove();
		return 1;
	}
	test_full();
	test_subst();
	test_pattern();
	test_errors();
	test_find();
	test_list();
	test_e2e();
	unit_tmpdir_remove();
	return unit_done();
}
