/*
 * prefetch.c --- read a batch of inodes' indirect blocks ahead, in block
 * order, level by level
 *
 * The scan walks each file's block map with libext2fs's iterator, which
 * reads an indirect block when it reaches it: inode by inode, so on a
 * volume whose indirect blocks are scattered, one positioning per block
 * in the order the inodes give.  e2fsck's pass 1 does better: it defers
 * the inodes that have indirect blocks and walks them sorted by their
 * first one.  Here the scan hands each batch of inodes (one group's, at
 * most SCAN_BATCH) to prefetch_inode() and prefetch_read() before it
 * walks them.  That reads
 * the blocks the inodes point to (IND, DIND, TIND) in block order,
 * neighbours merged into one request, then the blocks those name (the
 * DINDs' INDs, the TINDs' DINDs), then the last level, and keeps them
 * until the batch has been walked: io.c serves the iterator's reads of
 * them from here (prefetch_lookup()).  The walk, and every check it
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

#define PF_MAX_BYTES	(16U << 20)

/* A block to read: its number, and how many levels of pointers it holds. */
struct pf_want {
	blk64_t	blk;
	int	depth;			/* IND 1, DIND 2, TIND 3 */
};

/* A block read: where in data[] it is, and its depth as wanted. */
struct pf_slot {
	blk64_t	blk;
	__u32	slot;
	int	depth;
};

struct prefetch {
	struct pf_want	*want;		/* the level being read */
	__u32		nwant;
	__u32		want_alloc;
	struct pf_slot	*byblk;		/* cached blocks, by number */
	char		*data;		/* their contents, cap blocks */
	__u32		n, cap;
	unsigned int	bs;
};

static int cmp_want(const void *a, const void *b)
{
	const struct pf_want *x = a, *y = b;

	/* (deepest first: want_trim() keeps the first of a block's wants) */
	if (x->blk != y->blk)
		return mp_cmp_u64(x->blk, y->blk);
	return y->depth - x->depth;
}

static errcode_t want_add(struct prefetch *pf, ext2_filsys fs, blk64_t blk,
			  int depth)
{
	errcode_t err;

	if (!blk || blk < fs->super->s_first_data_block ||
	    blk >= ext2fs_blocks_count(fs->super))
		return 0;
	/* no more than the cache can take: the walk reads the rest */
	if (pf->nwant >= pf->cap - pf->n)
		return 0;
	err = mp_grow(&pf->want, &pf->want_alloc, pf->nwant, sizeof(*pf->want));
	if (err)
		return err;
	pf->want[pf->nwant].blk = blk;
	pf->want[pf->nwant++].depth = depth;
	return 0;
}

/* Sort the level, drop repeats, and keep what fits in the cache. */
static void want_trim(struct prefetch *pf)
{
	__u32 i, j;

	mp_sort(pf->want, pf->nwant, sizeof(*pf->want), cmp_want);
	for (i = j = 0; i < pf->nwant; i++)
		if (!j || pf->want[i].blk != pf->want[j - 1].blk)
			pf->want[j++] = pf->want[i];
	pf->nwant = j;
	if (pf->nwant > pf->cap - pf->n)
		pf->nwant = pf->cap - pf->n;
}

/*
 * One more block to read after a run that ends with a DIND, if there is
 * room: the allocators put a DIND's first IND right after it (ext3's
 * ext3_alloc_branch, mke2fs -d, e3metapack's own runs), so reading it
 * with the DIND spares the next level a seek back to it.  @room: cache
 * slots left for this run and the rest of the level.
 */
static __u32 run_extra(const struct prefetch *pf, ext2_filsys fs,
		       __u32 last, __u32 room)
{
	blk64_t next = pf->want[last].blk + 1;

	return pf->want[last].depth == 2 && room > 0 &&
	       next < ext2fs_blocks_count(fs->super);
}

/* Note the blocks of a run just read into the slots from pf->n on. */
static void run_note(struct prefetch *pf, __u32 i, __u32 len, __u32 extra)
{
	__u32 k;

	for (k = 0; k < len + extra; k++) {
		struct pf_slot *s = &pf->byblk[pf->n + k];

		s->blk = pf->want[i].blk + k;
		s->slot = pf->n + k;
		s->depth = k < len ? pf->want[i + k].depth : 0;
	}
	pf->n += len + extra;
}

/*
 * Read the level in runs of neighbouring blocks, in block order (so the
 * level's slots are sorted by block).  A read that fails fails the scan,
 * as the walk's own would (io.c notes it, with the request's first
 * block); a run read with one block more that fails is read again
 * without it, since the walk may never read that block.  *first: the
 * level's first slot.
 */
static errcode_t level_read(struct prefetch *pf, ext2_filsys fs,
			    __u32 *first)
{
	__u32 i, len, extra;
	errcode_t err;

	*first = pf->n;
	for (i = 0; i < pf->nwant; i += len) {
		for (len = 1; i + len < pf->nwant &&
		     pf->want[i + len].blk == pf->want[i].blk + len; len++)
			;
		extra = run_extra(pf, fs, i + len - 1,
				  pf->cap - pf->n - (pf->nwant - i));
		err = io_channel_read_blk64(fs->io, pf->want[i].blk,
					    len + extra, pf->data +
					    (size_t) pf->n * pf->bs);
		if (err && extra)
			err = io_channel_read_blk64(fs->io, pf->want[i].blk,
						    len, pf->data +
						    (size_t) pf->n * pf->bs);
		if (err)
			return err;
		run_note(pf, i, len, extra);
	}
	return 0;
}

static int cmp_slot(const void *ctx, __u32 i, blk64_t key);

/*
 * The pointers in the level just read (slots from @first on) that lead
 * to more pointers: the next level's wants, less the blocks this level
 * has already read (a DIND's first IND, read with it).
 */
static errcode_t level_next(struct prefetch *pf, ext2_filsys fs, __u32 first)
{
	struct prefetch level = *pf;
	__u32 addr = pf->bs / sizeof(__u32), i, k, at;
	errcode_t err = 0;

	level.byblk += first;
	level.n -= first;
	pf->nwant = 0;
	for (i = first; i < pf->n && !err; i++) {
		const __u32 *p = (const __u32 *)
			(pf->data + (size_t) i * pf->bs);

		if (pf->byblk[i].depth < 2)
			continue;
		for (k = 0; k < addr && !err; k++) {
			blk64_t blk = ext2fs_le32_to_cpu(p[k]);

			if (!mp_bsearch(level.n, blk, cmp_slot, &level, &at))
				err = want_add(pf, fs, blk,
					       pf->byblk[i].depth - 1);
		}
	}
	return err;
}

static int cmp_slot(const void *ctx, __u32 i, blk64_t key)
{
	return mp_cmp_u64(((const struct prefetch *) ctx)->byblk[i].blk, key);
}

static int cmp_byblk(const void *a, const void *b)
{
	return mp_cmp_u64(((const struct pf_slot *) a)->blk,
			  ((const struct pf_slot *) b)->blk);
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
		pf->cap = PF_MAX_BYTES / pf->bs;
		err = ext2fs_get_array(pf->cap, sizeof(*pf->byblk),
				       &pf->byblk);
		if (!err)
			err = ext2fs_get_array(pf->cap, pf->bs, &pf->data);
		if (err)
			return err;
	}
	pf->n = pf->nwant = 0;
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

/* Read what the batch's inodes point to, level by level. */
errcode_t prefetch_read(struct e3mp *mp)
{
	struct prefetch *pf = mp->pf;
	errcode_t err = 0;
	__u32 first;

	while (pf->nwant && !err) {
		want_trim(pf);
		err = level_read(pf, mp->fs, &first);
		if (!err)
			err = level_next(pf, mp->fs, first);
	}
	mp_sort(pf->byblk, pf->n, sizeof(*pf->byblk), cmp_byblk);
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
		mp->pf->n = mp->pf->nwant = 0;
}

void prefetch_free(struct e3mp *mp)
{
	struct prefetch *pf = mp->pf;

	if (!pf)
		return;
	ext2fs_free_mem(&pf->want);
	ext2fs_free_mem(&pf->byblk);
	ext2fs_free_mem(&pf->data);
	ext2fs_free_mem(&mp->pf);
}
