/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * errclass.h --- what each of e3metapack's own error codes means
 *
 * main.c decides the exit code and the shape of the message from this
 * table, not from where a code sits in e3mp_err.et, so that codes can be
 * added or reordered there without changing what a run says or returns.
 */
#ifndef E3MP_ERRCLASS_H
#define E3MP_ERRCLASS_H

#include <et/com_err.h>

enum e3mp_errclass {
	E3MP_CLASS_NONE = 0,	/* not one of ours (libext2fs, errno) */
	E3MP_CLASS_REFUSAL,	/* unsuitable or unsafe: exit 2, untouched */
	E3MP_CLASS_FSCK,	/* a refusal that e2fsck -f clears */
	E3MP_CLASS_FAILURE,	/* could not go on (I/O, state): exit 4/8 */
	E3MP_CLASS_INTERNAL,	/* a bug of the tool: exit 4/8 */
};

/* What a refusal's message names besides its text. */
#define E3MP_SHOW_INODE		0x01	/* "inode N: " (if known) */
#define E3MP_SHOW_BLOCK		0x02	/* "block N: " */
#define E3MP_SHOW_INODE_BLOCK	0x04	/* "inode N, block N: " */
#define E3MP_SHOW_GROUP		0x08	/* "group N: " */
#define E3MP_SHOW_WHY		0x10	/* ": why" after the text */
#define E3MP_SHOW_HOLDER	0x20	/* the process holding the lock */
#define E3MP_SHOW_LOOP		0x40	/* the loop device over the file */
#define E3MP_SHOW_UNDO_SPACE	0x80	/* bytes needed, available, where */

struct e3mp_errinfo {
	errcode_t		code;
	enum e3mp_errclass	cls;
	unsigned int		show;	/* E3MP_SHOW_* */
};

extern const struct e3mp_errinfo e3mp_errinfo[];
extern const unsigned int e3mp_nerrinfo;

/* The entry for @err, or NULL if it is not one of ours. */
const struct e3mp_errinfo *errclass_find(errcode_t err);
enum e3mp_errclass errclass_of(errcode_t err);
int errclass_is_refusal(errcode_t err);

#endif /* E3MP_ERRCLASS_H */
