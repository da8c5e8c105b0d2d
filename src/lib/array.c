/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * array.c --- growable arrays and binary search (array.h)
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "lib/array.h"
#include "e3mp_err.h"

errcode_t mp_grow(void *arrp, __u32 *alloc, __u32 n, size_t size)
{
	errcode_t err;
	__u32 want;

	if (n < *alloc)
		return 0;
	if (*alloc >= 0x80000000U)
		return E3MP_TOO_MANY;
	want = *alloc ? *alloc * 2 : 1024;
	err = ext2fs_resize_mem((unsigned long) *alloc * size,
				(unsigned long) want * size, arrp);
	if (!err)
		*alloc = want;
	return err;
}

__u32 mp_lower_bound(__u32 n, blk64_t key, mp_bsearch_cmp cmp,
		     const void *ctx)
{
	__u32 lo = 0, hi = n;

	while (lo < hi) {
		__u32 mid = lo + (hi - lo) / 2;

		if (cmp(ctx, mid, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int mp_bsearch(__u32 n, blk64_t key, mp_bsearch_cmp cmp, const void *ctx,
	       __u32 *at)
{
	__u32 i = mp_lower_bound(n, key, cmp, ctx);

	if (i == n || cmp(ctx, i, key))
		return 0;
	*at = i;
	return 1;
}

int mp_cmp_u32_at(const void *ctx, __u32 i, blk64_t key)
{
	return mp_cmp_u64(((const __u32 *) ctx)[i], key);
}

__u32 mp_find_u32(const __u32 *a, __u32 n, __u32 key)
{
	__u32 at;

	return mp_bsearch(n, key, mp_cmp_u32_at, a, &at) ? at : MP_NOT_FOUND;
}
