/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * stop.h --- the flag a signal sets and every stage polls (stop.c)
 */
#ifndef E3MP_STOP_H
#define E3MP_STOP_H

#include <signal.h>

/* Set by main()'s SIGINT/SIGTERM handler; the core stops at a safe point. */
extern volatile sig_atomic_t e3mp_stop;

#endif /* E3MP_STOP_H */
