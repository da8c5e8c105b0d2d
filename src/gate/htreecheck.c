/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * htreecheck.c --- htree directories checked as e2fsck passes 1 and 2 do
 *
 * The root's header (reserved field, hash version, flags, levels), each
 * index block's limit and count, its entries' blocks inside the
 * directory and their hashes in order, each block named by one entry at
 * the depth the root gives, and every leaf's names hashing inside the
 * range its index entries give it (the bounds of each level it hangs
 * from: e2fsck checks the same through each node's first and last
 * leaf).  Blocks arrive in disk order, not the tree's, so each block's
 * range and its names' hashes are kept and compared at the end.
 *
 * A leaf's names are hashed with the volume's default hash as they are
 * read; a root that names another hash (a volume whose default was
 * changed after the directory was indexed) has its leaves read again.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "e3metapack.h"
#include "gate/dircheck.h"
#include "gate/dircheck_int.h"

/* The hash a root's @version means on this volume (as e2fsck reads it). */
static int hash_alg(ext2_filsys fs, int version)
{
	if (version <= EXT2_HASH_TEA &&
	    (fs->super->s_flags & EXT2_FLAGS_UNSIGNED_HASH))
		return version + 3;
	return version;
}

static int hash_in_dirent(const struct dstate *d)
{
	return (d->iflags & EXT4_ENCRYPT_FL) && (d->iflags & EXT4_CASEFOLD_FL);
}

errcode_t htree_open(struct dircheck *dc)
{
	ext2_filsys fs = dc->fs;
	errcode_t err;
	__u32 i;

	for (i = 0; i < dc->nd; i++) {
		struct dstate *d = &dc->d[i];

		d->hbase = DSTATE_NO_HTREE;
		d->root_alg = -1;
		if (!(d->iflags & EXT2_INDEX_FL) ||
		    !ext2fs_has_feature_dir_index(fs->super))
			continue;
		d->hbase = dc->nh;
		d->hash_alg = hash_alg(fs, fs->super->s_def_hash_version);
		dc->nh += d->nblk;
	}
	err = ext2fs_get_arrayzero(dc->nh ? dc->nh : 1, sizeof(*dc->h),
				   &dc->h);
	for (i = 0; !err && i < dc->nh; i++)
		dc->h[i].min = 0xFFFFFFFFU;
	return err;
}

static unsigned int dx_tail_size(ext2_filsys fs)
{
	return ext2fs_has_feature_metadata_csum(fs->super) ?
		sizeof(struct ext2_dx_tail) : 0;
}

int htree_is_node(const struct dircheck *dc, const struct dstate *d,
		  __u32 logical, const char *buf)
{
	const struct ext2_dir_entry *de = (const struct ext2_dir_entry *) buf;
	const struct ext2_dx_countlimit *cl =
		(const struct ext2_dx_countlimit *) (buf + 8);
	unsigned int bs = dc->fs->blocksize, len;

	if (d->hbase == DSTATE_NO_HTREE || !logical || de->inode ||
	    ext2fs_dirent_name_len(de) ||
	    ext2fs_get_rec_len(dc->fs, (struct ext2_dir_entry *) de, &len) ||
	    len != bs)
		return 0;
	return ext2fs_le16_to_cpu(cl->limit) ==
	       (bs - 8 - dx_tail_size(dc->fs)) / sizeof(struct ext2_dx_entry);
}

/* Entry @i of @n at @ent of index block @r names its block and range. */
static const char *dx_entry(struct dircheck *dc, struct dstate *d,
			    const struct ind_rec *r,
			    const struct ext2_dx_entry *ent, __u32 i,
			    __u32 n, __u32 *prev)
{
	__u32 hash = i ? ext2fs_le32_to_cpu(ent[i].hash) & ~1U : 0;
	__u32 blk = ext2fs_le32_to_cpu(ent[i].block) & EXT4_DX_BLOCK_MASK;
	struct hblk *hb;

	if (!blk || blk >= d->nblk)
		return "an index entry names a block outside the directory";
	if (hash < *prev)
		return "index entries out of hash order";
	*prev = hash;
	hb = &dc->h[d->hbase + blk];
	if (hb->flags & HBLK_REF)
		return "two index entries name one block";
	hb->flags |= HBLK_REF;
	hb->parent = r->logical;
	hb->node_min = hash;
	hb->node_max = i + 1 < n ?
		ext2fs_le32_to_cpu(ent[i + 1].hash) & ~1U : 0xFFFFFFFEU;
	return NULL;
}

/* The count, limit and entries of an index block, from @off. */
static errcode_t dx_entries(struct dircheck *dc, struct dstate *d,
			    const struct ind_rec *r, const char *buf,
			    unsigned int off)
{
	unsigned int bs = dc->fs->blocksize;
	const struct ext2_dx_countlimit *cl;
	const struct ext2_dx_entry *ent;
	const char *why = NULL;
	__u32 limit, count, i, prev = 0;

	if (off + sizeof(*ent) > bs)
		return dc_refuse(dc, E3MP_HTREE, d->ino, r->blk,
				 "no room for the index");
	cl = (const struct ext2_dx_countlimit *) (buf + off);
	ent = (const struct ext2_dx_entry *) (buf + off);
	limit = ext2fs_le16_to_cpu(cl->limit);
	count = ext2fs_le16_to_cpu(cl->count);
	if (limit != (bs - off - dx_tail_size(dc->fs)) / sizeof(*ent))
		why = "an index limit that does not fit its block";
	else if (count > limit)
		why = "an index count over its limit";
	for (i = 0; !why && i < count; i++)
		why = dx_entry(dc, d, r, ent, i, count, &prev);
	return why ? dc_refuse(dc, E3MP_HTREE, d->ino, r->blk, why) : 0;
}

errcode_t htree_node(struct dircheck *dc, struct dstate *d,
		     const struct ind_rec *r, const char *buf)
{
	dc->h[d->hbase + r->logical].flags |= HBLK_NODE;
	return dx_entries(dc, d, r, buf, 8);
}

/* The root's header, as e2fsck pass 1 (handle_htree) checks it. */
static const char *check_root_info(const struct dircheck *dc,
				   const struct dstate *d,
				   const struct ext2_dx_root_info *ri)
{
	int v = ri->hash_version;

	if (ri->reserved_zero || ri->info_length < 8)
		return "a bad root header";
	if (v != EXT2_HASH_LEGACY && v != EXT2_HASH_HALF_MD4 &&
	    v != EXT2_HASH_TEA && v != EXT2_HASH_SIPHASH)
		return "an unknown hash version";
	if ((v == EXT2_HASH_SIPHASH) != hash_in_dirent(d))
		return "a hash version its flags do not allow";
	if (ri->unused_flags & EXT2_HASH_FLAG_INCOMPAT)
		return "an incompatible root flag";
	if (ri->indirect_levels >= ext2_dir_htree_level(dc->fs))
		return "more index levels than allowed";
	return NULL;
}

errcode_t htree_root(struct dircheck *dc, struct dstate *d,
		     const struct ind_rec *r, const char *buf)
{
	const struct ext2_dx_root_info *ri =
		(const struct ext2_dx_root_info *) (buf + 24);
	const char *why = check_root_info(dc, d, ri);

	if (why)
		return dc_refuse(dc, E3MP_HTREE, d->ino, r->blk, why);
	d->levels = ri->indirect_levels;
	d->root_alg = hash_alg(dc->fs, ri->hash_version);
	return dx_entries(dc, d, r, buf, 24 + ri->info_length);
}

/* Hash a name of leaf @hb with @alg into its min and max. */
static void hash_name(const struct dircheck *dc, const struct dstate *d,
		      int alg, struct hblk *hb,
		      const struct ext2_dir_entry *de)
{
	ext2_dirhash_t hash;

	if (ext2fs_dirhash2(alg, de->name, ext2fs_dirent_name_len(de),
			    dc->fs->encoding, d->iflags & EXT4_CASEFOLD_FL,
			    dc->fs->super->s_hash_seed, &hash, NULL))
		return;
	if (hash < hb->min)
		hb->min = hash;
	if (hash > hb->max)
		hb->max = hash;
}

errcode_t htree_leaf_entry(struct dircheck *dc, struct dstate *d,
			   __u32 logical, const struct ext2_dir_entry *de)
{
	struct hblk *hb;

	if (d->hbase == DSTATE_NO_HTREE || !logical)
		return 0;
	hb = &dc->h[d->hbase + logical];
	hb->flags |= HBLK_LEAF;
	/* (such names carry their hash; e2fsck reads it from them) */
	if (!hash_in_dirent(d))
		hash_name(dc, d, d->hash_alg, hb, de);
	return 0;
}

/* Hash the names of @d's leaf block @r again, with its root's hash. */
static errcode_t rehash_leaf(struct dircheck *dc, struct dstate *d,
			     const struct ind_rec *r, char *buf)
{
	struct hblk *hb = &dc->h[d->hbase + r->logical];
	unsigned int off = 0, len;
	errcode_t err;

	hb->min = 0xFFFFFFFFU;
	hb->max = 0;
	err = ext2fs_read_dir_block4(dc->fs, r->blk, buf, 0, d->ino);
	/* (the chain was checked on the first read) */
	while (!err && off < dc->fs->blocksize) {
		struct ext2_dir_entry *de;

		de = (struct ext2_dir_entry *) (buf + off);

		err = ext2fs_get_rec_len(dc->fs, de, &len);
		if (!err && !len)
			err = EXT2_ET_DIR_CORRUPTED;
		if (!err && de->inode)
			hash_name(dc, d, d->root_alg, hb, de);
		off += len;
	}
	return err;
}

/*
 * A root naming a hash other than the volume's default: its leaves are
 * read again (only on such a volume; the first reads were in disk
 * order, before the root was known).
 */
static errcode_t rehash(struct dircheck *dc, struct dstate *d)
{
	const struct e3mp *mp = dc->mp;
	char *buf = NULL;
	errcode_t err;
	__u32 i;

	err = ext2fs_get_mem(dc->fs->blocksize, &buf);
	for (i = d->first_rec; !err && i < mp->nrec &&
	     mp->rec[i].ino == d->ino; i++) {
		const struct ind_rec *r = &mp->rec[i];

		if ((r->flags & REC_DIR) && r->logical &&
		    (dc->h[d->hbase + r->logical].flags & HBLK_LEAF))
			err = rehash_leaf(dc, d, r, buf);
	}
	ext2fs_free_mem(&buf);
	d->hash_alg = d->root_alg;
	return err;
}

/*
 * Block @b of @d: named once, at its depth, its names inside the range
 * of every index level above it.
 */
static const char *check_hblk(const struct dircheck *dc,
			      const struct dstate *d, __u32 b)
{
	const struct hblk *hb = &dc->h[d->hbase + b], *p;
	__u32 lo = 0, hi = 0xFFFFFFFFU, at = b;
	int depth = 0;

	if (!(hb->flags & HBLK_REF))
		return "a block no index entry names";
	while (at && depth <= d->levels + 1) {
		p = &dc->h[d->hbase + at];
		lo = p->node_min > lo ? p->node_min : lo;
		hi = p->node_max < hi ? p->node_max : hi;
		at = p->parent;
		depth++;
	}
	if (at || (hb->flags & HBLK_NODE ? depth > d->levels :
		   depth != d->levels + 1))
		return "an index block or leaf at the wrong depth";
	if (!(hb->flags & HBLK_NODE) && hb->min <= hb->max &&
	    (hb->min < lo || hb->max > hi))
		return "a name hashing outside its leaf's range";
	return NULL;
}

/* The physical block of @d's logical block @b, for the message. */
static blk64_t dir_block(const struct dircheck *dc, const struct dstate *d,
			 __u32 b)
{
	const struct e3mp *mp = dc->mp;
	__u32 i;

	for (i = d->first_rec; i < mp->nrec && mp->rec[i].ino == d->ino; i++)
		if ((mp->rec[i].flags & REC_DIR) && mp->rec[i].logical == b)
			return mp->rec[i].blk;
	return 0;
}

errcode_t htree_finish(struct dircheck *dc)
{
	errcode_t err = 0;
	__u32 i, b;

	for (i = 0; !err && i < dc->nd; i++) {
		struct dstate *d = &dc->d[i];
		const char *why = NULL;

		if (d->hbase == DSTATE_NO_HTREE || d->root_alg < 0)
			continue;
		if (d->root_alg != d->hash_alg && !hash_in_dirent(d))
			err = rehash(dc, d);
		for (b = 1; !err && b < d->nblk; b++) {
			why = check_hblk(dc, d, b);
			if (why)
				err = dc_refuse(dc, E3MP_HTREE, d->ino,
						dir_block(dc, d, b), why);
		}
	}
	return err;
}
