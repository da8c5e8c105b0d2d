/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * order.h --- the write order of a run, described once (order.c)
 *
 * The run (main.c's repack()) executes it, the model of the run's time
 * (predict/predtool.c) and the undo file's bound (io/undobound.c) walk
 * it: each a switch over enum mp_step without a default, so that a step
 * one of them does not handle fails the build (-Wswitch, -Werror).
 * write/finish.c says why the order is safe; tests/unit/test_order.c
 * holds the order to it.
 */
#ifndef E3MP_ORDER_H
#define E3MP_ORDER_H

#include <ext2fs/ext2fs.h>

enum mp_step {
	MP_STEP_BEGIN = 0,	/* transaction_begin: marked not clean */
	MP_STEP_RESERVE,	/* blocks_reserve: a round's destinations */
	MP_STEP_COPY,		/* blocks_copy: its sources copied to them */
	MP_STEP_SWITCH,		/* pointers_rewrite: files point at copies */
	MP_STEP_RELEASE,	/* blocks_release: its sources freed */
	MP_STEP_BARRIER,	/* write_barrier: all before on stable storage */
	MP_STEP_STOP,		/* a signal that came stops the run here */
	MP_STEP_END		/* transaction_end: marked clean */
};

struct mp_step_at {
	enum mp_step	step;
	int		round;		/* 0 or 1; of BEGIN .. END: 0 */
};

/* Steps in an order at most: begin, 2 rounds of 7, stop, end (19). */
#define MP_ORDER_MAX	24

/*
 * The write order of a plan whose rounds move @nmv[0] and @nmv[1]
 * blocks, into @out (MP_ORDER_MAX entries); returns how many steps.
 * With @stopped, the order a run follows once a signal came at its
 * MP_STEP_STOP: the steps up to it, then round 1's release written out
 * and the volume marked clean, round 2 not run.
 */
__u32 mp_write_order(const __u32 nmv[2], int stopped,
		     struct mp_step_at *out);

/* The step's name, for messages and tests ("begin", "reserve", ...). */
const char *mp_step_name(enum mp_step step);

#endif /* E3MP_ORDER_H */
