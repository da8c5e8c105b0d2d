/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * layout.h --- each record's slot (layout.c); planner-internal
 */
#ifndef E3MP_LAYOUT_H
#define E3MP_LAYOUT_H

#include "plan/planner.h"

errcode_t layout_init(struct planner *pl);
errcode_t layout_slots(struct planner *pl);
void layout_reset(struct planner *pl);
void layout_free(struct planner *pl);
__u32 zone_extend(struct planner *pl, __u32 grp, blk64_t blk,
		  blk64_t first, blk64_t *out, __u32 *below, __u32 *ext);
__u32 head_extend(struct planner *pl, __u32 grp, blk64_t blk, blk64_t end,
		  blk64_t *out);
int assign_slots(struct planner *pl);

#endif /* E3MP_LAYOUT_H */
