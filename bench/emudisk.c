/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * emudisk.c --- an emulated hard disk: a FUSE file served in real time
 *
 *   emudisk [--segments N] [--ra-kib N] [--log FILE] [--stats FILE]
 *           [--ro] IMAGE MOUNTPOINT
 *
 * Exposes IMAGE as MOUNTPOINT/disk, opened direct_io (the kernel keeps no
 * page cache of it), and serves each request the kernel sends, one at a
 * time, in real time: the request is charged with bench/hddmodel.py's
 * trace-mode disk (drive.c: a persistent head, the square-root seek
 * curve, forward gaps spun by, a drive read-ahead cache of N segments of
 * --ra-kib KiB, default 16 of 512), and the reply is held until that
 * time has passed since the disk became free.  A loop device on the file
 * (bench/emuloop) is then a disk that takes as long as the model says.
 *
 * Writes (without --ro) go to IMAGE and are charged as hddmodel.py
 * charges them: positioning and transfer, no drive write cache.  IMAGE
 * may be sparse (up to the file system's size limit).
 *
 * --log FILE: one line per request, "R|W OFFSET LENGTH START_S COST_MS"
 * (its first three fields are bench/readtrace's format, which
 * hddmodel.py trace replays).  --stats FILE: a JSON object at unmount.
 * The daemon runs in the foreground and single-threaded; unmount it with
 * fusermount3 -u MOUNTPOINT (or SIGTERM).
 *
 * Build: make bench-progs, where configure found libfuse3 (bench/emudisk).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#define FUSE_USE_VERSION 31
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "model/drive.h"

static const char disk_name[] = "disk";

static struct {
	const char	*image;
	int		fd;
	int		ro;
	uint64_t	size;
	FILE		*log;
	FILE		*stats;
	struct mp_drive m;
	double		t0;	/* s, CLOCK_MONOTONIC at start */
	double		free_at; /* s: when the disk is next free */
	double		late;	/* s: replies later than the model */
	uint64_t	late_n;
} E;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_until(double t)
{
	struct timespec ts;

	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - ts.tv_sec) * 1e9);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

/*
 * Charge one request, do it, and hold the reply until the model's time:
 * the disk starts it when it arrives or when the previous one is done,
 * whichever is later.  Time the host's own I/O takes beyond the model is
 * counted (late), not hidden.
 */
static ssize_t serve(char *rbuf, const char *wbuf, size_t len, off_t off)
{
	double start = now_s(), cost, done;
	ssize_t r;

	if (start < E.free_at)
		start = E.free_at;
	cost = mp_drive_request(&E.m, off, len, wbuf != NULL);
	r = wbuf ? pwrite(E.fd, wbuf, len, off) : pread(E.fd, rbuf, len, off);
	if (r < 0)
		r = -errno;
	done = start + cost / 1000.0;
	sleep_until(done);
	E.free_at = now_s();
	if (E.free_at > done + 1e-3) {
		E.late += E.free_at - done;
		E.late_n++;
	}
	if (E.log)
		fprintf(E.log, "%c %lld %zu %.6f %.4f\n", wbuf ? 'W' : 'R',
			(long long)off, len, start - E.t0, cost);
	return r;
}

static int is_disk(const char *path)
{
	return path[0] == '/' && !strcmp(path + 1, disk_name);
}

static int ed_getattr(const char *path, struct stat *st,
		      struct fuse_file_info *fi)
{
	(void)fi;
	memset(st, 0, sizeof(*st));
	if (!strcmp(path, "/")) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		return 0;
	}
	if (!is_disk(path))
		return -ENOENT;
	st->st_mode = S_IFREG | (E.ro ? 0444 : 0644);
	st->st_nlink = 1;
	st->st_size = E.size;
	return 0;
}

static int ed_readdir(const char *path, void *buf, fuse_fill_dir_t fill,
		      off_t off, struct fuse_file_info *fi,
		      enum fuse_readdir_flags flags)
{
	(void)off; (void)fi; (void)flags;
	if (strcmp(path, "/"))
		return -ENOENT;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, disk_name, NULL, 0, 0);
	return 0;
}

static int ed_open(const char *path, struct fuse_file_info *fi)
{
	if (!is_disk(path))
		return -ENOENT;
	if (E.ro && (fi->flags & O_ACCMODE) != O_RDONLY)
		return -EROFS;
	/* No page cache of the disk: every read reaches the model. */
	fi->direct_io = 1;
	fi->keep_cache = 0;
	return 0;
}

static int ed_read(const char *path, char *buf, size_t len, off_t off,
		   struct fuse_file_info *fi)
{
	(void)path; (void)fi;
	if ((uint64_t)off >= E.size)
		return 0;
	if (len > E.size - off)
		len = E.size - off;
	return serve(buf, NULL, len, off);
}

static int ed_write(const char *path, const char *buf, size_t len,
		    off_t off, struct fuse_file_info *fi)
{
	(void)path; (void)fi;
	if (E.ro)
		return -EROFS;
	if ((uint64_t)off >= E.size)
		return -ENOSPC;
	if (len > E.size - off)
		len = E.size - off;
	return serve(NULL, buf, len, off);
}

/* Writes went through to IMAGE, and the model has no write cache. */
static int ed_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	(void)path; (void)datasync; (void)fi;
	return 0;
}

static void *ed_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	cfg->direct_io = 1;
	cfg->kernel_cache = 0;
	cfg->attr_timeout = 3600;
	cfg->entry_timeout = 3600;
	/* Large requests stay whole (the kernel then splits less). */
	conn->max_write = 1 << 20;
	conn->max_readahead = 0;
	E.t0 = now_s();
	E.free_at = E.t0;
	return NULL;
}

/* The daemon's working directory is / by now: the file is open already. */
static void write_stats(FILE *f)
{
	const struct mp_drive *m = &E.m;

	fprintf(f, "{\"busy_ms\": %.3f, \"floor_ms\": %.3f, \"bytes\": %"
		PRIu64 ", \"requests\": %" PRIu64 ", \"writes\": %" PRIu64
		", \"media_requests\": %" PRIu64 ", \"seeks\": %" PRIu64
		", \"spins\": %" PRIu64 ", \"drive_cache_hits\": %" PRIu64
		", \"late_s\": %.3f, \"late_requests\": %" PRIu64
		", \"span_bytes\": %" PRIu64 ", \"drive_ra_kib\": %" PRIu64
		", \"drive_segments\": %d}\n", m->time, m->xfer, m->bytes,
		m->requests, m->writes, m->media, m->seeks, m->spins,
		m->drive_hits, E.late, E.late_n, E.size, m->ra / 1024,
		m->nseg);
	fclose(f);
}

static void ed_destroy(void *priv)
{
	(void)priv;
	if (E.log)
		fclose(E.log);
	E.log = NULL;
	if (E.stats)
		write_stats(E.stats);
	E.stats = NULL;
}

static const struct fuse_operations ops = {
	.getattr	= ed_getattr,
	.readdir	= ed_readdir,
	.open		= ed_open,
	.read		= ed_read,
	.write		= ed_write,
	.fsync		= ed_fsync,
	.init		= ed_init,
	.destroy	= ed_destroy,
};

static void usage(void)
{
	fprintf(stderr, "usage: emudisk [--segments N] [--ra-kib N] "
		"[--log FILE] [--stats FILE] [--ro] IMAGE MOUNTPOINT\n");
	exit(2);
}

static long num_arg(const char *s, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "emudisk: bad number '%s' (%ld..%ld)\n", s,
			lo, hi);
		exit(2);
	}
	return v;
}

static int parse_args(int argc, char **argv, long *segs, long *ra_kib,
		      const char **log, const char **stats)
{
	int i;

	for (i = 1; i < argc && !strncmp(argv[i], "--", 2); i++) {
		if (!strcmp(argv[i], "--ro")) {
			E.ro = 1;
			continue;
		}
		if (i + 1 >= argc)
			usage();
		if (!strcmp(argv[i], "--segments"))
			*segs = num_arg(argv[++i], 0, MP_DRIVE_MAX_SEGS);
		else if (!strcmp(argv[i], "--ra-kib"))
			*ra_kib = num_arg(argv[++i], 0, 1L << 20);
		else if (!strcmp(argv[i], "--log"))
			*log = argv[++i];
		else if (!strcmp(argv[i], "--stats"))
			*stats = argv[++i];
		else
			usage();
	}
	if (argc - i != 2)
		usage();
	return i;
}

int main(int argc, char **argv)
{
	long segs = 16, ra_kib = MP_DRIVE_RA_KIB;
	const char *log = NULL, *stats = NULL;
	char *fargv[] = { argv[0], "-f", "-s", "-o",
			  "fsname=emudisk,subtype=emudisk", NULL, NULL };
	struct stat st;
	int i;

	i = parse_args(argc, argv, &segs, &ra_kib, &log, &stats);
	E.image = argv[i];
	E.fd = open(E.image, E.ro ? O_RDONLY : O_RDWR);
	if (E.fd < 0 || fstat(E.fd, &st) < 0) {
		perror(E.image);
		return 1;
	}
	E.size = st.st_size;
	if (!E.size) {
		fprintf(stderr, "emudisk: %s: empty image\n", E.image);
		return 1;
	}
	if ((log && !(E.log = fopen(log, "w"))) ||
	    (stats && !(E.stats = fopen(stats, "w")))) {
		perror(log && !E.log ? log : stats);
		return 1;
	}
	mp_drive_init(&E.m, E.size, (uint64_t)ra_kib * 1024, (int)segs);
	/* Line-buffered: the bench counts the lines while the disk runs. */
	if (E.log)
		setvbuf(E.log, NULL, _IOLBF, 0);
	if (E.log)
		fprintf(E.log, "# emudisk span %" PRIu64 " ra_kib %ld "
			"segments %d\n", E.size, ra_kib, E.m.nseg);
	fargv[5] = argv[i + 1];
	return fuse_main(6, fargv, &ops, NULL);
}
