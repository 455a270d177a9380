// SPDX-License-Identifier: MIT
/* Failure messages and the log: the library never prints by itself. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "imgpatch.h"
#include "core/core.h"

#define ERRMSG_MAX 2048

/* Per call, like errno: thread-local so that parallel jobs keep their own reasons. */
static _Thread_local char errmsg[ERRMSG_MAX];
/* The failure is a name the caller gave that none of the choices has. */
static _Thread_local bool errname;

void imgp_log_(struct imgp_ctx *ctx, enum imgp_log_level level, const char *fmt, ...)
{
	char msg[ERRMSG_MAX];
	va_list ap;

	if (!ctx || !ctx->log)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ctx->log(level, msg, ctx->log_data);
}

void imgp_warn_into_(struct imgp_buf *into, const char *fmt, ...)
{
	char msg[ERRMSG_MAX];
	va_list ap;

	if (!into)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	imgp_buf_printf(into, "%s\n", msg);
}

void imgp_warn_lines_(struct imgp_ctx *ctx, const char *lines)
{
	while (lines && *lines) {
		const char *end = strchr(lines, '\n');

		if (!end)
			end = lines + strlen(lines);
		imgp_warn(ctx, "%.*s", (int)(end - lines), lines);
		lines = *end ? end + 1 : end;
	}
}

int imgp_fail(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(errmsg, sizeof(errmsg), fmt, ap);
	va_end(ap);
	errname = false;
	return -err;
}

int imgp_fail_name_(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(errmsg, sizeof(errmsg), fmt, ap);
	va_end(ap);
	errname = true;
	return -err;
}

bool imgp_err_is_name(void)
{
	return errname;
}

int imgp_fail_ctx(int rc, const char *fmt, ...)
{
	char old[ERRMSG_MAX];
	size_t n;
	va_list ap;

	if (errmsg[0])
		memcpy(old, errmsg, sizeof(old));
	else
		snprintf(old, sizeof(old), "%s", strerror(rc < 0 ? -rc : rc));
	va_start(ap, fmt);
	vsnprintf(errmsg, sizeof(errmsg), fmt, ap);
	va_end(ap);
	/* Messages longer than the buffer are cut, never overflowed. */
	n = strlen(errmsg);
	if (n + 2 < sizeof(errmsg)) {
		size_t olen = strlen(old);

		memcpy(errmsg + n, ": ", 2);
		n += 2;
		if (olen > sizeof(errmsg) - n - 1)
			olen = sizeof(errmsg) - n - 1;
		memcpy(errmsg + n, old, olen);
		errmsg[n + olen] = '\0';
	}
	return rc;
}

const char *imgp_errmsg(void)
{
	return errmsg;
}

void imgp_errclear_(void)
{
	errmsg[0] = '\0';
	errname = false;
}
