/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * progress.c --- -p: one line per phase, redrawn in place
 *
 * The core reports (phase, done, total) through mp->progress and prints
 * nothing itself.  This printer redraws at most once per percent so a
 * slow terminal or a log file does not cost time.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdio.h>
#include <unistd.h>

#include "e3metapack.h"

static const char *const phase_name[E3MP_PHASE_COUNT] = {
	[E3MP_PHASE_SCAN] = "Scanning inodes",
	[E3MP_PHASE_COPY] = "Copying blocks",
	[E3MP_PHASE_REWRITE] = "Rewriting pointers",
};

struct progress_state {
	int		phase;
	int		last_pct;
	FILE		*out;
};

static struct progress_state ps = { .phase = -1, .last_pct = -1 };

static void progress_print(struct e3mp *mp EXT2FS_ATTR((unused)),
			   enum e3mp_phase phase, __u64 done, __u64 total)
{
	int pct = total ? (int) (done * 100 / total) : 100;

	if ((int) phase != ps.phase) {
		if (ps.phase >= 0)
			fputc('\n', ps.out);
		ps.phase = phase;
		ps.last_pct = -1;
	}
	if (pct == ps.last_pct)
		return;
	ps.last_pct = pct;
	fprintf(ps.out, "\r%-20s %3d%% (%llu/%llu)", phase_name[phase], pct,
		(unsigned long long) done, (unsigned long long) total);
	fflush(ps.out);
}

void progress_attach(struct e3mp *mp)
{
	/* with --json, stdout carries only the JSON object */
	ps.out = mp->opt.json ? stderr : stdout;
	mp->progress = progress_print;
}

void progress_done(struct e3mp *mp)
{
	if (mp->progress && ps.phase >= 0)
		fputc('\n', ps.out);
	ps.phase = -1;
}
