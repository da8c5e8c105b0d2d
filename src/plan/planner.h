/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * planner.h --- the planner's working state, shared by plan.c (homes and
 * the slot space), layout.c (each record's slot), walkorder.c and
 * evacuate.c (emptying the slots records go to, and the list of moves).
 * Internal to the planner: nothing outside those files includes it.
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

/* plan.c */
__u32 rec_at(const struct planner *pl, blk64_t blk);
const struct data_ext *ext_at(const struct planner *pl, blk64_t blk);
__u32 slot_index(const struct mp_plan *p, blk64_t blk);
int same_run(const struct planner *pl, __u32 a, __u32 b);
__u32 bucket(const struct planner *pl, __u32 i);
__u32 rec_class(const struct planner *pl, __u32 i);
__u32 run_end(struct planner *pl, __u32 i);
int slot_eligible(struct planner *pl, blk64_t blk);

static inline int rec_moves(const struct ind_rec *r)
{
	return r->dest != r->blk;
}

/* Record @i is kept where it is by the rule: in no run, never a slot. */
static inline int rec_kept(const struct planner *pl, __u32 i)
{
	return mp_rec_kept(pl->homing, &pl->rec[i]);
}

/* layout.c */
errcode_t layout_init(struct planner *pl);
errcode_t layout_slots(struct planner *pl);
void layout_reset(struct planner *pl);
void layout_free(struct planner *pl);
__u32 zone_extend(struct planner *pl, __u32 grp, blk64_t blk,
		  blk64_t first, blk64_t *out, __u32 *below, __u32 *ext);
__u32 head_extend(struct planner *pl, __u32 grp, blk64_t blk, blk64_t end,
		  blk64_t *out);
int slot_in_head(const struct mp_plan *p, __u32 s);
__u32 run_prefix_end(struct planner *pl, __u32 i, __u32 end);
int assign_slots(struct planner *pl);

/* walkorder.c */
errcode_t walk_sort(struct planner *pl, __u32 lo, __u32 hi);
errcode_t walk_decide(struct planner *pl);
int walk_placed(const struct planner *pl, __u32 i);

/* evacuate.c */
void evac_init(struct planner *pl);
void fit_to_space(struct planner *pl, __u64 free_blocks);
errcode_t emit_moves(struct planner *pl);

#endif /* E3MP_PLANNER_H */
