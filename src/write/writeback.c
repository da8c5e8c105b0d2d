/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * writeback.c --- start writing the copies out while the next ones are made
 *
 * The kernel holds what the tool writes in the page cache until a flush
 * (finish.c) syncs it, and on an idle system it starts no writeback of
 * its own before that, so each flush used to wait for the whole step's
 * writes, and the undo file's were all written when libext2fs synced it
 * on close.  After each chunk of copies, ask the kernel to start writing
 * out what is dirty in the undo file and in the device (in that order),
 * without waiting: the disk then works while the undo manager and the
 * next chunk keep the CPU busy, and the syncs find little left to do.
 *
 * This only moves writes earlier; it neither orders them nor makes
 * anything durable, so the flushes stay the barriers.  Everything here
 * is advisory: a descriptor that cannot be opened, or a kernel without
 * sync_file_range(), leaves the tool as it was.
 */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <fcntl.h>
#include <unistd.h>

#include "e3metapack.h"
#include "core/iosizes.h"

static int open_ro(const char *path)
{
	return path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
}

void writeback_open(struct e3mp *mp)
{
	if (mp->wb_open)
		return;
	mp->wb_fd[0] = open_ro(mp->undo_path);
	mp->wb_fd[1] = open_ro(mp->device);
	mp->wb_open = 1;
}

/* Blocks to write between two kicks. */
__u32 writeback_chunk(struct e3mp *mp)
{
	__u32 n = MP_WRITEBACK_CHUNK_BYTES / mp->fs->blocksize;

	return n ? n : 1;
}

void writeback_kick(struct e3mp *mp)
{
#ifdef SYNC_FILE_RANGE_WRITE
	int i;

	for (i = 0; mp->wb_open && i < 2; i++)
		if (mp->wb_fd[i] >= 0)
			(void) sync_file_range(mp->wb_fd[i], 0, 0,
					       SYNC_FILE_RANGE_WRITE);
#else
	(void) mp;
#endif
}

void writeback_close(struct e3mp *mp)
{
	int i;

	for (i = 0; mp->wb_open && i < 2; i++)
		if (mp->wb_fd[i] >= 0)
			close(mp->wb_fd[i]);
	mp->wb_open = 0;
}
