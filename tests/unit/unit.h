/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * unit.h --- the small TAP harness the C unit tests share
 *
 * Each case is an int (*)(void) that returns 0 on success, or 1 through
 * EXPECT()/fail(), which keep the first reason.  run() prints one
 * "ok N - name" or "not ok N - name: why" line per case; unit_done()
 * prints the "1..N" plan and gives the exit status: 0 only if every case
 * passed.  Include it once, from the test's own .c file.
 */
#ifndef E3MP_UNIT_H
#define E3MP_UNIT_H

#include <stdarg.h>
#include <stdio.h>

static int n_run, n_fail;
static char why[2048];

static int fail(const char *fmt, ...)
{
	va_list ap;

	if (!why[0]) {
		va_start(ap, fmt);
		vsnprintf(why, sizeof(why), fmt, ap);
		va_end(ap);
	}
	return 1;
}

#define EXPECT(cond, ...) \
	do { if (!(cond)) return fail(__VA_ARGS__); } while (0)
#define TRY(expr) \
	do { if (expr) return 1; } while (0)
#define ULL(x) ((unsigned long long) (x))

static void run(const char *name, int (*fn)(void))
{
	int r;

	why[0] = 0;
	r = fn();
	n_run++;
	if (r) {
		n_fail++;
		printf("not ok %d - %s: %s\n", n_run, name,
		       why[0] ? why : "(no detail)");
	} else {
		printf("ok %d - %s\n", n_run, name);
	}
	fflush(stdout);
}

static int unit_done(void)
{
	printf("1..%d\n", n_run);
	return n_fail ? 1 : 0;
}

#endif /* E3MP_UNIT_H */
