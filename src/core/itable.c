/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * itable.c --- where an inode lives: the block of its group's inode table
 *
 * The undo bound (io/undobound.c) counts the inode table blocks a run
 * rewrites, and the model of the run (predict/predtool.c) reads them:
 * both ask here.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "core/itable.h"

/* The block holding inode @ino. */
blk64_t inode_table_block(ext2_filsys fs, ext2_ino_t ino)
{
	dgrp_t g = (ino - 1) / fs->super->s_inodes_per_group;
	__u64 at = (__u64) ((ino - 1) % fs->super->s_inodes_per_group) *
		   EXT2_INODE_SIZE(fs->super);

	return ext2fs_inode_table_loc(fs, g) + at / fs->blocksize;
}
