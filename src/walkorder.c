/*
 * walkorder.c --- the planner's side of the tree walk's order
 *
 * dirwalk.c ranks the directories in the order a tree walk visits them
 * (struct mp_geom's walk_ino and walk_rank); here the planner puts each
 * group's directory records in that order, and walk_decide() says which
 * groups are laid out afresh in it and which keep the runs in place.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdlib.h>

#include "planner.h"

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
 * laid out afresh in the walk's order, and which keep their runs that
 * are in place (a directory: the blocks of it that are, layout.c), with
 * only the others filled in.  A bucket is laid out afresh when more
 * than WALK_SLACK of its runs in place are out of the walk's order:
 * outside the longest subsequence of them whose slots rise with their
 * rank.  Runs not in place do not count: on a first run nothing is in
 * place and the bucket is laid out in the walk's order anyway, and
 * after a kernel session new directories are all that moves, however
 * many there are.  A rerun moves nothing: runs kept stay in place, those
 * filled in are in place next time, and the longest rising subsequence
 * can only grow, so a bucket once kept stays kept.
 */
#define WALK_SLACK(n)	((n) / 8)

/* Longest strictly rising subsequence of @s[0 .. @n) (patience). */
static __u32 rising(const __u32 *s, __u32 n, __u32 *tail)
{
	__u32 len = 0, i;

	for (i = 0; i < n; i++) {
		__u32 at = mp_lower_bound(len, s[i], mp_cmp_u32_at, tail);

		tail[at] = s[i];
		if (at == len)
			len++;
	}
	return len;
}

/* Decide the bucket of runs from order index @i on; returns its end. */
static __u32 decide_bucket(struct planner *pl, __u32 i, __u32 *slots,
			   __u32 *tail)
{
	__u32 b = bucket(pl, pl->order[i]), j, end, in = 0, k;
	int fresh;

	for (j = i; j < pl->norder && bucket(pl, pl->order[j]) == b;
	     j = end) {
		end = run_end(pl, j);
		if (run_prefix_end(pl, j, end) > j)
			slots[in++] = slot_index(pl->p,
						 pl->rec[pl->order[j]].blk);
	}
	fresh = in - rising(slots, in, tail) > WALK_SLACK(in);
	for (k = i; k < j; k++)
		pl->fresh[k] = fresh;
	return j;
}

/* pl->fresh[] for every directory record of the processing order. */
errcode_t walk_decide(struct planner *pl)
{
	__u32 *slots = NULL, *tail = NULL, i;
	errcode_t err;

	err = ext2fs_get_arrayzero(pl->norder + 1, sizeof(*pl->fresh),
				   &pl->fresh);
	if (!err)
		err = ext2fs_get_array(pl->norder + 1, sizeof(*slots), &slots);
	if (!err)
		err = ext2fs_get_array(pl->norder + 1, sizeof(*tail), &tail);
	for (i = 0; !err && i < pl->norder;)
		if (pl->rec[pl->order[i]].flags & REC_DIR)
			i = decide_bucket(pl, i, slots, tail);
		else
			i++;
	ext2fs_free_mem(&slots);
	ext2fs_free_mem(&tail);
	return err;
}

/* Record @i of the processing order is laid out afresh (walk_decide). */
int walk_placed(const struct planner *pl, __u32 i)
{
	return pl->fresh && pl->fresh[i];
}
