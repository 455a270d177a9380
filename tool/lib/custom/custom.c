// SPDX-License-Identifier: MIT
/*
 * customize's settings: one table of options (named as virt-customize(1)
 * names them where it has them), checked as given, then planned in the
 * order given over one plan. Identity and network settings of an image
 * that applies them with cloud-init gather into its seed, planned last.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"
#include "core/core.h"
#include "text/text.h"
#include "patch/patch.h"
#include "custom/custom.h"
#include "custom/custom-run.h"

enum custom_kind {
	KIND_IDENTITY,           /* planned by its own function */
	KIND_NET,                /* gathered into run->net */
	KIND_FILE,               /* custom-files.c */
	KIND_UNIT,               /* custom-units glue */
	KIND_FIRSTBOOT,
};

typedef int (*custom_plan_fn)(struct custom_run *run, const char *value);

struct custom_option {
	const char *name;
	enum custom_kind kind;
	custom_plan_fn plan;     /* KIND_IDENTITY */
	/* Syntax checks that need no image; NULL: none. */
	int (*check)(const char *name, const char *value);
};

struct custom_setting {
	const struct custom_option *opt;
	char *value;
};

struct imgp_custom {
	struct custom_setting *v;
	size_t n;
	struct imgp_buf explain;
	struct imgp_buf facts;
};

/* "NAME:REST" with both parts non-empty. */
static int check_pair(const char *name, const char *value)
{
	const char *colon = strchr(value, ':');

	if (!colon || colon == value || !colon[1])
		return imgp_fail(EINVAL, "--%s %s: expected two parts separated by ':'",
				 name, value);
	return 0;
}

static int check_nonempty(const char *name, const char *value)
{
	if (!*value)
		return imgp_fail(EINVAL, "--%s: empty value", name);
	return 0;
}

/*
 * A host name as RFC 1123 (2.1) and RFC 1035 (2.3.4) allow one: labels of
 * letters, digits and '-' (not first or last), 1 to 63 bytes, dot-joined,
 * 253 bytes in all; systemd's hostname_is_valid() (src/basic/hostname-util.c,
 * systemd 252) takes the same and no more.
 */
static int check_hostname(const char *name, const char *value)
{
	size_t len = strlen(value), label = 0;

	if (!len || len > 253)
		return imgp_fail(EINVAL, "--%s %s: a host name is 1 to 253 characters (RFC 1123)",
				 name, value);
	for (size_t i = 0; i <= len; i++) {
		char ch = value[i];

		if (ch == '.' || !ch) {
			if (!label || value[i - 1] == '-')
				return imgp_fail(EINVAL, "--%s %s: each dot-separated label must be 1 to 63 letters, digits or '-', not ending in '-' (RFC 1123)",
						 name, value);
			label = 0;
			continue;
		}
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || (ch == '-' && label)) || ++label > 63)
			return imgp_fail(EINVAL, "--%s %s: each dot-separated label must be 1 to 63 letters, digits or '-', not starting with '-' (RFC 1123)",
					 name, value);
	}
	return 0;
}

static int check_user(const char *name, const char *value)
{
	int rc = imgp_user_name_check_(value);

	return rc ? imgp_fail_ctx(rc, "--%s %s", name, value) : 0;
}

/* USER:SELECTOR, the user's name as useradd takes it. */
static int check_user_pair(const char *name, const char *value)
{
	char user[64];
	size_t n = strcspn(value, ":");
	int rc = check_pair(name, value);

	if (rc)
		return rc;
	if (n >= sizeof(user))
		return imgp_fail(EINVAL, "--%s: user name too long", name);
	memcpy(user, value, n);
	user[n] = '\0';
	rc = imgp_user_name_check_(user);
	return rc ? imgp_fail_ctx(rc, "--%s %s", name, user) : 0;
}

/* PERMISSIONS:FILE, PERMISSIONS octal as chmod(1) takes them (0755). */
static int check_chmod(const char *name, const char *value)
{
	char *end;
	unsigned long mode = strtoul(value, &end, 8);
	int rc = check_pair(name, value);

	if (rc)
		return rc;
	if (end == value || *end != ':' || mode > 07777 || value[0] == '-' ||
	    value[0] == '+')
		return imgp_fail(EINVAL, "--%s %s: PERMISSIONS must be octal, 0 to 7777 (e.g. 0755)",
				 name, value);
	return 0;
}

static int check_choice(const char *name, const char *value)
{
	if (strcmp(name, "ssh-host-keys") == 0 && strcmp(value, "new") != 0)
		return imgp_fail(EINVAL, "--%s %s: the one choice is 'new'", name, value);
	if (strcmp(name, "machine-id") == 0 && strcmp(value, "new") && strcmp(value, "reset"))
		return imgp_fail(EINVAL, "--%s %s: 'new' or 'reset'", name, value);
	return 0;
}

static const struct custom_option options[] = {
	{ "hostname", KIND_IDENTITY, imgp_custom_plan_hostname_, check_hostname },
	{ "timezone", KIND_IDENTITY, imgp_custom_plan_timezone_, check_nonempty },
	{ "keymap", KIND_IDENTITY, imgp_custom_plan_keymap_, check_nonempty },
	{ "locale", KIND_IDENTITY, imgp_custom_plan_locale_, check_nonempty },
	{ "user", KIND_IDENTITY, imgp_custom_plan_user_, check_user },
	{ "password", KIND_IDENTITY, imgp_custom_plan_password_, check_user_pair },
	{ "ssh-inject", KIND_IDENTITY, imgp_custom_plan_ssh_inject_, check_user_pair },
	{ "static-ip", KIND_NET, NULL, check_nonempty },
	{ "gateway", KIND_NET, NULL, check_nonempty },
	{ "dns", KIND_NET, NULL, check_nonempty },
	{ "iface", KIND_NET, NULL, check_nonempty },
	{ "wifi", KIND_NET, NULL, check_nonempty },
	{ "wifi-psk-file", KIND_NET, NULL, check_nonempty },
	{ "wifi-country", KIND_NET, NULL, check_nonempty },
	{ "ssh-host-keys", KIND_IDENTITY, imgp_custom_plan_host_keys_, check_choice },
	{ "machine-id", KIND_IDENTITY, imgp_custom_plan_machine_id_, check_choice },
	{ "copy-in", KIND_FILE, NULL, check_pair },
	{ "upload", KIND_FILE, NULL, check_pair },
	{ "write", KIND_FILE, NULL, check_pair },
	{ "append-line", KIND_FILE, NULL, check_pair },
	{ "mkdir", KIND_FILE, NULL, check_nonempty },
	{ "chmod", KIND_FILE, NULL, check_chmod },
	{ "delete", KIND_FILE, NULL, check_nonempty },
	{ "link", KIND_FILE, NULL, check_pair },
	{ "touch", KIND_FILE, NULL, check_nonempty },
	{ "enable", KIND_UNIT, NULL, check_nonempty },
	{ "disable", KIND_UNIT, NULL, check_nonempty },
	{ "mask", KIND_UNIT, NULL, check_nonempty },
	{ "firstboot", KIND_FIRSTBOOT, NULL, check_nonempty },
	{ "firstboot-command", KIND_FIRSTBOOT, NULL, check_nonempty },
};

static const struct custom_option *option_find(const char *name)
{
	for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++)
		if (strcmp(options[i].name, name) == 0)
			return &options[i];
	return NULL;
}

const char *imgp_custom_option(size_t i)
{
	return i < sizeof(options) / sizeof(options[0]) ? options[i].name : NULL;
}

int imgp_custom_new(struct imgp_custom **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : imgp_fail(ENOMEM, "out of memory");
}

void imgp_custom_free(struct imgp_custom *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].value);
	free(c->v);
	imgp_buf_free(&c->explain);
	imgp_buf_free(&c->facts);
	free(c);
}

int imgp_custom_add(struct imgp_custom *c, const char *name, const char *value)
{
	const struct custom_option *opt = option_find(name);
	struct custom_setting *grown;
	int rc;

	if (!opt)
		return imgp_fail(EINVAL, "--%s: no such customize option", name);
	rc = opt->check ? opt->check(name, value) : 0;
	if (rc)
		return rc;
	/* A network value given twice would leave the first one silently unused. */
	for (size_t i = 0; opt->kind == KIND_NET && i < c->n; i++)
		if (c->v[i].opt == opt)
			return imgp_fail(EINVAL, "--%s given twice", name);
	grown = realloc(c->v, (c->n + 1) * sizeof(*grown));
	if (!grown)
		return imgp_fail(ENOMEM, "out of memory");
	c->v = grown;
	c->v[c->n].opt = opt;
	c->v[c->n].value = strdup(value);
	if (!c->v[c->n].value)
		return imgp_fail(ENOMEM, "out of memory");
	c->n++;
	return 0;
}

int imgp_custom_note_(struct custom_run *run, const char *fmt, ...)
{
	va_list ap;
	char line[1024];

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	return imgp_buf_printf(run->explain, "  %s\n", line) ?
	       imgp_fail(ENOMEM, "out of memory") : 0;
}

int imgp_custom_add_fact_(struct custom_run *run, const char *key, const char *value)
{
	return imgp_buf_printf(run->facts, "%s\t%s\n", key, value) ?
	       imgp_fail(ENOMEM, "out of memory") : 0;
}

/*
 * The Wi-Fi key is read from its file here, never taken from the command
 * line: one line, its newline dropped.
 */
static int read_psk(const char *path, char **out)
{
	struct imgp_buf b = { 0 };
	int rc = imgp_read_local_(path, 256, false, &b);

	if (rc) {
		imgp_buf_free(&b);
		return imgp_fail_ctx(rc, "--wifi-psk-file %s", path);
	}
	while (b.len && (b.data[b.len - 1] == '\n' || b.data[b.len - 1] == '\r'))
		b.data[--b.len] = '\0';
	*out = (char *)b.data;
	return 0;
}

static int gather_net(struct custom_run *run, const struct imgp_custom *c,
		      char **psk)
{
	struct imgp_net *n = &run->net;
	int rc = 0;

	for (size_t i = 0; !rc && i < c->n; i++) {
		const char *name = c->v[i].opt->name, *v = c->v[i].value;

		if (c->v[i].opt->kind != KIND_NET)
			continue;
		run->net_set = true;
		if (!strcmp(name, "static-ip"))
			n->address = v;
		else if (!strcmp(name, "gateway"))
			n->gateway = v;
		else if (!strcmp(name, "dns"))
			n->dns = v;
		else if (!strcmp(name, "iface"))
			n->iface = v;
		else if (!strcmp(name, "wifi"))
			n->wifi_ssid = v;
		else if (!strcmp(name, "wifi-country"))
			n->wifi_country = v;
		else if (!*psk)
			rc = read_psk(v, psk);
		n->wifi_psk = *psk;
	}
	if (!rc && run->net_set)
		rc = imgp_net_check_(n);
	return rc;
}

static int plan_setting(struct custom_run *run, const struct custom_setting *s)
{
	const struct custom_option *opt = s->opt;
	int rc;

	switch (opt->kind) {
	case KIND_IDENTITY:
		rc = opt->plan(run, s->value);
		break;
	case KIND_FILE:
		rc = imgp_custom_plan_file_op_(run, opt->name, s->value);
		break;
	case KIND_UNIT:
		rc = imgp_custom_plan_unit_op_(run, opt->name, s->value);
		break;
	case KIND_FIRSTBOOT:
		rc = imgp_custom_plan_firstboot_(run, opt->name, s->value);
		break;
	default:
		return 0;
	}
	if (rc && !imgp_err_is_name())
		imgp_fail_ctx(rc, "--%s", opt->name);
	return rc;
}

/*
 * Armbian's first login makes one user from plain presets: the first
 * --user, when its password comes from a file and no key is asked for
 * (the presets take keys only as URLs). Decided before the settings run;
 * a failure to read /etc/passwd leaves the user to the files way, whose
 * planning reports it.
 */
static void pick_preset_user(struct custom_run *run, const struct imgp_custom *c)
{
	const char *user = NULL;
	bool password = false;

	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].opt->name, "user") && user)
			return;
		else if (!strcmp(c->v[i].opt->name, "user"))
			user = c->v[i].value;
	/*
	 * It makes its user only when the root has no regular user yet
	 * (uid 1000 and up, "a re-run after a power loss"), so one --user.
	 */
	if (!user || !imgp_custom_armbian_user_fits_(user) ||
	    imgp_custom_passwd_has_uid_(run, 1000, 65533) != 0)
		return;
	for (size_t i = 0; i < c->n; i++) {
		const char *v = c->v[i].value, *name = c->v[i].opt->name;
		size_t n = strlen(user);
		bool mine = !strncmp(v, user, n) && v[n] == ':';

		if (mine && !strcmp(name, "ssh-inject"))
			return;
		if (mine && !strcmp(name, "password") && strncmp(v + n + 1, "file:", 5))
			return;
		password = password || (mine && !strcmp(name, "password"));
	}
	if (password)
		run->preset_user = user;
}

static void run_free(struct custom_run *run)
{
	for (size_t i = 0; i < run->nusers; i++) {
		free(run->users[i].name);
		free(run->users[i].hash);
		for (size_t k = 0; k < run->users[i].nkeys; k++)
			free(run->users[i].keys[k]);
		free(run->users[i].keys);
	}
	free(run->users);
	imgp_fstab_list_free_(run->mounts, run->nmounts);
	free(run->iface);
	free(run->os_id);
	free(run->boot_dir);
	for (char **pw = &run->preset_password; pw; pw = pw == &run->preset_password ?
						    &run->preset_root_password : NULL) {
		if (*pw)
			explicit_bzero(*pw, strlen(*pw));
		free(*pw);
	}
}

int imgp_custom_plan(struct imgp_custom *c, struct imgp_patch *patch)
{
	struct custom_run run = { .patch = patch, .explain = &c->explain,
				  .facts = &c->facts };
	char *psk = NULL;
	int rc;

	c->explain.len = 0;
	c->facts.len = 0;
	rc = imgp_custom_detect_(&run);
	if (!rc && run.way == CUSTOM_WAY_ARMBIAN)
		pick_preset_user(&run, c);
	if (!rc)
		rc = gather_net(&run, c, &psk);
	for (size_t i = 0; !rc && i < c->n; i++)
		rc = plan_setting(&run, &c->v[i]);
	if (!rc)
		rc = imgp_custom_plan_sudoers_(&run);
	if (!rc && run.net_set && !run.net.iface && !run.net.wifi_ssid) {
		run.iface = imgp_custom_image_iface_(&run);
		run.net.iface = run.iface;
		rc = imgp_custom_note_(&run, "iface %s: %s", run.iface ? run.iface : "eth0",
				      run.iface ? "the wired interface the image's network configuration names" :
				      "the default; the image names no wired interface");
	}
	if (!rc && run.net_set)
		rc = imgp_custom_rpios_takes_net_(&run);
	if (!rc && run.net_set)
		rc = imgp_custom_armbian_takes_net_(&run);
	if (!rc && run.net_set)
		rc = imgp_custom_plan_network_(&run);
	rc = rc > 0 ? 0 : rc;
	if (!rc && run.way == CUSTOM_WAY_CLOUDINIT)
		rc = imgp_custom_plan_seed_(&run);
	if (!rc && run.way == CUSTOM_WAY_RPIOS)
		rc = imgp_custom_plan_firstrun_(&run);
	if (!rc && run.way == CUSTOM_WAY_ARMBIAN)
		rc = imgp_custom_plan_preset_(&run);
	if (psk) {
		explicit_bzero(psk, strlen(psk));
		free(psk);
	}
	run_free(&run);
	return rc;
}

const char *imgp_custom_explain(const struct imgp_custom *c)
{
	return c->explain.data ? (const char *)c->explain.data : "";
}

const char *imgp_custom_facts(const struct imgp_custom *c)
{
	return c->facts.data ? (const char *)c->facts.data : "";
}
