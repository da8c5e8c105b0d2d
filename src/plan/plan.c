/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * plan.c --- where every indirect block belongs, and what must move
 *
 * The metacluster (MC) of group g is the last size[g] eligible blocks of
 * g's tail zone (the last mc_max_pct percent of the group).  A block is
 * eligible when it is free or belongs to a movable file; anything else
 * in the zone (bitmaps, inode tables, backup superblocks, journal data,
 * extent-mapped files, bad blocks) is fixed and stepped around.  Laid end
 * to end in group order, the MCs form one "slot space" (p->slot[]).
 *
 * size[g] is the number of indirect blocks homed in g plus what the
 * previous group could not take (carry), capped by the zone.  Runs
 * already laid out so stay put; the others fill the free slots in
 * processing order (a file's blocks in pre-order, files in inode order;
 * under data homing by home group first) from their home MC on.  Since
 * nothing that stays is ever displaced, a second plan over the result
 * moves nothing, and after new writes only what is new moves.
 *
 * Under the inline rule a file's first IND block (the one i_block[12]
 * points to) is kept: it is in no run, creates no demand and is never a
 * slot, so it stays wherever it is and nothing evicts it; the file's
 * other indirect blocks are homed as under inode homing.
 *
 * Under --dirs=pack the data blocks of block-mapped directories are
 * records too (REC_DIR): each directory is one run, homed with its inode
 * under every rule, placed after its group's indirect-block runs; the
 * rest (demand, carry, runs in place, evacuation) is the same.
 *
 * --dirs=roots puts each directory's block 0 (the root of an htree, the
 * whole of a one-block directory) in its group's head zone instead: the
 * first eligible blocks after the metadata at the group's start (its
 * inode table last), where e2fsck pass 1, scanning that inode table,
 * reads each htree root without a long seek; the rest as under pack.  The head slots of a
 * group come before its tail slots in the slot space; each record fills
 * only slots of its own zone kind (class), so the two kinds carry their
 * overflow into the next group separately.
 *
 * --dirs=volume homes every directory block in the middle group, so the
 * whole volume's directories make one region at its tail, in a tree
 * walk's order (overflowing into the next groups' tails as any MC
 * does): a walk reads them in one forward sweep however often it changes
 * group.  Only the block 0s that e2fsck reads before pass 2 (REC_EARLY)
 * go to the head zone of their inode's group as under roots: an htree's
 * root, read by pass 1 amid that group's inode table, and the root
 * directory's, read at the start next to group 0's metadata.
 *
 * Moves come in two rounds, because a destination may only be written
 * while nothing on disk refers to it: round 1 takes destinations that
 * are free now and empties the slots that are not (data is evacuated,
 * indirect blocks waiting for round 2 are parked); round 2 fills the
 * slots round 1 released.  evacuate.c does that part.
 *
 * Directories are laid out by rules of their own (layout.c): one that
 * did not change never moves, a grown one keeps its blocks in place, and
 * what is new goes in one piece into the first free stretch long enough.
 *
 * The data flow: mp_plan_build() -> planner_init() (records by block,
 * extents by start) -> plan_layout(): homes_and_order() (each record's
 * home group, the processing order, demand per group; directories in
 * a tree walk's order by walkorder.c) ->
 * build_geometry() (the slot space) -> assign_slots() (layout.c: each
 * record's dest; once more with slots added below a region when a
 * directory found no room) -> fit_to_space() and emit_moves()
 * (evacuate.c) -> count_figures().
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdlib.h>
#include <string.h>

#include "plan/planner.h"
#include "plan/walkorder.h"
#include "plan/layout.h"
#include "plan/evacuate.h"
#include "e3mp_err.h"

static errcode_t planner_init(struct planner *pl);
static void planner_free(struct planner *pl);
static errcode_t plan_layout(struct planner *pl);
static errcode_t homes_and_order(struct planner *pl, __u32 *demand);
static errcode_t build_geometry(struct planner *pl, const __u32 *demand);
static errcode_t count_figures(struct planner *pl);
static void order_for_delete(struct planner *pl);

errcode_t mp_plan_build(struct mp_plan *p, const struct mp_geom *g,
			enum e3mp_homing homing, struct ind_rec *rec,
			__u32 nrec, struct data_ext *ext, __u32 next,
			const struct mp_space_ops *ops, void *priv)
{
	struct planner pl = { .p = p, .g = g, .rec = rec, .nrec = nrec,
			      .ext = ext, .next = next, .ops = ops,
			      .priv = priv, .homing = homing };
	errcode_t err;

	memset(p, 0, sizeof(*p));
	p->g = *g;
	p->homing = homing;
	err = planner_init(&pl);
	if (!err)
		err = plan_layout(&pl);
	if (!err)
		err = count_figures(&pl);
	planner_free(&pl);
	if (err)
		mp_plan_free(p);
	return err;
}

void mp_plan_free(struct mp_plan *p)
{
	mp_slots_free(p);
	ext2fs_free_mem(&p->mv[0]);
	ext2fs_free_mem(&p->mv[1]);
	p->nmv[0] = p->nmv[1] = 0;
}

/*
 * Each record's destination, then the moves that take it there.  When a
 * directory found no free stretch long enough in its region (layout.c),
 * the slot space is built once more with that many slots more below
 * the region, and laid out again: there the directory goes in one piece.
 */
static errcode_t plan_layout(struct planner *pl)
{
	__u32 *demand = NULL;
	errcode_t err;
	int again = 1;

	/* per group: tail zone, head zone */
	err = ext2fs_get_arrayzero(2 * pl->g->group_count, sizeof(*demand),
				   &demand);
	if (!err)
		err = homes_and_order(pl, demand);
	if (!err && pl->g->order == E3MP_ORDER_DELETE)
		order_for_delete(pl);
	if (!err)
		err = layout_init(pl);
	while (!err && again) {
		err = build_geometry(pl, demand);
		if (!err)
			err = layout_slots(pl);
		if (!err && pl->g->nwalk)
			err = walk_decide(pl);
		if (!err)
			again = assign_slots(pl);
		if (!err && again)
			layout_reset(pl);
	}
	ext2fs_free_mem(&demand);
	if (err)
		return err;
	fit_to_space(pl, pl->g->free_blocks);
	return emit_moves(pl);
}

/* ---- records, extents and slots, looked up by block --------------- */

static const struct ind_rec *sort_rec;

static int cmp_byblk(const void *a, const void *b)
{
	blk64_t x = sort_rec[*(const __u32 *) a].blk;
	blk64_t y = sort_rec[*(const __u32 *) b].blk;

	return mp_cmp_u64(x, y);
}

static int cmp_ext(const void *a, const void *b)
{
	const struct data_ext *x = a, *y = b;

	return mp_cmp_u64(x->start, y->start);
}

static errcode_t planner_init(struct planner *pl)
{
	__u32 n = pl->nrec ? pl->nrec : 1, G = pl->g->group_count, i;
	errcode_t err;

	err = ext2fs_get_array(n, sizeof(__u32), &pl->order);
	if (!err)
		err = ext2fs_get_array(n, sizeof(__u32), &pl->home);
	if (!err)
		err = ext2fs_get_array(n, sizeof(__u32), &pl->byblk);
	if (!err)
		err = ext2fs_get_arrayzero(n, 1, &pl->rnd);
	if (!err)
		err = ext2fs_get_array(2 * G, sizeof(__u32), &pl->cursor);
	if (!err)
		err = ext2fs_get_array(2 * G, sizeof(__u32), &pl->next_live);
	if (err)
		return err;
	evac_init(pl);
	for (i = 0; i < pl->nrec; i++) {
		pl->rec[i].dest = 0;		/* not placed yet */
		pl->byblk[i] = i;
	}
	sort_rec = pl->rec;
	if (pl->nrec)
		mp_sort(pl->byblk, pl->nrec, sizeof(__u32), cmp_byblk);
	if (pl->next)
		mp_sort(pl->ext, pl->next, sizeof(*pl->ext), cmp_ext);
	return 0;
}

static void planner_free(struct planner *pl)
{
	ext2fs_free_mem(&pl->order);
	ext2fs_free_mem(&pl->home);
	ext2fs_free_mem(&pl->byblk);
	ext2fs_free_mem(&pl->owner);
	ext2fs_free_mem(&pl->rnd);
	ext2fs_free_mem(&pl->cursor);
	ext2fs_free_mem(&pl->next_live);
	ext2fs_free_mem(&pl->fresh);
	layout_free(pl);
}

/* ---- homes, and the slot space ------------------------------------ */

/*
 * Home every record, count demand per group, and build the processing
 * order: a stable counting sort by home group, and in each group the
 * indirect blocks before the directory blocks.  The scan order it starts
 * from is inode order (inodes come in group order), so under inode
 * homing the indirect blocks of a group keep it, and the directories
 * follow them in a tree walk's order (dirwalk.c; else inode order),
 * each in logical order: e2fsck pass 2 reads the blocks of a group's
 * directories in one forward sweep, and a tree walk finds each
 * directory's blocks together and the next directory after them.
 */
static errcode_t homes_and_order(struct planner *pl, __u32 *demand)
{
	const struct mp_geom *g = pl->g;
	__u32 *start = NULL, i;
	errcode_t err;

	err = ext2fs_get_arrayzero(NCLASS * g->group_count + 1,
				   sizeof(*start), &start);
	if (err)
		return err;
	for (i = 0; i < pl->nrec; i++) {
		pl->home[i] = mp_home(g, pl->homing, &pl->rec[i]);
		if (pl->home[i] >= g->group_count)
			pl->home[i] = g->group_count - 1;
		if (rec_kept(pl, i))
			continue;
		demand[2 * pl->home[i] + (rec_class(pl, i) == CL_HEAD)]++;
		start[bucket(pl, i) + 1]++;
		pl->norder++;
	}
	for (i = 0; i < NCLASS * g->group_count; i++)
		start[i + 1] += start[i];
	for (i = 0; i < pl->nrec; i++)
		if (!rec_kept(pl, i))
			pl->order[start[bucket(pl, i)]++] = i;
	/* start[b] is now where bucket b ends */
	err = 0;
	for (i = 0; !err && g->nwalk && i < NCLASS * g->group_count; i++)
		if (i % NCLASS != CL_IND)
			err = walk_sort(pl, i ? start[i - 1] : 0, start[i]);
	ext2fs_free_mem(&start);
	return err;
}

/*
 * Collect the last @want eligible blocks of group @grp's zone (*@got of
 * them), then the slots below them that layout.c adds (zone_extend():
 * *@below over its directories, then *@ext more): returns how many in
 * all.
 */
static __u32 zone_slots(struct planner *pl, __u32 grp, __u32 want,
			blk64_t *out, __u32 *got, __u32 *below, __u32 *ext)
{
	blk64_t first = mp_zone_first(pl->g, grp);
	blk64_t blk = mp_group_last(pl->g, grp) + 1;
	__u32 n = 0;

	*below = *ext = 0;
	while (n < want && blk > first)
		if (slot_eligible(pl, --blk))
			out[n++] = blk;
	*got = n;
	if (n == want)
		n += zone_extend(pl, grp, blk, first, out + n, below, ext);
	/* collected backwards; the slot space runs forwards */
	for (__u32 i = 0; i < n / 2; i++) {
		blk64_t t = out[i];

		out[i] = out[n - 1 - i];
		out[n - 1 - i] = t;
	}
	return n;
}

/*
 * Collect the first @want eligible blocks of group @grp's head zone (*@got
 * of them), then those after them that extend it (layout.c's
 * head_extend()); returns how many in all.
 */
static __u32 head_slots(struct planner *pl, __u32 grp, __u32 want,
			blk64_t *out, __u32 *got)
{
	blk64_t blk = mp_group_first(pl->g, grp);
	blk64_t end = mp_head_end(pl->g, grp);
	__u32 n = 0;

	for (; n < want && blk < end; blk++)
		if (slot_eligible(pl, blk))
			out[n++] = blk;
	*got = n;
	if (n == want)
		n += head_extend(pl, grp, blk, end, out + n);
	return n;
}

/*
 * The slot space, group by group: the head zone's slots (directory
 * blocks under --dirs=roots|volume), then the tail zone's, each sized by
 * its demand plus what the previous group's zone of that kind could not
 * take.
 */
static errcode_t build_geometry(struct planner *pl, const __u32 *demand)
{
	struct mp_plan *p = pl->p;
	const struct mp_geom *g = pl->g;
	__u64 carry = 0, carry_head = 0;
	__u32 grp, G = g->group_count;
	errcode_t err;

	err = ext2fs_get_arrayzero(G + 1, sizeof(__u32), &p->mc_first);
	if (!err)
		err = ext2fs_get_arrayzero(G + 1, sizeof(__u32),
					   &p->tail_first);
	if (!err)
		err = ext2fs_get_arrayzero(G + 1, sizeof(__u32),
					   &p->fill_first);
	if (!err)
		err = ext2fs_get_arrayzero(G + 1, sizeof(__u32),
					   &p->base_first);
	/*
	 * (a slot per record at most, and below or after a region at most
	 * one per directory block twice: its own block, one added for it;
	 * layout.c)
	 */
	if (!err && pl->nrec)
		err = ext2fs_get_array(pl->nrec + 2 * (size_t) pl->ndir,
				       sizeof(*p->slot), &p->slot);
	if (err)
		return err;
	for (grp = 0; grp < G && p->slot; grp++) {
		__u64 need_head = demand[2 * grp + 1] + carry_head;
		__u64 need = demand[2 * grp] + carry;
		__u32 got_head, got, n, below, ext;

		p->mc_first[grp] = p->nslot;
		n = head_slots(pl, grp, need_head, p->slot + p->nslot,
			       &got_head);
		p->nslot += n;
		p->tail_first[grp] = p->nslot;
		n = zone_slots(pl, grp, need, p->slot + p->nslot, &got, &below,
			       &ext);
		p->fill_first[grp] = p->nslot + ext;
		p->base_first[grp] = p->nslot + ext + below;
		p->nslot += n;
		carry_head = need_head - got_head;
		carry = need - got;
		p->mc_groups += p->nslot > p->mc_first[grp];
	}
	for (; grp <= G; grp++)
		p->mc_first[grp] = p->tail_first[grp] = p->fill_first[grp] =
			p->base_first[grp] = p->nslot;
	return 0;
}

/* ---- runs, and the order within them ---------------------------- */

/* Which of i_block[]'s IND, DIND, TIND trees record @r belongs to. */
static int top_tree(__u64 a, const struct ind_rec *r)
{
	if (r->logical < EXT2_NDIR_BLOCKS + a)
		return 0;
	return r->logical < EXT2_NDIR_BLOCKS + a + a * a ? 1 : 2;
}

/* The last logical block of the range record @r maps: a^level blocks. */
static __u64 range_last(__u64 a, const struct ind_rec *r)
{
	__u64 span = 1;
	int l;

	for (l = 0; l < r->level; l++)
		span *= a;
	return r->logical + span - 1;
}

static __u64 sort_apb;

/*
 * The kernel frees a file's IND tree, then its DIND tree, then its TIND
 * tree, each block before its children and the children last to first
 * (ext4_free_branches).  Within a tree that is the order of the ranges'
 * last blocks, descending, a block before its children (a parent's
 * range ends where its last child's does).
 */
static int cmp_delete(const void *a, const void *b)
{
	const struct ind_rec *x = &sort_rec[*(const __u32 *) a];
	const struct ind_rec *y = &sort_rec[*(const __u32 *) b];
	int c = top_tree(sort_apb, x) - top_tree(sort_apb, y);

	if (!c)
		c = mp_cmp_u64(range_last(sort_apb, y),
			       range_last(sort_apb, x));
	return c ? c : mp_cmp_u64(y->level, x->level);
}

/*
 * Under --order=delete, each run of indirect blocks is put in the order
 * the kernel frees them, so that deleting a file reads its run forward
 * (e2fsck then reads a DIND's children backwards).  Directory blocks
 * keep their logical order.
 */
static void order_for_delete(struct planner *pl)
{
	__u32 i, end;

	sort_rec = pl->rec;
	sort_apb = pl->g->addr_per_block;
	for (i = 0; i < pl->norder; i = end) {
		end = run_end(pl, i);
		if (!(pl->rec[pl->order[i]].flags & REC_DIR))
			mp_sort(pl->order + i, end - i, sizeof(__u32),
			      cmp_delete);
	}
}

/* ---- figures for the report --------------------------------------- */

/* Inside a metacluster: where @blk counts as packed. */
static int in_mc(struct planner *pl, blk64_t blk)
{
	__u32 s = slot_index(pl->p, blk);

	return s != NO_SLOT && !slot_in_head(pl->p, s);
}

/* In a head or tail zone's slots: where a directory block counts. */
static int in_region(struct planner *pl, blk64_t blk)
{
	return slot_index(pl->p, blk) != NO_SLOT;
}

/* The groups holding indirect blocks (directory blocks aside). */
static errcode_t count_groups(struct planner *pl, int after,
			      struct mp_figures *out)
{
	__u8 *seen;
	errcode_t err;
	__u32 i;

	err = ext2fs_get_memzero(pl->g->group_count, &seen);
	if (err)
		return err;
	for (i = 0; i < pl->nrec; i++) {
		const struct ind_rec *r = &pl->rec[i];
		__u32 grp;

		if (r->flags & REC_DIR)
			continue;
		grp = mp_group_of(pl->g, after ? r->dest : r->blk);
		out->groups += !seen[grp];
		seen[grp] = 1;
	}
	ext2fs_free_mem(&seen);
	return 0;
}

static errcode_t count_figures(struct planner *pl)
{
	struct mp_plan *p = pl->p;
	errcode_t err;
	__u32 i;

	for (i = 0; i < pl->nrec; i++) {
		if (pl->rec[i].flags & REC_DIR) {
			/* (outside: no slot left, or no room to empty it) */
			p->dir_blocks++;
			p->dir_before += in_region(pl, pl->rec[i].blk);
			p->dir_after += in_region(pl, pl->rec[i].dest);
			p->dir_no_space += !in_region(pl, pl->rec[i].dest);
			continue;
		}
		p->before.in_mc += in_mc(pl, pl->rec[i].blk);
		if (in_mc(pl, pl->rec[i].dest))
			p->after.in_mc++;
		else if (rec_kept(pl, i))
			p->kept_inline++;
		else
			p->unclustered++;
	}
	err = count_groups(pl, 0, &p->before);
	return err ? err : count_groups(pl, 1, &p->after);
}
