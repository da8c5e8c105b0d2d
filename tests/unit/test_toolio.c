/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_toolio.c --- unit tests of the replay of the tool's own requests
 * (src/model/toolio.c) on the model disk
 *
 * Each case issues a few reads, writes and syncs and checks what reached
 * the disk against a second model disk driven by hand with the requests
 * bench/hddmodel.py's strace replay would make: the page cache serves a
 * block read or written before, a sync writes each dirty block once in
 * block order, a kick does the same once its lag has passed, and the
 * undo manager reads a whole unit before the first write into it.
 *
 * Output: one "ok N - name" or "not ok N - name: why" line per case,
 * then "1..N"; the exit status is 0 only if every case passed.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/disk.h"
#include "unit.h"

#define NEAR(a, b)	(fabs((a) - (b)) < 1e-9 * (1 + fabs(b)))
#define NBLK		4096

/* The block sets, one byte per block. */
static unsigned char sets[MP_S_COUNT][NBLK];

static int set_find(void *priv, int set, int value, blk64_t start,
		    blk64_t end, blk64_t *out)
{
	blk64_t b;

	(void) priv;
	for (b = start; b <= end; b++)
		if (sets[set][b] == value) {
			*out = b;
			return 1;
		}
	return 0;
}

static void set_mark(void *priv, int set, blk64_t blk, __u64 count,
		     int value)
{
	(void) priv;
	memset(&sets[set][blk], value, count);
}

static const struct mp_set_ops ops = { set_find, set_mark };
static struct mp_disk_params ref;
static struct mp_toolio t;
static struct mp_disk want;	/* the same disk, driven by hand */

static void start(blk64_t nblocks, __u32 unit, __u32 skew)
{
	memset(sets, 0, sizeof(sets));
	mp_disk_default(&ref);
	mp_toolio_init(&t, &ref, nblocks, 4096, unit, skew, &ops, NULL);
	mp_disk_init(&want, &ref, nblocks * 4096, 4096);
}

static int same(void)
{
	EXPECT(NEAR(t.read_ms + t.write_ms, want.ms),
	       "time %.6f ms, want %.6f", t.read_ms + t.write_ms, want.ms);
	EXPECT(t.reads + t.writes == want.reads, "%llu requests, want %llu",
	       ULL(t.reads + t.writes), ULL(want.reads));
	EXPECT(t.d.seeks == want.seeks, "%llu seeks, want %llu",
	       ULL(t.d.seeks), ULL(want.seeks));
	return 0;
}

static int case_cached(void)
{
	start(NBLK, 0, 0);
	mp_toolio_read(&t, 1000, 10);
	mp_toolio_read(&t, 1002, 4);	/* all cached */
	mp_toolio_read(&t, 5, 1);
	mp_toolio_read(&t, 0, 10);	/* around block 5 */
	mp_disk_read(&want, 1000, 10);
	mp_disk_read(&want, 5, 1);
	mp_disk_read(&want, 0, 5);
	mp_disk_read(&want, 6, 4);
	TRY(same());
	EXPECT(t.read_blocks == 20, "%llu blocks read, want 20",
	       ULL(t.read_blocks));
	EXPECT(t.write_ms == 0, "no write, yet %.3f ms", t.write_ms);
	return 0;
}

static int case_writeback(void)
{
	start(NBLK, 0, 0);
	mp_toolio_read(&t, 2000, 1);
	mp_toolio_write(&t, 3000, 1);
	mp_toolio_write(&t, 10, 2);
	mp_toolio_write(&t, 500, 1);
	mp_toolio_write(&t, 10, 1);	/* again: written once */
	EXPECT(t.write_ms == 0 && t.writes == 0,
	       "writes cost before the sync: %.3f ms", t.write_ms);
	mp_toolio_sync(&t);
	mp_toolio_sync(&t);		/* nothing left */
	mp_toolio_read(&t, 500, 1);	/* in the page cache */
	mp_disk_read(&want, 2000, 1);
	mp_disk_read(&want, 10, 2);
	mp_disk_read(&want, 500, 1);
	mp_disk_read(&want, 3000, 1);
	TRY(same());
	EXPECT(t.writes == 3 && t.write_blocks == 4,
	       "%llu writes of %llu blocks, want 3 of 4", ULL(t.writes),
	       ULL(t.write_blocks));
	EXPECT(t.syncs == 2, "%llu syncs", ULL(t.syncs));
	return 0;
}

static int case_neighbours(void)
{
	start(NBLK, 0, 0);
	mp_toolio_write(&t, 101, 1);
	mp_toolio_write(&t, 100, 1);
	mp_toolio_write(&t, 102, 3);
	mp_toolio_sync(&t);
	mp_disk_read(&want, 100, 5);
	TRY(same());
	EXPECT(t.writes == 1, "%llu writes, want one run", ULL(t.writes));
	return 0;
}

static int case_undo_unit(void)
{
	start(NBLK, 8, 0);
	mp_toolio_read(&t, 12, 1);
	mp_toolio_write(&t, 13, 1);	/* reads 8..15, less 12 */
	mp_toolio_write(&t, 14, 1);	/* same unit: saved */
	mp_toolio_write(&t, 15, 3);	/* 16..23 too */
	mp_toolio_sync(&t);
	mp_disk_read(&want, 12, 1);
	mp_disk_read(&want, 8, 4);
	mp_disk_read(&want, 13, 3);
	mp_disk_read(&want, 16, 8);
	mp_disk_read(&want, 13, 5);
	TRY(same());
	EXPECT(t.read_blocks == 16, "%llu blocks read, want 16",
	       ULL(t.read_blocks));
	return 0;
}

static int case_undo_skew(void)
{
	start(20, 8, 3);
	mp_toolio_write(&t, 13, 1);	/* unit 13..20, clipped to 19 */
	mp_toolio_write(&t, 4, 1);	/* the first unit: 0..4 */
	mp_toolio_write(&t, 2, 1);	/* saved with it */
	mp_toolio_write(&t, 6, 1);	/* unit 5..12 */
	mp_disk_read(&want, 13, 7);
	mp_disk_read(&want, 0, 5);
	mp_disk_read(&want, 5, 8);
	TRY(same());
	return 0;
}

static int case_unit_bounds(void)
{
	__u32 n;
	blk64_t f;

	f = mp_undo_unit_first(13, 8, 0, &n);
	EXPECT(f == 8 && n == 8, "13 in 8-block units: %llu+%u",
	       ULL(f), n);
	f = mp_undo_unit_first(13, 8, 3, &n);
	EXPECT(f == 13 && n == 8, "13, offset 3: %llu+%u", ULL(f), n);
	f = mp_undo_unit_first(4, 8, 3, &n);
	EXPECT(f == 0 && n == 5, "4, offset 3: %llu+%u", ULL(f), n);
	f = mp_undo_unit_first(5, 8, 3, &n);
	EXPECT(f == 5 && n == 8, "5, offset 3: %llu+%u", ULL(f), n);
	return 0;
}

static int case_read_unit(void)
{
	start(NBLK, 8, 0);
	mp_toolio_read_unit(&t, 13);	/* 8..15 */
	mp_toolio_write(&t, 14, 1);	/* its save: all in the cache */
	mp_toolio_sync(&t);
	mp_disk_read(&want, 8, 8);
	mp_disk_read(&want, 14, 1);
	TRY(same());
	start(NBLK, 0, 0);
	mp_toolio_read_unit(&t, 13);	/* no undo file: the block alone */
	mp_disk_read(&want, 13, 1);
	TRY(same());
	return 0;
}

/*
 * A kick's writes wait MP_TOOLIO_KICK_LAG_MS of the disk's time: the
 * reads within it go first, the reads after it find the writes gone out
 * ahead of them (one request for the neighbours two kicks dirtied).
 */
static int case_kick_lag(void)
{
	start(NBLK, 0, 0);
	mp_toolio_write(&t, 100, 1);
	mp_toolio_kick(&t);
	mp_toolio_write(&t, 101, 1);
	mp_toolio_kick(&t);		/* joins the first */
	mp_toolio_read(&t, 2000, 1);	/* within the lag: first */
	EXPECT(t.writes == 0, "%llu writes within the lag", ULL(t.writes));
	mp_disk_read(&want, 2000, 1);
	while (want.ms < MP_TOOLIO_KICK_LAG_MS) {
		/* reads forward in one stream, until the lag is over */
		mp_toolio_read(&t, 2000 + want.reads, 1);
		mp_disk_read(&want, 2000 + want.reads, 1);
	}
	mp_toolio_read(&t, 3000, 1);	/* after the lag: writes first */
	mp_disk_read(&want, 100, 2);
	mp_disk_read(&want, 3000, 1);
	TRY(same());
	EXPECT(t.writes == 1 && t.syncs == 0,
	       "%llu writes, %llu syncs: want one write, no sync",
	       ULL(t.writes), ULL(t.syncs));
	return 0;
}

/* A sync writes what a kick left pending at once; a read then waits not. */
static int case_kick_sync(void)
{
	start(NBLK, 0, 0);
	mp_toolio_write(&t, 50, 1);
	mp_toolio_kick(&t);
	mp_toolio_sync(&t);
	mp_toolio_read(&t, 10, 1);
	mp_toolio_write(&t, 60, 1);	/* no kick: waits for a sync */
	mp_toolio_read(&t, 3000, 1);
	mp_disk_read(&want, 50, 1);
	mp_disk_read(&want, 10, 1);
	mp_disk_read(&want, 3000, 1);
	TRY(same());
	EXPECT(t.kick_due < 0, "a kick still pending after the sync");
	return 0;
}

static int case_no_undo(void)
{
	start(NBLK, 0, 0);
	mp_toolio_write(&t, 13, 1);
	mp_toolio_sync(&t);
	mp_disk_read(&want, 13, 1);
	TRY(same());
	EXPECT(t.reads == 0, "%llu reads without an undo file",
	       ULL(t.reads));
	return 0;
}

int main(void)
{
	run("a read the page cache holds costs nothing", case_cached);
	run("writes wait for the sync, then go out once in block order",
	    case_writeback);
	run("neighbouring dirty blocks go out as one request",
	    case_neighbours);
	run("undo: a unit is read whole before its first write",
	    case_undo_unit);
	run("undo: units follow the partition offset, clipped at the end",
	    case_undo_skew);
	run("undo: the unit holding a block, cut at block 0",
	    case_unit_bounds);
	run("undo: a unit read whole spares its save a read",
	    case_read_unit);
	run("no undo file: a write reads nothing", case_no_undo);
	run("kick: writes go out after the lag, before the next read",
	    case_kick_lag);
	run("kick: a sync writes what a kick left pending", case_kick_sync);
	return unit_done();
}
