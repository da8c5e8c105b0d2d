/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_estimate.c --- unit tests of mp_estimate() (src/plan/estimate.c)
 *
 * mp_estimate() models e2fsck pass 1: inodes with indirect blocks are
 * deferred and handled in batches (at most 256 inodes, a new batch at
 * every inode-group change), each batch sorted by the inode's
 * i_block[EXT2_IND_BLOCK] (the REC_IN_INODE level-1 record; 0 if none),
 * then by inode number; each inode's indirect blocks are read in
 * pre-order (scan order).  A read that does not start right after the
 * previous one is a seek, and every batch starts with one.  The
 * expectations below are computed by hand.
 *
 * Output: one "ok N - name" or "not ok N - name: why" line per case,
 * then "1..N"; the exit status is 0 only if every case passed.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "unit.h"

/* --- records ------------------------------------------------------------- */

#define MAXR	1024

static struct ind_rec rec[MAXR];
static __u32 nrec;

/* 8 groups of 1024 blocks, 16 inodes per group. */
static struct mp_geom geom;

static void reset(blk64_t fdb, __u32 bpg, __u32 gc, __u32 ipg)
{
	memset(&geom, 0, sizeof(geom));
	geom.first_data_block = fdb;
	geom.blocks_per_group = bpg;
	geom.group_count = gc;
	geom.blocks_count = fdb + (blk64_t) bpg * gc;
	geom.inodes_per_group = ipg;
	geom.mc_max_pct = 12;
	memset(rec, 0, sizeof(rec));
	nrec = 0;
}

static void std_geom(void)
{
	reset(0, 1024, 8, 16);
}

/* Records must come in scan order: inode order, pre-order per file. */
static struct ind_rec *add(__u32 ino, blk64_t blk, __u8 level, __u8 flags)
{
	struct ind_rec *r = &rec[nrec++];

	if (nrec > MAXR) {
		fprintf(stderr, "test_estimate: too many records\n");
		exit(99);
	}
	r->blk = r->dest = blk;
	r->ino = ino;
	r->level = level;
	r->flags = flags;
	return r;
}

/* The IND of i_block[12]: the inode's sort key. */
static struct ind_rec *ind(__u32 ino, blk64_t blk)
{
	return add(ino, blk, 1, REC_IN_INODE);
}

/* The DIND of i_block[13]. */
static struct ind_rec *dind(__u32 ino, blk64_t blk)
{
	return add(ino, blk, 2, REC_IN_INODE);
}

/* An IND under a DIND or TIND. */
static struct ind_rec *child(__u32 ino, blk64_t blk)
{
	return add(ino, blk, 1, 0);
}

static int estimate(int after, __u64 reads, __u64 seeks, __u64 groups)
{
	struct mp_figures f;
	errcode_t err;

	memset(&f, 0xA5, sizeof(f));
	err = mp_estimate(&geom, rec, nrec, after, &f);
	EXPECT(!err, "mp_estimate failed: %ld", (long) err);
	EXPECT(f.reads == reads && f.seeks == seeks && f.groups == groups,
	       "%s: reads %llu seeks %llu groups %llu, expected %llu %llu "
	       "%llu", after ? "after" : "before", ULL(f.reads),
	       ULL(f.seeks), ULL(f.groups), ULL(reads), ULL(seeks),
	       ULL(groups));
	return 0;
}

/* --- cases --------------------------------------------------------------- */

static int case_empty(void)
{
	std_geom();
	TRY(estimate(0, 0, 0, 0));
	return estimate(1, 0, 0, 0);
}

static int case_one_block(void)
{
	std_geom();
	ind(1, 500);
	return estimate(0, 1, 1, 1);
}

static int case_sorted_by_ind(void)
{
	/* inode order 500, 100, 300; e2fsck reads 100, 300, 500 */
	std_geom();
	ind(1, 500);
	ind(2, 100);
	ind(3, 300);
	TRY(estimate(0, 3, 3, 1));
	/* 502, 500, 501 in inode order: one sweep once sorted */
	std_geom();
	ind(1, 502);
	ind(2, 500);
	ind(3, 501);
	return estimate(0, 3, 1, 1);
}

static int case_contiguous_run(void)
{
	std_geom();
	ind(1, 100);
	ind(2, 101);
	ind(3, 102);
	ind(4, 104);	/* a hole: one more seek */
	ind(5, 105);
	return estimate(0, 5, 2, 1);
}

static int case_preorder_in_file(void)
{
	/* IND 100, then DIND 200 and its INDs 201, 202: seeks at 100, 200 */
	std_geom();
	ind(1, 100);
	dind(1, 200);
	child(1, 201);
	child(1, 202);
	TRY(estimate(0, 4, 2, 1));
	/* the same file laid out in pre-order: one seek */
	std_geom();
	ind(1, 100);
	dind(1, 101);
	child(1, 102);
	child(1, 103);
	return estimate(0, 4, 1, 1);
}

static int case_no_ind_in_inode_sorts_first(void)
{
	/*
	 * ino 1's key is its IND, 52; ino 2 has only a DIND: key 0, so it
	 * goes first: 50, 51, 52, one seek (inode order would take two).
	 */
	std_geom();
	ind(1, 52);
	dind(2, 50);
	child(2, 51);
	return estimate(0, 3, 1, 1);
}

static int case_child_ind_is_no_key(void)
{
	/*
	 * ino 1: DIND 30 and its IND 31 (not in the inode: key 0); ino 2:
	 * IND 29.  Order ino 1, ino 2: 30, 31, 29: two seeks.  Were 31 the
	 * key, ino 2 would go first: 29, 30, 31, one seek.
	 */
	std_geom();
	dind(1, 30);
	child(1, 31);
	ind(2, 29);
	return estimate(0, 3, 2, 1);
}

static int case_equal_keys_by_inode(void)
{
	/* both keys 0: inode order, 11 then 10: two seeks */
	std_geom();
	dind(2, 11);
	dind(3, 10);
	return estimate(0, 2, 2, 1);
}

static int case_batch_per_inode_group(void)
{
	/* contiguous, but ino 17 is in group 1: a new batch, a seek */
	std_geom();
	ind(1, 100);
	ind(17, 101);
	TRY(estimate(0, 2, 2, 1));
	/*
	 * 101, 103 | 102: the group change splits the batch, so 102 is not
	 * sorted between the others: three seeks, not one.
	 */
	std_geom();
	ind(1, 101);
	ind(2, 103);
	ind(17, 102);
	TRY(estimate(0, 3, 3, 1));
	/* groups skipped: still one batch per group */
	std_geom();
	ind(1, 200);
	ind(40, 201);
	ind(41, 202);
	ind(120, 203);
	return estimate(0, 4, 3, 1);
}

static int case_batch_of_256(void)
{
	__u32 i;

	/* one inode group; one IND per inode, contiguous */
	reset(0, 8192, 2, 4096);
	for (i = 1; i <= 256; i++)
		ind(i, 1000 + i);
	TRY(estimate(0, 256, 1, 1));
	ind(257, 1257);		/* the 257th: a new batch */
	TRY(estimate(0, 257, 2, 1));
	/* descending: each batch is sorted on its own */
	reset(0, 8192, 2, 4096);
	for (i = 1; i <= 300; i++)
		ind(i, 2000 - i);
	return estimate(0, 300, 2, 1);
}

static int case_batch_counts_deferred_inodes(void)
{
	__u32 i;

	/* 257 inodes with odd numbers: 256 of them fill the first batch */
	reset(0, 8192, 2, 4096);
	for (i = 0; i < 257; i++)
		ind(2 * i + 1, 1000 + i);
	return estimate(0, 257, 2, 1);
}

static int case_group_change_resets_count(void)
{
	__u32 i;

	/* 200 in group 0, 200 in group 1: batches 200 + 200, not 256 + 144 */
	reset(0, 8192, 4, 1024);
	for (i = 1; i <= 200; i++)
		ind(i, 4000 - i);
	for (i = 1025; i <= 1224; i++)
		ind(i, 8000 - (i - 1024));
	/* each batch sorted: one sweep each */
	return estimate(0, 400, 2, 1);
}

static int case_groups_distinct(void)
{
	std_geom();
	ind(1, 10);		/* group 0 */
	ind(2, 2100);		/* group 2 */
	dind(2, 2200);		/* group 2 */
	child(2, 5200);		/* group 5 */
	ind(17, 2300);		/* group 2 again, another batch */
	return estimate(0, 5, 5, 3);
}

static int case_first_data_block_1(void)
{
	reset(1, 64, 4, 16);
	ind(1, 1);		/* group 0 */
	ind(2, 64);		/* group 0: (64 - 1) / 64 */
	ind(3, 65);		/* group 1 */
	ind(4, 256);		/* group 3 */
	/* sorted: 1 | 64, 65 | 256 */
	return estimate(0, 4, 3, 3);
}

static int case_after_uses_dest(void)
{
	std_geom();
	ind(1, 100)->dest = 502;
	ind(2, 3000)->dest = 500;
	ind(3, 7000)->dest = 501;
	TRY(estimate(0, 3, 3, 3));
	/* sorted by the new IND locations: 500, 501, 502 */
	TRY(estimate(1, 3, 1, 1));
	return 0;
}

static int case_after_key_is_dest(void)
{
	/*
	 * Before: keys 10 (ino 1) and 20 (ino 2): 10, 11 | 20, 21: 2 seeks.
	 * After, ino 1's IND moves to 22 and its DIND to 23: keys 22, 20:
	 * ino 2 first: 20, 21, 22, 23: 1 seek (ino 1 first would take 2).
	 */
	std_geom();
	ind(1, 10)->dest = 22;
	dind(1, 11)->dest = 23;
	ind(2, 20);
	dind(2, 21);
	TRY(estimate(0, 4, 2, 1));
	return estimate(1, 4, 1, 1);
}

static int case_deep_file(void)
{
	__u32 k;

	/* IND, DIND + 3 INDs, TIND + DIND + 2 INDs, all in pre-order */
	std_geom();
	ind(1, 100);
	dind(1, 101);
	for (k = 0; k < 3; k++)
		child(1, 102 + k);
	add(1, 105, 3, REC_IN_INODE);
	add(1, 106, 2, 0);
	child(1, 107);
	child(1, 108);
	TRY(estimate(0, 9, 1, 1));
	/* the TIND's subtree elsewhere: one more seek */
	rec[5].blk = 900;
	rec[6].blk = 901;
	rec[7].blk = 902;
	rec[8].blk = 903;
	return estimate(0, 9, 2, 1);
}

static int case_leaves_in_mc(void)
{
	struct mp_figures f = { .in_mc = 42 };

	/* planfeed_plan() fills in_mc first, then estimates into the same */
	std_geom();
	ind(1, 100);
	EXPECT(!mp_estimate(&geom, rec, nrec, 0, &f), "error");
	EXPECT(f.in_mc == 42, "in_mc %llu, was 42", ULL(f.in_mc));
	return 0;
}

/* --- with the planner ---------------------------------------------------- */

static unsigned char ondisk[4096], work[4096];

static int sp_in_use(void *priv, blk64_t blk)
{
	(void) priv;
	return ondisk[blk];
}

static int sp_find_free(void *priv, blk64_t start, blk64_t end, blk64_t *out)
{
	(void) priv;
	for (; start <= end; start++)
		if (!work[start]) {
			*out = start;
			return 0;
		}
	return 1;
}

static void sp_take(void *priv, blk64_t blk)
{
	(void) priv;
	work[blk] = 1;
}

static int case_packed_volume(void)
{
	static const struct mp_space_ops ops = {
		.in_use = sp_in_use,
		.find_free = sp_find_free,
		.take = sp_take,
	};
	struct data_ext no_ext;
	struct mp_plan p;
	struct mp_figures before;
	blk64_t b;
	__u32 i, k;
	errcode_t err;
	int bad;

	/* 4 groups of 256, zones of 25 %; files scattered over the volume */
	reset(0, 256, 4, 16);
	geom.mc_max_pct = 25;
	memset(ondisk, 0, sizeof(ondisk));
	for (i = 0; i < 4; i++)
		for (b = 0; b < 8; b++)
			ondisk[256 * i + b] = 1;	/* metadata */
	for (i = 0; i < 12; i++) {
		__u32 ino = 1 + i * 5;		/* groups 0, 0, 0, 0, 1, ... */
		__u32 n = 1 + i % 4;

		for (k = 0; k < n; k++) {
			b = 10 + (i * 131 + k * 37) % 180 +
			    256 * ((i + k) % 4);
			while (ondisk[b])
				b++;
			ondisk[b] = 1;
			add(ino, b, k == 1 ? 2 : 1, k < 2 ? REC_IN_INODE : 0);
		}
	}
	memcpy(work, ondisk, sizeof(work));
	geom.free_blocks = 0;
	for (b = 0; b < geom.blocks_count; b++)
		geom.free_blocks += !ondisk[b];
	err = mp_plan_build(&p, &geom, E3MP_HOME_INODE, rec, nrec, &no_ext, 0,
			    &ops, NULL);
	EXPECT(!err, "mp_plan_build failed: %ld", (long) err);
	EXPECT(p.after.in_mc == nrec, "only %llu of %u packed",
	       ULL(p.after.in_mc), nrec);
	mp_plan_free(&p);
	EXPECT(!mp_estimate(&geom, rec, nrec, 0, &before), "error");
	EXPECT(before.reads == nrec && before.seeks > 4 && before.groups == 4,
	       "before: reads %llu seeks %llu groups %llu",
	       ULL(before.reads), ULL(before.seeks), ULL(before.groups));
	/* after: one sweep per inode group, in the MCs of groups 0-3 */
	bad = estimate(1, nrec, 4, 4);
	return bad;
}

int main(void)
{
	run("no records", case_empty);
	run("one indirect block", case_one_block);
	run("inodes sorted by their IND block", case_sorted_by_ind);
	run("contiguous reads need one seek", case_contiguous_run);
	run("a file's blocks in pre-order", case_preorder_in_file);
	run("no IND in the inode: key 0, first", case_no_ind_in_inode_sorts_first);
	run("an IND under a DIND is no sort key", case_child_ind_is_no_key);
	run("equal keys: inode order", case_equal_keys_by_inode);
	run("a new batch at each inode group", case_batch_per_inode_group);
	run("a new batch every 256 inodes", case_batch_of_256);
	run("batches count inodes with indirect blocks",
	    case_batch_counts_deferred_inodes);
	run("the 256 count restarts at each group",
	    case_group_change_resets_count);
	run("groups: distinct groups holding the blocks",
	    case_groups_distinct);
	run("first_data_block 1", case_first_data_block_1);
	run("after: destinations", case_after_uses_dest);
	run("after: the sort key is the IND's destination",
	    case_after_key_is_dest);
	run("IND, DIND and TIND trees", case_deep_file);
	run("in_mc is left alone", case_leaves_in_mc);
	run("a packed volume reads in one sweep per group",
	    case_packed_volume);
	return unit_done();
}
