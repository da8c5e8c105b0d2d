/*
 * main.c --- e3metapack: pack indirect blocks into per-group metaclusters
 *
 * The pipeline, in order:
 *   parse_args          command line
 *   resolve_device      LABEL=/UUID= through libblkid
 *   check_device        an ext2/3/4 filesystem, not mounted or busy
 *   open_volume         with the undo file stacked under it
 *   check_volume        clean, freshly checked, supported features
 *   inode_scan_and_record   every indirect block, checked for sanity
 *   layout_plan         metaclusters, destinations, evacuations
 *   transaction_begin   mark not clean
 *   round_run x2        reserve, copy, switch pointers, release
 *   transaction_end     mark clean
 * Only this file prints errors or exits.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <et/com_err.h>

#include "e3metapack.h"

volatile sig_atomic_t e3mp_stop;

static const char *program_name = "e3metapack";

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

static int is_refusal(errcode_t err)
{
	return err >= E3MP_NOT_EXT && err < E3MP_LAST_REFUSAL;
}

/* Refusals an e2fsck run clears. */
static int needs_fsck(errcode_t err)
{
	return (err >= E3MP_NOT_CHECKED && err <= E3MP_ORPHANS) ||
	       (err >= E3MP_BAD_POINTER && err <= E3MP_INODE_FREE);
}

static void print_refusal(struct e3mp *mp, errcode_t err)
{
	const char *dev = mp->device ? mp->device : mp->opt.spec;

	fprintf(stderr, "%s: %s: ", program_name, dev);
	if (err >= E3MP_BAD_POINTER && err <= E3MP_DUP_BLOCK)
		fprintf(stderr, "inode %u, block %llu: ", mp->err_ino,
			(unsigned long long) mp->err_blk);
	else if (err == E3MP_INODE_FREE)
		fprintf(stderr, "inode %u: ", mp->err_ino);
	fputs(error_message(err), stderr);
	if (err == E3MP_UNSUPP_FEATURE)
		fprintf(stderr, ": %s", mp->err_what);
	if (needs_fsck(err))
		fprintf(stderr, ". Please run 'e2fsck -f %s' first.", dev);
	fputc('\n', stderr);
}

static void print_undo_hint(struct e3mp *mp)
{
	if (mp->undo_path)
		fprintf(stderr, "The volume is consistent.  Run e3metapack "
			"again to finish, or undo everything with:\n"
			"    e2undo %s %s\n", mp->undo_path, mp->device);
	else
		fprintf(stderr, "The volume is consistent.  Run e3metapack "
			"again to finish, then 'e2fsck -f %s'.\n", mp->device);
}

/* Print what went wrong; return the exit code that says so. */
static int fail(struct e3mp *mp, errcode_t err, const char *doing)
{
	const char *dev = mp->device ? mp->device : mp->opt.spec;

	if (is_refusal(err)) {
		print_refusal(mp, err);
		return E3MP_EXIT_REFUSED;
	}
	if (err == E3MP_INTERRUPTED && !mp->writes_started) {
		fprintf(stderr, "%s: %s: interrupted; nothing was written\n",
			program_name, dev);
		return E3MP_EXIT_INTERRUPTED;
	}
	if (mp->err_what && (err < E3MP_NOT_EXT || err > E3MP_POINTER_LOST))
		com_err(program_name, err, "while %s block %llu of %s",
			mp->err_what, (unsigned long long) mp->err_blk, dev);
	else
		com_err(program_name, err, "while %s %s", doing, dev);
	if (!mp->writes_started)
		return E3MP_EXIT_ERROR;
	print_undo_hint(mp);
	return E3MP_EXIT_PARTIAL;
}

static void print_warnings(struct e3mp *mp)
{
	int i;

	for (i = 0; i < mp->nwarn; i++)
		fprintf(stderr, "%s: %s: warning: %s; the report may be "
			"inaccurate\n", program_name, mp->device,
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

/* Open, check, scan and plan: everything before the first write. */
static int prepare(struct e3mp *mp)
{
	errcode_t err;

	err = resolve_device(mp);
	if (!err)
		err = check_device(mp);
	if (err)
		return fail(mp, err, "opening");
	err = open_volume(mp);
	if (err)
		return fail(mp, err, "opening");
	err = check_volume(mp);
	if (err)
		return fail(mp, err, "checking");
	print_warnings(mp);
	layout_geometry(mp);
	if (mp->opt.progress)
		progress_attach(mp);
	err = inode_scan_and_record(mp);
	if (!err)
		err = layout_plan(mp);
	progress_done(mp);
	if (err)
		return fail(mp, err, mp->nrec ? "planning" : "scanning");
	if (mp->opt.debug & E3MP_DEBUG_PLAN)
		report_debug_moves(mp, stderr);
	return 0;
}

static errcode_t repack(struct e3mp *mp)
{
	errcode_t err;

	print_undo_notice(mp);
	err = transaction_begin(mp);
	if (!err)
		err = round_run(mp, mp->plan.mv[0], mp->plan.nmv[0]);
	if (!err && e3mp_stop && mp->plan.nmv[1]) {
		err = transaction_end(mp);
		return err ? err : E3MP_INTERRUPTED;
	}
	if (!err)
		err = round_run(mp, mp->plan.mv[1], mp->plan.nmv[1]);
	progress_done(mp);
	if (!err)
		err = transaction_end(mp);
	return err;
}

static int finish(struct e3mp *mp, const char *status, int code)
{
	FILE *f = stdout;

	if (mp->opt.json || mp->opt.verbose || mp->opt.dry_run)
		report_print(mp, f, status, code);
	if (!mp->opt.json && code == E3MP_EXIT_NOTHING)
		printf("%s: nothing to do: every indirect block is in its "
		       "metacluster or has no room there\n", mp->device);
	return code;
}

int main(int argc, char **argv)
{
	struct e3mp mp;
	errcode_t err;
	int code;

	memset(&mp, 0, sizeof(mp));
	add_error_table(&et_ext2_error_table);
	add_error_table(&et_e3mp_error_table);
	if (parse_args(argc, argv, &mp.opt)) {
		if (mp.opt.bad)
			fprintf(stderr, "%s: invalid %s\n", program_name,
				mp.opt.bad);
		usage(stderr);
		exit(E3MP_EXIT_USAGE);
	}
	if (mp.opt.help || mp.opt.version) {
		if (mp.opt.help)
			usage(stdout);
		else
			print_version();
		exit(E3MP_EXIT_CHANGED);
	}
	catch_signals();
	code = prepare(&mp);
	if (code)
		goto out;
	if (mp.opt.dry_run || !(mp.plan.nmv[0] + mp.plan.nmv[1])) {
		code = mp.plan.nmv[0] + mp.plan.nmv[1] ?
			E3MP_EXIT_CHANGED : E3MP_EXIT_NOTHING;
		code = finish(&mp, code ? "nothing_to_do" : "would_change",
			      code);
		goto out;
	}
	err = repack(&mp);
	if (err == E3MP_INTERRUPTED) {
		fprintf(stderr, "%s: %s: interrupted after the first round\n",
			program_name, mp.device);
		print_undo_hint(&mp);
		code = E3MP_EXIT_INTERRUPTED;
	} else if (err)
		code = fail(&mp, err, "repacking");
	else
		code = finish(&mp, "changed", E3MP_EXIT_CHANGED);
out:
	volume_close(&mp);
	undo_discard_unused(&mp);
	return code;
}
