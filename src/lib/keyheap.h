/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * keyheap.h --- a min-heap of (block, value) and the sweep queue built
 * on it (keyheap.c)
 */
#ifndef E3MP_KEYHEAP_H
#define E3MP_KEYHEAP_H

#include <ext2fs/ext2fs.h>

/* A min-heap of (block, value), the least block on top. */
struct mp_key {
	blk64_t	blk;
	__u32	val;
};
void mp_heap_push(struct mp_key *heap, __u32 *n, struct mp_key k);
struct mp_key mp_heap_pop(struct mp_key *heap, __u32 *n);

/*
 * The blocks wanted by a reader that sweeps up the disk
 * (prefetch.c, and predtool.c's model of it): those ahead of the sweep
 * under way in a heap, those behind kept for the next sweep.
 */
struct mp_sweep {
	struct mp_key	*ahead;		/* this sweep's: a heap by block */
	__u32		nahead, ahead_alloc;
	struct mp_key	*behind;	/* the next sweep's */
	__u32		nbehind, behind_alloc;
};
errcode_t mp_sweep_want(struct mp_sweep *q, struct mp_key k, int swept,
			blk64_t pos);
errcode_t mp_sweep_next(struct mp_sweep *q);
void mp_sweep_free(struct mp_sweep *q);

#endif /* E3MP_KEYHEAP_H */
