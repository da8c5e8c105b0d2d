/*
 * move.c --- copy blocks to their destinations, in large sorted batches
 *
 * A batch is read in source order, coalescing runs of consecutive
 * sources into one request, then written in destination order,
 * coalescing consecutive destinations, so the device sees two forward
 * sweeps per batch instead of a seek per block.  Copies only ever land
 * on blocks that nothing on disk refers to (see finish.c), so they can be
 * written in any order.
 */
#include <stdlib.h>
#include <string.h>

#include "e3metapack.h"

#define BATCH_BYTES	(8U << 20)

struct copy {
	blk64_t		from;
	blk64_t		to;
	__u32		buf;	/* index of the block in the read buffer */
};

static int cmp_from(const void *a, const void *b)
{
	const struct copy *x = a, *y = b;

	return (x->from > y->from) - (x->from < y->from);
}

static int cmp_to(const void *a, const void *b)
{
	const struct copy *x = a, *y = b;

	return (x->to > y->to) - (x->to < y->to);
}

/* Length of the run at @i whose sources (or destinations) follow on. */
static __u32 run_len(const struct copy *c, __u32 i, __u32 n, int by_to)
{
	__u32 k = i + 1;

	while (k < n && (by_to ? c[k].to == c[k - 1].to + 1 :
			 c[k].from == c[k - 1].from + 1))
		k++;
	return k - i;
}

/* c[0..n) is sorted by source; read it into @in, write it from @out. */
static errcode_t copy_batch(struct e3mp *mp, struct copy *c, __u32 n,
			    char *in, char *out)
{
	ext2_filsys fs = mp->fs;
	size_t bs = fs->blocksize;
	__u32 i, len;
	errcode_t err;

	for (i = 0; i < n; i += len) {
		len = run_len(c, i, n, 0);
		mp->err_blk = c[i].from;
		mp->err_what = "reading";
		err = io_channel_read_blk64(fs->io, c[i].from, len,
					    in + i * bs);
		if (err)
			return err;
	}
	for (i = 0; i < n; i++)
		c[i].buf = i;
	qsort(c, n, sizeof(*c), cmp_to);
	for (i = 0; i < n; i++)
		memcpy(out + i * bs, in + c[i].buf * bs, bs);
	for (i = 0; i < n; i += len) {
		len = run_len(c, i, n, 1);
		mp->err_blk = c[i].to;
		mp->err_what = "writing";
		err = io_channel_write_blk64(fs->io, c[i].to, len,
					     out + i * bs);
		if (err)
			return err;
	}
	return 0;
}

errcode_t blocks_copy(struct e3mp *mp, struct mp_move *mv, __u32 n)
{
	ext2_filsys fs = mp->fs;
	__u32 per = BATCH_BYTES / fs->blocksize, i, k;
	struct copy *c = NULL;
	char *in = NULL, *out = NULL;
	errcode_t err;

	if (!n)
		return 0;
	err = ext2fs_get_array(n, sizeof(*c), &c);
	if (!err)
		err = ext2fs_get_array(per, fs->blocksize, &in);
	if (!err)
		err = ext2fs_get_array(per, fs->blocksize, &out);
	if (err)
		goto out;
	for (i = 0; i < n; i++) {
		c[i].from = mv[i].from;
		c[i].to = mv[i].to;
	}
	qsort(c, n, sizeof(*c), cmp_from);
	for (i = 0; i < n; i += k) {
		k = n - i < per ? n - i : per;
		err = copy_batch(mp, c + i, k, in, out);
		if (err)
			goto out;
		if (mp->progress)
			mp->progress(mp, E3MP_PHASE_COPY, i + k, n);
	}
out:
	ext2fs_free_mem(&c);
	ext2fs_free_mem(&in);
	ext2fs_free_mem(&out);
	return err;
}
