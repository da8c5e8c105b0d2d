/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * estimate.c --- how e2fsck pass 1 reads the indirect blocks
 *
 * Pass 1 scans the inode table group by group and defers every inode
 * that has indirect blocks; it handles the deferred inodes in batches of
 * at most 256, flushed at the end of each group, sorted by
 * i_block[EXT2_IND_BLOCK] (then inode number), and reads each inode's
 * indirect blocks in pre-order.  There is no read-ahead for them, so a
 * read that does not start where the previous one ended costs a seek.
 * Between batches it reads inode tables, so every batch starts with one.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdlib.h>

#include "plan/plan.h"
#include "core/iosizes.h"

struct deferred {
	blk64_t		key;	/* i_block[EXT2_IND_BLOCK] */
	__u32		ino;
	__u32		first;	/* first record */
	__u32		count;
};

static int cmp_deferred(const void *a, const void *b)
{
	const struct deferred *x = a, *y = b;

	return x->key != y->key ? mp_cmp_u64(x->key, y->key) :
	       mp_cmp_u64(x->ino, y->ino);
}

static blk64_t loc(const struct ind_rec *r, int after)
{
	return after ? r->dest : r->blk;
}

static void read_batch(const struct mp_geom *g, const struct ind_rec *rec,
		       struct deferred *d, __u32 n, int after,
		       struct mp_figures *out, unsigned char *seen)
{
	blk64_t prev = 0;
	int have_prev = 0;
	__u32 i, k;

	mp_sort(d, n, sizeof(*d), cmp_deferred);
	for (i = 0; i < n; i++) {
		for (k = d[i].first; k < d[i].first + d[i].count; k++) {
			blk64_t b = loc(&rec[k], after);
			__u32 grp = (b - g->first_data_block) /
				    g->blocks_per_group;

			if (rec[k].flags & REC_DIR)
				continue;	/* read by pass 2 */
			out->reads++;
			if (!have_prev || b != prev + 1)
				out->seeks++;
			prev = b;
			have_prev = 1;
			if (!(seen[grp / 8] & (1 << (grp % 8)))) {
				seen[grp / 8] |= 1 << (grp % 8);
				out->groups++;
			}
		}
	}
}

errcode_t mp_estimate(const struct mp_geom *g, const struct ind_rec *rec,
		      __u32 nrec, int after, struct mp_figures *out)
{
	struct deferred batch[MP_E2FSCK_BATCH];
	unsigned char *seen;
	__u32 i = 0, n = 0, batch_grp = 0;
	errcode_t err;

	out->reads = out->seeks = out->groups = 0;
	err = ext2fs_get_memzero(g->group_count / 8 + 1, &seen);
	if (err)
		return err;
	while (i < nrec) {
		struct deferred d = { .key = 0, .ino = rec[i].ino, .first = i };
		__u32 grp = (d.ino - 1) / g->inodes_per_group;
		int ind = 0;

		for (; i < nrec && rec[i].ino == d.ino; i++) {
			if (rec[i].level == 1 && (rec[i].flags & REC_IN_INODE))
				d.key = loc(&rec[i], after);
			ind |= !(rec[i].flags & REC_DIR);
			d.count++;
		}
		/* pass 1 defers only inodes that have indirect blocks */
		if (!ind)
			continue;
		if (n && (n == MP_E2FSCK_BATCH || grp != batch_grp)) {
			read_batch(g, rec, batch, n, after, out, seen);
			n = 0;
		}
		batch_grp = grp;
		batch[n++] = d;
	}
	if (n)
		read_batch(g, rec, batch, n, after, out, seen);
	ext2fs_free_mem(&seen);
	return 0;
}
