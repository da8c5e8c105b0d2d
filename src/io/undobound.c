/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * undobound.c --- how large the undo file of a run can grow
 *
 * libext2fs's undo manager saves the old contents of each unit of U bytes
 * of the volume (finish.c's undo unit: 32 KiB, or the block size if that
 * is larger, or an existing undo file's own) the first time a write
 * touches it: one undo block of U bytes per unit, and one key for it,
 * 16 bytes in a key block of U bytes that holds U / 16 - 1 keys.  With N
 * the number of distinct units the run writes, the file is at most
 *
 *	U * (3 + N + floor(N / (U / 16 - 1)))
 *
 * bytes: the header block, the superblock copy's block and the first key
 * block, the N saved units, and a new key block each time one fills.
 * (Neighbouring units share a key, so there may be fewer keys and the
 * last key block may be partly used: the bound never falls below.)
 *
 * N is counted from the plan, over every block the write order
 * (core/order.c, walked step by step) writes:
 *  - the primary superblock's block and the primary group descriptor
 *    blocks; the backup superblocks and descriptors too, unless
 *    EXT2_FLAG_MASTER_SB_ONLY is set, as ext2fs_open2() does by default
 *    (ext2fs_flush() makes the same test);
 *  - the block bitmap of each group a move leaves or enters (of the
 *    bitmaps ext2fs_write_bitmaps() writes, bitmapio.c lets only the
 *    changed ones through);
 *  - every move's destination (the copies);
 *  - for every move, the block that holds the pointer to it, where that
 *    block is during the move's round: the inode's inode table block
 *    when the pointer is in i_block[], else the parent indirect block,
 *    at its destination if it moves in the same round (the pointer is
 *    rewritten in the copy), else where the earlier round left it.
 * Nothing else is written; an inode bitmap never changes.
 *
 * The same walk lists, for the prediction of the run's own time
 * (predtool.c), the blocks each round's pointer switch writes.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdlib.h>
#include <string.h>

#include "e3metapack.h"
#include "core/itable.h"
#include "core/order.h"
#include "io/undofmt.h"

struct bound {
	ext2_filsys	fs;
	__u64		unit;		/* U */
	__u64		offset;		/* of the partition, bytes */
	__u64		*u;		/* units written, unsorted, repeated */
	__u32		n, alloc;
	struct mp_move	*by_from[2];	/* each round's moves, by source */
	__u32		nmv[2];
	/* undo_pointer_writes(): list round @round's pointer blocks */
	int		round;
	struct mp_ptr_write *pw;
	__u32		npw, pw_alloc;
};

static errcode_t add_bytes(struct bound *b, __u64 start, __u64 len)
{
	__u64 first = (b->offset + start) / b->unit;
	__u64 last = (b->offset + start + len - 1) / b->unit;
	errcode_t err;

	for (; first <= last; first++) {
		err = mp_grow(&b->u, &b->alloc, b->n, sizeof(*b->u));
		if (err)
			return err;
		b->u[b->n++] = first;
	}
	return 0;
}

static errcode_t add_block(struct bound *b, blk64_t blk, blk64_t count)
{
	return add_bytes(b, blk * b->fs->blocksize, count * b->fs->blocksize);
}

/* What ext2fs_flush() writes besides the bitmaps. */
static errcode_t add_super_and_desc(struct bound *b)
{
	ext2_filsys fs = b->fs;
	blk64_t super, old_desc, new_desc, n_old = fs->desc_blocks;
	int master_only = fs->flags & EXT2_FLAG_MASTER_SB_ONLY;
	errcode_t err;
	dgrp_t g;

	if (ext2fs_has_feature_meta_bg(fs->super) &&
	    fs->super->s_first_meta_bg < n_old)
		n_old = fs->super->s_first_meta_bg;
	/* the superblock's block (finish.c saves it whole), the superblock */
	err = add_block(b, fs->blocksize == SUPERBLOCK_OFFSET, 1);
	if (!err)
		err = add_bytes(b, SUPERBLOCK_OFFSET, SUPERBLOCK_SIZE);
	for (g = 0; g < fs->group_desc_count && !err; g++) {
		ext2fs_super_and_bgd_loc2(fs, g, &super, &old_desc, &new_desc,
					  NULL);
		if (g && super && !master_only)
			err = add_bytes(b, super * fs->blocksize,
					SUPERBLOCK_SIZE);
		if (!err && old_desc && (!g || !master_only))
			err = add_block(b, old_desc, n_old);
		if (!err && new_desc)
			err = add_block(b, new_desc, 1);
	}
	return err;
}

static int cmp_from(const void *a, const void *b)
{
	const struct mp_move *x = a, *y = b;

	return mp_cmp_u64(x->from, y->from);
}

static int cmp_mv(const void *ctx, __u32 i, blk64_t blk)
{
	blk64_t from = ((const struct mp_move *) ctx)[i].from;

	return mp_cmp_u64(from, blk);
}

/* The move of round @r whose source is @blk, or NULL. */
static const struct mp_move *move_of(const struct bound *b, int r,
				     blk64_t blk)
{
	__u32 i;

	if (!mp_bsearch(b->nmv[r], blk, cmp_mv, b->by_from[r], &i))
		return NULL;
	return &b->by_from[r][i];
}

/* Where the block first at @blk is during round @r's pointer switch. */
static blk64_t where(const struct bound *b, int r, blk64_t blk)
{
	const struct mp_move *m = move_of(b, 0, blk);

	if (r == 0)
		return m ? m->to : blk;
	blk = m ? m->to : blk;
	m = move_of(b, 1, blk);
	return m ? m->to : blk;
}

static errcode_t add_ptr(struct bound *b, __u32 ino, blk64_t blk,
			 int in_inode)
{
	errcode_t err;

	err = mp_grow(&b->pw, &b->pw_alloc, b->npw, sizeof(*b->pw));
	if (err)
		return err;
	b->pw[b->npw].blk = blk;
	b->pw[b->npw].ino = ino;
	b->pw[b->npw++].in_inode = in_inode;
	return 0;
}

/* A move in round @r of a block whose pointer is in @parent (0: inode). */
static errcode_t add_move(struct bound *b, int r, const struct mp_move *m,
			  blk64_t parent)
{
	blk64_t ptr = parent ? where(b, r, parent) :
			       inode_table_block(b->fs, m->ino);

	return r == b->round ? add_ptr(b, m->ino, ptr, !parent) : 0;
}

/* Each indirect block's moves; its parent is found in scan (pre-)order. */
static errcode_t add_ind_moves(struct bound *b, const struct e3mp *mp)
{
	blk64_t last[5] = { 0 };	/* by level, in the current inode */
	__u32 i, ino = 0;
	errcode_t err = 0;

	for (i = 0; i < mp->nrec && !err; i++) {
		const struct ind_rec *r = &mp->rec[i];
		const struct mp_move *m0, *m1;
		blk64_t parent;

		if (r->ino != ino) {
			memset(last, 0, sizeof(last));
			ino = r->ino;
		}
		last[r->level] = r->blk;
		parent = r->flags & REC_IN_INODE ? 0 : last[r->level + 1];
		m0 = move_of(b, 0, r->blk);
		m1 = move_of(b, 1, m0 ? m0->to : r->blk);
		if (m0)
			err = add_move(b, 0, m0, parent);
		if (!err && m1)
			err = add_move(b, 1, m1, parent);
	}
	return err;
}

static int cmp_ext(const void *ctx, __u32 i, blk64_t blk)
{
	const struct data_ext *e = &((const struct data_ext *) ctx)[i];

	if (e->start + e->len <= blk)
		return -1;
	return e->start > blk;
}

/* Evacuated data blocks: the scan kept each run's parent. */
static errcode_t add_data_moves(struct bound *b, const struct e3mp *mp)
{
	errcode_t err = 0;
	__u32 i, x;
	int r;

	for (r = 0; r < 2; r++)
		for (i = 0; i < mp->plan.nmv[r] && !err; i++) {
			const struct mp_move *m = &mp->plan.mv[r][i];

			if (m->kind != MV_DATA)
				continue;
			if (!mp_bsearch(mp->next, m->from, cmp_ext, mp->ext, &x))
				return E3MP_POINTER_LOST;
			err = add_move(b, r, m, mp->ext[x].parent);
		}
	return err;
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *) a, y = *(const __u64 *) b;

	return mp_cmp_u64(x, y);
}

static errcode_t sort_moves(struct bound *b, const struct mp_plan *p)
{
	errcode_t err = 0;
	int r;

	for (r = 0; r < 2 && !err; r++) {
		b->nmv[r] = p->nmv[r];
		if (!p->nmv[r])
			continue;
		err = ext2fs_get_array(p->nmv[r], sizeof(struct mp_move),
				       &b->by_from[r]);
		if (err)
			break;
		memcpy(b->by_from[r], p->mv[r],
		       p->nmv[r] * sizeof(struct mp_move));
		mp_sort(b->by_from[r], p->nmv[r], sizeof(struct mp_move),
		      cmp_from);
	}
	return err;
}

/*
 * The block bitmaps of the groups round @r's moves enter (@to) or leave:
 * only a changed bitmap is written (bitmapio.c), and a group no move
 * touches keeps its bitmap as it is.
 */
static errcode_t add_bitmaps(struct bound *b, const struct mp_plan *p, int r,
			     int to)
{
	ext2_filsys fs = b->fs;
	errcode_t err = 0;
	__u32 i;

	for (i = 0; i < p->nmv[r] && !err; i++) {
		blk64_t blk = to ? p->mv[r][i].to : p->mv[r][i].from;

		err = add_block(b, ext2fs_block_bitmap_loc(fs,
				ext2fs_group_of_blk2(fs, blk)), 1);
	}
	return err;
}

/* Round @r's pointer switch: the blocks undo_pointer_writes() lists. */
static errcode_t add_pointers(struct bound *b, const struct e3mp *mp, int r)
{
	struct mp_ptr_write *pw;
	errcode_t err;
	__u32 n, i;

	err = undo_pointer_writes(mp, r, &pw, &n);
	for (i = 0; i < n && !err; i++)
		err = add_block(b, pw[i].blk, 1);
	ext2fs_free_mem(&pw);
	return err;
}

/* The units one step of the write order (core/order.c) writes. */
static errcode_t add_step(struct bound *b, const struct e3mp *mp,
			  const struct mp_step_at *s)
{
	const struct mp_plan *p = &mp->plan;
	errcode_t err = 0;
	__u32 i;

	switch (s->step) {
	case MP_STEP_BEGIN:
		/* finish.c's super_block_save(): the superblock's block */
		err = add_block(b, b->fs->blocksize == SUPERBLOCK_OFFSET, 1);
		break;
	case MP_STEP_RESERVE:
	case MP_STEP_RELEASE:
		err = add_bitmaps(b, p, s->round, s->step == MP_STEP_RESERVE);
		break;
	case MP_STEP_COPY:
		for (i = 0; i < p->nmv[s->round] && !err; i++)
			err = add_block(b, p->mv[s->round][i].to, 1);
		break;
	case MP_STEP_SWITCH:
		err = add_pointers(b, mp, s->round);
		break;
	case MP_STEP_BARRIER:
		err = add_super_and_desc(b);
		break;
	case MP_STEP_STOP:
	case MP_STEP_END:
		break;		/* (the barrier after it writes) */
	}
	return err;
}

/* The bound above for @mp's plan, with undo units of @unit bytes. */
errcode_t undo_bound(const struct e3mp *mp, __u32 unit, __u64 *bytes)
{
	struct bound b = { .fs = mp->fs, .unit = unit,
			   .offset = mp->part ? mp->part->offset : 0 };
	struct mp_step_at s[MP_ORDER_MAX];
	__u64 n = 0, i, keys_per_block = UNDO_KEYS_PER_BLOCK(unit);
	__u32 nstep = mp_write_order(mp->plan.nmv, 0, s), k;
	errcode_t err = 0;

	for (k = 0; k < nstep && !err; k++)
		err = add_step(&b, mp, &s[k]);
	if (!err) {
		mp_sort(b.u, b.n, sizeof(*b.u), cmp_u64);
		for (i = 0; i < b.n; i++)
			n += !i || b.u[i] != b.u[i - 1];
		*bytes = (__u64) unit * (3 + n + n / keys_per_block);
	}
	ext2fs_free_mem(&b.u);
	return err;
}

/*
 * The blocks round @round's pointer switch (fixptr.c) writes, one entry
 * per move, unsorted and repeated: what undo_bound() counts besides the
 * copies and the superblock, descriptors and bitmaps.  For predtool.c.
 */
errcode_t undo_pointer_writes(const struct e3mp *mp, int round,
			      struct mp_ptr_write **pw, __u32 *n)
{
	struct bound b = { .fs = mp->fs, .round = round };
	errcode_t err;

	err = sort_moves(&b, &mp->plan);
	if (!err)
		err = add_ind_moves(&b, mp);
	if (!err)
		err = add_data_moves(&b, mp);
	ext2fs_free_mem(&b.by_from[0]);
	ext2fs_free_mem(&b.by_from[1]);
	if (err)
		ext2fs_free_mem(&b.pw);
	*pw = b.pw;
	*n = err ? 0 : b.npw;
	return err;
}
