/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * evacuate.h --- emptying the slots, and the list of moves (evacuate.c);
 * planner-internal
 */
#ifndef E3MP_EVACUATE_H
#define E3MP_EVACUATE_H

#include "plan/planner.h"

void evac_init(struct planner *pl);
void fit_to_space(struct planner *pl, __u64 free_blocks);
errcode_t emit_moves(struct planner *pl);

#endif /* E3MP_EVACUATE_H */
