/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mkbig.c --- age a big ext2/ext3 volume without writing its data
 *
 *   mkbig [options] IMAGE
 *
 * IMAGE is a freshly made, empty ext2/ext3 file system with 4 KiB (or
 * any) blocks, usually a sparse file straight from mke2fs.  mkbig fills
 * it as concurrent writers on an ext3 kernel would, then deletes and
 * refills, and writes only the metadata: directories, inodes and the
 * indirect blocks (IND/DIND/TIND).  Data blocks are marked in use in the
 * bitmaps and referenced by the inodes but never written, so they stay
 * holes in the host file: a 1 TiB volume filled to 75 % costs about
 * 1.3 GB of host disk (and mke2fs's 1 GiB journal, 2.3 GB in all).  The
 * counts, bitmaps and descriptors are kept by libext2fs's allocation
 * statistics, so the result passes e2fsck -fn.  The same options and
 * seed give the same image.
 *
 * The ext3 allocator (fs/ext3/ialloc.c, balloc.c, inode.c), as emulated:
 *
 *  - directories are spread over the groups, top-level ones evenly
 *    (Orlov), their subdirectories over their parent's share of groups;
 *    a file's inode is the first free one from its directory's group on
 *    (find_group_other);
 *  - a file's blocks come from its reservation window: the first one at
 *    its inode's group start plus the writer's colour (ext3_find_near:
 *    (pid % 16) * blocks_per_group / 16), every next one at the first
 *    free block after the last one allocated; 8 blocks, doubled each
 *    time it is used up, at most --window-max; what is left of it when
 *    the file is closed is given back;
 *  - indirect blocks are taken from the same stream as the data, just
 *    before the first data block they map, top level first
 *    (ext3_alloc_branch): the goal of an IND block is the next block.
 *
 * Aging, as bench/run's "aged" image: --writers writers take turns at
 * random, each appending a write of log-uniform size (--write-min ..
 * --write-max) to its own file; a new file goes into a random leaf
 * directory, or with probability --share into that of another running
 * writer, whose blocks then interleave with its own; file sizes are
 * log-normal (--median, --sigma, clipped to --min .. --max, which is
 * within DIND reach at 4 KiB); when the volume is --fill-hi full,
 * random closed files are deleted down to --fill-lo; --rounds such
 * rounds, then a refill to --fill-end, when the writers stop where they
 * are.  --tind long-lived files of --tind-min .. --tind-max bytes (they
 * need a TIND block at 4 KiB) start during the first fill.
 *
 * Metadata is written at the end, for the surviving files only, in
 * inode order: a deleted file costs no write.  Directory entries are
 * made and removed as the files come and go, so directory blocks are
 * allocated among the data as on a live system.
 *
 * Prints "key value" statistics on stdout.
 *
 * Build:  make bench-progs (bench/mkbig)
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ext2fs/ext2fs.h>
#include <et/com_err.h>

static const char *prog = "mkbig";

#define MAX_WRITERS	64
#define FILE_TIME	1600000000U

struct opts {
	const char	*seed;
	unsigned int	writers, rounds, tind;
	double		fill_hi, fill_lo, fill_end, sigma, share;
	__u64		median, min, max, write_min, write_max;
	__u64		tind_min, tind_max;
	unsigned int	dirs, top, window_max;
};

/* A run of blocks of one file, in allocation (= pre-order) order. */
struct seg {
	blk64_t		start;
	blk64_t		len;
};

enum { F_OPEN, F_CLOSED, F_DELETED };

struct file {
	struct seg	*seg;
	__u32		nseg, aseg;
	ext2_ino_t	ino;
	__u32		dir;		/* index in big.dir[] */
	__u64		size;		/* bytes, when done */
	__u64		written;	/* bytes so far */
	__u64		ndata;		/* data blocks so far */
	blk64_t		wpos, wend;	/* reservation window [wpos, wend) */
	__u32		wsize;		/* size of the next window */
	__u8		state, tind;
};

struct big {
	ext2_filsys	fs;
	struct opts	o;
	__u64		rng;
	__u64		addr;		/* block pointers per block */
	struct file	*f;
	__u32		nf, af;
	__u32		*closed;	/* closed, deletable files */
	__u32		nclosed, aclosed;
	__u32		writer[MAX_WRITERS];	/* file index + 1, or 0 */
	ext2_ino_t	*dir;		/* leaf directories */
	__u32		ndir;
	blk64_t		free0;		/* free blocks before filling */
	__u32		tind_started;
	__u64		deleted, windows;
	int		fd;		/* the image, for fallocate() */
};

static void die(errcode_t err, const char *what)
{
	com_err(prog, err, "%s", what);
	exit(2);
}

/* ---- deterministic randomness ------------------------------------------ */

static __u64 rnd64(struct big *b)
{
	__u64 z = (b->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double rnd_unit(struct big *b)	/* in (0, 1) */
{
	return ((rnd64(b) >> 11) + 0.5) / 9007199254740992.0;
}

static __u32 rnd_below(struct big *b, __u32 n)
{
	return (__u32) (((rnd64(b) >> 32) * n) >> 32);
}

static double rnd_loguniform(struct big *b, double lo, double hi)
{
	return exp(log(lo) + rnd_unit(b) * (log(hi) - log(lo)));
}

/* Box-Muller; two statements, so the draws come in a fixed order. */
static double rnd_lognormal(struct big *b, double median, double sigma)
{
	double r = sqrt(-2.0 * log(rnd_unit(b)));
	double z = r * cos(2.0 * M_PI * rnd_unit(b));

	return median * exp(sigma * z);
}

static void rnd_seed(struct big *b, const char *s)
{
	__u64 h = 0xcbf29ce484222325ULL;	/* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char) *s) * 0x100000001b3ULL;
	b->rng = h;
}

/* ---- block map geometry ------------------------------------------------- */

/* Indirect blocks a file of @n data blocks has (all levels). */
static __u64 meta_blocks(const struct big *b, __u64 n)
{
	__u64 a = b->addr, m = 0, r;

	if (n <= EXT2_NDIR_BLOCKS)
		return 0;
	n -= EXT2_NDIR_BLOCKS;
	m++;				/* IND */
	if (n <= a)
		return m;
	n -= a;
	r = n < a * a ? n : a * a;
	m += 1 + (r + a - 1) / a;	/* DIND and its INDs */
	if (n <= a * a)
		return m;
	n -= a * a;
	return m + 1 + (n + a * a - 1) / (a * a) + (n + a - 1) / a;
}

static void count_levels(const struct big *b, __u64 n, __u64 lv[4])
{
	__u64 a = b->addr;

	if (n <= EXT2_NDIR_BLOCKS)
		return;
	n -= EXT2_NDIR_BLOCKS;
	lv[1]++;
	if (n <= a)
		return;
	n -= a;
	lv[2]++;
	lv[1] += ((n < a * a ? n : a * a) + a - 1) / a;
	if (n <= a * a)
		return;
	n -= a * a;
	lv[3]++;
	lv[2] += (n + a * a - 1) / (a * a);
	lv[1] += (n + a - 1) / a;
}

static blk64_t used_blocks(const struct big *b)
{
	return b->free0 - ext2fs_free_blocks_count(b->fs->super);
}

/* ---- allocation ------------------------------------------------------ */

/* The first free block at or after @goal, wrapping round. */
static errcode_t first_free(ext2_filsys fs, blk64_t goal, blk64_t *out)
{
	blk64_t first = fs->super->s_first_data_block;
	blk64_t last = ext2fs_blocks_count(fs->super) - 1;

	if (goal < first || goal > last)
		goal = first;
	if (!ext2fs_find_first_zero_block_bitmap2(fs->block_map, goal, last,
						  out))
		return 0;
	if (goal > first &&
	    !ext2fs_find_first_zero_block_bitmap2(fs->block_map, first,
						  goal - 1, out))
		return 0;
	return EXT2_ET_BLOCK_ALLOC_FAIL;
}

/*
 * A new reservation window for @f: the free run at the first free block
 * from the goal, at most f->wsize long.  Taken at once (marked in use),
 * so that nothing else is allocated inside it; the unused rest goes back
 * when the file is closed.
 */
static errcode_t window_new(struct big *b, struct file *f, unsigned int w)
{
	ext2_filsys fs = b->fs;
	blk64_t last = ext2fs_blocks_count(fs->super) - 1, goal, blk, end;
	errcode_t err;

	if (f->wend)
		goal = f->wend;
	else
		goal = ext2fs_group_first_block2(fs,
				ext2fs_group_of_ino(fs, f->ino)) +
			(w % 16) * (EXT2_BLOCKS_PER_GROUP(fs->super) / 16);
	err = first_free(fs, goal, &blk);
	if (err)
		return err;
	end = blk + f->wsize - 1;
	if (end > last)
		end = last;
	if (ext2fs_find_first_set_block_bitmap2(fs->block_map, blk, end,
						&end))
		end++;
	ext2fs_block_alloc_stats_range(fs, blk, end - blk, +1);
	f->wpos = blk;
	f->wend = end;
	if (f->wsize < b->o.window_max)
		f->wsize = f->wsize * 2 < b->o.window_max ?
			f->wsize * 2 : b->o.window_max;
	b->windows++;
	return 0;
}

/* Make room for entry @n of *@arrp (*@alloc entries of @size each). */
static errcode_t grow(void *arrp, __u32 *alloc, __u32 n, size_t size,
		      __u32 first)
{
	__u32 want = *alloc ? 2 * *alloc : first;
	errcode_t err;

	if (n < *alloc)
		return 0;
	err = ext2fs_resize_array(size, *alloc, want, arrp);
	if (!err)
		*alloc = want;
	return err;
}

static errcode_t seg_add(struct file *f, blk64_t start, blk64_t len)
{
	struct seg *s = f->nseg ? &f->seg[f->nseg - 1] : NULL;
	errcode_t err;

	if (s && s->start + s->len == start) {
		s->len += len;
		return 0;
	}
	err = grow(&f->seg, &f->aseg, f->nseg, sizeof(*s), 4);
	if (err)
		return err;
	f->seg[f->nseg].start = start;
	f->seg[f->nseg].len = len;
	f->nseg++;
	return 0;
}

/* Take @n blocks (data and the indirect blocks before them) for @f. */
static errcode_t take_blocks(struct big *b, struct file *f, unsigned int w,
			     __u64 n)
{
	errcode_t err;

	while (n) {
		blk64_t t;

		if (f->wpos == f->wend) {
			err = window_new(b, f, w);
			if (err)
				return err;
		}
		t = f->wend - f->wpos < n ? f->wend - f->wpos : n;
		err = seg_add(f, f->wpos, t);
		if (err)
			return err;
		f->wpos += t;
		n -= t;
	}
	return 0;
}

/* ---- files and directories --------------------------------------------- */

static void file_name(char *buf, size_t len, __u32 id)
{
	snprintf(buf, len, "f%07u", id);
}

/* ext2fs_link, growing a full directory by a block as the kernel does. */
static errcode_t link_expand(ext2_filsys fs, ext2_ino_t dir,
			     const char *name, ext2_ino_t ino, int type)
{
	errcode_t err = ext2fs_link(fs, dir, name, ino, type);

	if (err == EXT2_ET_DIR_NO_SPACE) {
		err = ext2fs_expand_dir(fs, dir);
		if (!err)
			err = ext2fs_link(fs, dir, name, ino, type);
	}
	return err;
}

/* A directory whose inode is the first free one from group @grp on. */
static errcode_t dir_make(struct big *b, ext2_ino_t parent, dgrp_t grp,
			  const char *name, ext2_ino_t *out)
{
	ext2_filsys fs = b->fs;
	ext2_ino_t hint = grp * fs->super->s_inodes_per_group + 1, ino;
	errcode_t err;

	err = ext2fs_new_inode(fs, hint, LINUX_S_IFDIR | 0755, 0, &ino);
	if (err)
		return err;
	err = ext2fs_mkdir(fs, parent, ino, name);
	if (err == EXT2_ET_DIR_NO_SPACE) {
		err = ext2fs_expand_dir(fs, parent);
		if (!err)
			err = ext2fs_mkdir(fs, parent, ino, name);
	}
	*out = ino;
	return err;
}

/*
 * --top directories under the root, spread evenly over the groups;
 * --dirs leaf directories below them, each spread over its parent's
 * share.  Files go into the leaves.
 */
static errcode_t dirs_make(struct big *b)
{
	dgrp_t G = b->fs->group_desc_count, span = G / b->o.top, tg;
	ext2_ino_t top;
	char name[32];
	errcode_t err;
	__u32 t, i, per = (b->o.dirs + b->o.top - 1) / b->o.top;

	err = ext2fs_get_array(b->o.dirs, sizeof(*b->dir), &b->dir);
	if (err)
		return err;
	if (!span)
		span = 1;
	for (t = 0; t < b->o.top && b->ndir < b->o.dirs; t++) {
		tg = (t * (__u64) G / b->o.top + rnd_below(b, span)) % G;
		snprintf(name, sizeof(name), "d%03u", t);
		err = dir_make(b, EXT2_ROOT_INO, tg, name, &top);
		for (i = 0; !err && i < per && b->ndir < b->o.dirs; i++) {
			dgrp_t g = (tg + i * (__u64) span / per) % G;

			snprintf(name, sizeof(name), "s%04u", i);
			err = dir_make(b, top, g, name, &b->dir[b->ndir]);
			b->ndir++;
		}
		if (err)
			return err;
	}
	return 0;
}

static __u64 file_size(struct big *b, __u8 *tind)
{
	const struct opts *o = &b->o;
	double s;

	/* the k-th TIND file starts at k / (n + 1) of the first fill */
	if (b->tind_started < o->tind &&
	    used_blocks(b) >= (b->tind_started + 1) * o->fill_hi *
			      b->free0 / (o->tind + 1)) {
		b->tind_started++;
		*tind = 1;
		return rnd_loguniform(b, o->tind_min, o->tind_max);
	}
	s = rnd_lognormal(b, o->median, o->sigma);
	if (s < o->min)
		s = o->min;
	if (s > o->max)
		s = o->max;
	return s;
}

/*
 * Concurrent writers often share a directory (a download or backup job,
 * several loggers): with probability --share a new file goes where
 * another running writer's file is, and their blocks interleave.
 */
static __u32 file_dir(struct big *b, unsigned int w)
{
	unsigned int o = rnd_below(b, b->o.writers);

	if (o != w && b->writer[o] && rnd_unit(b) < b->o.share)
		return b->f[b->writer[o] - 1].dir;
	return rnd_below(b, b->ndir);
}

static errcode_t file_start(struct big *b, unsigned int w)
{
	ext2_filsys fs = b->fs;
	struct file *f;
	char name[32];
	errcode_t err;

	err = grow(&b->f, &b->af, b->nf, sizeof(*f), 4096);
	if (err)
		return err;
	f = &b->f[b->nf];
	memset(f, 0, sizeof(*f));
	f->size = file_size(b, &f->tind);
	f->dir = file_dir(b, w);
	f->wsize = 8 < b->o.window_max ? 8 : b->o.window_max;
	err = ext2fs_new_inode(fs, b->dir[f->dir], LINUX_S_IFREG | 0644,
			       0, &f->ino);
	if (err)
		return err;
	ext2fs_inode_alloc_stats2(fs, f->ino, +1, 0);
	file_name(name, sizeof(name), b->nf);
	err = link_expand(fs, b->dir[f->dir], name, f->ino,
			  EXT2_FT_REG_FILE);
	if (err)
		return err;
	b->writer[w] = ++b->nf;
	return 0;
}

static errcode_t closed_add(struct big *b, __u32 id)
{
	errcode_t err;

	err = grow(&b->closed, &b->aclosed, b->nclosed, sizeof(__u32), 4096);
	if (err)
		return err;
	b->closed[b->nclosed++] = id;
	return 0;
}

/* The writer is done: the rest of the window goes back. */
static errcode_t file_close(struct big *b, unsigned int w)
{
	__u32 id = b->writer[w] - 1;
	struct file *f = &b->f[id];

	if (f->wend > f->wpos)
		ext2fs_block_alloc_stats_range(b->fs, f->wpos,
					       f->wend - f->wpos, -1);
	f->wend = f->wpos;
	f->size = f->written < f->size ? f->written : f->size;
	f->state = F_CLOSED;
	b->writer[w] = 0;
	return f->tind ? 0 : closed_add(b, id);
}

static errcode_t file_delete(struct big *b, __u32 id)
{
	ext2_filsys fs = b->fs;
	struct file *f = &b->f[id];
	char name[32];
	__u32 i;

	for (i = 0; i < f->nseg; i++)
		ext2fs_block_alloc_stats_range(fs, f->seg[i].start,
					       f->seg[i].len, -1);
	ext2fs_free_mem(&f->seg);
	f->nseg = f->aseg = 0;
	f->state = F_DELETED;
	ext2fs_inode_alloc_stats2(fs, f->ino, -1, 0);
	b->deleted++;
	file_name(name, sizeof(name), id);
	return ext2fs_unlink(fs, b->dir[f->dir], name, f->ino, 0);
}

/* ---- aging ------------------------------------------------------------- */

/* One write by a random writer; a writer with no file starts one. */
static errcode_t step(struct big *b)
{
	unsigned int w = rnd_below(b, b->o.writers);
	struct file *f;
	__u64 bytes, n, bs = b->fs->blocksize;
	errcode_t err;

	if (!b->writer[w]) {
		err = file_start(b, w);
		if (err)
			return err;
	}
	f = &b->f[b->writer[w] - 1];
	bytes = rnd_loguniform(b, b->o.write_min, b->o.write_max);
	if (bytes > f->size - f->written)
		bytes = f->size - f->written;
	f->written += bytes;
	n = (f->written + bs - 1) / bs;
	err = take_blocks(b, f, w, n + meta_blocks(b, n) - f->ndata -
			  meta_blocks(b, f->ndata));
	if (err)
		return err;
	f->ndata = n;
	return f->written == f->size ? file_close(b, w) : 0;
}

static errcode_t fill_to(struct big *b, double frac)
{
	blk64_t want = frac * b->free0;
	errcode_t err = 0;

	while (!err && used_blocks(b) < want)
		err = step(b);
	return err;
}

static errcode_t delete_to(struct big *b, double frac)
{
	blk64_t want = frac * b->free0;
	errcode_t err = 0;

	while (!err && b->nclosed && used_blocks(b) > want) {
		__u32 i = rnd_below(b, b->nclosed), id = b->closed[i];

		b->closed[i] = b->closed[--b->nclosed];
		err = file_delete(b, id);
	}
	return err;
}

static errcode_t age(struct big *b)
{
	errcode_t err = 0;
	unsigned int r, w;

	for (r = 0; !err && r < b->o.rounds; r++) {
		err = fill_to(b, b->o.fill_hi);
		if (!err)
			err = delete_to(b, b->o.fill_lo);
	}
	if (!err)
		err = fill_to(b, b->o.fill_end);
	/* the writers stop where they are */
	for (w = 0; !err && w < b->o.writers; w++)
		if (b->writer[w])
			err = file_close(b, w);
	return err;
}

/* ---- writing the metadata ------------------------------------------------ */

/* Walks a file's blocks in allocation order. */
struct walk {
	struct big	*b;
	const struct file *f;
	__u32		seg;
	blk64_t		off;
	__u32		*buf[4];	/* [1] IND, [2] DIND, [3] TIND */
	blk64_t		blk[4];		/* where buf[l] goes, 0: none */
	errcode_t	err;
};

static blk64_t walk_next(struct walk *wk)
{
	const struct seg *s = &wk->f->seg[wk->seg];
	blk64_t blk;

	if (wk->seg >= wk->f->nseg) {
		wk->err = EXT2_ET_INVALID_ARGUMENT;	/* mapped more than taken */
		return 0;
	}
	blk = s->start + wk->off;

	if (++wk->off == s->len) {
		wk->seg++;
		wk->off = 0;
	}
	return blk;
}

/*
 * The host block under an indirect block is allocated first: on ext4
 * with delayed allocation, a sparse file that gets ~10^5 scattered
 * blocks at writeback can fail fsync() with ENOSPC (this happens on the
 * benchmark machine), while blocks allocated by fallocate() beforehand
 * do not.
 */
static void ind_flush(struct walk *wk, int l)
{
	ext2_filsys fs = wk->b->fs;
	off_t off = wk->blk[l] * (off_t) fs->blocksize;

	if (!wk->blk[l] || wk->err)
		return;
	if (wk->b->fd >= 0 &&
	    fallocate(wk->b->fd, FALLOC_FL_KEEP_SIZE, off, fs->blocksize) &&
	    errno != EOPNOTSUPP)
		wk->err = errno;
	if (!wk->err)
		wk->err = io_channel_write_blk64(fs->io, wk->blk[l], 1,
						 wk->buf[l]);
	wk->blk[l] = 0;
}

/* A new indirect block at level @l, its address stored in @slot. */
static void ind_open(struct walk *wk, int l, __u32 *slot, int le)
{
	ind_flush(wk, l);
	wk->blk[l] = walk_next(wk);
	*slot = le ? ext2fs_cpu_to_le32(wk->blk[l]) : wk->blk[l];
	memset(wk->buf[l], 0, wk->b->fs->blocksize);
}

/*
 * Place data block @lb: open the indirect blocks it needs first, top
 * level first, which is the order take_blocks() allocated them in.
 */
static void map_block(struct walk *wk, struct ext2_inode *in, __u64 lb)
{
	__u64 a = wk->b->addr, r;
	__u32 *ind = wk->buf[1];

	if (lb < EXT2_NDIR_BLOCKS) {
		in->i_block[lb] = walk_next(wk);
		return;
	}
	r = lb - EXT2_NDIR_BLOCKS;
	if (r < a) {
		if (!r)
			ind_open(wk, 1, &in->i_block[EXT2_IND_BLOCK], 0);
	} else if ((r -= a) < a * a) {
		if (!r)
			ind_open(wk, 2, &in->i_block[EXT2_DIND_BLOCK], 0);
		if (r % a == 0)
			ind_open(wk, 1, &wk->buf[2][r / a], 1);
	} else {
		r -= a * a;
		if (!r)
			ind_open(wk, 3, &in->i_block[EXT2_TIND_BLOCK], 0);
		if (r % (a * a) == 0)
			ind_open(wk, 2, &wk->buf[3][r / (a * a)], 1);
		if (r % a == 0)
			ind_open(wk, 1, &wk->buf[2][(r / a) % a], 1);
	}
	ind[r % a] = ext2fs_cpu_to_le32(walk_next(wk));
}

static errcode_t file_write(struct big *b, const struct file *f,
			    struct walk *wk)
{
	struct ext2_inode_large in;
	__u64 lb;
	int l;

	memset(&in, 0, sizeof(in));
	in.i_mode = LINUX_S_IFREG | 0644;
	in.i_links_count = 1;
	in.i_atime = in.i_ctime = in.i_mtime = FILE_TIME;
	wk->f = f;
	wk->seg = 0;
	wk->off = 0;
	for (lb = 0; lb < f->ndata && !wk->err; lb++)
		map_block(wk, (struct ext2_inode *) &in, lb);
	for (l = 3; l >= 1; l--)
		ind_flush(wk, l);
	if (wk->err)
		return wk->err;
	if (wk->seg != f->nseg)
		return EXT2_ET_INVALID_ARGUMENT;	/* allocated != mapped */
	wk->err = ext2fs_inode_size_set(b->fs, (struct ext2_inode *) &in,
					f->size);
	if (!wk->err)
		wk->err = ext2fs_iblk_set(b->fs, (struct ext2_inode *) &in,
					  f->ndata + meta_blocks(b, f->ndata));
	if (!wk->err)
		wk->err = ext2fs_write_new_inode(b->fs, f->ino,
						 (struct ext2_inode *) &in);
	return wk->err;
}

static const struct file *sort_files;

static int cmp_ino(const void *x, const void *y)
{
	ext2_ino_t a = sort_files[*(const __u32 *) x].ino;
	ext2_ino_t c = sort_files[*(const __u32 *) y].ino;

	return (a > c) - (a < c);
}

/* Inodes and indirect blocks of the surviving files, in inode order. */
static errcode_t write_all(struct big *b, __u64 lv[4], __u64 *nfiles)
{
	struct walk wk = { .b = b };
	__u32 *order = NULL, n = 0, i;
	errcode_t err;
	int l;

	err = ext2fs_get_array(b->nf + 1, sizeof(*order), &order);
	for (l = 1; l <= 3 && !err; l++)
		err = ext2fs_get_mem(b->fs->blocksize, &wk.buf[l]);
	for (i = 0; i < b->nf && !err; i++)
		if (b->f[i].state != F_DELETED)
			order[n++] = i;
	sort_files = b->f;
	if (!err)
		qsort(order, n, sizeof(*order), cmp_ino);
	for (i = 0; i < n && !err; i++) {
		err = file_write(b, &b->f[order[i]], &wk);
		count_levels(b, b->f[order[i]].ndata, lv);
	}
	*nfiles = n;
	for (l = 1; l <= 3; l++)
		ext2fs_free_mem(&wk.buf[l]);
	ext2fs_free_mem(&order);
	return err;
}

/* ---- main ---------------------------------------------------------- */

static __u64 parse_size(const char *s, const char *what)
{
	char *end;
	double v = strtod(s, &end);

	switch (*end) {
	case 'T': case 't': v *= 1024;		/* fall through */
	case 'G': case 'g': v *= 1024;		/* fall through */
	case 'M': case 'm': v *= 1024;		/* fall through */
	case 'K': case 'k': v *= 1024; end++;	break;
	}
	if (end == s || *end || v < 0) {
		fprintf(stderr, "%s: bad %s: %s\n", prog, what, s);
		exit(2);
	}
	return v;
}

static void usage(void)
{
	fprintf(stderr,
"usage: %s [--seed S] [--writers N] [--rounds N] [--fill-hi F]\n"
"	[--fill-lo F] [--fill-end F] [--median B] [--sigma X] [--min B]\n"
"	[--max B] [--write-min B] [--write-max B] [--tind N]\n"
"	[--tind-min B] [--tind-max B] [--dirs N] [--top N]\n"
"	[--window-max BLOCKS] [--share P] IMAGE\n"
"B: bytes, with an optional K, M, G or T suffix.  --dirs, --top and\n"
"--tind default to values that grow with the volume.\n", prog);
	exit(2);
}

static const struct option longopts[] = {
	{ "seed", 1, NULL, 's' },	{ "writers", 1, NULL, 'w' },
	{ "rounds", 1, NULL, 'r' },	{ "fill-hi", 1, NULL, 'H' },
	{ "fill-lo", 1, NULL, 'L' },	{ "fill-end", 1, NULL, 'E' },
	{ "median", 1, NULL, 'm' },	{ "sigma", 1, NULL, 'S' },
	{ "min", 1, NULL, 'a' },	{ "max", 1, NULL, 'b' },
	{ "write-min", 1, NULL, 'c' },	{ "write-max", 1, NULL, 'd' },
	{ "tind", 1, NULL, 't' },	{ "tind-min", 1, NULL, 'e' },
	{ "tind-max", 1, NULL, 'f' },	{ "dirs", 1, NULL, 'D' },
	{ "top", 1, NULL, 'T' },	{ "window-max", 1, NULL, 'W' },
	{ "share", 1, NULL, 'p' },	{ NULL, 0, NULL, 0 }
};

static void parse_args(int argc, char **argv, struct opts *o)
{
	int c;

	*o = (struct opts) { .seed = "mkbig", .writers = 6, .rounds = 3,
		.fill_hi = 0.80, .fill_lo = 0.55, .fill_end = 0.75, .share = 0.5,
		.median = 1 << 20, .sigma = 2.0, .min = 1024,
		.max = 4ULL << 30, .write_min = 4096, .write_max = 128 << 10,
		.tind = ~0U, .tind_min = 4404019200ULL,	/* 4.1 GiB */
		.tind_max = 8ULL << 30, .window_max = 1024 };
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 's': o->seed = optarg; break;
		case 'w': o->writers = atoi(optarg); break;
		case 'r': o->rounds = atoi(optarg); break;
		case 'H': o->fill_hi = atof(optarg); break;
		case 'L': o->fill_lo = atof(optarg); break;
		case 'E': o->fill_end = atof(optarg); break;
		case 'm': o->median = parse_size(optarg, "median"); break;
		case 'S': o->sigma = atof(optarg); break;
		case 'a': o->min = parse_size(optarg, "min"); break;
		case 'b': o->max = parse_size(optarg, "max"); break;
		case 'c': o->write_min = parse_size(optarg, "size"); break;
		case 'd': o->write_max = parse_size(optarg, "size"); break;
		case 't': o->tind = atoi(optarg); break;
		case 'e': o->tind_min = parse_size(optarg, "size"); break;
		case 'f': o->tind_max = parse_size(optarg, "size"); break;
		case 'D': o->dirs = atoi(optarg); break;
		case 'T': o->top = atoi(optarg); break;
		case 'W': o->window_max = atoi(optarg); break;
		case 'p': o->share = atof(optarg); break;
		default: usage();
		}
	}
	if (optind != argc - 1 || !o->writers || o->writers > MAX_WRITERS ||
	    !o->window_max || o->min < 1 || o->min > o->max ||
	    o->write_min < 1 || o->write_min > o->write_max ||
	    o->fill_end > 0.95 || o->fill_hi > 0.95 ||
	    o->tind_min > o->tind_max)
		usage();
}

/* Defaults that grow with the volume: one leaf directory per GiB. */
static void scale_defaults(struct big *b)
{
	__u64 gib = (ext2fs_blocks_count(b->fs->super) *
		     b->fs->blocksize) >> 30;

	if (!b->o.dirs)
		b->o.dirs = gib < 16 ? 16 : gib;
	if (!b->o.top)
		b->o.top = sqrt(b->o.dirs);
	if (!b->o.top)
		b->o.top = 1;
	if (b->o.tind == ~0U)
		b->o.tind = gib < 256 ? 1 : gib / 256;
}

static __u64 free_runs(ext2_filsys fs)
{
	blk64_t start = fs->super->s_first_data_block, zero, set;
	blk64_t end = ext2fs_blocks_count(fs->super) - 1;
	__u64 n = 0;

	while (start <= end &&
	       !ext2fs_find_first_zero_block_bitmap2(fs->block_map, start,
						     end, &zero)) {
		n++;
		if (ext2fs_find_first_set_block_bitmap2(fs->block_map, zero,
							end, &set))
			break;
		start = set;
	}
	return n;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void report(struct big *b, __u64 lv[4], __u64 nfiles, double t[2])
{
	ext2_filsys fs = b->fs;
	__u64 segs = 0;
	__u32 i;

	for (i = 0; i < b->nf; i++)
		segs += b->f[i].nseg;
	printf("files %llu\nfiles_created %u\nfiles_deleted %llu\n"
	       "dirs %u\nind %llu\ndind %llu\ntind %llu\n",
	       (unsigned long long) nfiles, b->nf,
	       (unsigned long long) b->deleted, b->ndir + b->o.top,
	       (unsigned long long) lv[1], (unsigned long long) lv[2],
	       (unsigned long long) lv[3]);
	printf("blocks %llu\nblocks_used %llu\nfragments %llu\n"
	       "free_runs %llu\nwindows %llu\n",
	       (unsigned long long) ext2fs_blocks_count(fs->super),
	       (unsigned long long) (ext2fs_blocks_count(fs->super) -
				     ext2fs_free_blocks_count(fs->super)),
	       (unsigned long long) segs,
	       (unsigned long long) free_runs(fs),
	       (unsigned long long) b->windows);
	printf("seconds_age %.2f\nseconds_write %.2f\n", t[0], t[1]);
}

int main(int argc, char **argv)
{
	struct big b = { 0 };
	__u64 lv[4] = { 0 }, nfiles = 0;
	double t0 = now(), t[2];
	errcode_t err;

	parse_args(argc, argv, &b.o);
	add_error_table(&et_ext2_error_table);
	rnd_seed(&b, b.o.seed);
	err = ext2fs_open(argv[optind], EXT2_FLAG_RW | EXT2_FLAG_64BITS, 0, 0,
			  unix_io_manager, &b.fs);
	if (err)
		die(err, argv[optind]);
	if (ext2fs_has_feature_extents(b.fs->super) ||
	    ext2fs_has_feature_bigalloc(b.fs->super))
		die(EXT2_ET_UNSUPP_FEATURE, "extents or bigalloc");
	b.fd = open(argv[optind], O_RDWR);
	/* the bit array: fast first-zero searches, 32 MiB per TiB */
	b.fs->default_bitmap_type = EXT2FS_BMAP64_BITARRAY;
	err = ext2fs_read_bitmaps(b.fs);
	if (err)
		die(err, "reading bitmaps");
	b.addr = b.fs->blocksize / sizeof(__u32);
	b.free0 = ext2fs_free_blocks_count(b.fs->super);
	scale_defaults(&b);
	err = dirs_make(&b);
	if (err)
		die(err, "making directories");
	err = age(&b);
	if (err)
		die(err, "allocating files");
	t[0] = now() - t0;
	err = write_all(&b, lv, &nfiles);
	if (err)
		die(err, "writing inodes and indirect blocks");
	t[1] = now() - t0 - t[0];
	report(&b, lv, nfiles, t);
	err = ext2fs_close_free(&b.fs);
	if (err)
		die(err, "closing");
	if (b.fd >= 0)
		close(b.fd);
	printf("seconds_close %.2f\n", now() - t0 - t[0] - t[1]);
	return 0;
}
