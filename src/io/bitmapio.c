/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bitmapio.c --- block-bitmap writes that would change nothing, dropped
 *
 * Each barrier of the write order (finish.c) is an ext2fs_flush2(), and
 * when the block bitmap changed at all, ext2fs_write_bitmaps() writes
 * every group's block bitmap block: libext2fs has no per-group write.
 * A run changes the bitmaps of the groups it copies into and releases
 * from, often a few of them; the rest are a sweep of one seek per group
 * at each of the three bitmap barriers (on a 64-group volume 1.3 s of a
 * 6.3 s run on the model disk, docs/PERFORMANCE.md "Tool cost").
 *
 * This io manager sits on top of the channel stack, above libext2fs's
 * undo manager.  Before a write of one whole block bitmap block, it
 * reads the block back through the stack below (from the page cache:
 * ext2fs_read_bitmaps() read it when the volume was opened, or the last
 * barrier wrote it) and passes the write down only if the bytes differ.
 * Nothing else changes: the write would have put on the volume what is
 * there already, so the volume, the undo file (the undo manager never
 * sees the write, so it saves nothing for it) and every barrier's
 * guarantee are as they were.  What is compared is what the volume holds
 * now, not a copy this layer kept: this run has the volume to itself
 * (the exclusive open and the lock), and a read that fails passes the
 * write down.  The cost is one block of memory, and a read per bitmap
 * write that the page cache serves.
 *
 * When the bitmaps are read (ext2fs_read_bitmaps(), at open), it reads
 * the whole undo unit around each block bitmap block instead of the
 * block alone.  Before the first write of a bitmap block, the undo
 * manager reads its unit to save it; what else the unit holds (the
 * inode bitmap and table, a data block or two, reserved descriptor
 * blocks) the run need not read, so each such save would otherwise be
 * a positioning of its own, in a sweep of its own, before the barrier's
 * sweep of writes: tind1k's last release, 26 groups, 180 ms on the
 * model disk.  Read at open, the unit costs its transfer (31 blocks
 * more a group) on a sweep that positions there anyway, and the save
 * finds it in the page cache.  The cost is one unit of memory.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <string.h>

#include "e3metapack.h"

struct bmio {
	io_channel	inner;		/* the undo manager's, or io.c's */
	unsigned int	bs;		/* block size watched; 0: none */
	__u32		n;		/* block bitmap blocks watched */
	blk64_t		*blk;		/* ascending */
	char		*now;		/* one block: what the volume holds */
	__u32		unit, skew;	/* undo unit (blocks), its offset */
	char		*ubuf;		/* one unit, if over a block */
};

/* One run at a time, as io.c's. */
static struct {
	struct e3mp	*mp;
	io_manager	inner;
	io_channel	ch;
} bst;

static struct struct_io_manager bmio_manager;

static struct bmio *B(io_channel ch)
{
	return ch->private_data;
}

static int cmp_blk_at(const void *ctx, __u32 i, blk64_t key)
{
	return mp_cmp_u64(((const blk64_t *) ctx)[i], key);
}

/* A watched block, read alone, at the block size watched. */
static int watched(io_channel ch, unsigned long long blk, int count)
{
	struct bmio *b = B(ch);
	__u32 i;

	return count == 1 && (unsigned int) ch->block_size == b->bs &&
	       mp_bsearch(b->n, blk, cmp_blk_at, b->blk, &i);
}

/*
 * @buf would put on block @blk exactly what the volume holds: a watched
 * block, written whole, whose bytes read back equal @buf's.
 */
static int unchanged(io_channel ch, unsigned long long blk, int count,
		     const void *buf)
{
	struct bmio *b = B(ch);

	if (!watched(ch, blk, count))
		return 0;
	if (io_channel_read_blk64(b->inner, blk, 1, b->now))
		return 0;
	return !memcmp(b->now, buf, b->bs);
}

/*
 * A bitmap block's undo unit, read whole into b->ubuf (the first unit
 * cut at block 0, the last at the volume's end), and the block copied
 * out.  A failure is the run's, as the undo manager's own read of the
 * unit would have been: the run stops before its first write.
 */
static errcode_t unit_read(io_channel ch, unsigned long long blk, void *buf)
{
	struct bmio *b = B(ch);
	blk64_t end = ext2fs_blocks_count(bst.mp->fs->super);
	__u32 count;
	blk64_t first = mp_undo_unit_first(blk, b->unit, b->skew, &count);
	errcode_t err;

	if (first + count > end)
		count = end - first;
	err = io_channel_read_blk64(b->inner, first, count, b->ubuf);
	if (!err)
		memcpy(buf, b->ubuf + (size_t) (blk - first) * b->bs, b->bs);
	return err;
}

static errcode_t bmio_read_blk64(io_channel ch, unsigned long long blk,
				 int count, void *buf)
{
	if (B(ch)->ubuf && watched(ch, blk, count))
		return unit_read(ch, blk, buf);
	return io_channel_read_blk64(B(ch)->inner, blk, count, buf);
}

static errcode_t bmio_read_blk(io_channel ch, unsigned long blk, int count,
			       void *buf)
{
	return bmio_read_blk64(ch, blk, count, buf);
}

static errcode_t bmio_write_blk64(io_channel ch, unsigned long long blk,
				  int count, const void *buf)
{
	if (unchanged(ch, blk, count, buf)) {
		bst.mp->bitmap_writes_dropped++;
		return 0;
	}
	return io_channel_write_blk64(B(ch)->inner, blk, count, buf);
}

static errcode_t bmio_write_blk(io_channel ch, unsigned long blk, int count,
				const void *buf)
{
	return bmio_write_blk64(ch, blk, count, buf);
}

static errcode_t bmio_write_byte(io_channel ch, unsigned long off, int size,
				 const void *buf)
{
	return io_channel_write_byte(B(ch)->inner, off, size, buf);
}

static errcode_t bmio_discard(io_channel ch, unsigned long long blk,
			      unsigned long long n)
{
	return io_channel_discard(B(ch)->inner, blk, n);
}

static errcode_t bmio_zeroout(io_channel ch, unsigned long long blk,
			      unsigned long long n)
{
	return io_channel_zeroout(B(ch)->inner, blk, n);
}

static errcode_t bmio_open(const char *name, int flags, io_channel *ret)
{
	io_channel ch = NULL;
	struct bmio *b = NULL;
	errcode_t err;

	err = ext2fs_get_memzero(sizeof(*ch), &ch);
	if (!err)
		err = ext2fs_get_memzero(sizeof(*b), &b);
	if (!err)
		err = ext2fs_get_mem(strlen(name) + 1, &ch->name);
	if (!err)
		err = bst.inner->open(name, flags, &b->inner);
	if (err) {
		if (ch)
			ext2fs_free_mem(&ch->name);
		ext2fs_free_mem(&b);
		ext2fs_free_mem(&ch);
		return err;
	}
	strcpy(ch->name, name);
	ch->magic = EXT2_ET_MAGIC_IO_CHANNEL;
	ch->manager = &bmio_manager;
	ch->private_data = b;
	ch->block_size = b->inner->block_size;
	ch->refcount = 1;
	/* one buffer, no lock: bitmaps read and written by one thread */
	ch->flags = b->inner->flags & ~CHANNEL_FLAGS_THREADS;
	ch->align = b->inner->align;
	bst.ch = ch;
	*ret = ch;
	return 0;
}

static void watch_free(struct bmio *b)
{
	ext2fs_free_mem(&b->blk);
	ext2fs_free_mem(&b->now);
	ext2fs_free_mem(&b->ubuf);
	b->n = b->bs = b->unit = 0;
}

static errcode_t bmio_close(io_channel ch)
{
	struct bmio *b = B(ch);
	errcode_t err;

	if (--ch->refcount > 0)
		return 0;
	err = io_channel_close(b->inner);
	watch_free(b);
	if (bst.ch == ch)
		bst.ch = NULL;
	ext2fs_free_mem(&ch->name);
	ext2fs_free_mem(&ch->private_data);
	ext2fs_free_mem(&ch);
	return err;
}

static errcode_t bmio_set_blksize(io_channel ch, int bs)
{
	errcode_t err = io_channel_set_blksize(B(ch)->inner, bs);

	if (!err)
		ch->block_size = bs;
	return err;
}

static errcode_t bmio_flush(io_channel ch)
{
	return io_channel_flush(B(ch)->inner);
}

static errcode_t bmio_set_option(io_channel ch, const char *opt,
				 const char *arg)
{
	io_channel in = B(ch)->inner;

	if (!in->manager->set_option)
		return EXT2_ET_INVALID_ARGUMENT;
	return in->manager->set_option(in, opt, arg);
}

static errcode_t bmio_get_stats(io_channel ch, io_stats *stats)
{
	io_channel in = B(ch)->inner;

	return in->manager->get_stats ? in->manager->get_stats(in, stats) : 0;
}

static errcode_t bmio_readahead(io_channel ch, unsigned long long blk,
				unsigned long long n)
{
	return io_channel_cache_readahead(B(ch)->inner, blk, n);
}

static struct struct_io_manager bmio_manager = {
	.magic		= EXT2_ET_MAGIC_IO_MANAGER,
	.name		= "e3metapack bitmap layer",
	.open		= bmio_open,
	.close		= bmio_close,
	.set_blksize	= bmio_set_blksize,
	.read_blk	= bmio_read_blk,
	.write_blk	= bmio_write_blk,
	.flush		= bmio_flush,
	.write_byte	= bmio_write_byte,
	.set_option	= bmio_set_option,
	.get_stats	= bmio_get_stats,
	.read_blk64	= bmio_read_blk64,
	.write_blk64	= bmio_write_blk64,
	.discard	= bmio_discard,
	.zeroout	= bmio_zeroout,
	.cache_readahead = bmio_readahead,
};

/* The manager to open @mp's volume with, on top of @inner. */
io_manager bitmap_layer(struct e3mp *mp, io_manager inner)
{
	memset(&bst, 0, sizeof(bst));
	bst.mp = mp;
	bst.inner = inner;
	return &bmio_manager;
}

/*
 * The undo unit the run will save in, in blocks, and where units start
 * (finish.c sets it before the first write).  A unit no bigger than a
 * block: none to read.
 */
static errcode_t unit_setup(struct e3mp *mp, struct bmio *b)
{
	undo_unit_blocks(mp, mp->undo_path ? undo_unit_size(mp) : 0,
			 &b->unit, &b->skew);
	if (b->unit < 2)
		return 0;
	return ext2fs_get_array(b->unit, mp->fs->blocksize, &b->ubuf);
}

/*
 * Once the volume is open: the block bitmap blocks to compare writes of
 * (those ext2fs_write_bitmaps() writes), and to read with their undo
 * units.  Blocks in no watched list are passed through as they come.
 */
errcode_t bitmap_layer_watch(struct e3mp *mp)
{
	ext2_filsys fs = mp->fs;
	int csum = ext2fs_has_group_desc_csum(fs);
	struct bmio *b;
	errcode_t err;
	dgrp_t g;

	if (!bst.ch || fs->io != bst.ch)
		return 0;
	b = B(bst.ch);
	err = ext2fs_get_array(fs->group_desc_count, sizeof(*b->blk), &b->blk);
	if (!err)
		err = ext2fs_get_mem(fs->blocksize, &b->now);
	if (!err)
		err = unit_setup(mp, b);
	for (g = 0; !err && g < fs->group_desc_count; g++)
		if (!(csum && ext2fs_bg_flags_test(fs, g,
						   EXT2_BG_BLOCK_UNINIT)) &&
		    ext2fs_block_bitmap_loc(fs, g))
			b->blk[b->n++] = ext2fs_block_bitmap_loc(fs, g);
	if (err) {
		watch_free(b);
		return err;
	}
	mp_sort(b->blk, b->n, sizeof(*b->blk), mp_cmp_blk);
	b->bs = fs->blocksize;
	return 0;
}
