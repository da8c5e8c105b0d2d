/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * plan.h --- the layout planner: pure logic, no I/O
 *
 * The planner sees the volume only through struct mp_geom (numbers) and
 * struct mp_space_ops (a block map it may query and reserve in), so the
 * unit tests can drive it with synthetic layouts.
 */
#ifndef E3MP_PLAN_H
#define E3MP_PLAN_H

#include <stdlib.h>

#include <ext2fs/ext2fs.h>

/* (cli.c parses --home by this order) */
enum e3mp_homing {
	E3MP_HOME_INODE = 0,	/* a file's run, in its inode's group */
	E3MP_HOME_DATA,		/* each block, in the group of its data */
	E3MP_HOME_INLINE	/* as inode, but first INDs stay in line */
};

/*
 * (cli.c parses --order by this order) The order of a file's run of
 * indirect blocks in its metacluster: as e2fsck's pass 1 reads them
 * (pre-order, children first to last), or as the kernel frees them when
 * the file is deleted or truncated (pre-order, children last to first).
 */
enum e3mp_order {
	E3MP_ORDER_FSCK = 0,
	E3MP_ORDER_DELETE
};

/* Where directory blocks go (cli.c parses --dirs by this order). */
enum e3mp_dirs {
	E3MP_DIRS_LEAVE = 0,	/* not recorded: they stay */
	E3MP_DIRS_PACK,		/* after the group's INDs, at its end */
	E3MP_DIRS_ITABLE,	/* right after the group's inode table */
	E3MP_DIRS_ROOTS,	/* block 0 there, the rest as pack */
	E3MP_DIRS_VOLUME	/* one region mid-volume; early block 0s as roots */
};

#define REC_IN_INODE	0x01	/* pointer lives in i_block[], not a block */
#define REC_DIR		0x02	/* a directory block, level 0 */
#define REC_OF_DIR	0x04	/* an IND/DIND/TIND of such a dir */
#define REC_HASHED	0x08	/* a REC_DIR of a dir read in hash order */
/*
 * Block 0 of a directory that e2fsck reads before pass 2: an htree's
 * root (pass 1 checks it with the inode) or the root directory's (read
 * at the start, before the bitmaps).
 */
#define REC_EARLY	0x10

/* No rank in the tree walk's order (struct mp_geom's walk_rank). */
#define WALK_NONE	((__u32) -1)

/*
 * One indirect block, as the scan found it (32 bytes).  Under --dirs=pack
 * the data blocks of block-mapped directories are records too (REC_DIR,
 * level 0, @logical the block's own logical number): they are placed by
 * the same machinery, each directory one run after its group's runs of
 * indirect blocks.
 */
struct ind_rec {
	blk64_t		blk;		/* where it is now */
	blk64_t		dest;		/* where it ends up (== blk: stays) */
	__u32		ino;		/* owner */
	__u32		logical;	/* first logical block it maps */
	__u32		data_group;	/* group of the first data under it */
	__u8		level;		/* 1-3 IND..TIND; 0 REC_DIR */
	__u8		flags;		/* REC_* */
};

/*
 * A run of a file's data blocks inside some group's tail zone.  When its
 * first block is the first data block under some indirect blocks (their
 * anchor, which data homing homes them by), those are
 * rec[anchor .. anchor + nanchor); the scan starts a new run there.
 */
struct data_ext {
	blk64_t		start;
	__u32		len;
	__u32		ino;
	__u32		anchor;
	__u32		nanchor;
	blk64_t		parent;		/* block holding its pointers; 0: inode */
};

#define MV_IND		1	/* indirect block into the metacluster */
#define MV_DATA		2	/* data block evacuated out of it */
#define MV_TEMP		3	/* indirect block parked for round 2 */
#define MV_OUT		4	/* unclustered indirect block evacuated */
#define MV_DIR		5	/* directory block into its region */

struct mp_move {
	blk64_t		from;
	blk64_t		to;
	__u32		ino;
	__u8		kind;	/* MV_* */
	__u8		level;	/* 0 data, else as ind_rec */
};

struct mp_geom {
	blk64_t		first_data_block;
	blk64_t		blocks_count;
	__u32		blocks_per_group;
	__u32		inodes_per_group;
	__u32		group_count;
	blk64_t		free_blocks;	/* free in the block bitmap */
	unsigned int	mc_max_pct;	/* tail zone: this % of a group */
	__u32		addr_per_block;	/* block numbers in a block */
	enum e3mp_order	order;		/* of the blocks of a run */
	enum e3mp_dirs	dirs;		/* where REC_DIR records go */
	__u32		head_meta;	/* fixed metadata at a group's start */
	/*
	 * Directories in a tree walk's order (dirwalk.c): walk_rank[i] is
	 * the rank of directory walk_ino[i] (ascending), WALK_NONE if no
	 * walk reaches it.  A group's directories are laid out in rank
	 * order; none (nwalk 0): in inode order.
	 */
	const __u32	*walk_ino;
	const __u32	*walk_rank;
	__u32		nwalk;
};

/*
 * The planner's view of the block bitmap.  in_use() answers for the
 * volume as it is on disk; find_free() and take() work on a private
 * copy in which the planner reserves the blocks it hands out.
 */
struct mp_space_ops {
	int	(*in_use)(void *priv, blk64_t blk);
	int	(*find_free)(void *priv, blk64_t start, blk64_t end,
			     blk64_t *out);
	void	(*take)(void *priv, blk64_t blk);
};

struct mp_figures {
	__u64	in_mc;		/* indirect blocks inside their metacluster */
	__u64	groups;		/* groups holding indirect blocks */
	__u64	reads;		/* indirect-block reads of e2fsck pass 1 */
	__u64	seeks;		/* ... that do not follow the previous one */
};

struct mp_plan {
	struct mp_geom	g;
	enum e3mp_homing homing;
	blk64_t		*slot;		/* all metacluster blocks, ascending */
	__u32		nslot;
	__u32		*mc_first;	/* group -> first index in slot[] */
	__u32		*tail_first;	/* group -> first of its tail zone */
	/*
	 * group -> first slot its tail records fill from: after the slots
	 * layout.c added below the region for directories that found no
	 * free stretch long enough in it (none: tail_first).
	 */
	__u32		*fill_first;
	/*
	 * group -> first slot of its region proper: those from fill_first
	 * on before it extend the region over blocks of its directories
	 * below it (layout.c), each kept only by the block there.
	 */
	__u32		*base_first;
	struct mp_move	*mv[2];		/* round 1, round 2 */
	__u32		nmv[2];
	/* figures for the report */
	__u64		mc_groups;	/* groups with a non-empty MC */
	__u64		ind_moved;	/* indirect blocks into an MC */
	__u64		data_evacuated;
	__u64		temp_moves;
	__u64		unclustered;	/* indirect blocks left outside */
	__u64		no_space;	/* ... of which for want of space */
	__u64		kept_inline;	/* first INDs the inline rule keeps */
	struct mp_figures before, after;
	/* directory blocks (REC_DIR records), under --dirs other than leave */
	__u64		dir_blocks;	/* recorded */
	__u64		dir_moved;	/* into their region */
	__u64		dir_no_space;	/* ... left, no free space */
	__u64		dir_before;	/* in their region before */
	__u64		dir_after;	/* ... and after it */
};

/* Geometry helpers shared with the scan. */
blk64_t mp_group_first(const struct mp_geom *g, __u32 grp);
blk64_t mp_group_last(const struct mp_geom *g, __u32 grp);
__u32 mp_group_of(const struct mp_geom *g, blk64_t blk);
blk64_t mp_zone_first(const struct mp_geom *g, __u32 grp);
blk64_t mp_head_end(const struct mp_geom *g, __u32 grp);
int mp_in_zone(const struct mp_geom *g, blk64_t blk);
__u32 mp_home(const struct mp_geom *g, enum e3mp_homing h,
	      const struct ind_rec *r);
int mp_rec_kept(enum e3mp_homing h, const struct ind_rec *r);
int mp_rec_in_head(const struct mp_geom *g, const struct ind_rec *r);

/* Three-way comparison of block numbers and other keys, for sorting. */
static inline int mp_cmp_u64(__u64 a, __u64 b)
{
	return (a > b) - (a < b);
}

/* keyheap.c: a min-heap of (block, value), the least block on top. */
struct mp_key {
	blk64_t	blk;
	__u32	val;
};
void mp_heap_push(struct mp_key *heap, __u32 *n, struct mp_key k);
struct mp_key mp_heap_pop(struct mp_key *heap, __u32 *n);

/*
 * keyheap.c: the blocks wanted by a reader that sweeps up the disk
 * (prefetch.c, and predtool.c's model of it): those ahead of the sweep
 * under way in a heap, those behind kept for the next sweep.
 */
struct mp_sweep {
	struct mp_key	*ahead;		/* this sweep's: a heap by block */
	__u32		nahead, ahead_alloc;
	struct mp_key	*behind;	/* the next sweep's */
	__u32		nbehind, behind_alloc;
};
errcode_t mp_sweep_want(struct mp_sweep *q, struct mp_key k, int swept,
			blk64_t pos);
errcode_t mp_sweep_next(struct mp_sweep *q);
void mp_sweep_free(struct mp_sweep *q);

/* qsort() comparator of block numbers. */
static inline int mp_cmp_blk(const void *a, const void *b)
{
	return mp_cmp_u64(*(const blk64_t *) a, *(const blk64_t *) b);
}

/*
 * qsort() for arrays that may be empty and so never allocated: C leaves
 * qsort(NULL, 0, ...) undefined, and one or no element is sorted anyway.
 */
static inline void mp_sort(void *base, size_t n, size_t size,
			   int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

/*
 * Make room in the array at *@arrp (*@alloc entries of @size bytes) for
 * entry @n, doubling it from 1024 entries: appending stays linear.
 */
errcode_t mp_grow(void *arrp, __u32 *alloc, __u32 n, size_t size);

/*
 * Binary search over @n entries sorted by block: @cmp(ctx, i, key) says
 * whether entry i lies below (< 0), at (0) or above (> 0) block @key.
 * Returns 1 and sets *@at to the entry found, else 0.
 */
typedef int (*mp_bsearch_cmp)(const void *ctx, __u32 i, blk64_t key);
int mp_bsearch(__u32 n, blk64_t key, mp_bsearch_cmp cmp, const void *ctx,
	       __u32 *at);

/* The first of those @n entries not below @key (@n: none). */
__u32 mp_lower_bound(__u32 n, blk64_t key, mp_bsearch_cmp cmp,
		     const void *ctx);

/* mp_bsearch_cmp over a __u32 array @ctx; its index of @key, or WALK_NONE. */
int mp_cmp_u32_at(const void *ctx, __u32 i, blk64_t key);
__u32 mp_find_u32(const __u32 *a, __u32 n, __u32 key);

errcode_t mp_plan_build(struct mp_plan *p, const struct mp_geom *g,
			enum e3mp_homing homing, struct ind_rec *rec,
			__u32 nrec, struct data_ext *ext, __u32 next,
			const struct mp_space_ops *ops, void *priv);
void mp_plan_free(struct mp_plan *p);
void mp_slots_free(struct mp_plan *p);

/* estimate.c: e2fsck pass 1's indirect-block reads, before or after. */
errcode_t mp_estimate(const struct mp_geom *g, const struct ind_rec *rec,
		      __u32 nrec, int after, struct mp_figures *out);

#endif /* E3MP_PLAN_H */
