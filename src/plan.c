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
 * Moves come in two rounds, because a destination may only be written
 * while nothing on disk refers to it: round 1 takes destinations that
 * are free now and empties the slots that are not (data is evacuated,
 * indirect blocks waiting for round 2 are parked); round 2 fills the
 * slots round 1 released.  evacuate.c does that part.
 *
 * The data flow: mp_plan_build() -> planner_init() (records by block,
 * extents by start) -> plan_layout(): homes_and_order() (each record's
 * home group, the processing order, demand per group) ->
 * build_geometry() (the slot space) -> assign_slots() (each record's
 * dest) -> fit_to_space() and emit_moves() (evacuate.c) ->
 * count_figures().
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdlib.h>
#include <string.h>

#include "planner.h"

static errcode_t planner_init(struct planner *pl);
static void planner_free(struct planner *pl);
static errcode_t plan_layout(struct planner *pl);
static errcode_t homes_and_order(struct planner *pl, __u32 *demand);
static errcode_t build_geometry(struct planner *pl, const __u32 *demand);
static void assign_slots(struct planner *pl);
static void count_figures(struct planner *pl);

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
		count_figures(&pl);
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

/* Each record's destination, then the moves that take it there. */
static errcode_t plan_layout(struct planner *pl)
{
	__u32 *demand = NULL;
	errcode_t err;

	err = ext2fs_get_arrayzero(pl->g->group_count, sizeof(*demand),
				   &demand);
	if (!err)
		err = homes_and_order(pl, demand);
	if (!err)
		err = build_geometry(pl, demand);
	if (!err)
		err = ext2fs_get_arrayzero(pl->p->nslot + 1, sizeof(__u32),
					   &pl->owner);
	ext2fs_free_mem(&demand);
	if (err)
		return err;
	assign_slots(pl);
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
	ext2fs_free_mem(&pl->rnd);
	ext2fs_free_mem(&pl->cursor);
	ext2fs_free_mem(&pl->next_live);
}

int mp_bsearch(__u32 n, blk64_t key, mp_bsearch_cmp cmp, const void *ctx,
	       __u32 *at)
{
	__u32 lo = 0, hi = n;

	while (lo < hi) {
		__u32 mid = lo + (hi - lo) / 2;
		int c = cmp(ctx, mid, key);

		if (c == 0) {
			*at = mid;
			return 1;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

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
 * Records @a and @b are of one run: the same file, the same home, both
 * indirect blocks or both directory blocks.
 */
int same_run(const struct planner *pl, __u32 a, __u32 b)
{
	return pl->rec[a].ino == pl->rec[b].ino &&
	       pl->home[a] == pl->home[b] &&
	       !(pl->rec[a].flags & REC_DIR) == !(pl->rec[b].flags & REC_DIR);
}

/* ---- homes, and the slot space ------------------------------------ */

/* Bucket of the processing order: a group's directories after its INDs. */
static __u32 bucket(const struct planner *pl, __u32 i)
{
	return 2 * pl->home[i] + !!(pl->rec[i].flags & REC_DIR);
}

/*
 * Home every record, count demand per group, and build the processing
 * order: a stable counting sort by home group, and in each group the
 * indirect blocks before the directory blocks.  The scan order it starts
 * from is inode order (inodes come in group order), so under inode
 * homing the indirect blocks of a group keep it, and the directories
 * follow them in inode order, each in logical order: e2fsck pass 2 reads
 * the blocks of a group's directories in one forward sweep, and a tree
 * walk finds each directory's blocks together.
 */
static errcode_t homes_and_order(struct planner *pl, __u32 *demand)
{
	const struct mp_geom *g = pl->g;
	__u32 *start = NULL, i;
	errcode_t err;

	err = ext2fs_get_arrayzero(2 * g->group_count + 1, sizeof(*start),
				   &start);
	if (err)
		return err;
	for (i = 0; i < pl->nrec; i++) {
		pl->home[i] = mp_home(g, pl->homing, &pl->rec[i]);
		if (pl->home[i] >= g->group_count)
			pl->home[i] = g->group_count - 1;
		if (rec_kept(pl, i))
			continue;
		demand[pl->home[i]]++;
		start[bucket(pl, i) + 1]++;
		pl->norder++;
	}
	for (i = 0; i < 2 * g->group_count; i++)
		start[i + 1] += start[i];
	for (i = 0; i < pl->nrec; i++)
		if (!rec_kept(pl, i))
			pl->order[start[bucket(pl, i)]++] = i;
	ext2fs_free_mem(&start);
	return 0;
}

/*
 * Free blocks and blocks of movable files can be MC slots.  Under data
 * homing, the first data block under an indirect block is its anchor: it
 * decides the block's home, so it never moves (were it evacuated into
 * another group, the home would move with it and the next run would move
 * the indirect block again).  A kept first IND is stepped around like
 * fixed metadata, so it is never evicted.
 */
static int eligible(struct planner *pl, blk64_t blk)
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

/* ---- each record's slot ------------------------------------------- */

/* The run starting at order index @i ends before the returned index. */
static __u32 run_end(struct planner *pl, __u32 i)
{
	__u32 j = i + 1;

	while (j < pl->norder && same_run(pl, pl->order[j], pl->order[i]))
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

	for (i = 0; i < pl->norder; i = end) {
		end = run_end(pl, i);
		if (!run_in_place(pl, i, end))
			continue;
		for (k = i; k < end; k++) {
			r = pl->order[k];
			place(pl, r, slot_index(p, pl->rec[r].blk));
		}
	}
	for (i = 0; i < pl->norder; i++) {
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
	for (; i < pl->norder; i++) {
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

/* ---- figures for the report --------------------------------------- */

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
		if (pl->rec[i].flags & REC_DIR) {
			p->dir_blocks++;
			p->dir_before += in_mc(pl, pl->rec[i].blk);
			p->dir_after += in_mc(pl, pl->rec[i].dest);
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
}

/* ---- geometry, shared with the scan -------------------------------- */

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

/*
 * Kept where it is by the rule: under the inline rule, a file's first
 * IND block (level 1, pointed to from i_block[12]).  The allocator put it
 * right after the 12th data block, where a sequential read of the file
 * finds it without a seek.
 */
int mp_rec_kept(enum e3mp_homing h, const struct ind_rec *r)
{
	return h == E3MP_HOME_INLINE && r->level == 1 &&
	       (r->flags & REC_IN_INODE);
}

/*
 * A directory's blocks, and the indirect blocks that map them, are homed
 * with the directory's inode under every rule: its data moves there, so
 * homing its indirect blocks by where the data was would move them again
 * on the next run.
 */
__u32 mp_home(const struct mp_geom *g, enum e3mp_homing h,
	      const struct ind_rec *r)
{
	if (h == E3MP_HOME_DATA && !(r->flags & (REC_DIR | REC_OF_DIR)))
		return r->data_group;
	return (r->ino - 1) / g->inodes_per_group;
}
