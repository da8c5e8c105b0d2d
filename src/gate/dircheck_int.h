/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dircheck_int.h --- the state dircheck.c and htreecheck.c share
 */
#ifndef E3MP_DIRCHECK_INT_H
#define E3MP_DIRCHECK_INT_H

#include <ext2fs/ext2fs.h>

#define DSTATE_NO_HTREE	0xFFFFFFFFU

/* A directory whose blocks the run reads. */
struct dstate {
	__u32	ino;
	__u32	iflags;		/* i_flags */
	__u32	nblk;		/* its blocks, logical 0 .. nblk - 1 */
	__u32	first_rec;	/* its first REC_DIR record */
	__u32	dotdot;		/* what '..' names; 0: not read yet */
	__u32	named;		/* entries of read directories naming it */
	__u32	namer;		/* ... the last of them */
	__u32	hbase;		/* its hblk[] from here; DSTATE_NO_HTREE */
	int	hash_alg;	/* the hash its leaves were hashed with */
	int	root_alg;	/* its root's; -1: root not read */
	int	levels;		/* its root's indirect_levels */
};

/* One block of an htree directory, by logical block. */
struct hblk {
	__u32	node_min, node_max;	/* the range its index gives it */
	__u32	min, max;		/* of its names' hashes */
	__u32	parent;			/* the index block naming it */
	__u32	flags;			/* HBLK_* */
};
#define HBLK_REF	0x1	/* an index entry names it */
#define HBLK_NODE	0x2	/* an index node */
#define HBLK_LEAF	0x4	/* holds names */

/* A name of the block at hand, for the duplicate check. */
struct dname {
	const char	*name;
	unsigned int	len;
};

struct dircheck {
	struct e3mp	*mp;
	ext2_filsys	fs;
	int		filetype;	/* the filetype feature */
	struct dstate	*d;		/* ascending inode */
	__u32		nd;
	struct hblk	*h;
	__u32		nh;
	struct dname	*names;		/* a block's: one per 12 bytes */
	__u32		nnames;
};

struct dstate *dircheck_find(const struct dircheck *dc, __u32 ino);
/* Refuse with @code about directory @ino, block @blk, for @why. */
errcode_t dc_refuse(struct dircheck *dc, errcode_t code, __u32 ino,
		    blk64_t blk, const char *why);

/* htreecheck.c */
errcode_t htree_open(struct dircheck *dc);
int htree_is_node(const struct dircheck *dc, const struct dstate *d,
		  __u32 logical, const char *buf);
errcode_t htree_node(struct dircheck *dc, struct dstate *d,
		     const struct ind_rec *r, const char *buf);
errcode_t htree_root(struct dircheck *dc, struct dstate *d,
		     const struct ind_rec *r, const char *buf);
errcode_t htree_leaf_entry(struct dircheck *dc, struct dstate *d,
			   __u32 logical, const struct ext2_dir_entry *de);
errcode_t htree_finish(struct dircheck *dc);

#endif /* E3MP_DIRCHECK_INT_H */
