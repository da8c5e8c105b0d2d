/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * emumodel.h --- the disk of bench/hddmodel.py's trace mode, in C
 *
 * The emulated disk (bench/emudisk.c) charges each request it serves
 * with this model and sleeps for the cost.  It is hddmodel.py's Disk
 * with a drive read-ahead cache and no host page cache (the kernel above
 * the emulated disk has its own): the same formulas, the same order of
 * floating-point operations, so that the two agree to rounding on the
 * same request log.  tests/unit/test_emumodel keeps them equal.
 */
#ifndef E3MP_EMUMODEL_H
#define E3MP_EMUMODEL_H

#include <stdint.h>

/* hddmodel.py's defaults (SETTLE_MS, STROKE_MS, HALF_ROT_MS, RATE, RA_KIB). */
#define EMU_SETTLE_MS	1.0
#define EMU_STROKE_MS	15.0
#define EMU_HALF_ROT_MS	4.17
#define EMU_RATE	150e6		/* bytes/s */
#define EMU_RA_KIB	512
#define EMU_MAX_SEGS	256

struct emu_seg {
	uint64_t	start, end;	/* [start, end) */
};

struct emu_model {
	double		span;		/* bytes: the image size */
	double		settle, stroke, half_rot;	/* ms */
	double		rate_per_ms;	/* bytes/ms */
	uint64_t	ra;	/* drive read-ahead per read, bytes */
	int		nseg;	/* segments kept (0: no drive cache) */
	int		used;
	/* The drive's cache, most recently used first. */
	struct emu_seg	segs[EMU_MAX_SEGS];
	uint64_t	head;	/* where the last media access ended */
	double		time, xfer;	/* ms: all; transfer only */
	uint64_t	bytes, requests, media, seeks, spins, drive_hits;
	uint64_t	writes;
};

/* A disk of SPAN bytes with hddmodel.py's physics; SEGMENTS of RA bytes. */
void emu_init(struct emu_model *m, uint64_t span, uint64_t ra_bytes,
	      int segments);
double emu_seek_ms(const struct emu_model *m, uint64_t dist);
/* Serve one request; returns its cost in ms (also added to m->time). */
double emu_request(struct emu_model *m, uint64_t pos, uint64_t len,
		   int write);

#endif
