/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * layout.c --- each record's slot: runs in place stay, the rest fill in
 *
 * plan.c builds the slot space and the processing order; here every
 * record gets its destination.  Runs of indirect blocks already in
 * place (in slots of their kind, ascending, from their home region on)
 * keep their slots; the other indirect blocks fill the free slots in
 * processing order through one cursor that only moves forward.
 *
 * Directories follow two rules of their own, so that after a kernel
 * write session a rerun moves only what is new:
 *
 *  - a directory that did not change never moves, and one that grew
 *    keeps the blocks it had in place (the longest prefix of its run,
 *    in logical order, that is in place);
 *  - what is not in place goes in one piece: a grown directory's new
 *    blocks right after its last block in place when those slots are
 *    free, else, like a new directory, into the first free stretch
 *    ("hole") of the region long enough for them.  A slot held by a
 *    block that stays (another file's indirect block the kernel put
 *    there, another directory) ends a hole, and so does a jump in
 *    block numbers between two consecutive slots.
 *
 * So a grown directory is in at most two pieces and only its new blocks
 * move; one piece and only-new-blocks-move cannot both hold when the
 * slots after it hold directories that stay.  On a first run every
 * directory is new and the holes are the free slots in order: the
 * layout is the cursor's, each directory one run.
 *
 * When no hole of the region is long enough (the free slots a deleted
 * directory left, split by a block that stays), the slot space is built
 * once more with that many eligible blocks added right below the region
 * (extra[]; plan.c's plan_layout()), used only by those directories, in
 * order, from the top down: they go in one piece there.  The next plan
 * sees them as part of the region (zone_extend(): a region extends
 * downwards over the blocks of directories homed there, as far as each
 * such directory's prefix in the zone is whole), so it moves nothing;
 * the same keeps the directories in place when one before them in the
 * region was deleted and the region, sized by demand, shrank.  A head
 * zone extends upwards likewise (head_extend()).  Should even the added
 * slots not do (the zone is full), the directory takes the free slots
 * after its blocks in place (or from its region's start) one by one,
 * never wrapping, so that it is in place next time; what finds none
 * stays where it is, counted as left for want of space.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "plan/layout.h"

static void place(struct planner *pl, __u32 i, __u32 s)
{
	pl->owner[s] = i + 1;
	pl->rec[i].dest = pl->p->slot[s];
}

/*
 * Place record @r in the first slot from max(*@at, @from) on that fits
 * it; *@at, a cursor that only moves forward, ends there.  Returns 0
 * when no slot is left.
 */
static int place_next(struct planner *pl, __u32 r, __u32 *at, __u32 from)
{
	if (*at < from)
		*at = from;
	while (*at < pl->p->nslot && !slot_fits(pl, *at, r))
		++*at;
	if (*at == pl->p->nslot)
		return 0;
	place(pl, r, *at);
	return 1;
}

/*
 * The first slot from @s on that no record has taken.  pl->skip[] keeps
 * what earlier searches learnt (skip[x] > x: slots x to skip[x] - 1 are
 * taken; slots are only ever taken while laying out), so a search over
 * a region full of directories in place does not walk it again.
 */
static __u32 first_free(struct planner *pl, __u32 s)
{
	__u32 n = pl->p->nslot, t = s, nx;

	while (t < n && pl->owner[t]) {
		nx = pl->skip[t];
		t = nx > t ? nx : t + 1;
	}
	while (s < t) {
		nx = pl->skip[s];
		pl->skip[s] = t;
		s = nx > s ? nx : s + 1;
	}
	return t;
}

/*
 * How many free slots from @s on, up to @need and before @end, are of
 * record @r's kind (@added: the slots added below its region) and
 * consecutive blocks.
 */
static __u32 stretch(const struct planner *pl, __u32 s, __u32 end, __u32 r,
		     __u32 need, int added)
{
	const struct mp_plan *p = pl->p;
	__u32 len = 0;

	for (; len < need && s + len < end; len++) {
		__u32 t = s + len;

		if (pl->owner[t] || slot_added(p, t) != added ||
		    slot_below(p, t) ||
		    slot_in_head(p, t) != (rec_class(pl, r) == CL_HEAD))
			break;
		if (len && p->slot[t] != p->slot[t - 1] + 1)
			break;
	}
	return len;
}

/* The first hole of @need slots for @r in slots @from to @end - 1. */
static __u32 find_hole(struct planner *pl, __u32 r, __u32 need, __u32 from,
		       __u32 end, int added)
{
	__u32 s = first_free(pl, from), len;

	while (s < end) {
		len = stretch(pl, s, end, r, need, added);
		if (len == need)
			return s;
		s = first_free(pl, s + (len ? len : 1));
	}
	return NO_SLOT;
}

/*
 * Where the records of directory run @i to @end not placed yet go in
 * one piece: after its prefix in place, else the first hole of its
 * region, else the slots added below its region, from the top down:
 * those are filled in order, each directory's right below the last's,
 * so that the next plan finds them all just below the region
 * (zone_extend()).  NO_SLOT: nowhere.
 */
static __u32 dir_hole(struct planner *pl, __u32 i, __u32 k, __u32 end)
{
	const struct mp_plan *p = pl->p;
	__u32 r = pl->order[k], need = end - k, h = pl->home[r], s;

	if (k > i) {
		s = slot_index(p, pl->rec[pl->order[k - 1]].dest) + 1;
		if (stretch(pl, s, p->nslot, r, need, 0) == need)
			return s;
	}
	s = find_hole(pl, r, need, region_first(pl, r), p->nslot, 0);
	if (s != NO_SLOT || rec_class(pl, r) != CL_DIR ||
	    pl->ext_next[h] - p->tail_first[h] < need)
		return s;
	pl->ext_next[h] -= need;
	return pl->ext_next[h];
}

/*
 * Lay out the records of directory run @i to @end that pass 1 did not
 * keep (see the top of this file).  Returns 1 when they found no hole
 * and slots added below the region would give them one.  When even
 * those do not (a full zone), they take the free slots after the ones
 * it keeps, in order, never wrapping to slots before them, so that the
 * next plan finds the whole run in place; what finds none stays.
 */
static int place_dir(struct planner *pl, __u32 i, __u32 end)
{
	__u32 k = i, s, r, at;

	while (k < end && pl->rec[pl->order[k]].dest)
		k++;
	if (k == end)
		return 0;
	s = dir_hole(pl, i, k, end);
	if (s != NO_SLOT) {
		for (; k < end; k++, s++)
			place(pl, pl->order[k], s);
		return 0;
	}
	r = pl->order[k];
	if (!pl->extended && rec_class(pl, r) == CL_DIR) {
		pl->extra[pl->home[r]] += end - k;
		return 1;
	}
	at = region_first(pl, r);
	if (k > i)
		at = slot_index(pl->p, pl->rec[pl->order[k - 1]].dest) + 1;
	for (; k < end && place_next(pl, pl->order[k], &at, 0); k++)
		;
	return 0;
}

/*
 * Lay out every record, in processing order, into the slot space.
 * Pass 1: runs in place keep their slots, and directories the prefix of
 * theirs in place (not in buckets laid out afresh in a walk's order).
 * Pass 2: the other indirect blocks fill the free slots in order from
 * their home region on, through one cursor that only moves forward, so
 * a file's indirect blocks land contiguous and in logical order, files
 * follow each other, and a full region overflows into the next ones;
 * records the cursor cannot place (the slot space ran out) take any
 * slot still free, from the first on.  Directories go in one piece
 * (place_dir()).  Head-zone and tail-zone records each have their own
 * cursors and only take slots of their kind.  Records left over stay
 * where they are.  Returns 1 when the layout is to be done again with
 * slots added below some regions (pl->extra[]).
 */
int assign_slots(struct planner *pl)
{
	const struct mp_plan *p = pl->p;
	__u32 i, k, r, end, keep, cur[2] = { 0, 0 }, any[2] = { 0, 0 };
	int c, again = 0;

	for (i = 0; i < pl->norder; i = end) {
		end = run_end(pl, i);
		if (walk_placed(pl, i))
			continue;
		keep = run_prefix_end(pl, i, end);
		if (keep < end && !is_dir(pl, pl->order[i]))
			continue;
		for (k = i; k < keep; k++) {
			r = pl->order[k];
			place(pl, r, slot_index(p, pl->rec[r].blk));
		}
	}
	for (i = 0; i < pl->norder; i = end) {
		end = run_end(pl, i);
		if (is_dir(pl, pl->order[i])) {
			again |= place_dir(pl, i, end);
			continue;
		}
		for (k = i; k < end; k++) {
			r = pl->order[k];
			c = rec_class(pl, r) == CL_HEAD;
			if (!pl->rec[r].dest &&
			    !place_next(pl, r, &cur[c], region_first(pl, r)))
				place_next(pl, r, &any[c], 0);
		}
	}
	if (again)
		return 1;
	for (i = 0; i < pl->nrec; i++)
		if (!pl->rec[i].dest)
			pl->rec[i].dest = pl->rec[i].blk;
	return 0;
}

/*
 * Record @r may extend the region of group @grp (@cl: the head zone's,
 * CL_HEAD, or the tail's, CL_DIR) over its block: a directory block of
 * that class homed there.
 */
static int extends(const struct planner *pl, __u32 r, __u32 grp, __u32 cl)
{
	return (pl->rec[r].flags & REC_DIR) && pl->home[r] == grp &&
	       rec_class(pl, r) == cl && !rec_kept(pl, r);
}

/*
 * The prefix of record @r's run that lies in blocks @lo to @hi in at
 * most two ascending pieces: once the region covers it, that prefix is
 * in place, all of a directory the plan keeps.  Returns 0 when @r is
 * not in it, else 1 and its lowest and highest blocks in *@low, *@high.
 */
static int run_span(struct planner *pl, __u32 r, blk64_t lo, blk64_t hi,
		    blk64_t *low, blk64_t *high)
{
	__u32 k = pl->pos[r], end, x;
	blk64_t prev = 0, b;
	int pieces = 2, in = 0;

	while (k > 0 && same_run(pl, pl->order[k - 1], r))
		k--;
	*low = hi;
	*high = lo;
	for (end = run_end(pl, k); k < end; k++) {
		x = pl->order[k];
		b = pl->rec[x].blk;
		if (b < lo || b > hi || (b < prev && --pieces == 0))
			break;
		prev = b;
		*low = b < *low ? b : *low;
		*high = b > *high ? b : *high;
		in |= x == r;
	}
	return in;
}

/*
 * After the first eligible blocks of group @grp's head zone (the next
 * is @blk; the zone ends before @end): the eligible blocks that extend
 * it, as zone_extend() does below a tail region, into @out.  Returns
 * how many: after a directory deleted, the blocks 0 after it stay.
 */
__u32 head_extend(struct planner *pl, __u32 grp, blk64_t blk, blk64_t end,
		  blk64_t *out)
{
	blk64_t first = mp_group_first(pl->g, grp), high = 0, lo, hi;
	__u32 n = 0, done = 0, r;

	for (; blk < end; blk++) {
		if (!slot_eligible(pl, blk))
			continue;
		r = rec_at(pl, blk);
		if (r == NO_REC || !extends(pl, r, grp, CL_HEAD) ||
		    !run_span(pl, r, first, end - 1, &lo, &hi))
			break;
		out[n++] = blk;
		high = hi > high ? hi : high;
		if (blk >= high)
			done = n;	/* every prefix met so far is whole */
	}
	return done;
}

/*
 * Below the region of group @grp's zone (its lowest block is just above
 * @blk; the zone starts at @first): the eligible blocks that extend it,
 * blocks of its directories in the prefix of each that lies in the zone
 * (extends(), run_span()), down to the first eligible block that is not
 * one and no further than every such prefix met is whole (*@below of
 * them), then the pl->extra[@grp] eligible blocks added for directories
 * (*@ext of them), into @out, downwards.  Returns how many in all.
 * Since those prefixes are in place, a plan keeps them all, and the
 * next one finds the same.
 */
__u32 zone_extend(struct planner *pl, __u32 grp, blk64_t blk,
		  blk64_t first, blk64_t *out, __u32 *below, __u32 *ext)
{
	blk64_t low = ~(blk64_t) 0, lo, hi, top = blk;
	blk64_t last = mp_group_last(pl->g, grp);
	__u32 n = 0, r;

	*below = 0;
	while (blk > first) {
		if (!slot_eligible(pl, --blk))
			continue;
		r = rec_at(pl, blk);
		if (r == NO_REC || !extends(pl, r, grp, CL_DIR) ||
		    !run_span(pl, r, first, last, &lo, &hi))
			break;
		out[n++] = blk;
		low = lo < low ? lo : low;
		if (blk <= low) {
			*below = n;	/* every run met so far is whole */
			top = blk;
			low = ~(blk64_t) 0;
		}
	}
	blk = top;
	n = *below;
	while (n < *below + pl->extra[grp] && blk > first)
		if (slot_eligible(pl, --blk))
			out[n++] = blk;
	*ext = n - *below;
	return n;
}

/*
 * Per group, the slots to add below; per record, its order index; how
 * many directory blocks there are.
 */
errcode_t layout_init(struct planner *pl)
{
	__u32 i;
	errcode_t err;

	err = ext2fs_get_arrayzero(pl->g->group_count + 1,
				   sizeof(*pl->extra), &pl->extra);
	if (!err)
		err = ext2fs_get_arrayzero(pl->g->group_count + 1,
					   sizeof(*pl->ext_next),
					   &pl->ext_next);
	if (!err)
		err = ext2fs_get_arrayzero(pl->nrec + 1, sizeof(*pl->pos),
					   &pl->pos);
	for (i = 0; !err && i < pl->norder; i++)
		pl->pos[pl->order[i]] = i;
	for (i = 0; i < pl->nrec; i++)
		pl->ndir += !!(pl->rec[i].flags & REC_DIR);
	return err;
}

/*
 * Who owns each slot of the slot space plan.c has just built; no slot
 * added below a region is taken yet.
 */
errcode_t layout_slots(struct planner *pl)
{
	__u32 grp;
	errcode_t err;

	for (grp = 0; grp < pl->g->group_count; grp++)
		pl->ext_next[grp] = pl->p->fill_first[grp];
	err = ext2fs_get_arrayzero(pl->p->nslot + 1, sizeof(__u32),
				   &pl->owner);
	if (!err)
		err = ext2fs_get_arrayzero(pl->p->nslot + 1, sizeof(__u32),
					   &pl->skip);
	return err;
}

/* Forget a layout and its slot space, to build them again with extra[]. */
void layout_reset(struct planner *pl)
{
	struct mp_plan *p = pl->p;
	__u32 i;

	mp_slots_free(p);
	ext2fs_free_mem(&pl->owner);
	ext2fs_free_mem(&pl->skip);
	ext2fs_free_mem(&pl->fresh);
	p->mc_groups = 0;
	for (i = 0; i < pl->nrec; i++)
		pl->rec[i].dest = 0;
	pl->extended = 1;
}

void layout_free(struct planner *pl)
{
	ext2fs_free_mem(&pl->skip);
	ext2fs_free_mem(&pl->pos);
	ext2fs_free_mem(&pl->extra);
	ext2fs_free_mem(&pl->ext_next);
}
