/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * main.c --- e3metapack: pack indirect blocks into per-group metaclusters
 *
 * The pipeline, in order, each stage a directory of src/:
 *   parse_args          command line (gate/cli.c)
 *   resolve_device      LABEL=/UUID= through libblkid (gate/open.c)
 *   volume_lock         one run per volume at a time (gate/lock.c)
 *   partitions_probe    a whole-disk image: each partition in turn
 * volume_prepare() (prepare.c) then runs, up to the first write:
 *   check_device        an ext2/3/4 filesystem, not mounted or busy
 *   open_volume         with the undo file stacked under it (io/undo.c)
 *   check_volume        clean, freshly checked, supported features,
 *                       sane descriptors, journal and bitmaps (gate/)
 *   planfeed_geometry   the planner's view of the volume (plan/)
 *   inode_scan_and_record   every indirect block, checked (scan/)
 *   planfeed_plan       metaclusters, destinations, evacuations (plan/)
 *   predict_fsck        e2fsck -fn's time on the model disk (predict/)
 *   undo_space_check    room for the undo file the plan will write
 *                       (io/undo.c, io/undobound.c)
 *   predict_tool        the run's own time on the model disk (predict/)
 * and, unless -n or nothing moves, repack(), the write order (write/):
 *   transaction_begin   mark not clean                     barrier
 *   per round (evacuations, then indirect blocks into the slots):
 *     blocks_reserve    destinations marked in use
 *     blocks_copy       sources copied to them (move.c)      barrier
 *     pointers_rewrite  files pointed at the copies (fixptr.c) barrier
 *     blocks_release    sources freed, counts fixed          barrier
 *                       (round 1's: with round 2's first barrier)
 *   transaction_end     mark clean                         barrier
 *   volume_close        then the report (report.c)
 * Only this file prints errors or exits.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <et/com_err.h>

#include "e3metapack.h"
#include "core/order.h"

static const char *program_name = "e3metapack";

/* Held until exit; the refusal message names who else holds it. */
static struct e3mp_lock lock = { .fd = -1 };

static void on_signal(int sig EXT2FS_ATTR((unused)))
{
	e3mp_stop = 1;
}

static void catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* What to hand e2fsck: libext2fs reads "?offset=" after the name. */
static const char *fsck_name(struct e3mp *mp)
{
	static char buf[4096];

	if (!mp->part)
		return mp->device ? mp->device : mp->opt.spec;
	snprintf(buf, sizeof(buf), "%s?offset=%llu", mp->device,
		 (unsigned long long) mp->part->offset);
	return buf;
}

static void json_failure(struct e3mp *mp, const char *status,
			 const char *why, int code)
{
	if (mp->opt.json)
		report_json_failure(mp, stdout, status, why, code);
}

/* How much the undo file needs and where, and what to do instead. */
static void print_undo_space(struct e3mp *mp)
{
	char *dir = strdup(mp->undo_path);

	fprintf(stderr, ": it needs up to %llu bytes, %s has %llu available;"
		" use -z FILE on another filesystem, or -z none",
		(unsigned long long) mp->undo_bound,
		dir ? dirname(dir) : mp->undo_path,
		(unsigned long long) mp->undo_avail);
	free(dir);
}

/* What names the refusal's subject, before its text (errclass.c). */
static void print_refusal_subject(struct e3mp *mp, unsigned int show)
{
	if (show & E3MP_SHOW_INODE_BLOCK)
		fprintf(stderr, "inode %u, block %llu: ", mp->err_ino,
			(unsigned long long) mp->err_blk);
	else if (show & E3MP_SHOW_BLOCK)
		fprintf(stderr, "block %llu: ",
			(unsigned long long) mp->err_blk);
	else if ((show & E3MP_SHOW_INODE) && mp->err_ino)
		fprintf(stderr, "inode %u: ", mp->err_ino);
	else if (show & E3MP_SHOW_GROUP)
		fprintf(stderr, "group %u: ", mp->err_group);
}

static void print_refusal(struct e3mp *mp, const struct e3mp_errinfo *e)
{
	errcode_t err = e->code;

	fprintf(stderr, "%s: %s: ", program_name, volume_label(mp));
	print_refusal_subject(mp, e->show);
	fputs(error_message(err), stderr);
	if ((e->show & E3MP_SHOW_WHY) && mp->err_why)
		fprintf(stderr, ": %s", mp->err_why);
	if ((e->show & E3MP_SHOW_HOLDER) && lock.holder_pid)
		fprintf(stderr, " (pid %ld%s%s)", lock.holder_pid,
			lock.holder_name[0] ? ", " : "", lock.holder_name);
	else if ((e->show & E3MP_SHOW_HOLDER) && lock.holder_gone)
		fputs(" (released since)", stderr);
	if (e->show & E3MP_SHOW_HOLDER)
		fputs("; nothing was written", stderr);
	if (e->show & E3MP_SHOW_LOOP)
		fprintf(stderr, " %s; detach it (losetup -d) first",
			lock.loop);
	if (e->show & E3MP_SHOW_UNDO_SPACE)
		print_undo_space(mp);
	if (e->cls == E3MP_CLASS_FSCK)
		fprintf(stderr, ". Please run 'e2fsck -f %s' first.",
			fsck_name(mp));
	fputc('\n', stderr);
	json_failure(mp, "refused", error_message(err), E3MP_EXIT_REFUSED);
}

/*
 * What works after a failure that left writes on the volume.  An e2undo
 * command is printed only if undo.c finds that e2undo will accept the
 * undo file and restore the volume from it.
 */
static void print_undo_hint(struct e3mp *mp)
{
	const char *why = NULL;

	if (mp->undo_path && !undo_replayable(mp, &why)) {
		fprintf(stderr, "%s: the volume is consistent; undo "
			"everything with 'e2undo %s %s', or run "
			"'e2fsck -f %s' and then e3metapack again\n",
			program_name, mp->undo_path, mp->device, fsck_name(mp));
		return;
	}
	if (mp->undo_path)
		fprintf(stderr, "%s: the undo file %s cannot restore this "
			"run (%s): do not replay it\n", program_name,
			mp->undo_path, why);
	fprintf(stderr, "%s: the volume is consistent; run "
		"'e2fsck -f %s' and then e3metapack again\n",
		program_name, fsck_name(mp));
}

/* The first I/O error of the run (io.c), naming the block or file. */
static void print_io_error(struct e3mp *mp)
{
	const struct e3mp_io_error *e = &mp->io_err;
	unsigned int bs = mp->blocksize;

	if (e->undo)
		com_err(program_name, e->err, "while %s undo file %s",
			e->op, mp->undo_path);
	else if (!strcmp(e->op, "flushing"))
		com_err(program_name, e->err, "while flushing %s",
			volume_label(mp));
	else if (!bs || (e->offset >= SUPERBLOCK_OFFSET &&
			 e->offset < SUPERBLOCK_OFFSET + SUPERBLOCK_SIZE))
		com_err(program_name, e->err, "while %s the superblock of %s",
			e->op, volume_label(mp));
	else
		com_err(program_name, e->err, "while %s block %llu of %s",
			e->op, (unsigned long long) (e->offset / bs),
			volume_label(mp));
}

/* Print what went wrong; return the exit code that says so. */
static int fail(struct e3mp *mp, errcode_t err, const char *doing)
{
	const struct e3mp_errinfo *e = errclass_find(err);
	const char *dev = volume_label(mp);
	int code;

	if (errclass_is_refusal(err)) {
		print_refusal(mp, e);
		return E3MP_EXIT_REFUSED;
	}
	if (err == E3MP_INTERRUPTED && !mp->writes_started) {
		fprintf(stderr, "%s: %s: interrupted; nothing was written\n",
			program_name, dev);
		json_failure(mp, "interrupted", "interrupted",
			     E3MP_EXIT_INTERRUPTED);
		return E3MP_EXIT_INTERRUPTED;
	}
	if (mp->io_err.err)
		print_io_error(mp);
	else if (mp->err_op && !e)	/* a libext2fs or system error */
		com_err(program_name, err, "while %s block %llu of %s",
			mp->err_op, (unsigned long long) mp->err_blk, dev);
	else
		com_err(program_name, err, "while %s %s", doing, dev);
	/* nothing reached the volume: it is untouched */
	code = mp->dev_writes ? E3MP_EXIT_PARTIAL : E3MP_EXIT_ERROR;
	if (mp->dev_writes)
		print_undo_hint(mp);
	json_failure(mp, "failed", error_message(err), code);
	return code;
}

static void print_warnings(struct e3mp *mp)
{
	int i;

	for (i = 0; i < mp->nwarn; i++)
		fprintf(stderr, "%s: %s: warning: %s; the report may be "
			"inaccurate\n", program_name, volume_label(mp),
			error_message(mp->warn[i]));
}

static void print_undo_notice(struct e3mp *mp)
{
	FILE *f = mp->opt.json ? stderr : stdout;

	if (mp->opt.dry_run)
		return;
	if (!mp->undo_path) {
		fprintf(stderr, "%s: warning: running without an undo file\n",
			program_name);
		return;
	}
	fprintf(f, "Overwriting existing filesystem; this can be undone "
		"using the command:\n    e2undo %s %s\n\n", mp->undo_path,
		mp->device);
}

/* One line when the default undo directory had to be made. */
static void print_undo_dir_made(struct e3mp *mp)
{
	if (mp->undo_dir_made)
		fprintf(mp->opt.json ? stderr : stdout,
			"%s: created the undo directory %s\n", program_name,
			mp->undo_dir_made);
}

/* What volume_prepare() was doing at each step, for fail(). */
static const char *const prep_doing[E3MP_PREP_COUNT] = {
	[E3MP_PREP_DEVICE] = "opening",
	[E3MP_PREP_OPEN] = "opening",
	[E3MP_PREP_CHECK] = "checking",
	[E3MP_PREP_SCAN] = "scanning",
	[E3MP_PREP_PLAN] = "planning",
	[E3MP_PREP_PREDICT] = "predicting e2fsck's time on",
	[E3MP_PREP_UNDO] = "sizing the undo file for",
	[E3MP_PREP_TOOL] = "predicting the run's time on",
};

/* Between volume_prepare()'s steps: what this file has to say there. */
static void prepare_step(struct e3mp *mp, enum e3mp_prep_step step,
			 errcode_t err)
{
	if (step == E3MP_PREP_OPEN)
		print_undo_dir_made(mp);
	if (step == E3MP_PREP_CHECK && !err) {
		print_warnings(mp);
		if (mp->opt.progress)
			progress_attach(mp);
	}
}

/* Open, check, scan and plan: everything before the first write. */
static int prepare(struct e3mp *mp)
{
	errcode_t err;

	mp->on_step = prepare_step;
	err = volume_prepare(mp);
	progress_done(mp);
	if (err)
		return fail(mp, err, prep_doing[mp->prep_step]);
	if (mp->opt.debug & E3MP_DEBUG_PLAN)
		report_debug_moves(mp, stderr);
	return 0;
}

/*
 * One step of the write order (core/order.c; write/finish.c says why it
 * is safe): each barrier puts what came before on stable storage.
 */
static errcode_t step_run(struct e3mp *mp, const struct mp_step_at *s)
{
	struct mp_move *mv = mp->plan.mv[s->round];
	__u32 n = mp->plan.nmv[s->round];

	switch (s->step) {
	case MP_STEP_BEGIN:
		return transaction_begin(mp);
	case MP_STEP_RESERVE:
		return blocks_reserve(mp, mv, n);
	case MP_STEP_COPY:
		return blocks_copy(mp, mv, n);
	case MP_STEP_SWITCH:
		return pointers_rewrite(mp, mv, n);
	case MP_STEP_RELEASE:
		blocks_release(mp, mv, n);
		return 0;
	case MP_STEP_BARRIER:
		return write_barrier(mp);
	case MP_STEP_STOP:
		return e3mp_stop ? E3MP_INTERRUPTED : 0;
	case MP_STEP_END:
		return transaction_end(mp);
	}
	return 0;
}

/*
 * The write order, step by step: round 1 empties metacluster slots,
 * round 2 fills them.  A signal between the rounds switches to the
 * order that ends there (after which the run is interrupted).
 */
static errcode_t repack(struct e3mp *mp)
{
	struct mp_step_at s[MP_ORDER_MAX];
	__u32 n, i;
	errcode_t err = 0;
	int stopped = 0;

	if (e3mp_stop)
		return E3MP_INTERRUPTED;
	print_undo_notice(mp);
	n = mp_write_order(mp->plan.nmv, 0, s);
	for (i = 0; i < n && !err; i++) {
		if (s[i].step == MP_STEP_END && !stopped)
			progress_done(mp);
		err = step_run(mp, &s[i]);
		if (err == E3MP_INTERRUPTED && s[i].step == MP_STEP_STOP) {
			n = mp_write_order(mp->plan.nmv, 1, s);
			stopped = 1;
			err = 0;
		}
	}
	return err ? err : stopped ? E3MP_INTERRUPTED : 0;
}

/* A run that did not fail: the report, or why nothing moved. */
static int conclude(struct e3mp *mp, const char *status, int code)
{
	FILE *f = stdout;

	if (mp->opt.json || mp->opt.verbose || mp->opt.dry_run)
		report_print(mp, f, status, code);
	if (!mp->opt.json && code == E3MP_EXIT_NOTHING)
		printf("%s: nothing to do: every indirect block is in its "
		       "metacluster or has no room there\n", volume_label(mp));
	return code;
}

/* The whole pipeline on one filesystem; returns its exit code. */
static int run_volume(const struct e3mp_options *opt, const char *device,
		      const struct e3mp_part *part)
{
	struct e3mp mp;
	errcode_t err;
	int code, moves;

	memset(&mp, 0, sizeof(mp));
	mp.opt = *opt;
	mp.device = device;
	mp.part = part;
	mp.debug_io = (opt->debug & E3MP_DEBUG_IO) ? stderr : NULL;
	code = prepare(&mp);
	if (code)
		goto out;
	moves = mp.plan.nmv[0] + mp.plan.nmv[1];
	if (mp.opt.dry_run || !moves) {
		if (moves)
			code = conclude(&mp, "would_change",
					E3MP_EXIT_CHANGED);
		else
			code = conclude(&mp, "nothing_to_do",
					E3MP_EXIT_NOTHING);
		goto out;
	}
	err = repack(&mp);
	if (err == E3MP_INTERRUPTED && !mp.writes_started) {
		code = fail(&mp, err, "repacking");
	} else if (err == E3MP_INTERRUPTED) {
		fprintf(stderr, "%s: %s: interrupted after the first round; "
			"the volume is consistent and clean: run e3metapack "
			"again to finish%s%s%s%s%s\n", program_name,
			volume_label(&mp),
			mp.undo_path ? ", or undo with 'e2undo " : "",
			mp.undo_path ? mp.undo_path : "",
			mp.undo_path ? " " : "", mp.undo_path ? device : "",
			mp.undo_path ? "'" : "");
		json_failure(&mp, "interrupted", "interrupted",
			     E3MP_EXIT_INTERRUPTED);
		code = E3MP_EXIT_INTERRUPTED;
	} else if (err)
		code = fail(&mp, err, "repacking");
	else
		code = conclude(&mp, "changed", E3MP_EXIT_CHANGED);
out:
	err = volume_close(&mp, code != E3MP_EXIT_CHANGED &&
				 code != E3MP_EXIT_NOTHING);
	if (err && code == E3MP_EXIT_CHANGED)
		code = fail(&mp, err, "closing");
	undo_discard_unused(&mp);
	return code;
}

/* Of two partitions' exit codes, the one that tells more. */
static int worse(int a, int b)
{
	static const int rank[] = { [E3MP_EXIT_NOTHING] = 0,
		[E3MP_EXIT_CHANGED] = 1, [E3MP_EXIT_REFUSED] = 2,
		[E3MP_EXIT_ERROR] = 3, [E3MP_EXIT_PARTIAL] = 4,
		[E3MP_EXIT_INTERRUPTED] = 5 };

	if (a < 0)
		return b;
	return rank[b] > rank[a] ? b : a;
}

/* A whole-disk image: each ext2/3/4 partition in turn. */
static int run_partitions(const struct e3mp_options *opt, const char *dev,
			  const struct e3mp_part *p, int n)
{
	struct e3mp shown = { .opt = *opt, .device = dev };
	int i, code = -1;

	for (i = 0; i < n && !e3mp_stop; i++) {
		const char *skip = partition_skip_reason(&p[i]);

		if (opt->partition && p[i].partno != opt->partition)
			continue;
		shown.part = &p[i];
		if (p[i].refusal)
			code = worse(code, fail(&shown, p[i].refusal, ""));
		else if (skip) {
			if (!opt->json)
				printf("%s: skipped (%s%s%s)\n",
				       volume_label(&shown), skip,
				       p[i].type[0] ? ": " : "", p[i].type);
			json_failure(&shown, "skipped", skip, 0);
		} else
			code = worse(code, run_volume(opt, dev, &p[i]));
	}
	if (code < 0) {
		shown.part = NULL;
		code = fail(&shown, E3MP_NO_EXT_PARTITION, "");
	}
	return code;
}

/*
 * glibc raises its mmap threshold to the size of any mapped chunk freed
 * (up to 32 MiB), for good.  The scan frees its 16 MiB read-ahead cache
 * (prefetch.c); from then on the plan's arrays, grown by realloc() while
 * the copies are made, would come from the heap, copied at each growth
 * and left fragmented: 256 GiB bench/scale volume, peak RSS 29.6 MiB
 * against 24.2 MiB with the threshold fixed.  Fixing it at glibc's
 * default start value keeps big arrays mapped, grown by mremap().
 */
static void malloc_tune(void)
{
#ifdef M_MMAP_THRESHOLD
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
}

int main(int argc, char **argv)
{
	struct e3mp_options opt;
	struct e3mp_part *parts = NULL;
	const char *device = NULL;
	__u64 size = 0;
	int nparts = 0, code;
	errcode_t err;

	malloc_tune();
	add_error_table(&et_ext2_error_table);
	add_error_table(&et_e3mp_error_table);
	if (parse_args(argc, argv, &opt)) {
		if (opt.bad)
			fprintf(stderr, "%s: invalid %s\n", program_name,
				opt.bad);
		usage(stderr);
		exit(E3MP_EXIT_USAGE);
	}
	if (opt.help || opt.version) {
		if (opt.help)
			usage(stdout);
		else
			print_version();
		exit(EXIT_SUCCESS);	/* not a run: no E3MP_EXIT_* applies */
	}
	catch_signals();
	err = resolve_device(opt.spec, &device);
	if (!err)
		err = volume_lock(device, opt.dry_run, &lock);
	if (!err)
		err = partitions_probe(device, &parts, &nparts, &size);
	if (err) {
		struct e3mp shown = { .opt = opt, .device = device };

		exit(fail(&shown, err, "opening"));
	}
	if (nparts)
		code = run_partitions(&opt, device, parts, nparts);
	else
		code = run_volume(&opt, device, NULL);
	ext2fs_free_mem(&parts);
	return code;
}
