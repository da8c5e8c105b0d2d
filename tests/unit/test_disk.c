/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_disk.c --- unit tests of the model disk (src/model/disk.c) and of the
 * walk of e2fsck -fn's reads through it (src/model/fsckmodel.c)
 *
 * The disk's arithmetic is checked against the formulas of
 * bench/hddmodel.py, computed here by hand.  The walk is checked by
 * replaying, through a second model disk, the reads e2fsck makes in the
 * order written out by hand: a walk that read the same blocks in another
 * order would cost a different time.
 *
 * Output: one "ok N - name" or "not ok N - name: why" line per case,
 * then "1..N"; the exit status is 0 only if every case passed.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/disk.h"
#include "unit.h"

#define NEAR(a, b)	(fabs((a) - (b)) < 1e-9 * (1 + fabs(b)))

/* --- the disk ------------------------------------------------------------- */

static struct mp_disk_params ref;

static int case_defaults(void)
{
	mp_disk_default(&ref);
	EXPECT(ref.settle_ms == 1.0 && ref.stroke_ms == 15.0 &&
	       ref.half_rot_ms == 4.17 && ref.mb_per_s == 150.0,
	       "not hddmodel.py's 1, 15, 4.17 ms, 150 MB/s");
	EXPECT(mp_disk_is_default(&ref), "defaults not the reference");
	return 0;
}

static int case_parse(void)
{
	static const char *const bad[] = {
		"", "1,15,4.17", "1,15,4.17,150,1", "1,15,4.17,0",
		"16,15,4.17,150", "-1,15,4.17,150", "1,15,4.17,150x",
		"a,b,c,d", "1,1001,4,150", "1,15,4.17,100001", "1,,4,150",
		"1,15,nan,150",
	};
	struct mp_disk_params p = ref;
	size_t i;

	EXPECT(!mp_disk_parse("0.5,8,2,250", &p), "a good value refused");
	EXPECT(p.settle_ms == 0.5 && p.stroke_ms == 8 && p.half_rot_ms == 2 &&
	       p.mb_per_s == 250, "parsed wrong");
	EXPECT(!mp_disk_is_default(&p), "0.5,8,2,250 is the reference?");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p = ref;
		EXPECT(mp_disk_parse(bad[i], &p), "'%s' accepted", bad[i]);
		EXPECT(mp_disk_is_default(&p), "'%s' changed the values",
		       bad[i]);
	}
	return 0;
}

/* 1 GB span, 4 KiB blocks: one block's transfer is 4096 / 150000 ms. */
#define SPAN	1000000000ULL
#define XFER	(4096.0 / 150000.0)

static int case_sequential(void)
{
	struct mp_disk d;
	double ms;

	mp_disk_init(&d, &ref, SPAN, 4096);
	ms = mp_disk_read(&d, 0, 1);
	EXPECT(NEAR(ms, XFER), "first read at the head: %g ms", ms);
	ms = mp_disk_read(&d, 1, 10);
	EXPECT(NEAR(ms, 10 * XFER), "a read where the last ended: %g", ms);
	EXPECT(d.seeks == 0 && d.reads == 2 && d.blocks == 11,
	       "seeks %llu reads %llu blocks %llu", ULL(d.seeks),
	       ULL(d.reads), ULL(d.blocks));
	EXPECT(NEAR(d.ms, 11 * XFER), "total %g", d.ms);
	return 0;
}

static int case_seek(void)
{
	struct mp_disk d;
	double dist = 100000.0 * 4096 - 4096, want, ms;

	mp_disk_init(&d, &ref, SPAN, 4096);
	mp_disk_read(&d, 0, 1);
	/* forward, but spinning 2.7 s over the gap costs more */
	want = 1 + 14 * sqrt(dist / SPAN) + 4.17;
	EXPECT(NEAR(mp_disk_seek_ms(&d, dist), want), "seek_ms");
	ms = mp_disk_read(&d, 100000, 1);
	EXPECT(NEAR(ms, want + XFER), "forward seek: %g, want %g", ms,
	       want + XFER);
	/* backward: always a seek, whatever the distance */
	dist = 100001.0 * 4096 - 50000.0 * 4096;
	want = 1 + 14 * sqrt(dist / SPAN) + 4.17 + XFER;
	ms = mp_disk_read(&d, 50000, 1);
	EXPECT(NEAR(ms, want), "backward seek: %g, want %g", ms, want);
	EXPECT(d.seeks == 2, "%llu seeks", ULL(d.seeks));
	/* further than the span: a full stroke */
	EXPECT(NEAR(mp_disk_seek_ms(&d, 2 * SPAN), 15 + 4.17), "full stroke");
	return 0;
}

static int case_spin(void)
{
	struct mp_disk d;
	double ms;

	mp_disk_init(&d, &ref, SPAN, 4096);
	mp_disk_read(&d, 0, 1);
	/* a 3-block gap: spun by in 3 transfers, cheaper than a seek */
	ms = mp_disk_read(&d, 4, 1);
	EXPECT(NEAR(ms, 4 * XFER), "spin: %g ms", ms);
	EXPECT(d.seeks == 0, "a spin counted as a seek");
	return 0;
}

static int case_rate(void)
{
	struct mp_disk_params p = { 2, 10, 3, 50 };
	struct mp_disk d;
	double ms;

	mp_disk_init(&d, &p, SPAN, 1024);
	mp_disk_read(&d, 0, 1);
	ms = mp_disk_read(&d, 500000, 2);
	EXPECT(NEAR(ms, 2 + 8 * sqrt((500000.0 * 1024 - 1024) / SPAN) + 3 +
		    2048.0 / 50000), "--disk=2,10,3,50: %g ms", ms);
	return 0;
}

/* --- the walk ---------------------------------------------------------- */

/*
 * Two groups of 8192 blocks from block 1, 1 KiB blocks, 256-byte inodes:
 * 16 inodes per group fill 4 inode-table blocks (32 per group with
 * big_groups(): 512 inodes, 128 blocks).
 */
static struct mp_geom geom;
static struct mp_fsck_vol vol;
static struct mp_group_io gio[2];
static struct ind_rec rec[512];
static __u32 nrec;
static struct mp_extra xr[16];
static blk64_t dirs[2][8];
static __u32 ndirs[2];

static void group_io(void *priv EXT2FS_ATTR((unused)), __u32 grp,
		     struct mp_group_io *out)
{
	*out = gio[grp];
}

static int next_dir(void *priv EXT2FS_ATTR((unused)), int list,
		    blk64_t start, blk64_t *out)
{
	__u32 i;
	blk64_t best = 0;

	for (i = 0; i < ndirs[list]; i++)
		if (dirs[list][i] >= start && (!best || dirs[list][i] < best))
			best = dirs[list][i];
	*out = best;
	return best != 0;
}

static const struct mp_fsck_ops ops = { group_io, next_dir };

static void setup(__u32 ipg)
{
	memset(&geom, 0, sizeof(geom));
	geom.first_data_block = 1;
	geom.blocks_per_group = 8192;
	geom.group_count = 2;
	geom.blocks_count = 1 + 2 * 8192;
	geom.inodes_per_group = ipg;
	memset(&vol, 0, sizeof(vol));
	vol.g = &geom;
	vol.blocksize = 1024;
	vol.inode_size = 256;
	vol.span = geom.blocks_count * 1024;
	vol.desc_first = 2;
	vol.desc_blocks = 1;
	vol.dir_index = 1;
	vol.ops = &ops;
	vol.x = xr;
	gio[0] = (struct mp_group_io) { 100, ipg / 4, 50, 51, 1 };
	gio[1] = (struct mp_group_io) { 8300, ipg / 4, 8250, 8251, 1 };
	nrec = 0;
	ndirs[0] = ndirs[1] = 0;
}

static void add(__u32 ino, blk64_t blk, __u8 level, __u8 flags)
{
	struct ind_rec *r = &rec[nrec++];

	memset(r, 0, sizeof(*r));
	r->blk = r->dest = blk;
	r->ino = ino;
	r->level = level;
	r->flags = flags;
}

/* The reads the walk must make, replayed by hand. */
static struct mp_disk want_d;
static struct mp_prediction want;

static void ex(blk64_t blk, __u64 count, enum mp_kind k);

static void ex_start(void)
{
	memset(&want, 0, sizeof(want));
	mp_disk_init(&want_d, &ref, vol.span, vol.blocksize);
	ex(1, 1, MP_K_OTHER);		/* superblock */
	ex(2, 1, MP_K_OTHER);		/* descriptors */
}

static void ex(blk64_t blk, __u64 count, enum mp_kind k)
{
	__u64 reads = want_d.reads, seeks = want_d.seeks;

	want.ms[k] += mp_disk_read(&want_d, blk, count);
	want.kind_reads[k] += want_d.reads - reads;
	want.kind_seeks[k] += want_d.seeks - seeks;
}

static void ex_bitmaps(void)
{
	ex(50, 1, MP_K_BITMAP);
	ex(51, 1, MP_K_BITMAP);
	ex(8250, 1, MP_K_BITMAP);
	ex(8251, 1, MP_K_BITMAP);
}

static int check(int after)
{
	static const char *const names[MP_K_COUNT] = {
		"itable", "bitmap", "ind", "dir", "journal", "other" };
	struct mp_prediction got;
	errcode_t err;
	int k;

	err = mp_predict_fsck(&vol, &ref, NULL, rec, nrec, after, &got);
	EXPECT(!err, "mp_predict_fsck: %ld", (long) err);
	for (k = 0; k < MP_K_COUNT; k++)
		EXPECT(NEAR(got.ms[k], want.ms[k]), "%s: %g ms, want %g",
		       names[k], got.ms[k], want.ms[k]);
	EXPECT(NEAR(got.total_ms, want_d.ms), "total %g, want %g",
	       got.total_ms, want_d.ms);
	/* (reads may differ: a table read in pieces costs the same) */
	EXPECT(got.blocks == want_d.blocks && got.seeks == want_d.seeks,
	       "blocks/seeks %llu/%llu, want %llu/%llu", ULL(got.blocks),
	       ULL(got.seeks), ULL(want_d.blocks), ULL(want_d.seeks));
	/* each kind's seeks; the indirect blocks' reads (JSON fsck_reads) */
	for (k = 0; k < MP_K_COUNT; k++)
		EXPECT(got.kind_seeks[k] == want.kind_seeks[k],
		       "%s: %llu seeks, want %llu", names[k],
		       ULL(got.kind_seeks[k]), ULL(want.kind_seeks[k]));
	EXPECT(got.kind_reads[MP_K_IND] == want.kind_reads[MP_K_IND],
	       "ind: %llu reads, want %llu", ULL(got.kind_reads[MP_K_IND]),
	       ULL(want.kind_reads[MP_K_IND]));
	return 0;
}

/* Only the fixed metadata: superblock, descriptors, tables, bitmaps. */
static int case_walk_empty(void)
{
	setup(16);
	ex_start();
	ex(100, 4, MP_K_ITABLE);
	ex(8300, 4, MP_K_ITABLE);
	ex_bitmaps();
	return check(0);
}

/*
 * A batch sorted by i_block[IND], flushed at the group's end after the
 * rest of the table; each file's blocks in pre-order; group 1's inode
 * (lowest key of all) waits for its own group.
 */
static void sorted_files(void)
{
	setup(16);
	add(3, 900, 1, REC_IN_INODE);
	add(5, 500, 1, REC_IN_INODE);
	add(5, 5001, 2, REC_IN_INODE);
	add(5, 5002, 1, 0);
	add(18, 300, 1, REC_IN_INODE);
}

static int case_walk_batch_sorted(void)
{
	sorted_files();
	ex_start();
	ex(100, 4, MP_K_ITABLE);	/* inodes 3 and 5: one chunk */
	ex(500, 1, MP_K_IND);
	ex(5001, 1, MP_K_IND);
	ex(5002, 1, MP_K_IND);
	ex(900, 1, MP_K_IND);
	ex(8300, 1, MP_K_ITABLE);	/* inode 18 */
	ex(8301, 3, MP_K_ITABLE);
	ex(300, 1, MP_K_IND);
	ex_bitmaps();
	return check(0);
}

/* After: the destinations, and the key is the IND's destination. */
static int case_walk_after(void)
{
	sorted_files();
	rec[0].dest = 7000;	/* inode 3's IND: now the lower key */
	rec[1].dest = 7100;
	rec[2].dest = 7101;
	rec[3].dest = 7102;
	ex_start();
	ex(100, 4, MP_K_ITABLE);
	ex(7000, 1, MP_K_IND);
	ex(7100, 1, MP_K_IND);
	ex(7101, 1, MP_K_IND);
	ex(7102, 1, MP_K_IND);
	ex(8300, 1, MP_K_ITABLE);
	ex(8301, 3, MP_K_ITABLE);
	ex(300, 1, MP_K_IND);
	ex_bitmaps();
	return check(1);
}

/*
 * 300 inodes with an IND each, keys falling with the inode number: the
 * first 256 are flushed as soon as the 256th is read, mid-table (after
 * the 8-block chunk that holds it); then the rest of the table, then
 * the other 44.
 */
static int case_walk_batch_256(void)
{
	__u32 ino, at;

	setup(512);
	for (ino = 13; ino < 313; ino++)
		add(ino, 100000 - ino, 1, REC_IN_INODE);
	ex_start();
	at = 72;	/* inode 268 is in block 66, chunk 64..71 */
	ex(100, at, MP_K_ITABLE);
	for (ino = 268; ino >= 13; ino--)
		ex(100000 - ino, 1, MP_K_IND);
	ex(100 + at, 128 - at, MP_K_ITABLE);
	for (ino = 312; ino >= 269; ino--)
		ex(100000 - ino, 1, MP_K_IND);
	ex(8300, 128, MP_K_ITABLE);
	ex_bitmaps();
	return check(0);
}

/* Pass 2: with dir_index the first blocks, then the others, each sorted. */
static int dirs_case(int dir_index)
{
	setup(16);
	vol.dir_index = dir_index;
	dirs[0][0] = 7000;
	dirs[0][1] = 3000;
	dirs[1][0] = 5000;
	dirs[1][1] = 2000;
	ndirs[0] = ndirs[1] = 2;
	ex_start();
	ex(100, 4, MP_K_ITABLE);
	ex(8300, 4, MP_K_ITABLE);
	if (dir_index) {
		ex(3000, 1, MP_K_DIR);
		ex(7000, 1, MP_K_DIR);
		ex(2000, 1, MP_K_DIR);
		ex(5000, 1, MP_K_DIR);
	} else {
		ex(2000, 1, MP_K_DIR);
		ex(3000, 1, MP_K_DIR);
		ex(5000, 1, MP_K_DIR);
		ex(7000, 1, MP_K_DIR);
	}
	ex_bitmaps();
	return check(0);
}

static int case_walk_dir_index(void)
{
	return dirs_case(1);
}

static int case_walk_dirs_sorted(void)
{
	return dirs_case(0);
}

/*
 * After a --dirs=pack plan, pass 2 reads the moved directory blocks
 * (REC_DIR records) at their destinations, sorted again among those
 * that stay: 3000 -> 9000 goes last of the first blocks, 5000 -> 1500
 * first of the others.  Before the run, the present places.
 */
static void moved_dirs(void)
{
	setup(16);
	dirs[0][0] = 7000;
	dirs[0][1] = 3000;
	dirs[1][0] = 5000;
	dirs[1][1] = 2000;
	ndirs[0] = ndirs[1] = 2;
	add(4, 3000, 0, REC_DIR | REC_IN_INODE);
	add(4, 5000, 0, REC_DIR | REC_IN_INODE);
	add(6, 7000, 0, REC_DIR | REC_IN_INODE);	/* stays */
	rec[0].dest = 9000;
	rec[1].dest = 1500;
	ex_start();
	ex(100, 4, MP_K_ITABLE);
	ex(8300, 4, MP_K_ITABLE);
}

static int case_walk_dirs_after(void)
{
	moved_dirs();
	ex(7000, 1, MP_K_DIR);
	ex(9000, 1, MP_K_DIR);
	ex(1500, 1, MP_K_DIR);
	ex(2000, 1, MP_K_DIR);
	ex_bitmaps();
	return check(1);
}

static int case_walk_dirs_before(void)
{
	moved_dirs();
	ex(3000, 1, MP_K_DIR);
	ex(7000, 1, MP_K_DIR);
	ex(2000, 1, MP_K_DIR);
	ex(5000, 1, MP_K_DIR);
	ex_bitmaps();
	return check(0);
}

/*
 * e2fsck pass 1 reads an htree root (handle_htree()): inode 4, without
 * indirect blocks, as soon as its inode is; inode 5 after its IND, with
 * the batch at the group's end; after the run, where the plan puts it
 * (inode 5's root 3100 -> 9500).  Pass 2 does not read them again.
 */
static int htree_case(int after)
{
	setup(16);
	dirs[0][0] = 3000;
	dirs[0][1] = 3100;
	dirs[0][2] = 7000;
	dirs[1][0] = 2000;
	ndirs[0] = 3;
	ndirs[1] = 1;
	xr[0] = (struct mp_extra) { 3000, 4, MP_X_HTREE };
	xr[1] = (struct mp_extra) { 3100, 5, MP_X_HTREE };
	vol.nx = 2;
	add(5, 3100, 0, REC_DIR | REC_IN_INODE);
	add(5, 900, 1, REC_IN_INODE);
	rec[0].dest = after ? 9500 : 3100;
	ex_start();
	ex(100, 4, MP_K_ITABLE);
	ex(3000, 1, MP_K_DIR);
	ex(900, 1, MP_K_IND);
	ex(after ? 9500 : 3100, 1, MP_K_DIR);
	ex(8300, 4, MP_K_ITABLE);
	ex(7000, 1, MP_K_DIR);
	ex(2000, 1, MP_K_DIR);
	ex_bitmaps();
	return check(after);
}

static int case_walk_htree(void)
{
	return htree_case(0);
}

static int case_walk_htree_after(void)
{
	return htree_case(1);
}

/*
 * A slow symlink is read as its inode is; EA blocks go with the deferred
 * inodes (key 0, then by EA block), a shared one read once.
 */
static int case_walk_ea_symlink(void)
{
	setup(16);
	xr[0] = (struct mp_extra) { 4000, 3, MP_X_SYMLINK };
	xr[1] = (struct mp_extra) { 6000, 5, MP_X_EA };
	xr[2] = (struct mp_extra) { 6000, 6, MP_X_EA_AGAIN };
	xr[3] = (struct mp_extra) { 5500, 7, MP_X_EA };
	vol.nx = 4;
	add(6, 900, 1, REC_IN_INODE);
	ex_start();
	ex(100, 4, MP_K_ITABLE);
	ex(4000, 1, MP_K_OTHER);
	ex(5500, 1, MP_K_OTHER);	/* inode 7: key 0, EA 5500 */
	ex(6000, 1, MP_K_OTHER);	/* inode 5: key 0, EA 6000 */
	ex(900, 1, MP_K_IND);		/* inode 6: key 900, EA read */
	ex(8300, 4, MP_K_ITABLE);
	ex_bitmaps();
	return check(0);
}

/*
 * The journal check before pass 1: the journal inode's table block, its
 * map, its superblock; then the resize inode's DIND and reserved GDT
 * blocks.  Pass 1 does not read the journal's map again.
 */
static int case_walk_journal_resize(void)
{
	setup(16);
	vol.journal_ino = 8;
	vol.journal_sb = 600;
	vol.resize_dind = 400;
	vol.rgdt_first = 3;
	vol.rgdt_blocks = 5;
	add(8, 700, 1, REC_IN_INODE);
	add(9, 650, 1, REC_IN_INODE);
	ex_start();
	ex(101, 1, MP_K_ITABLE);	/* inode 8: block 7 * 256 / 1024 */
	ex(700, 1, MP_K_JOURNAL);
	ex(600, 1, MP_K_JOURNAL);
	ex(400, 1, MP_K_OTHER);
	ex(3, 5, MP_K_OTHER);
	ex(100, 4, MP_K_ITABLE);
	ex(650, 1, MP_K_IND);		/* inode 9 only */
	ex(8300, 4, MP_K_ITABLE);
	ex_bitmaps();
	return check(0);
}

/* --- the walk through the model kernel ------------------------------ */

#define KBLK	(4 * 32768)	/* four groups of 4 KiB blocks */

static unsigned char kcache[KBLK];
static struct mp_group_io kgio[4];
static __u64 kreq[256];
static int nkreq;

static int kfind(void *priv EXT2FS_ATTR((unused)),
		 int set EXT2FS_ATTR((unused)), int value, blk64_t start,
		 blk64_t end, blk64_t *out)
{
	for (; start <= end && start < KBLK; start++)
		if (kcache[start] == value) {
			*out = start;
			return 1;
		}
	return 0;
}

static void kmark(void *priv EXT2FS_ATTR((unused)),
		  int set EXT2FS_ATTR((unused)), blk64_t blk, __u64 count,
		  int value)
{
	for (; count-- && blk < KBLK; blk++)
		kcache[blk] = value;
}

static const struct mp_set_ops kops = { kfind, kmark };

static void ktrace(void *priv EXT2FS_ATTR((unused)), __u64 pos,
		   __u64 len EXT2FS_ATTR((unused)))
{
	if (nkreq < 256)
		kreq[nkreq++] = pos / 4096;
}

static void kgroup_io(void *priv EXT2FS_ATTR((unused)), __u32 grp,
		      struct mp_group_io *out)
{
	*out = kgio[grp];
}

static const struct mp_fsck_ops kfsck_ops = { kgroup_io, next_dir };

/*
 * Four groups of 32768 4 KiB blocks, 64-block inode tables; bitmaps and
 * tables far apart, so that no read-ahead joins them.  Group 1 has no
 * inode in use.  Runs the walk; the requests in kreq[].
 */
static int kwalk(unsigned int fsck_ra_kb, unsigned int threads)
{
	struct mp_fsck_env env = {
		.ra_kb = 128, .fsck_ra_kb = fsck_ra_kb, .threads = threads,
		.segments = 16, .cache = &kops, .trace = ktrace,
	};
	struct mp_prediction got;
	__u32 g;

	memset(&geom, 0, sizeof(geom));
	geom.blocks_per_group = 32768;
	geom.group_count = 4;
	geom.blocks_count = KBLK;
	geom.inodes_per_group = 1024;
	memset(&vol, 0, sizeof(vol));
	vol.g = &geom;
	vol.blocksize = 4096;
	vol.inode_size = 256;
	vol.span = (__u64) KBLK * 4096;
	vol.desc_first = 1;
	vol.desc_blocks = 1;
	vol.ops = &kfsck_ops;
	for (g = 0; g < 4; g++)
		kgio[g] = (struct mp_group_io) { g * 32768 + 2000, 64,
			g * 32768 + 1000, g * 32768 + 1500, g != 1 };
	ndirs[0] = ndirs[1] = 0;
	memset(kcache, 0, sizeof(kcache));
	nkreq = 0;
	EXPECT(!mp_predict_fsck(&vol, &ref, &env, NULL, 0, 0, &got),
	       "mp_predict_fsck failed");
	EXPECT(got.total_ms > 0 && got.reads == (__u64) nkreq,
	       "%g ms, %llu reads, %d traced", got.total_ms, ULL(got.reads),
	       nkreq);
	return 0;
}

/* The index of the first request at @blk from @from, or -1. */
static int kfirst(blk64_t blk, int from)
{
	for (; from < nkreq; from++)
		if (kreq[from] == blk)
			return from;
	return -1;
}

/*
 * After pass 2 the block bitmaps in group order, then the inode bitmaps
 * by two threads (groups 0-2 and 3, as ext2fs_rw_bitmaps() splits four)
 * taking turns: 0, 3, 1, 2.
 */
static int case_kwalk_bitmaps(void)
{
	static const blk64_t want[] = { 1000, 33768, 66536, 99304,
					1500, 99804, 34268, 67036 };
	int i, at;

	TRY(kwalk(0, 2));
	at = kfirst(want[0], 0);
	EXPECT(at >= 0 && at + 8 == nkreq, "bitmaps at %d of %d", at, nkreq);
	for (i = 0; i < 8; i++)
		EXPECT(kreq[at + i] == want[i], "bitmap read %d at %llu, "
		       "want %llu", i, ULL(kreq[at + i]), ULL(want[i]));
	return 0;
}

/*
 * e2fsck's read-ahead of inode tables: the first three groups' worth
 * at once (more than its readahead_kb, two tables), only those with an
 * inode in use; group 1's table is read by the scan.  Without it, every
 * table by the scan, in order.
 */
static int case_kwalk_itable_ahead(void)
{
	int t0, t2, t1;

	TRY(kwalk(2 * 64 * 4, 1));
	t0 = kfirst(2000, 0);
	t2 = kfirst(2 * 32768 + 2000, 0);
	t1 = kfirst(32768 + 2000, 0);
	EXPECT(t0 >= 0 && t2 == t0 + 1 && t1 > t2,
	       "tables 0, 2, 1 requested at %d, %d, %d", t0, t2, t1);
	TRY(kwalk(0, 1));
	t0 = kfirst(2000, 0);
	t2 = kfirst(2 * 32768 + 2000, 0);
	t1 = kfirst(32768 + 2000, 0);
	EXPECT(t0 >= 0 && t1 > t0 && t2 > t1,
	       "without: tables 0, 1, 2 at %d, %d, %d", t0, t1, t2);
	return 0;
}

int main(void)
{
	run("the reference disk", case_defaults);
	run("--disk values parsed and checked", case_parse);
	run("a sequential read costs its transfer only", case_sequential);
	run("a seek costs the square-root curve", case_seek);
	run("a short forward gap is spun by", case_spin);
	run("other parameters", case_rate);
	run("walk: fixed metadata only", case_walk_empty);
	run("walk: a batch sorted by i_block[IND], flushed at group end",
	    case_walk_batch_sorted);
	run("walk: after, at the destinations", case_walk_after);
	run("walk: batches of 256, flushed mid-table", case_walk_batch_256);
	run("walk: dir_index: first blocks first", case_walk_dir_index);
	run("walk: no dir_index: directory blocks sorted",
	    case_walk_dirs_sorted);
	run("walk: after --dirs=pack, moved directory blocks at their "
	    "destinations", case_walk_dirs_after);
	run("walk: before the run, directory blocks where they are",
	    case_walk_dirs_before);
	run("walk: htree roots in pass 1, not again in pass 2",
	    case_walk_htree);
	run("walk: after, an htree root where the plan puts it",
	    case_walk_htree_after);
	run("walk: EA blocks and slow symlinks", case_walk_ea_symlink);
	run("walk: journal check and resize inode",
	    case_walk_journal_resize);
	run("walk, kernel: bitmaps, the inode ones by threads in turns",
	    case_kwalk_bitmaps);
	run("walk, kernel: e2fsck's read-ahead of inode tables in use",
	    case_kwalk_itable_ahead);
	return unit_done();
}
