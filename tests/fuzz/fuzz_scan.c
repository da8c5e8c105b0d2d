/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz_scan.c --- libFuzzer target: open + check + scan + plan on
 * corrupted images
 *
 * The input is not an image but a list of patches applied to one of a
 * few pristine template images (built by tests/fuzz/run, named in
 * $E3MP_FUZZ_TEMPLATES, colon-separated), so that mutations land in the
 * metadata the tool reads instead of in file data:
 *
 *   byte 0        template: index modulo the number of templates N;
 *                 (byte 0 / N) % 4: --dirs=leave, pack, roots, volume;
 *                 (byte 0 / N) & 4: --order=delete
 *   byte 1        options: bit 0 --home=data, bits 1-6 --mc-max
 *                 (1 + value % 50), bit 7 --json report
 *   then records, until the input ends:
 *     op          bits 0-3: length - 1 (1..16)
 *                 bits 4-5: 0 write bytes, 1 XOR bytes, 2 write a 32-bit
 *                           block number (from a table of interesting
 *                           ones: 0, 1, the last block, the block count,
 *                           0xffffffff, metadata and indirect blocks ...)
 *                           at the offset rounded down to 4; 3 as 1
 *                 bit 6:    the block index is a raw block number
 *                           (modulo the block count), not an index into
 *                           the template's table of metadata blocks
 *     idx (LE16)  block: metadata table entry, or raw block
 *     off (LE16)  byte in that block (modulo the block size)
 *     data        length bytes (ops 0, 1, 3), or 2 (op 2: table index,
 *                 signed delta)
 *
 * The metadata table: the superblock, the group descriptor blocks, every
 * group's bitmaps and inode table blocks in use, every indirect,
 * extended-attribute and directory block, the journal's first block.
 *
 * Each run patches an in-memory copy (a memfd, opened by libext2fs as
 * /proc/self/fd/N), runs volume_prepare() (src/prepare.c), the very
 * function e3metapack runs before its first write -- check_device(),
 * open_volume(), check_volume(), planfeed_geometry(), the scan with
 * io_checked(), planfeed_plan(), predict_fsck() -- as a dry run (-n:
 * state checks only warn, so the scan sees everything), prints the
 * report to /dev/null, checks the plan (below) and closes the volume.
 * The patches are undone afterwards.
 *
 * Besides crashes, sanitizer reports, leaks and hangs, a plan that the
 * tool would carry out to the volume's harm aborts (set
 * E3MP_FUZZ_ORACLE=0 to disable):
 *   - a destination outside the volume, or in use in the block bitmap,
 *     or claimed by the scan (fixed metadata -- superblocks, descriptor
 *     tables, bitmaps, inode tables -- or any file's block), unless it
 *     is a block round 1 emptied, for round 2;
 *   - two moves of one round to one destination;
 *   - a source the scan did not claim.
 *
 * E3MP_FUZZ_ASSUME_FIXED=1 treats as refused (and so skips the oracle
 * for, after volume_prepare() accepted it) what the tool does not check
 * yet but should, so that a run finds other problems: group descriptors ext2fs_check_desc() rejects, fixed
 * metadata free in the block bitmap, EXTENTS_FL on an inode whose
 * i_block[] is no extent header (libext2fs's block iterator then
 * returns 0 and the scan skips the inode), unknown compat features.
 *
 * To look at an input: E3MP_FUZZ_DESCRIBE=1 prints its patches, and
 * E3MP_FUZZ_DUMP=FILE writes the patched image to FILE (then run the
 * real e3metapack on a copy of it).
 *
 * E3MP_FUZZ_QUIET=0 lets libext2fs print its warnings (com_err without a
 * program name); E3MP_FUZZ_WARN_ABORT=1 makes any such warning abort
 * (each is a line that would reach e3metapack's stderr without its
 * prefix, next to or instead of its one-line message).
 *
 * Build and run: tests/fuzz/run.  Reproduce a crash:
 *   E3MP_FUZZ_TEMPLATES=t0.img:t1.img:... ./fuzz_scan crash-FILE
 * (or tests/fuzz/run crash-FILE, which sets it)
 */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <et/com_err.h>

#include "e3metapack.h"

/* (main.c is not linked in; the signal flag is lib/stop.c's, which is) */

#define MAX_TEMPLATES	16
#define MAX_PATCHES	4096
#define NVALUES		32

struct template {
	const char	*path;
	unsigned char	*data;		/* pristine bytes */
	size_t		size;
	int		fd;		/* memfd with the working copy */
	char		fdpath[64];
	unsigned int	blocksize;
	blk64_t		nblocks;	/* blocks in the file */
	blk64_t		*meta;		/* the metadata table */
	__u32		nmeta;
	__u32		values[NVALUES];	/* interesting block numbers */
};

static struct template tmpl[MAX_TEMPLATES];
static int ntmpl;
static int oracle = 1, quiet = 1, warn_abort, assume_fixed, describe;
static const char *dump_path;
static int warned;
static FILE *devnull;

struct patch {
	size_t	off, len;
};
static struct patch patches[MAX_PATCHES];
static int npatches;

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("fuzz_scan: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* libext2fs's warnings (ext2fs_warn_bitmap ...) come through com_err. */
static void quiet_hook(const char *whoami, long code,
			 const char *fmt, va_list args)
{
	warned = 1;
	if (quiet)
		return;
	if (whoami)
		fprintf(stderr, "%s: ", whoami);
	if (code)
		fprintf(stderr, "%s ", error_message(code));
	vfprintf(stderr, fmt, args);
	fputc('\n', stderr);
}

static int env_flag(const char *name, int dflt)
{
	const char *v = getenv(name);

	return v && *v ? atoi(v) != 0 : dflt;
}

/* ---- the template's metadata table ---------------------------------- */

static void add_meta(struct template *t, blk64_t blk, __u32 *alloc)
{
	if (blk >= t->nblocks)
		return;
	if (t->nmeta == *alloc) {
		*alloc = *alloc ? 2 * *alloc : 256;
		t->meta = realloc(t->meta, *alloc * sizeof(*t->meta));
		if (!t->meta)
			die("out of memory");
	}
	t->meta[t->nmeta++] = blk;
}

struct meta_walk {
	struct template	*t;
	__u32		*alloc;
	int		is_dir;
};

static int walk_block(ext2_filsys fs EXT2FS_ATTR((unused)), blk64_t *blocknr,
		      e2_blkcnt_t blockcnt,
		      blk64_t ref_blk EXT2FS_ATTR((unused)),
		      int ref_offset EXT2FS_ATTR((unused)), void *priv)
{
	struct meta_walk *w = priv;

	if (blockcnt < 0 || (w->is_dir && blockcnt < 64))
		add_meta(w->t, *blocknr, w->alloc);
	return 0;
}

static void add_value(struct template *t, int *n, __u32 v)
{
	if (*n < NVALUES)
		t->values[(*n)++] = v;
}

static void template_scan(struct template *t)
{
	ext2_filsys fs;
	ext2_inode_scan scan;
	struct ext2_inode inode;
	ext2_ino_t ino;
	struct meta_walk w;
	__u32 alloc = 0, ipb;
	dgrp_t g;
	blk64_t b, itab;
	errcode_t err;
	int nv = 0, i;

	err = ext2fs_open(t->fdpath, EXT2_FLAG_64BITS, 0, 0, unix_io_manager,
			  &fs);
	if (err)
		die("%s: %s", t->path, error_message(err));
	t->blocksize = fs->blocksize;
	t->nblocks = t->size / fs->blocksize;
	add_meta(t, 1024 / fs->blocksize, &alloc);
	for (b = 0; b < fs->desc_blocks; b++)
		add_meta(t, ext2fs_descriptor_block_loc2(fs,
				fs->super->s_first_data_block, b), &alloc);
	ipb = fs->blocksize / EXT2_INODE_SIZE(fs->super);
	for (g = 0; g < fs->group_desc_count; g++) {
		__u32 used = fs->super->s_inodes_per_group -
			     ext2fs_bg_free_inodes_count(fs, g);

		add_meta(t, ext2fs_block_bitmap_loc(fs, g), &alloc);
		add_meta(t, ext2fs_inode_bitmap_loc(fs, g), &alloc);
		itab = ext2fs_inode_table_loc(fs, g);
		if (g == 0 && used < EXT2_FIRST_INO(fs->super) + 32)
			used = EXT2_FIRST_INO(fs->super) + 32;
		for (b = 0; b < (used + ipb - 1) / ipb &&
			    b < fs->inode_blocks_per_group; b++)
			add_meta(t, itab + b, &alloc);
	}
	if (ext2fs_open_inode_scan(fs, 0, &scan))
		die("%s: cannot scan inodes", t->path);
	w.t = t;
	w.alloc = &alloc;
	while (!ext2fs_get_next_inode(scan, &ino, &inode) && ino) {
		if (!inode.i_links_count && ino != EXT2_RESIZE_INO &&
		    ino != fs->super->s_journal_inum)
			continue;
		if (ext2fs_file_acl_block(fs, &inode))
			add_meta(t, ext2fs_file_acl_block(fs, &inode), &alloc);
		if (!ext2fs_inode_has_valid_blocks2(fs, &inode))
			continue;
		w.is_dir = LINUX_S_ISDIR(inode.i_mode);
		ext2fs_block_iterate3(fs, ino, BLOCK_FLAG_READ_ONLY, NULL,
				      walk_block, &w);
		if (ino == fs->super->s_journal_inum &&
		    !ext2fs_bmap2(fs, ino, &inode, NULL, 0, 0, NULL, &b))
			add_meta(t, b, &alloc);
	}
	ext2fs_close_inode_scan(scan);

	/* block numbers worth writing into pointers */
	add_value(t, &nv, 0);
	add_value(t, &nv, 1);
	add_value(t, &nv, fs->super->s_first_data_block);
	add_value(t, &nv, ext2fs_blocks_count(fs->super) - 1);
	add_value(t, &nv, ext2fs_blocks_count(fs->super));
	add_value(t, &nv, 0xffffffffU);
	add_value(t, &nv, 0x80000000U);
	add_value(t, &nv, ext2fs_block_bitmap_loc(fs, 0));
	add_value(t, &nv, ext2fs_inode_table_loc(fs, 0));
	for (i = 0; nv < NVALUES && t->nmeta; i++)
		add_value(t, &nv, t->meta[(i * 7919U + 3) % t->nmeta]);
	ext2fs_close_free(&fs);
}

static void template_load(struct template *t, const char *path)
{
	struct stat st;
	int fd;

	t->path = path;
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st))
		die("%s: %s", path, strerror(errno));
	t->size = st.st_size;
	if (t->size < 65536 || t->size > (64U << 20))
		die("%s: a template must be 64 KiB to 64 MiB", path);
	t->data = malloc(t->size);
	if (!t->data || pread(fd, t->data, t->size, 0) != (ssize_t) t->size)
		die("%s: cannot read", path);
	close(fd);
	t->fd = memfd_create("e3mp-fuzz", 0);
	if (t->fd < 0)
		die("memfd_create: %s", strerror(errno));
	if (pwrite(t->fd, t->data, t->size, 0) != (ssize_t) t->size)
		die("memfd write: %s", strerror(errno));
	snprintf(t->fdpath, sizeof(t->fdpath), "/proc/self/fd/%d", t->fd);
	template_scan(t);
	if (!t->nmeta)
		die("%s: no metadata blocks found", path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc EXT2FS_ATTR((unused)),
			 char ***argv EXT2FS_ATTR((unused)))
{
	const char *list = getenv("E3MP_FUZZ_TEMPLATES");
	char *copy, *p, *save = NULL;

	add_error_table(&et_ext2_error_table);
	add_error_table(&et_e3mp_error_table);
	oracle = env_flag("E3MP_FUZZ_ORACLE", 1);
	quiet = env_flag("E3MP_FUZZ_QUIET", 1);
	warn_abort = env_flag("E3MP_FUZZ_WARN_ABORT", 0);
	assume_fixed = env_flag("E3MP_FUZZ_ASSUME_FIXED", 0);
	describe = env_flag("E3MP_FUZZ_DESCRIBE", 0);
	dump_path = getenv("E3MP_FUZZ_DUMP");
	set_com_err_hook(quiet_hook);
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		die("/dev/null: %s", strerror(errno));
	if (!list || !*list)
		die("set E3MP_FUZZ_TEMPLATES to a colon-separated list of "
		    "ext2/3 images (tests/fuzz/run builds them)");
	copy = strdup(list);
	for (p = strtok_r(copy, ":", &save); p && ntmpl < MAX_TEMPLATES;
	     p = strtok_r(NULL, ":", &save))
		template_load(&tmpl[ntmpl++], p);
	if (!ntmpl)
		die("no templates in E3MP_FUZZ_TEMPLATES");
	/* copy is kept: template paths point into it */
	return 0;
}

/* ---- patches ---------------------------------------------------------- */

static void put(struct template *t, size_t off, const void *buf, size_t len)
{
	if (off >= t->size)
		return;
	if (len > t->size - off)
		len = t->size - off;
	if (npatches < MAX_PATCHES) {
		patches[npatches].off = off;
		patches[npatches].len = len;
		npatches++;
	} else
		return;
	if (pwrite(t->fd, buf, len, off) != (ssize_t) len)
		die("memfd write: %s", strerror(errno));
	if (describe) {
		size_t k;

		fprintf(stderr, "patch: %s block %zu +%zu:", t->path,
			off / t->blocksize, off % t->blocksize);
		for (k = 0; k < len; k++)
			fprintf(stderr, " %02x->%02x", t->data[off + k],
				((const uint8_t *) buf)[k]);
		fputc('\n', stderr);
	}
}

static void dump(struct template *t)
{
	unsigned char *img = malloc(t->size);
	FILE *f;

	if (!img || pread(t->fd, img, t->size, 0) != (ssize_t) t->size)
		die("memfd read: %s", strerror(errno));
	f = fopen(dump_path, "w");
	if (!f || fwrite(img, 1, t->size, f) != t->size || fclose(f))
		die("%s: %s", dump_path, strerror(errno));
	free(img);
	fprintf(stderr, "fuzz_scan: patched image written to %s\n",
		dump_path);
}

/* ---- what the tool should refuse but does not yet ------------------- */

/* Every block of fixed metadata must be in use in the block bitmap. */
static int metadata_free(ext2_filsys fs)
{
	ext2fs_block_bitmap meta;
	blk64_t b, end = ext2fs_blocks_count(fs->super);
	dgrp_t g;
	int bad = 0;

	if (ext2fs_allocate_block_bitmap(fs, "meta", &meta))
		return 1;
	for (g = 0; g < fs->group_desc_count; g++) {
		blk64_t it = ext2fs_inode_table_loc(fs, g);

		ext2fs_reserve_super_and_bgd(fs, g, meta);
		ext2fs_mark_block_bitmap2(meta, ext2fs_block_bitmap_loc(fs, g));
		ext2fs_mark_block_bitmap2(meta, ext2fs_inode_bitmap_loc(fs, g));
		for (b = it; b && b < it + fs->inode_blocks_per_group &&
			     b < end; b++)
			ext2fs_mark_block_bitmap2(meta, b);
	}
	for (b = fs->super->s_first_data_block; b < end && !bad; b++)
		if (ext2fs_fast_test_block_bitmap2(meta, b) &&
		    !ext2fs_fast_test_block_bitmap2(fs->block_map, b))
			bad = 1;
	ext2fs_free_block_bitmap(meta);
	return bad;
}

/* An in-use inode with EXTENTS_FL but no valid extent header. */
static int bad_extent_flag(ext2_filsys fs)
{
	ext2_inode_scan scan;
	struct ext2_inode inode;
	ext2_ino_t ino;
	int bad = 0;

	if (ext2fs_open_inode_scan(fs, 0, &scan))
		return 1;
	while (!bad && !ext2fs_get_next_inode(scan, &ino, &inode) && ino)
		if (inode.i_links_count &&
		    (inode.i_flags & EXT4_EXTENTS_FL) &&
		    ext2fs_inode_has_valid_blocks2(fs, &inode) &&
		    (!ext2fs_has_feature_extents(fs->super) ||
		     ext2fs_extent_header_verify(inode.i_block,
						 sizeof(inode.i_block))))
			bad = 1;
	ext2fs_close_inode_scan(scan);
	return bad;
}

static int should_refuse(struct e3mp *mp)
{
	ext2_filsys fs = mp->fs;

	return ext2fs_check_desc(fs) != 0 ||
	       (fs->super->s_feature_compat & ~EXT2_LIB_FEATURE_COMPAT_SUPP) ||
	       metadata_free(fs) || bad_extent_flag(fs);
}

static void apply(struct template *t, const uint8_t *d, size_t n)
{
	size_t i = 0;

	while (i + 5 <= n) {
		unsigned op = d[i], len = (op & 15) + 1, mode = (op >> 4) & 3;
		unsigned idx = d[i + 1] | d[i + 2] << 8;
		unsigned off = (d[i + 3] | d[i + 4] << 8) % t->blocksize;
		blk64_t blk = (op & 0x40) ? idx % t->nblocks :
			      t->meta[idx % t->nmeta];
		size_t pos = blk * t->blocksize + off;
		uint8_t buf[16];
		unsigned k;

		i += 5;
		if (mode == 2) {
			__u32 v;

			if (i + 2 > n)
				break;
			v = t->values[d[i] % NVALUES] + (int8_t) d[i + 1];
			i += 2;
			pos &= ~(size_t) 3;
			buf[0] = v;
			buf[1] = v >> 8;
			buf[2] = v >> 16;
			buf[3] = v >> 24;
			put(t, pos, buf, 4);
			continue;
		}
		if (i + len > n)
			len = n - i;
		if (!len)
			break;
		for (k = 0; k < len; k++) {
			uint8_t cur = pos + k < t->size ?
				      t->data[pos + k] : 0;

			/* XOR against the pristine byte: later patches of
			 * the same byte see the template, not each other */
			buf[k] = mode == 0 ? d[i + k] : (cur ^ d[i + k]);
		}
		i += len;
		put(t, pos, buf, len);
	}
}

static void restore(struct template *t)
{
	int i;

	for (i = 0; i < npatches; i++)
		if (pwrite(t->fd, t->data + patches[i].off, patches[i].len,
			   patches[i].off) != (ssize_t) patches[i].len)
			die("memfd restore: %s", strerror(errno));
	npatches = 0;
}

/* ---- the plan's safety ------------------------------------------------ */

static void bad_plan(struct e3mp *mp, int round, const struct mp_move *m,
		     const char *why)
{
	fprintf(stderr, "fuzz_scan: unsafe plan: round %d, move %llu -> %llu "
		"(inode %u, kind %u, level %u): %s\n", round + 1,
		(unsigned long long) m->from, (unsigned long long) m->to,
		m->ino, m->kind, m->level, why);
	fprintf(stderr, "fuzz_scan: %u + %u moves, %u indirect blocks, "
		"%llu blocks, %u groups\n", mp->plan.nmv[0], mp->plan.nmv[1],
		mp->nrec, (unsigned long long) mp->geom.blocks_count,
		mp->geom.group_count);
	abort();
}

static void check_plan(struct e3mp *mp)
{
	ext2_filsys fs = mp->fs;
	ext2fs_block_bitmap to0 = NULL, from0 = NULL, to1 = NULL;
	blk64_t first = fs->super->s_first_data_block;
	blk64_t end = ext2fs_blocks_count(fs->super);
	__u32 i;
	int r;

	if (ext2fs_allocate_block_bitmap(fs, "to0", &to0) ||
	    ext2fs_allocate_block_bitmap(fs, "from0", &from0) ||
	    ext2fs_allocate_block_bitmap(fs, "to1", &to1))
		die("out of memory");
	for (r = 0; r < 2; r++)
		for (i = 0; i < mp->plan.nmv[r]; i++) {
			const struct mp_move *m = &mp->plan.mv[r][i];

			if (m->to < first || m->to >= end)
				bad_plan(mp, r, m, "destination outside the "
					 "volume");
			if (m->from < first || m->from >= end)
				bad_plan(mp, r, m, "source outside the volume");
		}
	for (i = 0; i < mp->plan.nmv[0]; i++) {
		const struct mp_move *m = &mp->plan.mv[0][i];

		if (ext2fs_test_block_bitmap2(fs->block_map, m->to))
			bad_plan(mp, 0, m, "destination in use in the bitmap");
		if (ext2fs_test_block_bitmap2(mp->seen, m->to))
			bad_plan(mp, 0, m, "destination is metadata or a "
				 "file's block");
		if (ext2fs_test_block_bitmap2(to0, m->to))
			bad_plan(mp, 0, m, "destination used twice");
		if (!ext2fs_test_block_bitmap2(mp->seen, m->from))
			bad_plan(mp, 0, m, "source not claimed by the scan");
		if (ext2fs_test_block_bitmap2(from0, m->from))
			bad_plan(mp, 0, m, "source moved twice");
		ext2fs_mark_block_bitmap2(to0, m->to);
		ext2fs_mark_block_bitmap2(from0, m->from);
	}
	for (i = 0; i < mp->plan.nmv[1]; i++) {
		const struct mp_move *m = &mp->plan.mv[1][i];

		if (ext2fs_test_block_bitmap2(to1, m->to))
			bad_plan(mp, 1, m, "destination used twice");
		if (!ext2fs_test_block_bitmap2(from0, m->to)) {
			if (ext2fs_test_block_bitmap2(fs->block_map, m->to))
				bad_plan(mp, 1, m, "destination in use and "
					 "not emptied by round 1");
			if (ext2fs_test_block_bitmap2(mp->seen, m->to))
				bad_plan(mp, 1, m, "destination is metadata "
					 "or a file's block");
			if (ext2fs_test_block_bitmap2(to0, m->to))
				bad_plan(mp, 1, m, "destination filled by "
					 "round 1");
		}
		if (!ext2fs_test_block_bitmap2(to0, m->from) &&
		    (!ext2fs_test_block_bitmap2(mp->seen, m->from) ||
		     ext2fs_test_block_bitmap2(from0, m->from)))
			bad_plan(mp, 1, m, "source neither parked in round 1 "
				 "nor claimed by the scan");
		ext2fs_mark_block_bitmap2(to1, m->to);
	}
	ext2fs_free_block_bitmap(to0);
	ext2fs_free_block_bitmap(from0);
	ext2fs_free_block_bitmap(to1);
}

/* ---- one run ---------------------------------------------------------- */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct template *t = &tmpl[size ? data[0] % ntmpl : 0];
	unsigned opts = size > 1 ? data[1] : 12 << 1;
	struct e3mp mp;
	errcode_t err;

	if (size > 2)
		apply(t, data + 2, size - 2);
	memset(&mp, 0, sizeof(mp));
	mp.opt.dry_run = 1;
	/* the inline rule where the MC percentage field wraps (50-63) */
	mp.opt.homing = (opts & 1) ? E3MP_HOME_DATA :
			((opts >> 1) & 63) >= 50 ? E3MP_HOME_INLINE :
			E3MP_HOME_INODE;
	mp.opt.mc_max_pct = 1 + ((opts >> 1) & 63) % 50;
	mp.opt.json = !!(opts & 0x80);
	mp.opt.dirs = size ? (data[0] / ntmpl) % 4 : E3MP_DIRS_LEAVE;
	mp.opt.order = size && (data[0] / ntmpl) & 4 ? E3MP_ORDER_DELETE :
		       E3MP_ORDER_FSCK;
	mp_disk_default(&mp.opt.disk);
	mp.opt.spec = t->fdpath;
	mp.device = t->fdpath;
	warned = 0;

	if (dump_path)
		dump(t);
	err = volume_prepare(&mp);
	if (!err && assume_fixed && should_refuse(&mp))
		err = E3MP_BAD_POINTER;	/* stands for the missing refusal */
	if (!err) {
		if (oracle)
			check_plan(&mp);
		report_print(&mp, devnull, "would_change", 0);
	}
	if (warn_abort && warned) {
		fprintf(stderr, "fuzz_scan: libext2fs printed a warning "
			"(the volume was %s)\n", err ? "refused" : "accepted");
		abort();
	}
	volume_close(&mp, err != 0);	/* dry run: nothing to flush */
	restore(t);
	return 0;
}
