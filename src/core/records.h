/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * records.h --- what the scan records and the plan places: indirect and
 * directory blocks (struct ind_rec), data runs in tail zones (struct
 * data_ext), planned moves (struct mp_move), and the layout rules that
 * shape them (--home, --order, --dirs)
 */
#ifndef E3MP_RECORDS_H
#define E3MP_RECORDS_H

#include <ext2fs/ext2fs.h>

#include "lib/array.h"

/* (core/words.c names --home's values by this order) */
enum e3mp_homing {
	E3MP_HOME_INODE = 0,	/* a file's run, in its inode's group */
	E3MP_HOME_DATA,		/* each block, in the group of its data */
	E3MP_HOME_INLINE	/* as inode, but first INDs stay in line */
};

/*
 * (core/words.c names --order's values by this order) The order of a
 * file's run of indirect blocks in its metacluster: as e2fsck's pass 1
 * reads them (pre-order, children first to last), or as the kernel
 * frees them when the file is deleted or truncated (pre-order, children
 * last to first).
 */
enum e3mp_order {
	E3MP_ORDER_FSCK = 0,
	E3MP_ORDER_DELETE
};

/* Where directory blocks go (core/words.c names them in this order). */
enum e3mp_dirs {
	E3MP_DIRS_LEAVE = 0,	/* not recorded: they stay */
	E3MP_DIRS_PACK,		/* after the group's INDs, at its end */
	E3MP_DIRS_ROOTS,	/* block 0 after the inode table, the rest as pack */
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
#define WALK_NONE	MP_NOT_FOUND

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

#endif /* E3MP_RECORDS_H */
