/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * array.h --- growable arrays, sorting and binary search: the generic
 * helpers of every stage (array.c)
 */
#ifndef E3MP_ARRAY_H
#define E3MP_ARRAY_H

#include <stdlib.h>

#include <ext2fs/ext2fs.h>

/* An index that names no entry: what a search that failed returns. */
#define MP_NOT_FOUND	((__u32) -1)

/* Three-way comparison of block numbers and other keys, for sorting. */
static inline int mp_cmp_u64(__u64 a, __u64 b)
{
	return (a > b) - (a < b);
}

/* qsort() comparator of block numbers. */
static inline int mp_cmp_blk(const void *a, const void *b)
{
	return mp_cmp_u64(*(const blk64_t *) a, *(const blk64_t *) b);
}

/*
 * qsort() for arrays that may be empty and so never allocated: C leaves
 * qsort(NULL, 0, ...) undefined, and one or no element is sorted anyway.
 */
static inline void mp_sort(void *base, size_t n, size_t size,
			   int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

/*
 * Make room in the array at *@arrp (*@alloc entries of @size bytes) for
 * entry @n, doubling it from 1024 entries: appending stays linear.
 */
errcode_t mp_grow(void *arrp, __u32 *alloc, __u32 n, size_t size);

/*
 * Binary search over @n entries sorted by block: @cmp(ctx, i, key) says
 * whether entry i lies below (< 0), at (0) or above (> 0) block @key.
 * Returns 1 and sets *@at to the entry found, else 0.
 */
typedef int (*mp_bsearch_cmp)(const void *ctx, __u32 i, blk64_t key);
int mp_bsearch(__u32 n, blk64_t key, mp_bsearch_cmp cmp, const void *ctx,
	       __u32 *at);

/* The first of those @n entries not below @key (@n: none). */
__u32 mp_lower_bound(__u32 n, blk64_t key, mp_bsearch_cmp cmp,
		     const void *ctx);

/*
 * mp_bsearch_cmp over a __u32 array @ctx; mp_find_u32(): its index of
 * @key, or MP_NOT_FOUND.
 */
int mp_cmp_u32_at(const void *ctx, __u32 i, blk64_t key);
__u32 mp_find_u32(const __u32 *a, __u32 n, __u32 key);

#endif /* E3MP_ARRAY_H */
