/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * planner.c --- the planner's working state, looked up: records, data
 * extents and slots by block, runs and classes of records, which blocks
 * may become slots, and which runs sit in place
 *
 * The bottom of the planner: walkorder.c, layout.c, evacuate.c and
 * plan.c build on these and include planner.h; nothing here calls them.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "plan/planner.h"

/* ---- records, extents and slots, looked up by block --------------- */

static int cmp_rec_blk(const void *ctx, __u32 i, blk64_t blk)
{
	const struct planner *pl = ctx;
	blk64_t b = pl->rec[pl->byblk[i]].blk;

	return mp_cmp_u64(b, blk);
}

/* Record index of the indirect block at @blk, or NO_REC. */
__u32 rec_at(const struct planner *pl, blk64_t blk)
{
	__u32 i;

	if (!mp_bsearch(pl->nrec, blk, cmp_rec_blk, pl, &i))
		return NO_REC;
	return pl->byblk[i];
}

static int cmp_ext_blk(const void *ctx, __u32 i, blk64_t blk)
{
	const struct data_ext *e = &((const struct planner *) ctx)->ext[i];

	if (blk < e->start)
		return 1;
	return blk >= e->start + e->len ? -1 : 0;
}

/* The recorded data extent holding @blk, or NULL. */
const struct data_ext *ext_at(const struct planner *pl, blk64_t blk)
{
	__u32 i;

	if (!mp_bsearch(pl->next, blk, cmp_ext_blk, pl, &i))
		return NULL;
	return &pl->ext[i];
}

static int cmp_slot_blk(const void *ctx, __u32 i, blk64_t blk)
{
	blk64_t b = ((const struct mp_plan *) ctx)->slot[i];

	return mp_cmp_u64(b, blk);
}

/* Index of @blk in the slot space, or NO_SLOT. */
__u32 slot_index(const struct mp_plan *p, blk64_t blk)
{
	__u32 i;

	if (!mp_bsearch(p->nslot, blk, cmp_slot_blk, p, &i))
		return NO_SLOT;
	return i;
}

/*
 * Records @a and @b are of one run: the same file, the same home, the
 * same class (so a directory's run is apart from its indirect blocks').
 */
int same_run(const struct planner *pl, __u32 a, __u32 b)
{
	return pl->rec[a].ino == pl->rec[b].ino &&
	       pl->home[a] == pl->home[b] &&
	       rec_class(pl, a) == rec_class(pl, b);
}

/* ---- classes and runs --------------------------------------------- */

__u32 rec_class(const struct planner *pl, __u32 i)
{
	if (mp_rec_in_head(pl->g, &pl->rec[i]))
		return CL_HEAD;
	return (pl->rec[i].flags & REC_DIR) ? CL_DIR : CL_IND;
}

/* Bucket of the processing order: the group, then the class. */
__u32 bucket(const struct planner *pl, __u32 i)
{
	return NCLASS * pl->home[i] + rec_class(pl, i);
}

/* The run starting at order index @i ends before the returned index. */
__u32 run_end(struct planner *pl, __u32 i)
{
	__u32 j = i + 1;

	while (j < pl->norder && same_run(pl, pl->order[j], pl->order[i]))
		j++;
	return j;
}

/*
 * Free blocks and blocks of movable files can be MC slots.  Under data
 * homing, the first data block under an indirect block is its anchor: it
 * decides the block's home, so it never moves (were it evacuated into
 * another group, the home would move with it and the next run would move
 * the indirect block again).  A kept first IND is stepped around like
 * fixed metadata, so it is never evicted.
 */
int slot_eligible(struct planner *pl, blk64_t blk)
{
	const struct data_ext *e;
	__u32 r;

	if (!pl->ops->in_use(pl->priv, blk))
		return 1;
	r = rec_at(pl, blk);
	if (r != NO_REC)
		return !rec_kept(pl, r);
	e = ext_at(pl, blk);
	if (e && pl->homing == E3MP_HOME_DATA && e->nanchor &&
	    e->start == blk)
		return 0;
	return e != NULL;
}

/* ---- slots, and runs in place -------------------------------------- */

/* Slot @s lies in a head zone. */
int slot_in_head(const struct mp_plan *p, __u32 s)
{
	return s < p->tail_first[mp_group_of(&p->g, p->slot[s])];
}

/* Slot @s was added below its group's region (extra[]). */
int slot_added(const struct mp_plan *p, __u32 s)
{
	__u32 grp = mp_group_of(&p->g, p->slot[s]);

	return s >= p->tail_first[grp] && s < p->fill_first[grp];
}

/* The first slot of the region record @r fills in its home group. */
__u32 region_first(const struct planner *pl, __u32 r)
{
	__u32 h = pl->home[r];

	return rec_class(pl, r) == CL_HEAD ? pl->p->mc_first[h] :
	       pl->p->fill_first[h];
}

/*
 * Slot @s is one that extends its group's region downwards over blocks
 * of its directories (zone_extend()): only the record there may keep
 * it; the others never take it, so what this plan leaves there is
 * what the next plan finds.
 */
int slot_below(const struct mp_plan *p, __u32 s)
{
	__u32 grp = mp_group_of(&p->g, p->slot[s]);

	return s >= p->fill_first[grp] && s < p->base_first[grp];
}

/*
 * Slot @s is free and of the zone kind record @r goes to; not one added
 * below a region (only the directories it was added for take those),
 * nor one below it that another record holds.
 */
int slot_fits(const struct planner *pl, __u32 s, __u32 r)
{
	const struct mp_plan *p = pl->p;

	return !pl->owner[s] && !slot_added(p, s) &&
	       slot_in_head(p, s) == (rec_class(pl, r) == CL_HEAD) &&
	       (!slot_below(p, s) || p->slot[s] == pl->rec[r].blk);
}

/* Record @r is a directory block (REC_DIR). */
int is_dir(const struct planner *pl, __u32 r)
{
	return !!(pl->rec[r].flags & REC_DIR);
}

/*
 * The end of the longest prefix of the run from order index @i to @end
 * that sits in slots, ascending, from its home region on: as a plan
 * leaves it.  A run of indirect blocks stays if it is all in place;
 * one only partly so is laid out again, and since the layout is a
 * deterministic fill around what stays, it lands where it is, so a
 * second plan still moves nothing.  A directory's run may be in two
 * such pieces, the second anywhere in the region: as a plan leaves a
 * grown one whose new blocks found no room right after it.
 */
__u32 run_prefix_end(struct planner *pl, __u32 i, __u32 end)
{
	__u32 prev = region_first(pl, pl->order[i]), k;
	int pieces = is_dir(pl, pl->order[i]) ? 2 : 1;

	for (k = i; k < end; k++) {
		__u32 s = slot_index(pl->p, pl->rec[pl->order[k]].blk);

		if (s == NO_SLOT || !slot_fits(pl, s, pl->order[k]))
			break;
		if (s < prev) {
			if (--pieces == 0 ||
			    s < region_first(pl, pl->order[k]))
				break;
		}
		prev = s + 1;
	}
	return k;
}

/* ---- the slot space ------------------------------------------------ */

/* The slot space (layout.c builds it; layout_reset() drops it too). */
void mp_slots_free(struct mp_plan *p)
{
	ext2fs_free_mem(&p->slot);
	ext2fs_free_mem(&p->mc_first);
	ext2fs_free_mem(&p->tail_first);
	ext2fs_free_mem(&p->fill_first);
	ext2fs_free_mem(&p->base_first);
	p->nslot = 0;
}
