/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * open.c --- find the device, make sure it is safe to touch, open it
 *
 * Everything here runs before the first write.  Each check that fails
 * returns an E3MP_* refusal; with -n the state checks only warn, since a
 * dry run reads and never writes.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/fs.h>

#include <blkid/blkid.h>

#include "e3metapack.h"
#include "gate/fstype.h"

/* "DEVICE", or "DEVICE partition N" inside a whole-disk image. */
const char *volume_label(const struct e3mp *mp)
{
	static char buf[4096];
	const char *dev = mp->device ? mp->device : mp->opt.spec;

	if (!mp->part)
		return dev;
	snprintf(buf, sizeof(buf), "%s partition %d", dev, mp->part->partno);
	return buf;
}

errcode_t resolve_device(const char *spec, const char **device)
{
	char *dev;

	if (strncmp(spec, "LABEL=", 6) && strncmp(spec, "UUID=", 5)) {
		*device = spec;
		return 0;
	}
	dev = blkid_evaluate_tag(spec, NULL, NULL);
	if (!dev)
		return E3MP_NO_DEVICE;
	*device = dev;	/* freed at exit */
	return 0;
}

/*
 * The read_ahead_kb e2fsck will meet, unless --read-ahead gave it: a
 * block device's own (BLKRAGET, in 512-byte sectors); an image file
 * keeps MP_READ_AHEAD_IMAGE_KB, what a loop device over it has had by
 * default.
 */
static void device_read_ahead(struct e3mp *mp, int fd)
{
	struct stat st;
	long sectors;

	if (mp->opt.ra_given) {
		mp->ra_from = E3MP_RA_OPTION;
		return;
	}
	mp->ra_from = E3MP_RA_IMAGE;
	if (fstat(fd, &st) || !S_ISBLK(st.st_mode) ||
	    ioctl(fd, BLKRAGET, &sectors) || sectors < 0)
		return;
	mp->opt.read_ahead_kb = sectors / 2;
	mp->ra_from = E3MP_RA_DEVICE;
}

/* libblkid must agree that this is an ext2/3/4 filesystem. */
static errcode_t probe_type(struct e3mp *mp)
{
	char type[16];
	int fd;

	fd = open(mp->device, O_RDONLY);
	if (fd < 0)
		return errno;
	probe_fs_type(fd, mp->part ? mp->part->offset : 0,
		      mp->part ? mp->part->size : 0, type, sizeof(type));
	device_read_ahead(mp, fd);
	close(fd);
	if (fs_type_is_ext(type))
		return 0;
	return strcmp(type, "jbd") ? E3MP_NOT_EXT : E3MP_JOURNAL_DEV;
}

static void warn_or(struct e3mp *mp, errcode_t code, errcode_t *err)
{
	if (!mp->opt.dry_run) {
		if (!*err)
			*err = code;
	} else if (mp->nwarn < (int) (sizeof(mp->warn) / sizeof(mp->warn[0])))
		mp->warn[mp->nwarn++] = code;
}

errcode_t check_device(struct e3mp *mp)
{
	errcode_t err;

	err = probe_type(mp);
	if (err)
		return err;
	err = ext2fs_check_mount_point(mp->device, &mp->mount_flags, NULL, 0);
	if (err)
		return err;
	if (mp->mount_flags & EXT2_MF_MOUNTED)
		warn_or(mp, E3MP_MOUNTED, &err);
	else if (mp->mount_flags & EXT2_MF_BUSY)
		warn_or(mp, E3MP_BUSY, &err);
	return err;
}

errcode_t open_volume(struct e3mp *mp)
{
	io_manager io = io_layer(mp);
	int flags = EXT2_FLAG_64BITS;
	char io_opts[32];
	errcode_t err;

	if (!mp->opt.dry_run) {
		flags |= EXT2_FLAG_RW | EXT2_FLAG_EXCLUSIVE;
		err = undo_setup(mp, &io);
		if (err)
			return err;
		io = bitmap_layer(mp, io);
	}
	if (mp->part)
		snprintf(io_opts, sizeof(io_opts), "offset=%llu",
			 (unsigned long long) mp->part->offset);
	err = ext2fs_open2(mp->device, mp->part ? io_opts : NULL, flags, 0, 0,
			   io, &mp->fs);
	if (err == EXT2_ET_UNDO_FILE_WRONG)
		return E3MP_UNDO_WRONG;
	if (err == EXT2_ET_SB_CSUM_INVALID)
		return E3MP_SB_CSUM;
	if (err)
		return err;
	mp->fs->default_bitmap_type = EXT2FS_BMAP64_RBTREE;
	mp->blocksize = mp->fs->blocksize;
	/*
	 * Without orig_super, ext2fs_flush() writes the primary superblock
	 * whole, in one write, instead of field by field: a kill between two
	 * of those writes would leave it torn (with metadata_csum, with a bad
	 * checksum).  It also works around libext2fs 1.47's undo manager
	 * (undo_write_byte()), which adds a partition offset twice on the
	 * byte-range path and so saves the wrong old superblock; upstream,
	 * undo_write_byte() would need to leave the offset to the backing
	 * channel, as undo_write_blk64() does.  The torn-superblock reason
	 * stays whatever the library version.
	 */
	if (!mp->opt.dry_run)
		ext2fs_free_mem(&mp->fs->orig_super);
	return 0;
}

/* Features whose blocks this tool cannot safely move. */
static const char *unsupported_feature(struct ext2_super_block *sb)
{
	if (ext2fs_has_feature_bigalloc(sb))
		return "bigalloc";
	if (ext2fs_has_feature_shared_blocks(sb))
		return "shared_blocks";
	if (ext2fs_has_feature_journal_dev(sb))
		return "journal_dev";
	/* e2fsck refuses what it does not know; so do we */
	if (sb->s_feature_compat & ~EXT2_LIB_FEATURE_COMPAT_SUPP)
		return "unknown compatible feature";
	return NULL;
}

/*
 * The descriptors say where the bitmaps and inode tables are and, with
 * uninit_bg or metadata_csum, which of them hold nothing yet; ext2fs_open2
 * reads them without checking their checksums (e2fsck does, and so must
 * a tool that writes them back).  ext2fs_open2 already checked the
 * superblock's.
 */
static errcode_t desc_csum_verify(struct e3mp *mp)
{
	ext2_filsys fs = mp->fs;
	dgrp_t grp;

	if (!ext2fs_has_group_desc_csum(fs))
		return 0;
	for (grp = 0; grp < fs->group_desc_count; grp++)
		if (!ext2fs_group_desc_csum_verify(fs, grp)) {
			mp->err_group = grp;
			return E3MP_DESC_CSUM;
		}
	return 0;
}

errcode_t check_volume(struct e3mp *mp)
{
	struct ext2_super_block *sb = mp->fs->super;
	errcode_t err = 0;

	mp->err_why = unsupported_feature(sb);
	if (mp->err_why)
		return E3MP_UNSUPP_FEATURE;
	if (ext2fs_has_feature_journal_needs_recovery(sb))
		warn_or(mp, E3MP_NEEDS_RECOVERY, &err);
	else if (sb->s_state & EXT2_ERROR_FS)
		warn_or(mp, E3MP_ERRORS, &err);
	else if (!(sb->s_state & EXT2_VALID_FS))
		warn_or(mp, E3MP_NOT_CLEAN, &err);
	else if (sb->s_last_orphan ||
		 ext2fs_has_feature_orphan_present(sb))
		warn_or(mp, E3MP_ORPHANS, &err);
	else if (sb->s_lastcheck < sb->s_mtime && !mp->opt.force)
		warn_or(mp, E3MP_NOT_CHECKED, &err);
	if (err)
		return err;
	err = desc_csum_verify(mp);
	if (err)
		return err;
	/*
	 * Bitmaps and inode tables are written where the descriptors say;
	 * a descriptor pointing into file data would have a bitmap flush
	 * overwrite a copy.  e2fsck's own descriptor check comes first.
	 */
	if (ext2fs_check_desc(mp->fs))
		return E3MP_BAD_DESC;
	err = journal_verify(mp);
	if (err)
		return err;
	err = bitmap_layer_watch(mp);
	if (err)
		return err;
	/* libext2fs verifies the bitmaps' checksums as it reads them */
	err = ext2fs_read_bitmaps(mp->fs);
	if (err == EXT2_ET_BLOCK_BITMAP_CSUM_INVALID)
		return E3MP_BBITMAP_CSUM;
	if (err == EXT2_ET_INODE_BITMAP_CSUM_INVALID)
		return E3MP_IBITMAP_CSUM;
	return err;
}
