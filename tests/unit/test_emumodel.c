/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_drive.c --- the emulated disk's model (src/model/drive.c) is
 * bench/hddmodel.py's trace mode
 *
 * The daemon (bench/emudisk) sleeps what drive.c charges; every e2fsck
 * figure of the bench comes from hddmodel.py.  The two must agree: a
 * request log recorded by the daemon (tests/unit/emudisk-requests.txt:
 * e2fsck -fn of a small ext3 image through a loop device, read_ahead_kb
 * 128) is replayed through drive.c and through "python3
 * bench/hddmodel.py trace" with 16, 1 and 0 drive segments, and the totals compared.  The
 * cases before that check the physics against the formulas, so that a
 * change made to both models alike is still seen.
 *
 * Environment: top_srcdir (make check sets it), PYTHON (python3).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/drive.h"
#include "model/model.h"
#include "unit.h"

#define NEAR(a, b)	(fabs((a) - (b)) <= 1e-9 * (1 + fabs(b)))
#define GIB		(1ULL << 30)
#define RATE		(MP_DISK_MB_PER_S * 1e6)	/* bytes/s */

static char logpath[4096], tracepath[4096];

/* --- physics, against the formulas of hddmodel.py's docstring --------- */

static int case_sequential(void)
{
	struct mp_drive m;
	double c;

	mp_drive_init(&m, GIB, 0, 0);
	c = mp_drive_request(&m, 0, 1 << 20, 0);
	EXPECT(NEAR(c, (1 << 20) / (RATE / 1000)),
	       "a read at the head costs %g ms, not its transfer", c);
	c = mp_drive_request(&m, 1 << 20, 4096, 0);
	EXPECT(NEAR(c, 4096 / (RATE / 1000)), "continuing costs %g", c);
	EXPECT(m.seeks == 0 && m.spins == 0, "positioning counted");
	return 0;
}

static int case_seek_and_spin(void)
{
	struct mp_drive m;
	double x = 4096 / (RATE / 1000), want, c;

	mp_drive_init(&m, GIB, 0, 0);
	c = mp_drive_request(&m, GIB / 4, 4096, 0);
	want = MP_DISK_SETTLE_MS + (MP_DISK_STROKE_MS - MP_DISK_SETTLE_MS) * 0.5 +
		MP_DISK_HALF_ROT_MS + x;
	EXPECT(NEAR(c, want), "quarter-span seek: %g ms, want %g", c, want);
	/* A small forward gap is spun over: gap / rate. */
	c = mp_drive_request(&m, GIB / 4 + 8192 + 4096, 4096, 0);
	EXPECT(NEAR(c, 8192 / (RATE / 1000) + x), "spin: %g ms", c);
	/* Backward: always a seek, however short. */
	c = mp_drive_request(&m, GIB / 4, 4096, 0);
	EXPECT(c > MP_DISK_SETTLE_MS + MP_DISK_HALF_ROT_MS, "backward: %g ms", c);
	EXPECT(m.seeks == 2 && m.spins == 1, "%" PRIu64 " seeks, %" PRIu64
	       " spins", m.seeks, m.spins);
	return 0;
}

static int case_segments(void)
{
	struct mp_drive m;
	double x = 4096 / (RATE / 1000), c;
	uint64_t ra = MP_DRIVE_RA_KIB * 1024ULL, a = 0, b = GIB / 2;

	mp_drive_init(&m, GIB, ra, 2);
	mp_drive_request(&m, a, 4096, 0);		/* keeps [4K, 4K + RA) */
	mp_drive_request(&m, b, 4096, 0);		/* head far away */
	c = mp_drive_request(&m, a + 8192, 4096, 0);
	EXPECT(NEAR(c, x) && m.drive_hits == 1 && m.head == b + 4096,
	       "a read in a segment: %g ms, head moved", c);
	/* A write makes what the drive kept of it stale. */
	mp_drive_request(&m, a + 8192, 4096, 1);
	mp_drive_request(&m, b, 4096, 0);
	c = mp_drive_request(&m, a + 16384, 4096, 0);
	EXPECT(c > x + MP_DISK_SETTLE_MS && m.drive_hits == 1,
	       "a stale segment served a read (%g ms)", c);
	/* With one segment, the second stream evicts the first. */
	mp_drive_init(&m, GIB, ra, 1);
	mp_drive_request(&m, a, 4096, 0);
	mp_drive_request(&m, b, 4096, 0);
	mp_drive_request(&m, GIB / 4, 4096, 0);
	c = mp_drive_request(&m, a + 8192, 4096, 0);
	EXPECT(m.drive_hits == 0 && c > x + MP_DISK_SETTLE_MS,
	       "an evicted segment served a read");
	return 0;
}

/* --- the recorded log, through both models ----------------------------- */

/* Replay the log; also writes it in readtrace's format for hddmodel.py. */
static int replay(int segments, uint64_t *span, struct mp_drive *m)
{
	FILE *in = fopen(logpath, "r"), *out = fopen(tracepath, "w");
	char line[256], rw;
	unsigned long long off, len;
	int n = 0;

	EXPECT(in && out, "cannot open %s or %s", logpath, tracepath);
	EXPECT(fgets(line, sizeof(line), in) &&
	       sscanf(line, "# emudisk span %" SCNu64, span) == 1,
	       "%s: no '# emudisk span' header", logpath);
	mp_drive_init(m, *span, MP_DRIVE_RA_KIB * 1024ULL, segments);
	while (fgets(line, sizeof(line), in)) {
		if (sscanf(line, "%c %llu %llu", &rw, &off, &len) != 3 ||
		    (rw != 'R' && rw != 'W'))
			continue;
		mp_drive_request(m, off, len, rw == 'W');
		fprintf(out, "%c %llu %llu\n", rw, off, len);
		n++;
	}
	fclose(in);
	fclose(out);
	EXPECT(n >= 100, "only %d requests in %s", n, logpath);
	return 0;
}

/* hddmodel.py trace's time_ms and media_requests on the same requests. */
static int python_total(int segments, uint64_t span, double *ms,
			unsigned long long *media)
{
	const char *py = getenv("PYTHON") ? getenv("PYTHON") : "python3";
	const char *top = getenv("top_srcdir");
	char cmd[8192 + 512], out[4096];
	FILE *p;
	size_t n;
	char *t;

	snprintf(cmd, sizeof(cmd), "%s '%s/bench/hddmodel.py' trace '%s' "
		 "--span %" PRIu64 " --bs 4096 --segments %d", py, top,
		 tracepath, span, segments);
	p = popen(cmd, "r");
	EXPECT(p, "cannot run %s", cmd);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = 0;
	EXPECT(pclose(p) == 0, "'%s' failed", cmd);
	t = strstr(out, "\"time_ms\": ");
	EXPECT(t && sscanf(t + 11, "%lf", ms) == 1, "no time_ms: %s", out);
	t = strstr(out, "\"media_requests\": ");
	EXPECT(t && sscanf(t + 18, "%llu", media) == 1, "no media: %s", out);
	return 0;
}

static int same_as_python(int segments)
{
	struct mp_drive m;
	uint64_t span;
	double py_ms;
	unsigned long long py_media;

	TRY(replay(segments, &span, &m));
	TRY(python_total(segments, span, &py_ms, &py_media));
	/* hddmodel.py rounds time_ms to 3 decimals. */
	EXPECT(fabs(m.time - py_ms) <= 0.0005 + 1e-9 * py_ms,
	       "%d segments: C %.4f ms, hddmodel.py %.3f ms", segments,
	       m.time, py_ms);
	EXPECT(m.media == py_media, "%d segments: %" PRIu64 " media "
	       "requests, hddmodel.py %llu", segments, m.media, py_media);
	return 0;
}

static int case_log16(void) { return same_as_python(16); }
static int case_log1(void) { return same_as_python(1); }
static int case_log0(void) { return same_as_python(0); }

static int have_python(void)
{
	const char *py = getenv("PYTHON") ? getenv("PYTHON") : "python3";
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "%s -c 'import json' >/dev/null 2>&1",
		 py);
	return system(cmd) == 0;
}

int main(void)
{
	const char *top = getenv("top_srcdir") ? getenv("top_srcdir") : ".";
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	static const char *const names[] = {
		"16 drive segments: the same total as hddmodel.py trace",
		"1 drive segment: the same total as hddmodel.py trace",
		"no drive cache: the same total as hddmodel.py trace",
	};
	int (*const cases[])(void) = { case_log16, case_log1, case_log0 };
	size_t i;

	snprintf(logpath, sizeof(logpath), "%s/tests/unit/%s", top,
		 "emudisk-requests.txt");
	snprintf(tracepath, sizeof(tracepath), "%s/e3mp-emumodel.%d.trace",
		 tmp, (int)getpid());
	run("a read at the head costs its transfer only", case_sequential);
	run("seeks follow the square-root curve, small gaps are spun over",
	    case_seek_and_spin);
	run("drive segments: hits cost transfer, writes and LRU evict",
	    case_segments);
	for (i = 0; i < 3; i++) {
		if (have_python()) {
			run(names[i], cases[i]);
			continue;
		}
		printf("ok %d - %s # SKIP no python3 for bench/hddmodel.py\n",
		       ++n_run, names[i]);
	}
	remove(tracepath);
	return unit_done();
}
