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
 *    superblock into the undo file only when it saves a new block; a
 *    later write to the already saved superblock would leave e2undo
 *    comparing against a stale copy and refusing.  After each write that
 *    touches the primary superblock, the copy and its checksum in the
 *    header are brought up to date.
 *
 *  - A flush of the volume first syncs the undo file, so that at every
 *    barrier of the write order (finish.c) the undo file on stable
 *    storage covers everything the volume has on it.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <string.h>

#include "e3metapack.h"

/* The undo file's header, as lib/ext2fs/undo_io.c and e2undo lay it out. */
#define UNDO_MAGIC		"E2UNDO02"
#define UNDO_HDR_SIZE		512
#define UNDO_SUPER_OFF		16	/* __le64 super_offset (undo blocks) */
#define UNDO_SB_CRC_OFF		40	/* __le32 sb_crc */
#define UNDO_STATE_OFF		44	/* __le32 state */
#define UNDO_HDR_CRC_OFF	508	/* __le32 header_crc */
#define UNDO_STATE_FINISHED	0x1

struct layer {
	io_channel	inner;		/* the unix_io channel */
	int		is_undo;	/* the undo file, not the volume */
};

/* One run at a time: partitions of a disk are done one after another. */
static struct {
	struct e3mp	*mp;
	io_channel	undo;		/* the undo file's unix_io channel */
	unsigned char	hdr[UNDO_HDR_SIZE];	/* as last written */
	int		have_hdr;
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

static void header_mark_finished(unsigned char *h)
{
	__u32 v;

	memcpy(&v, h + UNDO_STATE_OFF, 4);
	v = ext2fs_cpu_to_le32(ext2fs_le32_to_cpu(v) | UNDO_STATE_FINISHED);
	memcpy(h + UNDO_STATE_OFF, &v, 4);
	v = ext2fs_cpu_to_le32(ext2fs_crc32c_le(~0, h, UNDO_HDR_CRC_OFF));
	memcpy(h + UNDO_HDR_CRC_OFF, &v, 4);
}

/* Read the primary superblock of the volume behind @inner. */
static errcode_t super_read(io_channel inner, void *sb)
{
	int bs = inner->block_size;
	errcode_t err;

	err = io_channel_set_blksize(inner, SUPERBLOCK_OFFSET);
	if (!err)
		err = io_channel_read_blk64(inner, 1, -SUPERBLOCK_SIZE, sb);
	io_channel_set_blksize(inner, bs);
	return err;
}

/*
 * The volume's primary superblock was written: put its new contents into
 * the undo file's copy and the header's checksum of it, as e2undo will
 * compare them with the volume.  (The copy is kept with s_magic inverted,
 * so that the undo file is never mistaken for a filesystem.)
 */
static errcode_t undo_super_refresh(io_channel volume)
{
	struct ext2_super_block sb;
	__u64 where;
	__u32 crc;
	errcode_t err;

	if (!st.undo || !st.have_hdr)
		return 0;
	err = super_read(volume, &sb);
	if (err)
		return err;
	crc = ext2fs_cpu_to_le32(ext2fs_crc32c_le(~0, (unsigned char *) &sb,
						  SUPERBLOCK_SIZE));
	memcpy(st.hdr + UNDO_SB_CRC_OFF, &crc, 4);
	header_mark_finished(st.hdr);
	err = io_channel_write_blk64(st.undo, 0, -UNDO_HDR_SIZE, st.hdr);
	if (err)
		return err;
	sb.s_magic = ~sb.s_magic;
	memcpy(&where, st.hdr + UNDO_SUPER_OFF, 8);
	return io_channel_write_blk64(st.undo, ext2fs_le64_to_cpu(where),
				      -SUPERBLOCK_SIZE, &sb);
}

/* After a write of [@start, @start + @len) reached the volume. */
static errcode_t volume_wrote(io_channel ch, __u64 start, __u64 len)
{
	st.mp->dev_writes++;
	if (start >= SUPERBLOCK_OFFSET + SUPERBLOCK_SIZE ||
	    start + len <= SUPERBLOCK_OFFSET)
		return 0;
	return undo_super_refresh(L(ch)->inner);
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
	return io_channel_read_blk64(L(ch)->inner, blk, count, buf);
}

static errcode_t layer_read_blk(io_channel ch, unsigned long blk, int count,
				void *buf)
{
	return layer_read_blk64(ch, blk, count, buf);
}

static errcode_t layer_write_blk64(io_channel ch, unsigned long long blk,
				   int count, const void *buf)
{
	struct layer *l = L(ch);
	__u64 len = count < 0 ? (__u64) -count :
		    (__u64) count * ch->block_size;
	unsigned char h[UNDO_HDR_SIZE];
	errcode_t err;

	if (l->is_undo && blk == 0 && count == -UNDO_HDR_SIZE &&
	    !memcmp(buf, UNDO_MAGIC, 8)) {
		memcpy(h, buf, UNDO_HDR_SIZE);
		header_mark_finished(h);
		err = io_channel_write_blk64(l->inner, 0, count, h);
		if (!err) {
			memcpy(st.hdr, h, UNDO_HDR_SIZE);
			st.have_hdr = 1;
		}
		return err;
	}
	err = io_channel_write_blk64(l->inner, blk, count, buf);
	if (!err && !l->is_undo)
		err = volume_wrote(ch, blk * ch->block_size, len);
	return err;
}

static errcode_t layer_write_blk(io_channel ch, unsigned long blk,
				 int count, const void *buf)
{
	return layer_write_blk64(ch, blk, count, buf);
}

static errcode_t layer_write_byte(io_channel ch, unsigned long off,
				  int size, const void *buf)
{
	struct layer *l = L(ch);
	errcode_t err = io_channel_write_byte(l->inner, off, size, buf);

	/* unix_io reports no write_byte error through write_failed() */
	error_note(l->is_undo, "writing", off, err);
	if (!err && !l->is_undo)
		err = volume_wrote(ch, off, size);
	return err;
}

/* A barrier: the undo file reaches stable storage before the volume. */
static errcode_t layer_flush(io_channel ch)
{
	struct layer *l = L(ch);
	errcode_t err = 0;

	if (!l->is_undo && st.undo) {
		err = io_channel_flush(st.undo);
		error_note(1, "flushing", 0, err);
	}
	if (!err) {
		err = io_channel_flush(l->inner);
		error_note(l->is_undo, "flushing", 0, err);
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
