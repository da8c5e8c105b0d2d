/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * blockorder.c --- dump block maps of an ext2/3/4 image for the benchmark
 *
 * Read-only; uses libext2fs.
 *
 *   blockorder kinds IMAGE
 *	What every block that is not plain file data is, as runs
 *	    <first-block> <count> <kind>
 *	kind: sb (superblocks, group descriptors, reserved GDT), bbitmap,
 *	ibitmap, itable, ind (IND/DIND/TIND of files and directories),
 *	extent (extent tree blocks), dir (directory blocks), journal (the
 *	journal inode's blocks), resize (resize inode's blocks), ea (xattr
 *	blocks), symlink (slow symlink blocks).  Lines starting with '#'
 *	are "# key value" statistics.
 *
 * Build:  make bench-progs (bench/blockorder)
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>
#include <et/com_err.h>

static const char *prog = "blockorder";

/* ---- run coalescing -------------------------------------------------- */

struct run {
	int	 open;
	const char *name;
	blk64_t	 start;
	blk64_t	 count;
};

static void run_flush(struct run *r)
{
	if (!r->open)
		return;
	printf("%llu %llu %s\n", (unsigned long long)r->start,
	       (unsigned long long)r->count, r->name);
	r->open = 0;
}

static void run_add_kind(struct run *r, const char *name, blk64_t blk,
			 blk64_t n)
{
	if (!n)
		return;
	if (r->open && r->name == name && blk == r->start + r->count) {
		r->count += n;
		return;
	}
	run_flush(r);
	r->open = 1;
	r->name = name;
	r->start = blk;
	r->count = n;
}

/* ---- kinds mode ------------------------------------------------------- */

/* Kind names: compared by pointer in run_add_kind. */
static const char K_SB[] = "sb", K_BB[] = "bbitmap", K_IB[] = "ibitmap",
	K_IT[] = "itable", K_IND[] = "ind", K_EXT[] = "extent",
	K_DIR[] = "dir", K_JNL[] = "journal", K_RSZ[] = "resize",
	K_EA[] = "ea", K_SYM[] = "symlink", K_DATA[] = "data";

struct kinds_priv {
	struct run run;
	const char *meta_kind;	/* for blockcnt < 0 */
	const char *data_kind;	/* for blockcnt >= 0, NULL: not listed */
	int extents;
	unsigned long long n_ind, n_dind, n_tind, n_ext, n_dir;
	unsigned long long n_dirind;
};

static int kinds_cb(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt,
		    blk64_t ref_blk, int ref_offset, void *priv_data)
{
	struct kinds_priv *p = priv_data;

	(void)fs; (void)ref_blk; (void)ref_offset;
	if (*blocknr == 0)
		return 0;
	if (blockcnt < 0) {
		run_add_kind(&p->run, p->meta_kind, *blocknr, 1);
		if (p->meta_kind == K_IND) {
			if (p->data_kind == K_DIR)
				p->n_dirind++;
			if (blockcnt == BLOCK_COUNT_IND)
				p->n_ind++;
			else if (blockcnt == BLOCK_COUNT_DIND)
				p->n_dind++;
			else
				p->n_tind++;
		} else if (p->meta_kind == K_EXT) {
			p->n_ext++;
		}
	} else if (p->data_kind) {
		run_add_kind(&p->run, p->data_kind, *blocknr, 1);
		if (p->data_kind == K_DIR)
			p->n_dir++;
	}
	return 0;
}

static void die(errcode_t err, const char *what)
{
	com_err(prog, err, "%s", what);
	exit(2);
}

int main(int argc, char **argv)
{
	ext2_filsys fs;
	ext2_inode_scan scan;
	struct ext2_inode inode;
	ext2_ino_t ino;
	errcode_t err;
	char *block_buf;
	dgrp_t g;

	if (argc != 3 || strcmp(argv[1], "kinds")) {
		fprintf(stderr, "usage: %s kinds IMAGE\n", prog);
		return 2;
	}
	add_error_table(&et_ext2_error_table);
	err = ext2fs_open(argv[2], EXT2_FLAG_64BITS, 0, 0, unix_io_manager,
			  &fs);
	if (err)
		die(err, argv[2]);
	err = ext2fs_read_bitmaps(fs);
	if (err)
		die(err, "reading bitmaps");
	err = ext2fs_get_mem(fs->blocksize * 3, &block_buf);
	if (err)
		die(err, "allocating");

	struct kinds_priv kp;
	memset(&kp, 0, sizeof(kp));
	printf("# block_size %u\n", fs->blocksize);
	printf("# blocks %llu\n",
	       (unsigned long long)ext2fs_blocks_count(fs->super));
	printf("# groups %u\n", fs->group_desc_count);
	/* Fixed metadata, group by group. */
	for (g = 0; g < fs->group_desc_count; g++) {
		blk64_t super = 0, old_desc = 0, new_desc = 0;
		blk_t used = 0;

		ext2fs_super_and_bgd_loc2(fs, g, &super, &old_desc,
					  &new_desc, &used);
		if (super || g == 0) {
			/* super .. end of old descriptors + reserved
			 * GDT: used counts them all. */
			blk64_t first = super ? super :
				fs->super->s_first_data_block;
			run_add_kind(&kp.run, K_SB, first, used);
		}
		if (new_desc)
			run_add_kind(&kp.run, K_SB, new_desc, 1);
		run_add_kind(&kp.run, K_BB,
			     ext2fs_block_bitmap_loc(fs, g), 1);
		run_add_kind(&kp.run, K_IB,
			     ext2fs_inode_bitmap_loc(fs, g), 1);
		run_add_kind(&kp.run, K_IT,
			     ext2fs_inode_table_loc(fs, g),
			     fs->inode_blocks_per_group);
	}
	run_flush(&kp.run);

	err = ext2fs_open_inode_scan(fs, 0, &scan);
	if (err)
		die(err, "opening inode scan");
	for (;;) {
		err = ext2fs_get_next_inode(scan, &ino, &inode);
		if (err == EXT2_ET_BAD_BLOCK_IN_INODE_TABLE)
			continue;
		if (err)
			die(err, "scanning inodes");
		if (!ino)
			break;
		if (!ext2fs_test_inode_bitmap2(fs->inode_map, ino))
			continue;
		if (inode.i_links_count == 0 && ino > EXT2_FIRST_INO(fs->super))
			continue;
		if (ino < EXT2_FIRST_INO(fs->super) &&
		    ino != EXT2_ROOT_INO && ino != EXT2_JOURNAL_INO &&
		    ino != EXT2_RESIZE_INO)
			continue;
		if (!ext2fs_inode_has_valid_blocks2(fs, &inode) &&
		    !(inode.i_flags & EXT4_EXTENTS_FL))
			goto ea;
		if (inode.i_flags & EXT4_INLINE_DATA_FL)
			goto ea;

		kp.meta_kind = (inode.i_flags & EXT4_EXTENTS_FL) ?
			K_EXT : K_IND;
		if (ino == EXT2_JOURNAL_INO) {
			kp.meta_kind = kp.data_kind = K_JNL;
		} else if (ino == EXT2_RESIZE_INO) {
			kp.meta_kind = kp.data_kind = K_RSZ;
		} else if (LINUX_S_ISDIR(inode.i_mode)) {
			kp.data_kind = K_DIR;
		} else if (LINUX_S_ISLNK(inode.i_mode)) {
			kp.data_kind = K_SYM;
		} else {
			kp.data_kind = NULL;
		}
		err = ext2fs_block_iterate3(fs, ino, BLOCK_FLAG_READ_ONLY,
					    block_buf, kinds_cb, &kp);
		if (err)
			die(err, "iterating blocks");
ea:
		if (ext2fs_file_acl_block(fs,
				(struct ext2_inode *)&inode))
			run_add_kind(&kp.run, K_EA, ext2fs_file_acl_block(fs,
				     (struct ext2_inode *)&inode), 1);
	}
	ext2fs_close_inode_scan(scan);
	run_flush(&kp.run);
	printf("# ind %llu\n# dind %llu\n# tind %llu\n",
	       kp.n_ind, kp.n_dind, kp.n_tind);
	printf("# dir_ind %llu\n# extent_blocks %llu\n# dir_blocks %llu\n",
	       kp.n_dirind, kp.n_ext, kp.n_dir);
	(void)K_DATA;
	ext2fs_free_mem(&block_buf);
	ext2fs_close_free(&fs);
	return 0;
}
