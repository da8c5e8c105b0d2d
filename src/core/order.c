/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * order.c --- the write order of a run, described once
 *
 *   begin                 mark not clean                      barrier
 *   per round with moves (evacuations, then the metacluster fills):
 *     reserve, copy       destinations in use, sources copied  barrier
 *     switch              files point at the copies            barrier
 *     release             sources freed                        barrier
 *                         (round 1's: with round 2's first barrier,
 *                         when round 2 follows; a signal that came
 *                         stops the run there: barrier, end, barrier)
 *   end                   mark clean                          barrier
 *
 * write/finish.c says why: at every barrier the volume is consistent,
 * and the clean mark never shares a barrier with a release.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "core/order.h"

static void put(struct mp_step_at *out, __u32 *n, enum mp_step step,
		int round)
{
	out[*n].step = step;
	out[*n].round = round;
	++*n;
}

/* Round @r's steps; its release's barrier only when @last. */
static void round_steps(struct mp_step_at *out, __u32 *n, int r, int last)
{
	put(out, n, MP_STEP_RESERVE, r);
	put(out, n, MP_STEP_COPY, r);
	put(out, n, MP_STEP_BARRIER, r);
	put(out, n, MP_STEP_SWITCH, r);
	put(out, n, MP_STEP_BARRIER, r);
	put(out, n, MP_STEP_RELEASE, r);
	if (last)
		put(out, n, MP_STEP_BARRIER, r);
}

__u32 mp_write_order(const __u32 nmv[2], int stopped,
		     struct mp_step_at *out)
{
	__u32 n = 0;

	put(out, &n, MP_STEP_BEGIN, 0);
	put(out, &n, MP_STEP_BARRIER, 0);
	if (nmv[0])
		round_steps(out, &n, 0, !nmv[1]);
	if (nmv[1]) {
		put(out, &n, MP_STEP_STOP, 0);
		if (stopped) {
			put(out, &n, MP_STEP_BARRIER, 0);
			put(out, &n, MP_STEP_END, 0);
			put(out, &n, MP_STEP_BARRIER, 0);
			return n;
		}
		round_steps(out, &n, 1, 1);
	}
	put(out, &n, MP_STEP_END, 0);
	put(out, &n, MP_STEP_BARRIER, 0);
	return n;
}

const char *mp_step_name(enum mp_step step)
{
	static const char *const name[] = {
		[MP_STEP_BEGIN] = "begin",
		[MP_STEP_RESERVE] = "reserve",
		[MP_STEP_COPY] = "copy",
		[MP_STEP_SWITCH] = "switch",
		[MP_STEP_RELEASE] = "release",
		[MP_STEP_BARRIER] = "barrier",
		[MP_STEP_STOP] = "stop",
		[MP_STEP_END] = "end",
	};

	return name[step];
}
