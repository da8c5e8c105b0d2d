/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dircheck.h --- the directories the run reads, checked as e2fsck would
 *
 * The scan notes what a directory entry must agree with (dirnote_*:
 * each inode's type, each directory's size and flags, each group's
 * directory count); dirwalk.c hands every directory block it reads to
 * dircheck_block(), once, and the tree it built to dircheck_tree().  A
 * fault is an E3MP_* refusal naming the inode and block.
 */
#ifndef E3MP_DIRCHECK_H
#define E3MP_DIRCHECK_H

#include <ext2fs/ext2fs.h>

struct e3mp;
struct ind_rec;
struct dircheck;

/* An inode in use whose mode is no file type (itype[] below). */
#define DIRNOTE_BADMODE	0xff

/* A directory in use, as the scan found it. */
struct dnote {
	__u32	ino;
	__u32	flags;		/* i_flags */
	__u64	size;		/* i_size */
};

/* What the scan noted for the checks (mp->dnote). */
struct dirnote {
	__u8		*itype;		/* by inode - 1: EXT2_FT_*, 0 unused,
					   DIRNOTE_BADMODE; NULL: not kept */
	struct dnote	*dir;		/* directories, ascending */
	__u32		ndir, dir_alloc;
	__u32		*grp_dirs;	/* directories in use, by group */
	/* inodes some entry must name, until one does (kept with itype) */
	ext2fs_inode_bitmap unnamed;
	struct dnote	*slow;		/* slow symlinks, ascending (ditto) */
	__u32		nslow, slow_alloc;
};

/* Scan hook: @ino is in use (called in ascending inode order). */
errcode_t dirnote_inode(struct e3mp *mp, ext2_ino_t ino,
			const struct ext2_inode_large *inode);
/* Directories in use in group @grp, as the scan counted them. */
__u32 dirnote_group_dirs(const struct e3mp *mp, dgrp_t grp);
void dirnote_free(struct e3mp *mp);

errcode_t dircheck_open(struct e3mp *mp, struct dircheck **out);
errcode_t dircheck_block(struct dircheck *dc, const struct ind_rec *r,
			 const char *buf, errcode_t read_err);
errcode_t dircheck_tree(struct dircheck *dc, const __u32 *ino,
			const __u32 *rank, __u32 n);
void dircheck_close(struct dircheck **dc);

/* inodecheck.c: a slow symlink's block @buf (read from @blk) */
errcode_t symlink_target_check(struct e3mp *mp, ext2_ino_t ino, blk64_t blk,
			       const char *buf, errcode_t read_err);

/* groupcheck.c: descriptors' counts against the bitmaps and the scan */
errcode_t group_counts_check(struct e3mp *mp);

#endif /* E3MP_DIRCHECK_H */
