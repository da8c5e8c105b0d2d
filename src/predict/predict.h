/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * predict.h --- what predict.c gives predtool.c: a group's reads
 */
#ifndef E3MP_PREDICT_H
#define E3MP_PREDICT_H

#include "model/disk.h"

struct e3mp;

/* What e2fsck, and the inode scan, read of group @grp (@priv: the run). */
void predict_group_io(void *priv, __u32 grp, struct mp_group_io *out);

/* The kernel and the e2fsck the prediction assumes (no cache set yet). */
void predict_fsck_env(struct e3mp *mp, struct mp_fsck_env *env);

#endif /* E3MP_PREDICT_H */
