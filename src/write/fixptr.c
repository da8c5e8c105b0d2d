/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fixptr.c --- point every file at the new copies of its blocks
 *
 * One pass over the inodes that own moved blocks, in inode order, the
 * resize2fs way: ext2fs_block_iterate3() without BLOCK_FLAG_READ_ONLY is
 * pre-order, so when the callback changes an indirect block's pointer the
 * iterator goes on to read its children from the new copy (written
 * before this pass) and writes it back there if a child moves too.  Once
 * the last of a file's moved blocks is switched, the callback aborts the
 * walk: the iterator still writes back what changed, and reads none of
 * the indirect blocks that follow (a file whose only move is its IND
 * block costs no read at all).  The old blocks keep their contents until
 * released, so a file is whole whichever of its pointers an interruption
 * leaves switched.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdlib.h>
#include <string.h>

#include "e3metapack.h"

struct fix_ctx {
	struct mp_move	*mv;		/* this inode's moves, by source */
	__u32		n;
	__u32		found;
};

static int cmp_ino_from(const void *a, const void *b)
{
	const struct mp_move *x = a, *y = b;

	return x->ino != y->ino ? mp_cmp_u64(x->ino, y->ino) :
	       mp_cmp_u64(x->from, y->from);
}

static int cmp_move_from(const void *ctx, __u32 i, blk64_t blk)
{
	blk64_t from = ((const struct fix_ctx *) ctx)->mv[i].from;

	return mp_cmp_u64(from, blk);
}

static int fix_block(ext2_filsys fs EXT2FS_ATTR((unused)), blk64_t *blocknr,
		     e2_blkcnt_t blockcnt EXT2FS_ATTR((unused)),
		     blk64_t ref_blk EXT2FS_ATTR((unused)),
		     int ref_offset EXT2FS_ATTR((unused)), void *priv)
{
	struct fix_ctx *fc = priv;
	__u32 i;

	if (!mp_bsearch(fc->n, *blocknr, cmp_move_from, fc, &i))
		return 0;
	*blocknr = fc->mv[i].to;
	fc->found++;
	return BLOCK_CHANGED | (fc->found == fc->n ? BLOCK_ABORT : 0);
}

/*
 * The superblock keeps a copy of the journal inode's i_block[], from
 * which e2fsck rebuilds a damaged journal inode: once the journal's
 * indirect blocks have moved, the copy must follow or e2fsck would
 * restore the old map.  This is resize2fs's fix_sb_journal_backup()
 * (e2fsprogs resize/resize2fs.c), with its checks: only with an
 * internal journal, i.e. has_journal set and s_journal_inum given
 * (an external journal has s_journal_dev and no inode to copy).
 */
static errcode_t journal_backup_fix(ext2_filsys fs)
{
	struct ext2_super_block *sb = fs->super;
	struct ext2_inode inode;
	__u32 copy[EXT2_N_BLOCKS + 2];
	errcode_t err;

	if (!ext2fs_has_feature_journal(sb))
		return 0;
	if (sb->s_journal_dev && !sb->s_journal_inum)
		return 0;
	err = ext2fs_read_inode(fs, sb->s_journal_inum, &inode);
	if (err)
		return err;
	memcpy(copy, inode.i_block, EXT2_N_BLOCKS * 4);
	copy[15] = inode.i_size_high;
	copy[16] = inode.i_size;
	/*
	 * Moves below the inode's own pointers leave the copy as it is:
	 * then the superblock is not dirty, and the switch's barrier
	 * does not write it (finish.c).
	 */
	if (!memcmp(sb->s_jnl_blocks, copy, sizeof(copy)) &&
	    sb->s_jnl_backup_type == EXT3_JNL_BACKUP_BLOCKS)
		return 0;
	memcpy(sb->s_jnl_blocks, copy, sizeof(copy));
	sb->s_jnl_backup_type = EXT3_JNL_BACKUP_BLOCKS;
	ext2fs_mark_super_dirty(fs);
	return 0;
}

static errcode_t fix_inode(struct e3mp *mp, struct fix_ctx *fc, char *buf)
{
	ext2_ino_t ino = fc->mv[0].ino;
	errcode_t err;

	fc->found = 0;
	mp->err_ino = ino;
	err = ext2fs_block_iterate3(mp->fs, ino, 0, buf, fix_block, fc);
	if (!err && fc->found != fc->n)
		err = E3MP_POINTER_LOST;
	if (!err && ino == mp->fs->super->s_journal_inum)
		err = journal_backup_fix(mp->fs);
	return err;
}

errcode_t pointers_rewrite(struct e3mp *mp, struct mp_move *mv, __u32 n)
{
	char *buf = NULL;
	__u32 i, k;
	errcode_t err;

	mp_sort(mv, n, sizeof(*mv), cmp_ino_from);
	err = ext2fs_get_array(3, mp->fs->blocksize, &buf);
	for (i = 0; i < n && !err; i = k) {
		struct fix_ctx fc = { .mv = mv + i };

		for (k = i; k < n && mv[k].ino == mv[i].ino; k++)
			;
		fc.n = k - i;
		err = fix_inode(mp, &fc, buf);
		if (!err && mp->progress)
			mp->progress(mp, E3MP_PHASE_REWRITE, k, n);
	}
	ext2fs_free_mem(&buf);
	return err;
}
