// SPDX-License-Identifier: MIT
/* A run's context: the hooks and the interrupt flag its handles report to. */
#include <errno.h>
#include <stdlib.h>

#include "imgpatch.h"
#include "core/core.h"

int imgp_ctx_new(struct imgp_ctx **ctx)
{
	*ctx = calloc(1, sizeof(**ctx));
	return *ctx ? 0 : imgp_fail(ENOMEM, "out of memory");
}

void imgp_ctx_free(struct imgp_ctx *ctx)
{
	free(ctx);
}

void imgp_ctx_set_log(struct imgp_ctx *ctx, imgp_log_fn fn, void *data)
{
	ctx->log = fn;
	ctx->log_data = data;
}

void imgp_ctx_set_progress(struct imgp_ctx *ctx, imgp_progress_fn fn, void *data)
{
	ctx->progress = fn;
	ctx->progress_data = data;
}

void imgp_ctx_set_interrupt(struct imgp_ctx *ctx, const volatile sig_atomic_t *flag)
{
	ctx->interrupt = flag;
}

void imgp_ctx_set_names(struct imgp_ctx *ctx, imgp_names_fn fn, void *data)
{
	ctx->names = fn;
	ctx->names_data = data;
}

void imgp_ctx_name_(struct imgp_ctx *ctx, const char *copy, const char *name)
{
	if (ctx && ctx->names)
		ctx->names(copy, name, ctx->names_data);
}
