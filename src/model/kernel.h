/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kernel.h --- the kernel's page cache and read-ahead between a program
 * and the model drive
 *
 * e2fsck reads a block device with pread() and posix_fadvise(): the
 * kernel turns that into block requests of whole 4 KiB pages, reads
 * ahead past every read that looks sequential (up to read_ahead_kb),
 * reads what fadvise names at once, and never reads a cached page again.
 * kernel.c follows mm/readahead.c (Linux 6.x: page_cache_sync_ra(),
 * page_cache_async_ra(), force_page_cache_ra()) closely enough that the
 * requests it sends drive.c are the ones bench/emudisk logs for the
 * real e2fsck, to within large-folio alignment.  The cached pages live
 * behind mp_set_ops (set MP_S_CACHED, in blocks), so the unit tests keep
 * them in arrays and the tool in a libext2fs bitmap.
 */
#ifndef E3MP_KERNEL_H
#define E3MP_KERNEL_H

#include "model/disk.h"
#include "model/drive.h"

#define MP_PAGE_SIZE		4096
/* The loop device's max_sectors_kb: fadvise's bound beside read_ahead_kb */
#define MP_KERN_IO_KIB		1280
/* A bio's 256 pages: the largest request */
#define MP_KERN_BIO_PAGES	256
/* force_page_cache_ra()'s chunk: 2 MiB */
#define MP_KERN_FORCE_PAGES	512
/* The largest folio read-ahead allocates: 2^7 pages (512 KiB) */
#define MP_KERN_MAX_ORDER	7
/* read-ahead marks outstanding (the kernel keeps one per window) */
#define MP_KERN_MARKS		8

struct mp_kernel {
	struct mp_drive		drive;
	const struct mp_set_ops	*ops;
	void			*priv;
	unsigned int		blocksize;
	unsigned int		bpp;		/* blocks per page */
	__u64			npages;
	__u64			ra_pages, io_pages;
	/* struct file_ra_state of the one open file */
	__u64			ra_start, ra_size, ra_async;
	unsigned int		order;		/* of the window's folios */
	__u64			prev;		/* page after the last read */
	__u64			mark[MP_KERN_MARKS];	/* PG_readahead */
	unsigned int		nmark;
	double			ms;		/* busy time so far */
	__u64			requests, pages;
	/* each request, as it goes to the drive (NULL: none) */
	void			(*trace)(void *priv, __u64 pos, __u64 len);
	void			*trace_priv;
};

void mp_kern_init(struct mp_kernel *k, const struct mp_disk_params *p,
		  __u64 span, unsigned int blocksize, unsigned int ra_kb,
		  int segments, const struct mp_set_ops *ops, void *priv);
/* pread() of @count blocks at @blk; returns the busy time it added. */
double mp_kern_read(struct mp_kernel *k, blk64_t blk, __u64 count);
/* posix_fadvise(POSIX_FADV_WILLNEED) of @count blocks at @blk. */
double mp_kern_willneed(struct mp_kernel *k, blk64_t blk, __u64 count);
int mp_kern_cached(const struct mp_kernel *k, blk64_t blk);

#endif /* E3MP_KERNEL_H */
