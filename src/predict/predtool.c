/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * predtool.c --- the run's own time on the model disk
 *
 * Feeds the replay of toolio.c with the requests a run will make, in
 * its order, from what the scan and the plan hold (no I/O):
 *
 *   open      superblock, descriptors, the journal inode's table block
 *             and the journal's block 0, each group's block bitmap
 *             (with its undo unit: bitmapio.c) and inode bitmap
 *             (ext2fs_read_bitmaps()), the root inode's block;
 *   scan      the inode tables, each read whole two groups ahead
 *             (scan.c's itable_readahead()), in the inode scan's
 *             8-block reads; each
 *             batch's indirect blocks (scan.c's batches of inodes in
 *             use, as it noted them; prefetch.c: in sweeps up the
 *             disk, a DIND with the block after it), read once
 *             the inode scan has read the next batch's first chunk,
 *             then what the read-ahead cache could not take, in walk
 *             order; then, when directories move,
 *             every directory block in block order (dirwalk.c);
 *   writes    the write order of core/order.c, step by step as
 *             main.c's repack() takes it: the superblock, then per
 *             round the copies (move.c: batches by source, their
 *             destinations and data read ahead, written by
 *             destination, each write kicked out: writeback.c), the
 *             pointer switch (fixptr.c: in inode order, the blocks
 *             undobound.c lists) and the release, each
 *             step ended by a barrier that writes the block bitmaps of
 *             the groups the step changed, the descriptors and the
 *             superblock, and syncs; round 1's release, when round 2
 *             follows, by round 2's first one.
 *
 * The undo manager's read of each unit before its first write is
 * toolio.c's.  The block sets are libext2fs bitmaps (red-black trees),
 * which grow with the runs read, as the scan's own do.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdlib.h>
#include <string.h>

#include "e3metapack.h"
#include "model/disk.h"
#include "predict/predict.h"
#include "core/iosizes.h"
#include "core/itable.h"
#include "core/order.h"
#include "lib/keyheap.h"

/* A batch's record: its first child and next sibling (NO_KID: none). */
struct pf_tree {
	__u32	kid, sib;
};

#define NO_KID	((__u32) -1)

struct tp {
	struct e3mp		*mp;
	ext2_filsys		fs;
	ext2fs_generic_bitmap	set[MP_S_COUNT];
	struct mp_toolio	t;
	struct pf_tree		*tree;		/* a batch's records' links */
	struct mp_sweep		q;		/* prefetch.c's sweeps */
	__u8			*dirty;		/* per group: bitmap changed */
	__u32			tree_alloc;
	__u32			rec;		/* next record to batch */
	__u32			cut;		/* next of mp->cut to reach */
};

static int set_find(void *priv, int set, int value, blk64_t start,
		    blk64_t end, blk64_t *out)
{
	struct tp *p = priv;

	if (value)
		return !ext2fs_find_first_set_block_bitmap2(p->set[set],
							    start, end, out);
	return !ext2fs_find_first_zero_block_bitmap2(p->set[set], start, end,
						     out);
}

static void set_mark(void *priv, int set, blk64_t blk, __u64 count,
		     int value)
{
	struct tp *p = priv;

	if (value)
		ext2fs_mark_block_bitmap_range2(p->set[set], blk, count);
	else
		ext2fs_unmark_block_bitmap_range2(p->set[set], blk, count);
}

static const struct mp_set_ops set_ops = {
	.find = set_find,
	.mark = set_mark,
};

static blk64_t super_blk(ext2_filsys fs)
{
	return fs->blocksize == SUPERBLOCK_OFFSET;
}

/* ext2fs_open2(), check_volume() and ext2fs_read_bitmaps(). */
static void read_open(struct tp *p)
{
	ext2_filsys fs = p->fs;
	int csum = ext2fs_has_group_desc_csum(fs);
	dgrp_t g;

	mp_toolio_read(&p->t, super_blk(fs), 1);
	mp_toolio_read(&p->t, fs->super->s_first_data_block + 1,
		       fs->desc_blocks);
	if (p->mp->model->journal_sb) {
		mp_toolio_read(&p->t, inode_table_block(fs,
				fs->super->s_journal_inum), 1);
		mp_toolio_read(&p->t, p->mp->model->journal_sb, 1);
	}
	for (g = 0; g < fs->group_desc_count; g++) {
		if (!(csum && ext2fs_bg_flags_test(fs, g,
						   EXT2_BG_BLOCK_UNINIT)))
			mp_toolio_read_unit(&p->t,
					    ext2fs_block_bitmap_loc(fs, g));
		if (!(csum && ext2fs_bg_flags_test(fs, g,
						   EXT2_BG_INODE_UNINIT)))
			mp_toolio_read(&p->t, ext2fs_inode_bitmap_loc(fs, g),
				       1);
	}
	mp_toolio_read(&p->t, inode_table_block(fs, EXT2_ROOT_INO), 1);
}

/*
 * Link the records of inodes @lo..@hi (the batch's, from p->rec on; *@n:
 * how many) to their DIND or TIND, the last one before them in the
 * walk's pre-order; *@roots: those i_block[] names (or whose parent is
 * not known), chained by sib.
 */
static errcode_t batch_tree(struct tp *p, __u32 lo, __u32 hi, __u32 *n,
			    __u32 *roots)
{
	const struct ind_rec *r = p->mp->rec + p->rec;
	__u32 i, up, last[5] = { 0 }, ino = 0, *head;
	errcode_t err = 0;

	*roots = NO_KID;
	for (i = 0; p->rec + i < p->mp->nrec && r[i].ino <= hi; i++) {
		err = mp_grow(&p->tree, &p->tree_alloc, i, sizeof(*p->tree));
		if (err)
			return err;
		p->tree[i].kid = NO_KID;
		if (r[i].ino < lo || !r[i].level || r[i].level > 3)
			continue;
		if (r[i].ino != ino)
			memset(last, 0, sizeof(last));
		ino = r[i].ino;
		up = last[r[i].level + 1];	/* index + 1, or 0 */
		head = (up && !(r[i].flags & REC_IN_INODE)) ?
			&p->tree[up - 1].kid : roots;
		p->tree[i].sib = *head;
		*head = i;
		last[r[i].level] = i + 1;
	}
	*n = i;
	return 0;
}

/* Want record @i's block in this sweep if it lies past @pos, else next. */
static errcode_t sweep_want(struct tp *p, __u32 i, int swept, blk64_t pos)
{
	struct mp_key k = { p->mp->rec[p->rec + i].blk, i };

	return mp_sweep_want(&p->q, k, swept, pos);
}

/*
 * prefetch_read() for the records linked by batch_tree(): sweeps up the
 * disk, a DIND with the block after it, a pointer block's children in
 * the sweep that reads it if they lie past it, else in the next; no more
 * than @cap blocks.
 */
static errcode_t batch_sweeps(struct tp *p, __u32 roots, __u32 cap)
{
	struct mp_sweep *q = &p->q;
	__u32 done = 0, i;
	blk64_t pos = 0;
	int swept;
	errcode_t err = 0;

	q->nahead = q->nbehind = 0;
	for (i = roots; i != NO_KID && !err; i = p->tree[i].sib)
		if (q->nahead < cap)
			err = sweep_want(p, i, 0, 0);
	while (q->nahead && !err) {
		for (swept = 0; q->nahead && !err; swept = 1) {
			struct mp_key k = mp_heap_pop(q->ahead, &q->nahead);

			if (swept && k.blk <= pos)
				continue;	/* wanted twice */
			mp_toolio_read(&p->t, k.blk, 1);
			pos = k.blk;
			done++;
			/* (a run ending in a DIND: one block more) */
			if (p->mp->rec[p->rec + k.val].level == 2 &&
			    !(q->nahead && q->ahead[0].blk == pos + 1) &&
			    done + q->nahead + q->nbehind < cap)
				mp_toolio_read(&p->t, ++pos, 1), done++;
			for (i = p->tree[k.val].kid; i != NO_KID && !err;
			     i = p->tree[i].sib)
				if (done + q->nahead + q->nbehind < cap)
					err = sweep_want(p, i, 1, pos);
		}
		if (!err)
			err = mp_sweep_next(q);
	}
	return err;
}

/* prefetch_read() for the batch of inodes @lo..@hi, then the walk. */
static errcode_t read_batch(struct tp *p, __u32 lo, __u32 hi)
{
	__u32 cap = prefetch_blocks(p->fs), n = 0, roots, i;
	errcode_t err;

	err = batch_tree(p, lo, hi, &n, &roots);
	if (!err)
		err = batch_sweeps(p, roots, cap);
	/* what the cache could not take, the walk reads (pre-order) */
	for (i = 0; i < n && !err; i++)
		if (p->mp->rec[p->rec + i].level)
			mp_toolio_read(&p->t, p->mp->rec[p->rec + i].blk, 1);
	p->rec += n;
	return err;
}

/*
 * Group @g's inode table in the inode scan's reads.  A batch (scan.c:
 * the inodes in use from one cut to the next, across groups) has its
 * indirect blocks read once the scan has read the chunk holding the next
 * batch's first inode; p->cut: the next cut to reach.
 */
static errcode_t read_group(struct tp *p, dgrp_t g)
{
	ext2_filsys fs = p->fs;
	const struct e3mp *mp = p->mp;
	struct mp_group_io gi;
	__u32 ipb = fs->blocksize / EXT2_INODE_SIZE(fs->super);
	__u32 ipg = fs->super->s_inodes_per_group, b = 0, cb;
	errcode_t err = 0;

	predict_group_io(p->mp, g, &gi);
	while (b < gi.itable_blocks && !err) {
		if (p->cut >= mp->model->ncut || (mp->model->cut[p->cut] - 1) / ipg != g) {
			mp_toolio_read(&p->t, gi.itable + b,
				       gi.itable_blocks - b);
			break;
		}
		cb = (mp->model->cut[p->cut] - 1) % ipg / ipb / MP_SCAN_CHUNK *
		     MP_SCAN_CHUNK;
		if (cb >= gi.itable_blocks)
			cb = gi.itable_blocks - 1;
		mp_toolio_read(&p->t, gi.itable + b, cb - b);
		mp_toolio_read(&p->t, gi.itable + cb,
			       gi.itable_blocks - cb < MP_SCAN_CHUNK ?
			       gi.itable_blocks - cb : MP_SCAN_CHUNK);
		err = read_batch(p, mp->model->cut[p->cut - 1],
				 mp->model->cut[p->cut] - 1);
		p->cut++;
		b = cb;
	}
	return err;
}

/* dirwalk.c: every directory block once, in block order. */
static errcode_t read_dirs(struct tp *p)
{
	struct mp_dblk *db = NULL;
	errcode_t err;
	__u32 n, i;

	err = dirs_by_block(p->mp, &db, &n);
	for (i = 0; !err && i < n; i++)
		mp_toolio_read(&p->t, db[i].blk, 1);
	ext2fs_free_mem(&db);
	return err;
}

/*
 * scan.c's itable_readahead(): group @g's whole inode table, asked for
 * two groups ahead of the scan (the first two before it starts).
 */
static void itable_ahead(struct tp *p, dgrp_t g)
{
	blk64_t b;

	if (g >= p->fs->group_desc_count)
		return;
	b = ext2fs_inode_table_loc(p->fs, g);
	if (b)
		mp_toolio_read(&p->t, b, p->fs->inode_blocks_per_group);
}

static errcode_t read_scan(struct tp *p)
{
	dgrp_t g;
	errcode_t err = 0;

	p->cut = 1;		/* the first batch starts the scan */
	itable_ahead(p, 0);
	itable_ahead(p, 1);
	for (g = 0; g < p->fs->group_desc_count && !err; g++) {
		err = read_group(p, g);
		itable_ahead(p, g + 2);
	}
	if (!err && p->mp->model->ncut)
		err = read_batch(p, p->mp->model->cut[p->mp->model->ncut - 1],
				 p->fs->super->s_inodes_count);
	if (!err && p->mp->geom.nwalk)
		err = read_dirs(p);
	return err;
}

/* The groups whose block bitmap the next bitmap barrier changes. */
static void bitmaps_touch(struct tp *p, const struct mp_move *mv, __u32 n,
			  int to)
{
	__u32 i;

	for (i = 0; i < n; i++)
		p->dirty[ext2fs_group_of_blk2(p->fs, to ? mv[i].to :
					      mv[i].from)] = 1;
}

/*
 * write_barrier(): ext2fs_flush2(), then a sync; after a step that
 * changed neither bitmaps nor counts (!@flush: the pointer switch), the
 * sync alone.  Of the block bitmaps ext2fs_write_bitmaps() writes, only
 * the changed ones reach the volume (bitmapio.c).
 */
static void barrier(struct tp *p, int flush)
{
	ext2_filsys fs = p->fs;
	blk64_t super, old_desc, new_desc;
	dgrp_t g;

	if (!flush) {
		mp_toolio_sync(&p->t);
		return;
	}
	for (g = 0; g < fs->group_desc_count; g++)
		if (p->dirty[g]) {
			mp_toolio_write(&p->t, ext2fs_block_bitmap_loc(fs, g),
					1);
			p->dirty[g] = 0;
		}
	for (g = 0; g < fs->group_desc_count; g++) {
		if (g && (fs->flags & EXT2_FLAG_MASTER_SB_ONLY))
			break;
		ext2fs_super_and_bgd_loc2(fs, g, &super, &old_desc,
					  &new_desc, NULL);
		if (g && super)
			mp_toolio_write(&p->t, super, 1);
		if (old_desc)
			mp_toolio_write(&p->t, old_desc, fs->desc_blocks);
		if (new_desc)
			mp_toolio_write(&p->t, new_desc, 1);
	}
	mp_toolio_write(&p->t, super_blk(fs), 1);
	mp_toolio_sync(&p->t);
}

struct pair {
	blk64_t	from, to;
	int	data;		/* the source is file data */
};

static int cmp_from(const void *a, const void *b)
{
	return mp_cmp_u64(((const struct pair *) a)->from,
			  ((const struct pair *) b)->from);
}

static int cmp_to(const void *a, const void *b)
{
	return mp_cmp_u64(((const struct pair *) a)->to,
			  ((const struct pair *) b)->to);
}

/*
 * The runs of neighbouring destinations of c[0..n) (sorted by
 * destination), at most @chunk blocks each: read (move.c's
 * dest_readahead(), the old contents the undo manager will save) or
 * written, each write followed by its kick (copy_batch()).
 */
static void dest_runs(struct tp *p, const struct pair *c, __u32 n,
		      __u32 chunk, int write)
{
	__u32 i, len;

	for (i = 0; i < n; i += len) {
		for (len = 1; i + len < n && len < chunk &&
		     c[i + len].to == c[i].to + len; len++)
			;
		if (!write) {
			mp_toolio_read(&p->t, c[i].to, len);
			continue;
		}
		mp_toolio_write(&p->t, c[i].to, len);
		mp_toolio_kick(&p->t);
	}
}

/*
 * move.c's copy_batch() for c[0..n) (sorted by source): with an undo
 * file, the destinations read ahead; the sources that are file data
 * read ahead, runs of neighbours as one request (source_readahead());
 * every source read in block order; then the destinations written in
 * block order, runs of neighbours of at most a writeback chunk, each
 * kicked out to the disk before the undo manager saves the next.
 */
static void copy_batch(struct tp *p, struct pair *c, __u32 n)
{
	__u32 i, len;

	mp_sort(c, n, sizeof(*c), cmp_to);
	if (p->t.unit)
		dest_runs(p, c, n, n, 0);
	mp_sort(c, n, sizeof(*c), cmp_from);
	for (i = 0; i < n; i += len) {
		for (len = 1; i + len < n && c[i + len].data &&
		     c[i + len].from == c[i].from + len; len++)
			;
		if (c[i].data)
			mp_toolio_read(&p->t, c[i].from, len);
	}
	for (i = 0; i < n; i++)
		mp_toolio_read(&p->t, c[i].from, 1);
	mp_sort(c, n, sizeof(*c), cmp_to);
	/* (a block is 64 KiB at most: a chunk holds 16 or more) */
	dest_runs(p, c, n, MP_WRITEBACK_CHUNK_BYTES / p->fs->blocksize, 1);
}

/* blocks_copy(): the moves in batches by source (move.c). */
static errcode_t write_copies(struct tp *p, const struct mp_move *mv,
			      __u32 n)
{
	__u32 per = MP_COPY_BATCH_BYTES / p->fs->blocksize, i, k;
	struct pair *c;
	errcode_t err;

	err = ext2fs_get_array(n, sizeof(*c), &c);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		c[i].from = mv[i].from;
		c[i].to = mv[i].to;
		c[i].data = !mv[i].level;
	}
	mp_sort(c, n, sizeof(*c), cmp_from);
	for (i = 0; i < n; i += k) {
		k = n - i < per ? n - i : per;
		copy_batch(p, c + i, k);
	}
	ext2fs_free_mem(&c);
	return 0;
}

static int cmp_ptr(const void *a, const void *b)
{
	const struct mp_ptr_write *x = a, *y = b;

	if (x->ino != y->ino)
		return mp_cmp_u64(x->ino, y->ino);
	if (x->in_inode != y->in_inode)
		return x->in_inode - y->in_inode;
	return mp_cmp_u64(x->blk, y->blk);
}

/*
 * A pointer write that changes the superblock's copy of the journal
 * inode's block map (fixptr.c's journal_backup_fix()): one in the inode.
 */
static int journal_backup_changes(ext2_filsys fs,
				  const struct mp_ptr_write *pw)
{
	struct ext2_super_block *sb = fs->super;

	if (!ext2fs_has_feature_journal(sb) || !sb->s_journal_inum ||
	    pw->ino != sb->s_journal_inum)
		return 0;
	return pw->in_inode || sb->s_jnl_backup_type != EXT3_JNL_BACKUP_BLOCKS;
}

/*
 * pointers_rewrite(): inode by inode, the blocks holding moved pointers
 * (read first: the page cache has them, from the scan or the copies),
 * the inode's table block last; *@super: whether the superblock
 * changed with them.
 */
static errcode_t write_pointers(struct tp *p, int round, int *super)
{
	struct mp_ptr_write *pw;
	__u32 n, i;
	errcode_t err;

	err = undo_pointer_writes(p->mp, round, &pw, &n);
	if (err)
		return err;
	mp_sort(pw, n, sizeof(*pw), cmp_ptr);
	*super = 0;
	for (i = 0; i < n; i++) {
		mp_toolio_read(&p->t, pw[i].blk, 1);
		mp_toolio_write(&p->t, pw[i].blk, 1);
		*super |= journal_backup_changes(p->fs, &pw[i]);
	}
	ext2fs_free_mem(&pw);
	return 0;
}

/*
 * One step of the write order (core/order.c), as the run takes it
 * (main.c's step_run()).  *@flush: something since the last barrier
 * changed the superblock, the descriptors or a bitmap, so that the
 * barrier writes them (write_barrier(): ext2fs_flush2()), not only
 * syncs.
 */
static errcode_t write_step(struct tp *p, const struct mp_step_at *s,
			    int *flush)
{
	const struct mp_plan *pl = &p->mp->plan;
	const struct mp_move *mv = pl->mv[s->round];
	__u32 n = pl->nmv[s->round];
	errcode_t err = 0;
	int super = 0;

	switch (s->step) {
	case MP_STEP_BEGIN:
		/* finish.c's super_block_save(), then the not-clean mark */
		mp_toolio_write(&p->t, super_blk(p->fs), 1);
		*flush = 1;
		break;
	case MP_STEP_RESERVE:
		bitmaps_touch(p, mv, n, 1);
		*flush = 1;
		break;
	case MP_STEP_COPY:
		err = write_copies(p, mv, n);
		break;
	case MP_STEP_SWITCH:
		err = write_pointers(p, s->round, &super);
		*flush |= super;
		break;
	case MP_STEP_RELEASE:
		bitmaps_touch(p, mv, n, 0);
		*flush = 1;
		break;
	case MP_STEP_BARRIER:
		barrier(p, *flush);
		*flush = 0;
		break;
	case MP_STEP_STOP:
		break;		/* no signal comes in the model */
	case MP_STEP_END:
		*flush = 1;
		break;
	}
	return err;
}

/* main.c's repack(): the write order, step by step. */
static errcode_t write_order(struct tp *p)
{
	struct mp_step_at s[MP_ORDER_MAX];
	__u32 n = mp_write_order(p->mp->plan.nmv, 0, s), i;
	errcode_t err = 0;
	int flush = 0;

	for (i = 0; i < n && !err; i++)
		err = write_step(p, &s[i], &flush);
	return err;
}

/*
 * From block 0 (a 1 KiB volume's undo unit starts there), and one block
 * past the end, always set: libext2fs 1.47's red-black tree finds no
 * zero bit at all in an empty tree (rb_find_first_zero()).
 */
static errcode_t sets_alloc(struct tp *p)
{
	blk64_t end = ext2fs_blocks_count(p->fs->super);
	errcode_t err = 0;
	int i;

	for (i = 0; i < MP_S_COUNT && !err; i++) {
		err = ext2fs_alloc_generic_bmap(p->fs,
				EXT2_ET_MAGIC_BLOCK_BITMAP64,
				EXT2FS_BMAP64_RBTREE, 0, end, end,
				"model page cache", &p->set[i]);
		if (!err)
			ext2fs_mark_block_bitmap2(p->set[i], end);
	}
	return err;
}

/*
 * The run's requests through the model disk: the model's tool figures.
 * Not predicted (valid 0) when nothing moves.
 */
errcode_t predict_tool(struct e3mp *mp)
{
	struct tp p = { .mp = mp, .fs = mp->fs };
	__u32 unit, skew;
	errcode_t err;
	int i;

	memset(&mp->model->tool, 0, sizeof(mp->model->tool));
	if (!(mp->plan.nmv[0] + mp->plan.nmv[1]))
		return 0;
	undo_unit_blocks(mp, mp->undo_unit, &unit, &skew);
	err = ext2fs_get_arrayzero(mp->fs->group_desc_count, 1, &p.dirty);
	if (!err)
		err = sets_alloc(&p);
	if (!err) {
		mp_toolio_init(&p.t, &mp->opt.disk,
			       ext2fs_blocks_count(mp->fs->super),
			       mp->fs->blocksize, unit, skew, &set_ops, &p);
		read_open(&p);
		err = read_scan(&p);
	}
	if (!err) {
		mp->model->tool.scan_ms = p.t.read_ms;
		err = write_order(&p);
	}
	if (!err) {
		mp->model->tool.valid = 1;
		mp->model->tool.read_ms = p.t.read_ms;
		mp->model->tool.write_ms = p.t.write_ms;
		mp->model->tool.total_ms = p.t.read_ms + p.t.write_ms;
		mp->model->tool.reads = p.t.reads;
		mp->model->tool.writes = p.t.writes;
		mp->model->tool.seeks = p.t.d.seeks;
	}
	for (i = 0; i < MP_S_COUNT; i++)
		if (p.set[i])
			ext2fs_free_generic_bmap(p.set[i]);
	ext2fs_free_mem(&p.tree);
	mp_sweep_free(&p.q);
	ext2fs_free_mem(&p.dirty);
	return err;
}
