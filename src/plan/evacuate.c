/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * evacuate.c --- empty the slots the layout assigned, and list the moves
 *
 * plan.c decides where every indirect block goes; a destination may only
 * be written while nothing on disk refers to it.  This file finds what
 * occupies each assigned slot (a data block, an indirect block that stays
 * or waits for round 2), gives up whole runs when the free space cannot
 * take every evacuee (fit_to_space), finds each evacuee a free block
 * (evac_alloc: its own group first, then the others, outside the tail
 * zones before inside them), and emits the two rounds of moves.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "plan/evacuate.h"
#include "e3mp_err.h"

/* pl->cursor[] value of a group whose region has no free block left. */
#define GROUP_DONE	((__u32) -1)

static __u64 evac_needed(const struct planner *pl);
static __u64 evac_room(const struct planner *pl, __u64 free_blocks);
static __u32 drop_run_before(struct planner *pl, __u32 i, __u32 *dropped);
static errcode_t evacuate_slot(struct planner *pl, __u32 s);
static errcode_t add_move(struct mp_plan *p, int round, blk64_t from,
			  blk64_t to, __u32 ino, int kind, int level);

/*
 * Not enough free space to empty every slot: give up whole runs, last
 * placed first, doubling how many each time, until what is left fits.
 * Records in place are never given up; runs given up stay where they
 * are and are reported.
 */
void fit_to_space(struct planner *pl, __u64 free_blocks)
{
	__u32 i = pl->norder, batch = 1;

	while (i > 0 && evac_needed(pl) > evac_room(pl, free_blocks)) {
		__u32 dropped = 0;

		while (i > 0 && dropped < batch)
			i = drop_run_before(pl, i, &dropped);
		batch *= 2;
	}
}

/*
 * The round of record @i's own move: none when it stays, round 1 when
 * its destination is free now, round 2 when it must wait for round 1 to
 * empty it.
 */
static int round_of(const struct planner *pl, __u32 i)
{
	const struct ind_rec *r = &pl->rec[i];

	if (!rec_moves(r))
		return 0;
	return pl->ops->in_use(pl->priv, r->dest) ? RND_2 : RND_1;
}

/* The kind of record @r's move into its slot. */
static int own_kind(const struct ind_rec *r)
{
	return (r->flags & REC_DIR) ? MV_DIR : MV_IND;
}

/*
 * Round 1 first takes every free assigned slot, so evacuees never land
 * in one; then empties each assigned slot that is occupied, and lists
 * the indirect blocks' own moves in the round they belong to.
 */
errcode_t emit_moves(struct planner *pl)
{
	struct mp_plan *p = pl->p;
	errcode_t err = 0;
	__u32 i, s;

	for (i = 0; i < pl->nrec; i++)
		pl->rnd[i] = round_of(pl, i);
	for (s = 0; s < p->nslot; s++)
		if (pl->owner[s] && !pl->ops->in_use(pl->priv, p->slot[s]))
			pl->ops->take(pl->priv, p->slot[s]);
	for (s = 0; s < p->nslot && !err; s++)
		err = evacuate_slot(pl, s);
	for (i = 0; i < pl->nrec && !err; i++) {
		struct ind_rec *r = &pl->rec[i];

		if (!(pl->rnd[i] & (RND_1 | RND_2)))
			continue;
		if (r->flags & REC_DIR)
			p->dir_moved++;
		else
			p->ind_moved++;
		if (pl->rnd[i] & RND_PARK)
			continue;
		err = add_move(p, (pl->rnd[i] & RND_2) ? 1 : 0, r->blk, r->dest,
			       r->ino, own_kind(r), r->level);
	}
	return err;
}

/*
 * The record or data block occupying slot @s when that slot has been
 * given to another record: what round 1 must empty.  Returns 0 when the
 * slot needs no evacuation.
 */
static int slot_needs_evac(const struct planner *pl, __u32 s, __u32 *xp,
			   const struct data_ext **ep)
{
	blk64_t blk = pl->p->slot[s];
	__u32 r = pl->owner[s], x;

	*xp = NO_REC;
	*ep = NULL;
	if (!r || pl->rec[r - 1].blk == blk || !pl->ops->in_use(pl->priv, blk))
		return 0;
	x = rec_at(pl, blk);
	if (x != NO_REC) {
		*xp = x;
		return !rec_moves(&pl->rec[x]) || round_of(pl, x) == RND_2;
	}
	*ep = ext_at(pl, blk);
	return 1;
}

/* How many blocks round 1 must evacuate from the assigned slots. */
static __u64 evac_needed(const struct planner *pl)
{
	const struct data_ext *e;
	__u64 n = 0;
	__u32 s, x;

	for (s = 0; s < pl->p->nslot; s++)
		n += slot_needs_evac(pl, s, &x, &e);
	return n;
}

/* Free blocks the evacuations may use: all but the free assigned slots. */
static __u64 evac_room(const struct planner *pl, __u64 free_blocks)
{
	__u32 s;

	for (s = 0; s < pl->p->nslot; s++)
		if (pl->owner[s] && !pl->ops->in_use(pl->priv, pl->p->slot[s]))
			free_blocks--;
	return free_blocks;
}

/* Give up the run ending just before order index @i; returns its start. */
static __u32 drop_run_before(struct planner *pl, __u32 i, __u32 *dropped)
{
	__u32 last = pl->order[i - 1];

	while (i > 0 && same_run(pl, pl->order[i - 1], last)) {
		struct ind_rec *r = &pl->rec[pl->order[--i]];
		__u32 s;

		if (!rec_moves(r))
			continue;
		s = slot_index(pl->p, r->dest);
		if (s != NO_SLOT)
			pl->owner[s] = 0;
		r->dest = r->blk;
		/* (directories: count_figures() counts all left out) */
		if (!(r->flags & REC_DIR))
			pl->p->no_space++;
		(*dropped)++;
	}
	return i;
}

/* Every group's search starts at its first block; none is exhausted. */
void evac_init(struct planner *pl)
{
	__u32 G = pl->g->group_count, i;

	for (i = 0; i < 2 * G; i++) {
		pl->cursor[i] = 0;
		pl->next_live[i] = i % G + 1;
	}
}

/*
 * Groups whose region (pass 0: outside the tail zone, pass 1: the zone)
 * has no free block left are skipped through pl->next_live[], with path
 * compression, so a nearly full volume does not cost a walk over every
 * group per evacuee.
 */
static __u32 next_live(struct planner *pl, int pass, __u32 h)
{
	__u32 G = pl->g->group_count;
	__u32 *cur = pl->cursor + pass * G, *nxt = pl->next_live + pass * G;
	__u32 r = h;

	while (r < G && cur[r] == GROUP_DONE)
		r = nxt[r];
	while (h < G && cur[h] == GROUP_DONE && nxt[h] != r) {
		__u32 t = nxt[h];

		nxt[h] = r;
		h = t;
	}
	return r;
}

/* Take a free block in group @h's region for @pass; else mark it done. */
static int region_alloc(struct planner *pl, int pass, __u32 h, blk64_t *out)
{
	const struct mp_geom *g = pl->g;
	__u32 *cur = pl->cursor + pass * g->group_count;
	blk64_t first = mp_group_first(g, h), start, end;

	if (cur[h] == GROUP_DONE)
		return 0;
	start = pass ? mp_zone_first(g, h) : first;
	end = pass ? mp_group_last(g, h) : mp_zone_first(g, h) - 1;
	if (start < first + cur[h])
		start = first + cur[h];
	if (start <= end && end >= first &&
	    !pl->ops->find_free(pl->priv, start, end, out)) {
		pl->ops->take(pl->priv, *out);
		cur[h] = *out + 1 - first;
		return 1;
	}
	cur[h] = GROUP_DONE;
	return 0;
}

/*
 * A free block for an evacuee from group @grp: in @grp itself first,
 * outside its tail zone and then inside it (data that stays in its group
 * keeps its file's locality, and under data homing keeps the indirect
 * blocks that map it homed where they are); then in the following
 * groups, outside the zones before inside them.  pl->cursor[] remembers
 * how far each group's search has got, so the whole evacuation is one
 * forward sweep per group.  Returns 0 when no free block is left.
 */
static int evac_alloc(struct planner *pl, __u32 grp, blk64_t *out)
{
	__u32 G = pl->g->group_count, h;
	int pass;

	for (pass = 0; pass < 2; pass++)
		if (region_alloc(pl, pass, grp, out))
			return 1;
	for (pass = 0; pass < 2; pass++) {
		for (h = next_live(pl, pass, grp + 1); h < G;
		     h = next_live(pl, pass, h + 1))
			if (region_alloc(pl, pass, h, out))
				return 1;
		for (h = next_live(pl, pass, 0); h < grp;
		     h = next_live(pl, pass, h + 1))
			if (region_alloc(pl, pass, h, out))
				return 1;
	}
	return 0;
}

/* Empty slot @s for its new owner; see slot_needs_evac(). */
static errcode_t evacuate_slot(struct planner *pl, __u32 s)
{
	struct mp_plan *p = pl->p;
	const struct data_ext *e;
	__u32 grp = mp_group_of(pl->g, p->slot[s]), x;
	struct ind_rec *r;
	blk64_t to;
	errcode_t err;

	if (!slot_needs_evac(pl, s, &x, &e))
		return 0;
	if (!evac_alloc(pl, grp, &to))
		return E3MP_PLAN_NO_SPACE;	/* fit_to_space() bug */
	if (e) {
		p->data_evacuated++;
		return add_move(p, 0, p->slot[s], to, e->ino, MV_DATA, 0);
	}
	if (x == NO_REC)
		return E3MP_PLAN_NO_OWNER;	/* unknown occupant */
	r = &pl->rec[x];
	if (!rec_moves(r)) {
		pl->rnd[x] = RND_OUT;
		r->dest = to;
		return add_move(p, 0, r->blk, to, r->ino, MV_OUT, r->level);
	}
	pl->rnd[x] |= RND_PARK;
	p->temp_moves++;
	err = add_move(p, 0, r->blk, to, r->ino, MV_TEMP, r->level);
	if (!err)
		err = add_move(p, 1, to, r->dest, r->ino, own_kind(r),
			       r->level);
	return err;
}

static errcode_t add_move(struct mp_plan *p, int round, blk64_t from,
			  blk64_t to, __u32 ino, int kind, int level)
{
	struct mp_move *m;
	errcode_t err;
	__u32 n = p->nmv[round];

	if ((n & (n - 1)) == 0 && n >= 64) {
		err = ext2fs_resize_array(sizeof(*m), n, 2 * n, &p->mv[round]);
		if (err)
			return err;
	} else if (n == 0) {
		err = ext2fs_get_array(64, sizeof(*m), &p->mv[round]);
		if (err)
			return err;
	}
	m = &p->mv[round][n];
	m->from = from;
	m->to = to;
	m->ino = ino;
	m->kind = kind;
	m->level = level;
	p->nmv[round]++;
	return 0;
}
