/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kernel.c --- the page cache and read-ahead of one open block device
 *
 * A read of pages not cached goes through page_cache_sync_ra(): at the
 * file's start, for a read bigger than the window, or right after the
 * previous read, a new window (get_init_ra_size()); else, if the pages
 * just before are cached (a stream the kernel did not see), a window the
 * size of that history; else the pages asked for alone.  A window marks
 * its first page to read ahead of (PG_readahead); a read reaching the
 * mark pushes the window on (page_cache_async_ra(), get_next_ra_size()).
 * fadvise(WILLNEED) reads what it names, at most max(io, read-ahead)
 * pages, and marks nothing.  Cached pages are skipped; each run of pages
 * to read becomes requests of at most a bio's 256 pages.  Not modelled:
 * large folios (the kernel aligns windows to them: a few pages' shift),
 * the request queue's reordering.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <string.h>


#include "model/kernel.h"

void mp_kern_init(struct mp_kernel *k, const struct mp_disk_params *p,
		  __u64 span, unsigned int blocksize, unsigned int ra_kb,
		  int segments, const struct mp_set_ops *ops, void *priv)
{
	memset(k, 0, sizeof(*k));
	mp_drive_init(&k->drive, span, (__u64) MP_DRIVE_RA_KIB * 1024,
		      segments);
	mp_drive_physics(&k->drive, p->settle_ms, p->stroke_ms,
			 p->half_rot_ms, p->mb_per_s * 1e6);
	k->ops = ops;
	k->priv = priv;
	k->blocksize = blocksize;
	k->bpp = blocksize < MP_PAGE_SIZE ? MP_PAGE_SIZE / blocksize : 1;
	k->npages = (span + MP_PAGE_SIZE - 1) / MP_PAGE_SIZE;
	k->ra_pages = (__u64) ra_kb * 1024 / MP_PAGE_SIZE;
	k->io_pages = (__u64) MP_KERN_IO_KIB * 1024 / MP_PAGE_SIZE;
	k->prev = ~0ULL;
}

static __u64 page_of(const struct mp_kernel *k, blk64_t blk)
{
	return k->blocksize <= MP_PAGE_SIZE ? blk / k->bpp :
		blk * (k->blocksize / MP_PAGE_SIZE);
}

static blk64_t first_blk(const struct mp_kernel *k, __u64 pg)
{
	return k->blocksize <= MP_PAGE_SIZE ? pg * k->bpp :
		pg / (k->blocksize / MP_PAGE_SIZE);
}

static int cached(const struct mp_kernel *k, __u64 pg)
{
	blk64_t b = first_blk(k, pg), out;

	return k->ops->find(k->priv, MP_S_CACHED, 1, b, b, &out);
}

int mp_kern_cached(const struct mp_kernel *k, blk64_t blk)
{
	return cached(k, page_of(k, blk));
}

/* Pages [pg, pg + n) go to the drive: requests of at most a bio. */
static double submit(struct mp_kernel *k, __u64 pg, __u64 n)
{
	blk64_t b = first_blk(k, pg), e = first_blk(k, pg + n);
	double ms = 0;
	__u64 len;

	k->ops->mark(k->priv, MP_S_CACHED, b, e > b ? e - b : 1, 1);
	k->pages += n;
	for (; n; pg += len, n -= len) {
		len = n < MP_KERN_BIO_PAGES ? n : MP_KERN_BIO_PAGES;
		ms += mp_drive_request(&k->drive, pg * MP_PAGE_SIZE,
				       len * MP_PAGE_SIZE, 0);
		if (k->trace)
			k->trace(k->trace_priv, pg * MP_PAGE_SIZE,
				 len * MP_PAGE_SIZE);
		k->requests++;
	}
	k->ms += ms;
	return ms;
}

static void set_mark(struct mp_kernel *k, __u64 pg)
{
	if (k->nmark == MP_KERN_MARKS)
		memmove(k->mark, k->mark + 1, --k->nmark * sizeof(k->mark[0]));
	k->mark[k->nmark++] = pg;
}

/* Clears the mark on @pg; 1 if there was one. */
static int take_mark(struct mp_kernel *k, __u64 pg)
{
	unsigned int i;

	for (i = 0; i < k->nmark; i++)
		if (k->mark[i] == pg) {
			memmove(k->mark + i, k->mark + i + 1,
				(--k->nmark - i) * sizeof(k->mark[0]));
			return 1;
		}
	return 0;
}

/*
 * page_cache_ra_unbounded(): the pages of [pg, pg + n) not cached, in
 * runs; the one @lookahead before the end gets the mark.
 */
static double read_window(struct mp_kernel *k, __u64 pg, __u64 n,
			  __u64 lookahead)
{
	__u64 i, run = 0, end, mark = lookahead && lookahead <= n ?
		pg + n - lookahead : ~0ULL;
	double ms = 0;

	end = pg + n < k->npages ? pg + n : k->npages;
	for (i = pg; i < end; i++) {
		if (cached(k, i)) {
			if (run)
				ms += submit(k, i - run, run);
			run = 0;
			continue;
		}
		if (i == mark)
			set_mark(k, i);
		run++;
	}
	if (run)
		ms += submit(k, end - run, run);
	return ms;
}

static __u64 pow2_up(__u64 n)
{
	__u64 p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

static __u64 init_size(__u64 req, __u64 max)
{
	__u64 n = pow2_up(req);

	if (n <= max / 32)
		return n * 4;
	if (n <= max / 4)
		return n * 2;
	return max;
}

static __u64 next_size(__u64 cur, __u64 max)
{
	if (cur < max / 16)
		return 4 * cur;
	if (cur <= max / 2)
		return 2 * cur;
	return max;
}

static __u64 max_pages(const struct mp_kernel *k, __u64 req)
{
	if (req > k->ra_pages && k->io_pages > k->ra_pages)
		return req < k->io_pages ? req : k->io_pages;
	return k->ra_pages;
}

/* force_page_cache_ra(): what fadvise and a disabled read-ahead read */
static double force_ra(struct mp_kernel *k, __u64 pg, __u64 n)
{
	__u64 max = k->io_pages > k->ra_pages ? k->io_pages : k->ra_pages;
	__u64 chunk;
	double ms = 0;

	if (n > max)
		n = max;
	for (; n; pg += chunk, n -= chunk) {
		chunk = n < MP_KERN_FORCE_PAGES ? n : MP_KERN_FORCE_PAGES;
		ms += read_window(k, pg, chunk, 0);
	}
	return ms;
}

/* Pages cached right before @pg, up to @max (page_cache_prev_miss()). */
static __u64 history(const struct mp_kernel *k, __u64 pg, __u64 max)
{
	__u64 n = 0;

	while (n < max && n < pg && cached(k, pg - n - 1))
		n++;
	return n;
}

static double sync_ra(struct mp_kernel *k, __u64 pg, __u64 req)
{
	__u64 max, contig;

	if (!k->ra_pages)
		return force_ra(k, pg, 1);
	k->order = 0;
	max = max_pages(k, req);
	if (!pg || req > max || pg - k->prev <= 1) {
		k->ra_start = pg;
		k->ra_size = init_size(req, max);
		k->ra_async = k->ra_size > req ? k->ra_size - req :
			k->ra_size / 2;
	} else {
		contig = history(k, pg, max);
		if (contig <= req)
			return read_window(k, pg, req, 0);
		if (contig == pg)	/* cached from the device's start */
			contig *= 2;
		k->ra_start = pg;
		k->ra_size = contig + req < max ? contig + req : max;
		k->ra_async = 1;
	}
	return read_window(k, k->ra_start, k->ra_size, k->ra_async);
}

static unsigned int ilog2(__u64 n)
{
	unsigned int l = 0;

	while (n >>= 1)
		l++;
	return l;
}

/*
 * Each window pushed on takes folios of 4 times the pages of the last
 * (at most the window's size, or 128 pages), and ends where one ends.
 */
static void fold(struct mp_kernel *k)
{
	unsigned int o = k->order + 2;
	__u64 end;

	o = o < ilog2(k->ra_size) ? o : ilog2(k->ra_size);
	k->order = o < MP_KERN_MAX_ORDER ? o : MP_KERN_MAX_ORDER;
	end = (k->ra_start + k->ra_size) & ~((1ULL << k->order) - 1);
	if (end > k->ra_start)
		k->ra_size = end - k->ra_start;
}

static double async_ra(struct mp_kernel *k, __u64 pg, __u64 req)
{
	__u64 max = max_pages(k, req), start;

	if (!k->ra_pages)
		return 0;
	if (pg == k->ra_start + k->ra_size - k->ra_async) {
		k->ra_start += k->ra_size;
		start = next_size(k->ra_size, max);
		k->ra_size = start > k->ra_size ? start : k->ra_size;
	} else {
		/* a mark without the state: the cached run ahead sizes it */
		for (start = pg + 1; start < k->npages &&
		     start - pg <= max && cached(k, start); start++)
			;
		if (start - pg > max)
			return 0;
		k->ra_start = start;
		k->ra_size = next_size(start - pg + req, max);
	}
	fold(k);
	k->ra_async = k->ra_size;
	return read_window(k, k->ra_start, k->ra_size, k->ra_async);
}

double mp_kern_read(struct mp_kernel *k, blk64_t blk, __u64 count)
{
	__u64 pg = page_of(k, blk);
	__u64 last = page_of(k, blk + (count ? count : 1) - 1) + 1;
	double ms = 0;

	while (pg < last) {
		if (!cached(k, pg)) {
			ms += sync_ra(k, pg, last - pg);
			if (!cached(k, pg))	/* (past the device's end) */
				ms += submit(k, pg, 1);
		}
		/* the cached pages from here: a mark ends the batch */
		for (; pg < last && cached(k, pg); pg++)
			if (k->nmark && take_mark(k, pg)) {
				ms += async_ra(k, pg, last - pg);
				pg++;
				break;
			}
	}
	/* ra->prev_pos: the byte after the read */
	k->prev = (blk + count) * k->blocksize / MP_PAGE_SIZE;
	return ms;
}

double mp_kern_willneed(struct mp_kernel *k, blk64_t blk, __u64 count)
{
	__u64 pg = page_of(k, blk);

	return force_ra(k, pg, page_of(k, blk + count - 1) + 1 - pg);
}
