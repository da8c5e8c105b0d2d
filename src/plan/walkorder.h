/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * walkorder.h --- the planner's side of the tree walk's order
 * (walkorder.c); planner-internal
 */
#ifndef E3MP_WALKORDER_H
#define E3MP_WALKORDER_H

#include "plan/planner.h"

errcode_t walk_sort(struct planner *pl, __u32 lo, __u32 hi);
errcode_t walk_decide(struct planner *pl);

#endif /* E3MP_WALKORDER_H */
