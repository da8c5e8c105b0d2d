/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * disk.h --- a model HDD, and e2fsck -fn's reads walked through it
 *
 * Pure logic, no I/O, so the unit tests can drive it: disk.c is the seek
 * model of bench/hddmodel.py (the bench replays e2fsck's real read log
 * through it; the formulas must stay the same so the figures agree), and
 * fsckmodel.c walks the reads e2fsck 1.47 makes, in its order, from what
 * the scan holds.  The model's files only (model/, predict/): the
 * tool sees the model through model.h.
 */
#ifndef E3MP_DISK_H
#define E3MP_DISK_H

#include <ext2fs/ext2fs.h>

#include "core/geom.h"
#include "core/records.h"
#include "model/model.h"

/* One disk, one request at a time; the disk is the volume. */
struct mp_disk {
	struct mp_disk_params p;
	double		span;		/* bytes */
	unsigned int	blocksize;
	__u64		head;		/* where the last read ended */
	double		ms;		/* time so far */
	__u64		reads, seeks, blocks;
};

void mp_disk_init(struct mp_disk *d, const struct mp_disk_params *p,
		  __u64 span, unsigned int blocksize);
double mp_disk_seek_ms(const struct mp_disk *d, __u64 dist);
double mp_disk_read(struct mp_disk *d, blk64_t blk, __u64 count);

struct mp_extra {
	blk64_t		blk;
	__u32		ino;
	__u32		kind;	/* MP_X_* */
};

/* What e2fsck reads of one group (0: nothing). */
struct mp_group_io {
	blk64_t		itable;
	__u32		itable_blocks;	/* of it that e2fsck scans */
	blk64_t		bbitmap;
	blk64_t		ibitmap;
	int		in_use;		/* an inode of it in use */
};

struct mp_fsck_ops {
	void	(*group)(void *priv, __u32 grp, struct mp_group_io *out);
	/*
	 * The first directory block >= @start: of list 0, the directories'
	 * first blocks; of list 1, all the others.  Returns 0 if none.
	 */
	int	(*next_dir)(void *priv, int list, blk64_t start,
			    blk64_t *out);
};

/* The volume, as the walk needs it. */
struct mp_fsck_vol {
	const struct mp_geom	*g;
	unsigned int		blocksize;
	unsigned int		inode_size;
	__u64			span;		/* bytes */
	blk64_t			desc_first;
	__u32			desc_blocks;
	__u32			journal_ino;	/* 0: none */
	blk64_t			journal_sb;	/* its block 0 */
	blk64_t			resize_dind;	/* 0: none */
	blk64_t			rgdt_first;
	__u32			rgdt_blocks;
	int			dir_index;	/* htree roots first */
	const struct mp_extra	*x;		/* in inode order */
	__u32			nx;
	const struct mp_fsck_ops *ops;
	void			*priv;
};

/*
 * The default e2fsck on a kernel (fsckmodel.c): the page cache and
 * read-ahead of kernel.c, e2fsck's own read-ahead (fadvise) of inode
 * tables and directory blocks, the bitmaps read by several threads, a
 * drive with a read-ahead cache.  The page cache's pages are a set
 * behind @cache (set MP_S_CACHED, empty at the start).
 */
#define MP_FSCK_MAX_THREADS	1024	/* bitmap threads modelled */

struct mp_fsck_env {
	unsigned int		ra_kb;		/* the device's read_ahead_kb */
	unsigned int		fsck_ra_kb;	/* e2fsck's readahead_kb */
	unsigned int		threads;	/* reading the bitmaps */
	int			segments;	/* of the drive's cache */
	const struct mp_set_ops	*cache;
	void			*cache_priv;
	/* the kernel's requests, one call each (NULL: none) */
	void			(*trace)(void *priv, __u64 pos, __u64 len);
	void			*trace_priv;
};

/* @env NULL: e2fsck's own reads (test_io's log) straight to the disk. */
errcode_t mp_predict_fsck(const struct mp_fsck_vol *v,
			  const struct mp_disk_params *dp,
			  const struct mp_fsck_env *env,
			  const struct ind_rec *rec, __u32 nrec, int after,
			  struct mp_prediction *out);

/*
 * The tool's own I/O on the model disk, replayed as bench/hddmodel.py's
 * strace command replays an strace log of a run (toolio.c): reads go
 * through a page cache (a block read or written once is never paid for
 * again); writes are buffered until the next sync or kick (the run's
 * sync_file_range() after each write of copies), which writes each
 * dirty block once, in block order; with an undo file, the first write
 * to each undo unit first reads the whole unit (libext2fs's undo
 * manager saves its old contents).  The undo file itself is taken to be
 * on another disk.  The block sets live behind @ops, so the unit tests
 * can keep them in arrays and the tool in libext2fs bitmaps.
 */
enum mp_set {
	MP_S_CACHED = 0,	/* in the page cache */
	MP_S_DIRTY,		/* written since the last sync */
	MP_S_SAVED,		/* an undo unit's first block: saved */
	MP_S_COUNT
};

struct mp_set_ops {
	/* The first block in [start, end] whose membership is @value. */
	int	(*find)(void *priv, int set, int value, blk64_t start,
			blk64_t end, blk64_t *out);
	void	(*mark)(void *priv, int set, blk64_t blk, __u64 count,
			int value);
};

struct mp_toolio {
	struct mp_disk		d;
	const struct mp_set_ops	*ops;
	void			*priv;
	blk64_t			nblocks;	/* of the volume */
	__u32			unit;		/* undo unit, blocks; 0: none */
	__u32			skew;		/* partition offset % unit */
	double			read_ms, write_ms;
	__u64			reads, writes;	/* disk requests */
	__u64			read_blocks, write_blocks;
	__u64			syncs;
	double			kick_due;	/* kicked writes' time; <0 none */
};

/*
 * How long after a kick its writes reach the disk, in the disk's busy
 * time: on the emulated disk (bench/emudisk, a loop device), the reads
 * the run makes in the next 0.7 to 1.4 ms of wall time, about half of
 * it the disk's, go first, and the writes of several kicks go out
 * together (bench/realfsck's request log of e3metapack's run on dirs).
 */
#define MP_TOOLIO_KICK_LAG_MS	0.5

void mp_toolio_init(struct mp_toolio *t, const struct mp_disk_params *p,
		    blk64_t nblocks, unsigned int blocksize, __u32 unit,
		    __u32 skew, const struct mp_set_ops *ops, void *priv);
void mp_toolio_read(struct mp_toolio *t, blk64_t blk, __u64 count);
void mp_toolio_read_unit(struct mp_toolio *t, blk64_t blk);
void mp_toolio_write(struct mp_toolio *t, blk64_t blk, __u64 count);
void mp_toolio_kick(struct mp_toolio *t);
void mp_toolio_sync(struct mp_toolio *t);

/*
 * The model's own state (model.c): its inputs, which the scan notes
 * through model.h, and its figures, which predict/ works out and the
 * report reads through model.h.
 */
struct mp_model {
	struct mp_extra		*xr;		/* EA blocks, slow symlinks */
	__u32			nx, x_alloc;
	__u32			*cut;		/* each scan batch's first inode */
	__u32			ncut, cut_alloc;
	blk64_t			journal_sb;	/* the journal's block 0 */
	struct mp_prediction	pred[2];	/* e2fsck -fn: before, after */
	struct mp_prediction	log[2];		/* its own reads alone */
	struct mp_fsck_setting	setting;	/* what pred[] assumed */
	double			dirs_ms[MP_DIRS_MODES];	/* by --dirs */
	double			span_ms[MP_MC_SPAN_MAX + 1]; /* by --mc-span */
	struct mp_tool_prediction tool;		/* the run itself */
};

#endif /* E3MP_DISK_H */
