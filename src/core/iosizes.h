/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * iosizes.h --- the sizes of the I/O the run makes and the models walk
 *
 * Each is said once here, for the code that does the I/O and the code
 * that models it: a change to one is a change to both.
 */
#ifndef E3MP_IOSIZES_H
#define E3MP_IOSIZES_H

#include <ext2fs/ext2fs.h>

/*
 * Blocks of inode table one read of libext2fs's inode scan fetches,
 * libext2fs's default, which e2fsck uses: the scan (scan/scan.c) asks
 * for it; e2fsck's pass 1 (model/fsckmodel.c) and the run's scan
 * (predict/predtool.c) are modelled with it.
 */
#define MP_SCAN_CHUNK		EXT2_INODE_SCAN_DEFAULT_BUFFER_BLOCKS

/*
 * Inodes with indirect blocks e2fsck's pass 1 defers before it reads
 * their blocks, sorted (e2fsck/pass1.c's process_inodes() batch):
 * model/fsckmodel.c, the one model of pass 1, walks it.
 */
#define MP_E2FSCK_BATCH		256

/*
 * Bytes of one batch of copies (write/move.c: read in source order,
 * written in destination order); predict/predtool.c models them.
 */
#define MP_COPY_BATCH_BYTES	(8U << 20)

/*
 * Bytes of copies at most in one write, each followed by a kick to the
 * kernel's writeback (write/writeback.c); predict/predtool.c models the
 * kicks.
 */
#define MP_WRITEBACK_CHUNK_BYTES	(1U << 20)

#endif /* E3MP_IOSIZES_H */
