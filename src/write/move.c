/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * move.c --- copy blocks to their destinations, in large sorted batches
 *
 * A batch is read in source order, coalescing runs of consecutive
 * sources into one request, then written in destination order,
 * coalescing consecutive destinations, so the device sees two forward
 * sweeps per batch instead of a seek per block.  Each block is read
 * straight into its place in destination order, so one buffer serves
 * both sweeps.  Writes go out in chunks, each followed by a kick to the
 * kernel's writeback (writeback.c).  Copies only ever land on blocks
 * that nothing on disk refers to (see finish.c), so they can be written
 * in any order.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdlib.h>

#include "e3metapack.h"
#include "core/iosizes.h"

struct copy {
	blk64_t		from;
	blk64_t		to;
	__u32		buf;	/* index of the block in the buffer */
	__u32		data;	/* the source is file data */
};

static int cmp_from(const void *a, const void *b)
{
	const struct copy *x = a, *y = b;

	return mp_cmp_u64(x->from, y->from);
}

static int cmp_to(const void *a, const void *b)
{
	const struct copy *x = a, *y = b;

	return mp_cmp_u64(x->to, y->to);
}

/* Length of the run at @i whose destinations follow on. */
static __u32 to_run(const struct copy *c, __u32 i, __u32 n)
{
	__u32 k = i + 1;

	while (k < n && c[k].to == c[k - 1].to + 1)
		k++;
	return k - i;
}

/* ... whose sources follow on, and their places in the buffer too. */
static __u32 from_run(const struct copy *c, __u32 i, __u32 n)
{
	__u32 k = i + 1;

	while (k < n && c[k].from == c[k - 1].from + 1 &&
	       c[k].buf == c[k - 1].buf + 1)
		k++;
	return k - i;
}

/*
 * On a cold cache, ask for what a batch reads before reading any of it,
 * so the reads overlap: first, when the undo file saves them, the old
 * contents of the destinations (c[0..n) sorted by destination) ...
 */
static void dest_readahead(struct e3mp *mp, const struct copy *c, __u32 n)
{
	__u32 i, len;

	for (i = 0; mp->undo_path && i < n; i += len) {
		len = to_run(c, i, n);
		(void) io_channel_cache_readahead(mp->fs->io, c[i].to, len);
	}
}

/*
 * ... then the sources that are file data (c[0..n) sorted by source; the
 * scan has read the indirect blocks already).
 */
static void source_readahead(struct e3mp *mp, const struct copy *c,
			     __u32 n)
{
	__u32 i, len;

	for (i = 0; i < n; i += len) {
		for (len = 1; i + len < n && c[i + len].data &&
		     c[i + len].from == c[i].from + len; len++)
			;
		if (c[i].data)
			(void) io_channel_cache_readahead(mp->fs->io,
							  c[i].from, len);
	}
}

/*
 * -d 0x2: one line per batch, once it is written: its blocks, the
 * requests the coalescing made of them, and the ranges it swept
 * (c[0..n) sorted by destination; @lo, @hi: its first and last source).
 */
static void debug_batch(struct e3mp *mp, const struct copy *c, __u32 n,
			blk64_t lo, blk64_t hi, __u32 reads, __u32 writes)
{
	if (!mp->debug_io)
		return;
	fprintf(mp->debug_io, "copy batch: %u blocks, %u reads, %u writes, "
		"from %llu..%llu to %llu..%llu\n", n, reads, writes,
		(unsigned long long) lo, (unsigned long long) hi,
		(unsigned long long) c[0].to,
		(unsigned long long) c[n - 1].to);
}

/* Copy c[0..n) (in any order) through @buf, which holds n blocks. */
static errcode_t copy_batch(struct e3mp *mp, struct copy *c, __u32 n,
			    char *buf)
{
	ext2_filsys fs = mp->fs;
	size_t bs = fs->blocksize;
	__u32 i, len, chunk = writeback_chunk(mp), reads = 0, writes = 0;
	blk64_t lo, hi;
	errcode_t err;

	mp_sort(c, n, sizeof(*c), cmp_to);
	for (i = 0; i < n; i++)
		c[i].buf = i;
	dest_readahead(mp, c, n);
	mp_sort(c, n, sizeof(*c), cmp_from);
	source_readahead(mp, c, n);
	mp->err_op = "reading";
	for (i = 0; i < n; i += len, reads++) {
		len = from_run(c, i, n);
		mp->err_blk = c[i].from;
		err = io_channel_read_blk64(fs->io, c[i].from, len,
					    buf + c[i].buf * bs);
		if (err)
			return err;
	}
	lo = c[0].from;
	hi = c[n - 1].from;
	mp_sort(c, n, sizeof(*c), cmp_to);
	mp->err_op = "writing";
	for (i = 0; i < n; i += len, writes++) {
		len = to_run(c, i, n);
		if (len > chunk)
			len = chunk;
		mp->err_blk = c[i].to;
		err = io_channel_write_blk64(fs->io, c[i].to, len,
					     buf + i * bs);
		if (err)
			return err;
		writeback_kick(mp);
	}
	debug_batch(mp, c, n, lo, hi, reads, writes);
	return 0;
}

errcode_t blocks_copy(struct e3mp *mp, struct mp_move *mv, __u32 n)
{
	ext2_filsys fs = mp->fs;
	__u32 per = MP_COPY_BATCH_BYTES / fs->blocksize, i, k;
	struct copy *c = NULL;
	char *buf = NULL;
	errcode_t err;

	if (!n)
		return 0;
	if (per > n)
		per = n;
	err = ext2fs_get_array(n, sizeof(*c), &c);
	if (!err)
		err = ext2fs_get_array(per, fs->blocksize, &buf);
	if (err)
		goto out;
	for (i = 0; i < n; i++) {
		c[i].from = mv[i].from;
		c[i].to = mv[i].to;
		c[i].data = !mv[i].level;
	}
	mp_sort(c, n, sizeof(*c), cmp_from);
	for (i = 0; i < n; i += k) {
		k = n - i < per ? n - i : per;
		err = copy_batch(mp, c + i, k, buf);
		if (err)
			goto out;
		if (mp->progress)
			mp->progress(mp, E3MP_PHASE_COPY, i + k, n);
	}
out:
	ext2fs_free_mem(&c);
	ext2fs_free_mem(&buf);
	return err;
}
