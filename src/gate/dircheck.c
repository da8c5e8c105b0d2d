/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dircheck.c --- directory blocks checked as e2fsck pass 2 and 3 would
 *
 * The run moves every block-mapped directory's blocks and orders them
 * by what their entries say (dirwalk.c); a volume marked clean whose
 * directories e2fsck would repair must be refused, untouched, not
 * packed.  dirwalk.c reads each directory block once and hands it here
 * before it looks at it, so the checks cost no read of their own:
 *
 *   - the directory inode: size a whole number of blocks, matching its
 *     blocks as e2fsck pass 1 allows, no hole, no htree flag without
 *     dir_index;
 *   - every entry: rec_len aligned and inside the block, the name inside
 *     its entry, no '/' or NUL in it; the inode it names a file in use,
 *     not reserved, of a valid mode, of the entry's file type (or none,
 *     without the filetype feature); '.' and '..' first in block 0 and
 *     nowhere else; the checksum tail (libext2fs checks it as it reads);
 *   - htree directories (htreecheck.c): root and node headers, and every
 *     leaf's names within the hash range its index gives it;
 *   - the tree (pass 3): each directory named once, by the directory
 *     its '..' names, and reached from the root;
 *   - where every directory is read, every inode in use named by some
 *     entry (pass 4's unattached inodes; the links are not counted).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "e3metapack.h"
#include "gate/dircheck.h"
#include "gate/dircheck_int.h"

static int cmp_dnote_ino(const void *ctx, __u32 i, blk64_t ino)
{
	return mp_cmp_u64(((const struct dnote *) ctx)[i].ino, ino);
}

/*
 * The directory inode against its blocks, as e2fsck pass 1 checks it:
 * a size of whole blocks, no more blocks than it has, and at most
 * s_prealloc_dir_blocks fewer; blocks from logical 0 on without a hole
 * (pass 2 would fill one).  @nblk blocks, the last at @last.
 */
static errcode_t check_dir_inode(struct dircheck *dc, struct dstate *d,
				 __u32 nblk, __u32 last, blk64_t blk0)
{
	const struct dirnote *dn = dc->mp->dnote;
	ext2_filsys fs = dc->fs;
	__u64 sizeblk;
	__u32 at;

	if (!dn || !mp_bsearch(dn->ndir, d->ino, cmp_dnote_ino, dn->dir, &at))
		return dc_refuse(dc, E3MP_DIR_INODE, d->ino, blk0,
				 "not noted by the scan");
	d->iflags = dn->dir[at].flags;
	sizeblk = dn->dir[at].size / fs->blocksize;
	if (dn->dir[at].size % fs->blocksize)
		return dc_refuse(dc, E3MP_DIR_INODE, d->ino, blk0,
				 "its size is not a whole number of blocks");
	if (last + 1 != nblk)
		return dc_refuse(dc, E3MP_DIR_INODE, d->ino, blk0,
				 "a hole in its block map");
	if (sizeblk > nblk ||
	    nblk - sizeblk > fs->super->s_prealloc_dir_blocks)
		return dc_refuse(dc, E3MP_DIR_INODE, d->ino, blk0,
				 "its size does not match its blocks");
	if ((d->iflags & EXT2_INDEX_FL) &&
	    !ext2fs_has_feature_dir_index(fs->super))
		return dc_refuse(dc, E3MP_DIR_INODE, d->ino, blk0,
				 "an htree flag without the dir_index feature");
	return 0;
}

/* Count the directories with blocks to read, and their records. */
static errcode_t count_dirs(struct dircheck *dc)
{
	const struct e3mp *mp = dc->mp;
	__u32 i, last = 0;
	errcode_t err;

	for (i = 0; i < mp->nrec; i++)
		if ((mp->rec[i].flags & REC_DIR) &&
		    (!dc->nd || mp->rec[i].ino != last)) {
			last = mp->rec[i].ino;
			dc->nd++;
		}
	err = ext2fs_get_arrayzero(dc->nd ? dc->nd : 1, sizeof(*dc->d),
				   &dc->d);
	dc->nd = 0;
	return err;
}

/*
 * One dstate per directory with REC_DIR records: the scan records an
 * inode's blocks together, in logical order, and inodes ascending.
 */
static errcode_t build_dirs(struct dircheck *dc)
{
	const struct e3mp *mp = dc->mp;
	struct dstate *d = NULL;
	__u32 i, last = 0, nblk = 0;
	blk64_t blk0 = 0;
	errcode_t err = count_dirs(dc);

	for (i = 0; !err && i <= mp->nrec; i++) {
		const struct ind_rec *r = i < mp->nrec ? &mp->rec[i] : NULL;

		if (r && !(r->flags & REC_DIR))
			continue;
		if (d && (!r || r->ino != d->ino)) {
			d->nblk = nblk;
			err = check_dir_inode(dc, d, nblk, last, blk0);
			d = NULL;
		}
		if (err || !r)
			break;
		if (!d) {
			if (dc->nd && dc->d[dc->nd - 1].ino >= r->ino)
				return dc_refuse(dc, E3MP_DIR_INODE, r->ino,
						 r->blk,
						 "its blocks out of order");
			d = &dc->d[dc->nd++];
			d->ino = r->ino;
			d->first_rec = i;
			nblk = 0;
			blk0 = r->blk;
		}
		last = r->logical;
		nblk++;
	}
	return err;
}

/*
 * A block-mapped directory in use with no block at all: e2fsck pass 1
 * or 2 would give it one or clear it.
 */
static errcode_t check_blockless(struct dircheck *dc)
{
	const struct dirnote *dn = dc->mp->dnote;
	__u32 i;

	for (i = 0; dn && i < dn->ndir; i++)
		if (!(dn->dir[i].flags &
		      (EXT4_EXTENTS_FL | EXT4_INLINE_DATA_FL)) &&
		    !dircheck_find(dc, dn->dir[i].ino))
			return dc_refuse(dc, E3MP_DIR_INODE, dn->dir[i].ino,
					 0, "a directory without blocks");
	return 0;
}

errcode_t dircheck_open(struct e3mp *mp, struct dircheck **out)
{
	struct dircheck *dc;
	errcode_t err;

	*out = NULL;
	err = ext2fs_get_memzero(sizeof(*dc), &dc);
	if (err)
		return err;
	dc->mp = mp;
	dc->fs = mp->fs;
	dc->filetype = ext2fs_has_feature_filetype(mp->fs->super);
	err = ext2fs_get_array(mp->fs->blocksize / EXT2_DIR_REC_LEN(0),
			       sizeof(*dc->names), &dc->names);
	if (!err)
		err = build_dirs(dc);
	if (!err)
		err = check_blockless(dc);
	if (!err)
		err = htree_open(dc);
	if (err) {
		dircheck_close(&dc);
		return err;
	}
	*out = dc;
	return 0;
}

void dircheck_close(struct dircheck **dcp)
{
	struct dircheck *dc = *dcp;

	if (!dc)
		return;
	ext2fs_free_mem(&dc->d);
	ext2fs_free_mem(&dc->h);
	ext2fs_free_mem(&dc->names);
	ext2fs_free_mem(dcp);
}

/* The inode an in-use entry names, as e2fsck pass 2 checks it. */
static const char *check_target(const struct dircheck *dc,
				const struct ext2_dir_entry *de, int dots)
{
	const struct ext2_super_block *sb = dc->fs->super;
	const __u8 *itype = dc->mp->dnote->itype;
	__u8 ft = ext2fs_dirent_file_type(de), t;

	if (de->inode > sb->s_inodes_count)
		return "it names an inode past the inode count";
	if (de->inode < EXT2_FIRST_INO(sb) && de->inode != EXT2_ROOT_INO)
		return "it names a reserved inode";
	if (de->inode == EXT2_ROOT_INO && !dots)
		return "it names the root directory";
	t = itype[de->inode - 1];
	if (!t)
		return "it names an inode not in use";
	if (t == DIRNOTE_BADMODE)
		return "it names an inode of no valid type";
	if (dc->filetype ? ft != t : ft != 0)
		return "its file type disagrees with the inode's mode";
	return NULL;
}

/* Entry @n of logical block @logical of @d: its name and place. */
static const char *check_name(const struct dstate *d,
			      const struct ext2_dir_entry *de,
			      __u32 logical, __u32 n)
{
	int nl = ext2fs_dirent_name_len(de);
	int dot = nl == 1 && de->name[0] == '.';
	int dotdot = nl == 2 && de->name[0] == '.' && de->name[1] == '.';

	if (logical == 0 && n == 0)
		return dot && de->inode == d->ino ? NULL :
			"'.' is not the first entry of block 0";
	if (logical == 0 && n == 1)
		return dotdot && de->inode ? NULL :
			"'..' is not the second entry of block 0";
	/* (an unused entry's name is no matter: e2fsck leaves one so) */
	if (!de->inode)
		return NULL;
	if (dot || dotdot)
		return "'.' or '..' where another entry belongs";
	if (!nl)
		return "an entry with an empty name";
	/* an encrypted name is ciphertext: any byte may appear */
	if (!(d->iflags & EXT4_ENCRYPT_FL) &&
	    (memchr(de->name, '/', nl) || memchr(de->name, '\0', nl)))
		return "a name holding '/' or NUL";
	return NULL;
}

/* A subdirectory entry: the tree check counts who names whom. */
static void note_subdir(struct dircheck *dc, const struct dstate *d,
			const struct ext2_dir_entry *de)
{
	struct dstate *c;

	if (dc->mp->dnote->itype[de->inode - 1] != EXT2_FT_DIR)
		return;
	c = dircheck_find(dc, de->inode);
	if (!c)
		return;
	c->named++;
	c->namer = d->ino;
}

/* One entry, the @n-th of its block, at a checked rec_len. */
static errcode_t check_entry(struct dircheck *dc, struct dstate *d,
			     const struct ind_rec *r,
			     const struct ext2_dir_entry *de, __u32 n)
{
	const char *why = check_name(d, de, r->logical, n);

	if (!why && de->inode)
		why = check_target(dc, de, r->logical == 0 && n < 2);
	if (why)
		return dc_refuse(dc, E3MP_DIR_ENTRY, d->ino, r->blk, why);
	if (!de->inode)
		return 0;
	ext2fs_fast_unmark_inode_bitmap2(dc->mp->dnote->unnamed, de->inode);
	if (r->logical == 0 && n == 1) {
		d->dotdot = de->inode;
		return 0;
	}
	if (r->logical == 0 && n == 0)
		return 0;
	note_subdir(dc, d, de);
	return htree_leaf_entry(dc, d, r->logical, de);
}

static int cmp_dname(const void *a, const void *b)
{
	const struct dname *x = a, *y = b;

	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return memcmp(x->name, y->name, x->len);
}

/*
 * Two entries of one block with one name: e2fsck pass 2 looks for them
 * block by block, as here (a casefolded directory's names compare by
 * their folded form, which is e2fsck's to judge: not checked).
 */
static errcode_t check_dups(struct dircheck *dc, const struct dstate *d,
			    const struct ind_rec *r)
{
	__u32 i;

	if (dc->nnames < 2 || (d->iflags & EXT4_CASEFOLD_FL))
		return 0;
	qsort(dc->names, dc->nnames, sizeof(*dc->names), cmp_dname);
	for (i = 1; i < dc->nnames; i++)
		if (!cmp_dname(&dc->names[i - 1], &dc->names[i]))
			return dc_refuse(dc, E3MP_DIR_ENTRY, d->ino, r->blk,
					 "two entries with one name");
	return 0;
}

/* The entry chain of a directory block, rec_len by rec_len. */
static errcode_t check_entries(struct dircheck *dc, struct dstate *d,
			       const struct ind_rec *r, const char *buf)
{
	unsigned int off = 0, len, bs = dc->fs->blocksize;
	errcode_t err = 0;
	__u32 n = 0;

	dc->nnames = 0;

	while (!err && off < bs) {
		const struct ext2_dir_entry *de =
			(const struct ext2_dir_entry *) (buf + off);

		if (bs - off < EXT2_DIR_REC_LEN(0) ||
		    ext2fs_get_rec_len(dc->fs, (struct ext2_dir_entry *) de,
				       &len) ||
		    len < EXT2_DIR_REC_LEN(0) || len % 4 || len > bs - off)
			return dc_refuse(dc, E3MP_DIR_ENTRY, d->ino, r->blk,
					 "a rec_len outside the block or "
					 "unaligned");
		if (EXT2_DIR_REC_LEN(ext2fs_dirent_name_len(de)) > len)
			return dc_refuse(dc, E3MP_DIR_ENTRY, d->ino, r->blk,
					 "a name longer than its entry");
		err = check_entry(dc, d, r, de, n);
		if (de->inode && (r->logical || n >= 2)) {
			dc->names[dc->nnames].name = de->name;
			dc->names[dc->nnames++].len =
				ext2fs_dirent_name_len(de);
		}
		n++;
		off += len;
	}
	return err ? err : check_dups(dc, d, r);
}

errcode_t dircheck_block(struct dircheck *dc, const struct ind_rec *r,
			 const char *buf, errcode_t read_err)
{
	struct dstate *d = dircheck_find(dc, r->ino);
	errcode_t err;

	if (read_err == EXT2_ET_DIR_CSUM_INVALID)
		return dc_refuse(dc, E3MP_DIR_CSUM, r->ino, r->blk, NULL);
	if (read_err == EXT2_ET_DIR_CORRUPTED)
		return dc_refuse(dc, E3MP_DIR_ENTRY, r->ino, r->blk,
				 "its entries do not parse");
	if (read_err)
		return read_err;
	if (!d)
		return dc_refuse(dc, E3MP_DIR_INODE, r->ino, r->blk,
				 "not noted by the scan");
	if (htree_is_node(dc, d, r->logical, buf))
		return htree_node(dc, d, r, buf);
	err = check_entries(dc, d, r, buf);
	if (!err && r->logical == 0 && !d->dotdot)
		err = dc_refuse(dc, E3MP_DIR_ENTRY, d->ino, r->blk,
				"'..' is not the second entry of block 0");
	if (!err && r->logical == 0 && d->hbase != DSTATE_NO_HTREE)
		err = htree_root(dc, d, r, buf);
	return err;
}

/*
 * Pass 3: every directory named by one entry, of the directory its '..'
 * names, and reached from the root.  Where some directories are not
 * read (extent-mapped or inline ones name others too), a directory no
 * read directory names is checked only if its '..' names a read one.
 */
static const char *check_place(const struct dircheck *dc,
			       const struct dstate *d, __u32 rank, int all)
{
	if (d->ino == EXT2_ROOT_INO)
		return d->dotdot == EXT2_ROOT_INO ? NULL :
			"the root's '..' does not name the root";
	if (d->named > 1)
		return "more than one entry names it";
	if (d->named == 1 && d->dotdot != d->namer)
		return "its '..' does not name the directory that names it";
	if (!d->named && (all || dircheck_find(dc, d->dotdot)))
		return "no directory names it";
	if (all && rank == WALK_NONE)
		return "it cannot be reached from the root";
	return NULL;
}

/*
 * Pass 4: an inode in use that no entry names is unattached (e2fsck
 * offers to link it into lost+found).  Only where every directory's
 * entries were read: an extent-mapped or inline directory's are not,
 * and may name any inode.
 */
static errcode_t check_unattached(struct dircheck *dc)
{
	ext2fs_inode_bitmap unnamed = dc->mp->dnote->unnamed;
	ext2_ino_t ino;
	errcode_t err;

	err = ext2fs_find_first_set_inode_bitmap2(unnamed, 1,
			dc->fs->super->s_inodes_count, &ino);
	if (err == ENOENT)
		return 0;
	if (err)
		return err;
	dc->mp->err_ino = ino;
	return E3MP_UNATTACHED;
}

errcode_t dircheck_tree(struct dircheck *dc, const __u32 *ino,
			const __u32 *rank, __u32 n)
{
	/* every directory in use has its blocks read here */
	int all = dc->nd == dc->mp->dnote->ndir;
	errcode_t err;
	__u32 i, at;

	err = htree_finish(dc);
	for (i = 0; !err && i < dc->nd; i++) {
		const struct dstate *d = &dc->d[i];
		const char *why;

		at = mp_find_u32(ino, n, d->ino);
		why = check_place(dc, d, at == WALK_NONE ? WALK_NONE :
				  rank[at], all);
		if (why)
			err = dc_refuse(dc, E3MP_DIR_TREE, d->ino, 0, why);
	}
	if (!err && all)
		err = check_unattached(dc);
	return err;
}
