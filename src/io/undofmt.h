/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * undofmt.h --- the undo file's on-disk layout, as e2undo reads it
 *
 * libext2fs keeps these structures private (lib/ext2fs/undo_io.c) and
 * misc/e2undo.c declares its own copy; the format is "E2UNDO02" since
 * e2fsprogs 1.43 and unchanged through 1.47.  io.c keeps the header of
 * a file being written replayable, and undo.c checks a file the way
 * e2undo will before main.c hands it to the user.  The offsets are
 * checked against e2undo's layout at compile time.  All fields are
 * little-endian.
 */
#ifndef E3MP_UNDOFMT_H
#define E3MP_UNDOFMT_H

#include <stddef.h>

#include <ext2fs/ext2fs.h>

#define UNDO_MAGIC		"E2UNDO02"
#define UNDO_KEY_MAGIC		0xCADECADEU
#define UNDO_STATE_FINISHED	0x1	/* e2undo: "undo file is complete" */
#define UNDO_MIN_BLOCK		1024	/* e2undo's bounds on block_size */
#define UNDO_MAX_BLOCK		1048576
#define UNDO_MAX_EXTENT		512	/* blocks one key may cover */

struct undo_header {
	char	magic[8];		/* UNDO_MAGIC */
	__u64	num_keys;
	__u64	super_offset;		/* superblock copy, in undo blocks */
	__u64	key_offset;		/* first key block, in undo blocks */
	__u32	block_size;		/* of the undo file */
	__u32	fs_block_size;
	__u32	sb_crc;			/* crc32c of the superblock copy */
	__u32	state;			/* UNDO_STATE_* */
	__u32	f_compat;
	__u32	f_incompat;
	__u32	f_rocompat;
	__u32	pad32;
	__u64	fs_offset;		/* of a partition in its device */
	__u8	padding[436];
	__u32	header_crc;		/* crc32c of the bytes before it */
};

_Static_assert(offsetof(struct undo_header, super_offset) == 16,
	       "e2undo: super_offset at 16");
_Static_assert(offsetof(struct undo_header, sb_crc) == 40,
	       "e2undo: sb_crc at 40");
_Static_assert(offsetof(struct undo_header, state) == 44,
	       "e2undo: state at 44");
_Static_assert(offsetof(struct undo_header, fs_offset) == 64,
	       "e2undo: fs_offset at 64");
_Static_assert(offsetof(struct undo_header, header_crc) == 508,
	       "e2undo: header_crc at 508");
_Static_assert(sizeof(struct undo_header) == 512, "e2undo: 512-byte header");

/* A key block: this head, then keys up to the end of the undo block. */
struct undo_key_head {
	__u32	magic;			/* UNDO_KEY_MAGIC */
	__u32	crc;			/* crc32c of the block, this as 0 */
	__u64	reserved;
};

struct undo_key {
	__u64	fsblk;			/* where the saved bytes go */
	__u32	blk_crc;		/* crc32c of them */
	__u32	size;			/* how many bytes */
};

_Static_assert(sizeof(struct undo_key_head) == 16, "e2undo: key head");
_Static_assert(sizeof(struct undo_key) == 16, "e2undo: key");

/* Keys in one key block of @bs bytes (the head takes one key's room). */
#define UNDO_KEYS_PER_BLOCK(bs)	((bs) / sizeof(struct undo_key) - 1)

#endif /* E3MP_UNDOFMT_H */
