/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * drive.h --- the disk of bench/hddmodel.py's trace mode, in C
 *
 * The emulated disk (bench/emudisk.c) charges each request it serves
 * with this model and sleeps for the cost; the prediction of the real
 * e2fsck (kernel.c) sends it the requests the kernel would.  It is
 * hddmodel.py's Disk with a drive read-ahead cache and no host page
 * cache (the kernel above the disk has its own): the same formulas, the
 * same order of floating-point operations, so that the two agree to
 * rounding on the same request log.  tests/unit/test_emumodel keeps
 * them equal.  No libext2fs here: bench/emudisk links this file alone.
 */
#ifndef E3MP_DRIVE_H
#define E3MP_DRIVE_H

#include <stdint.h>

/* The drive's read-ahead cache: hddmodel.py's RA_KIB and segments. */
#define MP_DRIVE_RA_KIB		512
#define MP_DRIVE_SEGMENTS	16
#define MP_DRIVE_MAX_SEGS	256

struct mp_drive_seg {
	uint64_t	start, end;	/* [start, end) */
};

struct mp_drive {
	double		span;		/* bytes: the image size */
	double		settle, stroke, half_rot;	/* ms */
	double		rate_per_ms;	/* bytes/ms */
	uint64_t	ra;	/* drive read-ahead per read, bytes */
	int		nseg;	/* segments kept (0: no drive cache) */
	int		used;
	/* The drive's cache, most recently used first. */
	struct mp_drive_seg	segs[MP_DRIVE_MAX_SEGS];
	uint64_t	head;	/* where the last media access ended */
	double		time, xfer;	/* ms: all; transfer only */
	uint64_t	bytes, requests, media, seeks, spins, drive_hits;
	uint64_t	writes;
};

/*
 * A disk of SPAN bytes with hddmodel.py's physics (model.h's reference
 * disk; mp_drive_physics() sets another: ms, ms, ms, bytes/s); SEGMENTS
 * of RA bytes of drive cache.
 */
void mp_drive_init(struct mp_drive *m, uint64_t span, uint64_t ra_bytes,
		   int segments);
void mp_drive_physics(struct mp_drive *m, double settle, double stroke,
		      double half_rot, double rate);
double mp_drive_seek_ms(const struct mp_drive *m, uint64_t dist);
/* Serve one request; returns its cost in ms (also added to m->time). */
double mp_drive_request(struct mp_drive *m, uint64_t pos, uint64_t len,
			int write);

#endif
