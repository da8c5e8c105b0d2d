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
 * Moves come in two rounds, because a destination may only be written
 * while nothing on disk refers to it: round 1 takes destinations that
 * are free now and empties the slots that are not (data is evacuated,
 * indirect blocks waiting for round 2 are parked); round 2 fills the
 * slots round 1 released.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"

#define NO_SLOT		((__u32) -1)

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
	__u32			*home;		/* per record */
	__u32			*byblk;		/* record indices, by blk */
	__u32			*owner;		/* slot -> record + 1, or 0 */
	__u32			*cursor;	/* per group evacuation hint */
	__u32			*next_live;	/* skips exhausted groups */
	enum e3mp_homing	homing;
};

blk64_t mp_group_first(const struct mp_geom *g, __u32 grp)
{
	return g->first_data_block + (blk64_t) grp * g->blocks_per_group;
}

blk64_t mp_group_last(const struct mp_geom *g, __u32 grp)
{
	blk64_t last = mp_group_first(g, grp) + g->blocks_per_group - 1;

	return last < g->blocks_count - 1 ? last : g->blocks_count - 1;
}

__u32 mp_group_of(const struct mp_geom *g, blk64_t blk)
{
	return (blk - g->first_data_block) / g->blocks_per_group;
}

blk64_t mp_zone_first(const struct mp_geom *g, __u32 grp)
{
	blk64_t first = mp_group_first(g, grp);
	blk64_t len = mp_group_last(g, grp) - first + 1;
	blk64_t zone = len * g->mc_max_pct / 100;

	if (zone == 0)
		zone = 1;
	return first + len - zone;
}

__u32 mp_home(const struct mp_geom *g, enum e3mp_homing h,
	      const struct ind_rec *r)
{
	if (h == E3MP_HOME_DATA)
		return r->data_group;
	return (r->ino - 1) / g->inodes_per_group;
}

static int cmp_ext(const void *a, const void *b)
{
	const struct data_ext *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

static const struct ind_rec *sort_rec;

static int cmp_byblk(const void *a, const void *b)
{
	blk64_t x = sort_rec[*(const __u32 *) a].blk;
	blk64_t y = sort_rec[*(const __u32 *) b].blk;

	return (x > y) - (x < y);
}

/* Record index of the indirect block at @blk, or NO_SLOT. */
static __u32 rec_at(struct planner *pl, blk64_t blk)
{
	__u32 lo = 0, hi = pl->nrec;

	while (lo < hi) {
		__u32 mid = lo + (hi - lo) / 2;
		blk64_t b = pl->rec[pl->byblk[mid]].blk;

		if (b == blk)
			return pl->byblk[mid];
		if (b < blk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NO_SLOT;
}

/* The recorded data extent holding @blk, or NULL. */
static const struct data_ext *ext_at(struct planner *pl, blk64_t blk)
{
	__u32 lo = 0, hi = pl->next;

	while (lo < hi) {
		__u32 mid = lo + (hi - lo) / 2;
		const struct data_ext *e = &pl->ext[mid];

		if (blk < e->start)
			hi = mid;
		else if (blk >= e->start + e->len)
			lo = mid + 1;
		else
			return e;
	}
	return NULL;
}

/* Index of @blk in the slot space, or NO_SLOT. */
static __u32 slot_index(const struct mp_plan *p, blk64_t blk)
{
	__u32 lo = 0, hi = p->nslot;

	while (lo < hi) {
		__u32 mid = lo + (hi - lo) / 2;

		if (p->slot[mid] == blk)
			return mid;
		if (p->slot[mid] < blk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NO_SLOT;
}

/*
 * Free blocks and blocks of movable files can be MC slots.  Under data
 * homing, the first data block under an indirect block is its anchor: it
 * decides the block's home, so it never moves (were it evacuated into
 * another group, the home would move with it and the next run would move
 * the indirect block again).
 */
static int eligible(struct planner *pl, blk64_t blk)
{
	const struct data_ext *e;

	if (!pl->ops->in_use(pl->priv, blk) || rec_at(pl, blk) != NO_SLOT)
		return 1;
	e = ext_at(pl, blk);
	if (e && pl->homing == E3MP_HOME_DATA && e->nanchor &&
	    e->start == blk)
		return 0;
	return e != NULL;
}

/*
 * Home every record, count demand per group, and build the processing
 * order: scan order under inode homing (inodes come in group order),
 * a stable counting sort by home group under data homing.
 */
static errcode_t homes_and_order(struct planner *pl, __u32 *demand)
{
	const struct mp_geom *g = pl->g;
	__u32 *start = NULL, i;
	errcode_t err;

	for (i = 0; i < pl->nrec; i++) {
		pl->home[i] = mp_home(g, pl->homing, &pl->rec[i]);
		if (pl->home[i] >= g->group_count)
			pl->home[i] = g->group_count - 1;
		demand[pl->home[i]]++;
	}
	err = ext2fs_get_arrayzero(g->group_count + 1, sizeof(*start),
				   &start);
	if (err)
		return err;
	for (i = 0; i < g->group_count; i++)
		start[i + 1] = start[i] + demand[i];
	for (i = 0; i < pl->nrec; i++)
		pl->order[start[pl->home[i]]++] = i;
	ext2fs_free_mem(&start);
	return 0;
}

/* Collect the last @want eligible blocks of group @grp's zone. */
static __u32 zone_slots(struct planner *pl, __u32 grp, __u32 want,
			blk64_t *out)
{
	blk64_t first = mp_zone_first(pl->g, grp);
	blk64_t blk = mp_group_last(pl->g, grp);
	__u32 n = 0;

	for (; n < want && blk >= first; blk--) {
		if (eligible(pl, blk))
			out[n++] = blk;
		if (blk == 0)
			break;
	}
	/* collected backwards; the slot space runs forwards */
	for (__u32 i = 0; i < n / 2; i++) {
		blk64_t t = out[i];

		out[i] = out[n - 1 - i];
		out[n - 1 - i] = t;
	}
	return n;
}

static errcode_t build_geometry(struct planner *pl, const __u32 *demand)
{
	struct mp_plan *p = pl->p;
	const struct mp_geom *g = pl->g;
	__u64 carry = 0;
	errcode_t err;
	__u32 grp;

	err = ext2fs_get_arrayzero(g->group_count + 1, sizeof(*p->mc_first),
				   &p->mc_first);
	if (!err && pl->nrec)
		err = ext2fs_get_array(pl->nrec, sizeof(*p->slot), &p->slot);
	if (err)
		return err;
	for (grp = 0; grp < g->group_count; grp++) {
		__u64 need = demand[grp] + carry;
		__u32 got;

		p->mc_first[grp] = p->nslot;
		got = p->slot ? zone_slots(pl, grp, need, p->slot + p->nslot) :
			0;
		p->nslot += got;
		carry = need - got;
		if (got)
			p->mc_groups++;
	}
	p->mc_first[g->group_count] = p->nslot;
	return 0;
}

/* The run starting at order index @i ends before the returned index. */
static __u32 run_end(struct planner *pl, __u32 i)
{
	__u32 first = pl->order[i], j = i + 1;

	while (j < pl->nrec && pl->rec[pl->order[j]].ino ==
	       pl->rec[first].ino && pl->home[pl->order[j]] == pl->home[first])
		j++;
	return j;
}

/*
 * A run (a file's records with one home) stays if it sits in slots,
 * ascending, from its home MC on: as a plan leaves it.  A run only partly
 * so is laid out again; since the layout is a deterministic fill around
 * what stays, it lands where it is, so a second run still moves nothing.
 */
static int run_in_place(struct planner *pl, __u32 i, __u32 end)
{
	__u32 prev = pl->p->mc_first[pl->home[pl->order[i]]], k;

	for (k = i; k < end; k++) {
		__u32 s = slot_index(pl->p, pl->rec[pl->order[k]].blk);

		if (s == NO_SLOT || s < prev || pl->owner[s])
			return 0;
		prev = s + 1;
	}
	return 1;
}

static void place(struct planner *pl, __u32 i, __u32 s)
{
	pl->owner[s] = i + 1;
	pl->rec[i].dest = pl->p->slot[s];
}

/*
 * Lay out every record, in processing order, into the slot space:
 * runs in place keep their slots; the other records fill the free slots in
 * order from their home MC on, through one cursor that only moves
 * forward.  So a file's indirect blocks land contiguous and in logical
 * order, files follow each other, a full MC overflows into the next
 * ones, and no slot is left behind unused.  Records the cursor cannot
 * place (the slot space ran out) take any slot still free, from the
 * first on; the rest stay where they are.
 */
static void assign_slots(struct planner *pl)
{
	const struct mp_plan *p = pl->p;
	__u32 i, k, r, end, cur = 0, any = 0;

	for (i = 0; i < pl->nrec; i = end) {
		end = run_end(pl, i);
		if (!run_in_place(pl, i, end))
			continue;
		for (k = i; k < end; k++) {
			r = pl->order[k];
			place(pl, r, slot_index(p, pl->rec[r].blk));
		}
	}
	for (i = 0; i < pl->nrec; i++) {
		r = pl->order[i];
		if (pl->rec[r].dest)
			continue;
		if (cur < p->mc_first[pl->home[r]])
			cur = p->mc_first[pl->home[r]];
		while (cur < p->nslot && pl->owner[cur])
			cur++;
		if (cur == p->nslot)
			break;
		place(pl, r, cur);
	}
	for (; i < pl->nrec; i++) {
		r = pl->order[i];
		if (pl->rec[r].dest)
			continue;
		while (any < p->nslot && pl->owner[any])
			any++;
		if (any == p->nslot)
			break;
		place(pl, r, any);
	}
	for (i = 0; i < pl->nrec; i++)
		if (!pl->rec[i].dest)
			pl->rec[i].dest = pl->rec[i].blk;
}

#define RND_1		1
#define RND_2		2
#define RND_PARK	4	/* parked in round 1, placed in round 2 */
#define RND_OUT		8	/* unplaced, evacuated from a slot */

static int rec_moves(const struct ind_rec *r)
{
	return r->dest != r->blk;
}

/*
 * The record or data block occupying slot @s when that slot has been
 * given to another record: what round 1 must empty.  Returns 0 when the
 * slot needs no evacuation.
 */
static int slot_needs_evac(struct planner *pl, __u32 s, const __u8 *rnd,
			   __u32 *xp, const struct data_ext **ep)
{
	blk64_t blk = pl->p->slot[s];
	__u32 r = pl->owner[s], x;

	*xp = NO_SLOT;
	*ep = NULL;
	if (!r || pl->rec[r - 1].blk == blk || !pl->ops->in_use(pl->priv, blk))
		return 0;
	x = rec_at(pl, blk);
	if (x != NO_SLOT) {
		*xp = x;
		return !rec_moves(&pl->rec[x]) || (rnd[x] & RND_2);
	}
	*ep = ext_at(pl, blk);
	return 1;
}

static __u64 evac_needed(struct planner *pl, __u8 *rnd)
{
	const struct data_ext *e;
	__u64 n = 0;
	__u32 i, x;

	for (i = 0; i < pl->nrec; i++) {
		struct ind_rec *r = &pl->rec[i];

		rnd[i] = !rec_moves(r) ? 0 :
			pl->ops->in_use(pl->priv, r->dest) ? RND_2 : RND_1;
	}
	for (i = 0; i < pl->p->nslot; i++)
		n += slot_needs_evac(pl, i, rnd, &x, &e);
	return n;
}

/* Free blocks the evacuations may use: all but the free assigned slots. */
static __u64 evac_room(struct planner *pl, __u64 free_blocks)
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

	while (i > 0 && pl->rec[pl->order[i - 1]].ino == pl->rec[last].ino &&
	       pl->home[pl->order[i - 1]] == pl->home[last]) {
		struct ind_rec *r = &pl->rec[pl->order[--i]];
		__u32 s;

		if (!rec_moves(r))
			continue;
		s = slot_index(pl->p, r->dest);
		if (s != NO_SLOT)
			pl->owner[s] = 0;
		r->dest = r->blk;
		pl->p->no_space++;
		(*dropped)++;
	}
	return i;
}

/*
 * Not enough free space to empty every slot: give up whole runs, last
 * placed first, doubling how many each time, until what is left fits.
 * Records in place are never given up; runs given up stay where they
 * are and are reported.
 */
static void fit_to_space(struct planner *pl, __u8 *rnd, __u64 free_blocks)
{
	__u32 i = pl->nrec, batch = 1;

	while (i > 0 && evac_needed(pl, rnd) > evac_room(pl, free_blocks)) {
		__u32 dropped = 0;

		while (i > 0 && dropped < batch)
			i = drop_run_before(pl, i, &dropped);
		batch *= 2;
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

	while (r < G && cur[r] == NO_SLOT)
		r = nxt[r];
	while (h < G && cur[h] == NO_SLOT && nxt[h] != r) {
		__u32 t = nxt[h];

		nxt[h] = r;
		h = t;
	}
	return r;
}

/* Try group @h's region for @pass; on failure mark it exhausted. */
static int region_alloc(struct planner *pl, int pass, __u32 h, blk64_t *out)
{
	const struct mp_geom *g = pl->g;
	__u32 *cur = pl->cursor + pass * g->group_count;
	blk64_t first = mp_group_first(g, h), start, end;

	if (cur[h] == NO_SLOT)
		return ENOSPC;
	start = pass ? mp_zone_first(g, h) : first;
	end = pass ? mp_group_last(g, h) : mp_zone_first(g, h) - 1;
	if (start < first + cur[h])
		start = first + cur[h];
	if (start <= end && end >= first &&
	    !pl->ops->find_free(pl->priv, start, end, out)) {
		pl->ops->take(pl->priv, *out);
		cur[h] = *out + 1 - first;
		return 0;
	}
	cur[h] = NO_SLOT;
	return ENOSPC;
}

/*
 * A free block for an evacuee from group @grp: in @grp itself first,
 * outside its tail zone and then inside it (data that stays in its group
 * keeps its file's locality, and under data homing keeps the indirect
 * blocks that map it homed where they are); then in the following
 * groups, outside the zones before inside them.  pl->cursor[] remembers
 * how far each group's search has got, so the whole evacuation is one
 * forward sweep per group.
 */
static int evac_alloc(struct planner *pl, __u32 grp, blk64_t *out)
{
	__u32 G = pl->g->group_count, h;
	int pass;

	for (pass = 0; pass < 2; pass++)
		if (!region_alloc(pl, pass, grp, out))
			return 0;
	for (pass = 0; pass < 2; pass++) {
		for (h = next_live(pl, pass, grp + 1); h < G;
		     h = next_live(pl, pass, h + 1))
			if (!region_alloc(pl, pass, h, out))
				return 0;
		for (h = next_live(pl, pass, 0); h < grp;
		     h = next_live(pl, pass, h + 1))
			if (!region_alloc(pl, pass, h, out))
				return 0;
	}
	return ENOSPC;
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

/* Empty slot @s for its new owner; see slot_needs_evac(). */
static errcode_t evacuate_slot(struct planner *pl, __u32 s, __u8 *rnd)
{
	struct mp_plan *p = pl->p;
	const struct data_ext *e;
	__u32 grp = mp_group_of(pl->g, p->slot[s]), x;
	struct ind_rec *r;
	blk64_t to;
	errcode_t err;

	if (!slot_needs_evac(pl, s, rnd, &x, &e))
		return 0;
	if (evac_alloc(pl, grp, &to))
		return EXT2_ET_BLOCK_ALLOC_FAIL;	/* fit_to_space() bug */
	if (e) {
		p->data_evacuated++;
		return add_move(p, 0, p->slot[s], to, e->ino, MV_DATA, 0);
	}
	if (x == NO_SLOT)
		return EXT2_ET_BLOCK_ALLOC_FAIL;	/* unknown occupant */
	r = &pl->rec[x];
	if (!rec_moves(r)) {
		rnd[x] = RND_OUT;
		r->dest = to;
		return add_move(p, 0, r->blk, to, r->ino, MV_OUT, r->level);
	}
	rnd[x] |= RND_PARK;
	p->temp_moves++;
	err = add_move(p, 0, r->blk, to, r->ino, MV_TEMP, r->level);
	if (!err)
		err = add_move(p, 1, to, r->dest, r->ino, MV_IND, r->level);
	return err;
}

static errcode_t emit_moves(struct planner *pl, __u8 *rnd)
{
	struct mp_plan *p = pl->p;
	errcode_t err = 0;
	__u32 i, s;

	for (s = 0; s < p->nslot; s++)
		if (pl->owner[s] && !pl->ops->in_use(pl->priv, p->slot[s]))
			pl->ops->take(pl->priv, p->slot[s]);
	for (s = 0; s < p->nslot && !err; s++)
		err = evacuate_slot(pl, s, rnd);
	for (i = 0; i < pl->nrec && !err; i++) {
		struct ind_rec *r = &pl->rec[i];

		if (!(rnd[i] & (RND_1 | RND_2)))
			continue;
		p->ind_moved++;
		if (rnd[i] & RND_PARK)
			continue;
		err = add_move(p, (rnd[i] & RND_2) ? 1 : 0, r->blk, r->dest,
			       r->ino, MV_IND, r->level);
	}
	return err;
}

/* Inside a metacluster: where @blk counts as packed. */
static int in_mc(struct planner *pl, blk64_t blk)
{
	return slot_index(pl->p, blk) != NO_SLOT;
}

static void count_figures(struct planner *pl)
{
	struct mp_plan *p = pl->p;
	__u32 i;

	for (i = 0; i < pl->nrec; i++) {
		p->before.in_mc += in_mc(pl, pl->rec[i].blk);
		if (in_mc(pl, pl->rec[i].dest))
			p->after.in_mc++;
		else
			p->unclustered++;
	}
}

static errcode_t planner_init(struct planner *pl)
{
	__u32 n = pl->nrec ? pl->nrec : 1, i;
	errcode_t err;

	err = ext2fs_get_array(n, sizeof(__u32), &pl->order);
	if (!err)
		err = ext2fs_get_array(n, sizeof(__u32), &pl->home);
	if (!err)
		err = ext2fs_get_array(n, sizeof(__u32), &pl->byblk);
	if (!err)
		err = ext2fs_get_arrayzero(2 * pl->g->group_count,
					   sizeof(__u32), &pl->cursor);
	if (!err)
		err = ext2fs_get_array(2 * pl->g->group_count, sizeof(__u32),
				       &pl->next_live);
	if (err)
		return err;
	for (i = 0; i < pl->nrec; i++)
		pl->byblk[i] = i;
	sort_rec = pl->rec;
	if (pl->nrec)
		qsort(pl->byblk, pl->nrec, sizeof(__u32), cmp_byblk);
	if (pl->next)
		qsort(pl->ext, pl->next, sizeof(*pl->ext), cmp_ext);
	return 0;
}

static void planner_free(struct planner *pl)
{
	ext2fs_free_mem(&pl->order);
	ext2fs_free_mem(&pl->home);
	ext2fs_free_mem(&pl->byblk);
	ext2fs_free_mem(&pl->owner);
	ext2fs_free_mem(&pl->cursor);
	ext2fs_free_mem(&pl->next_live);
}

/* One complete plan from the records' current homes. */
static errcode_t plan_once(struct planner *pl, __u8 *rnd)
{
	struct mp_plan *p = pl->p;
	const struct mp_geom *g = pl->g;
	__u32 *demand = NULL, i;
	errcode_t err;

	mp_plan_free(p);
	memset(p, 0, sizeof(*p));
	p->g = *g;
	p->homing = pl->homing;
	for (i = 0; i < pl->nrec; i++)
		pl->rec[i].dest = 0;
	memset(rnd, 0, pl->nrec + 1);
	memset(pl->cursor, 0, 2 * g->group_count * sizeof(__u32));
	for (i = 0; i < 2 * g->group_count; i++)
		pl->next_live[i] = i % g->group_count + 1;
	ext2fs_free_mem(&pl->owner);
	err = ext2fs_get_arrayzero(g->group_count, sizeof(*demand), &demand);
	if (!err)
		err = homes_and_order(pl, demand);
	if (!err)
		err = build_geometry(pl, demand);
	if (!err)
		err = ext2fs_get_arrayzero(p->nslot + 1, sizeof(__u32),
					   &pl->owner);
	ext2fs_free_mem(&demand);
	if (err)
		return err;
	assign_slots(pl);
	fit_to_space(pl, rnd, g->free_blocks);
	evac_needed(pl, rnd);
	return emit_moves(pl, rnd);
}

errcode_t mp_plan_build(struct mp_plan *p, const struct mp_geom *g,
			enum e3mp_homing homing, struct ind_rec *rec,
			__u32 nrec, struct data_ext *ext, __u32 next,
			const struct mp_space_ops *ops, void *priv)
{
	struct planner pl = { .p = p, .g = g, .rec = rec, .nrec = nrec,
			      .ext = ext, .next = next, .ops = ops,
			      .priv = priv, .homing = homing };
	__u8 *rnd = NULL;
	errcode_t err;

	memset(p, 0, sizeof(*p));
	err = planner_init(&pl);
	if (!err)
		err = ext2fs_get_arrayzero(nrec + 1, 1, &rnd);
	if (!err)
		err = plan_once(&pl, rnd);
	if (!err)
		count_figures(&pl);
	ext2fs_free_mem(&rnd);
	planner_free(&pl);
	if (err)
		mp_plan_free(p);
	return err;
}

void mp_plan_free(struct mp_plan *p)
{
	ext2fs_free_mem(&p->slot);
	ext2fs_free_mem(&p->mc_first);
	ext2fs_free_mem(&p->mv[0]);
	ext2fs_free_mem(&p->mv[1]);
	p->nslot = p->nmv[0] = p->nmv[1] = 0;
}
