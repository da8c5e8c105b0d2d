/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * plan.h --- the layout planner's interface: pure logic, no I/O
 *
 * The planner sees the volume only through struct mp_geom (numbers,
 * core/geom.h) and struct mp_space_ops (a block map it may query and
 * reserve in), so the unit tests can drive it with synthetic layouts.
 * It places the records of core/records.h and returns struct mp_plan:
 * the moves of two rounds and the figures of the report.  Its files are
 * internal (planner.h); planfeed.c feeds it from the volume.
 */
#ifndef E3MP_PLAN_H
#define E3MP_PLAN_H

#include <ext2fs/ext2fs.h>

#include "core/geom.h"
#include "core/records.h"
#include "lib/array.h"

/*
 * The planner's view of the block bitmap.  in_use() answers for the
 * volume as it is on disk; find_free() and take() work on a private
 * copy in which the planner reserves the blocks it hands out.
 */
struct mp_space_ops {
	int	(*in_use)(void *priv, blk64_t blk);
	int	(*find_free)(void *priv, blk64_t start, blk64_t end,
			     blk64_t *out);
	void	(*take)(void *priv, blk64_t blk);
};

/*
 * The plan's counts of indirect blocks, before and after; what e2fsck's
 * pass 1 makes of them is the model's (model/model.h).
 */
struct mp_figures {
	__u64	in_mc;		/* indirect blocks inside their metacluster */
	__u64	groups;		/* groups holding indirect blocks */
};

struct mp_plan {
	struct mp_geom	g;
	enum e3mp_homing homing;
	blk64_t		*slot;		/* all metacluster blocks, ascending */
	__u32		nslot;
	__u32		*mc_first;	/* group -> first index in slot[] */
	__u32		*tail_first;	/* group -> first of its tail zone */
	/*
	 * group -> first slot its tail records fill from: after the slots
	 * layout.c added below the region for directories that found no
	 * free stretch long enough in it (none: tail_first).
	 */
	__u32		*fill_first;
	/*
	 * group -> first slot of its region proper: those from fill_first
	 * on before it extend the region over blocks of its directories
	 * below it (layout.c), each kept only by the block there.
	 */
	__u32		*base_first;
	struct mp_move	*mv[2];		/* round 1, round 2 */
	__u32		nmv[2];
	/* figures for the report */
	__u64		mc_groups;	/* groups with a non-empty MC */
	__u64		ind_moved;	/* indirect blocks into an MC */
	__u64		data_evacuated;
	__u64		temp_moves;
	__u64		unclustered;	/* indirect blocks left outside */
	__u64		no_space;	/* ... of which for want of space */
	__u64		kept_inline;	/* first INDs the inline rule keeps */
	struct mp_figures before, after;
	/* directory blocks (REC_DIR records), under --dirs other than leave */
	__u64		dir_blocks;	/* recorded */
	__u64		dir_moved;	/* into their region */
	__u64		dir_no_space;	/* ... left, no free space */
	__u64		dir_before;	/* in their region before */
	__u64		dir_after;	/* ... and after it */
};

errcode_t mp_plan_build(struct mp_plan *p, const struct mp_geom *g,
			enum e3mp_homing homing, struct ind_rec *rec,
			__u32 nrec, struct data_ext *ext, __u32 next,
			const struct mp_space_ops *ops, void *priv);
void mp_plan_free(struct mp_plan *p);
void mp_slots_free(struct mp_plan *p);

#endif /* E3MP_PLAN_H */
