/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * geom.h --- a volume's groups as the scan and the plan see them: tail
 * zones (metaclusters) and head zones, and which group a record is homed
 * in (geom.c)
 */
#ifndef E3MP_GEOM_H
#define E3MP_GEOM_H

#include <ext2fs/ext2fs.h>

#include "core/records.h"

struct mp_geom {
	blk64_t		first_data_block;
	blk64_t		blocks_count;
	__u32		blocks_per_group;
	__u32		inodes_per_group;
	__u32		group_count;
	blk64_t		free_blocks;	/* free in the block bitmap */
	unsigned int	mc_max_pct;	/* tail zone: this % of a group */
	unsigned int	mc_span;	/* groups whose MCs share a tail */
	__u32		addr_per_block;	/* block numbers in a block */
	enum e3mp_order	order;		/* of the blocks of a run */
	enum e3mp_dirs	dirs;		/* where REC_DIR records go */
	__u32		head_meta;	/* fixed metadata at a group's start */
	/*
	 * Directories in a tree walk's order (dirwalk.c): walk_rank[i] is
	 * the rank of directory walk_ino[i] (ascending), WALK_NONE if no
	 * walk reaches it.  A group's directories are laid out in rank
	 * order; none (nwalk 0): in inode order.
	 */
	const __u32	*walk_ino;
	const __u32	*walk_rank;
	__u32		nwalk;
};

blk64_t mp_group_first(const struct mp_geom *g, __u32 grp);
blk64_t mp_group_last(const struct mp_geom *g, __u32 grp);
__u32 mp_group_of(const struct mp_geom *g, blk64_t blk);
blk64_t mp_zone_first(const struct mp_geom *g, __u32 grp);
blk64_t mp_head_end(const struct mp_geom *g, __u32 grp);
int mp_in_zone(const struct mp_geom *g, blk64_t blk);
__u32 mp_home(const struct mp_geom *g, enum e3mp_homing h,
	      const struct ind_rec *r);
int mp_rec_kept(enum e3mp_homing h, const struct ind_rec *r);
int mp_rec_in_head(const struct mp_geom *g, const struct ind_rec *r);

#endif /* E3MP_GEOM_H */
