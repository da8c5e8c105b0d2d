/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_order.c --- unit tests of the write order (src/core/order.c)
 *
 * The run (main.c's repack()), the model of its time (predtool.c) and
 * the undo bound (undobound.c) all walk mp_write_order(): a change to
 * it changes the three at once, and shows here first.  The literal
 * orders below are the ones write/finish.c argues safe; the rules after
 * them are that argument's: a barrier between a round's copies and its
 * switch, and between the switch and its release; the clean mark never
 * in one barrier with a release; the order a signal ends the same as
 * the whole one up to the signal.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <string.h>

#include "core/order.h"
#include "unit.h"

/* The order for @n0, @n1 moves as words: "begin barrier reserve0 ...". */
static const char *render(__u32 n0, __u32 n1, int stopped)
{
	static char buf[1024];
	struct mp_step_at s[MP_ORDER_MAX];
	__u32 nmv[2] = { n0, n1 }, n, i;
	size_t len = 0;

	n = mp_write_order(nmv, stopped, s);
	buf[0] = 0;
	for (i = 0; i < n; i++) {
		enum mp_step k = s[i].step;
		int round = k == MP_STEP_RESERVE || k == MP_STEP_COPY ||
			    k == MP_STEP_SWITCH || k == MP_STEP_RELEASE;

		len += snprintf(buf + len, sizeof(buf) - len, "%s%s",
				i ? " " : "", mp_step_name(k));
		if (round)
			len += snprintf(buf + len, sizeof(buf) - len, "%d",
					s[i].round + 1);
	}
	return buf;
}

#define ROUND(r) "reserve" #r " copy" #r " barrier switch" #r \
		 " barrier release" #r

static int literal_orders(void)
{
	static const struct {
		__u32 n0, n1;
		int stopped;
		const char *want;
	} t[] = {
		{ 0, 0, 0, "begin barrier end barrier" },
		{ 5, 0, 0, "begin barrier " ROUND(1) " barrier end barrier" },
		{ 5, 3, 0, "begin barrier " ROUND(1) " stop " ROUND(2)
			   " barrier end barrier" },
		{ 0, 3, 0, "begin barrier stop " ROUND(2)
			   " barrier end barrier" },
		{ 5, 3, 1, "begin barrier " ROUND(1)
			   " stop barrier end barrier" },
		{ 5, 0, 1, "begin barrier " ROUND(1) " barrier end barrier" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const char *got = render(t[i].n0, t[i].n1, t[i].stopped);

		EXPECT(!strcmp(got, t[i].want),
		       "moves %u+%u%s:\n#   got  %s\n#   want %s",
		       t[i].n0, t[i].n1, t[i].stopped ? ", stopped" : "",
		       got, t[i].want);
	}
	return 0;
}

/* The rules of finish.c over one order. */
static int rules_hold(const struct mp_step_at *s, __u32 n, const char *what)
{
	int copied[2] = { 0 }, switched[2] = { 0 }, released = 0;
	int since_barrier = 0;
	__u32 i;

	EXPECT(n >= 4 && n <= MP_ORDER_MAX, "%s: %u steps", what, n);
	EXPECT(s[0].step == MP_STEP_BEGIN && s[1].step == MP_STEP_BARRIER,
	       "%s: does not begin with begin, barrier", what);
	EXPECT(s[n - 2].step == MP_STEP_END &&
	       s[n - 1].step == MP_STEP_BARRIER,
	       "%s: does not end with end, barrier", what);
	for (i = 0; i < n; i++) {
		int r = s[i].round;

		switch (s[i].step) {
		case MP_STEP_SWITCH:
			EXPECT(copied[r] == 2, "%s: step %u: switch %d "
			       "without a barrier after its copies", what, i,
			       r + 1);
			switched[r] = 1;
			break;
		case MP_STEP_RELEASE:
			EXPECT(switched[r] == 2, "%s: step %u: release %d "
			       "without a barrier after its switch", what, i,
			       r + 1);
			released = 1;
			break;
		case MP_STEP_COPY:
			copied[r] = 1;
			break;
		case MP_STEP_END:
			EXPECT(!released, "%s: step %u: the clean mark in one "
			       "barrier with a release", what, i);
			break;
		case MP_STEP_BARRIER:
			EXPECT(since_barrier, "%s: step %u: two barriers in a "
			       "row", what, i);
			copied[0] += copied[0] == 1;
			copied[1] += copied[1] == 1;
			switched[0] += switched[0] == 1;
			switched[1] += switched[1] == 1;
			released = 0;
			break;
		case MP_STEP_BEGIN:
		case MP_STEP_RESERVE:
		case MP_STEP_STOP:
			break;
		}
		since_barrier = s[i].step != MP_STEP_BARRIER;
	}
	return 0;
}

static int rules_of_finish(void)
{
	static const __u32 counts[] = { 0, 1, 7 };
	struct mp_step_at s[MP_ORDER_MAX], t[MP_ORDER_MAX];
	unsigned int a, b;
	char what[64];

	for (a = 0; a < 3; a++)
		for (b = 0; b < 3; b++) {
			__u32 nmv[2] = { counts[a], counts[b] }, n, m, i;

			snprintf(what, sizeof(what), "moves %u+%u", nmv[0],
				 nmv[1]);
			n = mp_write_order(nmv, 0, s);
			TRY(rules_hold(s, n, what));
			m = mp_write_order(nmv, 1, t);
			strcat(what, ", stopped");
			TRY(rules_hold(t, m, what));
			for (i = 0; i < n && s[i].step != MP_STEP_STOP; i++)
				EXPECT(i < m && s[i].step == t[i].step &&
				       s[i].round == t[i].round,
				       "%s: differs from the whole order at "
				       "step %u", what, i);
			EXPECT(nmv[1] || m == n, "%s: a stop without round 2",
			       what);
		}
	return 0;
}

int main(void)
{
	run("the write order, literally, with and without round 2 and a "
	    "signal", literal_orders);
	run("finish.c's rules hold for every order; a signal's order is the "
	    "whole one up to it", rules_of_finish);
	return unit_done();
}
