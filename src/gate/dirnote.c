/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dirnote.c --- what the scan notes for the directory and count checks
 *
 * A directory entry must name an inode in use whose mode agrees with
 * the entry's file type (dircheck.c); e2fsck pass 2 knows both from
 * pass 1, and so must the checks here, from the scan that already reads
 * every inode: one byte per inode, kept only when directory blocks are
 * read at all (not under --dirs=leave).  Each directory's size and
 * flags, and each group's count of directories (groupcheck.c), cost a
 * record per directory and a word per group.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "e3metapack.h"
#include "gate/dircheck.h"

/* The EXT2_FT_* of @mode, or DIRNOTE_BADMODE (e2fsck pass 2 agrees). */
static __u8 mode_type(__u16 mode)
{
	if (LINUX_S_ISREG(mode))
		return EXT2_FT_REG_FILE;
	if (LINUX_S_ISDIR(mode))
		return EXT2_FT_DIR;
	if (LINUX_S_ISCHR(mode))
		return EXT2_FT_CHRDEV;
	if (LINUX_S_ISBLK(mode))
		return EXT2_FT_BLKDEV;
	if (LINUX_S_ISLNK(mode))
		return EXT2_FT_SYMLINK;
	if (LINUX_S_ISFIFO(mode))
		return EXT2_FT_FIFO;
	if (LINUX_S_ISSOCK(mode))
		return EXT2_FT_SOCK;
	return DIRNOTE_BADMODE;
}

static errcode_t dirnote_alloc(struct e3mp *mp)
{
	ext2_filsys fs = mp->fs;
	struct dirnote *dn;
	errcode_t err;

	err = ext2fs_get_memzero(sizeof(*dn), &dn);
	if (err)
		return err;
	mp->dnote = dn;
	err = ext2fs_get_arrayzero(fs->group_desc_count,
					   sizeof(*dn->grp_dirs),
					   &dn->grp_dirs);
	if (!err && mp->opt.dirs != E3MP_DIRS_LEAVE)
		err = ext2fs_get_arrayzero(fs->super->s_inodes_count, 1,
					   &dn->itype);
	return err;
}

errcode_t dirnote_inode(struct e3mp *mp, ext2_ino_t ino,
			const struct ext2_inode_large *inode)
{
	struct dirnote *dn;
	struct dnote *d;
	errcode_t err;
	__u8 type;

	if (!mp->dnote) {
		err = dirnote_alloc(mp);
		if (err)
			return err;
	}
	dn = mp->dnote;
	type = mode_type(inode->i_mode);
	if (dn->itype)
		dn->itype[ino - 1] = type;
	if (type != EXT2_FT_DIR)
		return 0;
	dn->grp_dirs[(ino - 1) / mp->fs->super->s_inodes_per_group]++;
	err = mp_grow(&dn->dir, &dn->dir_alloc, dn->ndir, sizeof(*dn->dir));
	if (err)
		return err;
	d = &dn->dir[dn->ndir++];
	d->ino = ino;
	d->flags = inode->i_flags;
	d->size = EXT2_I_SIZE(inode);
	return 0;
}

__u32 dirnote_group_dirs(const struct e3mp *mp, dgrp_t grp)
{
	return mp->dnote ? mp->dnote->grp_dirs[grp] : 0;
}

void dirnote_free(struct e3mp *mp)
{
	if (!mp->dnote)
		return;
	ext2fs_free_mem(&mp->dnote->itype);
	ext2fs_free_mem(&mp->dnote->dir);
	ext2fs_free_mem(&mp->dnote->grp_dirs);
	ext2fs_free_mem(&mp->dnote);
}
