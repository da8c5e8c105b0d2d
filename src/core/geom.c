/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * geom.c --- a volume's groups and zones, and where a record is homed
 *
 * The tail zone of a group (its last mc_max_pct percent) holds its
 * metacluster; the head zone, after the metadata at the group's start,
 * holds directory blocks under the --dirs modes that put some there.
 * The scan records what lies in a zone, the plan fills the zones: both
 * see the groups through these functions.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "core/geom.h"

/* The --dirs modes that put some directory blocks in head zones. */
static int dirs_in_heads(const struct mp_geom *g)
{
	return g->dirs == E3MP_DIRS_ROOTS || g->dirs == E3MP_DIRS_VOLUME;
}

/* Directory block @r goes to its group's head zone (dirs_in_heads()). */
int mp_rec_in_head(const struct mp_geom *g, const struct ind_rec *r)
{
	if (!(r->flags & REC_DIR))
		return 0;
	return (g->dirs == E3MP_DIRS_ROOTS && r->logical == 0) ||
	       (g->dirs == E3MP_DIRS_VOLUME && (r->flags & REC_EARLY));
}

/* ---- geometry, shared with the scan -------------------------------- */

blk64_t mp_group_first(const struct mp_geom *g, __u32 grp)
{
	return g->first_data_block + (blk64_t) grp * g->blocks_per_group;
}

blk64_t mp_group_last(const struct mp_geom *g, __u32 grp)
{
	blk64_t last = mp_group_first(g, grp) + g->blocks_per_group - 1;

	return last < g->blocks_count - 1 ? last : g->blocks_count - 1;
}

__u32 mp_group_of(const struct mp_geom *g, blk64_t blk)
{
	return (blk - g->first_data_block) / g->blocks_per_group;
}

blk64_t mp_zone_first(const struct mp_geom *g, __u32 grp)
{
	blk64_t first = mp_group_first(g, grp);
	blk64_t len = mp_group_last(g, grp) - first + 1;
	blk64_t zone = len * g->mc_max_pct / 100;

	if (zone == 0)
		zone = 1;
	return first + len - zone;
}

/*
 * The end (exclusive) of group @grp's head zone: as many blocks as the
 * tail zone after the metadata at the group's start, never into the tail
 * zone.  Empty unless directories go there.
 */
blk64_t mp_head_end(const struct mp_geom *g, __u32 grp)
{
	blk64_t first = mp_group_first(g, grp), zone = mp_zone_first(g, grp);
	blk64_t end = first + g->head_meta + (mp_group_last(g, grp) + 1 - zone);

	if (!dirs_in_heads(g))
		return first;
	return end < zone ? end : zone;
}

/* @blk lies in its group's tail zone or head zone. */
int mp_in_zone(const struct mp_geom *g, blk64_t blk)
{
	__u32 grp = mp_group_of(g, blk);

	return blk >= mp_zone_first(g, grp) || blk < mp_head_end(g, grp);
}

/*
 * Kept where it is by the rule: under the inline rule, a file's first
 * IND block (level 1, pointed to from i_block[12]).  The allocator put it
 * right after the 12th data block, where a sequential read of the file
 * finds it without a seek.
 */
int mp_rec_kept(enum e3mp_homing h, const struct ind_rec *r)
{
	return h == E3MP_HOME_INLINE && r->level == 1 &&
	       (r->flags & REC_IN_INODE);
}

/*
 * A directory's blocks, and the indirect blocks that map them, are homed
 * with the directory's inode under every rule: its data moves there, so
 * homing its indirect blocks by where the data was would move them again
 * on the next run.  Under --dirs=volume its blocks, but a block 0 that
 * e2fsck reads early (REC_EARLY), are homed in the middle group, the
 * region of the whole volume.
 *
 * With --mc-span=N the tail of every N-th group holds the metaclusters
 * of the N groups from it on, one after the other in group order: the
 * kernel's read-ahead past the one e2fsck reads at the end of a group
 * brings in the next ones.  A head-zone block stays in its own group,
 * beside the inode table e2fsck reads it with.
 */
__u32 mp_home(const struct mp_geom *g, enum e3mp_homing h,
	      const struct ind_rec *r)
{
	__u32 grp;

	if (g->dirs == E3MP_DIRS_VOLUME && (r->flags & REC_DIR) &&
	    !mp_rec_in_head(g, r))
		return g->group_count / 2;
	if (h == E3MP_HOME_DATA && !(r->flags & (REC_DIR | REC_OF_DIR)))
		grp = r->data_group;
	else
		grp = (r->ino - 1) / g->inodes_per_group;
	if (g->mc_span > 1 && !mp_rec_in_head(g, r))
		grp -= grp % g->mc_span;
	return grp;
}
