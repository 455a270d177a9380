// SPDX-License-Identifier: MIT
/*
 * A libext2fs I/O manager that writes into a write set instead of the
 * image: reads see the image with the captured writes on top, so libext2fs
 * works exactly as on the real device, and the commit learns every byte it
 * would write before a single one reaches the image. Each channel is
 * told its write set and the partition's offset by the options string
 * ext2fs_open2() passes on (imgp_capture_io_options_()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "imgpatch.h"
#include "fs/fs.h"
#include "fs/io-capture.h"

struct capture_chan {
	struct imgp_writeset *ws; /* set by "writeset=" */
	uint64_t offset;         /* the partition's start, set by "offset=" */
	struct struct_io_stats stats;
};

int imgp_capture_io_options_(char *out, size_t len, struct imgp_writeset *ws,
			    uint64_t offset)
{
	int n = snprintf(out, len, "writeset=%p&offset=%llu", (void *)ws,
			 (unsigned long long)offset);

	return n < 0 || (size_t)n >= len ? imgp_fail(ENAMETOOLONG, "I/O options too long") : 0;
}

static errcode_t errcode_from(int rc)
{
	return rc == -ENOMEM ? EXT2_ET_NO_MEMORY : EXT2_ET_SHORT_READ;
}

static errcode_t capture_open(const char *name, int flags, io_channel *channel)
{
	struct capture_chan *priv;
	io_channel io;

	(void)flags;
	io = calloc(1, sizeof(*io));
	priv = calloc(1, sizeof(*priv));
	if (io)
		io->name = strdup(name);
	if (!io || !priv || !io->name) {
		if (io)
			free(io->name);
		free(io);
		free(priv);
		return EXT2_ET_NO_MEMORY;
	}
	io->magic = EXT2_ET_MAGIC_IO_CHANNEL;
	io->manager = imgp_capture_io_manager_;
	io->block_size = 1024;
	io->refcount = 1;
	io->private_data = priv;
	*channel = io;
	return 0;
}

static errcode_t capture_close(io_channel channel)
{
	if (--channel->refcount > 0)
		return 0;
	free(channel->private_data);
	free(channel->name);
	free(channel);
	return 0;
}

static errcode_t capture_set_blksize(io_channel channel, int blksize)
{
	channel->block_size = blksize;
	return 0;
}

/* libext2fs: a negative count is a byte count, else a block count. */
static size_t span(io_channel channel, int count)
{
	return count < 0 ? (size_t)-count : (size_t)count * (size_t)channel->block_size;
}

static errcode_t capture_read_blk64(io_channel channel, unsigned long long block,
				    int count, void *data)
{
	struct capture_chan *priv = channel->private_data;
	size_t len = span(channel, count);
	int rc;

	if (!priv->ws)
		return EXT2_ET_BAD_DEVICE_NAME;
	rc = imgp_writeset_read_(priv->ws, priv->offset + block * (uint64_t)channel->block_size,
				data, len);
	if (rc)
		return errcode_from(rc);
	priv->stats.bytes_read += len;
	return 0;
}

static errcode_t capture_read_blk(io_channel channel, unsigned long block,
				  int count, void *data)
{
	return capture_read_blk64(channel, block, count, data);
}

static errcode_t capture_write_blk64(io_channel channel, unsigned long long block,
				     int count, const void *data)
{
	struct capture_chan *priv = channel->private_data;
	size_t len = span(channel, count);
	int rc;

	if (!priv->ws)
		return EXT2_ET_BAD_DEVICE_NAME;
	rc = imgp_writeset_write_(priv->ws, priv->offset + block * (uint64_t)channel->block_size,
				 data, len);
	if (rc)
		return errcode_from(rc);
	priv->stats.bytes_written += len;
	return 0;
}

static errcode_t capture_write_blk(io_channel channel, unsigned long block,
				   int count, const void *data)
{
	return capture_write_blk64(channel, block, count, data);
}

static errcode_t capture_write_byte(io_channel channel, unsigned long offset,
				    int count, const void *data)
{
	struct capture_chan *priv = channel->private_data;

	if (count < 0)
		return EXT2_ET_INVALID_ARGUMENT;
	if (!priv->ws)
		return EXT2_ET_BAD_DEVICE_NAME;
	return imgp_writeset_write_(priv->ws, priv->offset + offset, data,
				   (size_t)count) ? EXT2_ET_SHORT_WRITE : 0;
}

static errcode_t capture_flush(io_channel channel)
{
	(void)channel;
	return 0;
}

static errcode_t capture_set_option(io_channel channel, const char *option,
				    const char *arg)
{
	struct capture_chan *priv = channel->private_data;
	char *end;
	void *ws;
	int used = -1;

	if (!arg)
		return EXT2_ET_INVALID_ARGUMENT;
	/* The write set travels in the options string: the open sees no other argument. */
	if (strcmp(option, "writeset") == 0) {
		if (sscanf(arg, "%p%n", &ws, &used) != 1 || used < 0 || arg[used] || !ws)
			return EXT2_ET_INVALID_ARGUMENT;
		priv->ws = ws;
		return 0;
	}
	if (strcmp(option, "offset") != 0)
		return EXT2_ET_INVALID_ARGUMENT;
	priv->offset = strtoull(arg, &end, 0);
	return *end ? EXT2_ET_INVALID_ARGUMENT : 0;
}

static errcode_t capture_get_stats(io_channel channel, io_stats *stats)
{
	struct capture_chan *priv = channel->private_data;

	*stats = &priv->stats;
	return 0;
}

/* Discard and zero-out become plain writes of zeroes: nothing is skipped. */
static errcode_t capture_zeroout(io_channel channel, unsigned long long block,
				 unsigned long long count)
{
	static const uint8_t zero[4096];
	size_t bs = (size_t)channel->block_size;

	if (bs > sizeof(zero))
		return EXT2_ET_UNIMPLEMENTED;
	for (unsigned long long i = 0; i < count; i++) {
		errcode_t err = capture_write_blk64(channel, block + i, 1, zero);

		if (err)
			return err;
	}
	return 0;
}

static errcode_t capture_discard(io_channel channel, unsigned long long block,
				 unsigned long long count)
{
	(void)channel;
	(void)block;
	(void)count;
	/* A discard promises nothing about the data: leave the blocks as they are. */
	return 0;
}

static struct struct_io_manager capture_manager = {
	.magic = EXT2_ET_MAGIC_IO_MANAGER,
	.name = "imgpatch capture I/O manager",
	.open = capture_open,
	.close = capture_close,
	.set_blksize = capture_set_blksize,
	.read_blk = capture_read_blk,
	.write_blk = capture_write_blk,
	.flush = capture_flush,
	.write_byte = capture_write_byte,
	.set_option = capture_set_option,
	.get_stats = capture_get_stats,
	.read_blk64 = capture_read_blk64,
	.write_blk64 = capture_write_blk64,
	.discard = capture_discard,
	.zeroout = capture_zeroout,
};

io_manager imgp_capture_io_manager_ = &capture_manager;
