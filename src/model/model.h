/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * model.h --- the model of e2fsck's time and the run's, at arm's length
 *
 * What the tool sees of the model: the disk's parameters (--disk), the
 * figures the report prints, and one interface through which the scan
 * hands the model its inputs (mp_model_note_*()).  The model's own
 * state (struct mp_model) and the disk and the walks behind it are in
 * disk.h, which only the model's files (model/, predict/) include.
 */
#ifndef E3MP_MODEL_H
#define E3MP_MODEL_H

#include <ext2fs/ext2fs.h>

/* The reference disk: a 7200-rpm drive, as bench/hddmodel.py's. */
#define MP_DISK_SETTLE_MS	1.0	/* track-to-track settle */
#define MP_DISK_STROKE_MS	15.0	/* full stroke, settle included */
#define MP_DISK_HALF_ROT_MS	4.17	/* half a rotation at 7200 rpm */
#define MP_DISK_MB_PER_S	150.0	/* media transfer rate, 10^6 B/s */

struct mp_disk_params {
	double	settle_ms;
	double	stroke_ms;
	double	half_rot_ms;
	double	mb_per_s;
};

/* --disk: the reference disk, a parsed one, whether it is the former. */
void mp_disk_default(struct mp_disk_params *p);
errcode_t mp_disk_parse(const char *s, struct mp_disk_params *p);
int mp_disk_is_default(const struct mp_disk_params *p);

/* Where e2fsck's time goes. */
enum mp_kind {
	MP_K_ITABLE = 0,	/* inode tables */
	MP_K_BITMAP,		/* block and inode bitmaps */
	MP_K_IND,		/* IND/DIND/TIND blocks of files */
	MP_K_DIR,		/* directory blocks (pass 2) */
	MP_K_JOURNAL,		/* journal superblock and IND blocks */
	MP_K_OTHER,		/* superblock, descriptors, resize inode */
	MP_K_COUNT
};

/*
 * Other blocks pass 1 reads for an inode: its extended-attribute block
 * (with the deferred inodes: e2fsck defers an inode that has one) and a
 * slow symlink's block (as soon as the scan reaches the inode).
 */
#define MP_X_EA		1	/* first reference to an EA block */
#define MP_X_EA_AGAIN	2	/* a shared EA block, already read */
#define MP_X_SYMLINK	3
#define MP_X_HTREE	4	/* an htree directory's root (its block 0) */

/* e2fsck -fn's time on the model disk (predict/predict.c). */
struct mp_prediction {
	double	ms[MP_K_COUNT];
	double	total_ms;
	__u64	reads, seeks, blocks;
	/* of the reads and seeks, those of each kind */
	__u64	kind_reads[MP_K_COUNT], kind_seeks[MP_K_COUNT];
};

/* What the report says of the run's own time (predtool.c). */
struct mp_tool_prediction {
	int	valid;		/* 0: nothing to move, not predicted */
	double	total_ms, scan_ms, read_ms, write_ms;
	__u64	reads, writes, seeks;
};

/* The undo unit holding @blk (toolio.c; the bitmap layer asks too). */
blk64_t mp_undo_unit_first(blk64_t blk, __u32 unit, __u32 skew,
			   __u32 *count);

/* The model's state: its inputs and its figures (model.c). */
struct mp_model;

errcode_t mp_model_new(struct mp_model **out);
void mp_model_free(struct mp_model **m);

/* The scan's notes: the first inode of each batch it reads, in order. */
errcode_t mp_model_note_batch(struct mp_model *m, __u32 ino);
/* ... and each block pass 1 reads for inode @ino besides its map. */
errcode_t mp_model_note_extra(struct mp_model *m, __u32 ino, blk64_t blk,
			      __u32 kind);

/* What the prediction of e2fsck assumed (the report states it). */
struct mp_fsck_setting {
	unsigned int	ra_kb;		/* the device's read_ahead_kb */
	unsigned int	fsck_ra_kb;	/* e2fsck's own readahead_kb */
	unsigned int	threads;	/* reading the inode bitmaps */
	unsigned int	page_kb;	/* the kernel's page */
	unsigned int	drive_kb;	/* the drive's cache: segments of */
	unsigned int	segments;
};

/*
 * The figures (all zero before they are worked out, or without one):
 * the default e2fsck through the kernel (fsck), and e2fsck's own reads
 * alone, one request each, as its test_io log lists them (fsck_log).
 */
const struct mp_prediction *mp_model_fsck(const struct mp_model *m,
					  int after);
const struct mp_prediction *mp_model_fsck_log(const struct mp_model *m,
					      int after);
const struct mp_tool_prediction *mp_model_tool(const struct mp_model *m);
const struct mp_fsck_setting *mp_model_fsck_setting(const struct mp_model *m);
/*
 * e2fsck after the run with --dirs=@dirs (enum e3mp_dirs), ms; 0: not
 * predicted (--dirs=leave, no block-mapped directory).
 */
#define MP_DIRS_MODES	4
double mp_model_fsck_dirs(const struct mp_model *m, unsigned int dirs);
/*
 * e2fsck after the run with --mc-span=@span, ms; 0: not predicted (the
 * report compares this run's span with 1 and 2).
 */
#define MP_MC_SPAN_MAX	16	/* --mc-span's bound */
double mp_model_fsck_span(const struct mp_model *m, unsigned int span);

#endif /* E3MP_MODEL_H */
