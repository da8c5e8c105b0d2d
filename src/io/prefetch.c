/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * prefetch.c --- read a batch of inodes' indirect blocks ahead, in
 * sweeps up the disk
 *
 * The scan walks each file's block map with libext2fs's iterator, which
 * reads an indirect block when it reaches it: inode by inode, so on a
 * volume whose indirect blocks are scattered, one positioning per block
 * in the order the inodes give.  e2fsck's pass 1 does better: it defers
 * the inodes that have indirect blocks and walks them sorted by their
 * first one.  Here the scan hands each batch of inodes (scan.c) to
 * prefetch_inode() and prefetch_read() before it walks them.  That
 * reads the blocks the inodes point to (IND, DIND, TIND) in block order,
 * neighbours merged into one request; as a DIND or TIND comes in, the
 * blocks it names join the sweep if they lie ahead of it, else the next
 * sweep.  So a file whose indirect blocks lie in the
 * order of its data (mke2fs -d, the kernel's allocator, a packed run) is
 * read in one sweep, as e2fsck's own walk of it goes, and scattered ones
 * in at most one sweep a level.  The blocks are kept until the batch
 * has been walked: io.c serves the iterator's reads of them from here
 * (prefetch_lookup()).  The walk, and every check it
 * makes, is unchanged, in the same inode order, so the records and the
 * plan are too.  Nothing read ahead is trusted: a pointer outside the
 * volume is not followed (the walk refuses it), and a read that fails
 * fails the scan, as the walk's would.
 *
 * Memory: at most PF_MAX_BYTES of blocks, whatever the batch holds; what
 * does not fit is read by the walk as before.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdlib.h>
#include <string.h>

#include "e3metapack.h"
#include "lib/keyheap.h"

#define PF_MAX_BYTES	(16U << 20)

/* A block read: where in data[] it is, and its depth as wanted. */
struct pf_slot {
	blk64_t	blk;
	__u32	slot;
	int	depth;
};

struct prefetch {
	struct mp_sweep	q;		/* the blocks wanted */
	struct pf_slot	*byblk;		/* cached blocks, by number */
	char		*data;		/* their contents, cap blocks */
	__u32		n, cap;
	__u32		sorted;		/* byblk[0, sorted): earlier sweeps' */
	blk64_t		pos;		/* the sweep's last block read */
	unsigned int	bs;
};

/*
 * Want @blk, holding @depth levels of pointers: in this sweep if it lies
 * ahead of it, else in the next.  No more than the cache can take: the
 * walk reads the rest.
 */
static errcode_t want_add(struct prefetch *pf, ext2_filsys fs, blk64_t blk,
			  int depth)
{
	struct mp_key w = { blk, depth };	/* the deeper one first */

	if (!blk || blk < fs->super->s_first_data_block ||
	    blk >= ext2fs_blocks_count(fs->super))
		return 0;
	if (pf->q.nahead + pf->q.nbehind >= pf->cap - pf->n)
		return 0;
	return mp_sweep_want(&pf->q, w, pf->n > pf->sorted, pf->pos);
}

static int cmp_slot(const void *ctx, __u32 i, blk64_t key)
{
	return mp_cmp_u64(((const struct prefetch *) ctx)->byblk[i].blk, key);
}

/* Read already: in an earlier sweep, or in this one (ascending). */
static int cached(const struct prefetch *pf, blk64_t blk)
{
	struct prefetch now = *pf;
	__u32 at;

	if (mp_bsearch(pf->sorted, blk, cmp_slot, pf, &at))
		return 1;
	now.byblk += pf->sorted;
	return mp_bsearch(pf->n - pf->sorted, blk, cmp_slot, &now, &at);
}

/*
 * One more block to read after a run that ends with a DIND, if there is
 * room: the allocators put a DIND's first IND right after it (ext3's
 * ext3_alloc_branch, mke2fs -d, e3metapack's own runs), so reading it
 * with the DIND spares a request for it.
 */
static __u32 run_extra(const struct prefetch *pf, ext2_filsys fs,
		       __u32 len)
{
	const struct pf_slot *last = &pf->byblk[pf->n + len - 1];

	return last->depth == 2 &&
	       pf->n + len + pf->q.nahead + pf->q.nbehind < pf->cap &&
	       last->blk + 1 < ext2fs_blocks_count(fs->super) &&
	       !cached(pf, last->blk + 1);
}

/*
 * Take the next run of neighbouring blocks off the sweep's heap into the
 * slots from pf->n on, skipping repeats and what has been read; its
 * length, or 0 when the sweep is done.
 */
static __u32 run_take(struct prefetch *pf)
{
	int swept = pf->n > pf->sorted;	/* pf->pos is this sweep's */
	__u32 len = 0;

	while (pf->q.nahead && pf->n + len < pf->cap) {
		struct pf_slot *s = &pf->byblk[pf->n + len];
		blk64_t blk = pf->q.ahead[0].blk;
		blk64_t last = len ? s[-1].blk : pf->pos;

		if ((len || swept) && blk <= last) {
			mp_heap_pop(pf->q.ahead, &pf->q.nahead); /* twice */
			continue;
		}
		if (len && (blk != last + 1 || cached(pf, blk)))
			break;
		s->depth = mp_heap_pop(pf->q.ahead, &pf->q.nahead).val;
		if (cached(pf, blk))
			continue;
		s->blk = blk;
		s->slot = pf->n + len++;
	}
	return len;
}

/* Want what the pointer blocks in slots [@first, @end) name. */
static errcode_t run_children(struct prefetch *pf, ext2_filsys fs,
			      __u32 first, __u32 end)
{
	__u32 addr = pf->bs / sizeof(__u32), i, k;
	errcode_t err = 0;

	for (i = first; i < end && !err; i++) {
		const __u32 *p = (const __u32 *) (pf->data +
						  (size_t) i * pf->bs);

		for (k = 0; k < addr && !err && pf->byblk[i].depth > 1; k++) {
			blk64_t blk = ext2fs_le32_to_cpu(p[k]);

			if (!cached(pf, blk))
				err = want_add(pf, fs, blk,
					       pf->byblk[i].depth - 1);
		}
	}
	return err;
}

/*
 * Read one run, then want what its pointer blocks name: what lies ahead
 * of the sweep in this sweep, what lies behind in the next.  A read that
 * fails fails the scan, as the walk's own would (io.c notes it, with the
 * request's first block); a run read with one block more that fails is
 * read again without it, since the walk may never read that block.
 */
static errcode_t run_read(struct prefetch *pf, ext2_filsys fs, __u32 len)
{
	__u32 extra = run_extra(pf, fs, len), first = pf->n;
	struct pf_slot *s = &pf->byblk[first];
	char *buf = pf->data + (size_t) first * pf->bs;
	errcode_t err;

	err = io_channel_read_blk64(fs->io, s->blk, len + extra, buf);
	if (err && extra) {
		extra = 0;
		err = io_channel_read_blk64(fs->io, s->blk, len, buf);
	}
	if (err)
		return err;
	if (extra) {
		s[len].blk = s[len - 1].blk + 1;
		s[len].slot = first + len;
		s[len].depth = 0;
	}
	pf->n += len + extra;
	pf->pos = pf->byblk[pf->n - 1].blk;
	return run_children(pf, fs, first, first + len);
}

static int cmp_byblk(const void *a, const void *b)
{
	return mp_cmp_u64(((const struct pf_slot *) a)->blk,
			  ((const struct pf_slot *) b)->blk);
}

/* How many blocks the read-ahead cache holds. */
__u32 prefetch_blocks(ext2_filsys fs)
{
	return PF_MAX_BYTES / fs->blocksize;
}

/* Start a batch: nothing cached, nothing wanted. */
errcode_t prefetch_begin(struct e3mp *mp)
{
	struct prefetch *pf = mp->pf;
	errcode_t err;

	if (!pf) {
		err = ext2fs_get_memzero(sizeof(*pf), &pf);
		if (err)
			return err;
		mp->pf = pf;
		pf->bs = mp->fs->blocksize;
		pf->cap = prefetch_blocks(mp->fs);
		err = ext2fs_get_array(pf->cap, sizeof(*pf->byblk),
				       &pf->byblk);
		if (!err)
			err = ext2fs_get_array(pf->cap, pf->bs, &pf->data);
		if (err)
			return err;
	}
	pf->n = pf->sorted = pf->q.nahead = pf->q.nbehind = 0;
	return 0;
}

/*
 * Note the indirect blocks @inode points to, for prefetch_read(); the
 * scan passes only inodes whose block map it walks.
 */
errcode_t prefetch_inode(struct e3mp *mp, const struct ext2_inode_large *inode)
{
	int level;
	errcode_t err = 0;

	for (level = 1; level <= 3 && !err; level++)
		err = want_add(mp->pf, mp->fs,
			       inode->i_block[EXT2_NDIR_BLOCKS + level - 1],
			       level);
	return err;
}

/*
 * Read what the batch's inodes point to, in sweeps up the disk: each
 * sweep reads the blocks wanted ahead of it in block order, and as a
 * pointer block is read, the blocks it names that lie further up join
 * the sweep; those behind wait for the next.  A file whose indirect
 * blocks lie in the order of its data (as mke2fs -d and the kernel
 * write them, and as a packed run holds them) is read in one sweep, as
 * e2fsck's walk reads it; scattered ones take at most a sweep a level.
 */
errcode_t prefetch_read(struct e3mp *mp)
{
	struct prefetch *pf = mp->pf;
	errcode_t err = 0;
	__u32 len;

	while (pf->q.nahead && !err) {
		while (!err && (len = run_take(pf)) > 0)
			err = run_read(pf, mp->fs, len);
		mp_sort(pf->byblk, pf->n, sizeof(*pf->byblk), cmp_byblk);
		pf->sorted = pf->n;
		if (!err)
			err = mp_sweep_next(&pf->q);
	}
	return err;
}

/*
 * Serve a read of @count blocks at @blk from the batch's blocks, if they
 * are all there (the iterator reads one at a time).  1 if served.
 */
int prefetch_lookup(struct e3mp *mp, blk64_t blk, int count, void *buf)
{
	struct prefetch *pf = mp ? mp->pf : NULL;
	__u32 at;
	int i;

	if (!pf || !pf->n || count < 1)
		return 0;
	for (i = 0; i < count; i++) {
		if (!mp_bsearch(pf->n, blk + i, cmp_slot, pf, &at))
			return 0;
		memcpy((char *) buf + (size_t) i * pf->bs,
		       pf->data + (size_t) pf->byblk[at].slot * pf->bs,
		       pf->bs);
	}
	return 1;
}

/* Forget the batch's blocks: before any write, they could go stale. */
void prefetch_drop(struct e3mp *mp)
{
	if (mp && mp->pf)
		mp->pf->n = mp->pf->sorted = mp->pf->q.nahead =
			mp->pf->q.nbehind = 0;
}

void prefetch_free(struct e3mp *mp)
{
	struct prefetch *pf = mp->pf;

	if (!pf)
		return;
	mp_sweep_free(&pf->q);
	ext2fs_free_mem(&pf->byblk);
	ext2fs_free_mem(&pf->data);
	ext2fs_free_mem(&mp->pf);
}
