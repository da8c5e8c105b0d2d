/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * predict.c --- e2fsck -fn's time on the model disk, before and after
 *
 * Feeds the pure walk (fsckmodel.c) from what the open volume and the
 * scan hold: the group descriptors (inode tables, bitmaps), the
 * directory blocks the scan noted, the journal and resize inodes.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <string.h>
#include <unistd.h>

#include "e3metapack.h"
#include "model/disk.h"
#include "model/drive.h"
#include "model/kernel.h"
#include "predict/predict.h"

/* What e2fsck, and the inode scan, read of group @grp. */
void predict_group_io(void *priv, __u32 grp, struct mp_group_io *out)
{
	struct e3mp *mp = priv;
	ext2_filsys fs = mp->fs;
	__u64 used = fs->super->s_inodes_per_group;
	int csum = ext2fs_has_group_desc_csum(fs);

	/* with uninit_bg or metadata_csum the scan skips unused inodes */
	if (csum && ext2fs_bg_flags_test(fs, grp, EXT2_BG_INODE_UNINIT))
		used = 0;
	else if (csum)
		used -= ext2fs_bg_itable_unused(fs, grp);
	out->itable = ext2fs_inode_table_loc(fs, grp);
	out->itable_blocks = out->itable ?
		(used * EXT2_INODE_SIZE(fs->super) + fs->blocksize - 1) /
		fs->blocksize : 0;
	out->bbitmap = csum && ext2fs_bg_flags_test(fs, grp,
						    EXT2_BG_BLOCK_UNINIT) ?
		0 : ext2fs_block_bitmap_loc(fs, grp);
	out->ibitmap = csum && ext2fs_bg_flags_test(fs, grp,
						    EXT2_BG_INODE_UNINIT) ?
		0 : ext2fs_inode_bitmap_loc(fs, grp);
	out->in_use = ext2fs_bg_free_inodes_count(fs, grp) <
		fs->super->s_inodes_per_group;
}

static int next_dir(void *priv, int list, blk64_t start, blk64_t *out)
{
	struct e3mp *mp = priv;
	blk64_t end = ext2fs_blocks_count(mp->fs->super) - 1;

	if (start < mp->fs->super->s_first_data_block)
		start = mp->fs->super->s_first_data_block;
	if (!mp->dirblk[list] || start > end)
		return 0;
	return !ext2fs_find_first_set_block_bitmap2(mp->dirblk[list], start,
						    end, out);
}

static const struct mp_fsck_ops fsck_ops = {
	.group = predict_group_io,
	.next_dir = next_dir,
};

/* The journal's block 0 and the resize inode's DIND block. */
static errcode_t special_blocks(struct e3mp *mp, struct mp_fsck_vol *v)
{
	ext2_filsys fs = mp->fs;
	struct ext2_inode inode;
	errcode_t err;

	if (ext2fs_has_feature_journal(fs->super) &&
	    fs->super->s_journal_inum && !fs->super->s_journal_dev) {
		v->journal_ino = fs->super->s_journal_inum;
		err = ext2fs_bmap2(fs, v->journal_ino, NULL, NULL, 0, 0,
				   NULL, &v->journal_sb);
		if (err)
			return err;
	}
	if (!ext2fs_has_feature_resize_inode(fs->super))
		return 0;
	err = ext2fs_read_inode(fs, EXT2_RESIZE_INO, &inode);
	if (err)
		return err;
	v->resize_dind = inode.i_block[EXT2_DIND_BLOCK];
	v->rgdt_first = v->desc_first + v->desc_blocks;
	v->rgdt_blocks = fs->super->s_reserved_gdt_blocks;
	return 0;
}

/* The page cache of the model kernel: one bitmap of blocks. */
static int cache_find(void *priv, int set, int value, blk64_t start,
		      blk64_t end, blk64_t *out)
{
	ext2fs_generic_bitmap map = priv;

	(void) set;
	if (value)
		return !ext2fs_find_first_set_block_bitmap2(map, start, end,
							    out);
	return !ext2fs_find_first_zero_block_bitmap2(map, start, end, out);
}

static void cache_mark(void *priv, int set, blk64_t blk, __u64 count,
		       int value)
{
	ext2fs_generic_bitmap map = priv;
	blk64_t end = ext2fs_get_generic_bmap_end(map);

	(void) set;
	if (blk > end)
		return;
	if (count > end - blk + 1)
		count = end - blk + 1;
	if (value)
		ext2fs_mark_block_bitmap_range2(map, blk, count);
	else
		ext2fs_unmark_block_bitmap_range2(map, blk, count);
}

static const struct mp_set_ops cache_ops = {
	.find = cache_find,
	.mark = cache_mark,
};

/* What the model assumes of the kernel and e2fsck (and the report says). */
void predict_fsck_env(struct e3mp *mp, struct mp_fsck_env *env)
{
	ext2_filsys fs = mp->fs;
	long cpus = sysconf(_SC_NPROCESSORS_CONF);

	memset(env, 0, sizeof(*env));
	env->ra_kb = mp->opt.read_ahead_kb;
	/* e2fsck_guess_readahead(): two groups' inode tables */
	env->fsck_ra_kb = 2ULL * fs->blocksize * fs->inode_blocks_per_group /
		1024;
	env->threads = cpus > 0 ? (unsigned int) cpus : 1;
	env->segments = MP_DRIVE_SEGMENTS;
	env->cache = &cache_ops;
}

static void note_setting(struct e3mp *mp)
{
	struct mp_fsck_setting *s = &mp->model->setting;
	struct mp_fsck_env env;

	predict_fsck_env(mp, &env);
	s->ra_kb = env.ra_kb;
	s->fsck_ra_kb = env.fsck_ra_kb;
	s->threads = env.threads;
	s->page_kb = MP_PAGE_SIZE / 1024;
	s->drive_kb = MP_DRIVE_RA_KIB;
	s->segments = env.segments;
}

/* e2fsck -fn with its defaults, @after the plan that gave @rec. */
static errcode_t predict_real(struct e3mp *mp, const struct mp_fsck_vol *v,
			      const struct ind_rec *rec, int after,
			      struct mp_prediction *out)
{
	blk64_t end = ext2fs_blocks_count(mp->fs->super) - 1;
	struct mp_fsck_env env;
	ext2fs_generic_bitmap map;
	errcode_t err;

	predict_fsck_env(mp, &env);
	/* (the last page of a volume of 1 KiB blocks may pass its end) */
	err = ext2fs_alloc_generic_bmap(mp->fs, EXT2_ET_MAGIC_BLOCK_BITMAP64,
					EXT2FS_BMAP64_RBTREE, 0, end + 8,
					end + 8, "model page cache", &map);
	if (err)
		return err;
	env.cache_priv = map;
	err = mp_predict_fsck(v, &mp->opt.disk, &env, rec, mp->nrec, after,
			      out);
	ext2fs_free_generic_bmap(map);
	return err;
}

static errcode_t predict_one(struct e3mp *mp, const struct mp_fsck_vol *v,
			     int after)
{
	errcode_t err;

	err = predict_real(mp, v, mp->rec, after, &mp->model->pred[after]);
	if (!err)
		err = mp_predict_fsck(v, &mp->opt.disk, NULL, mp->rec,
				      mp->nrec, after,
				      &mp->model->log[after]);
	return err;
}

/* (the model keeps a figure per --dirs value) */
typedef char dirs_fit_model[E3MP_DIRS_VOLUME < MP_DIRS_MODES ? 1 : -1];

/*
 * e2fsck -fn after a run with --dirs=@dirs --mc-span=@span: planned on a
 * copy.
 */
static errcode_t predict_other(struct e3mp *mp, const struct mp_fsck_vol *v,
			       enum e3mp_dirs dirs, unsigned int span,
			       double *ms)
{
	struct mp_prediction out;
	struct ind_rec *rec;
	struct mp_plan p;
	errcode_t err;

	err = ext2fs_get_array(mp->nrec ? mp->nrec : 1, sizeof(*rec), &rec);
	if (err)
		return err;
	memcpy(rec, mp->rec, mp->nrec * sizeof(*rec));
	err = planfeed_plan_as(mp, dirs, span, rec, &p);
	if (!err) {
		err = predict_real(mp, v, rec, 1, &out);
		mp_plan_free(&p);
		*ms = out.total_ms;
	}
	ext2fs_free_mem(&rec);
	return err;
}

/*
 * What e2fsck would take after the run under each directory layout
 * (the report compares them): none under --dirs=leave, which reads no
 * directory and so has no walk to lay one out by.
 */
static errcode_t predict_dirs(struct e3mp *mp, const struct mp_fsck_vol *v)
{
	static const enum e3mp_dirs modes[] = {
		E3MP_DIRS_PACK, E3MP_DIRS_ROOTS, E3MP_DIRS_VOLUME
	};
	double *ms = mp->model->dirs_ms;
	errcode_t err = 0;
	unsigned int i;

	if (mp->opt.dirs == E3MP_DIRS_LEAVE || !mp->st.dirs_mapped)
		return 0;
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]) && !err; i++)
		if (modes[i] == mp->opt.dirs)
			ms[modes[i]] = mp->model->pred[1].total_ms;
		else
			err = predict_other(mp, v, modes[i], mp->opt.mc_span,
					    &ms[modes[i]]);
	return err;
}

/*
 * What e2fsck would take after the run with this run's --mc-span, and
 * with 1 and 2 (the report compares them); none without an indirect
 * block to place.
 */
static errcode_t predict_spans(struct e3mp *mp, const struct mp_fsck_vol *v)
{
	const unsigned int spans[] = { 1, 2, mp->opt.mc_span };
	double *ms = mp->model->span_ms;
	errcode_t err = 0;
	unsigned int i;

	if (!mp->nrec)
		return 0;
	for (i = 0; i < sizeof(spans) / sizeof(spans[0]) && !err; i++)
		if (spans[i] == mp->opt.mc_span)
			ms[spans[i]] = mp->model->pred[1].total_ms;
		else
			err = predict_other(mp, v, mp->opt.dirs, spans[i],
					    &ms[spans[i]]);
	return err;
}

errcode_t predict_fsck(struct e3mp *mp)
{
	ext2_filsys fs = mp->fs;
	struct mp_fsck_vol v = {
		.g = &mp->geom,
		.blocksize = fs->blocksize,
		.inode_size = EXT2_INODE_SIZE(fs->super),
		.span = ext2fs_blocks_count(fs->super) * fs->blocksize,
		.desc_first = fs->super->s_first_data_block + 1,
		.desc_blocks = fs->desc_blocks,
		.dir_index = ext2fs_has_feature_dir_index(fs->super),
		.x = mp->model->xr,
		.nx = mp->model->nx,
		.ops = &fsck_ops,
		.priv = mp,
	};
	errcode_t err;

	err = special_blocks(mp, &v);
	mp->model->journal_sb = v.journal_sb;
	note_setting(mp);
	if (!err)
		err = predict_one(mp, &v, 0);
	if (!err)
		err = predict_one(mp, &v, 1);
	if (!err)
		err = predict_dirs(mp, &v);
	if (!err)
		err = predict_spans(mp, &v);
	return err;
}
