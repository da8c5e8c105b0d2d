/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * groupcheck.c --- the group descriptors' counts, as e2fsck pass 5
 *
 * The run allocates and frees blocks through libext2fs, which adjusts
 * each group's free-block count from the count it finds; a count that
 * disagrees with the bitmap would be written back wrong, and e2fsck
 * would have to repair what the run wrote.  So each group's free-block,
 * free-inode and directory counts must agree with the bitmaps and with
 * the directories the scan found, or the volume is refused.  The
 * superblock's totals are another matter: the kernel lets them lag, and
 * e2fsck sets them from the groups' without a word; so does the run
 * (in memory: they reach the disk only with the run's own writes).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "e3metapack.h"
#include "gate/dircheck.h"

/* Inodes marked in use in the inode bitmap in [@first, @last]. */
static __u32 inodes_used(ext2_filsys fs, ext2_ino_t first, ext2_ino_t last)
{
	ext2_ino_t start = first, set, zero;
	__u32 n = 0;

	while (start <= last &&
	       !ext2fs_find_first_set_inode_bitmap2(fs->inode_map, start,
						    last, &set)) {
		if (ext2fs_find_first_zero_inode_bitmap2(fs->inode_map, set,
							 last, &zero))
			zero = last + 1;
		n += zero - set;
		start = zero;
	}
	return n;
}

/* Group @grp's counts against the bitmaps; the why of a mismatch. */
static errcode_t group_counts(struct e3mp *mp, dgrp_t grp, __u64 *fb,
			      __u64 *fi, const char **why)
{
	ext2_filsys fs = mp->fs;
	__u32 ipg = fs->super->s_inodes_per_group;
	ext2_ino_t first = grp * ipg + 1;
	blk64_t used;
	__u32 free_ino;
	errcode_t err;

	err = ext2fs_count_used_clusters(fs,
					 ext2fs_group_first_block2(fs, grp),
					 ext2fs_group_last_block2(fs, grp),
					 &used);
	if (err)
		return err;
	*fb = ext2fs_group_blocks_count(fs, grp) - used;
	free_ino = ipg - inodes_used(fs, first, first + ipg - 1);
	*fi = free_ino;
	if (*fb != ext2fs_bg_free_blocks_count(fs, grp))
		*why = "its free-block count";
	else if (free_ino != ext2fs_bg_free_inodes_count(fs, grp))
		*why = "its free-inode count";
	else if (dirnote_group_dirs(mp, grp) !=
		 ext2fs_bg_used_dirs_count(fs, grp))
		*why = "its directory count";
	return 0;
}

errcode_t group_counts_check(struct e3mp *mp)
{
	ext2_filsys fs = mp->fs;
	__u64 fb, fi, tb = 0, ti = 0;
	const char *why = NULL;
	errcode_t err = 0;
	dgrp_t grp;

	for (grp = 0; !err && !why && grp < fs->group_desc_count; grp++) {
		err = group_counts(mp, grp, &fb, &fi, &why);
		tb += fb;
		ti += fi;
		if (why) {
			mp->err_group = grp;
			mp->err_why = why;
			return E3MP_GROUP_COUNT;
		}
	}
	if (err)
		return err;
	ext2fs_free_blocks_count_set(fs->super, tb);
	fs->super->s_free_inodes_count = ti;
	return 0;
}
