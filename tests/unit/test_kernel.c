/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_kernel.c --- unit tests of the model kernel's page cache and
 * read-ahead (src/model/kernel.c)
 *
 * The expected requests are those the kernel of the emulated-disk bench
 * (Linux 6.18, a loop device) sent for the real e2fsck: e.g. the scan of
 * an inode table nobody had read ahead, in 8-block reads at
 * read_ahead_kb 2560, became requests of 8, 32, 125, 248, 480 and 640
 * pages (bench/realfsck's request log of aged, group 3); fadvise of a
 * 512-block table at read_ahead_kb 128 read 320 pages, its bound being
 * the loop device's 1280 KiB.  Each case drives the model with a
 * program's reads and compares the requests (joined where contiguous:
 * a window split at a bio's 256 pages is one window) with those.
 *
 * Output: one "ok N - name" or "not ok N - name: why" line per case,
 * then "1..N"; the exit status is 0 only if every case passed.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdio.h>
#include <string.h>

#include "model/kernel.h"
#include "unit.h"

#define NBLK		(1 << 20)	/* 4 GiB of 4 KiB blocks */
#define MAXREQ		256

static unsigned char cache[NBLK];

static int set_find(void *priv, int set, int value, blk64_t start,
		    blk64_t end, blk64_t *out)
{
	blk64_t b;

	(void) priv;
	(void) set;
	for (b = start; b <= end && b < NBLK; b++)
		if (cache[b] == value) {
			*out = b;
			return 1;
		}
	return 0;
}

static void set_mark(void *priv, int set, blk64_t blk, __u64 count,
		     int value)
{
	(void) priv;
	(void) set;
	if (blk < NBLK)
		memset(&cache[blk], value, blk + count <= NBLK ? count :
		       NBLK - blk);
}

static const struct mp_set_ops ops = { set_find, set_mark };
static struct mp_kernel k;
/* the requests, in pages; win[]: contiguous ones of one call joined */
static __u64 rq_pos[MAXREQ], rq_len[MAXREQ], win_pos[MAXREQ],
	win_len[MAXREQ];
static int nrq, nwin, fresh;

/* Each call of the program's starts new windows. */
static void rd(blk64_t blk, __u64 count)
{
	fresh = 1;
	mp_kern_read(&k, blk, count);
}

static void ahead(blk64_t blk, __u64 count)
{
	fresh = 1;
	mp_kern_willneed(&k, blk, count);
}

static void trace(void *priv, __u64 pos, __u64 len)
{
	(void) priv;
	if (nrq == MAXREQ)
		return;
	rq_pos[nrq] = pos / MP_PAGE_SIZE;
	rq_len[nrq] = len / MP_PAGE_SIZE;
	if (!fresh && nwin &&
	    win_pos[nwin - 1] + win_len[nwin - 1] == rq_pos[nrq])
		win_len[nwin - 1] += rq_len[nrq];
	else {
		fresh = 0;
		win_pos[nwin] = rq_pos[nrq];
		win_len[nwin++] = rq_len[nrq];
	}
	nrq++;
}

static void start(unsigned int bs, unsigned int ra_kb)
{
	struct mp_disk_params p;

	memset(cache, 0, sizeof(cache));
	mp_disk_default(&p);
	mp_kern_init(&k, &p, (__u64) NBLK * bs, bs, ra_kb, MP_DRIVE_SEGMENTS,
		     &ops, NULL);
	k.trace = trace;
	nrq = nwin = 0;
}

/* The windows since the last call are @n of @want (pages). */
static int windows(int from, const __u64 *want, int n)
{
	int i;

	EXPECT(nwin - from == n, "%d windows, want %d", nwin - from, n);
	for (i = 0; i < n; i++)
		EXPECT(win_len[from + i] == want[i],
		       "window %d: %llu pages, want %llu", i,
		       ULL(win_len[from + i]), ULL(want[i]));
	return 0;
}

/* A read far from the last one, with nothing cached near: itself only. */
static int case_random(void)
{
	start(4096, 128);
	rd(500000, 1);
	rd(100000, 1);
	EXPECT(nrq == 2 && rq_len[0] == 1 && rq_len[1] == 1,
	       "%d requests of %llu, %llu pages", nrq, ULL(rq_len[0]),
	       ULL(rq_len[1]));
	rd(100000, 1);
	EXPECT(nrq == 2, "a cached page read again: %d requests", nrq);
	return 0;
}

/* The scan of an inode table (8-block reads) at read_ahead_kb 2560. */
static int case_ramp_2560(void)
{
	static const __u64 want[] = { 8, 32, 125, 248, 480, 640 };
	blk64_t b;

	start(4096, 2560);
	rd(50000, 1);		/* elsewhere first */
	for (b = 98435; b < 98435 + 512; b += 8)
		rd(b, 8);
	TRY(windows(1, want, 6));
	EXPECT(win_pos[1] == 98435 && win_pos[6] == 99328,
	       "windows at %llu .. %llu", ULL(win_pos[1]), ULL(win_pos[6]));
	for (b = 1; b < (__u64) nrq; b++)
		EXPECT(rq_len[b] <= MP_KERN_BIO_PAGES, "a request of %llu",
		       ULL(rq_len[b]));
	return 0;
}

/*
 * ... at 128 (the kernel's trace: 98435 +8, 98443 +16, 98459 +29,
 * 98488 +24, 98512 +16, then 32 at a time).
 */
static int case_ramp_128(void)
{
	static const __u64 want[] = { 8, 16, 29, 24, 16, 32, 32, 32 };
	blk64_t b;

	start(4096, 128);
	rd(50000, 1);
	for (b = 98435; b < 98435 + 128; b += 8)
		rd(b, 8);
	TRY(windows(1, want, 8));
	return 0;
}

/* Reads from the start of the device: a window at once. */
static int case_start(void)
{
	start(4096, 128);
	rd(0, 1);
	EXPECT(nrq == 1 && rq_pos[0] == 0 && rq_len[0] == 4,
	       "%d requests, the first %llu pages", nrq, ULL(rq_len[0]));
	return 0;
}

/* fadvise reads at most max(1280 KiB, read_ahead_kb), and marks none. */
static int case_willneed(void)
{
	start(4096, 128);
	ahead(132, 512);
	EXPECT(nwin == 1 && win_pos[0] == 132 && win_len[0] == 320,
	       "at 128: %d windows, %llu pages", nwin, ULL(win_len[0]));
	rd(132, 8);
	EXPECT(nrq == 2, "reading it again: %d requests", nrq);
	start(4096, 2560);
	ahead(132, 512);
	EXPECT(nwin == 1 && win_len[0] == 512, "at 2560: %llu pages",
	       ULL(win_len[0]));
	ahead(132, 600);
	EXPECT(nwin == 2 && win_pos[1] == 644 && win_len[1] == 88,
	       "again, longer: only the pages not cached (%d, %llu)", nwin,
	       ULL(nwin > 1 ? win_len[1] : 0));
	return 0;
}

/* 1 KiB blocks: pages of 4 blocks, a page read once. */
static int case_small_blocks(void)
{
	start(1024, 128);
	rd(400001, 1);
	EXPECT(nrq == 1 && rq_pos[0] == 100000 && rq_len[0] == 1,
	       "block 400001: page %llu, %llu pages", ULL(rq_pos[0]),
	       ULL(rq_len[0]));
	rd(400003, 1);
	EXPECT(nrq == 1, "the same page: %d requests", nrq);
	EXPECT(mp_kern_cached(&k, 400000), "its first block not cached");
	return 0;
}

/*
 * One-block reads up a run (e2fsck's indirect blocks in a metacluster):
 * windows of 4, then 15, 60, 96, 128, each pushed on ending on a folio
 * of 4 times the last's pages (the kernel's trace: 98128 +1, 98129 +4,
 * 98133 +15, 98148 +60, 98208 +96, 98304 +128).
 */
static int case_stream(void)
{
	static const __u64 want[] = { 1, 4, 15, 60, 96, 128 };
	blk64_t b;

	start(4096, 2560);
	rd(50000, 1);
	for (b = 98128; b < 98304; b++)
		rd(b, 1);
	TRY(windows(1, want, 6));
	return 0;
}

int main(void)
{
	run("a random read reads its page alone, once", case_random);
	run("an inode table's scan at read_ahead_kb 2560", case_ramp_2560);
	run("... at 128", case_ramp_128);
	run("the device's start opens a window", case_start);
	run("fadvise's bound and cached pages", case_willneed);
	run("1 KiB blocks read as 4 KiB pages", case_small_blocks);
	run("one-block reads up a run: folio-rounded windows", case_stream);
	return unit_done();
}
