/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * stop.c --- the flag a signal sets and every stage polls
 *
 * Defined below every stage, so that a stage that polls it (the scan
 * between batches, main.c between rounds) depends on no one above it.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "lib/stop.h"

volatile sig_atomic_t e3mp_stop;
