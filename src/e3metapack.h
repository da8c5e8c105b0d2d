/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * e3metapack.h --- shared state of the e3metapack pipeline
 *
 * One struct e3mp is handed to every phase, in the order main.c calls
 * them: open (safety gate), scan, planfeed + plan, then the write order
 * of finish.c with move (copies) and fixptr (pointers) inside it.  The core
 * never prints; it reports progress through mp->progress and returns
 * errcode_t values that only main.c turns into messages.
 */
#ifndef E3METAPACK_H
#define E3METAPACK_H

#include <stdio.h>
#include <sys/types.h>

#include <ext2fs/ext2fs.h>

#include "plan/plan.h"
#include "model/model.h"
#include "e3mp_err.h"
#include "errclass.h"
#include "lib/stop.h"

/*
 * Images and devices over 2 GiB need a 64-bit off_t in every open(),
 * lseek() and pread() of the tool: AC_SYS_LARGEFILE puts
 * _FILE_OFFSET_BITS=64 in config.h, which each .c includes first.  A .c
 * that forgot it, or a 32-bit build without large-file support, stops here.
 */
_Static_assert(sizeof(off_t) == 8,
	       "off_t must be 64 bits (include config.h first)");

/* Exit codes; documented in e3metapack(8) and the README. */
#define E3MP_EXIT_CHANGED	0	/* repacked (with -n: would repack) */
#define E3MP_EXIT_NOTHING	1	/* already packed, nothing written */
#define E3MP_EXIT_REFUSED	2	/* refused for safety, untouched */
#define E3MP_EXIT_ERROR		4	/* failed before any write, untouched */
#define E3MP_EXIT_PARTIAL	8	/* failed after writing began */
#define E3MP_EXIT_USAGE		16	/* usage or syntax error */
#define E3MP_EXIT_INTERRUPTED	32	/* stopped by a signal at a safe point */

/* Debug flags (-d). */
#define E3MP_DEBUG_PLAN		0x0001	/* dump every planned move */
#define E3MP_DEBUG_IO		0x0002	/* trace batched copies (move.c) */

enum e3mp_phase {
	E3MP_PHASE_SCAN = 0,
	E3MP_PHASE_COPY,
	E3MP_PHASE_REWRITE,
	E3MP_PHASE_COUNT
};

struct e3mp;
struct prefetch;
struct dirnote;
typedef void (*e3mp_progress_fn)(struct e3mp *mp, enum e3mp_phase phase,
				 __u64 done, __u64 total);

/* The steps of volume_prepare() (prepare.c), in order. */
enum e3mp_prep_step {
	E3MP_PREP_DEVICE = 0,	/* check_device */
	E3MP_PREP_OPEN,		/* open_volume */
	E3MP_PREP_CHECK,	/* check_volume */
	E3MP_PREP_SCAN,		/* inode_scan_and_record */
	E3MP_PREP_PLAN,		/* planfeed_plan */
	E3MP_PREP_PREDICT,	/* predict_fsck */
	E3MP_PREP_UNDO,		/* undo_space_check */
	E3MP_PREP_TOOL,		/* predict_tool */
	E3MP_PREP_COUNT
};
typedef void (*e3mp_step_fn)(struct e3mp *mp, enum e3mp_prep_step step,
			     errcode_t err);

/* --read-ahead's bound, KiB (the kernel's is far below) */
#define MP_READ_AHEAD_MAX_KB	(1U << 20)
/* An image file's read_ahead_kb: a loop device's long-standing default */
#define MP_READ_AHEAD_IMAGE_KB	128

/* Where the read_ahead_kb of the prediction comes from. */
enum e3mp_ra_from {
	E3MP_RA_IMAGE = 0,	/* an image file: MP_READ_AHEAD_IMAGE_KB */
	E3MP_RA_DEVICE,		/* the block device's own */
	E3MP_RA_OPTION		/* --read-ahead */
};

struct e3mp_options {
	int		dry_run;	/* -n */
	int		force;		/* -f */
	int		progress;	/* -p */
	int		verbose;	/* -v */
	int		json;		/* --json */
	unsigned long	debug;		/* -d */
	const char	*undo_file;	/* -z; NULL: default, "none": off */
	enum e3mp_homing homing;	/* --home=inode|data|inline */
	enum e3mp_order	order;		/* --order=fsck|delete */
	unsigned int	mc_max_pct;	/* --mc-max: cap, % of a group */
	unsigned int	mc_span;	/* --mc-span: groups per metacluster */
	enum e3mp_dirs	dirs;		/* --dirs: leave, or where to */
	const char	*spec;		/* DEVICE as given */
	int		help;		/* -h */
	int		version;	/* -V */
	int		partition;	/* --partition N; 0: all */
	const char	*bad;		/* what parse_args() rejected */
	struct mp_disk_params disk;	/* --disk: the model disk */
	unsigned int	read_ahead_kb;	/* --read-ahead, or the device's */
	int		ra_given;	/* ... given as an option */
};

/* Figures gathered by the scan and the plan, for the report. */
struct e3mp_stats {
	__u64	inodes_scanned;		/* in-use inodes looked at */
	__u64	inodes_mapped;		/* block-mapped, with blocks */
	__u64	inodes_with_ind;	/* ... of which own indirect blocks */
	__u64	skipped_extent;		/* extent-mapped, left alone */
	__u64	skipped_inline;		/* inline data */
	__u64	skipped_fastlink;	/* fast symlinks */
	__u64	skipped_special;	/* inodes 1 and 7, devices, ... */
	__u64	ind_by_level[4];	/* [1] IND, [2] DIND, [3] TIND */
	__u64	data_blocks;		/* data blocks of scanned files */
	__u64	dirs_mapped;		/* block-mapped directories */
	__u64	dir_blocks;		/* ... their data blocks */
};

/* The first I/O error of a run (io.c), for the message. */
struct e3mp_io_error {
	errcode_t	err;
	const char	*op;		/* "reading", "writing", "flushing" */
	__u64		offset;		/* bytes into the volume or undo file */
	int		undo;		/* in the undo file, not the volume */
};

/* One entry of a whole-disk image's partition table (partition.c). */
struct e3mp_part {
	int		partno;
	int		extended;	/* a container of logical partitions */
	__u64		offset;		/* bytes from the start of the device */
	__u64		size;		/* bytes */
	char		type[16];	/* filesystem type by libblkid, or "" */
	errcode_t	refusal;	/* E3MP_PART_*, or 0 */
};

/* The lock a run holds on its volume (lock.c). */
struct e3mp_lock {
	int		fd;		/* holds the flock; -1: none */
	long		holder_pid;	/* who holds it, if refused; 0: unknown */
	int		holder_gone;	/* refused, then found released */
	char		holder_name[32];
	char		loop[300];	/* the loop device over the file */
};

struct e3mp {
	struct e3mp_options	opt;
	const char		*device;	/* resolved path */
	const struct e3mp_part	*part;		/* partition, or NULL */
	ext2_filsys		fs;
	char			*undo_path;	/* undo file in use, or NULL */
	int			undo_created;	/* it did not exist before */
	const char		*undo_dir_made;	/* default dir, created now */
	__u32			undo_unit;	/* bytes the undo manager saves */
	__u64			undo_bound;	/* undo file at most; 0: none */
	__u64			undo_avail;	/* free for it (statvfs) */
	int			mount_flags;	/* EXT2_MF_* of the device */
	int			writes_started;	/* set before the first write */
	unsigned long		dev_writes;	/* writes that reached it */
	unsigned long		bitmap_writes_dropped;	/* bitmapio.c */
	struct e3mp_io_error	io_err;
	unsigned int		blocksize;	/* of the volume, once open */
	enum e3mp_ra_from	ra_from;	/* whose opt.read_ahead_kb */

	/* what the last refusal or error was about, for the message */
	ext2_ino_t		err_ino;
	blk64_t			err_blk;
	dgrp_t			err_group;
	const char		*err_why;	/* a feature, a reason */
	const char		*err_op;	/* on err_blk: "reading" */

	/* scan */
	struct e3mp_stats	st;
	struct ind_rec		*rec;		/* indirect blocks, scan order */
	__u32			nrec, rec_alloc;
	struct data_ext		*ext;		/* data in tail zones */
	__u32			next, ext_alloc;
	struct mp_slink		*slink;		/* slow symlinks: checked */
	__u32			nslink, slink_alloc;
	ext2fs_block_bitmap	seen;		/* blocks referenced by inodes */
	ext2fs_block_bitmap	dirblk[2];	/* directories' first, other */
	ext2fs_block_bitmap	eablk;		/* EA blocks seen */
	struct prefetch		*pf;		/* a batch's indirect blocks */
	struct dirnote		*dnote;		/* gate/dirnote.c: for the checks */
	__u32			*walk_ino;	/* dirwalk.c: directories, */
	__u32			*walk_rank;	/* ... their walk order */

	/* plan */
	struct mp_geom		geom;
	struct mp_plan		plan;

	/* the model: the inputs the scan notes, its figures (model.h) */
	struct mp_model		*model;

	/* conditions -n reports instead of refusing; main() prints them */
	errcode_t		warn[8];
	int			nwarn;

	/* writeback.c: the undo file and the device, opened read-only */
	int			wb_open;
	int			wb_fd[2];

	/*
	 * -d 0x2: move.c traces each batch of copies here (main.c sets it
	 * to stderr; NULL: no trace).  A debug trace, not a message: the
	 * core writes it as it goes, since a run keeps no log of batches.
	 */
	FILE			*debug_io;

	/* progress; NULL for none */
	e3mp_progress_fn	progress;
	void			*progress_priv;

	/* volume_prepare(): the step reached (or failed), and a hook */
	enum e3mp_prep_step	prep_step;
	e3mp_step_fn		on_step;
};

/* cli.c */
errcode_t parse_args(int argc, char **argv, struct e3mp_options *opt);
void usage(FILE *f);
void print_version(void);

/* open.c: resolve DEVICE, probe it, check it is safe, open it */
errcode_t resolve_device(const char *spec, const char **device);
errcode_t check_device(struct e3mp *mp);
errcode_t open_volume(struct e3mp *mp);
errcode_t check_volume(struct e3mp *mp);
const char *volume_label(const struct e3mp *mp);

/* prepare.c: check_device .. planfeed_plan, all before the first write */
errcode_t volume_prepare(struct e3mp *mp);

/* journal.c: the internal journal, as e2fsck would find it */
errcode_t journal_verify(struct e3mp *mp);
/* lock.c */
errcode_t volume_lock(const char *dev, int dry_run, struct e3mp_lock *lk);

/* partition.c */
errcode_t partitions_probe(const char *dev, struct e3mp_part **parts,
			   int *nparts, __u64 *dev_size);
const char *partition_skip_reason(const struct e3mp_part *p);

/* bitmapio.c */
io_manager bitmap_layer(struct e3mp *mp, io_manager inner);
errcode_t bitmap_layer_watch(struct e3mp *mp);

/* io.c */
io_manager io_layer(struct e3mp *mp);
errcode_t io_checked(struct e3mp *mp, errcode_t err);

/* undo.c */
errcode_t undo_setup(struct e3mp *mp, io_manager *io);
__u32 undo_unit_size(const struct e3mp *mp);
void undo_unit_blocks(const struct e3mp *mp, __u32 bytes, __u32 *unit,
		      __u32 *skew);
errcode_t undo_space_check(struct e3mp *mp);
errcode_t undo_replayable(const struct e3mp *mp, const char **why);
void undo_discard_unused(struct e3mp *mp);

/* undobound.c */
struct mp_ptr_write {
	blk64_t		blk;		/* a block holding a moved pointer */
	__u32		ino;		/* whose */
	__u32		in_inode;	/* @blk is the inode's table block */
};
errcode_t undo_bound(const struct e3mp *mp, __u32 unit, __u64 *bytes);
errcode_t undo_pointer_writes(const struct e3mp *mp, int round,
			      struct mp_ptr_write **pw, __u32 *n);

/* scan.c */
errcode_t inode_scan_and_record(struct e3mp *mp);

/* inodecheck.c: what the scan checks besides block maps */
errcode_t bad_blocks_err(struct e3mp *mp, errcode_t err);
errcode_t bad_blocks_precheck(struct e3mp *mp);
errcode_t inode_fields_check(struct e3mp *mp, ext2_ino_t ino,
			     const struct ext2_inode_large *inode, int nomap);

/* dirwalk.c */
errcode_t dirs_walk_order(struct e3mp *mp);
/* A slow symlink (inode @ino) and the block that holds its target. */
struct mp_slink {
	blk64_t	blk;
	__u32	ino;
};
/*
 * A directory block (REC_DIR record @rec at @blk), or with MP_DBLK_X a
 * slow symlink's block (mp->slink[@rec & ~MP_DBLK_X]).
 */
struct mp_dblk {
	blk64_t	blk;
	__u32	rec;
};
#define MP_DBLK_X	0x80000000U
errcode_t dirs_by_block(const struct e3mp *mp, struct mp_dblk **out,
			__u32 *n);

/* prefetch.c: a batch's indirect blocks, read ahead in block order */
__u32 prefetch_blocks(ext2_filsys fs);
errcode_t prefetch_begin(struct e3mp *mp);
errcode_t prefetch_inode(struct e3mp *mp,
			 const struct ext2_inode_large *inode);
errcode_t prefetch_read(struct e3mp *mp);
int prefetch_lookup(struct e3mp *mp, blk64_t blk, int count, void *buf);
void prefetch_drop(struct e3mp *mp);
void prefetch_free(struct e3mp *mp);

/* predict.c: e2fsck -fn's time on the model disk, before and after */
errcode_t predict_fsck(struct e3mp *mp);

/* predtool.c: the run's own time on the model disk */
errcode_t predict_tool(struct e3mp *mp);

/* planfeed.c: feed the pure planner from the volume */
void planfeed_geometry(struct e3mp *mp);
errcode_t planfeed_plan(struct e3mp *mp);
errcode_t planfeed_plan_as(struct e3mp *mp, enum e3mp_dirs dirs,
			   unsigned int span, struct ind_rec *rec,
			   struct mp_plan *p);

/* move.c */
errcode_t blocks_copy(struct e3mp *mp, struct mp_move *mv, __u32 n);

/* fixptr.c */
errcode_t pointers_rewrite(struct e3mp *mp, struct mp_move *mv, __u32 n);

/* finish.c: the steps of the write order (core/order.c), and closing */
errcode_t transaction_begin(struct e3mp *mp);
errcode_t blocks_reserve(struct e3mp *mp, const struct mp_move *mv, __u32 n);
errcode_t write_barrier(struct e3mp *mp);
void blocks_release(struct e3mp *mp, const struct mp_move *mv, __u32 n);
errcode_t transaction_end(struct e3mp *mp);
errcode_t volume_close(struct e3mp *mp, int failed);

/* writeback.c: start writing copies out early; advisory, never fails */
void writeback_open(struct e3mp *mp);
__u32 writeback_chunk(struct e3mp *mp);
void writeback_kick(struct e3mp *mp);
void writeback_close(struct e3mp *mp);

/* progress.c */
void progress_attach(struct e3mp *mp);
void progress_done(struct e3mp *mp);

/* report.c */
void report_print(struct e3mp *mp, FILE *f, const char *status,
		  int exit_code);
void report_json_failure(const struct e3mp *mp, FILE *f, const char *status,
			 const char *why, int exit_code);
void report_debug_moves(struct e3mp *mp, FILE *f);

#endif /* E3METAPACK_H */
