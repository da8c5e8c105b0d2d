/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * io.c --- the io manager e3metapack stacks under libext2fs
 *
 * Every channel of a writing run goes through it: the volume, and, with
 * an undo file, the undo file too (libext2fs's undo manager opens both
 * through its backing manager).  On top of unix_io it adds what a run
 * that may be killed or hit an I/O error at any instant needs and
 * libext2fs does not give:
 *
 *  - Write-through.  unix_io's write-back cache is turned off on both
 *    channels.  On the volume, a failed write then fails the call that
 *    made it, with its own block number (with the cache on, the error
 *    surfaces in a later call, or never: libext2fs ignores the result of
 *    io_channel_set_blksize(), which flushes the cache).  On the undo
 *    file, every saved block and key is in the file before the volume
 *    write it protects is issued, so a kill -9 cannot lose it.
 *
 *  - The first read or write error of the run, with where it happened,
 *    and the number of writes that reached the volume: main.c names the
 *    block even when a libext2fs routine dropped the error on its way up,
 *    and knows whether the volume is still untouched.
 *
 *  - An undo file stock e2undo replays exactly at every instant between
 *    two writes to the volume.  The undo manager marks its header
 *    "finished" only when it closes; e2undo replays an unfinished file
 *    but then marks the volume not clean, so the image is not the
 *    original.  Each header the undo manager writes is therefore written
 *    with the finished flag set: the file is complete for every write
 *    that has reached the volume, since the undo manager saves a block
 *    before it passes the write down.  And it copies the volume's
 *    superblock into the undo file only when it saves a new block;
 *    e2undo refuses a file whose copy differs from the volume's
 *    superblock.  So after each write that changes the primary
 *    superblock, the copy and its checksum in the header are brought up
 *    to date, before any other write reaches the volume; if that fails,
 *    the old superblock is put back.
 *
 *  - A sealed undo file after its first failed write (ENOSPC, EDQUOT,
 *    EFBIG, EIO).  The undo manager has by then counted the block it
 *    failed to save; any later index it writes (at the next save, or
 *    when it closes) would name data the file does not hold, and e2undo
 *    would fail on it.  A failed write in the undo manager's order (the
 *    data, then its key block, then the header and the superblock copy)
 *    leaves the file as it was before that save, whatever step failed;
 *    so nothing more is written to it, and the write the save protected
 *    never reaches the volume.  undo.c checks the result the way e2undo
 *    will before main.c prints an e2undo command.
 *
 *  - A flush of the volume first syncs the undo file, so that at every
 *    barrier of the write order (finish.c) the undo file on stable
 *    storage covers everything the volume has on it.
 *
 * These work around libext2fs 1.47's undo_io.c, which writes the
 * finished flag only at close and the superblock copy only with a new
 * block, and goes on writing its indexes after a failed save.  Upstream,
 * undo_write_tdb() would need to mark the header finished with each
 * index it writes, refresh the copy on every superblock write, and stop
 * using the file after a failed write; this layer could then go.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <string.h>

#include "e3metapack.h"
#include "io/undofmt.h"

struct layer {
	io_channel	inner;		/* the unix_io channel */
	int		is_undo;	/* the undo file, not the volume */
};

/* One run at a time: partitions of a disk are done one after another. */
static struct {
	struct e3mp	*mp;
	io_channel	undo;		/* the undo file's unix_io channel */
	struct undo_header hdr;		/* as last written */
	int		have_hdr;
	errcode_t	sealed;		/* first failed write to the undo file */
} st;

static struct struct_io_manager layer_manager;

static struct layer *L(io_channel ch)
{
	return ch->private_data;
}

static void error_note(int is_undo, const char *op, __u64 offset,
		       errcode_t err)
{
	struct e3mp_io_error *e = &st.mp->io_err;

	if (e->err || !err)
		return;
	e->err = err;
	e->op = op;
	e->offset = offset;
	e->undo = is_undo;
}

/* unix_io's handlers; app_data is our channel above it. */
static errcode_t read_failed(io_channel inner, unsigned long block,
			     int count, void *data, size_t size, int actual,
			     errcode_t err)
{
	io_channel outer = inner->app_data;

	/* the undo manager reads past the end of a short volume on purpose */
	if (err != EXT2_ET_SHORT_READ)
		error_note(L(outer)->is_undo, "reading",
			   (__u64) block * inner->block_size, err);
	if (outer->read_error)
		return outer->read_error(outer, block, count, data, size,
					 actual, err);
	return err;
}

static errcode_t write_failed(io_channel inner, unsigned long block,
			      int count EXT2FS_ATTR((unused)),
			      const void *data EXT2FS_ATTR((unused)),
			      size_t size EXT2FS_ATTR((unused)),
			      int actual EXT2FS_ATTR((unused)), errcode_t err)
{
	io_channel outer = inner->app_data;

	error_note(L(outer)->is_undo, "writing",
		   (__u64) block * inner->block_size, err);
	return err;
}

/*
 * Every write to the undo file.  The first that fails seals the file;
 * @repair is for putting back the superblock copy after a failed update
 * of it (see undo_super_follow()), the one write allowed then.
 */
static errcode_t undo_write(unsigned long long blk, int count,
			    const void *buf, int repair)
{
	errcode_t err;

	if (st.sealed && !repair)
		return st.sealed;
	err = io_channel_write_blk64(st.undo, blk, count, buf);
	if (err && !st.sealed)
		st.sealed = err;
	return err;
}

static void header_mark_finished(struct undo_header *h)
{
	h->state = ext2fs_cpu_to_le32(ext2fs_le32_to_cpu(h->state) |
				      UNDO_STATE_FINISHED);
	h->header_crc = ext2fs_cpu_to_le32(ext2fs_crc32c_le(~0,
			(unsigned char *) h,
			offsetof(struct undo_header, header_crc)));
}

/* The header as last written, or as a continued undo file has it. */
static errcode_t header_current(void)
{
	errcode_t err;

	if (st.have_hdr)
		return 0;
	err = io_channel_read_blk64(st.undo, 0, -(int) sizeof(st.hdr),
				    &st.hdr);
	if (!err && memcmp(st.hdr.magic, UNDO_MAGIC, 8))
		err = EXT2_ET_UNDO_FILE_CORRUPT;
	st.have_hdr = !err;
	return err;
}

/*
 * Make the undo file's copy of the superblock, and the header's checksum
 * of it, say @sb.  (The copy is kept with s_magic inverted, so that the
 * undo file is never mistaken for a filesystem.)  Copy first, header
 * second; *@copied says whether the copy was written.
 */
static errcode_t undo_super_set(const struct ext2_super_block *sb,
				int repair, int *copied)
{
	struct ext2_super_block copy = *sb;
	struct undo_header h;
	errcode_t err;

	*copied = 0;
	err = header_current();
	if (err)
		return err;
	h = st.hdr;
	h.sb_crc = ext2fs_cpu_to_le32(ext2fs_crc32c_le(~0,
			(const unsigned char *) sb, SUPERBLOCK_SIZE));
	header_mark_finished(&h);
	copy.s_magic = ~copy.s_magic;
	err = undo_write(ext2fs_le64_to_cpu(h.super_offset), -SUPERBLOCK_SIZE,
			 &copy, repair);
	if (err)
		return err;
	*copied = 1;
	err = undo_write(0, -(int) sizeof(h), &h, repair);
	if (!err)
		st.hdr = h;
	return err;
}

/* Read (or write) the primary superblock of the volume behind @inner. */
static errcode_t super_io(io_channel inner, void *sb, int write)
{
	int bs = inner->block_size;
	errcode_t err;

	err = io_channel_set_blksize(inner, SUPERBLOCK_OFFSET);
	if (!err && write)
		err = io_channel_write_blk64(inner, 1, -SUPERBLOCK_SIZE, sb);
	else if (!err)
		err = io_channel_read_blk64(inner, 1, -SUPERBLOCK_SIZE, sb);
	io_channel_set_blksize(inner, bs);
	return err;
}

/*
 * The volume's primary superblock went from @old to @new: make the undo
 * file's copy say so.  If the undo file cannot be written, @old goes
 * back on the volume (and into the copy, if only the header failed), so
 * that the undo file, sealed now, still describes the volume.
 */
static errcode_t undo_super_follow(io_channel inner,
				   struct ext2_super_block *old,
				   const struct ext2_super_block *new)
{
	int copied, again;
	errcode_t err = undo_super_set(new, 0, &copied);

	if (err && !super_io(inner, old, 1) && copied)
		undo_super_set(old, 1, &again);
	return err;
}

/* A write to the volume: [@start, @start + @len) in bytes, from @buf. */
struct vwrite {
	__u64		start, len;
	const void	*buf;
	unsigned long long blk;		/* write_blk64's, or ... */
	int		count;
	int		is_byte;	/* ... write_byte's */
};

static errcode_t vwrite_do(io_channel inner, const struct vwrite *w)
{
	if (w->is_byte)
		return io_channel_write_byte(inner, w->start, w->len, w->buf);
	return io_channel_write_blk64(inner, w->blk, w->count, w->buf);
}

/* The primary superblock as it is, and as it will be after @w. */
static errcode_t super_before_after(io_channel inner, const struct vwrite *w,
				    struct ext2_super_block *old,
				    struct ext2_super_block *new)
{
	__u64 lo = w->start > SUPERBLOCK_OFFSET ? w->start : SUPERBLOCK_OFFSET;
	__u64 hi = w->start + w->len;
	errcode_t err;

	if (hi > SUPERBLOCK_OFFSET + SUPERBLOCK_SIZE)
		hi = SUPERBLOCK_OFFSET + SUPERBLOCK_SIZE;
	err = super_io(inner, old, 0);
	if (err)
		return err;
	*new = *old;
	memcpy((char *) new + (lo - SUPERBLOCK_OFFSET),
	       (const char *) w->buf + (lo - w->start), hi - lo);
	return 0;
}

/*
 * A write to the volume.  One that changes the primary superblock has
 * the undo file's copy of it follow; e2undo refuses a file whose copy
 * differs from the volume's superblock.  (Updating the copy after the
 * write, not before, keeps the window in which they differ free of
 * volume writes: a kill at any volume write finds them equal.)
 */
static errcode_t volume_write(io_channel ch, const struct vwrite *w)
{
	io_channel inner = L(ch)->inner;
	struct ext2_super_block old, new;
	int super = st.undo && w->start < SUPERBLOCK_OFFSET + SUPERBLOCK_SIZE &&
		    w->start + w->len > SUPERBLOCK_OFFSET;
	errcode_t err;

	/* blocks read ahead for the scan must not outlive a write */
	prefetch_drop(st.mp);
	if (super) {
		err = super_before_after(inner, w, &old, &new);
		if (err)
			return err;
		super = memcmp(&old, &new, sizeof(old)) != 0;
	}
	err = vwrite_do(inner, w);
	if (err)
		return err;
	st.mp->dev_writes++;
	return super ? undo_super_follow(inner, &old, &new) : 0;
}

static errcode_t layer_open(const char *name, int flags, io_channel *ret)
{
	io_channel ch = NULL;
	struct layer *l = NULL;
	errcode_t err;

	err = ext2fs_get_memzero(sizeof(*ch), &ch);
	if (!err)
		err = ext2fs_get_memzero(sizeof(*l), &l);
	if (!err)
		err = ext2fs_get_mem(strlen(name) + 1, &ch->name);
	if (!err)
		err = unix_io_manager->open(name, flags, &l->inner);
	if (err)
		goto out;
	strcpy(ch->name, name);
	ch->magic = EXT2_ET_MAGIC_IO_CHANNEL;
	ch->manager = &layer_manager;
	ch->private_data = l;
	ch->block_size = l->inner->block_size;
	ch->refcount = 1;
	ch->flags = l->inner->flags;
	l->inner->app_data = ch;
	l->inner->read_error = read_failed;
	l->inner->write_error = write_failed;
	l->is_undo = st.mp->undo_path && !strcmp(name, st.mp->undo_path);
	if (l->is_undo)
		st.undo = l->inner;
	if (flags & IO_FLAG_RW)
		err = io_channel_set_options(l->inner, "cache=off");
out:
	if (err) {
		if (l && l->inner)
			io_channel_close(l->inner);
		if (l && st.undo == l->inner)
			st.undo = NULL;
		ext2fs_free_mem(&l);
		if (ch)
			ext2fs_free_mem(&ch->name);
		ext2fs_free_mem(&ch);
	} else
		*ret = ch;
	return err;
}

static errcode_t layer_close(io_channel ch)
{
	struct layer *l = L(ch);
	errcode_t err;

	if (--ch->refcount > 0)
		return 0;
	if (l->is_undo && st.undo == l->inner)
		st.undo = NULL;
	err = io_channel_close(l->inner);
	ext2fs_free_mem(&ch->name);
	ext2fs_free_mem(&ch->private_data);
	ext2fs_free_mem(&ch);
	return err;
}

static errcode_t layer_set_blksize(io_channel ch, int bs)
{
	errcode_t err = io_channel_set_blksize(L(ch)->inner, bs);

	if (!err)
		ch->block_size = bs;
	return err;
}

static errcode_t layer_read_blk64(io_channel ch, unsigned long long blk,
				  int count, void *buf)
{
	if (!L(ch)->is_undo && prefetch_lookup(st.mp, blk, count, buf))
		return 0;
	return io_channel_read_blk64(L(ch)->inner, blk, count, buf);
}

static errcode_t layer_read_blk(io_channel ch, unsigned long blk, int count,
				void *buf)
{
	return layer_read_blk64(ch, blk, count, buf);
}

/*
 * A header from the undo manager is written marked finished (see the top
 * of this file) and kept; everything else it writes goes as it is.
 */
static errcode_t undo_file_write(unsigned long long blk, int count,
				 const void *buf)
{
	struct undo_header h;
	errcode_t err;

	if (blk != 0 || count != -(int) sizeof(h) ||
	    memcmp(buf, UNDO_MAGIC, 8))
		return undo_write(blk, count, buf, 0);
	memcpy(&h, buf, sizeof(h));
	header_mark_finished(&h);
	err = undo_write(0, count, &h, 0);
	if (!err) {
		st.hdr = h;
		st.have_hdr = 1;
	}
	return err;
}

static errcode_t layer_write_blk64(io_channel ch, unsigned long long blk,
				   int count, const void *buf)
{
	struct vwrite w = { .buf = buf, .blk = blk, .count = count };

	if (L(ch)->is_undo)
		return undo_file_write(blk, count, buf);
	w.start = blk * ch->block_size;
	w.len = count < 0 ? (__u64) -count : (__u64) count * ch->block_size;
	return volume_write(ch, &w);
}

static errcode_t layer_write_blk(io_channel ch, unsigned long blk,
				 int count, const void *buf)
{
	return layer_write_blk64(ch, blk, count, buf);
}

static errcode_t layer_write_byte(io_channel ch, unsigned long off,
				  int size, const void *buf)
{
	struct vwrite w = { .start = off, .len = size, .buf = buf,
			    .is_byte = 1 };
	struct layer *l = L(ch);
	errcode_t err;

	if (l->is_undo) {
		if (st.sealed)
			return st.sealed;
		err = io_channel_write_byte(l->inner, off, size, buf);
		if (err)
			st.sealed = err;
	} else
		err = volume_write(ch, &w);
	/* unix_io reports no write_byte error through write_failed() */
	error_note(l->is_undo, "writing", off, err);
	return err;
}

/* A barrier: the undo file reaches stable storage before the volume. */
static errcode_t layer_flush(io_channel ch)
{
	struct layer *l = L(ch);
	errcode_t err = 0;

	if (l->is_undo || st.undo) {
		err = st.sealed;
		if (!err)
			err = io_channel_flush(st.undo);
		/* what the undo file holds may not be on stable storage */
		if (err && !st.sealed) {
			st.sealed = err;
			error_note(1, "flushing", 0, err);
		}
	}
	if (!err && !l->is_undo) {
		err = io_channel_flush(l->inner);
		error_note(0, "flushing", 0, err);
	}
	return err;
}

static errcode_t layer_set_option(io_channel ch, const char *opt,
				  const char *arg)
{
	io_channel in = L(ch)->inner;

	if (!in->manager->set_option)
		return EXT2_ET_INVALID_ARGUMENT;
	return in->manager->set_option(in, opt, arg);
}

static errcode_t layer_get_stats(io_channel ch, io_stats *stats)
{
	io_channel in = L(ch)->inner;

	return in->manager->get_stats ? in->manager->get_stats(in, stats) : 0;
}

static errcode_t layer_discard(io_channel ch, unsigned long long blk,
			       unsigned long long n)
{
	return io_channel_discard(L(ch)->inner, blk, n);
}

static errcode_t layer_zeroout(io_channel ch, unsigned long long blk,
			       unsigned long long n)
{
	return io_channel_zeroout(L(ch)->inner, blk, n);
}

static errcode_t layer_readahead(io_channel ch, unsigned long long blk,
				 unsigned long long n)
{
	return io_channel_cache_readahead(L(ch)->inner, blk, n);
}

static struct struct_io_manager layer_manager = {
	.magic		= EXT2_ET_MAGIC_IO_MANAGER,
	.name		= "e3metapack I/O layer",
	.open		= layer_open,
	.close		= layer_close,
	.set_blksize	= layer_set_blksize,
	.read_blk	= layer_read_blk,
	.write_blk	= layer_write_blk,
	.flush		= layer_flush,
	.write_byte	= layer_write_byte,
	.set_option	= layer_set_option,
	.get_stats	= layer_get_stats,
	.read_blk64	= layer_read_blk64,
	.write_blk64	= layer_write_blk64,
	.discard	= layer_discard,
	.zeroout	= layer_zeroout,
	.cache_readahead = layer_readahead,
};

/*
 * @err, or else the first I/O error of the run: one that a libext2fs
 * routine retried, or lost on its way up, still fails the step.
 */
errcode_t io_checked(struct e3mp *mp, errcode_t err)
{
	return err ? err : mp->io_err.err;
}

/* The manager to open @mp's volume with (under the undo manager, if any). */
io_manager io_layer(struct e3mp *mp)
{
	memset(&st, 0, sizeof(st));
	st.mp = mp;
	return &layer_manager;
}
