/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fstype.c --- which filesystem a device, or a stretch of it, holds
 *
 * libblkid says; open.c asks of the device (refusing what is not ext2/3/4
 * with the type's name), partition.c of each partition of a whole-disk
 * image.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdio.h>
#include <string.h>

#include <blkid/blkid.h>

#include "gate/fstype.h"

/* The filesystem type libblkid finds in [offset, offset + size). */
void probe_fs_type(int fd, __u64 offset, __u64 size, char *type,
		   size_t len)
{
	blkid_probe pr = blkid_new_probe();
	const char *t = NULL;

	type[0] = 0;
	if (!pr)
		return;
	if (!blkid_probe_set_device(pr, fd, offset, size)) {
		blkid_probe_enable_superblocks(pr, 1);
		blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
		if (!blkid_do_safeprobe(pr) &&
		    !blkid_probe_lookup_value(pr, "TYPE", &t, NULL))
			snprintf(type, len, "%s", t);
	}
	blkid_free_probe(pr);
}

/* @type, as libblkid names it, is one e3metapack handles. */
int fs_type_is_ext(const char *type)
{
	return !strcmp(type, "ext2") || !strcmp(type, "ext3") ||
	       !strcmp(type, "ext4") || !strcmp(type, "ext4dev");
}
