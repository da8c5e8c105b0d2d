/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * disk.c --- the model HDD of bench/hddmodel.py, in C
 *
 * After Ruemmler and Wilkes, "An introduction to disk drive modeling"
 * (IEEE Computer, 1994).  The disk is a line of bytes as long as the
 * volume.  A read that starts where the last one ended costs its
 * transfer only; any other pays a positioning time first,
 *	seek(d) = SETTLE + (STROKE - SETTLE) * sqrt(d / SPAN) + HALF_ROT,
 * except that a forward gap may instead be spun by (gap / RATE) when that
 * is cheaper.  No drive cache: hddmodel.py's fsck replay has none.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "model/disk.h"

void mp_disk_default(struct mp_disk_params *p)
{
	p->settle_ms = MP_DISK_SETTLE_MS;
	p->stroke_ms = MP_DISK_STROKE_MS;
	p->half_rot_ms = MP_DISK_HALF_ROT_MS;
	p->mb_per_s = MP_DISK_MB_PER_S;
}

int mp_disk_is_default(const struct mp_disk_params *p)
{
	return p->settle_ms == MP_DISK_SETTLE_MS &&
	       p->stroke_ms == MP_DISK_STROKE_MS &&
	       p->half_rot_ms == MP_DISK_HALF_ROT_MS &&
	       p->mb_per_s == MP_DISK_MB_PER_S;
}

static int parse_ms(const char **s, char stop, double max, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(*s, &end);
	if (errno || end == *s || *end != stop || !(*out >= 0) ||
	    *out > max)
		return 1;
	*s = end + (stop != 0);
	return 0;
}

/*
 * "SETTLE_MS,STROKE_MS,HALF_ROT_MS,MB_PER_S": times in ms (0 to 1000,
 * the settle no longer than the full stroke), the rate in MB/s (above 0,
 * up to 100000).
 */
errcode_t mp_disk_parse(const char *s, struct mp_disk_params *p)
{
	struct mp_disk_params q;

	if (parse_ms(&s, ',', 1000, &q.settle_ms) ||
	    parse_ms(&s, ',', 1000, &q.stroke_ms) ||
	    parse_ms(&s, ',', 1000, &q.half_rot_ms) ||
	    parse_ms(&s, 0, 100000, &q.mb_per_s) ||
	    q.settle_ms > q.stroke_ms || q.mb_per_s <= 0)
		return EINVAL;
	*p = q;
	return 0;
}

void mp_disk_init(struct mp_disk *d, const struct mp_disk_params *p,
		  __u64 span, unsigned int blocksize)
{
	d->p = *p;
	d->span = span ? (double) span : 1.0;
	d->blocksize = blocksize;
	d->head = 0;
	d->ms = 0;
	d->reads = d->seeks = d->blocks = 0;
}

double mp_disk_seek_ms(const struct mp_disk *d, __u64 dist)
{
	double x = dist < d->span ? dist / d->span : 1.0;

	return d->p.settle_ms + (d->p.stroke_ms - d->p.settle_ms) * sqrt(x) +
	       d->p.half_rot_ms;
}

/* Read @count blocks from @blk; returns what it cost, in ms. */
double mp_disk_read(struct mp_disk *d, blk64_t blk, __u64 count)
{
	double per_ms = d->p.mb_per_s * 1000.0;	/* bytes per ms */
	__u64 pos = blk * d->blocksize, len = count * d->blocksize;
	double ms = len / per_ms, pos_ms = 0;

	if (!count)
		return 0;
	if (pos != d->head) {
		__u64 dist = pos > d->head ? pos - d->head : d->head - pos;
		double spin = dist / per_ms;

		pos_ms = mp_disk_seek_ms(d, dist);
		if (pos > d->head && spin < pos_ms)
			pos_ms = spin;
		else
			d->seeks++;
	}
	d->head = pos + len;
	d->reads++;
	d->blocks += count;
	d->ms += pos_ms + ms;
	return pos_ms + ms;
}
