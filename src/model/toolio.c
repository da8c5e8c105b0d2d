/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * toolio.c --- the tool's own requests walked through the model disk
 *
 * The replay of bench/hddmodel.py's strace command, in C, so that the
 * report can predict what the bench measures: the same page cache, the
 * same write-back at each sync (dirty blocks once each, in block order,
 * runs of neighbours as one request) and at each kick the copies give
 * the kernel's writeback (write/writeback.c), and the undo manager's
 * read of a whole unit before the first write into it.  Pure logic:
 * the caller says which blocks are read and written, in the order the
 * run issues them (predtool.c), and keeps the block sets behind struct
 * mp_set_ops.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "model/disk.h"

void mp_toolio_init(struct mp_toolio *t, const struct mp_disk_params *p,
		    blk64_t nblocks, unsigned int blocksize, __u32 unit,
		    __u32 skew, const struct mp_set_ops *ops, void *priv)
{
	mp_disk_init(&t->d, p, (__u64) nblocks * blocksize, blocksize);
	t->ops = ops;
	t->priv = priv;
	t->nblocks = nblocks;
	t->unit = unit;
	t->skew = unit ? skew % unit : 0;
	t->read_ms = t->write_ms = 0;
	t->reads = t->writes = t->read_blocks = t->write_blocks = 0;
	t->syncs = 0;
	t->kick_due = -1;
}

/* Every dirty block goes out now, once, in block order. */
static void write_out(struct mp_toolio *t)
{
	blk64_t b = 0, next, end = t->nblocks ? t->nblocks - 1 : 0;

	t->kick_due = -1;
	while (t->nblocks && b <= end &&
	       t->ops->find(t->priv, MP_S_DIRTY, 1, b, end, &b)) {
		if (!t->ops->find(t->priv, MP_S_DIRTY, 0, b, end, &next))
			next = end + 1;
		t->write_ms += mp_disk_read(&t->d, b, next - b);
		t->writes++;
		t->write_blocks += next - b;
		t->ops->mark(t->priv, MP_S_DIRTY, b, next - b, 0);
		b = next;
	}
}

/*
 * A read of @count blocks from @blk: what the page cache does not hold
 * goes to the disk, one request per run of blocks it lacks.
 */
void mp_toolio_read(struct mp_toolio *t, blk64_t blk, __u64 count)
{
	blk64_t end, b, next;

	if (!count || blk >= t->nblocks)
		return;
	end = blk + count - 1 < t->nblocks ? blk + count - 1 :
					     t->nblocks - 1;
	for (b = blk; b <= end; b = next) {
		if (!t->ops->find(t->priv, MP_S_CACHED, 0, b, end, &b))
			break;
		if (!t->ops->find(t->priv, MP_S_CACHED, 1, b, end, &next))
			next = end + 1;
		if (t->kick_due >= 0 && t->d.ms >= t->kick_due)
			write_out(t);
		t->read_ms += mp_disk_read(&t->d, b, next - b);
		t->reads++;
		t->read_blocks += next - b;
		t->ops->mark(t->priv, MP_S_CACHED, b, next - b, 1);
	}
}

/*
 * The undo unit holding @blk (@unit blocks, starting where the partition
 * offset puts them: @skew is that offset % @unit): its first block, and
 * in *@count its length (the volume's first unit may start before
 * block 0, and is cut there).
 */
blk64_t mp_undo_unit_first(blk64_t blk, __u32 unit, __u32 skew,
			   __u32 *count)
{
	blk64_t first = (blk + skew) / unit * unit;

	*count = unit;
	if (first >= skew)
		return first - skew;
	*count = unit - skew;
	return 0;
}

/* Before a write into it: the undo manager reads the unit holding @blk. */
static void unit_save(struct mp_toolio *t, blk64_t blk)
{
	__u32 count;
	blk64_t first = mp_undo_unit_first(blk, t->unit, t->skew, &count);
	blk64_t dummy;

	if (t->ops->find(t->priv, MP_S_SAVED, 1, first, first, &dummy))
		return;
	t->ops->mark(t->priv, MP_S_SAVED, first, 1, 1);
	mp_toolio_read(t, first, count);
}

/* A read of the whole undo unit holding @blk (bitmapio.c's bitmap reads). */
void mp_toolio_read_unit(struct mp_toolio *t, blk64_t blk)
{
	__u32 count = 1;
	blk64_t first = t->unit > 1 ?
		mp_undo_unit_first(blk, t->unit, t->skew, &count) : blk;

	mp_toolio_read(t, first, count);
}

/* A write: saved first if need be, then dirty in the page cache. */
void mp_toolio_write(struct mp_toolio *t, blk64_t blk, __u64 count)
{
	__u64 i;

	if (!count || blk >= t->nblocks)
		return;
	if (count > t->nblocks - blk)
		count = t->nblocks - blk;
	for (i = 0; t->unit && i < count; i++)
		if (i == 0 || (blk + i + t->skew) % t->unit == 0)
			unit_save(t, blk + i);
	t->ops->mark(t->priv, MP_S_CACHED, blk, count, 1);
	t->ops->mark(t->priv, MP_S_DIRTY, blk, count, 1);
}

/*
 * A kick (writeback.c's sync_file_range(SYNC_FILE_RANGE_WRITE) on the
 * device): the dirty blocks go out, runs of neighbours as one request,
 * but MP_TOOLIO_KICK_LAG_MS late: the run does not wait for them, and
 * the reads it makes meanwhile (the undo manager's) reach the disk
 * first.  A later kick before they went joins them.
 */
void mp_toolio_kick(struct mp_toolio *t)
{
	if (t->kick_due < 0)
		t->kick_due = t->d.ms + MP_TOOLIO_KICK_LAG_MS;
}

/* A sync (a barrier): everything dirty goes out, and the run waits. */
void mp_toolio_sync(struct mp_toolio *t)
{
	t->syncs++;
	write_out(t);
}
