/*
 * fsckmodel.c --- e2fsck -fn's reads, in e2fsck 1.47's order, through
 * the model disk
 *
 * The order, as e2fsck's test_io read log shows it (-E readahead_kb=0,
 * one thread):
 *   1. the superblock and the group descriptors;
 *   2. the journal check: the journal inode's inode-table block, the
 *      journal's indirect blocks (its map is walked for holes), the
 *      journal superblock; the resize inode's DIND block and the reserved
 *      GDT blocks it maps;
 *   3. pass 1: the inode tables, group by group, 8 blocks at a time (the
 *      inode scan's buffer); a slow symlink's block as soon as the scan
 *      reaches its inode.  Inodes with indirect blocks or an
 *      extended-attribute block are deferred and handled in batches of
 *      at most 256, a batch flushed when full and at each group's end,
 *      sorted by i_block[EXT2_IND_BLOCK], then EA block, then inode
 *      number; for each inode its EA block (once: a shared one is read
 *      by its first owner), then its indirect blocks in pre-order.  A
 *      full batch is flushed as soon as its last inode is read, in the
 *      middle of the table;
 *   4. pass 2: the directory blocks sorted by block, with dir_index the
 *      directories' first blocks (htree roots) before the others;
 *   5. the block and inode bitmaps, group by group (pass 5 reads them).
 * e2fsck reads some blocks twice (the journal's map in pass 1 again);
 * the page cache serves those, so the walk reads each block once.  Not
 * modelled: extent-tree blocks, and the few blocks e2fsck reads out of
 * this order (the root directory's first block before pass 1).  Time
 * is linear in the blocks read; memory is one batch.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdlib.h>
#include <string.h>

#include "disk.h"

#define E2FSCK_BATCH	256
#define SCAN_CHUNK	8	/* EXT2_INODE_SCAN_DEFAULT_BUFFER_BLOCKS */

struct deferred {
	blk64_t		key;	/* i_block[EXT2_IND_BLOCK] */
	blk64_t		ea;	/* EA block, 0: none */
	int		ea_read;	/* ... read by this inode */
	__u32		ino;
	__u32		first;	/* first record */
	__u32		count;
	__u32		nind;	/* of them IND/DIND/TIND (not REC_DIR) */
};

struct walk {
	const struct mp_fsck_vol *v;
	const struct ind_rec	*rec;
	int			after;
	struct mp_disk		d;
	struct mp_prediction	*out;
	struct deferred		batch[E2FSCK_BATCH];
	__u32			n;
};

static void rd(struct walk *w, blk64_t blk, __u64 count, enum mp_kind k)
{
	w->out->ms[k] += mp_disk_read(&w->d, blk, count);
}

static blk64_t loc(const struct walk *w, const struct ind_rec *r)
{
	return w->after ? r->dest : r->blk;
}

static int cmp_deferred(const void *a, const void *b)
{
	const struct deferred *x = a, *y = b;

	if (x->key != y->key)
		return mp_cmp_u64(x->key, y->key);
	return x->ea != y->ea ? mp_cmp_u64(x->ea, y->ea) :
	       mp_cmp_u64(x->ino, y->ino);
}

static void flush(struct walk *w)
{
	__u32 i, k;

	qsort(w->batch, w->n, sizeof(w->batch[0]), cmp_deferred);
	for (i = 0; i < w->n; i++) {
		const struct deferred *d = &w->batch[i];

		if (d->ea_read)
			rd(w, d->ea, 1, MP_K_OTHER);
		/* the journal's map was read by the journal check */
		if (d->ino == w->v->journal_ino)
			continue;
		/* (a directory's own blocks are pass 2's: see pass2()) */
		for (k = d->first; k < d->first + d->count; k++)
			if (!(w->rec[k].flags & REC_DIR))
				rd(w, loc(w, &w->rec[k]), 1, MP_K_IND);
	}
	w->n = 0;
}

/* Superblock, descriptors, journal check, resize inode. */
static void prologue(struct walk *w, __u32 nrec)
{
	const struct mp_fsck_vol *v = w->v;
	unsigned int bs = v->blocksize;
	struct mp_group_io gi;
	__u32 i, ipg = v->g->inodes_per_group;

	rd(w, SUPERBLOCK_OFFSET / bs,
	   (SUPERBLOCK_OFFSET + SUPERBLOCK_SIZE + bs - 1) / bs -
	   SUPERBLOCK_OFFSET / bs, MP_K_OTHER);
	rd(w, v->desc_first, v->desc_blocks, MP_K_OTHER);
	if (v->journal_ino) {
		v->ops->group(v->priv, (v->journal_ino - 1) / ipg, &gi);
		rd(w, gi.itable + (__u64) ((v->journal_ino - 1) % ipg) *
		   v->inode_size / bs, 1, MP_K_ITABLE);
		for (i = 0; i < nrec; i++)
			if (w->rec[i].ino == v->journal_ino)
				rd(w, loc(w, &w->rec[i]), 1, MP_K_JOURNAL);
		rd(w, v->journal_sb, 1, MP_K_JOURNAL);
	}
	if (v->resize_dind) {
		rd(w, v->resize_dind, 1, MP_K_OTHER);
		rd(w, v->rgdt_first, v->rgdt_blocks, MP_K_OTHER);
	}
}

/* The next inode pass 1 has work for (0: none), from records @i, @j. */
static __u32 next_ino(const struct walk *w, __u32 i, __u32 j, __u32 nrec)
{
	__u32 a = i < nrec ? w->rec[i].ino : 0;
	__u32 b = j < w->v->nx ? w->v->x[j].ino : 0;

	return !a || (b && b < a) ? b : a;
}

/* Inode @d->ino's records and extras; returns its slow symlink block. */
static blk64_t take_inode(struct walk *w, struct deferred *d, __u32 *i,
			  __u32 *j, __u32 nrec)
{
	const struct mp_extra *x = w->v->x;
	blk64_t symlink = 0;

	d->first = *i;
	for (; *i < nrec && w->rec[*i].ino == d->ino; (*i)++) {
		if (w->rec[*i].level == 1 && (w->rec[*i].flags & REC_IN_INODE))
			d->key = loc(w, &w->rec[*i]);
		d->nind += !(w->rec[*i].flags & REC_DIR);
		d->count++;
	}
	for (; *j < w->v->nx && x[*j].ino == d->ino; (*j)++) {
		if (x[*j].kind == MP_X_SYMLINK) {
			symlink = x[*j].blk;
			continue;
		}
		d->ea = x[*j].blk;
		d->ea_read = x[*j].kind == MP_X_EA;
	}
	return symlink;
}

/*
 * Pass 1 over group @grp, whose inodes start at record *@i and extra
 * *@j: the inode table up to each inode with work, a full batch flushed
 * there.
 */
static void pass1_group(struct walk *w, __u32 grp, __u32 *i, __u32 *j,
			__u32 nrec)
{
	const struct mp_fsck_vol *v = w->v;
	__u32 ipg = v->g->inodes_per_group, upto = 0, ino, at;
	struct mp_group_io gi;
	blk64_t symlink;

	v->ops->group(v->priv, grp, &gi);
	while ((ino = next_ino(w, *i, *j, nrec)) && (ino - 1) / ipg == grp) {
		struct deferred d = { .ino = ino };

		symlink = take_inode(w, &d, i, j, nrec);
		at = (__u64) ((ino - 1) % ipg) * v->inode_size /
		     v->blocksize / SCAN_CHUNK * SCAN_CHUNK + SCAN_CHUNK;
		if (at > gi.itable_blocks)
			at = gi.itable_blocks;
		if (at > upto) {
			rd(w, gi.itable + upto, at - upto, MP_K_ITABLE);
			upto = at;
		}
		if (symlink)
			rd(w, symlink, 1, MP_K_OTHER);
		if (!d.nind && !d.ea)
			continue;
		w->batch[w->n++] = d;
		if (w->n == E2FSCK_BATCH)
			flush(w);
	}
	if (gi.itable_blocks > upto)
		rd(w, gi.itable + upto, gi.itable_blocks - upto, MP_K_ITABLE);
	flush(w);
}

/* Pass 2: one list sorted by block, or (dir_index) list 0 then list 1. */
static void pass2(struct walk *w)
{
	const struct mp_fsck_vol *v = w->v;
	blk64_t b[2] = { 0, 0 };
	int has[2], l;

	has[0] = v->ops->next_dir(v->priv, 0, 0, &b[0]);
	has[1] = v->ops->next_dir(v->priv, 1, 0, &b[1]);
	for (;;) {
		if (v->dir_index)
			l = has[0] ? 0 : 1;
		else
			l = has[0] && (!has[1] || b[0] < b[1]) ? 0 : 1;
		if (!has[l])
			return;
		rd(w, b[l], 1, MP_K_DIR);
		has[l] = v->ops->next_dir(v->priv, l, b[l] + 1, &b[l]);
	}
}

errcode_t mp_predict_fsck(const struct mp_fsck_vol *v,
			  const struct mp_disk_params *dp,
			  const struct ind_rec *rec, __u32 nrec, int after,
			  struct mp_prediction *out)
{
	struct walk *w;
	struct mp_group_io gi;
	__u32 grp, i = 0, j = 0;
	errcode_t err;
	int k;

	memset(out, 0, sizeof(*out));
	err = ext2fs_get_memzero(sizeof(*w), &w);
	if (err)
		return err;
	w->v = v;
	w->rec = rec;
	w->after = after;
	w->out = out;
	mp_disk_init(&w->d, dp, v->span, v->blocksize);
	prologue(w, nrec);
	for (grp = 0; grp < v->g->group_count; grp++)
		pass1_group(w, grp, &i, &j, nrec);
	pass2(w);
	for (grp = 0; grp < v->g->group_count; grp++) {
		v->ops->group(v->priv, grp, &gi);
		if (gi.bbitmap)
			rd(w, gi.bbitmap, 1, MP_K_BITMAP);
		if (gi.ibitmap)
			rd(w, gi.ibitmap, 1, MP_K_BITMAP);
	}
	for (k = 0; k < MP_K_COUNT; k++)
		out->total_ms += out->ms[k];
	out->reads = w->d.reads;
	out->seeks = w->d.seeks;
	out->blocks = w->d.blocks;
	ext2fs_free_mem(&w);
	return 0;
}
