/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * prepare.c --- everything before the first write, as one call
 *
 * e3metapack (main.c) and the fuzz target (tests/fuzz/fuzz_scan.c) run
 * the same steps, in the same order, so that what is fuzzed is what
 * runs: a step added here is a step both get.  The core prints nothing:
 * mp->prep_step says which step failed, and mp->on_step, if set, is
 * called after each step so that main.c can print what belongs between
 * them (the undo directory it made, the warnings of a dry run) where it
 * always has.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "e3metapack.h"
#include "gate/dircheck.h"

/* Record @step as reached, tell the caller, hand @err on. */
static errcode_t step_done(struct e3mp *mp, enum e3mp_prep_step step,
			   errcode_t err)
{
	mp->prep_step = step;
	if (mp->on_step)
		mp->on_step(mp, step, err);
	return err;
}

/*
 * The scan, the group counts it lets us check, then the directories'
 * walk order (which checks the directory blocks as it reads them).
 */
static errcode_t scan_volume(struct e3mp *mp)
{
	errcode_t err = inode_scan_and_record(mp);

	if (!err)
		err = group_counts_check(mp);
	return err ? err : dirs_walk_order(mp);
}

errcode_t volume_prepare(struct e3mp *mp)
{
	errcode_t err;

	err = step_done(mp, E3MP_PREP_DEVICE, check_device(mp));
	if (!err)
		err = step_done(mp, E3MP_PREP_OPEN, open_volume(mp));
	if (!err)
		err = step_done(mp, E3MP_PREP_CHECK, check_volume(mp));
	if (err)
		return err;
	planfeed_geometry(mp);
	/* a failed read of an indirect block may not reach the scan */
	err = step_done(mp, E3MP_PREP_SCAN,
			io_checked(mp, scan_volume(mp)));
	/* (planning works on the bitmaps in memory: no I/O to check) */
	if (!err)
		err = step_done(mp, E3MP_PREP_PLAN, planfeed_plan(mp));
	if (!err)
		err = step_done(mp, E3MP_PREP_PREDICT,
				io_checked(mp, predict_fsck(mp)));
	if (!err)
		err = step_done(mp, E3MP_PREP_UNDO, undo_space_check(mp));
	/* (after the undo step: the undo unit shapes the run's reads) */
	if (!err)
		err = step_done(mp, E3MP_PREP_TOOL, predict_tool(mp));
	return err;
}
