/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * errclass.c --- the class of every e3mp error code, by code
 *
 * One entry per code of e3mp_err.et (tests/unit/test_errclass checks
 * that none is missing or doubled).  A refusal exits 2 and writes
 * nothing; one classed E3MP_CLASS_FSCK also tells the user to run
 * e2fsck first.  Failures and internal errors exit 4, or 8 once the
 * volume has been written to.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stddef.h>

#include "e3mp_err.h"
#include "errclass.h"

#define REFUSAL		E3MP_CLASS_REFUSAL
#define FSCK		E3MP_CLASS_FSCK
#define FAILURE		E3MP_CLASS_FAILURE
#define INTERNAL	E3MP_CLASS_INTERNAL

const struct e3mp_errinfo e3mp_errinfo[] = {
	{ E3MP_NOT_EXT,		REFUSAL,	0 },
	{ E3MP_MOUNTED,		REFUSAL,	0 },
	{ E3MP_BUSY,		REFUSAL,	0 },
	{ E3MP_NOT_CHECKED,	FSCK,		0 },
	{ E3MP_NOT_CLEAN,	FSCK,		0 },
	{ E3MP_ERRORS,		FSCK,		0 },
	{ E3MP_NEEDS_RECOVERY,	FSCK,		0 },
	{ E3MP_ORPHANS,		FSCK,		0 },
	{ E3MP_UNSUPP_FEATURE,	REFUSAL,	E3MP_SHOW_WHY },
	{ E3MP_JOURNAL_DEV,	REFUSAL,	0 },
	{ E3MP_BAD_POINTER,	FSCK,		E3MP_SHOW_INODE_BLOCK },
	{ E3MP_POINTER_FREE,	FSCK,		E3MP_SHOW_INODE_BLOCK },
	{ E3MP_DUP_BLOCK,	FSCK,		E3MP_SHOW_INODE_BLOCK },
	{ E3MP_INODE_FREE,	FSCK,		E3MP_SHOW_INODE },
	{ E3MP_TOO_MANY,	REFUSAL,	0 },
	{ E3MP_NO_UNDO_DIR,	REFUSAL,	0 },
	{ E3MP_BAD_DESC,	FSCK,		0 },
	{ E3MP_META_FREE,	FSCK,		E3MP_SHOW_BLOCK },
	{ E3MP_BAD_EXTENT_FLAG,	FSCK,		E3MP_SHOW_INODE },
	{ E3MP_SB_CSUM,		FSCK,		0 },
	{ E3MP_DESC_CSUM,	FSCK,		E3MP_SHOW_GROUP },
	{ E3MP_BBITMAP_CSUM,	FSCK,		0 },
	{ E3MP_IBITMAP_CSUM,	FSCK,		0 },
	{ E3MP_INODE_CSUM,	FSCK,		E3MP_SHOW_INODE },
	{ E3MP_I_BLOCKS,	FSCK,		E3MP_SHOW_INODE },
	{ E3MP_EXTENT_CSUM,	FSCK,		E3MP_SHOW_INODE },
	{ E3MP_JOURNAL_INODE,	FSCK,		E3MP_SHOW_INODE |
						E3MP_SHOW_WHY },
	{ E3MP_JOURNAL_SB,	FSCK,		E3MP_SHOW_WHY },
	{ E3MP_JOURNAL_BACKUP,	FSCK,		0 },
	{ E3MP_DIR_ENTRY,	FSCK,		E3MP_SHOW_INODE_BLOCK |
						E3MP_SHOW_WHY },
	{ E3MP_DIR_CSUM,	FSCK,		E3MP_SHOW_INODE_BLOCK },
	{ E3MP_DIR_INODE,	FSCK,		E3MP_SHOW_INODE |
						E3MP_SHOW_WHY },
	{ E3MP_HTREE,		FSCK,		E3MP_SHOW_INODE_BLOCK |
						E3MP_SHOW_WHY },
	{ E3MP_DIR_TREE,	FSCK,		E3MP_SHOW_INODE |
						E3MP_SHOW_WHY },
	{ E3MP_INODE_FIELD,	FSCK,		E3MP_SHOW_INODE |
						E3MP_SHOW_WHY },
	{ E3MP_GROUP_COUNT,	FSCK,		E3MP_SHOW_GROUP |
						E3MP_SHOW_WHY },
	{ E3MP_BAD_BLOCKS,	FSCK,		E3MP_SHOW_INODE_BLOCK |
						E3MP_SHOW_WHY },
	{ E3MP_UNATTACHED,	FSCK,		E3MP_SHOW_INODE },
	{ E3MP_ENCRYPTED,	REFUSAL,	E3MP_SHOW_INODE },
	{ E3MP_PART_OVERLAP,	REFUSAL,	0 },
	{ E3MP_PART_PAST_END,	REFUSAL,	0 },
	{ E3MP_NO_EXT_PARTITION, REFUSAL,	0 },
	{ E3MP_LOCKED,		REFUSAL,	E3MP_SHOW_HOLDER },
	{ E3MP_LOOP_BACKED,	REFUSAL,	E3MP_SHOW_LOOP },
	{ E3MP_UNDO_IS_VOLUME,	REFUSAL,	0 },
	{ E3MP_UNDO_NO_SPACE,	REFUSAL,	E3MP_SHOW_UNDO_SPACE },
	{ E3MP_NO_DEVICE,	FAILURE,	0 },
	{ E3MP_UNDO_WRONG,	FAILURE,	0 },
	{ E3MP_UNDO_UNUSABLE,	FAILURE,	0 },
	{ E3MP_INTERRUPTED,	FAILURE,	0 },
	{ E3MP_DEST_IN_USE,	INTERNAL,	0 },
	{ E3MP_SOURCE_FREE,	INTERNAL,	0 },
	{ E3MP_POINTER_LOST,	INTERNAL,	0 },
	{ E3MP_PLAN_NO_SPACE,	INTERNAL,	0 },
	{ E3MP_PLAN_NO_OWNER,	INTERNAL,	0 },
};

const unsigned int e3mp_nerrinfo = sizeof(e3mp_errinfo) /
				   sizeof(e3mp_errinfo[0]);

const struct e3mp_errinfo *errclass_find(errcode_t err)
{
	unsigned int i;

	for (i = 0; i < e3mp_nerrinfo; i++)
		if (e3mp_errinfo[i].code == err)
			return &e3mp_errinfo[i];
	return NULL;
}

enum e3mp_errclass errclass_of(errcode_t err)
{
	const struct e3mp_errinfo *e = errclass_find(err);

	return e ? e->cls : E3MP_CLASS_NONE;
}

int errclass_is_refusal(errcode_t err)
{
	enum e3mp_errclass c = errclass_of(err);

	return c == E3MP_CLASS_REFUSAL || c == E3MP_CLASS_FSCK;
}
