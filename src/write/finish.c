/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * finish.c --- the steps of the write order, and closing the volume
 *
 * main.c's repack() runs them in the write order of core/order.c (each
 * barrier a write_barrier() of its own, after transaction_begin() and
 * transaction_end() too):
 *
 *   transaction_begin   mark not clean                       barrier
 *   per round (at most two):
 *     blocks_reserve    destinations marked in use
 *     blocks_copy       (move.c) sources copied to them        barrier
 *     pointers_rewrite  (fixptr.c) files point at the copies   barrier
 *     blocks_release    sources marked free, counts fixed      barrier
 *   transaction_end     mark clean                           barrier
 *
 * (round 1's release has no barrier of its own when round 2 follows:
 * round 2's reserve + copy barrier writes it out.)
 *
 * The invariant: at every instant, every file's pointers lead to blocks
 * holding its data, and no block that anything on disk refers to is
 * overwritten.  It holds because each round goes
 *
 *   1. reserve + copy: destinations marked in use in the bitmaps, and
 *      the sources copied to them (blocks nothing on disk refers to);
 *                                                              flush
 *   2. switch:  pointers rewritten to the copies;              flush
 *   3. release: sources marked free, counts fixed;             flush
 *
 * and the volume is marked not clean (flush) before the first round and
 * clean after the last.  Every flush is one durable barrier: nothing of
 * the next step is written before the whole of the previous one is on
 * stable storage.  An interruption inside a round leaves either blocks
 * marked in use that nothing refers to, or free blocks holding copies
 * nothing refers to (before 2), or, mid-switch, files some of whose
 * pointers lead to the old copy and some to the new: both hold the same
 * bytes.  e2fsck -fy, which the not-clean mark forces, repairs the
 * bitmaps and loses nothing.  Round 2 only starts once round 1 has
 * released the slots it fills, in memory; on disk the release goes out
 * with round 2's reservations and copies, one barrier for both.  That is
 * safe because the release is only of blocks nothing on disk has
 * referred to since round 1's switch barrier: whichever part of that
 * barrier reaches the disk, a block round 2 copies into was either
 * unreferenced already or is still marked in use, and the not-clean
 * mark is on disk.  The clean mark never shares a barrier with a
 * release: a bitmap half written under a clean mark would not be
 * checked.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "e3metapack.h"
#include "gate/dircheck.h"

/*
 * One barrier (write_barrier()).  ext2fs_flush2() writes the bitmaps,
 * the descriptors and the superblocks; left to itself it also syncs
 * twice (before and after the primary superblock), an order this tool
 * does not need inside a step.  io_channel_flush() then syncs once: the
 * undo file first, then the volume (io.c).  A step that changed neither
 * the superblock, the descriptors nor a bitmap (the pointer switch)
 * skips ext2fs_flush2(): it would write what the volume holds (bar the
 * superblock's write time), a positioning at the volume's start each.
 */
errcode_t write_barrier(struct e3mp *mp)
{
	ext2_filsys fs = mp->fs;
	errcode_t err = 0;

	if (fs->flags & (EXT2_FLAG_DIRTY | EXT2_FLAG_BB_DIRTY |
			 EXT2_FLAG_IB_DIRTY))
		err = ext2fs_flush2(fs, EXT2_FLAG_FLUSH_NO_SYNC);
	if (!err)
		err = io_channel_flush(fs->io);
	return io_checked(mp, err);
}

/*
 * The undo unit (undo.c's undo_unit_size(), as undo_space_check() found
 * it) must be set before the first write; an undo file being continued
 * keeps its own, whatever is set.
 */
static errcode_t undo_unit(struct e3mp *mp)
{
	char opt[32];

	if (!mp->undo_path || mp->undo_unit <= mp->fs->blocksize)
		return 0;
	snprintf(opt, sizeof(opt), "tdb_data_size=%u", mp->undo_unit);
	return io_channel_set_options(mp->fs->io, opt);
}

/*
 * ext2fs_flush() writes the superblock with the channel's block size set
 * to 1024.  If that write is the first to its undo unit, the undo
 * manager records it in 1024-byte units and its header says so until
 * the next unit it saves: on a volume with bigger blocks, an e2undo at
 * that instant would put every saved block back at the wrong place.
 * Rewriting the superblock's block unchanged first, at the volume's block
 * size, has it saved the right way.  This works around libext2fs 1.47's
 * undo_io.c, which takes the unit size from the channel's block size at
 * the first save (undo_set_blksize()); upstream would need to fix the
 * undo unit at the filesystem's block size (or tdb_data_size) whatever
 * block size a later write uses.
 */
static errcode_t super_block_save(struct e3mp *mp)
{
	ext2_filsys fs = mp->fs;
	blk64_t blk = fs->blocksize == SUPERBLOCK_OFFSET ? 1 : 0;
	char *buf;
	errcode_t err;

	err = ext2fs_get_mem(fs->blocksize, &buf);
	if (err)
		return err;
	err = io_channel_read_blk64(fs->io, blk, 1, buf);
	if (!err)
		err = io_channel_write_blk64(fs->io, blk, 1, buf);
	ext2fs_free_mem(&buf);
	return io_checked(mp, err);
}

errcode_t transaction_begin(struct e3mp *mp)
{
	errcode_t err = undo_unit(mp);

	if (err)
		return err;
	writeback_open(mp);
	mp->writes_started = 1;
	err = super_block_save(mp);
	if (err)
		return err;
	mp->fs->super->s_state &= ~EXT2_VALID_FS;
	ext2fs_mark_super_dirty(mp->fs);
	return 0;
}

/* Step 1's bitmap half, with the checks that make the copies safe. */
errcode_t blocks_reserve(struct e3mp *mp, const struct mp_move *mv, __u32 n)
{
	ext2_filsys fs = mp->fs;
	__u32 i;

	for (i = 0; i < n; i++) {
		mp->err_blk = mv[i].from;
		if (!ext2fs_test_block_bitmap2(fs->block_map, mv[i].from))
			return E3MP_SOURCE_FREE;
		mp->err_blk = mv[i].to;
		if (mv[i].to < fs->super->s_first_data_block ||
		    mv[i].to >= ext2fs_blocks_count(fs->super) ||
		    ext2fs_test_block_bitmap2(fs->block_map, mv[i].to))
			return E3MP_DEST_IN_USE;
		ext2fs_block_alloc_stats2(fs, mv[i].to, +1);
	}
	return 0;
}

/* Step 3, in memory: the next write_barrier() writes it out. */
void blocks_release(struct e3mp *mp, const struct mp_move *mv, __u32 n)
{
	__u32 i;

	for (i = 0; i < n; i++)
		ext2fs_block_alloc_stats2(mp->fs, mv[i].from, -1);
}

errcode_t transaction_end(struct e3mp *mp)
{
	mp->fs->super->s_state |= EXT2_VALID_FS;
	ext2fs_mark_super_dirty(mp->fs);
	return 0;
}

/*
 * After a failure nothing more is written: the volume is consistent as it
 * is (see above), and a write that failed once may fail again halfway.
 * Otherwise flush what is left, and report what the flush and closing
 * the channels say (ext2fs_close() ignores the latter).
 */
errcode_t volume_close(struct e3mp *mp, int failed)
{
	ext2_filsys fs = mp->fs;
	errcode_t err = 0, err2;

	writeback_close(mp);
	if (mp->seen)
		ext2fs_free_block_bitmap(mp->seen);
	mp->seen = NULL;
	if (mp->dirblk[0])
		ext2fs_free_block_bitmap(mp->dirblk[0]);
	if (mp->dirblk[1])
		ext2fs_free_block_bitmap(mp->dirblk[1]);
	if (mp->eablk)
		ext2fs_free_block_bitmap(mp->eablk);
	mp->dirblk[0] = mp->dirblk[1] = mp->eablk = NULL;
	mp_plan_free(&mp->plan);
	ext2fs_free_mem(&mp->rec);
	mp_model_free(&mp->model);
	ext2fs_free_mem(&mp->walk_ino);
	ext2fs_free_mem(&mp->walk_rank);
	dirnote_free(mp);
	mp->geom.nwalk = 0;
	ext2fs_free_mem(&mp->ext);
	ext2fs_free_mem(&mp->slink);
	if (!fs)
		return 0;
	if (!failed && (fs->flags & EXT2_FLAG_RW) &&
	    (fs->flags & EXT2_FLAG_DIRTY))
		err = ext2fs_flush2(fs, 0);
	fs->flags &= ~EXT2_FLAG_DIRTY;
	if (fs->io) {
		err2 = io_channel_close(fs->io);
		if (!err)
			err = err2;
	}
	fs->io = fs->image_io = NULL;
	ext2fs_free(fs);
	mp->fs = NULL;
	return io_checked(mp, err);
}
