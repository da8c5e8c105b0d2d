/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * planner.h --- the planner's working state and its lookups (planner.c)
 *
 * The planner's files, bottom up: planner.c (this state, looked up),
 * walkorder.c (directories in a tree walk's order), layout.c (each
 * record's slot), evacuate.c (emptying the slots, the list of moves),
 * plan.c (homes, the slot space, and the calls of the others in order).
 * Each includes only the headers of those below it.  Internal to the
 * planner: nothing outside plan/ includes it.
 */
#ifndef E3MP_PLANNER_H
#define E3MP_PLANNER_H

#include "plan/plan.h"

/* Index results: not a slot / not a record. */
#define NO_SLOT		((__u32) -1)
#define NO_REC		((__u32) -1)

/* The round a record's own move belongs to (pl->rnd[]). */
#define RND_1		1
#define RND_2		2
#define RND_PARK	4	/* parked in round 1, placed in round 2 */
#define RND_OUT		8	/* unplaced, evacuated from a slot */

/* Working state of one mp_plan_build() call. */
struct planner {
	struct mp_plan		*p;
	const struct mp_geom	*g;
	struct ind_rec		*rec;
	__u32			nrec;
	struct data_ext		*ext;		/* sorted by start */
	__u32			next;
	const struct mp_space_ops *ops;
	void			*priv;
	__u32			*order;		/* record indices, home order */
	__u32			norder;		/* records to place: not kept */
	__u32			*home;		/* per record */
	__u32			*byblk;		/* record indices, by blk */
	__u32			*owner;		/* slot -> record + 1, or 0 */
	__u8			*rnd;		/* per record: RND_* */
	__u32			*cursor;	/* per group evacuation hint */
	__u32			*next_live;	/* skips exhausted groups */
	__u8			*fresh;		/* order index: laid out afresh */
	enum e3mp_homing	homing;
	/* layout.c */
	__u32			*skip;		/* slot -> none free before */
	__u32			*extra;		/* group -> slots to add below */
	__u32			*ext_next;	/* group -> last of those taken */
	__u32			*pos;		/* record -> its order index */
	__u32			ndir;		/* directory blocks recorded */
	int			extended;	/* extra[] is in the geometry */
};

/*
 * Record classes, in a group's processing order: directory blocks bound
 * for the head zone, indirect blocks, directory blocks for the tail.
 */
#define CL_HEAD		0
#define CL_IND		1
#define CL_DIR		2

/* How many record classes (CL_*) a group has. */
#define NCLASS		3

/* planner.c: lookups by block */
__u32 rec_at(const struct planner *pl, blk64_t blk);
const struct data_ext *ext_at(const struct planner *pl, blk64_t blk);
__u32 slot_index(const struct mp_plan *p, blk64_t blk);

/* planner.c: classes and runs */
__u32 rec_class(const struct planner *pl, __u32 i);
__u32 bucket(const struct planner *pl, __u32 i);
int same_run(const struct planner *pl, __u32 a, __u32 b);
__u32 run_end(struct planner *pl, __u32 i);
int slot_eligible(struct planner *pl, blk64_t blk);

/* planner.c: slots, and runs in place */
int slot_in_head(const struct mp_plan *p, __u32 s);
int slot_added(const struct mp_plan *p, __u32 s);
int slot_below(const struct mp_plan *p, __u32 s);
__u32 region_first(const struct planner *pl, __u32 r);
int slot_fits(const struct planner *pl, __u32 s, __u32 r);
int is_dir(const struct planner *pl, __u32 r);
__u32 run_prefix_end(struct planner *pl, __u32 i, __u32 end);

static inline int rec_moves(const struct ind_rec *r)
{
	return r->dest != r->blk;
}

/* Record @i is kept where it is by the rule: in no run, never a slot. */
static inline int rec_kept(const struct planner *pl, __u32 i)
{
	return mp_rec_kept(pl->homing, &pl->rec[i]);
}

/* Record @i of the processing order is laid out afresh (walk_decide). */
static inline int walk_placed(const struct planner *pl, __u32 i)
{
	return pl->fresh && pl->fresh[i];
}

#endif /* E3MP_PLANNER_H */
