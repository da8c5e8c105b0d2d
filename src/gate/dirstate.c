/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dirstate.c --- what the directory checks (dircheck.c, htreecheck.c)
 * share: a directory's state by inode number, and the refusal that
 * names the directory and block.  Below both, so neither calls the other
 * back.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "e3metapack.h"
#include "gate/dircheck.h"
#include "gate/dircheck_int.h"

static int cmp_dstate_ino(const void *ctx, __u32 i, blk64_t ino)
{
	return mp_cmp_u64(((const struct dstate *) ctx)[i].ino, ino);
}

struct dstate *dircheck_find(const struct dircheck *dc, __u32 ino)
{
	__u32 at;

	if (!mp_bsearch(dc->nd, ino, cmp_dstate_ino, dc->d, &at))
		return NULL;
	return &dc->d[at];
}

errcode_t dc_refuse(struct dircheck *dc, errcode_t code, __u32 ino,
		    blk64_t blk, const char *why)
{
	dc->mp->err_ino = ino;
	dc->mp->err_blk = blk;
	dc->mp->err_why = why;
	return code;
}
