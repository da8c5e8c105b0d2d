/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dirwalk.c --- the order in which a tree walk visits the directories
 *
 * find(1), tar, cp -a, rsync and ls -R read a directory whole, then go
 * down into its subdirectories in readdir order: a pre-order walk from
 * the root.  The planner lays each group's directory blocks out in that
 * order rather than in inode order, so that a walk coming back to a
 * group after a subtree elsewhere finds the next directory right after
 * the last one it read there, inside the drive's read-ahead, not a seek
 * away.  e2fsck pass 2 reads them sorted by block, which any order
 * inside a region serves alike.
 *
 * readdir order is the kernel's: in a linear directory the entries'
 * order in the file (block, offset); in an htree one (EXT2_INDEX_FL)
 * the order of their name hashes (hash, minor hash), as
 * ext4_dx_readdir() returns them.  Neither depends on where the blocks
 * lie, so a rerun finds the same order and moves nothing.
 *
 * Each directory block is read once, in block order (one sweep, as
 * e2fsck pass 2 reads them), and checked as it is read (dircheck.c); a
 * block that cannot be read, or that e2fsck would repair, fails the run
 * before any write.  Each slow symlink's block is read in the same sweep
 * (one block each) for the check of its target (inodecheck.c), which
 * e2fsck pass 1 reads it for.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdlib.h>

#include "e3metapack.h"
#include "gate/dircheck.h"

/* A subdirectory entry: @child, named in @parent at readdir rank @key. */
struct edge {
	__u32	parent;
	__u32	child;
	__u64	key;
};

struct walk {
	ext2_filsys	fs;
	__u32		*ino;		/* directories, ascending */
	__u32		*rank;		/* by ino[] index; WALK_NONE */
	__u32		nino;
	struct edge	*edge;
	__u32		nedge, edge_alloc;
	int		hash_alg;
	struct dircheck	*dc;		/* checks each block as it is read */
};

static int cmp_dblk(const void *a, const void *b)
{
	return mp_cmp_u64(((const struct mp_dblk *) a)->blk,
			  ((const struct mp_dblk *) b)->blk);
}

static int cmp_u32(const void *a, const void *b)
{
	return mp_cmp_u64(*(const __u32 *) a, *(const __u32 *) b);
}

static int cmp_edge(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;

	if (x->parent != y->parent)
		return mp_cmp_u64(x->parent, y->parent);
	if (x->key != y->key)
		return mp_cmp_u64(x->key, y->key);
	return mp_cmp_u64(x->child, y->child);
}

/* Index of directory @ino in w->ino[], or WALK_NONE. */
static __u32 dir_index(const struct walk *w, __u32 ino)
{
	return mp_find_u32(w->ino, w->nino, ino);
}

/*
 * The readdir key of the entry at @off of logical block @logical: its
 * place in the file, or for an htree directory its name's hashes (the
 * place in the file if the hash cannot be computed, as the kernel then
 * could not index the directory either).
 */
static __u64 entry_key(const struct walk *w, const struct ext2_dir_entry *d,
		       __u32 logical, unsigned int off, int htree)
{
	ext2_dirhash_t hash, minor;

	if (htree && !ext2fs_dirhash2(w->hash_alg, d->name,
				      ext2fs_dirent_name_len(d),
				      w->fs->encoding, 0,
				      w->fs->super->s_hash_seed, &hash,
				      &minor))
		return ((__u64) hash << 32) | minor;
	return ((__u64) logical << 32) | off;
}

static errcode_t add_edge(struct walk *w, __u32 parent, __u32 child,
			  __u64 key)
{
	errcode_t err;

	err = mp_grow(&w->edge, &w->edge_alloc, w->nedge, sizeof(*w->edge));
	if (err)
		return err;
	w->edge[w->nedge].parent = parent;
	w->edge[w->nedge].child = child;
	w->edge[w->nedge].key = key;
	w->nedge++;
	return 0;
}

/*
 * The subdirectory entries of record @r's block, read into @buf, once
 * dircheck.c has found the block sound (a block that is not refuses the
 * volume; the loop's own bounds stay, as a second guard).
 */
static errcode_t read_block(struct walk *w, const struct ind_rec *r,
			    char *buf)
{
	unsigned int off = 0, len;
	errcode_t err;

	err = ext2fs_read_dir_block4(w->fs, r->blk, buf, 0, r->ino);
	err = dircheck_block(w->dc, r, buf, err);
	while (!err && off + 8 <= w->fs->blocksize) {
		struct ext2_dir_entry *d = (struct ext2_dir_entry *) (buf + off);
		int nl = ext2fs_dirent_name_len(d);

		if (ext2fs_get_rec_len(w->fs, d, &len) || len < 8 ||
		    len % 4 || len > w->fs->blocksize - off ||
		    (unsigned int) nl + 8 > len)
			break;
		if (d->inode && dir_index(w, d->inode) != WALK_NONE &&
		    !(nl == 1 && d->name[0] == '.') &&
		    !(nl == 2 && d->name[0] == '.' && d->name[1] == '.'))
			err = add_edge(w, r->ino, d->inode,
				       entry_key(w, d, r->logical, off,
						 r->flags & REC_HASHED));
		off += len;
	}
	return err;
}

/* A slow symlink's block, for the check of its target. */
static errcode_t read_symlink(struct e3mp *mp, const struct mp_slink *x,
			      char *buf)
{
	errcode_t err;

	err = io_channel_read_blk64(mp->fs->io, x->blk, 1, buf);
	return symlink_target_check(mp, x->ino, x->blk, buf, err);
}

/* w->ino[]: the directories that have records, ascending, once each. */
static errcode_t collect_dirs(struct walk *w, const struct e3mp *mp)
{
	__u32 i, n = 0;
	errcode_t err;

	for (i = 0; i < mp->nrec; i++)
		if (mp->rec[i].flags & REC_DIR)
			n++;
	err = ext2fs_get_array(n ? n : 1, sizeof(*w->ino), &w->ino);
	if (err)
		return err;
	for (i = 0; i < mp->nrec; i++)
		if (mp->rec[i].flags & REC_DIR)
			w->ino[w->nino++] = mp->rec[i].ino;
	mp_sort(w->ino, w->nino, sizeof(*w->ino), cmp_u32);
	for (i = n = 0; i < w->nino; i++)
		if (!n || w->ino[n - 1] != w->ino[i])
			w->ino[n++] = w->ino[i];
	w->nino = n;
	return 0;
}

/*
 * Every directory block (REC_DIR record) and slow symlink block in block
 * order, the order this file reads them in and predtool.c predicts;
 * *@out is the caller's to free.
 */
errcode_t dirs_by_block(const struct e3mp *mp, struct mp_dblk **out,
			__u32 *n)
{
	struct mp_dblk *db;
	errcode_t err;
	__u32 i;

	*n = 0;
	err = ext2fs_get_array(mp->nrec + mp->nslink + 1, sizeof(*db), &db);
	if (err)
		return err;
	for (i = 0; i < mp->nrec; i++) {
		if (!(mp->rec[i].flags & REC_DIR))
			continue;
		db[*n].blk = mp->rec[i].blk;
		db[(*n)++].rec = i;
	}
	for (i = 0; i < mp->nslink; i++) {
		db[*n].blk = mp->slink[i].blk;
		db[(*n)++].rec = i | MP_DBLK_X;
	}
	mp_sort(db, *n, sizeof(*db), cmp_dblk);
	*out = db;
	return 0;
}

/* Every directory block, in block order, into w->edge. */
static errcode_t read_dirs(struct walk *w, struct e3mp *mp)
{
	struct mp_dblk *db = NULL;
	__u32 n = 0, i;
	char *buf = NULL;
	errcode_t err;

	err = dirs_by_block(mp, &db, &n);
	if (!err)
		err = ext2fs_get_mem(w->fs->blocksize, &buf);
	for (i = 0; !err && i < n; i++)
		err = db[i].rec & MP_DBLK_X ?
			read_symlink(mp, &mp->slink[db[i].rec & ~MP_DBLK_X],
				     buf) :
			read_block(w, &mp->rec[db[i].rec], buf);
	ext2fs_free_mem(&buf);
	ext2fs_free_mem(&db);
	return err;
}

static int cmp_edge_parent(const void *ctx, __u32 i, blk64_t parent)
{
	return mp_cmp_u64(((const struct edge *) ctx)[i].parent, parent);
}

/* First edge of @parent in the sorted w->edge. */
static __u32 first_edge(const struct walk *w, __u32 parent)
{
	return mp_lower_bound(w->nedge, parent, cmp_edge_parent, w->edge);
}

/*
 * Rank the directories in pre-order from the root, each once (a volume
 * that names one twice, or in a loop, ranks it where it is met first);
 * the ones no walk reaches keep WALK_NONE.  The stack holds, per level,
 * the directory and the next of its edges.
 */
static errcode_t rank_dirs(struct walk *w)
{
	__u32 *dir = NULL, *cur = NULL, depth = 0, next = 0, i, at;
	errcode_t err;

	err = ext2fs_get_array(w->nino, sizeof(*w->rank), &w->rank);
	if (!err)
		err = ext2fs_get_array(w->nino, sizeof(*dir), &dir);
	if (!err)
		err = ext2fs_get_array(w->nino, sizeof(*cur), &cur);
	for (i = 0; !err && i < w->nino; i++)
		w->rank[i] = WALK_NONE;
	if (!err)
		mp_sort(w->edge, w->nedge, sizeof(*w->edge), cmp_edge);
	at = err ? WALK_NONE : dir_index(w, EXT2_ROOT_INO);
	if (at != WALK_NONE) {
		w->rank[at] = next++;
		dir[0] = EXT2_ROOT_INO;
		cur[depth++] = first_edge(w, EXT2_ROOT_INO);
	}
	while (depth) {
		__u32 e = cur[depth - 1];

		if (e >= w->nedge || w->edge[e].parent != dir[depth - 1]) {
			depth--;
			continue;
		}
		cur[depth - 1]++;
		at = dir_index(w, w->edge[e].child);
		if (at == WALK_NONE || w->rank[at] != WALK_NONE)
			continue;
		/* each directory is ranked once: depth stays <= nino */
		w->rank[at] = next++;
		dir[depth] = w->ino[at];
		cur[depth++] = first_edge(w, w->ino[at]);
	}
	ext2fs_free_mem(&dir);
	ext2fs_free_mem(&cur);
	return err;
}

/*
 * Rank the block-mapped directories in the order a tree walk visits
 * them, for the planner (mp->geom.walk_*).  Nothing to do when the
 * directories stay where they are.
 */
errcode_t dirs_walk_order(struct e3mp *mp)
{
	struct walk w = { .fs = mp->fs };
	errcode_t err;

	if (mp->geom.dirs == E3MP_DIRS_LEAVE)
		return 0;
	w.hash_alg = mp->fs->super->s_def_hash_version;
	if (w.hash_alg <= EXT2_HASH_TEA &&
	    (mp->fs->super->s_flags & EXT2_FLAGS_UNSIGNED_HASH))
		w.hash_alg += 3;
	err = collect_dirs(&w, mp);
	/* (a directory without blocks is a fault with none to read) */
	if (!err)
		err = dircheck_open(mp, &w.dc);
	if (!err && w.nino)
		err = read_dirs(&w, mp);
	if (!err && w.nino)
		err = rank_dirs(&w);
	if (!err && w.nino)
		err = dircheck_tree(w.dc, w.ino, w.rank, w.nino);
	dircheck_close(&w.dc);
	ext2fs_free_mem(&w.edge);
	if (err || !w.nino) {
		ext2fs_free_mem(&w.ino);
		ext2fs_free_mem(&w.rank);
		return err;
	}
	mp->walk_ino = w.ino;
	mp->walk_rank = w.rank;
	mp->geom.walk_ino = w.ino;
	mp->geom.walk_rank = w.rank;
	mp->geom.nwalk = w.nino;
	return 0;
}
