/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fstype.h --- which filesystem a device holds, by libblkid (fstype.c)
 */
#ifndef E3MP_FSTYPE_H
#define E3MP_FSTYPE_H

#include <stddef.h>

#include <ext2fs/ext2fs.h>

void probe_fs_type(int fd, __u64 offset, __u64 size, char *type,
		   size_t len);
int fs_type_is_ext(const char *type);

#endif /* E3MP_FSTYPE_H */
