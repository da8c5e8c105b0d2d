/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_plan.c --- unit tests of the layout planner (src/plan/plan.c)
 *
 * The planner is driven with synthetic volumes: every block is a cell
 * holding nothing (free), fixed metadata, an indirect block (one of the
 * ind_rec records) or a file's data block.  As scan.c does, data blocks
 * in the tail zones are handed over as data_ext runs (a block that is the
 * first data block of some records starts a run and anchors them); data
 * outside the zones looks like fixed metadata to the planner.  The space
 * ops are a byte array for the on-disk bitmap and a copy of it for the
 * planner's reservations.
 *
 * Every plan is checked against the invariants of check_plan(), which
 * also executes it on a copy of the cells the way finish.c does (per
 * round: reserve, copy, switch, release; round 1 then round 2) and makes
 * sure nothing is ever overwritten; cases add their own expectations.
 * apply() makes the executed plan the new state of the volume (and
 * rehomes records by where their first data block went, as a new scan
 * would; under data homing those blocks never move), so a second plan can
 * be made over it.
 *
 * Output: one "ok N - name" or "not ok N - name: why" line per case,
 * then "1..N"; the exit status is 0 only if every case passed.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "lib/keyheap.h"
#include "unit.h"

/* --- the synthetic volume ------------------------------------------------ */

enum { C_FREE = 0, C_FIXED, C_REC, C_DATA };

struct cell {
	__u8	kind;
	__u32	ino;	/* C_REC, C_DATA: owner */
	__u32	id;	/* C_REC: the record's tag; C_DATA: a serial */
};

#define MAXR	4096
#define MAXG	256

struct vol {
	struct mp_geom	g;
	struct cell	*c;		/* blocks_count cells */
	struct ind_rec	rec[MAXR];	/* scan order: inode order */
	__u32		tag[MAXR];	/* rec[i]'s content in the cells */
	__u32		fdata[MAXR];	/* id of its first data block, or 0 */
	__u32		nrec;
	struct data_ext	*ext;		/* rebuilt by prepare() */
	__u32		next;
	__u8		*ondisk, *work;
	blk64_t		*loc;		/* data id -> block, for prepare() */
	__u32		*anc_first, *anc_n;	/* block -> anchored records */
	__u32		serial;
	int		ops_bad;
	char		ops_msg[256];
};

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "test_plan: test bug: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(99);
}

/* Groups of @bpg blocks and @ipg inodes from @fdb, MCs of @pct %. */
static struct mp_geom geom(blk64_t fdb, __u32 bpg, blk64_t blocks_count,
			   __u32 ipg, unsigned pct)
{
	struct mp_geom g = {
		.first_data_block = fdb, .blocks_count = blocks_count,
		.blocks_per_group = bpg, .inodes_per_group = ipg,
		.group_count = (blocks_count - fdb + bpg - 1) / bpg,
		.mc_max_pct = pct, .addr_per_block = 256,
	};

	return g;
}

static struct vol *vol_new(blk64_t fdb, __u32 bpg, blk64_t blocks_count,
			   __u32 ipg, unsigned pct)
{
	struct vol *v = calloc(1, sizeof(*v));
	blk64_t b;

	if (!v)
		die("out of memory");
	v->g = geom(fdb, bpg, blocks_count, ipg, pct);
	v->c = calloc(blocks_count, sizeof(*v->c));
	v->ext = calloc(blocks_count, sizeof(*v->ext));
	v->ondisk = calloc(blocks_count, 1);
	v->work = calloc(blocks_count, 1);
	v->anc_first = calloc(blocks_count, sizeof(__u32));
	v->anc_n = calloc(blocks_count, sizeof(__u32));
	if (!v->c || !v->ext || !v->ondisk || !v->work || !v->anc_first ||
	    !v->anc_n)
		die("out of memory");
	for (b = 0; b < fdb; b++)
		v->c[b].kind = C_FIXED;
	return v;
}

static void vol_free(struct vol *v)
{
	if (!v)
		return;
	free(v->c);
	free(v->ext);
	free(v->ondisk);
	free(v->work);
	free(v->loc);
	free(v->anc_first);
	free(v->anc_n);
	free(v);
}

static void need_free(struct vol *v, blk64_t b)
{
	if (b >= v->g.blocks_count || v->c[b].kind != C_FREE)
		die("block %llu is not free", ULL(b));
}

static void set_fixed(struct vol *v, blk64_t a, blk64_t z)
{
	for (; a <= z; a++) {
		need_free(v, a);
		v->c[a].kind = C_FIXED;
	}
}

static void set_data(struct vol *v, blk64_t a, blk64_t z, __u32 ino)
{
	for (; a <= z; a++) {
		need_free(v, a);
		v->c[a].kind = C_DATA;
		v->c[a].ino = ino;
		v->c[a].id = ++v->serial;
	}
}

/* Fill every free block of [a, z] with fixed metadata. */
static void fill_fixed(struct vol *v, blk64_t a, blk64_t z)
{
	for (; a <= z; a++)
		if (v->c[a].kind == C_FREE)
			v->c[a].kind = C_FIXED;
}

/* The first few blocks of every group: superblock, bitmaps, inodes. */
static void std_meta(struct vol *v, __u32 n)
{
	__u32 grp;

	for (grp = 0; grp < v->g.group_count; grp++) {
		blk64_t f = mp_group_first(&v->g, grp);
		blk64_t l = mp_group_last(&v->g, grp);

		set_fixed(v, f, f + n - 1 <= l ? f + n - 1 : l);
	}
}

static __u32 ino_group(const struct vol *v, __u32 ino)
{
	return (ino - 1) / v->g.inodes_per_group;
}

/* Insert a record after every record of the same or a lower inode. */
static __u32 add_rec(struct vol *v, __u32 ino, blk64_t blk, __u8 level,
		     __u8 flags, __u32 logical, __u32 dg)
{
	__u32 at = v->nrec;

	if (v->nrec == MAXR)
		die("too many records");
	need_free(v, blk);
	while (at > 0 && v->rec[at - 1].ino > ino)
		at--;
	memmove(v->rec + at + 1, v->rec + at,
		(v->nrec - at) * sizeof(*v->rec));
	memmove(v->tag + at + 1, v->tag + at, (v->nrec - at) * sizeof(__u32));
	memmove(v->fdata + at + 1, v->fdata + at,
		(v->nrec - at) * sizeof(__u32));
	v->fdata[at] = 0;
	v->nrec++;
	memset(&v->rec[at], 0, sizeof(v->rec[at]));
	v->rec[at].blk = blk;
	v->rec[at].dest = blk;
	v->rec[at].ino = ino;
	v->rec[at].logical = logical;
	v->rec[at].data_group = dg;
	v->rec[at].level = level;
	v->rec[at].flags = flags;
	v->tag[at] = ++v->serial;
	v->c[blk].kind = C_REC;
	v->c[blk].ino = ino;
	v->c[blk].id = v->tag[at];
	return at;
}

/*
 * Record @i maps data whose first block is @blk (a data block of its
 * file): its data group is that block's, wherever the block goes.
 */
static void set_fdata(struct vol *v, __u32 i, blk64_t blk)
{
	if (v->c[blk].kind != C_DATA || v->c[blk].ino != v->rec[i].ino)
		die("block %llu is no data of inode %u", ULL(blk),
		    v->rec[i].ino);
	v->fdata[i] = v->c[blk].id;
	v->rec[i].data_group = mp_group_of(&v->g, blk);
}

/*
 * A file's indirect blocks in scan (pre-)order: the IND of i_block[12],
 * then the DIND of i_block[13] followed by its INDs.  @dg, if not NULL,
 * gives each record's data group; otherwise the inode's group is used.
 */
static void add_file_dg(struct vol *v, __u32 ino, __u32 n, const blk64_t *blk,
			const __u32 *dg)
{
	__u32 k;

	for (k = 0; k < n; k++) {
		__u8 level = k == 1 ? 2 : 1;
		__u8 flags = k < 2 ? REC_IN_INODE : 0;
		__u32 logical = k == 0 ? 12 : 12 + 256 * (k > 1 ? k - 1 : 1);

		add_rec(v, ino, blk[k], level, flags, logical,
			dg ? dg[k] : ino_group(v, ino));
	}
}

static void add_file(struct vol *v, __u32 ino, __u32 n, const blk64_t *blk)
{
	add_file_dg(v, ino, n, blk, NULL);
}

/* A file whose n indirect blocks sit at first, first + 1, ... */
static void add_file_at(struct vol *v, __u32 ino, __u32 n, blk64_t first)
{
	blk64_t blk[64];
	__u32 k;

	if (n > 64)
		die("file too big");
	for (k = 0; k < n; k++)
		blk[k] = first + k;
	add_file(v, ino, n, blk);
}

static int rec_of_ino(const struct vol *v, __u32 ino, __u32 k)
{
	__u32 i;

	for (i = 0; i < v->nrec; i++)
		if (v->rec[i].ino == ino) {
			if (!k)
				return i;
			k--;
		}
	die("no record %u of inode %u", k, ino);
	return -1;
}

static blk64_t dest_of(const struct vol *v, __u32 ino, __u32 k)
{
	return v->rec[rec_of_ino(v, ino, k)].dest;
}

static __u32 count_free(const struct vol *v)
{
	blk64_t b;
	__u32 n = 0;

	for (b = v->g.first_data_block; b < v->g.blocks_count; b++)
		n += v->c[b].kind == C_FREE;
	return n;
}

/* --- the planner's view -------------------------------------------------- */

static void ops_error(struct vol *v, const char *fmt, ...)
{
	va_list ap;

	if (v->ops_bad++)
		return;
	va_start(ap, fmt);
	vsnprintf(v->ops_msg, sizeof(v->ops_msg), fmt, ap);
	va_end(ap);
}

static int op_in_use(void *priv, blk64_t blk)
{
	struct vol *v = priv;

	if (blk < v->g.first_data_block || blk >= v->g.blocks_count) {
		ops_error(v, "in_use(%llu) out of the volume", ULL(blk));
		return 1;
	}
	return v->ondisk[blk];
}

static int op_find_free(void *priv, blk64_t start, blk64_t end, blk64_t *out)
{
	struct vol *v = priv;
	blk64_t b;

	if (start < v->g.first_data_block || end >= v->g.blocks_count ||
	    start > end) {
		ops_error(v, "find_free(%llu, %llu) out of the volume",
			  ULL(start), ULL(end));
		return 22;
	}
	for (b = start; b <= end; b++)
		if (!v->work[b]) {
			*out = b;
			return 0;
		}
	return 2;
}

static void op_take(void *priv, blk64_t blk)
{
	struct vol *v = priv;

	if (blk < v->g.first_data_block || blk >= v->g.blocks_count) {
		ops_error(v, "take(%llu) out of the volume", ULL(blk));
		return;
	}
	if (v->work[blk])
		ops_error(v, "take(%llu) of a block already in use or taken",
			  ULL(blk));
	v->work[blk] = 1;
}

static const struct mp_space_ops ops = {
	.in_use = op_in_use,
	.find_free = op_find_free,
	.take = op_take,
};

/* Where every data block is now, by id. */
static void locate(struct vol *v)
{
	blk64_t b;

	free(v->loc);
	v->loc = calloc(v->serial + 1, sizeof(blk64_t));
	if (!v->loc)
		die("out of memory");
	for (b = 0; b < v->g.blocks_count; b++)
		if (v->c[b].kind == C_DATA)
			v->loc[v->c[b].id] = b;
}

/*
 * Bitmaps, free count and the data extents, as scan.c makes them: data
 * in the tail zones only, and a block that is the first data block of
 * some records (its anchors, consecutive in scan order) starts an extent.
 */
static void prepare(struct vol *v)
{
	blk64_t b;
	__u32 i;

	v->next = 0;
	v->ops_bad = 0;
	v->ops_msg[0] = 0;
	locate(v);
	memset(v->anc_n, 0, v->g.blocks_count * sizeof(__u32));
	for (i = 0; i < v->nrec; i++) {
		if (!v->fdata[i])
			continue;
		b = v->loc[v->fdata[i]];
		if (v->c[b].kind != C_DATA || v->c[b].id != v->fdata[i])
			die("record %u lost its data", i);
		if (!v->anc_n[b])
			v->anc_first[b] = i;
		else if (v->anc_first[b] + v->anc_n[b] != i)
			die("anchors of block %llu not consecutive", ULL(b));
		v->anc_n[b]++;
	}
	for (b = 0; b < v->g.blocks_count; b++) {
		struct cell *c = &v->c[b];
		struct data_ext *e = v->next ? &v->ext[v->next - 1] : NULL;

		v->ondisk[b] = v->work[b] = c->kind != C_FREE;
		/* (as the scan: data in the head and tail zones) */
		if (c->kind != C_DATA || b < v->g.first_data_block ||
		    !mp_in_zone(&v->g, b))
			continue;
		if (!v->anc_n[b] && e && e->ino == c->ino &&
		    e->start + e->len == b) {
			e->len++;
			continue;
		}
		e = &v->ext[v->next++];
		memset(e, 0, sizeof(*e));
		e->start = b;
		e->len = 1;
		e->ino = c->ino;
		e->anchor = v->anc_n[b] ? v->anc_first[b] : 0;
		e->nanchor = v->anc_n[b];
	}
	v->g.free_blocks = count_free(v);
}

static errcode_t plan(struct vol *v, enum e3mp_homing h, struct mp_plan *p)
{
	prepare(v);
	return mp_plan_build(p, &v->g, h, v->rec, v->nrec, v->ext, v->next,
			     &ops, v);
}

/* --- what the checker knows ---------------------------------------------- */

static const struct data_ext *ext_cover(const struct vol *v, blk64_t b)
{
	__u32 i;

	for (i = 0; i < v->next; i++)
		if (b >= v->ext[i].start && b < v->ext[i].start + v->ext[i].len)
			return &v->ext[i];
	return NULL;
}

/* In use, but neither an indirect block nor recorded data: never moves. */
static int immovable(const struct vol *v, blk64_t b)
{
	if (b < v->g.first_data_block || b >= v->g.blocks_count)
		return 1;
	if (v->c[b].kind == C_FIXED)
		return 1;
	return v->c[b].kind == C_DATA && !ext_cover(v, b);
}

/*
 * Under data homing, the first data block of some records (an extent
 * start with anchors) decides their home: it is never a slot and never
 * moves.  Under inode homing it is ordinary data.
 */
static int is_anchor(const struct vol *v, enum e3mp_homing h, blk64_t b)
{
	const struct data_ext *e;

	if (h != E3MP_HOME_DATA)
		return 0;
	e = ext_cover(v, b);
	return e && e->start == b && e->nanchor;
}

static int rec_by_blk(const struct vol *v, blk64_t b)
{
	__u32 i;

	for (i = 0; i < v->nrec; i++)
		if (v->rec[i].blk == b)
			return i;
	return -1;
}

/*
 * Under the inline rule a file's first IND (level 1, from i_block[12])
 * is kept where it is: in no run, no demand, never a slot, never moved.
 */
static int kept(const struct vol *v, enum e3mp_homing h, __u32 i)
{
	return h == E3MP_HOME_INLINE && v->rec[i].level == 1 &&
	       (v->rec[i].flags & REC_IN_INODE);
}

static int kept_blk(const struct vol *v, enum e3mp_homing h, blk64_t b)
{
	int i = rec_by_blk(v, b);

	return i >= 0 && kept(v, h, i);
}

/* What may be a slot of an MC. */
static int eligible_blk(const struct vol *v, enum e3mp_homing h, blk64_t b)
{
	return !immovable(v, b) && !is_anchor(v, h, b) && !kept_blk(v, h, b);
}

static int rec_by_tag(const struct vol *v, __u32 tag)
{
	__u32 i;

	for (i = 0; i < v->nrec; i++)
		if (v->tag[i] == tag)
			return i;
	return -1;
}

static int rec_by_dest(const struct vol *v, blk64_t b)
{
	__u32 i;

	for (i = 0; i < v->nrec; i++)
		if (v->rec[i].dest == b && v->rec[i].blk != b)
			return i;
	return -1;
}

static long slot_idx(const struct mp_plan *p, blk64_t b)
{
	__u32 i;

	for (i = 0; i < p->nslot; i++)
		if (p->slot[i] == b)
			return i;
	return -1;
}

static int head_rec(const struct vol *v, __u32 i);

/*
 * Directory records, and a directory's INDs, are homed with the inode;
 * under --dirs=volume directory records (but htree roots) in the middle
 * group.
 */
static __u32 home_of(const struct vol *v, enum e3mp_homing h, __u32 i)
{
	int by_data = h == E3MP_HOME_DATA &&
		      !(v->rec[i].flags & (REC_DIR | REC_OF_DIR));
	__u32 grp = by_data ? v->rec[i].data_group :
		    ino_group(v, v->rec[i].ino);

	/* --mc-span: the first group of the span, but for head blocks */
	if (v->g.mc_span > 1 && !head_rec(v, i))
		grp = grp / v->g.mc_span * v->g.mc_span;
	if (v->g.dirs == E3MP_DIRS_VOLUME && (v->rec[i].flags & REC_DIR) &&
	    !head_rec(v, i))
		grp = v->g.group_count / 2;

	return grp < v->g.group_count ? grp : v->g.group_count - 1;
}

/* @b is a slot of some MC: where a record counts as packed. */
static int in_slots(const struct mp_plan *p, blk64_t b)
{
	return slot_idx(p, b) >= 0;
}

/* In a tail zone's slot (an MC): where an indirect block counts. */
static int in_tail_slots(const struct mp_plan *p, blk64_t b)
{
	long s = slot_idx(p, b);

	return s >= 0 && (__u32) s >= p->tail_first[mp_group_of(&p->g, b)];
}

static const char *kind_name(int k)
{
	switch (k) {
	case MV_IND: return "IND";
	case MV_DATA: return "DATA";
	case MV_TEMP: return "TEMP";
	case MV_OUT: return "OUT";
	case MV_DIR: return "DIR";
	}
	return "?";
}

/* Round 1 moves the unplaced record at @blk out of its slot. */
static int has_out(const struct mp_plan *p, blk64_t blk)
{
	__u32 k;

	for (k = 0; k < p->nmv[0]; k++)
		if (p->mv[0][k].kind == MV_OUT && p->mv[0][k].from == blk)
			return 1;
	return 0;
}

/*
 * Execute the plan on a copy of the cells, the way finish.c does: per
 * round, every destination must be empty when the round starts (it is
 * reserved first), every source must hold what the move says it holds;
 * then all copies happen, then all sources are released.
 */
static int simulate(const struct vol *v, const struct mp_plan *p,
		    struct cell *out)
{
	blk64_t nb = v->g.blocks_count;
	struct cell *tmp;
	int r;
	__u32 k, used_before = 0, used_after = 0;
	blk64_t b;

	memcpy(out, v->c, nb * sizeof(*out));
	for (r = 0; r < 2; r++) {
		const struct mp_move *mv = p->mv[r];

		tmp = calloc(p->nmv[r] + 1, sizeof(*tmp));
		if (!tmp)
			die("out of memory");
		for (k = 0; k < p->nmv[r]; k++) {
			const struct mp_move *m = &mv[k];
			const struct cell *src;
			int x;

			if (m->from >= nb || m->to >= nb ||
			    m->from < v->g.first_data_block ||
			    m->to < v->g.first_data_block) {
				free(tmp);
				return fail("round %d move %u %llu->%llu out "
					    "of the volume", r + 1, k,
					    ULL(m->from), ULL(m->to));
			}
			src = &out[m->from];
			if (out[m->to].kind != C_FREE) {
				free(tmp);
				return fail("round %d move %u (%s %llu->%llu): "
					    "destination not empty at the "
					    "start of the round (kind %d)",
					    r + 1, k, kind_name(m->kind),
					    ULL(m->from), ULL(m->to),
					    out[m->to].kind);
			}
			if (m->kind == MV_DATA) {
				if (src->kind != C_DATA || src->ino != m->ino) {
					free(tmp);
					return fail("round %d DATA move %llu->"
						    "%llu: source holds no "
						    "data of inode %u",
						    r + 1, ULL(m->from),
						    ULL(m->to), m->ino);
				}
			} else {
				x = src->kind == C_REC ?
				    rec_by_tag(v, src->id) : -1;
				if (x < 0 || v->rec[x].ino != m->ino ||
				    v->rec[x].level != m->level) {
					free(tmp);
					return fail("round %d %s move %llu->"
						    "%llu: source holds no "
						    "indirect block of inode "
						    "%u level %u", r + 1,
						    kind_name(m->kind),
						    ULL(m->from), ULL(m->to),
						    m->ino, m->level);
				}
				if ((m->kind == MV_IND || m->kind == MV_DIR ||
				     m->kind == MV_OUT) &&
				    v->rec[x].dest != m->to) {
					free(tmp);
					return fail("round %d %s move %llu->"
						    "%llu carries the record "
						    "whose dest is %llu",
						    r + 1, kind_name(m->kind),
						    ULL(m->from), ULL(m->to),
						    ULL(v->rec[x].dest));
				}
			}
			tmp[k] = *src;
		}
		for (k = 0; k < p->nmv[r]; k++) {
			if (out[mv[k].from].kind == C_FREE) {
				free(tmp);
				return fail("round %d: block %llu is the "
					    "source of two moves", r + 1,
					    ULL(mv[k].from));
			}
			out[mv[k].from].kind = C_FREE;
		}
		for (k = 0; k < p->nmv[r]; k++) {
			if (out[mv[k].to].kind != C_FREE) {
				free(tmp);
				return fail("round %d: block %llu is the "
					    "destination of two moves",
					    r + 1, ULL(mv[k].to));
			}
			out[mv[k].to] = tmp[k];
		}
		free(tmp);
	}
	for (b = 0; b < nb; b++) {
		used_before += v->c[b].kind != C_FREE;
		used_after += out[b].kind != C_FREE;
	}
	if (used_before != used_after)
		return fail("%u blocks in use before the plan, %u after",
			    used_before, used_after);
	for (k = 0; k < v->nrec; k++) {
		const struct cell *c = &out[v->rec[k].dest];

		if (c->kind != C_REC || c->id != v->tag[k])
			return fail("record %u (ino %u, blk %llu) is not at "
				    "its dest %llu after both rounds", k,
				    v->rec[k].ino, ULL(v->rec[k].blk),
				    ULL(v->rec[k].dest));
	}
	return 0;
}

/*
 * Directory record @i goes to its group's head zone: a directory's block
 * 0 under --dirs=roots, an htree's root under --dirs=volume.
 */
static int head_rec(const struct vol *v, __u32 i)
{
	return (v->rec[i].flags & REC_DIR) &&
	       ((v->g.dirs == E3MP_DIRS_ROOTS && v->rec[i].logical == 0) ||
		(v->g.dirs == E3MP_DIRS_VOLUME &&
		 (v->rec[i].flags & REC_EARLY)));
}

static int model_extends(const struct vol *v, enum e3mp_homing h, int x,
			 __u32 grp, int cl);
static int model_span(const struct vol *v, enum e3mp_homing h, int x,
		      blk64_t lo, blk64_t hi, blk64_t *low, blk64_t *high);

/*
 * The head zone's slots of group @grp: its first @need eligible blocks
 * (in block order, *@got of them), before mp_head_end(); then, when it
 * has them all, the eligible blocks after them that hold its head-zone
 * directory blocks, in the prefix of each directory's that lies in the
 * zone, as far as every such prefix met is whole.  Returns how many.
 */
static __u32 model_head(const struct vol *v, enum e3mp_homing h, __u32 grp,
			__u64 need, blk64_t *want, __u32 *got)
{
	blk64_t b = mp_group_first(&v->g, grp), end = mp_head_end(&v->g, grp);
	blk64_t high = 0, lo, hi;
	__u32 n = 0, done;
	int x;

	for (; b < end && n < need; b++)
		if (eligible_blk(v, h, b))
			want[n++] = b;
	*got = done = n;
	for (; n == need && b < end; b++) {
		if (!eligible_blk(v, h, b))
			continue;
		x = rec_by_blk(v, b);
		if (!model_extends(v, h, x, grp, 0) ||
		    !model_span(v, h, x, mp_group_first(&v->g, grp), end - 1,
				&lo, &hi))
			break;
		want[n++] = b;
		if (hi > high)
			high = hi;
		if (b >= high)
			done = n;
	}
	return done;
}

/* The tail zone's: its last @need eligible blocks, in block order. */
static __u32 model_tail(const struct vol *v, enum e3mp_homing h, __u32 grp,
			__u64 need, blk64_t *want)
{
	blk64_t first = mp_zone_first(&v->g, grp), b;
	__u32 got = 0, k;

	for (b = mp_group_last(&v->g, grp); b >= first && got < need; b--) {
		if (eligible_blk(v, h, b))
			want[got++] = b;
		if (b == 0)
			break;
	}
	for (k = 0; k < got / 2; k++) {
		blk64_t t = want[k];

		want[k] = want[got - 1 - k];
		want[got - 1 - k] = t;
	}
	return got;
}

static int rec_class(const struct vol *v, __u32 i);
static int is_dir(const struct vol *v, __u32 i);

/*
 * The prefix of directory record @x's run (its directory's records of
 * that home and class, in logical order) that lies in blocks @lo to @hi
 * in at most two ascending pieces: 0 when @x is not in it, else 1 and
 * its lowest and highest blocks in *@low, *@high.
 */
static int model_span(const struct vol *v, enum e3mp_homing h, int x,
		      blk64_t lo, blk64_t hi, blk64_t *low, blk64_t *high)
{
	blk64_t prev = 0, b;
	int pieces = 2, in = 0;
	__u32 j;

	*low = hi;
	*high = lo;
	for (j = 0; j < v->nrec; j++) {
		if (v->rec[j].ino != v->rec[x].ino ||
		    rec_class(v, j) != rec_class(v, x) ||
		    home_of(v, h, j) != home_of(v, h, x) || kept(v, h, j))
			continue;
		b = v->rec[j].blk;
		if (b < lo || b > hi || (b < prev && --pieces == 0))
			break;
		prev = b;
		if (b < *low)
			*low = b;
		if (b > *high)
			*high = b;
		in |= (int) j == x;
	}
	return in;
}

/* Record @x may extend a region of group @grp of its class (@cl). */
static int model_extends(const struct vol *v, enum e3mp_homing h, int x,
			 __u32 grp, int cl)
{
	return x >= 0 && is_dir(v, x) && rec_class(v, x) == cl &&
	       home_of(v, h, x) == grp && !kept(v, h, x);
}

/*
 * Below the @got slots of group @grp's tail region at @want (ascending),
 * the blocks that extend it: going down over eligible blocks, tail
 * directory blocks homed in @grp in the prefix of their runs that lies
 * in the zone (model_span()), up to the first eligible block that
 * is not one, and only as far down as every such prefix met is whole
 * (*@below of them).
 * Then the @ext eligible blocks below those.  Into @more, downwards;
 * returns how many.
 */
static __u32 model_below(const struct vol *v, enum e3mp_homing h,
			 __u32 grp, const blk64_t *want, __u32 got, __u32 ext,
			 blk64_t *more, __u32 *below)
{
	blk64_t first = mp_zone_first(&v->g, grp);
	blk64_t b = got ? want[0] : mp_group_last(&v->g, grp) + 1;
	blk64_t low = ~(blk64_t) 0, lo, hi, top = b;
	__u32 n = 0;
	int x;

	*below = 0;
	while (b > first) {
		if (!eligible_blk(v, h, --b))
			continue;
		x = rec_by_blk(v, b);
		if (!model_extends(v, h, x, grp, 2) ||
		    !model_span(v, h, x, first, mp_group_last(&v->g, grp),
				&lo, &hi))
			break;
		more[n++] = b;
		if (lo < low)
			low = lo;
		if (b <= low) {
			*below = n;
			top = b;
			low = ~(blk64_t) 0;
		}
	}
	b = top;
	n = *below;
	while (n < *below + ext && b > first)
		if (eligible_blk(v, h, --b))
			more[n++] = b;
	return n;
}

/* The @n slots from @at are @want's. */
static int expect_zone(const struct mp_plan *p, __u32 grp, __u32 at,
		       __u32 n, const blk64_t *want)
{
	__u32 k;

	for (k = 0; k < n; k++)
		EXPECT(p->slot[at + k] == want[k], "slot %u of group %u is "
		       "%llu, expected %llu", at + k, grp,
		       ULL(p->slot[at + k]), ULL(want[k]));
	return 0;
}

/*
 * The slots of every group: the first eligible blocks of its head zone
 * (as many as its head records and the previous group's head overflow),
 * then the last eligible blocks of its tail zone (the MC).
 */
static int check_geometry(const struct vol *v, const struct mp_plan *p,
			  enum e3mp_homing h)
{
	const struct mp_geom *g = &v->g;
	static __u32 demand[2 * MAXG];
	static blk64_t want[MAXR], more[3 * MAXR];
	__u64 carry = 0, carry_head = 0, groups = 0;
	__u32 grp, i, at = 0, all, ext, nmore, k, below, n_head;

	if (g->group_count > MAXG)
		die("too many groups");
	memset(demand, 0, sizeof(demand));
	for (i = 0; i < v->nrec; i++)
		if (!kept(v, h, i))
			demand[2 * home_of(v, h, i) + head_rec(v, i)]++;
	for (grp = 0; grp < g->group_count; grp++) {
		__u64 need_head = demand[2 * grp + 1] + carry_head;
		__u64 need = demand[2 * grp] + carry;
		__u32 got_head, got;

		EXPECT(p->mc_first[grp] == at, "mc_first[%u] = %u, expected "
		       "%u", grp, p->mc_first[grp], at);
		n_head = model_head(v, h, grp, need_head, want, &got_head);
		TRY(expect_zone(p, grp, at, n_head, want));
		at += n_head;
		EXPECT(p->tail_first[grp] == at, "tail_first[%u] = %u, "
		       "expected %u", grp, p->tail_first[grp], at);
		got = model_tail(v, h, grp, need, want);
		/* below the region: see model_below() */
		all = p->mc_first[grp + 1] - at;
		ext = p->fill_first[grp] - at;
		EXPECT(p->fill_first[grp] >= at && ext <= all,
		       "fill_first[%u] = %u, tail %u to %u", grp,
		       p->fill_first[grp], at, p->mc_first[grp + 1]);
		below = 0;
		nmore = got == need ? model_below(v, h, grp, want, got, ext,
						  more, &below) : 0;
		EXPECT(all == got + nmore && ext <= nmore, "MC of group %u has "
		       "%u slots, %u added, expected %u + %u (demand %u, "
		       "carry %llu)", grp, all, ext, got, nmore,
		       demand[2 * grp], ULL(carry));
		EXPECT(p->base_first[grp] == p->fill_first[grp] + below,
		       "base_first[%u] = %u, expected %u + %u", grp,
		       p->base_first[grp], p->fill_first[grp], below);
		for (k = 0; k < nmore; k++)
			EXPECT(p->slot[at + k] == more[nmore - 1 - k],
			       "slot %u of group %u (below its region) is "
			       "%llu, expected %llu", at + k, grp,
			       ULL(p->slot[at + k]),
			       ULL(more[nmore - 1 - k]));
		at += nmore;
		TRY(expect_zone(p, grp, at, got, want));
		at += got;
		groups += got + nmore + n_head > 0;
		carry = need - got;
		carry_head = need_head - got_head;
	}
	EXPECT(p->nslot == at, "nslot %u, expected %u", p->nslot, at);
	EXPECT(p->mc_first[g->group_count] == at, "mc_first[end] %u != %u",
	       p->mc_first[g->group_count], at);
	EXPECT(p->mc_groups == groups, "mc_groups %llu, expected %llu",
	       ULL(p->mc_groups), ULL(groups));
	return 0;
}

static int is_dir(const struct vol *v, __u32 i)
{
	return !!(v->rec[i].flags & REC_DIR);
}

/* 0: bound for the head zone, 1: an indirect block, 2: a tail dir. */
static int rec_class(const struct vol *v, __u32 i)
{
	return head_rec(v, i) ? 0 : 1 + is_dir(v, i);
}

/*
 * The kernel's free order of a file's indirect blocks, walked as the
 * kernel walks the tree (ext4_free_branches): record @s, then the
 * subtrees of its children, last first.  Its subtree is the records after
 * it of a lower level; its children those one level down.  Numbers them
 * from @rank on into krank[]; returns the next number.
 */
static __u32 krank[MAXR];

static __u32 rank_subtree(const struct vol *v, __u32 s, __u32 e, __u32 rank)
{
	__u32 child[MAXR], nc = 0, j, k;

	krank[s] = rank++;
	for (j = s + 1; j < e; j++)
		if (v->rec[j].level == v->rec[s].level - 1)
			child[nc++] = j;
	for (k = nc; k-- > 0;)
		rank = rank_subtree(v, child[k], k + 1 < nc ? child[k + 1] : e,
				    rank);
	return rank;
}

/* krank[] of every record: its file's roots in scan order, each tree
 * in the kernel's order; directory blocks keep their scan order. */
static void rank_for_delete(const struct vol *v)
{
	__u32 i, e, rank = 0;

	for (i = 0; i < v->nrec; i = e) {
		for (e = i + 1; e < v->nrec && !is_dir(v, e) &&
		     !(v->rec[e].flags & REC_IN_INODE) &&
		     v->rec[e].ino == v->rec[i].ino; e++)
			;
		if (is_dir(v, i))
			krank[i] = rank++;
		else
			rank = rank_subtree(v, i, e, rank);
	}
}

static int cmp_krank(const void *a, const void *b)
{
	return (int) krank[*(const __u32 *) a] - (int) krank[*(const __u32 *) b];
}

static __u32 order_run_end(const struct vol *v, enum e3mp_homing h,
			   const __u32 *ord, __u32 n, __u32 i);

/* Rank of directory @ino in the tree walk's order (v->g.walk_*). */
static __u32 walk_rank_of(const struct vol *v, __u32 ino)
{
	__u32 i;

	for (i = 0; i < v->g.nwalk; i++)
		if (v->g.walk_ino[i] == ino)
			return v->g.walk_rank[i];
	return WALK_NONE;
}

/*
 * With a walk order, one group's directory records of one class, @n at
 * @ord (in scan order), ordered by their directory's rank, unranked ones
 * last; each directory's own keep their order (an insertion sort).
 */
static void walk_order(const struct vol *v, __u32 *ord, __u32 n)
{
	__u32 i, j, r;

	for (i = 1; v->g.nwalk && i < n; i++) {
		r = ord[i];
		for (j = i; j > 0 && walk_rank_of(v, v->rec[ord[j - 1]].ino) >
				     walk_rank_of(v, v->rec[r].ino); j--)
			ord[j] = ord[j - 1];
		ord[j] = r;
	}
}

/*
 * Runs in processing order: [start, end) of a sorted index array of the
 * records to place (all but the kept ones), by home group, in each group
 * the head zone's directory blocks, the indirect blocks, then the other
 * directory blocks; returns how many.  Under --order=delete each run is
 * in the kernel's free order.
 */
static __u32 make_order(const struct vol *v, enum e3mp_homing h, __u32 *ord)
{
	__u32 n = 0, grp, i, end, from;
	int d;

	for (grp = 0; grp < v->g.group_count; grp++)
		for (d = 0; d < 3; d++) {
			from = n;
			for (i = 0; i < v->nrec; i++)
				if (home_of(v, h, i) == grp &&
				    rec_class(v, i) == d && !kept(v, h, i))
					ord[n++] = i;
			if (d != 1)
				walk_order(v, ord + from, n - from);
		}
	if (v->g.order != E3MP_ORDER_DELETE)
		return n;
	rank_for_delete(v);
	for (i = 0; i < n; i = end) {
		end = order_run_end(v, h, ord, n, i);
		qsort(ord + i, end - i, sizeof(*ord), cmp_krank);
	}
	return n;
}

static __u32 order_run_end(const struct vol *v, enum e3mp_homing h,
			   const __u32 *ord, __u32 n, __u32 i)
{
	__u32 j = i + 1;

	while (j < n && v->rec[ord[j]].ino == v->rec[ord[i]].ino &&
	       home_of(v, h, ord[j]) == home_of(v, h, ord[i]) &&
	       rec_class(v, ord[j]) == rec_class(v, ord[i]))
		j++;
	return j;
}

/* Slot @s is in a head zone (before its group's tail_first). */
static int slot_head(const struct mp_plan *p, __u32 s)
{
	return s < p->tail_first[mp_group_of(&p->g, p->slot[s])];
}

/* The first slot of record @r's zone in its home group. */
static __u32 zone_start(const struct vol *v, const struct mp_plan *p,
			enum e3mp_homing h, __u32 r)
{
	__u32 grp = home_of(v, h, r);

	return head_rec(v, r) ? p->mc_first[grp] : p->fill_first[grp];
}

/* Slot @s was added below its group's region for directories. */
static int slot_added(const struct mp_plan *p, long s)
{
	__u32 grp = mp_group_of(&p->g, p->slot[s]);

	return (__u32) s >= p->tail_first[grp] &&
	       (__u32) s < p->fill_first[grp];
}

/* Slot @s extends its region over a directory's block: only it keeps it. */
static int slot_below(const struct mp_plan *p, long s)
{
	__u32 grp = mp_group_of(&p->g, p->slot[s]);

	return (__u32) s >= p->fill_first[grp] &&
	       (__u32) s < p->base_first[grp];
}

/* Slot @s is free in @own and of the zone kind record @r goes to. */
static int fits(const struct vol *v, const struct mp_plan *p,
		const __u8 *own, long s, __u32 r)
{
	return s >= 0 && !own[s] && !slot_added(p, s) &&
	       slot_head(p, s) == head_rec(v, r) &&
	       (!slot_below(p, s) || p->slot[s] == v->rec[r].blk);
}

/* Record @r into the first slot from max(*@at, @from) that fits. */
static void take_next(const struct vol *v, const struct mp_plan *p,
		      __u8 *own, __u32 *at, __u32 from, __u32 r, blk64_t *want)
{
	if (*at < from)
		*at = from;
	while (*at < p->nslot && !fits(v, p, own, *at, r))
		++*at;
	if (*at == p->nslot)
		return;
	own[*at] = 1;
	want[r] = p->slot[*at];
}

/* The run from @i to @end sits in slots of its kind, ascending from its
 * home zone on (pass A's test, with no slot yet taken); -1 if not, else
 * its first slot. */
static long model_in_place(const struct vol *v, const struct mp_plan *p,
			   enum e3mp_homing h, const __u32 *ord, __u32 i,
			   __u32 end)
{
	__u32 prev = zone_start(v, p, h, ord[i]), k;
	long s, first = -1;

	for (k = i; k < end; k++) {
		s = slot_idx(p, v->rec[ord[k]].blk);
		if (s < 0 || slot_head(p, s) != head_rec(v, ord[k]) ||
		    slot_added(p, s) || (__u32) s < prev ||
		    (slot_below(p, s) && p->slot[s] != v->rec[ord[k]].blk))
			return -1;
		if (first < 0)
			first = s;
		prev = s + 1;
	}
	return first;
}

/*
 * With a walk order, per group and directory class: the bucket is laid
 * out afresh (@fresh set on its records) when fewer than half of its
 * runs have their first block in place.
 */
static void walk_fresh(const struct vol *v, const struct mp_plan *p,
		       enum e3mp_homing h, const __u32 *ord, __u32 n,
		       __u8 *fresh)
{
	__u32 i, j, e, k, in, runs;

	for (i = 0; i < n; i++)
		fresh[i] = 0;
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && home_of(v, h, ord[j]) ==
			    home_of(v, h, ord[i]) &&
		     rec_class(v, ord[j]) == rec_class(v, ord[i]); j++)
			;
		if (!v->g.nwalk || !is_dir(v, ord[i]))
			continue;
		in = runs = 0;
		for (k = i; k < j; k = e) {
			e = order_run_end(v, h, ord, n, k);
			runs++;
			in += model_in_place(v, p, h, ord, k, k + 1) >= 0;
		}
		if (2 * in < runs)
			for (k = i; k < j; k++)
				fresh[k] = 1;
	}
}

/*
 * How many slots from @s, up to @need and before @end, are free in
 * @own, of record @r's kind, added below a region or not (@added), and
 * consecutive blocks.
 */
static __u32 model_stretch(const struct vol *v, const struct mp_plan *p,
			   const __u8 *own, __u32 s, __u32 end, __u32 r,
			   __u32 need, int added)
{
	__u32 len;

	for (len = 0; len < need && s + len < end; len++) {
		__u32 t = s + len;

		if (own[t] || slot_added(p, t) != added || slot_below(p, t) ||
		    slot_head(p, t) != head_rec(v, r) ||
		    (len && p->slot[t] != p->slot[t - 1] + 1))
			break;
	}
	return len;
}

/* The first slot of @need such from @from to @end - 1, or -1. */
static long model_hole(const struct vol *v, const struct mp_plan *p,
		       const __u8 *own, __u32 from, __u32 end, __u32 r,
		       __u32 need, int added)
{
	__u32 s;

	for (s = from; s < end; s++)
		if (model_stretch(v, p, own, s, end, r, need, added) == need)
			return s;
	return -1;
}

/*
 * Directory run @run (@len records, logical order) in pass B: the
 * records not kept in pass A go, in one piece, right after the last
 * kept one when those slots are free, else into the first free stretch
 * long enough from its zone start on, else (tail directories) into the
 * slots added below its home region, top down; else they take the free slots
 * from after the kept ones (or the zone start) on, in order, and what
 * finds none stays.
 */
static void model_dir(const struct vol *v, const struct mp_plan *p,
		      enum e3mp_homing h, __u8 *own, const __u32 *run,
		      __u32 len, __u32 *ext_next, blk64_t *want)
{
	__u32 k = 0, r, need, grp, at;
	long s = -1;

	while (k < len && want[run[k]])
		k++;
	if (k == len)
		return;
	r = run[k];
	need = len - k;
	grp = home_of(v, h, r);
	if (k > 0) {
		s = slot_idx(p, want[run[k - 1]]) + 1;
		if (model_stretch(v, p, own, s, p->nslot, r, need, 0) != need)
			s = -1;
	}
	if (s < 0)
		s = model_hole(v, p, own, zone_start(v, p, h, r), p->nslot, r,
			       need, 0);
	/* (the added slots: from the top down, each run below the last) */
	if (s < 0 && !head_rec(v, r) &&
	    ext_next[grp] - p->tail_first[grp] >= need) {
		ext_next[grp] -= need;
		s = ext_next[grp];
	}
	for (; s >= 0 && k < len; k++, s++) {
		own[s] = 1;
		want[run[k]] = p->slot[s];
	}
	/* (none: the free slots from after its kept ones on, in order) */
	if (k < len)
		at = k ? (__u32) slot_idx(p, want[run[k - 1]]) + 1 :
		     zone_start(v, p, h, r);
	for (; k < len; k++) {
		take_next(v, p, own, &at, 0, run[k], want);
		if (!want[run[k]])
			break;
	}
}

/*
 * Where layout.c's header says every record goes, before fit_to_space():
 * runs in slots of their zone kind, ascending, at or after their home
 * zone stay (pass A; not directories in a tree walk's order), and of a
 * directory's run the longest prefix that is so; every other indirect
 * block, in processing order, takes the next free slot of its zone kind
 * of one forward cursor per kind, cur = max(cur, zone start of home);
 * once that cursor has run out, the record takes any free slot of its
 * kind from slot 0 on; what is left stays.  The rest of a directory
 * goes where the plan put it (check_dirs() checks that), and takes
 * those slots at its turn.  @want gets each record's destination,
 * @inplace its pass A flag.
 */
static void model_dests(const struct vol *v, const struct mp_plan *p,
			enum e3mp_homing h, blk64_t *want, __u8 *inplace)
{
	static __u32 ord[MAXR];
	static __u8 fresh[MAXR];
	static __u32 ext_next[MAXG];
	__u8 *own = calloc(p->nslot + 1, 1);
	__u32 i, j, k, end, r, n, cur[2] = { 0, 0 }, any[2] = { 0, 0 };

	if (!own)
		die("out of memory");
	n = make_order(v, h, ord);
	walk_fresh(v, p, h, ord, n, fresh);
	for (i = 0; i < v->g.group_count; i++)
		ext_next[i] = p->fill_first[i];
	for (i = 0; i < v->nrec; i++) {
		want[i] = 0;
		inplace[i] = 0;
	}
	for (i = 0; i < n; i = end) {
		__u32 prev = zone_start(v, p, h, ord[i]);
		int ok = 1, pieces;

		end = order_run_end(v, h, ord, n, i);
		/* directories of a bucket laid out afresh: see walk_fresh */
		if (fresh[i])
			ok = 0;
		/* (a directory's may be in two ascending pieces) */
		pieces = is_dir(v, ord[i]) ? 2 : 1;
		for (k = i; k < end && ok; k++) {
			long s = slot_idx(p, v->rec[ord[k]].blk);

			if (!fits(v, p, own, s, ord[k]) ||
			    ((__u32) s < prev &&
			     (--pieces == 0 ||
			      (__u32) s < zone_start(v, p, h, ord[k]))))
				break;
			prev = s + 1;
		}
		/* (a directory keeps its prefix in place) */
		if (k < end && !is_dir(v, ord[i]))
			k = i;
		for (j = i; j < k && ok; j++) {
			r = ord[j];
			own[slot_idx(p, v->rec[r].blk)] = 1;
			want[r] = v->rec[r].blk;
			inplace[r] = 1;
		}
	}
	for (i = 0; i < n; i++) {
		int c = head_rec(v, ord[i]);

		r = ord[i];
		if (want[r])
			continue;
		if (is_dir(v, r)) {
			/* (the whole run, once: from its start to its end) */
			for (k = i; k > 0 && order_run_end(v, h, ord, n,
							   k - 1) > i; k--)
				;
			end = order_run_end(v, h, ord, n, k);
			model_dir(v, p, h, own, ord + k, end - k, ext_next,
				  want);
			i = end - 1;
			continue;
		}
		take_next(v, p, own, &cur[c], zone_start(v, p, h, r), r, want);
		if (!want[r])
			take_next(v, p, own, &any[c], 0, r, want);
	}
	for (i = 0; i < v->nrec; i++)
		if (!want[i])
			want[i] = v->rec[i].blk;
	free(own);
}

/*
 * Every record goes where model_dests() says, except that when space is
 * short (no_space) whole runs that would move are given up, last in
 * processing order first: they stay (or, left in a slot another record
 * takes, are moved out of it).
 */
static int check_runs(const struct vol *v, const struct mp_plan *p,
		      enum e3mp_homing h)
{
	static __u32 ord[MAXR];
	static blk64_t want[MAXR];
	static __u8 inplace[MAXR];
	__u32 i, end, k, r, n, dropped = 0, dropped_dir = 0;
	int seen_drop = 0;

	n = make_order(v, h, ord);
	model_dests(v, p, h, want, inplace);
	for (i = 0; i < n; i = end) {
		int run_kept = 0, run_drop = 0;

		end = order_run_end(v, h, ord, n, i);
		for (k = i; k < end; k++) {
			const struct ind_rec *rc = &v->rec[ord[k]];
			int out = has_out(p, rc->blk);

			r = ord[k];
			if (inplace[r] && (rc->dest != rc->blk || out)) {
				return fail("ino %u: run in place (ascending "
					    "slots from its home MC) moves "
					    "%llu -> %llu", rc->ino,
					    ULL(rc->blk), ULL(rc->dest));
			}
			if (want[r] == rc->blk) {
				/* stays; or moved out of a slot it lost */
				if (rc->dest != rc->blk && !out) {
					return fail("ino %u record %u (blk "
						    "%llu): dest %llu, "
						    "expected it to stay",
						    rc->ino, k - i,
						    ULL(rc->blk),
						    ULL(rc->dest));
				}
				continue;
			}
			if (rc->dest == want[r] && !out) {
				if (seen_drop) {
					return fail("ino %u record %u moves "
						    "to %llu, after a run "
						    "given up before it",
						    rc->ino, k - i,
						    ULL(rc->dest));
				}
				run_kept = 1;
				continue;
			}
			if (!(p->no_space + p->dir_no_space) ||
			    (rc->dest != rc->blk && !out)) {
				return fail("ino %u record %u (blk %llu, "
					    "home MC from slot %u): dest %llu "
					    "(slot %ld), expected %llu (slot "
					    "%ld); no_space %llu", rc->ino,
					    k - i, ULL(rc->blk),
					    p->mc_first[home_of(v, h, r)],
					    ULL(rc->dest),
					    slot_idx(p, rc->dest),
					    ULL(want[r]),
					    slot_idx(p, want[r]),
					    ULL(p->no_space));
			}
			run_drop = 1;
			dropped++;
			dropped_dir += is_dir(v, r);
		}
		if (run_drop && run_kept)
			return fail("ino %u: the run from order %u is given "
				    "up only in part", v->rec[ord[i]].ino, i);
		seen_drop |= run_drop;
	}
	/* (dir_no_space: check_plan() counts it, whatever the path) */
	EXPECT(dropped - dropped_dir == p->no_space,
	       "%u records given up, %u of them directory blocks; no_space "
	       "%llu", dropped, dropped_dir, ULL(p->no_space));
	return 0;
}

/*
 * Every invariant a plan must satisfy, whatever the layout; v must still
 * be the volume the plan was made for.
 */
static int check_plan(const struct vol *v, const struct mp_plan *p,
		      enum e3mp_homing h)
{
	blk64_t nb = v->g.blocks_count;
	struct cell *sim;
	__u32 i, k, r;
	__u64 n_ind = 0, n_data = 0, n_temp = 0, ind_moving = 0;
	__u64 in_before = 0, in_after = 0, n_kept = 0;
	__u64 n_dir = 0, dir_moving = 0, dir_before = 0, dir_after = 0;
	__u64 dir_recs = 0;
	__u8 *seen;

	EXPECT(!v->ops_bad, "space ops misused: %s (%d times)", v->ops_msg,
	       v->ops_bad);
	EXPECT(p->homing == h && !memcmp(&p->g, &v->g, sizeof(p->g)),
	       "plan's homing or geometry differ from the input");
	TRY(check_geometry(v, p, h));

	/* record destinations */
	seen = calloc(nb, 1);
	if (!seen)
		die("out of memory");
	for (i = 0; i < v->nrec; i++) {
		const struct ind_rec *rc = &v->rec[i];

		if (rc->dest >= nb || rc->dest < v->g.first_data_block) {
			free(seen);
			return fail("record %u dest %llu out of the volume", i,
				    ULL(rc->dest));
		}
		if (seen[rc->dest]++) {
			free(seen);
			return fail("two records share dest %llu",
				    ULL(rc->dest));
		}
		if (rc->flags & REC_DIR) {
			dir_recs++;
			dir_before += in_slots(p, rc->blk);
			dir_after += in_slots(p, rc->dest);
		} else {
			in_before += in_tail_slots(p, rc->blk);
			in_after += in_tail_slots(p, rc->dest);
		}
		if (kept(v, h, i)) {
			n_kept++;
			if (rc->dest != rc->blk || in_slots(p, rc->blk)) {
				free(seen);
				return fail("kept first IND %u (ino %u, blk "
					    "%llu): dest %llu, %sa slot", i,
					    rc->ino, ULL(rc->blk),
					    ULL(rc->dest),
					    in_slots(p, rc->blk) ? "" :
					    "not ");
			}
		}
		if (rc->dest == rc->blk)
			continue;
		if (immovable(v, rc->dest) || v->c[rc->dest].kind == C_FIXED) {
			free(seen);
			return fail("record %u dest %llu is fixed", i,
				    ULL(rc->dest));
		}
		if (has_out(p, rc->blk)) {
			if (v->ondisk[rc->dest]) {
				free(seen);
				return fail("record %u leaves its slot for "
					    "%llu, which is in use", i,
					    ULL(rc->dest));
			}
		} else if (slot_idx(p, rc->dest) >= 0) {
			/* which slot: check_runs() */
			if (rc->flags & REC_DIR)
				dir_moving++;
			else
				ind_moving++;
		} else {
			free(seen);
			return fail("record %u moves %llu -> %llu, which is "
				    "no slot, and not out of a slot", i,
				    ULL(rc->blk), ULL(rc->dest));
		}
	}
	free(seen);

	/* the moves, one by one */
	for (r = 0; r < 2; r++)
		for (k = 0; k < p->nmv[r]; k++) {
			const struct mp_move *m = &p->mv[r][k];
			int x;

			EXPECT(m->from < nb && m->to < nb,
			       "round %u move %u out of the volume", r + 1, k);
			EXPECT(!immovable(v, m->from),
			       "round %u %s move from fixed block %llu", r + 1,
			       kind_name(m->kind), ULL(m->from));
			EXPECT(!immovable(v, m->to),
			       "round %u %s move to fixed block %llu", r + 1,
			       kind_name(m->kind), ULL(m->to));
			EXPECT(!kept_blk(v, h, m->from),
			       "round %u %s move %llu->%llu: a kept first "
			       "IND is moved", r + 1, kind_name(m->kind),
			       ULL(m->from), ULL(m->to));
			EXPECT(!is_anchor(v, h, m->from) &&
			       !is_anchor(v, h, m->to),
			       "round %u %s move %llu->%llu: an anchor moves "
			       "under data homing", r + 1, kind_name(m->kind),
			       ULL(m->from), ULL(m->to));
			if (r == 0) {
				EXPECT(!v->ondisk[m->to],
				       "round 1 %s move %llu->%llu: "
				       "destination in use on disk",
				       kind_name(m->kind), ULL(m->from),
				       ULL(m->to));
				EXPECT(v->ondisk[m->from],
				       "round 1 move from free block %llu",
				       ULL(m->from));
			} else {
				int vacated = 0, temp = 0;
				__u32 j;

				EXPECT(m->kind == MV_IND || m->kind == MV_DIR,
				       "round 2 move of kind %s",
				       kind_name(m->kind));
				for (j = 0; j < p->nmv[0]; j++) {
					vacated |= p->mv[0][j].from == m->to;
					temp |= p->mv[0][j].to == m->from &&
						p->mv[0][j].kind == MV_TEMP;
				}
				EXPECT(v->ondisk[m->to] && vacated,
				       "round 2 move %llu->%llu: destination "
				       "is not a block round 1 vacates",
				       ULL(m->from), ULL(m->to));
				x = rec_by_blk(v, m->from);
				EXPECT(temp || (x >= 0 &&
						v->rec[x].dest == m->to),
				       "round 2 move %llu->%llu: source is "
				       "neither the record's block nor a "
				       "round 1 parking place",
				       ULL(m->from), ULL(m->to));
			}
			switch (m->kind) {
			case MV_DATA: {
				const struct data_ext *e = ext_cover(v, m->from);

				n_data++;
				EXPECT(e && e->ino == m->ino && m->level == 0,
				       "DATA move %llu->%llu: not from a data "
				       "extent of inode %u", ULL(m->from),
				       ULL(m->to), m->ino);
				EXPECT(slot_idx(p, m->from) >= 0 &&
				       rec_by_dest(v, m->from) >= 0,
				       "DATA move from %llu, which no record "
				       "needs", ULL(m->from));
				break;
			}
			case MV_IND:
			case MV_DIR:
				if (m->kind == MV_DIR)
					n_dir++;
				else
					n_ind++;
				x = rec_by_dest(v, m->to);
				EXPECT(x >= 0 && slot_idx(p, m->to) >= 0,
				       "%s move %llu->%llu: no record goes "
				       "to that slot", kind_name(m->kind),
				       ULL(m->from), ULL(m->to));
				EXPECT(x < 0 || is_dir(v, x) ==
				       (m->kind == MV_DIR),
				       "%s move %llu->%llu of a record of the "
				       "other kind", kind_name(m->kind),
				       ULL(m->from), ULL(m->to));
				break;
			case MV_TEMP: {
				__u32 j;
				int found = 0;

				n_temp++;
				EXPECT(r == 0, "TEMP move in round 2");
				x = rec_by_blk(v, m->from);
				EXPECT(x >= 0 && v->rec[x].dest != m->from,
				       "TEMP move from %llu: no moving record "
				       "there", ULL(m->from));
				for (j = 0; j < p->nmv[1]; j++)
					found += p->mv[1][j].from == m->to &&
						 p->mv[1][j].to == v->rec[x].dest;
				EXPECT(found == 1, "TEMP move %llu->%llu not "
				       "followed by exactly one round 2 move "
				       "to %llu", ULL(m->from), ULL(m->to),
				       ULL(v->rec[x].dest));
				break;
			}
			case MV_OUT:
				EXPECT(r == 0, "OUT move in round 2");
				x = rec_by_blk(v, m->from);
				EXPECT(x >= 0 && v->rec[x].dest == m->to &&
				       slot_idx(p, m->from) >= 0,
				       "OUT move %llu->%llu: not an "
				       "unplaced record leaving a slot",
				       ULL(m->from), ULL(m->to));
				EXPECT(rec_by_dest(v, m->from) >= 0,
				       "OUT move from slot %llu, which no "
				       "record needs", ULL(m->from));
				break;
			default:
				return fail("move of unknown kind %d", m->kind);
			}
		}

	/* figures */
	EXPECT(p->data_evacuated == n_data, "data_evacuated %llu, %llu DATA "
	       "moves", ULL(p->data_evacuated), ULL(n_data));
	EXPECT(p->temp_moves == n_temp, "temp_moves %llu, %llu TEMP moves",
	       ULL(p->temp_moves), ULL(n_temp));
	EXPECT(p->ind_moved == n_ind && n_ind == ind_moving,
	       "ind_moved %llu, %llu IND moves, %llu records going into "
	       "slots", ULL(p->ind_moved), ULL(n_ind), ULL(ind_moving));
	EXPECT(p->before.in_mc == in_before, "before.in_mc %llu, expected "
	       "%llu", ULL(p->before.in_mc), ULL(in_before));
	EXPECT(p->after.in_mc == in_after, "after.in_mc %llu, expected %llu",
	       ULL(p->after.in_mc), ULL(in_after));
	EXPECT(p->kept_inline == n_kept, "kept_inline %llu, %llu kept "
	       "records", ULL(p->kept_inline), ULL(n_kept));
	EXPECT(p->after.in_mc + p->unclustered + p->kept_inline ==
	       v->nrec - dir_recs,
	       "after.in_mc %llu + unclustered %llu + kept_inline %llu != "
	       "%llu indirect records", ULL(p->after.in_mc),
	       ULL(p->unclustered), ULL(p->kept_inline),
	       ULL(v->nrec - dir_recs));
	EXPECT(p->dir_blocks == dir_recs && p->dir_moved == n_dir &&
	       n_dir == dir_moving,
	       "dir_blocks %llu of %llu, dir_moved %llu, %llu DIR moves, "
	       "%llu directory records going into slots",
	       ULL(p->dir_blocks), ULL(dir_recs), ULL(p->dir_moved),
	       ULL(n_dir), ULL(dir_moving));
	EXPECT(p->dir_before == dir_before && p->dir_after == dir_after,
	       "dir_before %llu, dir_after %llu, expected %llu, %llu",
	       ULL(p->dir_before), ULL(p->dir_after), ULL(dir_before),
	       ULL(dir_after));
	EXPECT(p->dir_no_space == dir_recs - dir_after,
	       "dir_no_space %llu, but %llu directory blocks are left out of "
	       "the slots", ULL(p->dir_no_space), ULL(dir_recs - dir_after));
	EXPECT(p->nmv[0] <= v->g.free_blocks,
	       "round 1 has %u moves, but only %llu blocks are free",
	       p->nmv[0], ULL(v->g.free_blocks));

	TRY(check_runs(v, p, h));

	/* and finally: run it */
	sim = malloc(nb * sizeof(*sim));
	if (!sim)
		die("out of memory");
	i = simulate(v, p, sim);
	free(sim);
	return i;
}

/* Make the checked plan the new state of the volume. */
static void apply(struct vol *v, const struct mp_plan *p)
{
	struct cell *sim = malloc(v->g.blocks_count * sizeof(*sim));
	__u32 i;

	if (!sim)
		die("out of memory");
	if (simulate(v, p, sim))
		die("apply: plan does not execute: %s", why);
	memcpy(v->c, sim, v->g.blocks_count * sizeof(*sim));
	free(sim);
	locate(v);
	for (i = 0; i < v->nrec; i++) {
		v->rec[i].blk = v->rec[i].dest;
		/* what the next scan sees */
		if (v->fdata[i])
			v->rec[i].data_group =
				mp_group_of(&v->g, v->loc[v->fdata[i]]);
	}
}

/* --- case helpers -------------------------------------------------------- */

#define MAXVOL	4
#define MAXPLAN	4

static struct vol *vols[MAXVOL];
static struct mp_plan plans[MAXPLAN];
static int nvols, nplans;

static struct vol *track(struct vol *v)
{
	if (nvols == MAXVOL)
		die("too many volumes in one case");
	return vols[nvols++] = v;
}

static struct mp_plan *new_plan(void)
{
	if (nplans == MAXPLAN)
		die("too many plans in one case");
	memset(&plans[nplans], 0, sizeof(plans[nplans]));
	return &plans[nplans++];
}

static void cleanup(void)
{
	while (nvols)
		vol_free(vols[--nvols]);
	while (nplans)
		mp_plan_free(&plans[--nplans]);
}

static void run_case(const char *name, int (*fn)(void))
{
	run(name, fn);
	cleanup();
}

/* 4 groups of 64 blocks, tail zones of 16 blocks: [64g + 48, 64g + 63]. */
static struct vol *g4(__u32 meta)
{
	struct vol *v = track(vol_new(0, 64, 256, 16, 25));

	if (meta)
		std_meta(v, meta);
	return v;
}

static int plan_check(struct vol *v, enum e3mp_homing h, struct mp_plan *p)
{
	errcode_t err = plan(v, h, p);

	EXPECT(!err, "mp_plan_build failed: error %ld", (long) err);
	return check_plan(v, p, h);
}

static int expect_dests(const struct vol *v, __u32 ino, __u32 n,
			const blk64_t *want)
{
	__u32 k;

	for (k = 0; k < n; k++) {
		blk64_t d = dest_of(v, ino, k);

		EXPECT(d == want[k], "ino %u record %u: dest %llu, expected "
		       "%llu", ino, k, ULL(d), ULL(want[k]));
	}
	return 0;
}

static int expect_slots(const struct mp_plan *p, __u32 n, const blk64_t *want)
{
	__u32 k;

	EXPECT(p->nslot == n, "%u slots, expected %u", p->nslot, n);
	for (k = 0; k < n; k++)
		EXPECT(p->slot[k] == want[k], "slot %u is %llu, expected %llu",
		       k, ULL(p->slot[k]), ULL(want[k]));
	return 0;
}

static int has_move(const struct mp_plan *p, int round, blk64_t from,
		    blk64_t to, int kind)
{
	__u32 k;

	for (k = 0; k < p->nmv[round]; k++)
		if (p->mv[round][k].from == from && p->mv[round][k].to == to &&
		    p->mv[round][k].kind == kind)
			return 1;
	return 0;
}

#define EXPECT_MOVE(p, round, from, to, kind) \
	EXPECT(has_move(p, (round) - 1, from, to, kind), \
	       "no round %d %s move %llu -> %llu", round, kind_name(kind), \
	       ULL(from), ULL(to))

static int expect_counts(const struct mp_plan *p, __u32 n1, __u32 n2)
{
	EXPECT(p->nmv[0] == n1 && p->nmv[1] == n2,
	       "%u + %u moves, expected %u + %u", p->nmv[0], p->nmv[1], n1, n2);
	return 0;
}

static void describe_moves(const struct mp_plan *p, char *buf, size_t len)
{
	size_t at = 0;
	int r;
	__u32 k;

	buf[0] = 0;
	for (r = 0; r < 2; r++)
		for (k = 0; k < p->nmv[r] && k < 6 && at + 64 < len; k++)
			at += snprintf(buf + at, len - at, " r%d:%s:%llu->%llu",
				       r + 1, kind_name(p->mv[r][k].kind),
				       ULL(p->mv[r][k].from),
				       ULL(p->mv[r][k].to));
}

/* Apply p1, plan again: nothing may move, the figures stay. */
static int replan_still(struct vol *v, enum e3mp_homing h,
			const struct mp_plan *p1, struct mp_plan *p2)
{
	char buf[512];

	apply(v, p1);
	TRY(plan_check(v, h, p2));
	describe_moves(p2, buf, sizeof(buf));
	EXPECT(p2->nmv[0] + p2->nmv[1] == 0,
	       "second plan over the result moves %u + %u blocks:%s",
	       p2->nmv[0], p2->nmv[1], buf);
	EXPECT(p2->after.in_mc == p1->after.in_mc,
	       "after.in_mc %llu, first plan said %llu",
	       ULL(p2->after.in_mc), ULL(p1->after.in_mc));
	EXPECT(p2->before.in_mc == p1->after.in_mc,
	       "before.in_mc %llu on the packed volume, first plan promised "
	       "%llu", ULL(p2->before.in_mc), ULL(p1->after.in_mc));
	EXPECT(p2->unclustered == p1->unclustered,
	       "unclustered %llu, first plan said %llu",
	       ULL(p2->unclustered), ULL(p1->unclustered));
	return 0;
}

/* A free block of [a, z], for new files. */
static blk64_t free_in(const struct vol *v, blk64_t a, blk64_t z)
{
	for (; a <= z; a++)
		if (v->c[a].kind == C_FREE)
			return a;
	die("no free block in [%llu, %llu]", ULL(a), ULL(z));
	return 0;
}

/* --- layouts the cases share -------------------------------------------- */

/*
 * File @ino with one IND at @ind whose first data block, at @data, is its
 * anchor (data homing homes the IND by it).  Returns the record.
 */
static __u32 anchored_file(struct vol *v, __u32 ino, blk64_t ind,
			   blk64_t data)
{
	__u32 r;

	add_file_at(v, ino, 1, ind);
	set_data(v, data, data, ino);
	r = rec_of_ino(v, ino, 0);
	set_fdata(v, r, data);
	return r;
}

/*
 * g4(6) with file 17's two INDs at 70-71 and another file's data in the
 * last two blocks of group 1's zone (126-127): its MC must evacuate them.
 */
static struct vol *g4_zone_data(void)
{
	struct vol *v = g4(6);

	add_file_at(v, 17, 2, 70);
	set_data(v, 126, 127, 30);
	return v;
}

/* Every group full of fixed metadata below its tail zone. */
static void fill_below_zones(struct vol *v)
{
	__u32 grp;

	for (grp = 0; grp < v->g.group_count; grp++)
		fill_fixed(v, mp_group_first(&v->g, grp),
			   mp_zone_first(&v->g, grp) - 1);
}

/* --- geometry helpers ---------------------------------------------------- */

static int case_helpers_fdb0(void)
{
	struct mp_geom g = geom(0, 64, 256, 16, 25);

	EXPECT(mp_group_first(&g, 0) == 0 && mp_group_first(&g, 3) == 192,
	       "group_first");
	EXPECT(mp_group_last(&g, 0) == 63 && mp_group_last(&g, 3) == 255,
	       "group_last");
	EXPECT(mp_group_of(&g, 0) == 0 && mp_group_of(&g, 63) == 0 &&
	       mp_group_of(&g, 64) == 1 && mp_group_of(&g, 255) == 3,
	       "group_of");
	EXPECT(mp_zone_first(&g, 0) == 48 && mp_zone_first(&g, 1) == 112 &&
	       mp_zone_first(&g, 3) == 240, "zone_first: %llu %llu %llu",
	       ULL(mp_zone_first(&g, 0)), ULL(mp_zone_first(&g, 1)),
	       ULL(mp_zone_first(&g, 3)));
	return 0;
}

static int case_helpers_fdb1_short_last(void)
{
	/* 1 KiB-block style: block 0 is outside the groups */
	struct mp_geom g = geom(1, 64, 213, 16, 25);

	EXPECT(mp_group_first(&g, 0) == 1 && mp_group_first(&g, 3) == 193,
	       "group_first");
	EXPECT(mp_group_last(&g, 0) == 64 && mp_group_last(&g, 2) == 192 &&
	       mp_group_last(&g, 3) == 212, "group_last %llu",
	       ULL(mp_group_last(&g, 3)));
	EXPECT(mp_group_of(&g, 1) == 0 && mp_group_of(&g, 64) == 0 &&
	       mp_group_of(&g, 65) == 1 && mp_group_of(&g, 212) == 3,
	       "group_of");
	EXPECT(mp_zone_first(&g, 0) == 49, "zone_first(0) %llu",
	       ULL(mp_zone_first(&g, 0)));
	/* the short last group: 20 blocks, zone 25 % of 20 = 5 */
	EXPECT(mp_zone_first(&g, 3) == 208, "zone_first(3) %llu",
	       ULL(mp_zone_first(&g, 3)));
	return 0;
}

static int case_helpers_zone_at_least_one(void)
{
	struct mp_geom g = geom(0, 64, 131, 16, 1);

	/* 1 % of 64 is 0 blocks: one block anyway */
	EXPECT(mp_zone_first(&g, 0) == 63, "zone_first(0) %llu",
	       ULL(mp_zone_first(&g, 0)));
	g.mc_max_pct = 25;
	/* last group of 3 blocks: 25 % is 0: one block */
	EXPECT(mp_group_last(&g, 2) == 130 && mp_zone_first(&g, 2) == 130,
	       "last group [%llu, %llu]", ULL(mp_zone_first(&g, 2)),
	       ULL(mp_group_last(&g, 2)));
	return 0;
}

static int case_home(void)
{
	struct mp_geom g = geom(0, 64, 256, 16, 25);
	struct ind_rec r = { .ino = 1, .data_group = 2 };

	EXPECT(mp_home(&g, E3MP_HOME_INODE, &r) == 0, "ino 1");
	r.ino = 16;
	EXPECT(mp_home(&g, E3MP_HOME_INODE, &r) == 0, "ino 16");
	r.ino = 17;
	EXPECT(mp_home(&g, E3MP_HOME_INODE, &r) == 1, "ino 17");
	r.ino = 64;
	EXPECT(mp_home(&g, E3MP_HOME_INODE, &r) == 3, "ino 64");
	EXPECT(mp_home(&g, E3MP_HOME_DATA, &r) == 2, "data homing");
	/* --dirs=volume: directory blocks mid-volume, an htree root not */
	g.dirs = E3MP_DIRS_VOLUME;
	r.data_group = 0;
	r.flags = REC_DIR;
	r.logical = 3;
	EXPECT(mp_home(&g, E3MP_HOME_DATA, &r) == 2, "volume: of %u groups",
	       g.group_count);
	r.flags = REC_DIR | REC_EARLY;
	r.logical = 0;
	EXPECT(mp_home(&g, E3MP_HOME_DATA, &r) == 3, "volume: htree root");
	r.flags = REC_OF_DIR;
	r.level = 1;
	EXPECT(mp_home(&g, E3MP_HOME_DATA, &r) == 3, "volume: a dir's IND");
	return 0;
}

/*
 * --mc-span: a record homed in group h goes to group h - h % span, but a
 * head-zone block, which stays by its own inode table, and the volume's
 * directory region, which is where it is.
 */
static int case_home_span(void)
{
	struct mp_geom g = geom(0, 64, 256, 16, 25);
	struct ind_rec r = { .ino = 17, .data_group = 3 };

	g.mc_span = 2;
	EXPECT(mp_home(&g, E3MP_HOME_INODE, &r) == 0, "group 1 -> 0");
	r.ino = 64;
	EXPECT(mp_home(&g, E3MP_HOME_INODE, &r) == 2, "group 3 -> 2");
	EXPECT(mp_home(&g, E3MP_HOME_DATA, &r) == 2, "data group 3 -> 2");
	g.mc_span = 3;
	EXPECT(mp_home(&g, E3MP_HOME_INODE, &r) == 3, "span 3: group 3");
	r.ino = 40;
	EXPECT(mp_home(&g, E3MP_HOME_INODE, &r) == 0, "span 3: group 2");
	g.dirs = E3MP_DIRS_VOLUME;
	r.ino = 64;
	r.flags = REC_DIR | REC_EARLY;
	r.logical = 0;
	EXPECT(mp_home(&g, E3MP_HOME_INODE, &r) == 3, "head block: own group");
	r.flags = REC_DIR;
	r.logical = 2;
	EXPECT(mp_home(&g, E3MP_HOME_INODE, &r) == 2, "volume region");
	return 0;
}

/*
 * The searches every sorted array here goes through: mp_lower_bound()
 * against a linear scan, mp_bsearch() and mp_find_u32() for keys present
 * and absent, with duplicates, at both ends and in an empty array.
 */
static int case_search(void)
{
	static const __u32 a[] = { 2, 4, 4, 4, 9, 15 };
	__u32 n = sizeof(a) / sizeof(a[0]), key, i, want, at;

	for (key = 0; key <= 16; key++) {
		for (want = 0; want < n && a[want] < key; want++)
			;
		i = mp_lower_bound(n, key, mp_cmp_u32_at, a);
		EXPECT(i == want, "lower bound of %u: %u, not %u", key, i,
		       want);
		EXPECT(mp_bsearch(n, key, mp_cmp_u32_at, a, &at) ==
		       (want < n && a[want] == key), "bsearch %u", key);
		EXPECT(mp_find_u32(a, n, key) ==
		       (want < n && a[want] == key ? want : WALK_NONE),
		       "find %u", key);
	}
	EXPECT(mp_lower_bound(0, 5, mp_cmp_u32_at, NULL) == 0 &&
	       mp_find_u32(NULL, 0, 5) == WALK_NONE, "empty array");
	return 0;
}

/*
 * mp_grow(): room for entry n, doubling from 1024, the old entries kept;
 * no growth while there is room.
 */
static int case_grow(void)
{
	__u32 *arr = NULL, alloc = 0, n;

	for (n = 0; n < 5000; n++) {
		EXPECT(!mp_grow(&arr, &alloc, n, sizeof(*arr)), "grow %u", n);
		EXPECT(n < alloc, "entry %u, %u allocated", n, alloc);
		arr[n] = n * 7;
	}
	EXPECT(alloc == 8192, "allocated %u, not 8192", alloc);
	for (n = 0; n < 5000; n++)
		EXPECT(arr[n] == n * 7, "entry %u lost", n);
	EXPECT(!mp_grow(&arr, &alloc, 100, sizeof(*arr)) && alloc == 8192,
	       "grew with room left");
	ext2fs_free_mem(&arr);
	return 0;
}

/*
 * mp_heap_push()/mp_heap_pop(): 3000 keys pushed in a scrambled order,
 * each block twice, come off in block order, and of one block the
 * greater value first; a key pushed between pops comes off next if it is
 * the least.
 */
static int case_heap(void)
{
	static struct mp_key h[3000];
	struct mp_key k, prev = { 0, 0 };
	__u32 n = 0, i;

	for (i = 0; i < 3000; i++) {
		k.blk = (i * 7919ULL) % 1500;
		k.val = i;
		mp_heap_push(h, &n, k);
	}
	for (i = 0; i < 3000; i++) {
		k = mp_heap_pop(h, &n);
		EXPECT(n == 2999 - i, "%u keys left after pop %u", n, i);
		EXPECT(k.blk == i / 2, "pop %u: block %llu", i, ULL(k.blk));
		EXPECT(!(i & 1) || k.val < prev.val,
		       "block %llu: value %u after %u", ULL(k.blk), k.val,
		       prev.val);
		prev = k;
	}
	for (i = 0; i < 100; i++)
		mp_heap_push(h, &n, (struct mp_key) { 100 - i, 0 });
	for (i = 1; i <= 10; i++)
		EXPECT(mp_heap_pop(h, &n).blk == i, "pop %u", i);
	mp_heap_push(h, &n, (struct mp_key) { 3, 0 });
	EXPECT(mp_heap_pop(h, &n).blk == 3 && mp_heap_pop(h, &n).blk == 11 &&
	       n == 89, "a key pushed between pops: %u left", n);
	return 0;
}

/* --- metacluster geometry ------------------------------------------------ */

static int case_empty(void)
{
	struct vol *v = g4(6);
	struct mp_plan *p = new_plan();

	set_data(v, 50, 63, 7);
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	TRY(expect_counts(p, 0, 0));
	EXPECT(p->nslot == 0 && p->mc_groups == 0, "%u slots", p->nslot);
	return 0;
}

/* What scan.c hands over when no data lies in any tail zone. */
static int case_no_data_extents(void)
{
	struct vol *v = g4(6);
	struct mp_plan *p = new_plan();
	errcode_t err;

	add_file_at(v, 1, 2, 10);
	prepare(v);
	err = mp_plan_build(p, &v->g, E3MP_HOME_INODE, v->rec, v->nrec, NULL,
			    0, &ops, v);
	EXPECT(!err, "mp_plan_build failed: error %ld", (long) err);
	TRY(check_plan(v, p, E3MP_HOME_INODE));
	TRY(expect_dests(v, 1, 2, (blk64_t[]) { 62, 63 }));
	return 0;
}

static int case_single_file(void)
{
	struct vol *v = g4(6);
	struct mp_plan *p = new_plan();

	add_file_at(v, 1, 4, 10);	/* IND, DIND, IND, IND */
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	TRY(expect_slots(p, 4, (blk64_t[]) { 60, 61, 62, 63 }));
	TRY(expect_dests(v, 1, 4, (blk64_t[]) { 60, 61, 62, 63 }));
	TRY(expect_counts(p, 4, 0));
	EXPECT_MOVE(p, 1, 10, 60, MV_IND);
	EXPECT_MOVE(p, 1, 13, 63, MV_IND);
	EXPECT(p->ind_moved == 4 && p->before.in_mc == 0 &&
	       p->after.in_mc == 4 && p->mc_groups == 1 &&
	       p->unclustered == 0, "figures");
	return 0;
}

/*
 * --mc-span=2: the runs of groups 0 and 1 fill group 0's tail one after
 * the other, group 0's first; group 3's goes to group 2's tail; a second
 * plan moves nothing.
 */
static int case_span(void)
{
	struct vol *v = g4(6);
	struct mp_plan *p = new_plan(), *p2 = new_plan();

	v->g.mc_span = 2;
	add_file_at(v, 17, 3, 80);	/* group 1: IND, DIND, IND */
	add_file_at(v, 1, 2, 10);	/* group 0: IND, DIND */
	add_file_at(v, 49, 1, 200);	/* group 3 */
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	TRY(expect_dests(v, 1, 2, (blk64_t[]) { 59, 60 }));
	TRY(expect_dests(v, 17, 3, (blk64_t[]) { 61, 62, 63 }));
	TRY(expect_dests(v, 49, 1, (blk64_t[]) { 191 }));
	EXPECT(p->mc_groups == 2, "MCs in %u groups, not 2", p->mc_groups);
	return replan_still(v, E3MP_HOME_INODE, p, p2);
}

/*
 * --order=delete: a file's run goes IND, DIND, then the DIND's children
 * last first, the order the kernel frees them in.
 */
static int case_delete_order(void)
{
	struct vol *v = g4(6);
	struct mp_plan *p = new_plan(), *p2 = new_plan();

	v->g.order = E3MP_ORDER_DELETE;
	add_file_at(v, 1, 5, 10);	/* IND, DIND, IND, IND, IND */
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	TRY(expect_dests(v, 1, 5, (blk64_t[]) { 59, 60, 63, 62, 61 }));
	return replan_still(v, E3MP_HOME_INODE, p, p2);
}

/*
 * Switching the order moves what has to: the DIND's children; the IND
 * and the DIND stay, and a file without children does not move at all.
 */
static int case_delete_order_switch(void)
{
	struct vol *v = g4(6);
	struct mp_plan *p = new_plan(), *p2 = new_plan(), *p3 = new_plan();

	add_file_at(v, 1, 5, 10);
	add_file_at(v, 2, 1, 20);
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	TRY(expect_dests(v, 1, 5, (blk64_t[]) { 58, 59, 60, 61, 62 }));
	apply(v, p);
	v->g.order = E3MP_ORDER_DELETE;
	TRY(plan_check(v, E3MP_HOME_INODE, p2));
	TRY(expect_dests(v, 1, 5, (blk64_t[]) { 58, 59, 62, 61, 60 }));
	TRY(expect_dests(v, 2, 1, (blk64_t[]) { 63 }));
	EXPECT(p2->ind_moved == 2, "%llu blocks move, expected the two "
	       "outer children", ULL(p2->ind_moved));
	return replan_still(v, E3MP_HOME_INODE, p2, p3);
}

static int case_mc_steps_around_fixed(void)
{
	struct vol *v = g4(6);
	struct mp_plan *p = new_plan();

	set_fixed(v, 61, 61);
	set_fixed(v, 63, 63);
	add_file_at(v, 1, 4, 10);
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	TRY(expect_slots(p, 4, (blk64_t[]) { 58, 59, 60, 62 }));
	TRY(expect_dests(v, 1, 4, (blk64_t[]) { 58, 59, 60, 62 }));
	return 0;
}

static int case_mc_size_is_demand(void)
{
	struct vol *v = g4(6);
	struct mp_plan *p = new_plan();
	static const __u32 first[] = { 0, 3, 6, 11, 11 };
	__u32 grp;

	add_file_at(v, 40, 5, 140);	/* group 2; added out of order */
	add_file_at(v, 1, 3, 10);
	add_file_at(v, 17, 2, 74);
	add_file_at(v, 18, 1, 80);
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	for (grp = 0; grp <= 4; grp++)
		EXPECT(p->mc_first[grp] == first[grp], "mc_first[%u] = %u, "
		       "expected %u", grp, p->mc_first[grp], first[grp]);
	TRY(expect_slots(p, 11, (blk64_t[]) { 61, 62, 63, 125, 126, 127,
					      187, 188, 189, 190, 191 }));
	TRY(expect_dests(v, 1, 3, (blk64_t[]) { 61, 62, 63 }));
	TRY(expect_dests(v, 17, 2, (blk64_t[]) { 125, 126 }));
	TRY(expect_dests(v, 18, 1, (blk64_t[]) { 127 }));
	TRY(expect_dests(v, 40, 5, (blk64_t[]) { 187, 188, 189, 190, 191 }));
	TRY(expect_counts(p, 11, 0));
	EXPECT(p->mc_groups == 3, "mc_groups %llu", ULL(p->mc_groups));
	return 0;
}

static int case_zone_cap_carries(void)
{
	struct vol *v = g4(6);
	struct mp_plan *p = new_plan();
	blk64_t want[20];
	__u32 k;

	add_file_at(v, 1, 20, 10);	/* demand 20 > zone 16 */
	add_file_at(v, 17, 3, 74);
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	EXPECT(p->mc_first[1] == 16 && p->mc_first[2] == 23,
	       "mc_first %u %u", p->mc_first[1], p->mc_first[2]);
	for (k = 0; k < 20; k++)
		want[k] = k < 16 ? 48 + k : 121 + (k - 16);
	TRY(expect_dests(v, 1, 20, want));
	TRY(expect_dests(v, 17, 3, (blk64_t[]) { 125, 126, 127 }));
	EXPECT(p->after.in_mc == 23 && p->unclustered == 0,
	       "in_mc %llu unclustered %llu", ULL(p->after.in_mc),
	       ULL(p->unclustered));
	return 0;
}

static int case_overflow_past_last_group(void)
{
	struct vol *v = g4(6);
	struct mp_plan *p = new_plan();
	blk64_t want[20];
	__u32 k;

	add_file_at(v, 33, 2, 140);
	add_file_at(v, 49, 20, 200);	/* group 3: 20 > 16, nowhere to carry */
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	TRY(expect_dests(v, 33, 2, (blk64_t[]) { 190, 191 }));
	EXPECT(p->nslot == 18, "%u slots", p->nslot);
	for (k = 0; k < 20; k++)
		want[k] = k < 16 ? 240 + k : 200 + k;
	TRY(expect_dests(v, 49, 20, want));
	EXPECT(p->unclustered == 4 && p->no_space == 0 &&
	       p->after.in_mc == 18, "unclustered %llu no_space %llu "
	       "in_mc %llu", ULL(p->unclustered), ULL(p->no_space),
	       ULL(p->after.in_mc));
	return 0;
}

static int case_short_last_group(void)
{
	/* 3 x 64 + 20 blocks: the last group's zone is 5 blocks */
	struct vol *v = track(vol_new(0, 64, 212, 16, 25));
	struct mp_plan *p = new_plan();

	std_meta(v, 6);
	EXPECT(v->g.group_count == 4, "group_count %u", v->g.group_count);
	add_file_at(v, 17, 2, 80);
	add_file_at(v, 49, 7, 198);
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	TRY(expect_dests(v, 17, 2, (blk64_t[]) { 126, 127 }));
	TRY(expect_dests(v, 49, 7, (blk64_t[]) { 207, 208, 209, 210, 211,
						 203, 204 }));
	EXPECT(p->unclustered == 2, "unclustered %llu", ULL(p->unclustered));
	return 0;
}

static int case_first_data_block_1(void)
{
	/* groups [64g + 1, 64g + 64]; block 0 belongs to none */
	struct vol *v = track(vol_new(1, 64, 257, 16, 25));
	struct mp_plan *p = new_plan();

	std_meta(v, 6);
	add_file_at(v, 1, 2, 20);
	add_file_at(v, 17, 1, 80);
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	TRY(expect_dests(v, 1, 2, (blk64_t[]) { 63, 64 }));
	TRY(expect_dests(v, 17, 1, (blk64_t[]) { 128 }));
	return 0;
}

/* --- homing -------------------------------------------------------------- */

static int case_inode_homing_runs(void)
{
	struct vol *v = g4(6);
	struct mp_plan *p = new_plan();
	static const __u32 inos[] = { 3, 5, 9, 20 };
	blk64_t last = 0;
	__u32 f, k;

	add_file(v, 9, 1, (blk64_t[]) { 40 });
	add_file(v, 3, 2, (blk64_t[]) { 30, 12 });
	add_file(v, 5, 4, (blk64_t[]) { 20, 11, 25, 14 });
	add_file(v, 20, 2, (blk64_t[]) { 90, 80 });
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	TRY(expect_dests(v, 3, 2, (blk64_t[]) { 57, 58 }));
	TRY(expect_dests(v, 5, 4, (blk64_t[]) { 59, 60, 61, 62 }));
	TRY(expect_dests(v, 9, 1, (blk64_t[]) { 63 }));
	TRY(expect_dests(v, 20, 2, (blk64_t[]) { 126, 127 }));
	/* the same, stated as the rule */
	for (f = 0; f < 4; f++) {
		long s0 = slot_idx(p, dest_of(v, inos[f], 0));

		for (k = 0; k < (f == 1 ? 4u : f == 2 ? 1u : 2u); k++) {
			long s = slot_idx(p, dest_of(v, inos[f], k));

			EXPECT(s == s0 + (long) k, "ino %u record %u at slot "
			       "%ld, not %ld", inos[f], k, s, s0 + (long) k);
			EXPECT(dest_of(v, inos[f], k) > last,
			       "ino %u not after the previous inode", inos[f]);
			last = dest_of(v, inos[f], k);
		}
	}
	return 0;
}

static int case_data_homing(void)
{
	struct vol *v = g4(6);
	struct mp_plan *p = new_plan();
	__u32 i;

	add_file_dg(v, 1, 4, (blk64_t[]) { 10, 11, 12, 13 },
		    (__u32[]) { 2, 1, 1, 3 });
	add_file_dg(v, 2, 1, (blk64_t[]) { 14 }, (__u32[]) { 0 });
	TRY(plan_check(v, E3MP_HOME_DATA, p));
	TRY(expect_dests(v, 1, 4, (blk64_t[]) { 191, 126, 127, 255 }));
	TRY(expect_dests(v, 2, 1, (blk64_t[]) { 63 }));
	for (i = 0; i < v->nrec; i++) {
		long s = slot_idx(p, v->rec[i].dest);
		__u32 dg = v->rec[i].data_group;

		EXPECT(s >= (long) p->mc_first[dg] &&
		       s < (long) p->mc_first[dg + 1], "record %u (data "
		       "group %u) at slot %ld", i, dg, s);
	}
	return 0;
}

static int case_data_homing_clamped(void)
{
	struct vol *v = g4(6);
	struct mp_plan *p = new_plan();

	add_file_dg(v, 1, 1, (blk64_t[]) { 10 }, (__u32[]) { 7 });
	TRY(plan_check(v, E3MP_HOME_DATA, p));
	TRY(expect_dests(v, 1, 1, (blk64_t[]) { 255 }));
	EXPECT(p->mc_first[3] == 0 && p->mc_first[4] == 1, "mc_first");
	return 0;
}

static int case_run_in_place_stays(void)
{
	struct vol *v = g4(6);
	struct mp_plan *p = new_plan();

	add_file_at(v, 1, 4, 60);
	add_file_at(v, 17, 2, 126);
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	TRY(expect_counts(p, 0, 0));
	EXPECT(p->before.in_mc == 6 && p->after.in_mc == 6 &&
	       p->ind_moved == 0, "in_mc %llu -> %llu",
	       ULL(p->before.in_mc), ULL(p->after.in_mc));
	return 0;
}

/*
 * Header: a run in slots at or after its home MC stays put.  The other
 * one, before its home MC, is laid out again: the cursor finds group 1's
 * MC taken and wraps onto the only free slot, the one it sits in.
 */
static int case_run_after_home_mc_stays(void)
{
	struct vol *v = g4(6);
	struct mp_plan *p = new_plan();

	add_file_at(v, 1, 1, 127);	/* group 0's, in group 1's MC */
	add_file_at(v, 17, 1, 63);	/* group 1's, in group 0's MC */
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	TRY(expect_slots(p, 2, (blk64_t[]) { 63, 127 }));
	TRY(expect_dests(v, 1, 1, (blk64_t[]) { 127 }));
	TRY(expect_dests(v, 17, 1, (blk64_t[]) { 63 }));
	TRY(expect_counts(p, 0, 0));
	EXPECT(p->before.in_mc == 2 && p->after.in_mc == 2 &&
	       p->unclustered == 0 && p->ind_moved == 0,
	       "before %llu in_mc %llu unclustered %llu ind_moved %llu",
	       ULL(p->before.in_mc), ULL(p->after.in_mc),
	       ULL(p->unclustered), ULL(p->ind_moved));
	return 0;
}

/*
 * Group 0's record sits in place in group 3's MC (slot 16), so group 0's
 * slot 63 stays free; file 49 (16 records) fills slots 1..15 through the
 * cursor, which then runs out: its last record wraps to slot 0, before
 * its home MC.  A second plan lays it out onto the same slots.
 */
static int case_cursor_wraps(void)
{
	struct vol *v = g4(6);
	struct mp_plan *p = new_plan(), *p2 = new_plan();
	blk64_t want[16];
	__u32 k;

	add_file_at(v, 1, 1, 255);
	add_file_at(v, 49, 16, 200);
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	EXPECT(p->nslot == 17 && p->mc_first[3] == 1 && p->slot[0] == 63,
	       "%u slots, mc_first[3] %u, slot 0 %llu", p->nslot,
	       p->mc_first[3], ULL(p->slot[0]));
	for (k = 0; k < 16; k++)
		want[k] = k < 15 ? 240 + k : 63;
	TRY(expect_dests(v, 1, 1, (blk64_t[]) { 255 }));
	TRY(expect_dests(v, 49, 16, want));
	TRY(expect_counts(p, 16, 0));
	EXPECT(p->before.in_mc == 1 && p->after.in_mc == 17 &&
	       p->unclustered == 0 && p->no_space == 0,
	       "before %llu in_mc %llu unclustered %llu no_space %llu",
	       ULL(p->before.in_mc), ULL(p->after.in_mc),
	       ULL(p->unclustered), ULL(p->no_space));
	return replan_still(v, E3MP_HOME_INODE, p, p2);
}

/*
 * A run in place splits the cursor's fill: the file that follows takes
 * the free slots on both sides of it, in logical order.
 */
static int case_fill_around_run_in_place(void)
{
	struct vol *v = g4(6);
	struct mp_plan *p = new_plan(), *p2 = new_plan();

	add_file_at(v, 1, 3, 10);	/* before X in order: 58, 59, 62 */
	add_file_at(v, 2, 2, 60);	/* X: in place */
	add_file_at(v, 3, 1, 20);	/* after X in order: 63 */
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	TRY(expect_slots(p, 6, (blk64_t[]) { 58, 59, 60, 61, 62, 63 }));
	TRY(expect_dests(v, 1, 3, (blk64_t[]) { 58, 59, 62 }));
	TRY(expect_dests(v, 2, 2, (blk64_t[]) { 60, 61 }));
	TRY(expect_dests(v, 3, 1, (blk64_t[]) { 63 }));
	TRY(expect_counts(p, 4, 0));
	return replan_still(v, E3MP_HOME_INODE, p, p2);
}

static int case_run_out_of_order_repacked(void)
{
	struct vol *v = g4(6);
	struct mp_plan *p = new_plan();

	/* in the MC, but backwards: each one's slot holds another */
	add_file(v, 1, 4, (blk64_t[]) { 63, 62, 61, 60 });
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	TRY(expect_dests(v, 1, 4, (blk64_t[]) { 60, 61, 62, 63 }));
	TRY(expect_counts(p, 4, 4));
	EXPECT(p->temp_moves == 4, "temp_moves %llu", ULL(p->temp_moves));
	return 0;
}

/* --- evacuation ---------------------------------------------------------- */

static int case_evac_same_group_consecutive(void)
{
	struct vol *v = g4(6);
	struct mp_plan *p = new_plan();

	set_data(v, 52, 63, 5);
	add_file_at(v, 1, 3, 10);
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	TRY(expect_dests(v, 1, 3, (blk64_t[]) { 61, 62, 63 }));
	TRY(expect_counts(p, 3, 3));
	EXPECT_MOVE(p, 1, 61, 6, MV_DATA);
	EXPECT_MOVE(p, 1, 62, 7, MV_DATA);
	EXPECT_MOVE(p, 1, 63, 8, MV_DATA);
	EXPECT_MOVE(p, 2, 10, 61, MV_IND);
	EXPECT_MOVE(p, 2, 12, 63, MV_IND);
	EXPECT(p->data_evacuated == 3 && p->ind_moved == 3, "figures");
	return 0;
}

static int case_evac_prefers_own_group(void)
{
	struct vol *v = g4_zone_data();
	struct mp_plan *p = new_plan();

	TRY(plan_check(v, E3MP_HOME_INODE, p));
	EXPECT_MOVE(p, 1, 126, 72, MV_DATA);
	EXPECT_MOVE(p, 1, 127, 73, MV_DATA);
	return 0;
}

static int case_evac_next_group(void)
{
	struct vol *v = g4_zone_data();
	struct mp_plan *p = new_plan();

	fill_fixed(v, 64, 125);		/* group 1 full, zone included */
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	EXPECT_MOVE(p, 1, 126, 134, MV_DATA);
	EXPECT_MOVE(p, 1, 127, 135, MV_DATA);
	return 0;
}

static int case_evac_wraps_to_group_0(void)
{
	struct vol *v = g4(6);
	struct mp_plan *p = new_plan();

	add_file_at(v, 49, 2, 200);
	set_data(v, 254, 255, 30);
	fill_fixed(v, 192, 253);	/* the last group is full */
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	EXPECT_MOVE(p, 1, 254, 6, MV_DATA);
	EXPECT_MOVE(p, 1, 255, 7, MV_DATA);
	return 0;
}

static int case_evac_other_zones_last(void)
{
	struct vol *v = g4_zone_data();
	struct mp_plan *p = new_plan();

	fill_fixed(v, 64, 125);
	fill_below_zones(v);
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	EXPECT_MOVE(p, 1, 126, 176, MV_DATA);
	EXPECT_MOVE(p, 1, 127, 177, MV_DATA);
	return 0;
}

static int case_evac_own_zone_before_others(void)
{
	struct vol *v = g4_zone_data();
	struct mp_plan *p = new_plan();

	fill_below_zones(v);
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	EXPECT_MOVE(p, 1, 126, 112, MV_DATA);
	EXPECT_MOVE(p, 1, 127, 113, MV_DATA);
	return 0;
}

/* --- chains, cycles, displaced records ----------------------------------- */

static int case_chain_parks(void)
{
	struct vol *v = g4(10);
	struct mp_plan *p = new_plan();

	add_file_at(v, 1, 1, 10);	/* B: its MC slot 63 holds A */
	add_file_at(v, 17, 1, 63);	/* A: its MC slot 127 holds data */
	set_data(v, 127, 127, 20);
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	TRY(expect_dests(v, 1, 1, (blk64_t[]) { 63 }));
	TRY(expect_dests(v, 17, 1, (blk64_t[]) { 127 }));
	TRY(expect_counts(p, 2, 2));
	EXPECT_MOVE(p, 1, 63, 11, MV_TEMP);
	EXPECT_MOVE(p, 1, 127, 74, MV_DATA);
	EXPECT_MOVE(p, 2, 10, 63, MV_IND);
	EXPECT_MOVE(p, 2, 11, 127, MV_IND);
	EXPECT(p->temp_moves == 1 && p->data_evacuated == 1 &&
	       p->ind_moved == 2, "figures");
	return 0;
}

static int case_two_cycle(void)
{
	struct vol *v = g4(6);
	struct mp_plan *p = new_plan();

	add_file(v, 1, 2, (blk64_t[]) { 63, 62 });	/* IND, DIND swapped */
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	TRY(expect_dests(v, 1, 2, (blk64_t[]) { 62, 63 }));
	TRY(expect_counts(p, 2, 2));
	EXPECT_MOVE(p, 1, 62, 6, MV_TEMP);
	EXPECT_MOVE(p, 1, 63, 7, MV_TEMP);
	EXPECT_MOVE(p, 2, 6, 63, MV_IND);
	EXPECT_MOVE(p, 2, 7, 62, MV_IND);
	return 0;
}

static int case_displaced_moved_out(void)
{
	struct vol *v = g4(10);
	struct mp_plan *p = new_plan();
	blk64_t want[16];
	__u32 k;

	add_file_at(v, 33, 1, 138);	/* group 2: MC = { 191 } */
	add_file_at(v, 49, 16, 202);	/* group 3: fills its whole zone */
	add_file_at(v, 50, 1, 191);	/* group 3, no room, in 33's slot */
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	for (k = 0; k < 16; k++)
		want[k] = 240 + k;
	TRY(expect_dests(v, 49, 16, want));
	TRY(expect_dests(v, 33, 1, (blk64_t[]) { 191 }));
	TRY(expect_dests(v, 50, 1, (blk64_t[]) { 139 }));
	EXPECT_MOVE(p, 1, 191, 139, MV_OUT);
	EXPECT_MOVE(p, 2, 138, 191, MV_IND);
	TRY(expect_counts(p, 17, 1));
	EXPECT(p->unclustered == 1 && p->after.in_mc == 17 &&
	       p->ind_moved == 17 && p->no_space == 0, "figures: "
	       "unclustered %llu in_mc %llu ind_moved %llu no_space %llu",
	       ULL(p->unclustered), ULL(p->after.in_mc), ULL(p->ind_moved),
	       ULL(p->no_space));
	return 0;
}

/* --- out of space -------------------------------------------------------- */

/* One file of 4 whose MC is full of data; only 20 and 21 are free. */
static struct vol *tight(void)
{
	struct vol *v = g4(10);

	add_file_at(v, 1, 4, 10);
	set_data(v, 60, 63, 9);
	fill_fixed(v, 0, 19);
	fill_fixed(v, 22, 255);
	return v;
}

static int case_out_of_space_partial(void)
{
	struct vol *v = tight();
	struct mp_plan *p = new_plan();

	TRY(plan_check(v, E3MP_HOME_INODE, p));
	EXPECT(p->no_space > 0 && p->unclustered > 0,
	       "no_space %llu unclustered %llu", ULL(p->no_space),
	       ULL(p->unclustered));
	return 0;
}

/* plan.c, fit_to_space(): "give up whole runs, last placed first". */
static int case_out_of_space_whole_runs(void)
{
	struct vol *v = tight();
	struct mp_plan *p = new_plan();
	__u32 k, moved = 0;

	TRY(plan_check(v, E3MP_HOME_INODE, p));
	for (k = 0; k < 4; k++)
		moved += dest_of(v, 1, k) != v->rec[rec_of_ino(v, 1, k)].blk;
	EXPECT(moved == 0 || moved == 4, "the run of ino 1 is split: %u of "
	       "its 4 records move (dests %llu %llu %llu %llu), no_space "
	       "%llu", moved, ULL(dest_of(v, 1, 0)), ULL(dest_of(v, 1, 1)),
	       ULL(dest_of(v, 1, 2)), ULL(dest_of(v, 1, 3)),
	       ULL(p->no_space));
	return 0;
}

static int case_out_of_space_second_file_given_up(void)
{
	/* two runs, room for the first one only: the last placed goes */
	struct vol *v = g4(10);
	struct mp_plan *p = new_plan();

	add_file_at(v, 1, 2, 10);
	add_file_at(v, 2, 3, 12);
	set_data(v, 59, 63, 9);
	fill_fixed(v, 0, 19);
	fill_fixed(v, 23, 255);		/* free: 20, 21, 22 */
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	TRY(expect_dests(v, 1, 2, (blk64_t[]) { 59, 60 }));
	TRY(expect_dests(v, 2, 3, (blk64_t[]) { 12, 13, 14 }));
	EXPECT(p->no_space == 3, "no_space %llu", ULL(p->no_space));
	return 0;
}

static int case_zero_free_data_in_mc(void)
{
	struct vol *v = tight();
	struct mp_plan *p = new_plan();

	fill_fixed(v, 20, 21);
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	TRY(expect_counts(p, 0, 0));
	EXPECT(p->no_space == 4 && p->unclustered == 4,
	       "no_space %llu unclustered %llu", ULL(p->no_space),
	       ULL(p->unclustered));
	return 0;
}

static int case_zero_free_cycle(void)
{
	struct vol *v = g4(6);
	struct mp_plan *p = new_plan();

	add_file(v, 1, 2, (blk64_t[]) { 63, 62 });
	fill_fixed(v, 0, 255);
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	TRY(expect_counts(p, 0, 0));
	EXPECT(p->no_space == 2, "no_space %llu", ULL(p->no_space));
	return 0;
}

/* --- size ---------------------------------------------------------------- */

static int case_many_moves(void)
{
	/* 8 groups of 512, zones of 128; 300 records; > 64 moves per round */
	struct vol *v = track(vol_new(0, 512, 4096, 64, 25));
	struct mp_plan *p = new_plan(), *p2 = new_plan();
	__u32 ino;

	std_meta(v, 20);
	set_data(v, 896, 1023, 500);	/* group 1's zone, all data */
	for (ino = 1; ino <= 64; ino++)
		add_file_at(v, ino, 3, 20 + 3 * (ino - 1));
	for (ino = 65; ino <= 100; ino++)
		add_file_at(v, ino, 3, 532 + 3 * (ino - 65));
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	EXPECT(p->nslot == 300 && p->mc_first[1] == 128 &&
	       p->mc_first[2] == 256 && p->mc_first[3] == 300,
	       "slots %u, mc_first %u %u %u", p->nslot, p->mc_first[1],
	       p->mc_first[2], p->mc_first[3]);
	TRY(expect_counts(p, 300, 128));
	EXPECT(p->after.in_mc == 300 && p->data_evacuated == 128,
	       "in_mc %llu evacuated %llu", ULL(p->after.in_mc),
	       ULL(p->data_evacuated));
	return replan_still(v, E3MP_HOME_INODE, p, p2);
}

/* --- data homing: first data blocks that move ---------------------------- */

static int case_data_anchor_not_a_slot(void)
{
	/*
	 * Group 1 is full but for its zone's 126 (data) and 127, R1's
	 * first data block: its anchor, so no slot under data homing.
	 * Group 1's MC is { 126 }, the rest carries into group 2's; 127
	 * stays, and R1 stays homed in group 1.
	 */
	struct vol *v = g4(6);
	struct mp_plan *p = new_plan(), *p2 = new_plan();
	__u32 r1;

	add_file_at(v, 17, 1, 70);
	r1 = anchored_file(v, 18, 71, 127);
	set_data(v, 126, 126, 30);
	fill_fixed(v, 64, 125);
	TRY(plan_check(v, E3MP_HOME_DATA, p));
	TRY(expect_slots(p, 2, (blk64_t[]) { 126, 191 }));
	EXPECT(p->mc_first[1] == 0 && p->mc_first[2] == 1,
	       "mc_first %u %u", p->mc_first[1], p->mc_first[2]);
	TRY(expect_dests(v, 17, 1, (blk64_t[]) { 126 }));
	TRY(expect_dests(v, 18, 1, (blk64_t[]) { 191 }));
	TRY(expect_counts(p, 2, 1));
	EXPECT_MOVE(p, 1, 126, 134, MV_DATA);
	EXPECT_MOVE(p, 1, 71, 191, MV_IND);
	EXPECT_MOVE(p, 2, 70, 126, MV_IND);
	EXPECT(v->rec[r1].data_group == 1, "R1 rehomed to group %u",
	       v->rec[r1].data_group);
	TRY(replan_still(v, E3MP_HOME_DATA, p, p2));
	EXPECT(v->c[127].kind == C_DATA && v->c[127].id == v->fdata[r1] &&
	       v->rec[r1].data_group == 1, "R1's anchor moved");
	return 0;
}

static int case_data_anchor_never_evacuated(void)
{
	/*
	 * R's first data block is the only block of its group's zone that
	 * is not fixed: under data homing it is no slot, so R's MC is in
	 * group 2 and nothing is evacuated; R keeps its home, and a second
	 * plan moves nothing.
	 */
	struct vol *v = g4(6);
	struct mp_plan *p = new_plan(), *p2 = new_plan();
	__u32 r = anchored_file(v, 17, 70, 127);

	fill_fixed(v, 64, 126);
	TRY(plan_check(v, E3MP_HOME_DATA, p));
	TRY(expect_slots(p, 1, (blk64_t[]) { 191 }));
	TRY(expect_dests(v, 17, 1, (blk64_t[]) { 191 }));
	TRY(expect_counts(p, 1, 0));
	EXPECT(p->data_evacuated == 0, "data_evacuated %llu",
	       ULL(p->data_evacuated));
	TRY(replan_still(v, E3MP_HOME_DATA, p, p2));
	EXPECT(v->rec[r].data_group == 1 && v->c[127].kind == C_DATA &&
	       v->c[127].id == v->fdata[r], "R's anchor moved");
	return 0;
}

static int case_inode_homing_anchor_is_data(void)
{
	/* the same layout under inode homing: 127 is ordinary data */
	struct vol *v = g4(6);
	struct mp_plan *p = new_plan(), *p2 = new_plan();

	anchored_file(v, 17, 70, 127);
	fill_fixed(v, 64, 126);
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	TRY(expect_slots(p, 1, (blk64_t[]) { 127 }));
	TRY(expect_dests(v, 17, 1, (blk64_t[]) { 127 }));
	TRY(expect_counts(p, 1, 1));
	EXPECT_MOVE(p, 1, 127, 134, MV_DATA);
	EXPECT_MOVE(p, 2, 70, 127, MV_IND);
	return replan_still(v, E3MP_HOME_INODE, p, p2);
}

/* --- idempotence --------------------------------------------------------- */

/* Files in three groups, data in the zones, a record in a foreign MC. */
static void layout_mixed(struct vol *v)
{
	add_file(v, 1, 3, (blk64_t[]) { 30, 12, 44 });
	add_file(v, 2, 2, (blk64_t[]) { 61, 20 });
	add_file(v, 4, 1, (blk64_t[]) { 57 });
	add_file(v, 17, 4, (blk64_t[]) { 80, 81, 100, 90 });
	add_file(v, 20, 1, (blk64_t[]) { 63 });
	add_file(v, 40, 5, (blk64_t[]) { 140, 150, 141, 160, 170 });
	set_data(v, 48, 56, 3);
	set_data(v, 58, 60, 3);
	set_data(v, 62, 62, 3);
	set_data(v, 120, 127, 18);
	set_data(v, 186, 189, 35);
}

static int case_idem_mixed(void)
{
	struct vol *v = g4(6);
	struct mp_plan *p = new_plan(), *p2 = new_plan();

	layout_mixed(v);
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	EXPECT(p->nmv[0] && p->nmv[1] && p->data_evacuated,
	       "layout too easy: %u + %u moves", p->nmv[0], p->nmv[1]);
	return replan_still(v, E3MP_HOME_INODE, p, p2);
}

static int case_idem_data_homing(void)
{
	struct vol *v = g4(6);
	struct mp_plan *p = new_plan(), *p2 = new_plan();

	add_file_dg(v, 1, 4, (blk64_t[]) { 10, 11, 12, 13 },
		    (__u32[]) { 2, 1, 1, 3 });
	add_file_dg(v, 2, 3, (blk64_t[]) { 14, 126, 15 },
		    (__u32[]) { 0, 0, 1 });
	add_file_dg(v, 17, 2, (blk64_t[]) { 70, 71 }, (__u32[]) { 0, 3 });
	add_file_dg(v, 33, 2, (blk64_t[]) { 190, 140 }, (__u32[]) { 2, 2 });
	set_data(v, 60, 63, 3);
	set_data(v, 250, 255, 50);
	TRY(plan_check(v, E3MP_HOME_DATA, p));
	return replan_still(v, E3MP_HOME_DATA, p, p2);
}

static int case_idem_fixed_tail_overflow(void)
{
	struct vol *v = g4(6);
	struct mp_plan *p = new_plan(), *p2 = new_plan();

	set_fixed(v, 63, 63);		/* fixed blocks inside the zones */
	set_fixed(v, 55, 57);
	set_fixed(v, 120, 120);
	add_file_at(v, 1, 12, 10);	/* group 0: 12 + 4 > 13 eligible */
	add_file_at(v, 3, 4, 30);
	add_file_at(v, 17, 3, 74);
	add_file_at(v, 49, 18, 200);	/* group 3 overflows the volume */
	set_data(v, 122, 126, 19);
	set_data(v, 240, 243, 60);
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	EXPECT(p->unclustered > 0, "no overflow");
	return replan_still(v, E3MP_HOME_INODE, p, p2);
}

/*
 * Group 3 overflows: X sits in place in slots 2-3; the cursor gives A
 * slots 0-1 and 4-13 (around X), B slots 14-15, and runs out: B's third
 * record and C stay out.  plan.c says a run only partly in place is laid
 * out again onto the same slots, so a second plan moves nothing.
 */
static int case_idem_partially_placed_run(void)
{
	struct vol *v = g4(6);
	struct mp_plan *p = new_plan(), *p2 = new_plan();
	blk64_t want[12];
	__u32 k;

	add_file_at(v, 49, 2, 242);	/* X */
	add_file_at(v, 50, 12, 200);	/* A */
	add_file_at(v, 51, 3, 212);	/* B */
	add_file_at(v, 52, 1, 215);	/* C */
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	for (k = 0; k < 12; k++)
		want[k] = k < 2 ? 240 + k : 242 + k;
	TRY(expect_dests(v, 49, 2, (blk64_t[]) { 242, 243 }));
	TRY(expect_dests(v, 50, 12, want));
	TRY(expect_dests(v, 51, 3, (blk64_t[]) { 254, 255, 214 }));
	TRY(expect_dests(v, 52, 1, (blk64_t[]) { 215 }));
	EXPECT(p->no_space == 0 && p->unclustered == 2,
	       "no_space %llu unclustered %llu", ULL(p->no_space),
	       ULL(p->unclustered));
	return replan_still(v, E3MP_HOME_INODE, p, p2);
}

static int case_idem_chains(void)
{
	struct vol *v = g4(10);
	struct mp_plan *p = new_plan(), *p2 = new_plan();

	add_file_at(v, 1, 1, 10);
	add_file(v, 2, 3, (blk64_t[]) { 60, 59, 61 });
	add_file_at(v, 17, 1, 63);
	add_file(v, 18, 2, (blk64_t[]) { 62, 126 });
	set_data(v, 127, 127, 20);
	set_data(v, 123, 124, 21);
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	EXPECT(p->temp_moves > 0, "no chain");
	return replan_still(v, E3MP_HOME_INODE, p, p2);
}

static int case_idem_displaced(void)
{
	struct vol *v = g4(10);
	struct mp_plan *p = new_plan(), *p2 = new_plan();

	add_file_at(v, 33, 1, 138);
	add_file_at(v, 49, 16, 202);
	add_file_at(v, 50, 1, 191);
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	return replan_still(v, E3MP_HOME_INODE, p, p2);
}

static int case_idem_fdb1_short(void)
{
	/* 1 KiB-style, last group of 30 blocks (zone: 7) */
	struct vol *v = track(vol_new(1, 64, 1 + 64 * 3 + 30, 16, 25));
	struct mp_plan *p = new_plan(), *p2 = new_plan();

	std_meta(v, 6);
	add_file_at(v, 2, 3, 10);
	add_file_at(v, 33, 4, 140);
	add_file_at(v, 49, 9, 200);	/* 9 > 7 */
	set_data(v, 218, 222, 50);
	set_data(v, 60, 64, 5);
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	return replan_still(v, E3MP_HOME_INODE, p, p2);
}

/* --- incremental --------------------------------------------------------- */

static int only_new_moved(const struct vol *v, const struct mp_plan *p,
			  __u32 new_ino, const blk64_t *old_blk)
{
	__u32 i, k, j = 0;
	int r;

	for (i = 0; i < v->nrec; i++) {
		if (v->rec[i].ino == new_ino) {
			EXPECT(slot_idx(p, v->rec[i].dest) >= 0,
			       "new record %u not placed in an MC", i);
			continue;
		}
		EXPECT(v->rec[i].dest == v->rec[i].blk &&
		       v->rec[i].blk == old_blk[j],
		       "old record %u (ino %u) at %llu moves to %llu", i,
		       v->rec[i].ino, ULL(v->rec[i].blk),
		       ULL(v->rec[i].dest));
		j++;
	}
	for (r = 0; r < 2; r++)
		for (k = 0; k < p->nmv[r]; k++) {
			const struct mp_move *m = &p->mv[r][k];
			int x = m->kind == MV_DATA ? rec_by_dest(v, m->from) :
				-1;

			EXPECT(m->ino == new_ino ||
			       (x >= 0 && v->rec[x].ino == new_ino),
			       "round %d %s move %llu->%llu (ino %u) is not "
			       "for the new file", r + 1, kind_name(m->kind),
			       ULL(m->from), ULL(m->to), m->ino);
		}
	return 0;
}

static int incremental(struct vol *v, __u32 new_ino, __u32 n)
{
	struct mp_plan *p = new_plan(), *p2 = new_plan(), *p3 = new_plan();
	blk64_t old[MAXR], blk[16];
	__u32 i, k, grp = ino_group(v, new_ino);

	TRY(plan_check(v, E3MP_HOME_INODE, p));
	apply(v, p);
	for (i = 0; i < v->nrec; i++)
		old[i] = v->rec[i].blk;
	for (k = 0; k < n; k++) {
		blk[k] = free_in(v, mp_group_first(&v->g, grp),
				 mp_zone_first(&v->g, grp) - 1);
		v->c[blk[k]].kind = C_FIXED;	/* reserve it */
	}
	for (k = 0; k < n; k++)
		v->c[blk[k]].kind = C_FREE;
	add_file(v, new_ino, n, blk);
	TRY(plan_check(v, E3MP_HOME_INODE, p2));
	EXPECT(p2->nmv[0] + p2->nmv[1] > 0, "the new file does not move");
	TRY(only_new_moved(v, p2, new_ino, old));
	EXPECT(p2->after.in_mc == p->after.in_mc + n,
	       "after.in_mc %llu, expected %llu + %u", ULL(p2->after.in_mc),
	       ULL(p->after.in_mc), n);
	return replan_still(v, E3MP_HOME_INODE, p2, p3);
}

static int case_incremental_same_group(void)
{
	struct vol *v = g4(6);

	add_file_at(v, 1, 3, 10);
	add_file_at(v, 2, 2, 13);
	add_file_at(v, 17, 4, 74);
	set_data(v, 50, 63, 30);
	set_data(v, 118, 127, 31);
	return incremental(v, 3, 2);
}

static int case_incremental_lower_inode(void)
{
	struct vol *v = g4(6);

	add_file_at(v, 5, 3, 10);
	add_file_at(v, 9, 2, 13);
	set_data(v, 56, 63, 30);
	return incremental(v, 2, 3);
}

static int case_incremental_other_group(void)
{
	struct vol *v = g4(6);

	layout_mixed(v);
	return incremental(v, 50, 3);
}

static int case_incremental_carry(void)
{
	struct vol *v = g4(6);

	add_file_at(v, 1, 14, 10);	/* group 0's zone, exactly full */
	add_file_at(v, 2, 2, 24);
	add_file_at(v, 17, 3, 74);
	set_data(v, 110, 127, 40);
	return incremental(v, 3, 2);	/* carried into group 1 */
}

/* --- the inline rule ----------------------------------------------------- */

/* A file's first IND stays where it is; its other records are packed. */
/* --- directories (--dirs=pack) ------------------------------------------ */

/*
 * A block-mapped directory as scan.c records it, in pre-order: data
 * blocks 0-11 (pointers in the inode), then, past 12 blocks, its IND
 * (REC_OF_DIR) and the data under it.  @blk lists the data blocks, @ind
 * the IND's block (used when n > 12).
 */
static void add_dir(struct vol *v, __u32 ino, __u32 n, const blk64_t *blk,
		    blk64_t ind)
{
	__u32 k;

	for (k = 0; k < n; k++) {
		if (k == 12)
			add_rec(v, ino, ind, 1, REC_IN_INODE | REC_OF_DIR, 12,
				mp_group_of(&v->g, blk[12]));
		add_rec(v, ino, blk[k], 0, REC_DIR | (k < 12 ? REC_IN_INODE :
			0), k, mp_group_of(&v->g, blk[k]));
	}
}

/*
 * Directory @ino's data records, in logical order, sit in consecutive
 * slots after @after (a block; 0: anywhere); returns the last one's dest.
 */
static int dir_contiguous(const struct vol *v, const struct mp_plan *p,
			  __u32 ino, blk64_t after, blk64_t *last)
{
	long prev = -1;
	__u32 i;

	for (i = 0; i < v->nrec; i++) {
		const struct ind_rec *r = &v->rec[i];
		long s;

		if (r->ino != ino || !(r->flags & REC_DIR))
			continue;
		s = slot_idx(p, r->dest);
		EXPECT(s >= 0, "dir %u block %u at %llu: not in a slot", ino,
		       r->logical, ULL(r->dest));
		EXPECT(prev < 0 || s == prev + 1, "dir %u block %u at slot "
		       "%ld, after slot %ld", ino, r->logical, s, prev);
		EXPECT(r->dest > after, "dir %u block %u at %llu, not after "
		       "%llu", ino, r->logical, ULL(r->dest), ULL(after));
		prev = s;
		*last = r->dest;
	}
	EXPECT(prev >= 0, "no directory record of inode %u", ino);
	return 0;
}

/* The highest dest of the indirect (not directory) records of group @g. */
static blk64_t last_ind_dest(const struct vol *v, __u32 grp)
{
	blk64_t m = 0;
	__u32 i;

	for (i = 0; i < v->nrec; i++)
		if (!(v->rec[i].flags & REC_DIR) &&
		    ino_group(v, v->rec[i].ino) == grp && v->rec[i].dest > m)
			m = v->rec[i].dest;
	return m;
}

/*
 * Directories of group 0 among files' indirect blocks and data in the
 * zone: every directory one run, in logical order, after the group's
 * indirect blocks, directories in inode order; the directory's own IND
 * with the indirect blocks; a second plan moves nothing.
 */
static struct vol *dirs_layout(void)
{
	struct vol *v = g4(6);
	blk64_t big[14];
	__u32 k;

	add_file(v, 3, 2, (blk64_t[]) { 30, 12 });
	add_dir(v, 5, 3, (blk64_t[]) { 20, 55, 21 }, 0);
	for (k = 0; k < 14; k++)
		big[k] = k < 7 ? 31 + k : 40 + k;
	add_dir(v, 9, 14, big, 25);
	add_file(v, 10, 1, (blk64_t[]) { 8 });
	set_data(v, 56, 63, 30);
	return v;
}

static int case_dirs_contiguous(void)
{
	struct vol *v = dirs_layout();
	struct mp_plan *p = new_plan(), *p2 = new_plan();
	blk64_t last = 0, ind_last;

	TRY(plan_check(v, E3MP_HOME_INODE, p));
	ind_last = last_ind_dest(v, 0);
	TRY(dir_contiguous(v, p, 5, ind_last, &last));
	TRY(dir_contiguous(v, p, 9, last, &last));
	EXPECT(p->dir_blocks == 17 && p->dir_moved == 17 &&
	       p->dir_after == 17, "dir_blocks %llu, moved %llu, after %llu",
	       ULL(p->dir_blocks), ULL(p->dir_moved), ULL(p->dir_after));
	EXPECT(p->ind_moved == 4, "ind_moved %llu, expected the 4 IND "
	       "blocks", ULL(p->ind_moved));
	TRY(replan_still(v, E3MP_HOME_INODE, p, p2));
	EXPECT(p2->dir_before == 17 && p2->dir_moved == 0,
	       "second plan: dir_before %llu, dir_moved %llu",
	       ULL(p2->dir_before), ULL(p2->dir_moved));
	return 0;
}

/*
 * Under data homing a directory and its IND are homed with the inode
 * (its data goes there), so a second plan does not move the IND again.
 */
static int case_dirs_data_homing(void)
{
	struct vol *v = g4(6);
	struct mp_plan *p = new_plan(), *p2 = new_plan();
	blk64_t blk[13], last = 0;
	__u32 k;

	for (k = 0; k < 13; k++)
		blk[k] = 70 + k;	/* group 1 */
	add_dir(v, 2, 13, blk, 90);
	add_file_dg(v, 4, 1, (blk64_t[]) { 20 }, (__u32[]) { 2 });
	TRY(plan_check(v, E3MP_HOME_DATA, p));
	TRY(dir_contiguous(v, p, 2, mp_zone_first(&v->g, 0) - 1, &last));
	EXPECT(mp_group_of(&v->g, dest_of(v, 2, 12)) == 0,
	       "the directory's IND went to group %u, not its inode's",
	       mp_group_of(&v->g, dest_of(v, 2, 12)));
	return replan_still(v, E3MP_HOME_DATA, p, p2);
}

/* A directory made after a repack is the only thing the next one moves. */
static int case_dirs_incremental(void)
{
	struct vol *v = dirs_layout();
	struct mp_plan *p = new_plan(), *p2 = new_plan(), *p3 = new_plan();
	blk64_t old[MAXR], last = 0, nb[2];
	__u32 i;

	TRY(plan_check(v, E3MP_HOME_INODE, p));
	apply(v, p);
	for (i = 0; i < v->nrec; i++)
		old[i] = v->rec[i].blk;
	nb[0] = free_in(v, 6, 47);
	v->c[nb[0]].kind = C_FIXED;	/* reserve it */
	nb[1] = free_in(v, 6, 47);
	v->c[nb[0]].kind = C_FREE;
	add_dir(v, 12, 2, nb, 0);
	TRY(plan_check(v, E3MP_HOME_INODE, p2));
	TRY(only_new_moved(v, p2, 12, old));
	TRY(dir_contiguous(v, p2, 12, 0, &last));
	return replan_still(v, E3MP_HOME_INODE, p2, p3);
}

/* Too little free space: whole directories are given up and counted. */
static int case_dirs_no_space(void)
{
	struct vol *v = g4(6);
	struct mp_plan *p = new_plan();
	blk64_t blk[6];
	__u32 k;

	for (k = 0; k < 6; k++)
		blk[k] = 10 + k;
	add_dir(v, 2, 6, blk, 0);
	set_data(v, 48, 63, 30);
	fill_fixed(v, 6, 255);
	v->c[200].kind = C_FREE;
	v->c[201].kind = C_FREE;
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	EXPECT(p->dir_no_space == 6 && p->dir_moved == 0,
	       "dir_no_space %llu, dir_moved %llu", ULL(p->dir_no_space),
	       ULL(p->dir_moved));
	return 0;
}

/*
 * Head zones: a group's directory blocks bound there fill the first
 * eligible blocks after its metadata, in inode order; data and an
 * indirect block there make room; a second plan moves nothing.
 */
static struct vol *dirs_head_layout(enum e3mp_dirs mode)
{
	struct vol *v = g4(6);

	v->g.dirs = mode;
	v->g.head_meta = 6;
	add_file(v, 3, 2, (blk64_t[]) { 30, 12 });
	add_dir(v, 5, 3, (blk64_t[]) { 20, 55, 21 }, 0);
	add_dir(v, 9, 4, (blk64_t[]) { 40, 41, 90, 42 }, 0);
	set_data(v, 6, 7, 30);
	return v;
}

/*
 * Plan dirs_head_layout(@mode) into @p: directory 5's blocks go to @d5,
 * directory 9's to @d9, file 3's indirect blocks to @d3; a second plan
 * over the result moves nothing.
 */
static int dirs_head_plan(enum e3mp_dirs mode, struct mp_plan *p,
			  const blk64_t *d5, const blk64_t *d9,
			  const blk64_t *d3)
{
	struct vol *v = dirs_head_layout(mode);

	TRY(plan_check(v, E3MP_HOME_INODE, p));
	TRY(expect_dests(v, 5, 3, d5));
	TRY(expect_dests(v, 9, 4, d9));
	TRY(expect_dests(v, 3, 2, d3));
	return replan_still(v, E3MP_HOME_INODE, p, new_plan());
}

/*
 * --dirs=roots: block 0 of each directory there, the rest at the tail;
 * the data in the head zone makes room.
 */
static int case_dirs_roots(void)
{
	struct mp_plan *p = new_plan();

	TRY(dirs_head_plan(E3MP_DIRS_ROOTS, p, (blk64_t[]) { 6, 59, 60 },
			   (blk64_t[]) { 7, 61, 62, 63 },
			   (blk64_t[]) { 57, 58 }));
	EXPECT(p->dir_after == 7 && p->after.in_mc == 2 &&
	       p->data_evacuated > 0, "dir_after %llu, after.in_mc %llu, "
	       "data_evacuated %llu", ULL(p->dir_after), ULL(p->after.in_mc),
	       ULL(p->data_evacuated));
	return 0;
}

/*
 * --dirs=volume: directory blocks in one region, the middle group's tail
 * (group 2 of 4), but an htree's root, which goes to the head zone of
 * its inode's group; a directory's own blocks in logical order.
 */
static int case_dirs_volume(void)
{
	struct vol *v = dirs_head_layout(E3MP_DIRS_VOLUME);
	struct mp_plan *p = new_plan();
	__u32 i;

	for (i = 0; i < v->nrec; i++)
		if (v->rec[i].ino == 9 && v->rec[i].logical == 0)
			v->rec[i].flags |= REC_EARLY;
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	TRY(expect_dests(v, 5, 3, (blk64_t[]) { 186, 187, 188 }));
	TRY(expect_dests(v, 9, 4, (blk64_t[]) { 6, 189, 190, 191 }));
	TRY(expect_dests(v, 3, 2, (blk64_t[]) { 62, 63 }));
	EXPECT(p->dir_after == 7 && p->dir_moved == 7, "dir_after %llu, "
	       "dir_moved %llu", ULL(p->dir_after), ULL(p->dir_moved));
	return replan_still(v, E3MP_HOME_INODE, p, new_plan());
}

/*
 * In a tree walk's order (directory 9 before 5), under --dirs=roots:
 * the block 0s in the head zone and the rest at the tail follow the
 * walk, each directory's own in logical order; a directory already in
 * a slot, but out of the walk's order, moves; a second plan moves
 * nothing.
 */
static int case_dirs_walk(void)
{
	static const __u32 ino[2] = { 5, 9 }, rank[2] = { 1, 0 };
	struct vol *v = dirs_head_layout(E3MP_DIRS_ROOTS);
	struct mp_plan *p = new_plan();

	v->g.walk_ino = ino;
	v->g.walk_rank = rank;
	v->g.nwalk = 2;
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	TRY(expect_dests(v, 9, 4, (blk64_t[]) { 6, 59, 60, 61 }));
	TRY(expect_dests(v, 5, 3, (blk64_t[]) { 7, 62, 63 }));
	TRY(expect_dests(v, 3, 2, (blk64_t[]) { 57, 58 }));
	return replan_still(v, E3MP_HOME_INODE, p, new_plan());
}

/*
 * In a walk's order, incremental: nine one-block directories packed in
 * the walk's order (inode order reversed); a tenth made later, ranked
 * among them, is the only thing the next plan moves (nine of ten in
 * place: the bucket is kept), and the plan after moves nothing.
 */
static int case_dirs_walk_incremental(void)
{
	static __u32 ino[10], rank[10];
	struct vol *v = g4(6);
	struct mp_plan *p = new_plan(), *p2 = new_plan(), *p3 = new_plan();
	blk64_t old[MAXR], b;
	__u32 k, i;

	v->g.dirs = E3MP_DIRS_PACK;
	for (k = 0; k < 10; k++) {
		ino[k] = 2 + k;
		rank[k] = k < 9 ? 2 * (8 - k) : 7;
	}
	v->g.walk_ino = ino;
	v->g.walk_rank = rank;
	v->g.nwalk = 10;
	for (k = 0; k < 9; k++) {
		b = free_in(v, 6 + 4 * k, 47);
		add_dir(v, 2 + k, 1, &b, 0);
	}
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	apply(v, p);
	for (i = 0; i < v->nrec; i++)
		old[i] = v->rec[i].blk;
	b = free_in(v, 6, 47);
	add_dir(v, 11, 1, &b, 0);
	TRY(plan_check(v, E3MP_HOME_INODE, p2));
	TRY(only_new_moved(v, p2, 11, old));
	return replan_still(v, E3MP_HOME_INODE, p2, p3);
}

/*
 * Incremental directories under --dirs=pack, on four 128-block groups
 * (tail zones 96-127, 224-255, ...; the first 6 blocks of each fixed):
 * layouts as a packed volume looks after a kernel session.
 */
static struct vol *g128(void)
{
	struct vol *v = track(vol_new(0, 128, 512, 16, 25));

	std_meta(v, 6);
	v->g.dirs = E3MP_DIRS_PACK;
	return v;
}

/*
 * A grown directory keeps its blocks in place (121-123) and its new
 * ones go right after them, the slots there being free (a directory
 * deleted): one piece, and only the new blocks move.  The region, sized
 * by demand (123-127), extends over the blocks in place below it.
 */
static int case_dirs_grown_appended(void)
{
	struct vol *v = g128();
	struct mp_plan *p = new_plan();

	add_dir(v, 2, 5, (blk64_t[]) { 121, 122, 123, 20, 21 }, 0);
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	TRY(expect_dests(v, 2, 5, (blk64_t[]) { 121, 122, 123, 124, 125 }));
	EXPECT(p->dir_moved == 2 && p->nmv[0] + p->nmv[1] == 2,
	       "dir_moved %llu, %u + %u moves", ULL(p->dir_moved),
	       p->nmv[0], p->nmv[1]);
	return replan_still(v, E3MP_HOME_INODE, p, new_plan());
}

/*
 * A grown directory followed by one that stays (124-127): its blocks in
 * place stay, its new ones go in one second piece, into the first free
 * stretch of the region long enough (119-120); only they move.
 */
static int case_dirs_grown_second_piece(void)
{
	struct vol *v = g128();
	struct mp_plan *p = new_plan();

	add_dir(v, 2, 5, (blk64_t[]) { 121, 122, 123, 20, 21 }, 0);
	add_dir(v, 3, 4, (blk64_t[]) { 124, 125, 126, 127 }, 0);
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	TRY(expect_dests(v, 2, 5, (blk64_t[]) { 121, 122, 123, 119, 120 }));
	TRY(expect_dests(v, 3, 4, (blk64_t[]) { 124, 125, 126, 127 }));
	EXPECT(p->dir_moved == 2, "dir_moved %llu", ULL(p->dir_moved));
	return replan_still(v, E3MP_HOME_INODE, p, new_plan());
}

/*
 * A new directory (3 blocks) where a deleted one left free slots in the
 * region (248-249) and the kernel put another group's file's indirect
 * block (247), which stays (in place after its own region): that block
 * ends the hole, so no hole of the region is long enough; the slots are
 * built once more with 3 more below the region, and the directory goes
 * there in one piece (244-246), not around the indirect block.  The
 * next plan finds the region extended over it and moves nothing.
 */
static int case_dirs_new_foreign_block(void)
{
	struct vol *v = g128();
	struct mp_plan *p = new_plan();

	add_file(v, 2, 1, (blk64_t[]) { 247 });
	add_dir(v, 20, 6, (blk64_t[]) { 250, 251, 252, 253, 254, 255 }, 0);
	add_dir(v, 21, 3, (blk64_t[]) { 140, 141, 142 }, 0);
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	TRY(expect_dests(v, 21, 3, (blk64_t[]) { 244, 245, 246 }));
	TRY(expect_dests(v, 20, 6, (blk64_t[]) { 250, 251, 252, 253, 254,
						 255 }));
	TRY(expect_dests(v, 2, 1, (blk64_t[]) { 247 }));
	EXPECT(p->dir_moved == 3 && p->ind_moved == 0,
	       "dir_moved %llu, ind_moved %llu", ULL(p->dir_moved),
	       ULL(p->ind_moved));
	return replan_still(v, E3MP_HOME_INODE, p, new_plan());
}

/*
 * New directories go into the first free stretch long enough: a 3-block
 * one skips the region's 1-block hole (247) for 249-251 (a kept
 * indirect block at 248 ends the first); the 1-block one after it then
 * finds no room in the region and goes right below it.
 */
static int case_dirs_new_first_fit(void)
{
	struct vol *v = g128();
	struct mp_plan *p = new_plan();

	add_file(v, 2, 1, (blk64_t[]) { 248 });
	add_dir(v, 20, 4, (blk64_t[]) { 252, 253, 254, 255 }, 0);
	add_dir(v, 21, 3, (blk64_t[]) { 140, 141, 142 }, 0);
	add_dir(v, 22, 1, (blk64_t[]) { 143 }, 0);
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	TRY(expect_dests(v, 21, 3, (blk64_t[]) { 249, 250, 251 }));
	TRY(expect_dests(v, 22, 1, (blk64_t[]) { 247 }));
	EXPECT(p->dir_moved == 4, "dir_moved %llu", ULL(p->dir_moved));
	return replan_still(v, E3MP_HOME_INODE, p, new_plan());
}

/*
 * --dirs=roots, a directory deleted from the head zone (its block 0 was
 * at 7): the head region, sized by demand, now ends at 7, and extends
 * over the next directory's block 0 (8), which stays; nothing moves.
 */
static int case_dirs_head_deleted(void)
{
	struct vol *v = g128();
	struct mp_plan *p = new_plan();

	v->g.dirs = E3MP_DIRS_ROOTS;
	v->g.head_meta = 6;
	add_dir(v, 2, 1, (blk64_t[]) { 6 }, 0);
	add_dir(v, 4, 1, (blk64_t[]) { 8 }, 0);
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	TRY(expect_dests(v, 2, 1, (blk64_t[]) { 6 }));
	TRY(expect_dests(v, 4, 1, (blk64_t[]) { 8 }));
	EXPECT(p->nmv[0] + p->nmv[1] == 0 && p->dir_after == 2,
	       "%u + %u moves, dir_after %llu", p->nmv[0], p->nmv[1],
	       ULL(p->dir_after));
	return replan_still(v, E3MP_HOME_INODE, p, new_plan());
}

/*
 * No slot at all (every tail zone fixed): the directory's blocks stay,
 * and are counted as left for want of space like those given up.
 */
static int case_dirs_no_slot(void)
{
	struct vol *v = g4(6);
	struct mp_plan *p = new_plan();
	__u32 grp;

	for (grp = 0; grp < v->g.group_count; grp++)
		fill_fixed(v, mp_zone_first(&v->g, grp),
			   mp_group_last(&v->g, grp));
	add_dir(v, 2, 3, (blk64_t[]) { 10, 11, 12 }, 0);
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	EXPECT(p->nslot == 0 && p->dir_no_space == 3 && p->dir_moved == 0,
	       "nslot %u, dir_no_space %llu, dir_moved %llu", p->nslot,
	       ULL(p->dir_no_space), ULL(p->dir_moved));
	return 0;
}

static int case_inline_first_ind_stays(void)
{
	struct vol *v = g4(6);
	struct mp_plan *p = new_plan();

	add_file_at(v, 1, 4, 10);	/* IND (kept), DIND, IND, IND */
	add_file_at(v, 2, 1, 20);	/* a first IND only: nothing moves */
	TRY(plan_check(v, E3MP_HOME_INLINE, p));
	TRY(expect_slots(p, 3, (blk64_t[]) { 61, 62, 63 }));
	TRY(expect_dests(v, 1, 4, (blk64_t[]) { 10, 61, 62, 63 }));
	TRY(expect_dests(v, 2, 1, (blk64_t[]) { 20 }));
	TRY(expect_counts(p, 3, 0));
	EXPECT(p->kept_inline == 2 && p->unclustered == 0 &&
	       p->ind_moved == 3 && p->after.in_mc == 3, "kept_inline %llu "
	       "unclustered %llu moved %llu in_mc %llu",
	       ULL(p->kept_inline), ULL(p->unclustered), ULL(p->ind_moved),
	       ULL(p->after.in_mc));
	return 0;
}

/*
 * A first IND in the tail zone is stepped around like fixed metadata:
 * the MC takes the data blocks below it instead, and never evicts it.
 */
static int case_inline_kept_not_evicted(void)
{
	struct vol *v = g4(6);
	struct mp_plan *p = new_plan();

	add_file_at(v, 1, 1, 63);
	add_file(v, 2, 4, (blk64_t[]) { 10, 11, 12, 13 });
	set_data(v, 60, 62, 3);
	TRY(plan_check(v, E3MP_HOME_INLINE, p));
	TRY(expect_slots(p, 3, (blk64_t[]) { 60, 61, 62 }));
	TRY(expect_dests(v, 1, 1, (blk64_t[]) { 63 }));
	TRY(expect_dests(v, 2, 4, (blk64_t[]) { 10, 60, 61, 62 }));
	EXPECT(p->data_evacuated == 3, "data_evacuated %llu",
	       ULL(p->data_evacuated));
	return 0;
}

static int case_inline_idempotent(void)
{
	struct vol *v = g4(6);
	struct mp_plan *p = new_plan(), *p2 = new_plan();

	layout_mixed(v);
	TRY(plan_check(v, E3MP_HOME_INLINE, p));
	EXPECT(p->nmv[0] && p->data_evacuated && p->kept_inline == 6,
	       "layout too easy: %u + %u moves, %llu kept", p->nmv[0],
	       p->nmv[1], ULL(p->kept_inline));
	return replan_still(v, E3MP_HOME_INLINE, p, p2);
}

/* Packed by inode homing, then planned by the inline rule: no move. */
static int case_switch_inode_to_inline(void)
{
	struct vol *v = g4(6);
	struct mp_plan *p = new_plan(), *p2 = new_plan();
	char buf[512];

	layout_mixed(v);
	TRY(plan_check(v, E3MP_HOME_INODE, p));
	apply(v, p);
	TRY(plan_check(v, E3MP_HOME_INLINE, p2));
	describe_moves(p2, buf, sizeof(buf));
	EXPECT(p2->nmv[0] + p2->nmv[1] == 0, "the inline rule moves %u + %u "
	       "blocks of a volume packed by inode homing:%s", p2->nmv[0],
	       p2->nmv[1], buf);
	EXPECT(p2->kept_inline == 6 && p2->unclustered == 0,
	       "kept_inline %llu unclustered %llu", ULL(p2->kept_inline),
	       ULL(p2->unclustered));
	return 0;
}

/*
 * Packed by the inline rule, then by inode homing: every first IND ends
 * in an MC (ino 2's is in one already); a file without one (a sparse file whose i_block[12] is a
 * hole) does not move.
 */
static int case_switch_inline_to_inode(void)
{
	struct vol *v = g4(6);
	struct mp_plan *p = new_plan(), *p2 = new_plan();
	__u32 i, first = 0;

	layout_mixed(v);
	add_rec(v, 5, 22, 2, REC_IN_INODE, 12 + 256, 0);
	add_rec(v, 5, 23, 1, 0, 12 + 256, 0);
	TRY(plan_check(v, E3MP_HOME_INLINE, p));
	apply(v, p);
	TRY(plan_check(v, E3MP_HOME_INODE, p2));
	for (i = 0; i < v->nrec; i++) {
		const struct ind_rec *r = &v->rec[i];

		if (kept(v, E3MP_HOME_INLINE, i)) {
			first++;
			EXPECT(slot_idx(p2, r->dest) >= 0, "first IND of "
			       "ino %u: %llu -> %llu, not into an MC", r->ino,
			       ULL(r->blk), ULL(r->dest));
		}
		EXPECT(r->ino != 5 || r->dest == r->blk, "ino 5 (no first "
		       "IND) moves %llu -> %llu", ULL(r->blk), ULL(r->dest));
	}
	EXPECT(first == 6 && p2->ind_moved >= first, "%u first INDs, %llu "
	       "moved", first, ULL(p2->ind_moved));
	return 0;
}

/* --- random layouts ------------------------------------------------------ */

static __u64 rng_state;

static __u32 rnd(__u32 n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return n ? (__u32) (rng_state % n) : 0;
}

/* Random layouts with directories too (--dirs=pack): see random_dirs(). */
static int with_dirs;
static int with_delete;		/* plans under --order=delete */
static int with_walk;		/* directories in a random walk order */
static __u32 walk_ino_a[MAXR], walk_rank_a[MAXR];
static enum e3mp_dirs dirs_mode = E3MP_DIRS_PACK;	/* under with_dirs */
static __u64 dirs_moved;	/* by the first plans of random_valid() */

/* A free block, or 0 after 1000 tries. */
static blk64_t random_free(struct vol *v)
{
	__u32 tries = 0;
	blk64_t b;

	do
		b = v->g.first_data_block +
		    rnd(v->g.blocks_count - v->g.first_data_block);
	while (v->c[b].kind != C_FREE && ++tries < 1000);
	return tries == 1000 ? 0 : b;
}

/*
 * Directories of 1 to 20 blocks (an IND past 12), their blocks anywhere
 * free, for a share of the inodes that have no file records: as scan.c
 * records them (see add_dir()).
 */
static void random_dirs(struct vol *v, __u32 ninodes)
{
	__u32 p_dir = 10 + rnd(40), ino, k, n, i;
	blk64_t b, ind = 0;

	for (ino = 1; ino <= ninodes; ino++) {
		for (i = 0; i < v->nrec && v->rec[i].ino != ino; i++)
			;
		if (i < v->nrec || rnd(100) >= p_dir)
			continue;
		n = 1 + rnd(20);
		for (k = 0; k < n; k++) {
			/* (the IND before block 12, which names its group) */
			if (k == 12 && !(ind = random_free(v)))
				break;
			if (k == 12)
				v->c[ind].kind = C_FIXED;
			b = random_free(v);
			if (k == 12)
				v->c[ind].kind = C_FREE;
			if (!b)
				break;
			if (k == 12)
				add_rec(v, ino, ind, 1,
					REC_IN_INODE | REC_OF_DIR, 12,
					mp_group_of(&v->g, b));
			/* (some multi-block ones htrees, their root flagged) */
			add_rec(v, ino, b, 0, REC_DIR |
				(k < 12 ? REC_IN_INODE : 0) |
				(k == 0 && n > 1 && ino % 2 ? REC_EARLY : 0),
				k, mp_group_of(&v->g, b));
		}
	}
}

/*
 * A tree walk's order for @v's directories: a random permutation, one
 * in eight not reached (WALK_NONE).
 */
static void random_walk(struct vol *v)
{
	__u32 i, j, n = 0, t;

	for (i = 0; i < v->nrec; i++)
		if ((v->rec[i].flags & REC_DIR) &&
		    (!n || walk_ino_a[n - 1] != v->rec[i].ino))
			walk_ino_a[n++] = v->rec[i].ino;
	for (i = 0; i < n; i++)
		walk_rank_a[i] = i;
	for (i = n; i > 1; i--) {
		j = rnd(i);
		t = walk_rank_a[i - 1];
		walk_rank_a[i - 1] = walk_rank_a[j];
		walk_rank_a[j] = t;
	}
	for (i = 0; i < n; i++)
		if (!rnd(8))
			walk_rank_a[i] = WALK_NONE;
	v->g.walk_ino = walk_ino_a;
	v->g.walk_rank = walk_rank_a;
	v->g.nwalk = n;
}

static struct vol *random_vol(unsigned seed, enum e3mp_homing h)
{
	__u32 bpg, gc, fdb, last, ipg, pct, ino, k, p_fixed, p_data, p_file;
	struct vol *v;
	blk64_t b, bc;
	__u8 *taken;

	rng_state = 0x9E3779B97F4A7C15ULL * (2 * seed + h + 1) +
		    (with_dirs ? 0xD1B54A32D192ED03ULL : 0);
	(void) rnd(1);
	bpg = rnd(2) ? 64 : 128;
	gc = 2 + rnd(5);
	fdb = rnd(2);
	last = rnd(3) ? bpg : 4 + rnd(bpg - 4);
	ipg = rnd(2) ? 8 : 16;
	pct = 5 + rnd(46);
	p_fixed = rnd(10);
	p_data = rnd(3) ? rnd(60) : 90 + rnd(10);
	p_file = 10 + rnd(50);
	bc = fdb + (blk64_t) (gc - 1) * bpg + last;
	taken = calloc(bc, 1);
	if (!taken)
		die("out of memory");
	v = track(vol_new(fdb, bpg, bc, ipg, pct));
	std_meta(v, 3);
	for (b = fdb; b < bc; b++)
		if (v->c[b].kind == C_FREE && rnd(100) < p_fixed)
			v->c[b].kind = C_FIXED;
	for (ino = 1; ino <= gc * ipg; ino++) {
		__u32 n = 1 + rnd(8);

		if (rnd(100) >= p_file)
			continue;
		for (k = 0; k < n; k++) {
			__u32 tries = 0;

			do
				b = fdb + rnd(bc - fdb);
			while (v->c[b].kind != C_FREE && ++tries < 1000);
			if (tries == 1000)
				break;
			add_rec(v, ino, b, k == 1 ? 2 : 1,
				k < 2 ? REC_IN_INODE : 0, 12 + 256 * k,
				rnd(4) ? ino_group(v, ino) : rnd(gc + 1));
		}
	}
	if (with_dirs) {
		v->g.dirs = dirs_mode;
		v->g.head_meta = 3;	/* std_meta() */
		random_dirs(v, gc * ipg);
		if (with_walk)
			random_walk(v);
	}
	if (with_delete)
		v->g.order = E3MP_ORDER_DELETE;
	for (b = fdb; b < bc; b++)
		if (v->c[b].kind == C_FREE && rnd(100) < p_data) {
			v->c[b].kind = C_DATA;
			v->c[b].ino = 1 + rnd(gc * ipg);
			v->c[b].id = ++v->serial;
		}
	/* first data blocks: the DIND shares its first IND's */
	for (k = 0; k < v->nrec; k++) {
		__u32 i = k, tries = 0;

		if (v->rec[k].level == 2 && k + 1 < v->nrec &&
		    v->rec[k + 1].ino == v->rec[k].ino)
			i = k + 1;
		else if (k > 0 && v->rec[k - 1].level == 2 &&
			 v->rec[k - 1].ino == v->rec[k].ino)
			continue;	/* done with the DIND */
		if (rnd(10) < 3)
			continue;	/* no data under it */
		do
			b = fdb + rnd(bc - fdb);
		while ((v->c[b].kind != C_DATA || taken[b]) && ++tries < 200);
		if (tries == 200)
			continue;
		taken[b] = 1;
		v->c[b].ino = v->rec[i].ino;
		set_fdata(v, i, b);
		if (i != k)
			set_fdata(v, k, b);
	}
	free(taken);
	return v;
}

#define NSEED	500

/* The random layout of @seed (random_vol()) and a checked plan of it. */
static int random_planned(unsigned seed, enum e3mp_homing h,
			  struct vol **v, struct mp_plan **p)
{
	cleanup();
	*v = random_vol(seed, h);
	*p = new_plan();
	if (plan_check(*v, h, *p))
		return fail("seed %u: invalid plan", seed);
	return 0;
}

/* A record goes into a slot before its home MC: the cursor wrapped. */
static int wrapped(const struct vol *v, const struct mp_plan *p,
		   enum e3mp_homing h)
{
	__u32 i;

	for (i = 0; i < v->nrec; i++) {
		long s = slot_idx(p, v->rec[i].dest);

		if (v->rec[i].dest != v->rec[i].blk && s >= 0 &&
		    (__u32) s < p->mc_first[home_of(v, h, i)])
			return 1;
	}
	return 0;
}

/* Plans over random layouts, and over their results, are all valid. */
static int random_valid(enum e3mp_homing h)
{
	unsigned seed, moved = 0, tight = 0, wraps = 0;
	int round;

	for (seed = 0; seed < NSEED; seed++) {
		struct vol *v;

		cleanup();
		v = random_vol(seed, h);
		for (round = 0; round < 3; round++) {
			struct mp_plan *p = new_plan();

			if (plan_check(v, h, p)) {
				char buf[2048];

				snprintf(buf, sizeof(buf), "seed %u, plan %d: "
					 "%.1900s", seed, round + 1, why);
				why[0] = 0;
				return fail("%s", buf);
			}
			if (!round) {
				dirs_moved += p->dir_moved;
				moved += p->nmv[0] + p->nmv[1] > 0;
				tight += p->no_space > 0;
				wraps += wrapped(v, p, h);
			}
			apply(v, p);
		}
	}
	if (getenv("TEST_PLAN_VERBOSE"))
		fprintf(stderr, "homing %d: %u of %u move, %u short of space, "
			"%u wrap\n", h, moved, NSEED, tight, wraps);
	EXPECT(moved > NSEED / 2 && tight > NSEED / 20 && wraps > 0,
	       "random layouts too easy: %u of %u move, %u short of space, "
	       "%u with the cursor wrapping", moved, NSEED, tight, wraps);
	return 0;
}

/* A second plan over the result of one (with room enough) is empty. */
static int random_idempotent(enum e3mp_homing h)
{
	unsigned seed, tried = 0, bad = 0, wraps = 0;
	char first[2048] = "";

	for (seed = 0; seed < NSEED; seed++) {
		struct vol *v;
		struct mp_plan *p, *p2;

		TRY(random_planned(seed, h, &v, &p));
		p2 = new_plan();
		if (p->no_space || p->dir_no_space)
			continue;	/* not promised */
		tried++;
		wraps += wrapped(v, p, h);
		why[0] = 0;
		if (!replan_still(v, h, p, p2))
			continue;
		if (!bad++)
			snprintf(first, sizeof(first), "seed %u: %.1900s",
				 seed, why);
		why[0] = 0;
	}
	EXPECT(!bad, "%u of %u layouts not idempotent; first: %s", bad, tried,
	       first);
	if (getenv("TEST_PLAN_VERBOSE"))
		fprintf(stderr, "homing %d: %u idempotent, %u of them with the "
			"cursor wrapping\n", h, tried, wraps);
	EXPECT(wraps > 0, "no layout with the cursor wrapping was replanned");
	return 0;
}

/*
 * A volume packed by inode homing (with room enough, no MC overflowing
 * past the last group), then planned by the inline rule: nothing moves,
 * since the first INDs it keeps were slots of the MCs the other records'
 * runs sit in, and those runs are still in place without them.
 */
static int case_random_inode_then_inline(void)
{
	unsigned seed, tried = 0, bad = 0;
	char first[2048] = "";

	for (seed = 0; seed < NSEED; seed++) {
		struct vol *v;
		struct mp_plan *p, *p2;
		char buf[512];

		TRY(random_planned(seed, E3MP_HOME_INODE, &v, &p));
		p2 = new_plan();
		/*
		 * Not promised: short of space, or the cursor wrapped (runs
		 * before their home MC are laid out again, and the slots
		 * the kept first INDs leave shift where they land).
		 */
		if (p->no_space || p->unclustered ||
		    wrapped(v, p, E3MP_HOME_INODE))
			continue;
		tried++;
		apply(v, p);
		if (plan_check(v, E3MP_HOME_INLINE, p2))
			return fail("seed %u: invalid inline plan: %.1900s",
				    seed, why);
		if (p2->nmv[0] + p2->nmv[1] == 0)
			continue;
		describe_moves(p2, buf, sizeof(buf));
		if (!bad++)
			snprintf(first, sizeof(first), "seed %u:%s", seed,
				 buf);
	}
	EXPECT(!bad && tried > NSEED / 4, "%u of %u layouts move under the "
	       "inline rule; first: %s", bad, tried, first);
	return 0;
}

static int case_random_valid_inode(void)
{
	return random_valid(E3MP_HOME_INODE);
}

static int case_random_valid_data(void)
{
	return random_valid(E3MP_HOME_DATA);
}

static int case_random_idempotent_inode(void)
{
	return random_idempotent(E3MP_HOME_INODE);
}

static int case_random_idempotent_data(void)
{
	return random_idempotent(E3MP_HOME_DATA);
}

static int case_random_valid_inline(void)
{
	return random_valid(E3MP_HOME_INLINE);
}

static int case_random_idempotent_inline(void)
{
	return random_idempotent(E3MP_HOME_INLINE);
}

/* @fn under inode and data homing, with *@flag set (with_dirs, ...). */
static int both_homings(int (*fn)(enum e3mp_homing), int *flag)
{
	int rc;

	*flag = 1;
	rc = fn(E3MP_HOME_INODE) || fn(E3MP_HOME_DATA);
	*flag = 0;
	return rc;
}

static int case_random_valid_dirs(void)
{
	dirs_moved = 0;
	TRY(both_homings(random_valid, &with_dirs));
	EXPECT(dirs_moved > NSEED, "only %llu directory blocks moved",
	       ULL(dirs_moved));
	return 0;
}

static int case_random_idempotent_dirs(void)
{
	return both_homings(random_idempotent, &with_dirs);
}

static int case_random_valid_delete(void)
{
	return both_homings(random_valid, &with_delete);
}

static int case_random_idempotent_delete(void)
{
	return both_homings(random_idempotent, &with_delete);
}

/* The random directory cases under --dirs=roots and volume. */
static int random_dirs_head(int idempotent)
{
	enum e3mp_dirs m;
	int rc = 0;

	for (m = E3MP_DIRS_ROOTS; m <= E3MP_DIRS_VOLUME && !rc; m++) {
		dirs_mode = m;
		rc = idempotent ? case_random_idempotent_dirs() :
		     case_random_valid_dirs();
	}
	dirs_mode = E3MP_DIRS_PACK;
	return rc;
}

static int case_random_valid_dirs_head(void)
{
	return random_dirs_head(0);
}

/* The random directory cases with the directories in a walk order. */
static int case_random_walk(void)
{
	int rc;

	with_walk = 1;
	rc = random_dirs_head(0);
	if (!rc)
		rc = random_dirs_head(1);
	if (!rc)
		rc = case_random_valid_dirs();
	if (!rc)
		rc = case_random_idempotent_dirs();
	with_walk = 0;
	return rc;
}

static int case_random_idempotent_dirs_head(void)
{
	return random_dirs_head(1);
}

int main(void)
{
	run_case("geometry helpers, first_data_block 0", case_helpers_fdb0);
	run_case("geometry helpers, first_data_block 1, short last group",
		 case_helpers_fdb1_short_last);
	run_case("tail zone is at least one block",
		 case_helpers_zone_at_least_one);
	run_case("mp_home: inode and data homing", case_home);
	run_case("mp_home: --mc-span", case_home_span);
	run_case("sorted searches: lower bound, bsearch, find", case_search);
	run_case("mp_grow: doubling from 1024, entries kept", case_grow);
	run_case("mp_heap: block order, repeats, pushes between pops",
		 case_heap);
	run_case("no indirect blocks: empty plan", case_empty);
	run_case("no data extents at all (ext NULL)", case_no_data_extents);
	run_case("one file goes to the tail of its group, in order",
		 case_single_file);
	run_case("--mc-span=2: two groups' runs in the first one's tail",
		 case_span);
	run_case("--order=delete: a DIND's children last first",
		 case_delete_order);
	run_case("--order=delete after fsck order: only what must moves",
		 case_delete_order_switch);
	run_case("MC steps around fixed blocks", case_mc_steps_around_fixed);
	run_case("MC size is the demand of each group", case_mc_size_is_demand);
	run_case("a full zone carries into the next group's MC",
		 case_zone_cap_carries);
	run_case("overflow past the last group stays unclustered",
		 case_overflow_past_last_group);
	run_case("short last group", case_short_last_group);
	run_case("first_data_block 1", case_first_data_block_1);
	run_case("inode homing: contiguous runs in inode order",
		 case_inode_homing_runs);
	run_case("data homing: each block in its data group's MC",
		 case_data_homing);
	run_case("data homing: data group past the end is clamped",
		 case_data_homing_clamped);
	run_case("a run in place stays", case_run_in_place_stays);
	run_case("a run at or after its home MC stays; one before it is "
		 "laid out again", case_run_after_home_mc_stays);
	run_case("the cursor wraps: the rest takes free slots before its "
		 "home MC", case_cursor_wraps);
	run_case("the cursor fills around a run in place",
		 case_fill_around_run_in_place);
	run_case("a run out of order in its MC is repacked via temps",
		 case_run_out_of_order_repacked);
	run_case("evacuation: same group, consecutive destinations",
		 case_evac_same_group_consecutive);
	run_case("evacuation prefers the slot's own group",
		 case_evac_prefers_own_group);
	run_case("evacuation goes to the next group when its own is full",
		 case_evac_next_group);
	run_case("evacuation: own group's zone before other groups",
		 case_evac_own_zone_before_others);
	run_case("evacuation from the last group wraps to group 0",
		 case_evac_wraps_to_group_0);
	run_case("evacuation into other groups' zones as the last resort",
		 case_evac_other_zones_last);
	run_case("chain: record in another's slot, own slot holds data",
		 case_chain_parks);
	run_case("cycle of two records: both parked", case_two_cycle);
	run_case("unplaced record in an assigned slot is moved out",
		 case_displaced_moved_out);
	run_case("out of space: partial plan, reported",
		 case_out_of_space_partial);
	run_case("out of space: whole runs are given up",
		 case_out_of_space_whole_runs);
	run_case("out of space: the last placed run is given up",
		 case_out_of_space_second_file_given_up);
	run_case("zero free blocks, data in the MC: nothing moves",
		 case_zero_free_data_in_mc);
	run_case("zero free blocks, a cycle: nothing moves",
		 case_zero_free_cycle);
	run_case("300 records: move arrays grow", case_many_moves);
	run_case("data homing: an anchor is no slot and stays",
		 case_data_anchor_not_a_slot);
	run_case("data homing: an anchor is never evacuated, homes stay",
		 case_data_anchor_never_evacuated);
	run_case("inode homing: an anchor is ordinary data",
		 case_inode_homing_anchor_is_data);
	run_case("idempotent: mixed layout", case_idem_mixed);
	run_case("idempotent: data homing", case_idem_data_homing);
	run_case("idempotent: fixed blocks in the tails, overflow",
		 case_idem_fixed_tail_overflow);
	run_case("idempotent: chains and temps", case_idem_chains);
	run_case("idempotent: overflow leaves a run partially placed",
		 case_idem_partially_placed_run);
	run_case("idempotent: displaced record", case_idem_displaced);
	run_case("idempotent: first_data_block 1, short last group",
		 case_idem_fdb1_short);
	run_case("inline rule: a first IND stays, the others are packed",
		 case_inline_first_ind_stays);
	run_case("inline rule: a first IND in the zone is never evicted",
		 case_inline_kept_not_evicted);
	run_case("inline rule: idempotent", case_inline_idempotent);
	run_case("inode homing, then the inline rule: nothing moves",
		 case_switch_inode_to_inline);
	run_case("the inline rule, then inode homing: first INDs move",
		 case_switch_inline_to_inode);
	run_case("incremental: new file in a group with packed files",
		 case_incremental_same_group);
	run_case("incremental: new file with a lower inode number",
		 case_incremental_lower_inode);
	run_case("incremental: new file in another group",
		 case_incremental_other_group);
	run_case("incremental: new file carried into the next group",
		 case_incremental_carry);
	run_case("random layouts, inode homing: every plan valid",
		 case_random_valid_inode);
	run_case("random layouts, data homing: every plan valid",
		 case_random_valid_data);
	run_case("directories: contiguous after the INDs, idempotent",
		 case_dirs_contiguous);
	run_case("directories: homed with the inode under data homing",
		 case_dirs_data_homing);
	run_case("directories: a new one is all a rerun moves",
		 case_dirs_incremental);
	run_case("directories: given up whole for want of space",
		 case_dirs_no_space);
	run_case("directories: no slot, counted as no_space",
		 case_dirs_no_slot);
	run_case("directories: roots, block 0 after the metadata",
		 case_dirs_roots);
	run_case("directories: volume, one region mid-volume, htree roots "
		 "by the inode table", case_dirs_volume);
	run_case("directories: a grown one's new blocks right after it",
		 case_dirs_grown_appended);
	run_case("directories: a grown one's new blocks in one second piece",
		 case_dirs_grown_second_piece);
	run_case("directories: a new one in one piece, not around a kept "
		 "block", case_dirs_new_foreign_block);
	run_case("directories: new ones in the first stretch long enough",
		 case_dirs_new_first_fit);
	run_case("directories: a head zone extends over the block 0s after "
		 "it", case_dirs_head_deleted);
	run_case("directories in a tree walk's order", case_dirs_walk);
	run_case("directories in a walk's order: a new one is all that "
		 "moves", case_dirs_walk_incremental);
	run_case("random layouts, inode homing: idempotent",
		 case_random_idempotent_inode);
	run_case("random layouts, data homing: idempotent",
		 case_random_idempotent_data);
	run_case("random layouts, inline rule: every plan valid",
		 case_random_valid_inline);
	run_case("random layouts, inline rule: idempotent",
		 case_random_idempotent_inline);
	run_case("random layouts, inode homing then the inline rule: "
		 "nothing moves", case_random_inode_then_inline);
	run_case("random layouts, --order=delete: every plan valid",
		 case_random_valid_delete);
	run_case("random layouts, --order=delete: idempotent",
		 case_random_idempotent_delete);
	run_case("random layouts with directories: every plan valid",
		 case_random_valid_dirs);
	run_case("random layouts with directories: idempotent",
		 case_random_idempotent_dirs);
	run_case("random layouts, directories roots/volume: every "
		 "plan valid", case_random_valid_dirs_head);
	run_case("random layouts, directories roots/volume: "
		 "idempotent", case_random_idempotent_dirs_head);
	run_case("random layouts, directories in a walk order: valid and "
		 "idempotent", case_random_walk);
	return unit_done();
}
