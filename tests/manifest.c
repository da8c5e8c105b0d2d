/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * manifest.c --- print what a user can see of an ext2/3/4 image
 *
 * Usage: manifest IMAGE
 *
 * Opens IMAGE read-only with libext2fs, walks the directory tree from
 * the root and prints one line per path (a hard-linked inode appears
 * once under each of its names), sorted by path, after one header line
 * of volume-wide figures.  The tests run it before and after e3metapack
 * and compare the two outputs: a block mover may change where blocks
 * live, never any of this.
 *
 * Deliberately left out, because a block mover legitimately changes
 * them: block numbers (i_block[] of block-mapped inodes, i_file_acl),
 * inode and group-descriptor checksums, bitmap locations.
 *
 * Line format (fields separated by one space, values never contain one):
 *   PATH ino=N type=T mode=0OOOO uid=N gid=N size=N links=N iblocks=N
 *        flags=0xX gen=N atime=S:X mtime=S:X ctime=S:X crtime=S:X
 *        dtime=N xattr=H [data=H | target=ESC fast=0|1 | dir=H/N |
 *        rdev=X:X]
 * where H is a 64-bit FNV-1a hash in hex.
 *
 * Exit status: 0 on success, 1 on any error (message on stderr).
 */

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <et/com_err.h>
#include <ext2fs/ext2_fs.h>
#include <ext2fs/ext2fs.h>

#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

static const char *prog = "manifest";
static ext2_filsys fs;
static unsigned char *dir_seen; /* one bit per inode: directory visited */

struct strvec {
	char **v;
	size_t n, alloc;
};

static struct strvec lines;

static void die(errcode_t err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

static void die(errcode_t err, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	com_err(prog, err, "%s", msg);
	exit(1);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die(ENOMEM, "out of memory");
	return p;
}

static void vec_push(struct strvec *sv, char *s)
{
	if (sv->n == sv->alloc) {
		sv->alloc = sv->alloc ? sv->alloc * 2 : 64;
		sv->v = realloc(sv->v, sv->alloc * sizeof(*sv->v));
		if (!sv->v)
			die(ENOMEM, "out of memory");
	}
	sv->v[sv->n++] = s;
}

static void vec_free(struct strvec *sv)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->alloc = 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static uint64_t fnv(uint64_t h, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	while (len--) {
		h ^= *p++;
		h *= FNV_PRIME;
	}
	return h;
}

/* Escape bytes outside printable ASCII, spaces and backslashes. */
static char *escape(const char *s, size_t len)
{
	char *out = xmalloc(len * 4 + 1), *o = out;
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c <= ' ' || c >= 0x7f || c == '\\')
			o += sprintf(o, "\\%03o", c);
		else
			*o++ = (char)c;
	}
	*o = 0;
	return out;
}

/* ---- extended attributes ------------------------------------------ */

static int xattr_collect(char *name, char *value, size_t value_len,
			 void *data)
{
	struct strvec *sv = data;
	uint64_t h = fnv(FNV_OFFSET, value, value_len);
	size_t n = strlen(name) + 64;
	char *s = xmalloc(n);

	snprintf(s, n, "%s=%zu:%016llx", name, value_len,
		 (unsigned long long)h);
	vec_push(sv, s);
	return 0;
}

/* Hash of the sorted (name, length, value hash) list; 0 when none. */
static uint64_t xattr_hash(ext2_ino_t ino)
{
	struct ext2_xattr_handle *h;
	struct strvec sv = { 0 };
	unsigned int flags = XATTR_HANDLE_FLAG_RAW;
	uint64_t hash = 0;
	char num[32];
	errcode_t err;
	size_t i;

	if (!ext2fs_has_feature_xattr(fs->super) &&
	    !ext2fs_has_feature_inline_data(fs->super))
		return 0;
	err = ext2fs_xattrs_open(fs, ino, &h);
	snprintf(num, sizeof(num), "%u", ino);
	if (err)
		die(err, "while opening the xattrs of inode %s", num);
	ext2fs_xattrs_flags(h, &flags, NULL);
	err = ext2fs_xattrs_read(h);
	if (err)
		die(err, "while reading the xattrs of inode %s", num);
	err = ext2fs_xattrs_iterate(h, xattr_collect, &sv);
	if (err)
		die(err, "while iterating the xattrs of inode %s", num);
	ext2fs_xattrs_close(&h);
	if (sv.n == 0)
		return 0;
	if (sv.n)
		qsort(sv.v, sv.n, sizeof(*sv.v), cmp_str);
	hash = FNV_OFFSET;
	for (i = 0; i < sv.n; i++)
		hash = fnv(hash, sv.v[i], strlen(sv.v[i]) + 1);
	vec_free(&sv);
	return hash;
}

/* ---- file content ------------------------------------------------- */

/*
 * Hash one chunk of a file read from offset OFF.  A chunk of zeros (a
 * hole, mostly) is hashed as its offset and length instead of byte by
 * byte, so huge sparse files cost little; the result still depends only
 * on the bytes a reader sees.
 */
static uint64_t hash_chunk(uint64_t h, const char *buf, size_t len,
			   uint64_t off)
{
	static const char zero[4096];
	size_t i;
	char mark[64];

	for (i = 0; i < len; i += sizeof(zero)) {
		size_t n = len - i < sizeof(zero) ? len - i : sizeof(zero);

		if (memcmp(buf + i, zero, n))
			return fnv(h, buf, len);
	}
	snprintf(mark, sizeof(mark), "zero:%llu+%zu",
		 (unsigned long long)off, len);
	return fnv(h, mark, strlen(mark));
}

/* Read the whole content (holes as zeros); hash it, or copy it out. */
static uint64_t content(ext2_ino_t ino, struct ext2_inode_large *inode,
			char *copy, size_t copy_max, const char *path)
{
	ext2_file_t file;
	uint64_t h = FNV_OFFSET, want = EXT2_I_SIZE(inode), total = 0;
	unsigned int got;
	errcode_t err;
	static char *buf;
	const unsigned int bufsize = 1 << 20;

	if (inode->i_flags & EXT4_INLINE_DATA_FL) {
		size_t sz = 0;
		char *ibuf = xmalloc(EXT4_MIN_INLINE_DATA_SIZE +
				     EXT2_INODE_SIZE(fs->super) + 4096);

		err = ext2fs_inline_data_get(fs, ino,
					     (struct ext2_inode *)inode,
					     ibuf, &sz);
		if (err)
			die(err, "while reading inline data of %s", path);
		if (sz != want)
			die(0, "%s: inline data size does not match i_size",
			    path);
		if (copy)
			memcpy(copy, ibuf, sz < copy_max ? sz : copy_max);
		h = fnv(h, ibuf, sz);
		free(ibuf);
		return h;
	}

	if (!buf)
		buf = xmalloc(bufsize);
	err = ext2fs_file_open2(fs, ino, (struct ext2_inode *)inode, 0,
				&file);
	if (err)
		die(err, "while opening %s", path);
	for (;;) {
		err = ext2fs_file_read(file, buf, bufsize, &got);
		if (err)
			die(err, "while reading %s", path);
		if (got == 0)
			break;
		if (copy && total < copy_max)
			memcpy(copy + total, buf,
			       copy_max - total < got ? copy_max - total
						      : got);
		h = hash_chunk(h, buf, got, total);
		total += got;
	}
	err = ext2fs_file_close(file);
	if (err)
		die(err, "while closing %s", path);
	if (total != want)
		die(0, "%s: read fewer bytes than i_size", path);
	return h;
}

/* ---- directory walk ----------------------------------------------- */

struct dirent_rec {
	char *name;
	ext2_ino_t ino;
};

struct dir_list {
	struct dirent_rec *e;
	size_t n, alloc;
};

static int dir_collect(ext2_ino_t dir, int entry,
		       struct ext2_dir_entry *dirent, int offset,
		       int blocksize, char *buf, void *priv)
{
	struct dir_list *dl = priv;
	int len = ext2fs_dirent_name_len(dirent);
	char *name;

	(void)dir;
	(void)offset;
	(void)blocksize;
	(void)buf;
	if (entry != DIRENT_OTHER_FILE || dirent->inode == 0)
		return 0;
	name = xmalloc((size_t)len + 1);
	memcpy(name, dirent->name, (size_t)len);
	name[len] = 0;
	if (dl->n == dl->alloc) {
		dl->alloc = dl->alloc ? dl->alloc * 2 : 32;
		dl->e = realloc(dl->e, dl->alloc * sizeof(*dl->e));
		if (!dl->e)
			die(ENOMEM, "out of memory");
	}
	dl->e[dl->n].name = name;
	dl->e[dl->n].ino = dirent->inode;
	dl->n++;
	return 0;
}

static int cmp_dirent(const void *a, const void *b)
{
	return strcmp(((const struct dirent_rec *)a)->name,
		      ((const struct dirent_rec *)b)->name);
}

static const char *type_name(__u16 mode)
{
	if (LINUX_S_ISREG(mode))
		return "reg";
	if (LINUX_S_ISDIR(mode))
		return "dir";
	if (LINUX_S_ISLNK(mode))
		return "lnk";
	if (LINUX_S_ISCHR(mode))
		return "chr";
	if (LINUX_S_ISBLK(mode))
		return "blk";
	if (LINUX_S_ISFIFO(mode))
		return "fifo";
	if (LINUX_S_ISSOCK(mode))
		return "sock";
	return "unknown";
}

static void do_path(const char *path, ext2_ino_t ino);

static void walk_dir(const char *path, ext2_ino_t ino, char *tail,
		     size_t tail_size)
{
	struct dir_list dl = { 0 };
	uint64_t h = FNV_OFFSET;
	errcode_t err;
	size_t i;

	if (dir_seen[(ino - 1) / 8] & (1 << ((ino - 1) % 8)))
		die(0, "%s: directory reached twice (loop?)", path);
	dir_seen[(ino - 1) / 8] |= (unsigned char)(1 << ((ino - 1) % 8));

	err = ext2fs_dir_iterate2(fs, ino, 0, NULL, dir_collect, &dl);
	if (err)
		die(err, "while reading directory %s", path);
	if (dl.n)
		qsort(dl.e, dl.n, sizeof(*dl.e), cmp_dirent);
	for (i = 0; i < dl.n; i++) {
		char num[16];

		snprintf(num, sizeof(num), "%u", dl.e[i].ino);
		h = fnv(h, dl.e[i].name, strlen(dl.e[i].name) + 1);
		h = fnv(h, num, strlen(num) + 1);
	}
	snprintf(tail, tail_size, " dir=%016llx/%zu", (unsigned long long)h,
		 dl.n);

	for (i = 0; i < dl.n; i++) {
		size_t plen = strlen(path), nlen = strlen(dl.e[i].name);
		char *child = xmalloc(plen + nlen + 2);

		memcpy(child, path, plen);
		if (plen == 0 || path[plen - 1] != '/')
			child[plen++] = '/';
		memcpy(child + plen, dl.e[i].name, nlen + 1);
		do_path(child, dl.e[i].ino);
		free(child);
		free(dl.e[i].name);
	}
	free(dl.e);
}

static void do_path(const char *path, ext2_ino_t ino)
{
	struct ext2_inode_large inode;
	/* an escaped symlink target takes up to 4 * 4096 bytes */
	char tail[4 * 4096 + 256];
	char *epath, *line;
	size_t line_size;
	unsigned long long iblocks;
	int large;
	errcode_t err;

	if (ino < 1 || ino > fs->super->s_inodes_count)
		die(0, "%s: inode number out of range", path);
	memset(&inode, 0, sizeof(inode));
	err = ext2fs_read_inode_full(fs, ino, (struct ext2_inode *)&inode,
				     sizeof(inode));
	if (err)
		die(err, "while reading inode of %s", path);
	if (!ext2fs_test_inode_bitmap2(fs->inode_map, ino))
		die(0, "%s: inode not marked in use", path);
	if (inode.i_links_count == 0)
		die(0, "%s: inode has links_count 0", path);

	large = EXT2_INODE_SIZE(fs->super) > EXT2_GOOD_OLD_INODE_SIZE;
	iblocks = inode.i_blocks;
	if (ext2fs_has_feature_huge_file(fs->super))
		iblocks |= (unsigned long long)inode.osd2.linux2.l_i_blocks_hi
			   << 32;

	tail[0] = 0;
	if (LINUX_S_ISREG(inode.i_mode)) {
		uint64_t h = content(ino, &inode, NULL, 0, path);

		snprintf(tail, sizeof(tail), " data=%016llx",
			 (unsigned long long)h);
	} else if (LINUX_S_ISLNK(inode.i_mode)) {
		int fast = ext2fs_is_fast_symlink((struct ext2_inode *)&inode);
		size_t len = EXT2_I_SIZE(&inode);
		char *target, *et;

		if (len > 4096)
			die(0, "%s: symlink longer than 4096 bytes", path);
		target = xmalloc(len + 1);
		if (fast)
			memcpy(target, (char *)inode.i_block, len);
		else
			content(ino, &inode, target, len, path);
		target[len] = 0;
		et = escape(target, len);
		snprintf(tail, sizeof(tail), " target=%s fast=%d", et, fast);
		free(et);
		free(target);
	} else if (LINUX_S_ISDIR(inode.i_mode)) {
		walk_dir(path, ino, tail, sizeof(tail));
	} else if (LINUX_S_ISCHR(inode.i_mode) ||
		   LINUX_S_ISBLK(inode.i_mode)) {
		snprintf(tail, sizeof(tail), " rdev=%x:%x", inode.i_block[0],
			 inode.i_block[1]);
	}

	epath = escape(path, strlen(path));
	line_size = strlen(epath) + strlen(tail) + 512;
	line = xmalloc(line_size);
	snprintf(line, line_size,
		 "%s ino=%u type=%s mode=0%o uid=%u gid=%u size=%llu "
		 "links=%u iblocks=%llu flags=0x%x gen=%u "
		 "atime=%u:%x mtime=%u:%x ctime=%u:%x crtime=%u:%x "
		 "dtime=%u xattr=%016llx%s",
		 epath, ino, type_name(inode.i_mode), inode.i_mode & 07777,
		 inode_uid(inode), inode_gid(inode),
		 (unsigned long long)EXT2_I_SIZE(&inode), inode.i_links_count,
		 iblocks, inode.i_flags, inode.i_generation, inode.i_atime,
		 large ? inode.i_atime_extra : 0, inode.i_mtime,
		 large ? inode.i_mtime_extra : 0, inode.i_ctime,
		 large ? inode.i_ctime_extra : 0, large ? inode.i_crtime : 0,
		 large ? inode.i_crtime_extra : 0, inode.i_dtime,
		 (unsigned long long)xattr_hash(ino), tail);
	free(epath);
	vec_push(&lines, line);
}

/* ---- volume-wide figures ------------------------------------------ */

static void header(void)
{
	unsigned long long fb_gd = 0, fb_bm = 0, fi_gd = 0, fi_bm = 0;
	blk64_t b;
	ext2_ino_t i;
	dgrp_t g;

	for (g = 0; g < fs->group_desc_count; g++) {
		fb_gd += ext2fs_bg_free_blocks_count(fs, g);
		fi_gd += ext2fs_bg_free_inodes_count(fs, g);
	}
	for (b = fs->super->s_first_data_block;
	     b < ext2fs_blocks_count(fs->super); b++)
		if (!ext2fs_test_block_bitmap2(fs->block_map, b))
			fb_bm++;
	for (i = 1; i <= fs->super->s_inodes_count; i++)
		if (!ext2fs_test_inode_bitmap2(fs->inode_map, i))
			fi_bm++;
	printf("# block_size=%u blocks=%llu groups=%u inodes=%u "
	       "free_blocks=%llu/%llu/%llu free_inodes=%u/%llu/%llu "
	       "features=%x:%x:%x state=%u\n",
	       fs->blocksize,
	       (unsigned long long)ext2fs_blocks_count(fs->super),
	       fs->group_desc_count, fs->super->s_inodes_count,
	       (unsigned long long)ext2fs_free_blocks_count(fs->super), fb_gd,
	       fb_bm, fs->super->s_free_inodes_count, fi_gd, fi_bm,
	       fs->super->s_feature_compat, fs->super->s_feature_incompat,
	       fs->super->s_feature_ro_compat, fs->super->s_state);
}

int main(int argc, char **argv)
{
	errcode_t err;
	size_t i;

	add_error_table(&et_ext2_error_table);
	if (argc != 2 || argv[1][0] == '-') {
		fprintf(stderr, "Usage: %s IMAGE\n", prog);
		return 1;
	}
	err = ext2fs_open(argv[1], EXT2_FLAG_64BITS, 0, 0, unix_io_manager,
			  &fs);
	if (err)
		die(err, "while opening %s", argv[1]);
	err = ext2fs_read_bitmaps(fs);
	if (err)
		die(err, "while reading bitmaps of %s", argv[1]);
	dir_seen = calloc(fs->super->s_inodes_count / 8 + 1, 1);
	if (!dir_seen)
		die(ENOMEM, "out of memory");

	header();
	do_path("/", EXT2_ROOT_INO);
	if (lines.n)
		qsort(lines.v, lines.n, sizeof(*lines.v), cmp_str);
	for (i = 0; i < lines.n; i++)
		puts(lines.v[i]);
	vec_free(&lines);
	free(dir_seen);
	ext2fs_close_free(&fs);
	if (fflush(stdout) || ferror(stdout)) {
		com_err(prog, errno, "while writing the manifest");
		return 1;
	}
	return 0;
}
