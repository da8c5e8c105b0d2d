/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_errclass.c --- every e3mp error code has exactly one class
 *
 * main.c takes a code's exit status and message shape from the table in
 * src/errclass.c; a code added to src/e3mp_err.et without an entry there
 * would be reported as a plain failure.  This walks the com_err table
 * (E3MP_NOT_EXT to its last code) and checks each code against it.
 *
 * Output: one "ok N - name" or "not ok N - name: why" line per case,
 * then "1..N"; the exit status is 0 only if every case passed.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <et/com_err.h>
#include <ext2fs/ext2_err.h>

#include "e3mp_err.h"
#include "errclass.h"
#include "unit.h"

static long first_code(void)
{
	return et_e3mp_error_table.base;
}

static long last_code(void)
{
	return et_e3mp_error_table.base + et_e3mp_error_table.n_msgs - 1;
}

static int each_code_once(void)
{
	long c;
	unsigned int i, hits;

	EXPECT(first_code() == E3MP_NOT_EXT, "table does not start at "
	       "E3MP_NOT_EXT");
	for (c = first_code(); c <= last_code(); c++) {
		for (hits = 0, i = 0; i < e3mp_nerrinfo; i++)
			hits += e3mp_errinfo[i].code == c;
		EXPECT(hits == 1, "%s: %u entries in errclass.c",
		       error_message(c), hits);
	}
	return 0;
}

static int no_stray_entry(void)
{
	unsigned int i;

	for (i = 0; i < e3mp_nerrinfo; i++) {
		errcode_t c = e3mp_errinfo[i].code;

		EXPECT(c >= first_code() && c <= last_code(),
		       "entry %u: code %ld is not in e3mp_err.et", i, (long) c);
	}
	return 0;
}

static int each_has_a_class(void)
{
	long c;

	for (c = first_code(); c <= last_code(); c++) {
		enum e3mp_errclass k = errclass_of(c);

		EXPECT(k == E3MP_CLASS_REFUSAL || k == E3MP_CLASS_FSCK ||
		       k == E3MP_CLASS_FAILURE || k == E3MP_CLASS_INTERNAL,
		       "%s: no class", error_message(c));
	}
	return 0;
}

/* Internal errors say so; nothing else does. */
static int internal_says_so(void)
{
	long c;

	for (c = first_code(); c <= last_code(); c++) {
		int said = !strncmp(error_message(c), "internal error:", 15);

		EXPECT(said == (errclass_of(c) == E3MP_CLASS_INTERNAL),
		       "%s: class %d", error_message(c), errclass_of(c));
	}
	return 0;
}

/* What a refusal's message names only makes sense for a refusal. */
static int details_only_on_refusals(void)
{
	unsigned int i;

	for (i = 0; i < e3mp_nerrinfo; i++)
		EXPECT(!e3mp_errinfo[i].show ||
		       errclass_is_refusal(e3mp_errinfo[i].code),
		       "%s: details on a non-refusal",
		       error_message(e3mp_errinfo[i].code));
	return 0;
}

static int others_are_not_ours(void)
{
	EXPECT(errclass_find(0) == NULL, "0 has an entry");
	EXPECT(errclass_of(EXT2_ET_BLOCK_ALLOC_FAIL) == E3MP_CLASS_NONE,
	       "a libext2fs code has a class");
	EXPECT(errclass_of(EIO) == E3MP_CLASS_NONE, "EIO has a class");
	EXPECT(!errclass_is_refusal(last_code() + 1), "past the table");
	return 0;
}

/* Spot checks of what main.c relies on. */
static int known_classes(void)
{
	EXPECT(errclass_of(E3MP_NOT_EXT) == E3MP_CLASS_REFUSAL, "NOT_EXT");
	EXPECT(errclass_of(E3MP_NOT_CHECKED) == E3MP_CLASS_FSCK,
	       "NOT_CHECKED");
	EXPECT(errclass_of(E3MP_UNDO_NO_SPACE) == E3MP_CLASS_REFUSAL,
	       "UNDO_NO_SPACE");
	EXPECT(errclass_of(E3MP_INTERRUPTED) == E3MP_CLASS_FAILURE,
	       "INTERRUPTED");
	EXPECT(errclass_of(E3MP_PLAN_NO_SPACE) == E3MP_CLASS_INTERNAL,
	       "PLAN_NO_SPACE");
	return 0;
}

int main(void)
{
	add_error_table(&et_e3mp_error_table);
	run("every e3mp code has exactly one entry", each_code_once);
	run("every entry is an e3mp code", no_stray_entry);
	run("every e3mp code has a class", each_has_a_class);
	run("internal errors, and only they, say so", internal_says_so);
	run("message details only on refusals", details_only_on_refusals);
	run("codes of other tables have no class", others_are_not_ours);
	run("the classes main.c relies on", known_classes);
	return unit_done();
}
