/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * journal.c --- the internal journal must be one e2fsck finds clean
 *
 * e3metapack moves the journal inode's indirect blocks and rewrites the
 * superblock's copy of its block map (s_jnl_blocks).  A journal that
 * still holds transactions, replayed afterwards, would write over blocks
 * that have moved; a journal e2fsck would clear or rebuild is no journal
 * to move blocks of.  So before the first write the journal inode and
 * the journal superblock pass the checks e2fsck makes of a clean journal
 * (e2fsck/journal.c: e2fsck_get_journal, e2fsck_journal_load and
 * e2fsck_check_ext3_journal); the journal's block map itself is checked
 * by the scan, block by block, like every file's.  This costs one block
 * read: the journal superblock.
 *
 * libext2fs-dev installs no kernel-jbd.h (Debian 12), so the on-disk
 * journal superblock, big-endian, is described here, as far as these
 * checks read it.  An external journal is not touched, nor checked.
 */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "e3metapack.h"

#define JBD2_MAGIC		0xc03b3998U
#define JBD2_MIN_BLOCKS		1024	/* e2fsck: JBD2_MIN_JOURNAL_BLOCKS */
#define JBD2_DEFAULT_FC_BLOCKS	256

enum { JB_DESCRIPTOR = 1, JB_COMMIT, JB_SB_V1, JB_SB_V2, JB_REVOKE };

#define JF_COMPAT_CHECKSUM	0x01
#define JF_INCOMPAT_CSUM_V2	0x08
#define JF_INCOMPAT_CSUM_V3	0x10
#define JF_INCOMPAT_FAST_COMMIT	0x20
/* revoke, 64bit, async_commit, csum v2, csum v3, fast commit */
#define JF_INCOMPAT_KNOWN	0x3f
#define JBD2_CRC32C		4

struct jsb {			/* journal_superblock_t, 1024 bytes */
	__u32	h_magic, h_blocktype, h_sequence;
	__u32	s_blocksize, s_maxlen, s_first;
	__u32	s_sequence, s_start;
	__s32	s_errno;
	__u32	s_feature_compat, s_feature_incompat, s_feature_ro_compat;
	__u8	s_uuid[16];
	__u32	s_nr_users, s_dynsuper;
	__u32	s_max_transaction, s_max_trans_data;
	__u8	s_checksum_type, s_padding2[3];
	__u32	s_num_fc_blks, s_head;
	__u32	s_padding[40];
	__u32	s_checksum;
	__u8	s_users[16 * 48];
};

/* the layout must be the on-disk one */
typedef char jsb_layout_check[(sizeof(struct jsb) == 1024 &&
			      offsetof(struct jsb, s_checksum) == 0xfc) ? 1 : -1];

#define BE(x)	ext2fs_be32_to_cpu(x)

static int uuid_is_null(const __u8 *u)
{
	int i;

	for (i = 0; i < 16; i++)
		if (u[i])
			return 0;
	return 1;
}

/* Journal formats and features e2fsck would not touch; nor do we. */
static const char *jsb_unsupported(const struct jsb *j)
{
	if (BE(j->h_blocktype) == JB_SB_V2 && BE(j->s_nr_users) > 1)
		return "journal shared by several filesystems";
	if (BE(j->h_blocktype) < JB_DESCRIPTOR ||
	    BE(j->h_blocktype) > JB_REVOKE)
		return "unknown journal superblock version";
	if (BE(j->h_blocktype) == JB_SB_V2 &&
	    ((BE(j->s_feature_incompat) & ~JF_INCOMPAT_KNOWN) ||
	     j->s_feature_ro_compat))
		return "unknown journal feature";
	return NULL;
}

static const char *jsb_csum_invalid(const struct jsb *j)
{
	__u32 incompat = BE(j->s_feature_incompat);
	struct jsb copy;

	if ((incompat & JF_INCOMPAT_CSUM_V2) &&
	    (incompat & JF_INCOMPAT_CSUM_V3))
		return "checksum v2 and v3 both set";
	if (!(incompat & (JF_INCOMPAT_CSUM_V2 | JF_INCOMPAT_CSUM_V3)))
		return NULL;
	if (BE(j->s_feature_compat) & JF_COMPAT_CHECKSUM)
		return "checksum v1 and v2/v3 both set";
	if (j->s_checksum_type != JBD2_CRC32C)
		return "unknown checksum type";
	copy = *j;
	copy.s_checksum = 0;
	if (ext2fs_crc32c_le(~0U, (unsigned char *) &copy, sizeof(copy)) !=
	    BE(j->s_checksum))
		return "checksum does not match";
	return NULL;
}

/* What e2fsck would fix in this journal superblock, or NULL. */
static const char *jsb_invalid(ext2_filsys fs, const struct jsb *j,
			       __u64 inode_blocks)
{
	__u32 maxlen = BE(j->s_maxlen), fc;
	const char *why;

	if (BE(j->h_magic) != JBD2_MAGIC)
		return "bad magic number";
	switch (BE(j->h_blocktype)) {
	case JB_DESCRIPTOR:
	case JB_COMMIT:
	case JB_REVOKE:
		return "a log block where the superblock should be";
	case JB_SB_V1:
		if (j->s_feature_compat || j->s_feature_incompat ||
		    j->s_feature_ro_compat || j->s_nr_users)
			return "version 1 superblock with version 2 fields";
	}
	why = jsb_csum_invalid(j);
	if (why)
		return why;
	if (BE(j->s_blocksize) != fs->blocksize)
		return "block size differs from the filesystem's";
	if (maxlen > inode_blocks)
		return "s_maxlen is past the end of the journal inode";
	if (BE(j->s_feature_incompat) & JF_INCOMPAT_FAST_COMMIT) {
		fc = BE(j->s_num_fc_blks) ? BE(j->s_num_fc_blks) :
					    JBD2_DEFAULT_FC_BLOCKS;
		if (fc >= maxlen || maxlen - fc < JBD2_MIN_BLOCKS)
			return "fast commit area leaves too small a journal";
	}
	/* the volume is clean (check_volume): nothing may be left to replay */
	if (!ext2fs_has_feature_journal_needs_recovery(fs->super) &&
	    j->s_start)
		return "holds transactions, but the volume needs no recovery";
	if (!ext2fs_has_feature_journal_needs_recovery(fs->super) &&
	    j->s_errno)
		return "records an aborted journal (s_errno)";
	return NULL;
}

static errcode_t jsb_verify(struct e3mp *mp, struct ext2_inode *inode)
{
	ext2_filsys fs = mp->fs;
	ext2_ino_t ino = fs->super->s_journal_inum;
	blk64_t blk = 0;
	char *buf;
	errcode_t err;

	mp->err_why = "no block 0";
	if (ext2fs_bmap2(fs, ino, inode, NULL, 0, 0, NULL, &blk) || !blk)
		return E3MP_JOURNAL_INODE;
	mp->err_why = "block 0 outside the filesystem";
	if (blk < fs->super->s_first_data_block ||
	    blk >= ext2fs_blocks_count(fs->super))
		return E3MP_JOURNAL_INODE;
	err = ext2fs_get_mem(fs->blocksize, &buf);
	if (err)
		return err;
	mp->err_why = NULL;
	err = io_checked(mp, io_channel_read_blk64(fs->io, blk, 1, buf));
	if (!err) {
		const struct jsb *j = (const struct jsb *) buf;

		mp->err_why = jsb_unsupported(j);
		if (mp->err_why && BE(j->h_magic) == JBD2_MAGIC)
			err = E3MP_UNSUPP_FEATURE;
		else if ((mp->err_why = jsb_invalid(fs, j,
				EXT2_I_SIZE(inode) / fs->blocksize)))
			err = E3MP_JOURNAL_SB;
	}
	ext2fs_free_mem(&buf);
	return err;
}

/* The journal inode as e2fsck_get_journal() wants it, or why not. */
static const char *jinode_invalid(ext2_filsys fs, struct ext2_inode *inode)
{
	struct ext2_super_block *sb = fs->super;

	if (!inode->i_links_count || !LINUX_S_ISREG(inode->i_mode))
		return "not a regular file in use";
	if (EXT2_I_SIZE(inode) / fs->blocksize < JBD2_MIN_BLOCKS)
		return "smaller than 1024 blocks";
	if (!ext2fs_has_feature_journal(sb))
		return "present, but the has_journal feature is clear";
	return NULL;
}

errcode_t journal_verify(struct e3mp *mp)
{
	ext2_filsys fs = mp->fs;
	struct ext2_super_block *sb = fs->super;
	ext2_ino_t ino = sb->s_journal_inum;
	struct ext2_inode inode;
	errcode_t err;

	if (!ino && !ext2fs_has_feature_journal(sb))
		return 0;
	if (!ino && !uuid_is_null(sb->s_journal_uuid))
		return 0;	/* external: not ours to touch */
	mp->err_ino = ino;
	mp->err_why = "no journal inode";
	if (!ino || ino > sb->s_inodes_count)
		return E3MP_JOURNAL_INODE;
	err = ext2fs_read_inode(fs, ino, &inode);
	if (err == EXT2_ET_INODE_CSUM_INVALID)
		return E3MP_INODE_CSUM;
	if (err)
		return err;
	mp->err_why = jinode_invalid(fs, &inode);
	if (mp->err_why)
		return E3MP_JOURNAL_INODE;
	/* e2fsck restores a bad journal inode from this copy */
	if (sb->s_jnl_backup_type == EXT3_JNL_BACKUP_BLOCKS &&
	    memcmp(sb->s_jnl_blocks, inode.i_block, sizeof(inode.i_block)))
		return E3MP_JOURNAL_BACKUP;
	return jsb_verify(mp, &inode);
}
