/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * planfeed.c --- feed the pure planner (plan.c) from the real volume
 *
 * The planner knows no libext2fs: it gets the geometry, the indirect
 * blocks and data zones the scan recorded, and callbacks that answer
 * "in use?" and "a free block, please".  Geometry comes from the
 * superblock; "in use" is the on-disk block
 * bitmap, which the planner never changes; destinations are reserved in
 * a private copy of it.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "e3metapack.h"

/*
 * The most blocks any group's own metadata takes at its start (backup
 * superblock, descriptors, bitmaps, inode table): the head zone, where
 * --dirs=roots and volume put directory blocks, begins after it.  An inode table
 * outside its group (flex_bg) does not count.
 */
static __u32 head_meta(ext2_filsys fs)
{
	__u32 grp, most = 0;

	for (grp = 0; grp < fs->group_desc_count; grp++) {
		blk64_t first = ext2fs_group_first_block2(fs, grp);
		blk64_t it = ext2fs_inode_table_loc(fs, grp);
		blk64_t end = it + fs->inode_blocks_per_group;

		if (it >= first && end <= ext2fs_group_last_block2(fs, grp) &&
		    end - first > most)
			most = end - first;
	}
	return most;
}

void planfeed_geometry(struct e3mp *mp)
{
	struct ext2_super_block *sb = mp->fs->super;

	mp->geom.first_data_block = sb->s_first_data_block;
	mp->geom.blocks_count = ext2fs_blocks_count(sb);
	mp->geom.blocks_per_group = sb->s_blocks_per_group;
	mp->geom.inodes_per_group = sb->s_inodes_per_group;
	mp->geom.group_count = mp->fs->group_desc_count;
	mp->geom.mc_max_pct = mp->opt.mc_max_pct;
	mp->geom.mc_span = mp->opt.mc_span;
	mp->geom.addr_per_block = mp->fs->blocksize / sizeof(__u32);
	mp->geom.order = mp->opt.order;
	mp->geom.dirs = mp->opt.dirs;
	mp->geom.head_meta = head_meta(mp->fs);
}

struct space {
	ext2_filsys		fs;
	ext2fs_block_bitmap	work;
};

static int sp_in_use(void *priv, blk64_t blk)
{
	struct space *sp = priv;

	return ext2fs_fast_test_block_bitmap2(sp->fs->block_map, blk);
}

static int sp_find_free(void *priv, blk64_t start, blk64_t end,
			blk64_t *out)
{
	struct space *sp = priv;

	return ext2fs_find_first_zero_block_bitmap2(sp->work, start, end,
						    out) != 0;
}

static void sp_take(void *priv, blk64_t blk)
{
	struct space *sp = priv;

	ext2fs_fast_mark_block_bitmap2(sp->work, blk);
}

static const struct mp_space_ops space_ops = {
	.in_use = sp_in_use,
	.find_free = sp_find_free,
	.take = sp_take,
};

/* Free blocks by the bitmap itself; the summary counts may be stale. */
static blk64_t count_free(ext2_filsys fs)
{
	blk64_t start = fs->super->s_first_data_block, zero, set, n = 0;
	blk64_t end = ext2fs_blocks_count(fs->super) - 1;

	while (start <= end &&
	       !ext2fs_find_first_zero_block_bitmap2(fs->block_map, start,
						     end, &zero)) {
		if (ext2fs_find_first_set_block_bitmap2(fs->block_map, zero,
							end, &set))
			set = end + 1;
		n += set - zero;
		start = set;
	}
	return n;
}

/*
 * The plan for @rec (the volume's records, or a copy) with directory
 * layout @dirs and metacluster span @span into @p: the block bitmap
 * copied, never changed.
 */
errcode_t planfeed_plan_as(struct e3mp *mp, enum e3mp_dirs dirs,
			   unsigned int span, struct ind_rec *rec,
			   struct mp_plan *p)
{
	struct space sp = { .fs = mp->fs };
	struct mp_geom g = mp->geom;
	errcode_t err;

	g.free_blocks = count_free(mp->fs);
	g.dirs = dirs;
	g.mc_span = span;
	err = ext2fs_copy_bitmap(mp->fs->block_map, &sp.work);
	if (err)
		return err;
	err = mp_plan_build(p, &g, mp->opt.homing, rec, mp->nrec, mp->ext,
			    mp->next, &space_ops, &sp);
	ext2fs_free_block_bitmap(sp.work);
	return err;
}

errcode_t planfeed_plan(struct e3mp *mp)
{
	mp->geom.free_blocks = count_free(mp->fs);
	return planfeed_plan_as(mp, mp->opt.dirs, mp->opt.mc_span, mp->rec,
				&mp->plan);
}
