/*
 * keyheap.c --- a binary min-heap of block numbers
 *
 * prefetch.c reads a batch's indirect blocks in sweeps up the disk, and
 * a block read can name more blocks that join the sweep under way; the
 * heap gives the next block to read in O(log n).  predtool.c models the
 * same sweeps.  The caller owns the array and its size.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "plan.h"

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
