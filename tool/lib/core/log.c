// SPDX-License-Identifier: MIT
/* Failure messages and the log hook: the library never prints by itself. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "imgpatch-internal.h"

#define ERRMSG_MAX 2048

static imgp_log_fn log_fn;
static void *log_ctx;
/* Where this thread's warnings go instead of the hook (imgp_log_capture). */
static _Thread_local struct imgp_buf *capture;
/* Thread-local so that parallel batch jobs keep their own reasons. */
static _Thread_local char errmsg[ERRMSG_MAX];
/* The failure is a name the caller gave that none of the choices has. */
static _Thread_local bool errname;

void imgp_log_set_handler(imgp_log_fn fn, void *ctx)
{
	log_fn = fn;
	log_ctx = ctx;
}

void imgp_log_capture(struct imgp_buf *into)
{
	capture = into;
}

void imgp_log(enum imgp_log_level level, const char *fmt, ...)
{
	char msg[ERRMSG_MAX];
	bool captured = capture && level == IMGP_LOG_WARNING;
	va_list ap;

	if (!log_fn && !captured)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* A warning that cannot be kept is lost, as one with no hook is. */
	if (captured)
		imgp_buf_printf(capture, "%s\n", msg);
	else
		log_fn(level, msg, log_ctx);
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

int imgp_fail_name(int err, const char *fmt, ...)
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

void imgp_errclear(void)
{
	errmsg[0] = '\0';
	errname = false;
}
