/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * keyheap.c --- a binary min-heap of block numbers, and the sweeps on it
 *
 * prefetch.c reads a batch's indirect blocks in sweeps up the disk, and
 * a block read can name more blocks that join the sweep under way; the
 * heap gives the next block to read in O(log n).  predtool.c models the
 * same sweeps, through the same queue (struct mp_sweep).  The heap's
 * caller owns the array and its size.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "lib/keyheap.h"
#include "lib/array.h"

/* The order: block, then (of the same block) the greater value first. */
static int key_before(const struct mp_key *x, const struct mp_key *y)
{
	return x->blk < y->blk || (x->blk == y->blk && x->val > y->val);
}

/* Add @k to the @*n keys of @heap, which has room for one more. */
void mp_heap_push(struct mp_key *heap, __u32 *n, struct mp_key k)
{
	__u32 i = (*n)++, up;

	for (; i && key_before(&k, &heap[up = (i - 1) / 2]); i = up)
		heap[i] = heap[up];
	heap[i] = k;
}

/* Take the first key off @heap (@*n > 0). */
struct mp_key mp_heap_pop(struct mp_key *heap, __u32 *n)
{
	struct mp_key top = heap[0], last = heap[--*n];
	__u32 i = 0, c;

	while ((c = 2 * i + 1) < *n) {
		if (c + 1 < *n && key_before(&heap[c + 1], &heap[c]))
			c++;
		if (!key_before(&heap[c], &last))
			break;
		heap[i] = heap[c];
		i = c;
	}
	if (*n)
		heap[i] = last;
	return top;
}

/*
 * Want @k: in the sweep under way if it lies past @pos, the block the
 * sweep read last (or if nothing has been read in it yet: !@swept),
 * else in the next sweep.
 */
errcode_t mp_sweep_want(struct mp_sweep *q, struct mp_key k, int swept,
			blk64_t pos)
{
	errcode_t err;

	if (swept && k.blk <= pos) {
		err = mp_grow(&q->behind, &q->behind_alloc, q->nbehind,
			      sizeof(k));
		if (!err)
			q->behind[q->nbehind++] = k;
		return err;
	}
	err = mp_grow(&q->ahead, &q->ahead_alloc, q->nahead, sizeof(k));
	if (!err)
		mp_heap_push(q->ahead, &q->nahead, k);
	return err;
}

/* A sweep is done: what was left behind is the next one's. */
errcode_t mp_sweep_next(struct mp_sweep *q)
{
	errcode_t err = 0;

	while (q->nbehind && !err) {
		err = mp_grow(&q->ahead, &q->ahead_alloc, q->nahead,
			      sizeof(*q->ahead));
		if (!err)
			mp_heap_push(q->ahead, &q->nahead,
				     q->behind[--q->nbehind]);
	}
	return err;
}

void mp_sweep_free(struct mp_sweep *q)
{
	ext2fs_free_mem(&q->ahead);
	ext2fs_free_mem(&q->behind);
	q->nahead = q->ahead_alloc = q->nbehind = q->behind_alloc = 0;
}
