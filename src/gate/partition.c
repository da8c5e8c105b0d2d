/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * partition.c --- whole-disk images: find the filesystems inside
 *
 * A device or image that holds a filesystem itself is processed as it
 * is.  Otherwise libblkid reads its partition table (MBR or GPT) and each
 * partition is probed for a filesystem at its offset; main() then runs
 * the pipeline once per ext2/3/4 partition, through an "offset=" option
 * to the I/O manager (which the undo file records for e2undo).  A table
 * whose partitions overlap or run past the end of the image is refused
 * whole: writing through it could damage a neighbour.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <blkid/blkid.h>

#include "e3metapack.h"
#include "gate/fstype.h"

#define SECTOR	512ULL

static const struct e3mp_part *sort_parts;

static int cmp_start(const void *a, const void *b)
{
	const struct e3mp_part *x = &sort_parts[*(const int *) a];
	const struct e3mp_part *y = &sort_parts[*(const int *) b];

	return mp_cmp_u64(x->offset, y->offset);
}

/*
 * A partition that runs past the end of the device, or overlaps another
 * (extended containers aside), is refused: writing through it could
 * damage its neighbour.
 */
static errcode_t check_table(struct e3mp_part *p, int n, __u64 dev_size)
{
	int *idx, i, owner = -1;
	__u64 max_end = 0;
	errcode_t err;

	err = ext2fs_get_array(n, sizeof(*idx), &idx);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		idx[i] = i;
		if (p[i].offset + p[i].size > dev_size)
			p[i].refusal = E3MP_PART_PAST_END;
	}
	sort_parts = p;
	mp_sort(idx, n, sizeof(*idx), cmp_start);
	for (i = 0; i < n; i++) {
		struct e3mp_part *q = &p[idx[i]];

		if (q->extended)
			continue;
		if (owner >= 0 && q->offset < max_end) {
			q->refusal = E3MP_PART_OVERLAP;
			if (!p[owner].refusal)
				p[owner].refusal = E3MP_PART_OVERLAP;
		}
		if (q->offset + q->size > max_end) {
			max_end = q->offset + q->size;
			owner = idx[i];
		}
	}
	ext2fs_free_mem(&idx);
	return 0;
}

static errcode_t read_table(blkid_probe pr, int fd, struct e3mp_part **out,
			    int *nout)
{
	blkid_partlist ls = blkid_probe_get_partitions(pr);
	struct e3mp_part *p;
	errcode_t err;
	int i, n;

	n = ls ? blkid_partlist_numof_partitions(ls) : 0;
	if (n <= 0)
		return 0;
	err = ext2fs_get_arrayzero(n, sizeof(*p), &p);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		blkid_partition par = blkid_partlist_get_partition(ls, i);

		p[i].partno = blkid_partition_get_partno(par);
		p[i].offset = blkid_partition_get_start(par) * SECTOR;
		p[i].size = blkid_partition_get_size(par) * SECTOR;
		p[i].extended = blkid_partition_is_extended(par);
		if (!p[i].extended)
			probe_fs_type(fd, p[i].offset, p[i].size, p[i].type,
				      sizeof(p[i].type));
	}
	*out = p;
	*nout = n;
	return 0;
}

errcode_t partitions_probe(const char *dev, struct e3mp_part **parts,
			   int *nparts, __u64 *dev_size)
{
	blkid_probe pr = NULL;
	char whole[16];
	errcode_t err = 0;
	int fd;

	*parts = NULL;
	*nparts = 0;
	fd = open(dev, O_RDONLY);
	if (fd < 0)
		return errno;
	pr = blkid_new_probe();
	if (!pr || blkid_probe_set_device(pr, fd, 0, 0)) {
		err = ENOMEM;
		goto out;
	}
	*dev_size = blkid_probe_get_size(pr);
	/* a filesystem on the whole device wins over any table */
	probe_fs_type(fd, 0, 0, whole, sizeof(whole));
	if (whole[0])
		goto out;
	blkid_probe_enable_superblocks(pr, 0);
	blkid_probe_enable_partitions(pr, 1);
	err = read_table(pr, fd, parts, nparts);
	if (!err)
		err = check_table(*parts, *nparts, *dev_size);
out:
	if (pr)
		blkid_free_probe(pr);
	close(fd);
	return err;
}

/* Why partition @p is not processed, or 0. */
const char *partition_skip_reason(const struct e3mp_part *p)
{
	if (p->extended)
		return "extended partition (a container)";
	if (!p->type[0])
		return "no filesystem found";
	if (!fs_type_is_ext(p->type))
		return "not an ext2/3/4 filesystem";
	return NULL;
}
