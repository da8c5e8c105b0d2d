#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t0280-bitmap-writes: a run writes a group's block bitmap only when that
# group's bitmap changes (src/io/bitmapio.c).  libext2fs writes every
# group's block bitmap at each barrier that changed any; on volumes of
# many groups where the moves touch a few, those writes were a sweep of
# the disk per barrier.  From the tool's own pwrite64 calls (strace) on
# a real run with an undo file: no block bitmap of a group that no
# planned move (`-d 1`: round, source, destination) reads from or writes
# into is written, and no group's more often than the three bitmap
# barriers; every bitmap that differs afterwards was written.  Then the
# volume is fsck-clean with its contents unchanged, and e2undo gives
# back the original image byte for byte.  A run that lets libext2fs
# write every bitmap fails the first check on each case.
#
# Case variables: mkimg's (tests/mkimg.sh), and ARGS for e3metapack.

# shellcheck source=tests/lib.sh disable=SC2031,SC2119
. "${0%/*}/lib.sh"
need_tool
need_manifest
need strace e2undo dumpe2fs cmp awk

CASES='
name=ext3-1k-tind     BS=1024 FSTYPE=ext3           PROFILE=tind  SIZE=64M GPB=2048
name=e4csum-2k-aged   BS=2048 FSTYPE=ext4noext-csum PROFILE=aged  SIZE=128M GPB=4096
name=ext3-1k-dirs     BS=1024 FSTYPE=ext3           PROFILE=dirs  SIZE=64M GPB=4096
'

# touched_groups IMG OUT: the groups a planned move reads from or
# writes into, one per line, from the dry run's `-d 1` lines ("round R:
# KIND ino I level L: FROM -> TO").
touched_groups() {
	local first per
	first=$(sb_field "$1" 'First block')
	per=$(sb_field "$1" 'Blocks per group')
	run_tool -n -d 1 "$1"
	expect_exit 0
	awk -v f="$first" -v p="$per" '/^round [12]: / && $(NF - 1) == "->" {
		print int(($(NF - 2) - f) / p); print int(($NF - f) / p) }' \
		"$RUN_ERR" "$RUN_OUT" | sort -un >"$2"
}

# bitmap_writes TRACE BS: "BLOCK TIMES" for every block written alone.
bitmap_writes() {
	awk -v bs="$2" -F', ' '/pwrite64\([0-9]+<[^>]*\/img>/ {
		split($NF, r, " = "); if (r[2] == bs) n[int(r[1] / bs)]++ }
		END { for (b in n) print b, n[b] }' "$1" | sort -n
}

bitmap_case() {
	local img=$RUN_DIR/img orig=$RUN_DIR/orig undo=$RUN_DIR/undo
	local groups moved stray most missed
	mkimg "$img"
	make_manifest "$img" "$RUN_DIR/man"
	cp "$img" "$orig"
	block_bitmaps "$img" >"$RUN_DIR/bitmaps"
	groups=$(wc -l <"$RUN_DIR/bitmaps")
	touched_groups "$img" "$RUN_DIR/touched"
	moved=$(wc -l <"$RUN_DIR/touched")
	[ "$moved" -gt 0 ] && [ "$moved" -lt "$groups" ] ||
		fail "moves touch $moved of $groups groups: no test"

	check "the run writes no block bitmap of a group no move touches"
	# (LeakSanitizer cannot run under ptrace: in the sanitizer tier,
	# leaks are checked by every other run of the tool)
	# shellcheck disable=SC2086
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -qq -y -e trace=pwrite64 -o "$RUN_DIR/trace" \
		"$E3MP" -z "$undo" ${ARGS:-} "$img" >"$RUN_DIR/out" 2>&1 ||
		{ cat "$RUN_DIR/out" >&2; fail "e3metapack under strace failed"; }
	bitmap_writes "$RUN_DIR/trace" "$BS" >"$RUN_DIR/writes"
	stray=$(awk 'FILENAME == ARGV[1] { t[$1] = 1; next }
		     FILENAME == ARGV[2] { w[$1] = $2; next }
		     !($1 in t) && ($2 in w) { print $1 }' \
		"$RUN_DIR/touched" "$RUN_DIR/writes" "$RUN_DIR/bitmaps")
	info "$groups groups, $moved touched by moves; bitmap writes:" \
	     "$(awk 'NR == FNR { b[$2] = 1; next } ($1 in b) { n += $2 }
		     END { print n + 0 }' "$RUN_DIR/bitmaps" "$RUN_DIR/writes")"
	[ -z "$stray" ] || fail "bitmaps of untouched groups written:" $stray

	check "no bitmap is written more often than the three bitmap barriers"
	most=$(awk 'NR == FNR { b[$2] = 1; next } ($1 in b) && $2 > m {
		m = $2 } END { print m + 0 }' "$RUN_DIR/bitmaps" "$RUN_DIR/writes")
	[ "$most" -le 3 ] || fail "a block bitmap written $most times"

	check "every bitmap that changed was written"
	missed=$(while read -r g b _; do
		cmp -s <(dd if="$orig" bs="$BS" skip="$b" count=1 2>/dev/null) \
		       <(dd if="$img" bs="$BS" skip="$b" count=1 2>/dev/null) ||
		grep -q "^$b " "$RUN_DIR/writes" || echo "$g"
	done <"$RUN_DIR/bitmaps")
	[ -z "$missed" ] || fail "changed but not written: groups" $missed

	check "the volume is clean, its contents unchanged"
	fsck_clean "$img"
	same_content "$RUN_DIR/man" "$img"

	check "e2undo gives back the original image"
	undo_restores "$undo" "$img" "$orig"
}

run_cases bitmap_case "$CASES"
