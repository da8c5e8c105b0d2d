/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * drive.c --- hddmodel.py's trace-mode disk (Disk._disk_read), in C
 *
 * Kept line for line with bench/hddmodel.py: a change to one is a change
 * to the other, and tests/unit/test_emumodel compares their totals on a
 * recorded request log.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <math.h>
#include <string.h>

#include "model/drive.h"
#include "model/model.h"


void mp_drive_init(struct mp_drive *m, uint64_t span, uint64_t ra_bytes,
		   int segments)
{
	memset(m, 0, sizeof(*m));
	m->span = span ? (double)span : 1.0;
	mp_drive_physics(m, MP_DISK_SETTLE_MS, MP_DISK_STROKE_MS,
			 MP_DISK_HALF_ROT_MS, MP_DISK_MB_PER_S * 1e6);
	m->ra = ra_bytes;
	if (segments > MP_DRIVE_MAX_SEGS)
		segments = MP_DRIVE_MAX_SEGS;
	m->nseg = ra_bytes > 0 && segments > 0 ? segments : 0;
}

void mp_drive_physics(struct mp_drive *m, double settle, double stroke,
		      double half_rot, double rate)
{
	m->settle = settle;
	m->stroke = stroke;
	m->half_rot = half_rot;
	m->rate_per_ms = rate / 1000.0;
}

double mp_drive_seek_ms(const struct mp_drive *m, uint64_t dist)
{
	double d = (double)dist < m->span ? (double)dist : m->span;

	return m->settle + (m->stroke - m->settle) * sqrt(d / m->span) +
		m->half_rot;
}

/* Move segment I to the front (a drive cache hit). */
static void seg_touch(struct mp_drive *m, int i)
{
	struct mp_drive_seg s = m->segs[i];

	memmove(&m->segs[1], &m->segs[0], i * sizeof(s));
	m->segs[0] = s;
}

/*
 * Drop the segments [pos, end) makes stale: on a write, those it
 * overlaps; on a read, also the one whose stream it continues (its start
 * inside a segment, or at its end).
 */
static void seg_drop(struct mp_drive *m, uint64_t pos, uint64_t end,
		     int write)
{
	int i, n = 0;

	for (i = 0; i < m->used; i++) {
		const struct mp_drive_seg *s = &m->segs[i];
		int overlap = pos < s->end && s->start < end;

		if (overlap || (!write && s->start <= pos && pos <= s->end))
			continue;
		m->segs[n++] = *s;
	}
	m->used = n;
}

/* A request wholly inside a segment, off the head's stream: a hit. */
static int seg_lookup(struct mp_drive *m, uint64_t pos, uint64_t len)
{
	int i;

	if (m->head <= pos && pos <= m->head + m->ra)
		return -1;
	for (i = 0; i < m->used; i++)
		if (m->segs[i].start <= pos && pos + len <= m->segs[i].end)
			return i;
	return -1;
}

static double position_ms(struct mp_drive *m, uint64_t pos)
{
	uint64_t d;
	double ms, spin;

	if (pos == m->head)
		return 0.0;
	d = pos > m->head ? pos - m->head : m->head - pos;
	ms = mp_drive_seek_ms(m, d);
	if (pos > m->head) {
		spin = (double)d / m->rate_per_ms;
		if (spin < ms) {
			m->spins++;
			return spin;
		}
	}
	m->seeks++;
	return ms;
}

double mp_drive_request(struct mp_drive *m, uint64_t pos, uint64_t len,
			int write)
{
	double xfer = (double)len / m->rate_per_ms, cost;
	uint64_t end = pos + len;
	int i;

	m->requests++;
	m->writes += !!write;
	m->bytes += len;
	m->xfer += xfer;
	if (m->nseg && !write && (i = seg_lookup(m, pos, len)) >= 0) {
		/* Transfer only; the head stays where it is. */
		seg_touch(m, i);
		m->drive_hits++;
		m->time += xfer;
		return xfer;
	}
	m->media++;
	cost = position_ms(m, pos) + xfer;
	m->time += cost;
	m->head = end;
	if (!m->nseg)
		return cost;
	seg_drop(m, pos, end, write);
	if (!write) {
		/* Keep the bytes that follow this read, most recent first. */
		if (m->used == m->nseg)
			m->used--;
		memmove(&m->segs[1], &m->segs[0], m->used * sizeof(m->segs[0]));
		m->segs[0].start = end;
		m->segs[0].end = end + m->ra;
		m->used++;
	}
	return cost;
}
