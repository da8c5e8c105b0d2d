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
 * record per directory and a word per group.  With the type byte come
 * a bit per inode that no entry has named yet (e2fsck pass 4: an inode
 * in use named by no directory is unattached) and a record per slow
 * symlink, whose target dirwalk.c reads with the directory blocks.
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
	if (!err && dn->itype) {
		/*
		 * A bit array (an eighth of itype's size), not the red-black
		 * tree the run's other bitmaps are: every inode in use is
		 * marked and unmarked once, which the tree does at some 300
		 * instructions a time.
		 */
		int type = fs->default_bitmap_type;

		fs->default_bitmap_type = EXT2FS_BMAP64_BITARRAY;
		err = ext2fs_allocate_inode_bitmap(fs, "unnamed inodes",
						   &dn->unnamed);
		fs->default_bitmap_type = type;
	}
	return err;
}

/*
 * Whether e2fsck pass 4 wants inode @ino (in use, links_count > 0) named
 * by some entry: not a reserved inode, nor one the superblock names,
 * nor an extended attribute's or an imagic inode.
 */
static int must_be_named(const struct ext2_super_block *sb, ext2_ino_t ino,
			 const struct ext2_inode_large *inode)
{
	if (ino < EXT2_FIRST_INO(sb) || ino == sb->s_journal_inum ||
	    ino == sb->s_usr_quota_inum || ino == sb->s_grp_quota_inum ||
	    ino == sb->s_prj_quota_inum || ino == sb->s_orphan_file_inum)
		return 0;
	return !(inode->i_flags & (EXT4_EA_INODE_FL | EXT2_IMAGIC_FL));
}

/* A record of @ino (its flags and size) in *@v. */
static errcode_t note(struct dnote **v, __u32 *n, __u32 *alloc,
		      ext2_ino_t ino, const struct ext2_inode_large *inode)
{
	errcode_t err;

	err = mp_grow(v, alloc, *n, sizeof(**v));
	if (err)
		return err;
	(*v)[*n].ino = ino;
	(*v)[*n].flags = inode->i_flags;
	(*v)[(*n)++].size = EXT2_I_SIZE(inode);
	return 0;
}

/* The notes kept only where directory blocks are read (dn->itype). */
static errcode_t note_for_entries(struct e3mp *mp, ext2_ino_t ino,
				  const struct ext2_inode_large *inode,
				  __u8 type)
{
	struct dirnote *dn = mp->dnote;
	struct ext2_inode *in = (struct ext2_inode *) inode;

	dn->itype[ino - 1] = type;
	if (must_be_named(mp->fs->super, ino, inode))
		ext2fs_fast_mark_inode_bitmap2(dn->unnamed, ino);
	/* (a fast or inline symlink's target is in the inode) */
	if (type != EXT2_FT_SYMLINK || ext2fs_is_fast_symlink(in) ||
	    (in->i_flags & EXT4_INLINE_DATA_FL))
		return 0;
	return note(&dn->slow, &dn->nslow, &dn->slow_alloc, ino, inode);
}

errcode_t dirnote_inode(struct e3mp *mp, ext2_ino_t ino,
			const struct ext2_inode_large *inode)
{
	struct dirnote *dn;
	errcode_t err;
	__u8 type;

	if (!mp->dnote) {
		err = dirnote_alloc(mp);
		if (err)
			return err;
	}
	dn = mp->dnote;
	type = mode_type(inode->i_mode);
	if (dn->itype) {
		err = note_for_entries(mp, ino, inode, type);
		if (err)
			return err;
	}
	if (type != EXT2_FT_DIR)
		return 0;
	dn->grp_dirs[(ino - 1) / mp->fs->super->s_inodes_per_group]++;
	return note(&dn->dir, &dn->ndir, &dn->dir_alloc, ino, inode);
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
	ext2fs_free_mem(&mp->dnote->slow);
	if (mp->dnote->unnamed)
		ext2fs_free_inode_bitmap(mp->dnote->unnamed);
	ext2fs_free_mem(&mp->dnote);
}
