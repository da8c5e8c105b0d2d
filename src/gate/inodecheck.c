/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * inodecheck.c --- inode fields e2fsck pass 1 would repair, beyond the map
 *
 * The scan (scan.c) checks the block map of every inode it walks; here
 * is what it checks besides: the bad-blocks inode's list, the extended
 * attribute block fields, inline data only with its feature, no
 * encrypted inode, symlinks (the inode here; a slow one's target as
 * dirwalk.c reads its block), and for
 * inodes without a block map (fast symlinks, devices, inline data) no
 * extent flag on a fast symlink and an i_blocks that counts the extended
 * attribute block alone.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <string.h>

#include "e3metapack.h"
#include "gate/dircheck.h"

/*
 * The bad-blocks inode lists blocks the run must never place anything
 * on: each inside the volume, in use, listed once and not fixed
 * metadata (which the scan claims first), as e2fsck pass 1 checks it
 * (not its i_blocks, which e2fsck leaves be).  Its faults get their own
 * refusal.
 */
errcode_t bad_blocks_err(struct e3mp *mp, errcode_t err)
{
	const char *why;

	switch (err) {
	case E3MP_BAD_POINTER:
	case EXT2_ET_BAD_IND_BLOCK:
	case EXT2_ET_BAD_DIND_BLOCK:
	case EXT2_ET_BAD_TIND_BLOCK:
		why = "a block outside the filesystem";
		break;
	case E3MP_DUP_BLOCK:
		why = "a block listed twice, or in fixed metadata";
		break;
	case E3MP_POINTER_FREE:
		why = "a block free in the block bitmap";
		break;
	default:
		return err;
	}
	mp->err_ino = EXT2_BAD_INO;
	mp->err_why = why;
	return E3MP_BAD_BLOCKS;
}

/*
 * ext2fs_open_inode_scan() read the bad-blocks list (the blocks inside
 * the volume).  A listed block of fixed metadata (claimed in mp->seen by
 * now) is no fault to e2fsck, which lives with a bad block in an inode
 * table or a backup superblock; but the run would read and rewrite
 * around it, and does not: such a volume is refused as unsupported,
 * before any inode is read.
 */
errcode_t bad_blocks_precheck(struct e3mp *mp)
{
	badblocks_iterate bb;
	blk_t blk;
	errcode_t err;

	if (!mp->fs->badblocks)
		return 0;
	err = ext2fs_badblocks_list_iterate_begin(mp->fs->badblocks, &bb);
	if (err)
		return err;
	while (ext2fs_badblocks_list_iterate(bb, &blk))
		if (ext2fs_test_block_bitmap2(mp->seen, blk)) {
			mp->err_why = "a bad block in fixed metadata";
			err = E3MP_UNSUPP_FEATURE;
			break;
		}
	ext2fs_badblocks_list_iterate_end(bb);
	return err;
}

static errcode_t inode_refuse(struct e3mp *mp, ext2_ino_t ino,
			      const char *why)
{
	mp->err_ino = ino;
	mp->err_why = why;
	return E3MP_INODE_FIELD;
}

/*
 * A symlink as e2fsck pass 1 finds it valid, from the inode alone: a
 * size, below 4 GiB, no index flag; a fast one's target as long as its
 * size; a slow block-mapped one with one block, its size below it.  (The
 * slow target's own length takes a read of its block: see
 * symlink_target_check().)
 */
static const char *symlink_fault(ext2_filsys fs, struct ext2_inode *in)
{
	unsigned int i;

	if (in->i_size_high || !in->i_size || (in->i_flags & EXT2_INDEX_FL))
		return "a symlink of no valid size";
	if (in->i_flags & (EXT4_INLINE_DATA_FL | EXT4_EXTENTS_FL |
			   EXT4_ENCRYPT_FL))
		return NULL;
	if (ext2fs_is_fast_symlink(in))
		return strnlen((char *) in->i_block, sizeof(in->i_block)) ==
		       in->i_size ? NULL :
		       "a fast symlink whose size is not its target's";
	for (i = 1; i < EXT2_N_BLOCKS; i++)
		if (in->i_block[i])
			return "a slow symlink of more than one block";
	if (!in->i_block[0] || in->i_size >= fs->blocksize)
		return "a slow symlink whose size does not fit its block";
	return NULL;
}

static int cmp_dnote_ino(const void *ctx, __u32 i, blk64_t ino)
{
	return mp_cmp_u64(((const struct dnote *) ctx)[i].ino, ino);
}

/*
 * A slow symlink's target, as e2fsck pass 1 reads it from its block
 * @buf: a NUL inside the block, at the symlink's size.  dirwalk.c reads
 * these blocks in its one sweep of the directory blocks, in block order
 * (one block per slow symlink), so not under --dirs=leave.  (An
 * encrypted one would count otherwise; the scan refuses those.)
 */
errcode_t symlink_target_check(struct e3mp *mp, ext2_ino_t ino, blk64_t blk,
			       const char *buf, errcode_t read_err)
{
	const struct dirnote *dn = mp->dnote;
	__u32 at;

	if (read_err)
		return read_err;
	if (!dn || !mp_bsearch(dn->nslow, ino, cmp_dnote_ino, dn->slow, &at))
		return 0;
	if (strnlen(buf, mp->fs->blocksize) == dn->slow[at].size)
		return 0;
	mp->err_blk = blk;
	return inode_refuse(mp, ino,
			    "a slow symlink whose size is not its target's");
}

errcode_t inode_fields_check(struct e3mp *mp, ext2_ino_t ino,
			     const struct ext2_inode_large *inode, int nomap)
{
	ext2_filsys fs = mp->fs;
	struct ext2_inode *in = (struct ext2_inode *) inode;
	__u64 want;

	/*
	 * e2fsck pass 1 and 2 check an encrypted inode's policy (an
	 * attribute) against its directory's, with or without the encrypt
	 * feature; the run reads no attributes, so it takes none.
	 */
	if (in->i_flags & EXT4_ENCRYPT_FL) {
		mp->err_ino = ino;
		return E3MP_ENCRYPTED;
	}
	if (ino < EXT2_FIRST_INO(fs->super) && ino != EXT2_ROOT_INO)
		return 0;
	if (!ext2fs_has_feature_64bit(fs->super) &&
	    inode->osd2.linux2.l_i_file_acl_high)
		return inode_refuse(mp, ino, "i_file_acl_hi set without 64bit");
	if (ext2fs_file_acl_block(fs, in) &&
	    !ext2fs_has_feature_xattr(fs->super))
		return inode_refuse(mp, ino,
				    "an attribute block without ext_attr");
	if ((in->i_flags & EXT4_INLINE_DATA_FL) &&
	    !ext2fs_has_feature_inline_data(fs->super))
		return inode_refuse(mp, ino,
				    "inline data without inline_data");
	if (LINUX_S_ISLNK(in->i_mode) && symlink_fault(fs, in))
		return inode_refuse(mp, ino, symlink_fault(fs, in));
	if (!nomap)
		return 0;
	/* (a fast symlink's i_block holds its target, not an extent tree) */
	if (LINUX_S_ISLNK(in->i_mode) && (in->i_flags & EXT4_EXTENTS_FL) &&
	    !(in->i_flags & EXT4_INLINE_DATA_FL))
		return inode_refuse(mp, ino, "a fast symlink flagged extents");
	want = ext2fs_file_acl_block(fs, in) ? fs->blocksize / 512 : 0;
	if (ext2fs_get_stat_i_blocks(fs, in) != want)
		return inode_refuse(mp, ino,
				    "i_blocks counts blocks it has not");
	return 0;
}
