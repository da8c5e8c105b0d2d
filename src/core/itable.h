/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * itable.h --- where an inode lives (itable.c)
 */
#ifndef E3MP_ITABLE_H
#define E3MP_ITABLE_H

#include <ext2fs/ext2fs.h>

blk64_t inode_table_block(ext2_filsys fs, ext2_ino_t ino);

#endif /* E3MP_ITABLE_H */
