#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t0250-debug: -d 0x2 traces the copies, one line per batch, on stderr:
# on a real run every planned move (-d 0x1 prints one line each) is
# copied in exactly one batch line's blocks, each batch needing no more
# read or write requests than blocks; a dry run copies nothing and
# prints none; and the trace changes nothing else: the image and stdout
# are those of the same run without -d.
#
# Case variables: mkimg's (tests/mkimg.sh).

# shellcheck source=tests/lib.sh disable=SC2031,SC2119
. "${0%/*}/lib.sh"
need_tool
need cmp awk

CASES='
name=ext3-1k-mixed BS=1024 FSTYPE=ext3 PROFILE=mixed SIZE=64M
name=e4nf-4k-mixed BS=4096 FSTYPE=ext4noext-flex PROFILE=mixed SIZE=128M GPB=8192
'

N='[0-9]+'
BATCH="^copy batch: $N blocks, $N reads, $N writes,"
BATCH+=" from $N\\.\\.$N to $N\\.\\.$N\$"

debug_case() {
	local img=$RUN_DIR/img plain=$RUN_DIR/plain.img moves copied bad

	mkimg "$img"
	cp --sparse=always "$img" "$plain"

	check "a dry run prints no copy batch"
	run_tool -n -d 0x2 "$img"
	expect_exit 0
	expect_stderr_nogrep '^copy batch:'

	check "each planned move is copied in one batch line"
	run_tool -z none -d 0x3 "$img"
	expect_exit 0
	moves=$(grep -Ec '^round [12]: ' "$RUN_ERR" || true)
	[ "$moves" -gt 0 ] || fail "-d 0x1 listed no planned move"
	expect_stderr_grep "$BATCH"
	bad=$(grep '^copy batch:' "$RUN_ERR" | grep -Evc "$BATCH" || true)
	[ "$bad" = 0 ] || fail "$bad malformed copy batch lines"
	copied=$(awk '/^copy batch:/ { n += $3 } END { print n + 0 }' \
		"$RUN_ERR")
	[ "$copied" = "$moves" ] ||
		fail "batches copied $copied blocks, the plan has $moves moves"
	awk '/^copy batch:/ && ($5 > $3 || $7 > $3) { exit 1 }' "$RUN_ERR" ||
		fail "a batch made more requests than it has blocks"
	info "$moves moves in $(grep -c '^copy batch:' "$RUN_ERR") batches"
	cp "$RUN_OUT" "$RUN_DIR/debug.out"
	fsck_clean "$img"

	check "the same run without -d writes the same image and stdout"
	run_tool -z none "$plain"
	expect_exit 0
	cmp "$img" "$plain" >&2 || fail "-d 0x3 changed what was written"
	cmp "$RUN_DIR/debug.out" "$RUN_OUT" >&2 || fail "-d 0x3 changed stdout"
}

run_cases debug_case "$CASES"
