/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * walkorder.c --- the planner's side of the tree walk's order
 *
 * dirwalk.c ranks the directories in the order a tree walk visits them
 * (struct mp_geom's walk_ino and walk_rank); here the planner puts each
 * group's directory records in that order, and walk_decide() says which
 * groups are laid out afresh in it and which keep what is in place.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdlib.h>

#include "plan/walkorder.h"

/* Rank of directory @ino in the tree walk's order (WALK_NONE: none). */
static __u32 walk_rank(const struct mp_geom *g, __u32 ino)
{
	__u32 at = mp_find_u32(g->walk_ino, g->nwalk, ino);

	return at == WALK_NONE ? WALK_NONE : g->walk_rank[at];
}

static int cmp_key(const void *a, const void *b)
{
	return mp_cmp_u64(*(const __u64 *) a, *(const __u64 *) b);
}

/*
 * Order the directory records pl->order[lo, hi) (one group's, one
 * class) by their directory's rank in the tree walk, a directory's own
 * in the order they came (logical order); unranked ones last, in inode
 * order.
 */
errcode_t walk_sort(struct planner *pl, __u32 lo, __u32 hi)
{
	__u64 *key;
	__u32 i;
	errcode_t err;

	if (hi - lo < 2)
		return 0;
	err = ext2fs_get_array(hi - lo, sizeof(*key), &key);
	if (err)
		return err;
	for (i = lo; i < hi; i++)
		key[i - lo] = ((__u64) walk_rank(pl->g,
						 pl->rec[pl->order[i]].ino) <<
			       32) | pl->order[i];
	mp_sort(key, hi - lo, sizeof(*key), cmp_key);
	for (i = lo; i < hi; i++)
		pl->order[i] = (__u32) key[i - lo];
	ext2fs_free_mem(&key);
	return 0;
}

/*
 * Which directory buckets (a group's head-zone or tail directories) are
 * laid out afresh in the walk's order, and which keep what is in place
 * (of a directory, the blocks of it that are: layout.c), with only the
 * rest filled in.  A bucket is laid out afresh when fewer than half of
 * its directories have their first block in place: a first run, where
 * the walk's order is the point.  After a kernel session the new
 * directories are all that moves, and a rerun moves nothing: what a
 * plan lays out is in place next time, so the bucket is kept.
 */
static __u32 decide_bucket(struct planner *pl, __u32 i)
{
	__u32 b = bucket(pl, pl->order[i]), j, end, runs = 0, in = 0, k;
	int fresh;

	for (j = i; j < pl->norder && bucket(pl, pl->order[j]) == b;
	     j = end) {
		end = run_end(pl, j);
		runs++;
		in += run_prefix_end(pl, j, end) > j;
	}
	fresh = 2 * in < runs;
	for (k = i; k < j; k++)
		pl->fresh[k] = fresh;
	return j;
}

/* pl->fresh[] for every directory record of the processing order. */
errcode_t walk_decide(struct planner *pl)
{
	errcode_t err;
	__u32 i;

	err = ext2fs_get_arrayzero(pl->norder + 1, sizeof(*pl->fresh),
				   &pl->fresh);
	for (i = 0; !err && i < pl->norder;)
		if (pl->rec[pl->order[i]].flags & REC_DIR)
			i = decide_bucket(pl, i);
		else
			i++;
	return err;
}
