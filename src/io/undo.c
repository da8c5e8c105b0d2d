/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * undo.c --- the undo file, through libext2fs's undo_io_manager
 *
 * As in resize2fs and tune2fs, the undo manager is stacked on the unix
 * manager before ext2fs_open2(); it saves each block's old contents the
 * first time it is written, and e2undo puts them back.  An existing undo
 * file for the same filesystem state is continued, not replaced, so a
 * run that resumes an interrupted one can still be undone in one step
 * back to the very first original.  The undo manager opens both the
 * volume and the undo file through io.c's layer, which keeps the file
 * replayable by e2undo at every instant of the run (see there).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "e3metapack.h"
#include "io/undofmt.h"

#define UNDO_DIR_DEFAULT	"/var/lib/e2fsprogs"

/*
 * @name, or for a partition of a whole-disk image @name with "-pN" put
 * before its ".e2undo" suffix (or at its end), so each partition's run
 * has an undo file of its own.
 */
static errcode_t undo_name(struct e3mp *mp, const char *dir,
			   const char *name, char **path)
{
	size_t len = strlen(name), suffix = strlen(".e2undo");
	char part[16] = "";
	errcode_t err;

	if (mp->part && !mp->opt.partition)
		snprintf(part, sizeof(part), "-p%d", mp->part->partno);
	if (len < suffix || strcmp(name + len - suffix, ".e2undo"))
		suffix = 0;
	err = ext2fs_get_mem(strlen(dir) + len + sizeof(part) + 2, path);
	if (!err)
		sprintf(*path, "%s%s%.*s%s%s", dir, *dir ? "/" : "",
			(int) (len - suffix), name, part, name + len - suffix);
	return err;
}

/*
 * The default directory is made when it is missing: Debian, for one,
 * ships no /var/lib/e2fsprogs, and a first run must not need a -z.  It
 * gets 0755 whatever the umask, like /var/lib itself (the undo manager
 * creates the files in it 0600).  Only the last component is made: a
 * missing parent is a mistyped E2FSPROGS_UNDO_DIR, better refused.
 */
static errcode_t undo_dir_ready(struct e3mp *mp, const char *dir)
{
	struct stat st;

	if (!mkdir(dir, 0755)) {
		mp->undo_dir_made = dir;
		if (chmod(dir, 0755))
			return E3MP_NO_UNDO_DIR;
	} else if (errno != EEXIST || stat(dir, &st) || !S_ISDIR(st.st_mode))
		return E3MP_NO_UNDO_DIR;
	return access(dir, W_OK | X_OK) ? E3MP_NO_UNDO_DIR : 0;
}

/* Where the undo file goes when -z is not given. */
static errcode_t default_undo_path(struct e3mp *mp, char **path)
{
	const char *dir = getenv("E2FSPROGS_UNDO_DIR");
	char *tmp, *base, *name;
	errcode_t err;

	if (!dir)
		dir = UNDO_DIR_DEFAULT;
	if (!strcmp(dir, "none") || !*dir) {
		*path = NULL;
		return 0;
	}
	err = undo_dir_ready(mp, dir);
	if (err)
		return err;
	tmp = strdup(mp->device);
	if (!tmp)
		return ENOMEM;
	base = basename(tmp);
	err = ext2fs_get_mem(strlen(base) + 32, &name);
	if (!err) {
		sprintf(name, "e3metapack-%s.e2undo", base);
		err = undo_name(mp, dir, name, path);
		ext2fs_free_mem(&name);
	}
	free(tmp);
	return err;
}

/*
 * The undo file must not be the volume: the same file by st_dev/st_ino
 * (through any link), or the same block device.  The undo manager would
 * otherwise write its header over the superblock before saving it.
 */
static int undo_is_volume(struct e3mp *mp)
{
	struct stat u, v;

	if (stat(mp->undo_path, &u) || stat(mp->device, &v))
		return 0;
	if (S_ISBLK(u.st_mode) && S_ISBLK(v.st_mode))
		return u.st_rdev == v.st_rdev;
	return u.st_dev == v.st_dev && u.st_ino == v.st_ino;
}

errcode_t undo_setup(struct e3mp *mp, io_manager *io)
{
	const char *file = mp->opt.undo_file;
	errcode_t err;

	if (file && !strcmp(file, "none"))
		return 0;
	if (file)
		err = undo_name(mp, "", file, &mp->undo_path);
	else
		err = default_undo_path(mp, &mp->undo_path);
	if (err || !mp->undo_path)
		return err;
	if (undo_is_volume(mp))
		return E3MP_UNDO_IS_VOLUME;
	mp->undo_created = access(mp->undo_path, F_OK) != 0;
	err = set_undo_io_backing_manager(*io);
	if (!err)
		err = set_undo_io_backup_file(mp->undo_path);
	if (!err)
		*io = undo_io_manager;
	return err;
}

/*
 * libext2fs's undo manager saves old contents in units of its own block
 * size, by default the filesystem's, and for each unit it saves it also
 * rewrites its key block, the undo header and its copy of the
 * superblock.  The copies land in long runs (metacluster slots,
 * evacuation targets), so a bigger unit saves the same bytes in far
 * fewer requests; 32 KiB is what mke2fs uses.  An undo file being
 * continued keeps its own.  libext2fs 1.47 rounds to the unit from the
 * start of the device, not of the partition, so a partition offset that
 * is not a multiple of it keeps the block size.
 */
#define UNDO_UNIT	32768

/* Whether @fd starts with an undo header; if so, it is in *@h. */
static int header_get(int fd, struct undo_header *h)
{
	return pread(fd, h, sizeof(*h), 0) == (ssize_t) sizeof(*h) &&
	       !memcmp(h->magic, UNDO_MAGIC, 8);
}

/* The header of an existing undo file, if @path is one. */
static int header_read(const char *path, struct undo_header *h)
{
	int fd = open(path, O_RDONLY), ok;

	if (fd < 0)
		return 0;
	ok = header_get(fd, h);
	close(fd);
	return ok;
}

__u32 undo_unit_size(const struct e3mp *mp)
{
	struct undo_header h;
	__u32 bs = mp->fs->blocksize;

	if (mp->undo_path && header_read(mp->undo_path, &h))
		return ext2fs_le32_to_cpu(h.block_size);
	if (bs >= UNDO_UNIT || (mp->part && mp->part->offset % UNDO_UNIT))
		return bs;
	return UNDO_UNIT;
}

/*
 * An undo unit of @bytes (0: no undo file) in the volume's blocks, at
 * least 1, and where units start: the partition offset, in blocks,
 * modulo the unit (the undo manager aligns its units to the device).
 */
void undo_unit_blocks(const struct e3mp *mp, __u32 bytes, __u32 *unit,
		      __u32 *skew)
{
	__u64 off = mp->part ? mp->part->offset / mp->fs->blocksize : 0;

	*unit = bytes ? bytes / mp->fs->blocksize : 0;
	if (bytes && !*unit)
		*unit = 1;
	*skew = *unit ? off % *unit : 0;
}

/* Whether a run would write an undo file (for -n: had it not been -n). */
static int undo_wanted(const struct e3mp *mp)
{
	const char *dir = getenv("E2FSPROGS_UNDO_DIR");

	if (mp->undo_path)
		return 1;
	if (!mp->opt.dry_run)
		return 0;
	if (mp->opt.undo_file)
		return strcmp(mp->opt.undo_file, "none") != 0;
	return !dir || (*dir && strcmp(dir, "none"));
}

/*
 * Before the first write: the bound on the undo file's size
 * (undobound.c), for the report, and room for that much where the undo
 * file is.  A run that cannot tell how much room there is (statvfs
 * fails) goes on: io.c still stops before any write the undo file could
 * not protect.
 */
errcode_t undo_space_check(struct e3mp *mp)
{
	struct statvfs sv;
	errcode_t err;

	/* (a run with nothing to move writes nothing) */
	if (!undo_wanted(mp) || !(mp->plan.nmv[0] + mp->plan.nmv[1]))
		return 0;
	mp->undo_unit = undo_unit_size(mp);
	err = undo_bound(mp, mp->undo_unit, &mp->undo_bound);
	if (err || !mp->undo_path || statvfs(mp->undo_path, &sv))
		return err;
	mp->undo_avail = (__u64) sv.f_bavail * sv.f_frsize;
	return mp->undo_bound > mp->undo_avail ? E3MP_UNDO_NO_SPACE : 0;
}

/* ---- would e2undo replay it?  (misc/e2undo.c's checks, 1.47) ------- */

static int pread_all(int fd, void *buf, size_t len, __u64 off)
{
	return pread(fd, buf, len, off) == (ssize_t) len;
}

static const char *header_fault(const struct undo_header *h)
{
	__u32 bs = ext2fs_le32_to_cpu(h->block_size);

	if (ext2fs_le32_to_cpu(h->header_crc) !=
	    ext2fs_crc32c_le(~0, (const unsigned char *) h,
			     offsetof(struct undo_header, header_crc)))
		return "its header checksum does not match";
	/* e2undo replays an unfinished file, but marks the volume not clean */
	if (!(ext2fs_le32_to_cpu(h->state) & UNDO_STATE_FINISHED))
		return "it is not marked complete";
	if (bs < UNDO_MIN_BLOCK || bs > UNDO_MAX_BLOCK || !h->fs_block_size ||
	    h->f_incompat || h->f_rocompat)
		return "its header is corrupt";
	return NULL;
}

/* e2undo refuses a file whose superblock copy is not the volume's. */
static const char *super_fault(const struct e3mp *mp, int fd,
			       const struct undo_header *h)
{
	struct ext2_super_block copy, sb;
	__u64 at = ext2fs_le64_to_cpu(h->super_offset) *
		   ext2fs_le32_to_cpu(h->block_size);
	int dev, ok;

	if (!pread_all(fd, &copy, SUPERBLOCK_SIZE, at))
		return "its superblock copy cannot be read";
	copy.s_magic = ~copy.s_magic;
	dev = open(mp->device, O_RDONLY);
	ok = dev >= 0 && pread_all(dev, &sb, SUPERBLOCK_SIZE,
				   (mp->part ? mp->part->offset : 0) +
				   SUPERBLOCK_OFFSET);
	if (dev >= 0)
		close(dev);
	if (!ok || memcmp(&copy, &sb, SUPERBLOCK_SIZE) ||
	    ext2fs_le32_to_cpu(h->sb_crc) !=
	    ext2fs_crc32c_le(~0, (unsigned char *) &copy, SUPERBLOCK_SIZE))
		return "its superblock copy differs from the volume's";
	return NULL;
}

/* The saved bytes of one key, against its checksum. */
static int extent_ok(int fd, const struct undo_key *k, __u64 at,
		     unsigned char *buf, __u32 bs)
{
	__u32 size = ext2fs_le32_to_cpu(k->size), n, crc = ~0U;

	if (size > (__u64) UNDO_MAX_EXTENT * bs)
		return 0;
	for (; size; size -= n, at += n) {
		n = size < bs ? size : bs;
		if (!pread_all(fd, buf, n, at))
			return 0;
		crc = ext2fs_crc32c_le(crc, buf, n);
	}
	return crc == ext2fs_le32_to_cpu(k->blk_crc);
}

/* One key block at undo block *@lblk and the extents after it. */
static const char *keys_fault(int fd, __u64 *lblk, __u64 nkeys, __u32 bs,
			      unsigned char *kb, unsigned char *buf)
{
	struct undo_key_head *head = (struct undo_key_head *) kb;
	struct undo_key *k = (struct undo_key *) (head + 1);
	__u32 crc;
	__u64 j;

	if (!pread_all(fd, kb, bs, *lblk * bs) ||
	    ext2fs_le32_to_cpu(head->magic) != UNDO_KEY_MAGIC)
		return "a key block is missing";
	crc = head->crc;
	head->crc = 0;
	if (ext2fs_le32_to_cpu(crc) != ext2fs_crc32c_le(~0, kb, bs))
		return "a key block checksum does not match";
	for (++*lblk, j = 0; j < nkeys; j++, k++) {
		if (!extent_ok(fd, k, *lblk * bs, buf, bs))
			return "saved data is missing or damaged";
		*lblk += (ext2fs_le32_to_cpu(k->size) + bs - 1) / bs;
	}
	return NULL;
}

static const char *file_fault(const struct e3mp *mp, int fd)
{
	struct undo_header h;
	unsigned char *kb = NULL, *buf = NULL;
	const char *why;
	__u64 i, n, per, lblk;
	__u32 bs;

	if (!header_get(fd, &h))
		return "it has no undo header";
	why = header_fault(&h);
	if (!why)
		why = super_fault(mp, fd, &h);
	if (why)
		return why;
	bs = ext2fs_le32_to_cpu(h.block_size);
	n = ext2fs_le64_to_cpu(h.num_keys);
	per = UNDO_KEYS_PER_BLOCK(bs);
	lblk = ext2fs_le64_to_cpu(h.key_offset);
	if (ext2fs_get_mem(bs, &kb) || ext2fs_get_mem(bs, &buf))
		why = "out of memory while checking it";
	for (i = 0; i < n && !why; i += per)
		why = keys_fault(fd, &lblk, n - i < per ? n - i : per, bs,
				 kb, buf);
	ext2fs_free_mem(&kb);
	ext2fs_free_mem(&buf);
	return why;
}

/*
 * After a failure, before main.c prints an e2undo command: would stock
 * e2undo accept @mp's undo file and put the volume back as it was?  The
 * checks are e2undo's own, made the same way, so that a command that
 * would fail is never printed; *@why says what is wrong with the file.
 */
errcode_t undo_replayable(const struct e3mp *mp, const char **why)
{
	int fd = mp->undo_path ? open(mp->undo_path, O_RDONLY) : -1;

	if (fd < 0) {
		*why = "it cannot be opened";
		return E3MP_UNDO_UNUSABLE;
	}
	*why = file_fault(mp, fd);
	close(fd);
	return *why ? E3MP_UNDO_UNUSABLE : 0;
}

/*
 * A run that wrote nothing to the volume leaves at most an undo header
 * and saved blocks nothing needs; remove the file if this run created
 * it.  A file that was there before belongs to an earlier run and is
 * kept.  Called after the volume is closed, last.
 */
void undo_discard_unused(struct e3mp *mp)
{
	if (mp->undo_path && mp->undo_created && !mp->dev_writes)
		unlink(mp->undo_path);
	ext2fs_free_mem(&mp->undo_path);
}
