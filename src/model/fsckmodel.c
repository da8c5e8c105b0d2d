/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fsckmodel.c --- e2fsck -fn's reads, in e2fsck 1.47's order, through
 * the model kernel (kernel.c) or straight to the model disk
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
 *      middle of the table.  An htree directory's root block (its block
 *      0: handle_htree()) is read after its indirect blocks, so at once
 *      for a directory that has none;
 *   4. pass 2: the directory blocks sorted by block, with dir_index the
 *      directories' first blocks before the others, the htree roots
 *      pass 1 read left out; after the run, a block the plan moves
 *      (REC_DIR) at its destination;
 *   5. the block and inode bitmaps, group by group (pass 5 reads them).
 * With its default options (the walk through the kernel) e2fsck also
 * reads ahead: at pass 1's start and whenever the scan reaches the last
 * buffer of the last group read ahead, the inode tables in use of as
 * many next groups as pass its readahead_kb (two tables' worth); in
 * pass 2, a readahead_kb's worth of the list an eighth ahead, every 7/8
 * of it.  Its reads are then one pread() each (a table's buffer, a
 * block), as the kernel sees them.  The bitmaps come after pass 2, the
 * block bitmaps first in group order, then the inode bitmaps by one
 * thread per CPU taking turns, as bench/emudisk logged them.
 * e2fsck reads some blocks twice (the journal's map in pass 1 again);
 * the page cache serves those, so the walk reads each block once.  Not
 * modelled: extent-tree blocks, and the few blocks e2fsck reads out of
 * this order (the root directory's first block before pass 1).  Time
 * is linear in the blocks read; memory is one batch and pass 2's list.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdlib.h>
#include <string.h>

#include "model/disk.h"
#include "model/kernel.h"
#include "core/iosizes.h"

struct deferred {
	blk64_t		key;	/* i_block[EXT2_IND_BLOCK] */
	blk64_t		ea;	/* EA block, 0: none */
	int		ea_read;	/* ... read by this inode */
	__u32		ino;
	__u32		first;	/* first record */
	__u32		count;
	__u32		nind;	/* of them IND/DIND/TIND (not REC_DIR) */
	blk64_t		htree;	/* htree root, 0: none */
};

struct walk {
	const struct mp_fsck_vol *v;
	const struct ind_rec	*rec;
	int			after;
	struct mp_disk		d;
	const struct mp_fsck_env *env;
	struct mp_kernel	*k;	/* NULL: e2fsck's reads to the disk */
	__u32			ra_group;	/* next to read ahead */
	struct mp_prediction	*out;
	struct deferred		batch[MP_E2FSCK_BATCH];
	__u32			n;
	blk64_t			*roots;	/* htree roots pass 1 read */
	__u32			nroots, roots_alloc;
	errcode_t		err;	/* (of growing roots) */
};

/* A read (@ahead: an fadvise) of @count blocks, charged to kind @k. */
static void io(struct walk *w, blk64_t blk, __u64 count, enum mp_kind k,
	       int ahead)
{
	__u64 reads, seeks;

	if (!w->k) {
		reads = w->d.reads;
		seeks = w->d.seeks;
		w->out->ms[k] += mp_disk_read(&w->d, blk, count);
		w->out->kind_reads[k] += w->d.reads - reads;
		w->out->kind_seeks[k] += w->d.seeks - seeks;
		return;
	}
	reads = w->k->drive.requests;
	seeks = w->k->drive.seeks;
	w->out->ms[k] += ahead ? mp_kern_willneed(w->k, blk, count) :
		mp_kern_read(w->k, blk, count);
	w->out->kind_reads[k] += w->k->drive.requests - reads;
	w->out->kind_seeks[k] += w->k->drive.seeks - seeks;
}

static void rd(struct walk *w, blk64_t blk, __u64 count, enum mp_kind k)
{
	io(w, blk, count, k, 0);
}

/* Blocks e2fsck reads one pread() each (to the disk: one request). */
static void rd_each(struct walk *w, blk64_t blk, __u64 count,
		    enum mp_kind k)
{
	__u64 i;

	if (!w->k) {
		rd(w, blk, count, k);
		return;
	}
	for (i = 0; i < count; i++)
		rd(w, blk + i, 1, k);
}

static blk64_t loc(const struct walk *w, const struct ind_rec *r)
{
	return w->after ? r->dest : r->blk;
}

/* An htree root, read in pass 1: pass 2 finds it in the page cache. */
static void read_root(struct walk *w, blk64_t blk)
{
	__u32 want = w->roots_alloc ? 2 * w->roots_alloc : 64;
	errcode_t err;

	rd(w, blk, 1, MP_K_DIR);
	if (w->nroots == w->roots_alloc) {
		err = ext2fs_resize_mem(w->roots_alloc * sizeof(*w->roots),
					want * sizeof(*w->roots), &w->roots);
		if (err) {
			w->err = err;
			return;
		}
		w->roots_alloc = want;
	}
	w->roots[w->nroots++] = blk;
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

	mp_sort(w->batch, w->n, sizeof(w->batch[0]), cmp_deferred);
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
		if (d->htree)
			read_root(w, d->htree);
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
		rd_each(w, v->rgdt_first, v->rgdt_blocks, MP_K_OTHER);
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
	blk64_t symlink = 0, dir0 = 0;

	d->first = *i;
	for (; *i < nrec && w->rec[*i].ino == d->ino; (*i)++) {
		if (w->rec[*i].level == 1 && (w->rec[*i].flags & REC_IN_INODE))
			d->key = loc(w, &w->rec[*i]);
		/* (a directory's block 0, where the plan puts it) */
		if ((w->rec[*i].flags & REC_DIR) && !w->rec[*i].logical)
			dir0 = loc(w, &w->rec[*i]);
		d->nind += !(w->rec[*i].flags & REC_DIR);
		d->count++;
	}
	for (; *j < w->v->nx && x[*j].ino == d->ino; (*j)++) {
		if (x[*j].kind == MP_X_SYMLINK) {
			symlink = x[*j].blk;
			continue;
		}
		if (x[*j].kind == MP_X_HTREE) {
			d->htree = dir0 ? dir0 : x[*j].blk;
			continue;
		}
		d->ea = x[*j].blk;
		d->ea_read = x[*j].kind == MP_X_EA;
	}
	return symlink;
}

/*
 * e2fsck's read-ahead of inode tables (pass1_readahead()): from group
 * @start, the tables of as many groups as make more than its
 * readahead_kb, those with an inode in use; the next read-ahead when the
 * scan is in the last of them.
 */
static void itable_ahead(struct walk *w, __u32 start)
{
	const struct mp_fsck_vol *v = w->v;
	__u64 limit = (__u64) w->env->fsck_ra_kb * 1024, bytes = 0, run = 0;
	struct mp_group_io gi;
	blk64_t first = 0;
	__u32 g, x;

	for (g = start; g < v->g->group_count; g++) {
		v->ops->group(v->priv, g, &gi);
		bytes += (__u64) gi.itable_blocks * v->blocksize;
		if (bytes > limit)
			break;
	}
	/* (one fadvise per run: flex_bg's tables are contiguous) */
	for (x = start; x <= g && x < v->g->group_count; x++) {
		v->ops->group(v->priv, x, &gi);
		if (!gi.in_use || !gi.itable_blocks)
			continue;
		if (run && gi.itable == first + run) {
			run += gi.itable_blocks;
			continue;
		}
		if (run)
			io(w, first, run, MP_K_ITABLE, 1);
		first = gi.itable;
		run = gi.itable_blocks;
	}
	if (run)
		io(w, first, run, MP_K_ITABLE, 1);
	w->ra_group = g + 1;
}

/*
 * The inode table of group @grp read up to block @at, in the scan's
 * buffers; the read-ahead once the scan is in the last group it covers.
 */
static void scan_to(struct walk *w, __u32 grp, const struct mp_group_io *gi,
		    __u32 *upto, __u32 at)
{
	__u32 n;

	if (!w->k) {
		if (at > *upto)
			rd(w, gi->itable + *upto, at - *upto, MP_K_ITABLE);
		*upto = at > *upto ? at : *upto;
		return;
	}
	while (*upto < at) {
		n = gi->itable_blocks - *upto;
		n = n < MP_SCAN_CHUNK ? n : MP_SCAN_CHUNK;
		rd(w, gi->itable + *upto, n, MP_K_ITABLE);
		*upto += n;
		if (w->env->fsck_ra_kb && grp + 1 >= w->ra_group &&
		    *upto + MP_SCAN_CHUNK > gi->itable_blocks)
			itable_ahead(w, grp + 1);
	}
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
	if (w->k && w->env->fsck_ra_kb && !gi.itable_blocks &&
	    grp + 1 >= w->ra_group)
		itable_ahead(w, grp + 1);
	while ((ino = next_ino(w, *i, *j, nrec)) && (ino - 1) / ipg == grp) {
		struct deferred d = { .ino = ino };

		symlink = take_inode(w, &d, i, j, nrec);
		at = (__u64) ((ino - 1) % ipg) * v->inode_size /
		     v->blocksize / MP_SCAN_CHUNK * MP_SCAN_CHUNK + MP_SCAN_CHUNK;
		scan_to(w, grp, &gi, &upto, at < gi.itable_blocks ? at :
			gi.itable_blocks);
		if (symlink)
			rd(w, symlink, 1, MP_K_OTHER);
		if (!d.nind && !d.ea) {
			if (d.htree)
				read_root(w, d.htree);
			continue;
		}
		w->batch[w->n++] = d;
		if (w->n == MP_E2FSCK_BATCH)
			flush(w);
	}
	scan_to(w, grp, &gi, &upto, gi.itable_blocks);
	flush(w);
}

/*
 * Where pass 2 finds the directory blocks: the volume's lists (ops) or,
 * after a run that moves some, the lists at their destinations, sorted.
 */
struct dirlist {
	blk64_t		*b;
	__u64		n, at;
};

/* The next block of list @l from @start, past the roots pass 1 read. */
static int next_blk(struct walk *w, struct dirlist *dl, int l,
		    blk64_t start, blk64_t *out)
{
	int has;

	do {
		if (!dl)
			has = w->v->ops->next_dir(w->v->priv, l, start, out);
		else if ((has = dl[l].at < dl[l].n))
			*out = dl[l].b[dl[l].at++];
		start = *out + 1;
	} while (has && w->nroots &&
		 bsearch(out, w->roots, w->nroots, sizeof(*out), mp_cmp_blk));
	return has;
}

/*
 * e2fsck's read-ahead of the directory blocks from entry @from of pass
 * 2's list: @n entries, one fadvise per run of consecutive blocks.
 */
static void dir_ahead(struct walk *w, const blk64_t *b, __u64 nb,
		      __u64 from, __u64 n)
{
	__u64 i, run = 0;

	for (i = from; i < nb && i < from + n; i++) {
		if (run && b[i] == b[i - 1] + 1) {
			run++;
			continue;
		}
		if (run)
			io(w, b[i - run], run, MP_K_DIR, 1);
		run = 1;
	}
	if (run)
		io(w, b[i - run], run, MP_K_DIR, 1);
}

/*
 * Pass 2's reads of its list @b (check_dir_block2()): with read-ahead,
 * every 7/8 of readahead_kb's worth of entries, the next readahead_kb's
 * worth an eighth ahead.
 */
static void pass2_read(struct walk *w, const blk64_t *b, __u64 nb)
{
	__u64 ra = w->k ? (__u64) w->env->fsck_ra_kb * 1024 /
		w->v->blocksize : 0, next = 0, i;

	for (i = 0; i < nb; i++) {
		if (ra && i >= next) {
			dir_ahead(w, b, nb, i + ra / 8, ra);
			next = i + ra * 7 / 8;
		}
		rd(w, b[i], 1, MP_K_DIR);
	}
}

/* Pass 2: one list sorted by block, or (dir_index) list 0 then list 1. */
static errcode_t pass2(struct walk *w, struct dirlist *dl)
{
	const struct mp_fsck_vol *v = w->v;
	blk64_t b[2] = { 0, 0 }, *order = NULL;
	__u64 n = 0, alloc = 0;
	errcode_t err = 0;
	int has[2], l;

	if (w->nroots)
		mp_sort(w->roots, w->nroots, sizeof(*w->roots), mp_cmp_blk);
	has[0] = next_blk(w, dl, 0, 0, &b[0]);
	has[1] = next_blk(w, dl, 1, 0, &b[1]);
	for (;;) {
		if (v->dir_index)
			l = has[0] ? 0 : 1;
		else
			l = has[0] && (!has[1] || b[0] < b[1]) ? 0 : 1;
		if (!has[l])
			break;
		if (n == alloc) {
			err = ext2fs_resize_mem(alloc * sizeof(*order),
						(alloc ? 2 * alloc : 256) *
						sizeof(*order), &order);
			if (err)
				break;
			alloc = alloc ? 2 * alloc : 256;
		}
		order[n++] = b[l];
		has[l] = next_blk(w, dl, l, b[l] + 1, &b[l]);
	}
	if (!err)
		pass2_read(w, order, n);
	ext2fs_free_mem(&order);
	return err;
}

/* A moved directory block: the moves, sorted by @from, are searched. */
struct dirmove {
	blk64_t		from, to;
};

static int cmp_move(const void *a, const void *b)
{
	return mp_cmp_blk(&((const struct dirmove *) a)->from,
		       &((const struct dirmove *) b)->from);
}

static blk64_t moved_to(const struct dirmove *mv, __u32 n, blk64_t blk)
{
	struct dirmove key = { blk, 0 };
	const struct dirmove *m;

	m = bsearch(&key, mv, n, sizeof(*mv), cmp_move);
	return m ? m->to : blk;
}

/* List @l of the volume, each block at its destination, sorted. */
static errcode_t dest_list(struct walk *w, int l, const struct dirmove *mv,
			   __u32 nmv, struct dirlist *out)
{
	const struct mp_fsck_vol *v = w->v;
	blk64_t b = 0;
	__u64 n = 0;
	errcode_t err;

	for (; v->ops->next_dir(v->priv, l, b, &b); b++)
		n++;
	err = ext2fs_get_array(n ? n : 1, sizeof(*out->b), &out->b);
	if (err)
		return err;
	b = 0;
	for (out->n = 0; out->n < n &&
	     v->ops->next_dir(v->priv, l, b, &b); b++)
		out->b[out->n++] = moved_to(mv, nmv, b);
	mp_sort(out->b, out->n, sizeof(*out->b), mp_cmp_blk);
	out->at = 0;
	return 0;
}

/*
 * Pass 2 after the run: the directory blocks the plan moves (REC_DIR
 * records whose destination differs) are read where they will be, which
 * changes their order, so both lists are rebuilt and sorted again.
 */
static errcode_t pass2_after(struct walk *w, __u32 nrec)
{
	struct dirlist dl[2] = { { NULL, 0, 0 }, { NULL, 0, 0 } };
	struct dirmove *mv;
	__u32 i, n = 0;
	errcode_t err;

	for (i = 0; i < nrec; i++)
		n += (w->rec[i].flags & REC_DIR) &&
		     w->rec[i].dest != w->rec[i].blk;
	if (!n)
		return pass2(w, NULL);
	err = ext2fs_get_array(n, sizeof(*mv), &mv);
	if (err)
		return err;
	for (i = n = 0; i < nrec; i++)
		if ((w->rec[i].flags & REC_DIR) &&
		    w->rec[i].dest != w->rec[i].blk)
			mv[n++] = (struct dirmove) { w->rec[i].blk,
						     w->rec[i].dest };
	mp_sort(mv, n, sizeof(*mv), cmp_move);
	err = dest_list(w, 0, mv, n, &dl[0]);
	if (!err)
		err = dest_list(w, 1, mv, n, &dl[1]);
	if (!err)
		err = pass2(w, dl);
	ext2fs_free_mem(&dl[0].b);
	ext2fs_free_mem(&dl[1].b);
	ext2fs_free_mem(&mv);
	return err;
}

/* The bitmaps, as e2fsck's pass 5 reads them (test_io's order). */
static void bitmaps_direct(struct walk *w)
{
	const struct mp_fsck_vol *v = w->v;
	struct mp_group_io gi;
	__u32 grp;

	for (grp = 0; grp < v->g->group_count; grp++) {
		v->ops->group(v->priv, grp, &gi);
		if (gi.bbitmap)
			rd(w, gi.bbitmap, 1, MP_K_BITMAP);
		if (gi.ibitmap)
			rd(w, gi.ibitmap, 1, MP_K_BITMAP);
	}
}

/* Thread @t of @n's groups, as ext2fs_rw_bitmaps() splits them. */
static void thread_range(__u32 groups, __u32 n, __u32 t, __u32 *first,
			 __u32 *last)
{
	__u32 avg = groups / n;

	*first = t ? avg * t + 1 : 0;
	*last = t == n - 1 ? groups - 1 : avg * (t + 1);
}

/* Thread @t's next inode bitmap not cached, from its group *@g. */
static blk64_t next_ibitmap(struct walk *w, __u32 *g, __u32 last)
{
	struct mp_group_io gi;

	while (*g <= last) {
		w->v->ops->group(w->v->priv, (*g)++, &gi);
		if (gi.ibitmap && !mp_kern_cached(w->k, gi.ibitmap))
			return gi.ibitmap;
	}
	return 0;
}

/*
 * The bitmaps after pass 2, as the real e2fsck reads them: the block
 * bitmaps group by group, then the inode bitmaps by one thread per CPU,
 * each over its range of groups, their reads taking turns at the disk
 * (a cached one costs a thread nothing).
 */
static void bitmaps_threads(struct walk *w)
{
	const struct mp_fsck_vol *v = w->v;
	__u32 groups = v->g->group_count, n = w->env->threads, t;
	__u32 g[MP_FSCK_MAX_THREADS], last[MP_FSCK_MAX_THREADS];
	struct mp_group_io gi;
	blk64_t b;
	int busy;

	for (t = 0; t < groups; t++) {
		v->ops->group(v->priv, t, &gi);
		if (gi.bbitmap)
			rd(w, gi.bbitmap, 1, MP_K_BITMAP);
	}
	n = n > groups ? groups : n;
	n = n > MP_FSCK_MAX_THREADS ? MP_FSCK_MAX_THREADS : n ? n : 1;
	if (groups / n == 0)
		n = 1;
	for (t = 0; t < n; t++)
		thread_range(groups, n, t, &g[t], &last[t]);
	do {
		busy = 0;
		for (t = 0; t < n; t++)
			if ((b = next_ibitmap(w, &g[t], last[t]))) {
				rd(w, b, 1, MP_K_BITMAP);
				busy = 1;
			}
	} while (busy);
}

static errcode_t walk_volume(struct walk *w, __u32 nrec)
{
	__u32 grp, i = 0, j = 0;
	errcode_t err;

	prologue(w, nrec);
	if (w->k && w->env->fsck_ra_kb)
		itable_ahead(w, 0);
	for (grp = 0; grp < w->v->g->group_count; grp++)
		pass1_group(w, grp, &i, &j, nrec);
	err = w->after ? pass2_after(w, nrec) : pass2(w, NULL);
	if (!err)
		err = w->err;
	if (err)
		return err;
	if (w->k)
		bitmaps_threads(w);
	else
		bitmaps_direct(w);
	return 0;
}

errcode_t mp_predict_fsck(const struct mp_fsck_vol *v,
			  const struct mp_disk_params *dp,
			  const struct mp_fsck_env *env,
			  const struct ind_rec *rec, __u32 nrec, int after,
			  struct mp_prediction *out)
{
	struct walk *w;
	errcode_t err;
	int k;

	memset(out, 0, sizeof(*out));
	err = ext2fs_get_memzero(sizeof(*w), &w);
	if (err)
		return err;
	if (env)
		err = ext2fs_get_memzero(sizeof(*w->k), &w->k);
	if (err) {
		ext2fs_free_mem(&w);
		return err;
	}
	w->v = v;
	w->rec = rec;
	w->after = after;
	w->out = out;
	w->env = env;
	mp_disk_init(&w->d, dp, v->span, v->blocksize);
	if (env) {
		mp_kern_init(w->k, dp, v->span, v->blocksize, env->ra_kb,
			     env->segments, env->cache, env->cache_priv);
		w->k->trace = env->trace;
		w->k->trace_priv = env->trace_priv;
	}
	err = walk_volume(w, nrec);
	ext2fs_free_mem(&w->roots);
	for (k = 0; k < MP_K_COUNT; k++)
		out->total_ms += out->ms[k];
	out->reads = w->k ? w->k->drive.requests : w->d.reads;
	out->seeks = w->k ? w->k->drive.seeks : w->d.seeks;
	out->blocks = w->k ? w->k->pages * w->k->bpp : w->d.blocks;
	ext2fs_free_mem(&w->k);
	ext2fs_free_mem(&w);
	return err;
}
