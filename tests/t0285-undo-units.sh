#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t0285-undo-units: what a run with an undo file reads and writes for
# the undo manager's sake (src/io/bitmapio.c, src/write/finish.c).
#
# Before its first write into a unit, the undo manager reads the whole
# unit to save it.  A block bitmap's unit also holds blocks the run has
# no other reason to read, so each save would be a positioning of its
# own just before the barrier's sweep of writes.  The run reads each
# block bitmap with its whole unit when it opens the volume; from the
# tool's own pread64 calls (strace): each block bitmap block is first
# read in one request that is exactly its 32 KiB unit, and after the
# first write no read reaches a block of such a unit for the first time.
#
# The pointer switch changes neither bitmaps nor counts, so its barrier
# is a sync alone, unless it changes the journal inode's own pointers
# (the superblock keeps a copy): of the barriers (fsync of the image),
# as many write no superblock as the plan (`-d 1`) has rounds that do
# not move a block the journal inode names itself.  Then the volume is fsck-clean with its contents unchanged,
# and e2undo gives back the original image byte for byte.  The binary
# before these changes (commit 3468451) fails the first check.
#
# Case variables: mkimg's (tests/mkimg.sh), and ARGS for e3metapack.

# shellcheck source=tests/lib.sh disable=SC2031,SC2119
. "${0%/*}/lib.sh"
need_tool
need_manifest
need strace e2undo dumpe2fs debugfs cmp awk

UNIT=32768

CASES='
name=ext3-1k-mixed    BS=1024 FSTYPE=ext3           PROFILE=mixed SIZE=64M
name=e4csum-2k-aged   BS=2048 FSTYPE=ext4noext-csum PROFILE=aged  SIZE=128M GPB=4096
name=ext3-4k-mixed    BS=4096 FSTYPE=ext3           PROFILE=mixed SIZE=256M
'

# image_io TRACE: "N OP OFFSET LENGTH" for the image's pread64, pwrite64
# and fsync calls, in order (fsync: 0 0).
image_io() {
	awk -F', ' '/^(pread64|pwrite64|fsync)\([0-9]+<[^>]*\/img>/ {
		op = $1; sub(/\(.*/, "", op)
		if (op == "fsync") { print ++n, op, 0, 0; next }
		split($NF, r, " = "); off = r[1]; sub(/\).*/, "", off)
		print ++n, op, off + 0, r[2] + 0 }' "$1"
}

# journal_tops IMG: the blocks the journal inode names itself (its IND,
# DIND, TIND), one per line.
journal_tops() {
	debugfs -R 'stat <8>' "$1" 2>/dev/null |
		grep -oE '\((IND|DIND|TIND)\):[0-9]+' | head -n 3 |
		sed 's/.*://'
}

units_case() {
	local img=$RUN_DIR/img orig=$RUN_DIR/orig undo=$RUN_DIR/undo
	local io=$RUN_DIR/io rounds jrounds bad plain
	mkimg "$img"
	make_manifest "$img" "$RUN_DIR/man"
	cp "$img" "$orig"
	# (a BLOCK_UNINIT group's bitmap is not read)
	block_bitmaps "$img" | awk '!$3 { print $2 }' >"$RUN_DIR/bitmaps"
	[ -s "$RUN_DIR/bitmaps" ] || fail "no block bitmaps found"
	run_tool -n -d 1 "$img"
	expect_exit 0
	cat "$RUN_ERR" "$RUN_OUT" >"$RUN_DIR/plan"
	rounds=$(grep -oE '^round [12]:' "$RUN_DIR/plan" | sort -u | wc -l)
	[ "$rounds" -gt 0 ] || fail "nothing to move: no test"
	journal_tops "$img" >"$RUN_DIR/jtops"
	# the rounds that move a block the journal inode itself names (a
	# block round 1 parks is named by it still in round 2)
	jrounds=$(awk 'NR == FNR { t[$1] = 1; next }
		/^round [12]: / && / ino 8 level / && $(NF - 1) == "->" &&
		($(NF - 2) in t) { r[$2] = 1; t[$NF] = 1 }
		END { print length(r) }' "$RUN_DIR/jtops" "$RUN_DIR/plan")

	# (LeakSanitizer cannot run under ptrace: in the sanitizer tier,
	# leaks are checked by every other run of the tool)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -qq -y -e trace=pread64,pwrite64,fsync -o "$RUN_DIR/trace" \
		"$E3MP" -z "$undo" ${ARGS:-} "$img" >"$RUN_DIR/out" 2>&1 ||
		{ cat "$RUN_DIR/out" >&2; fail "e3metapack under strace failed"; }
	image_io "$RUN_DIR/trace" >"$io"

	check "each block bitmap is first read with its whole undo unit"
	bad=$(awk -v bs="$BS" -v u="$UNIT" '
		NR == FNR { want[$1] = 1; next }
		$2 == "pread64" {
			for (b = int($3 / bs); b * bs < $3 + $4; b++)
				if ((b in want) && !(b in seen)) {
					seen[b] = 1
					if ($3 != int(b * bs / u) * u || $4 != u)
						print b ":" $3 "+" $4
				}
		}
		END { for (b in want) if (!(b in seen)) print b ":unread" }' \
		"$RUN_DIR/bitmaps" "$io" | head -n 5)
	info "$(wc -l <"$RUN_DIR/bitmaps") block bitmaps," \
	     "$rounds round(s), $jrounds moving the journal's own"
	[ -z "$bad" ] || fail "bitmap blocks read otherwise (block:request):" \
		$bad

	check "after the first write, no read reaches a bitmap's unit anew"
	bad=$(awk -v bs="$BS" -v u="$UNIT" '
		NR == FNR { unit[int($1 * bs / u)] = 1; next }
		$2 == "pwrite64" { wrote = 1 }
		$2 == "pread64" {
			for (b = int($3 / bs); b * bs < $3 + $4; b++) {
				if (wrote && !(b in seen) &&
				    (int(b * bs / u) in unit))
					print b
				seen[b] = 1
			}
		}' "$RUN_DIR/bitmaps" "$io" | head -n 5)
	[ -z "$bad" ] || fail "read first after the first write:" $bad

	check "one barrier a round writes no superblock, bar the journal's"
	plain=$(awk '
		$2 == "pwrite64" && $3 == 1024 && $4 == 1024 { sb = 1 }
		$2 == "pwrite64" { w = 1 }
		$2 == "fsync" { if (w && !sb) n++; sb = w = 0 }
		END { print n + 0 }' "$io")
	info "$(grep -c ' fsync ' "$io") barriers, $plain without" \
	     "a superblock write"
	[ "$plain" -eq $((rounds - jrounds)) ] ||
		fail "$plain barriers without a superblock write, $rounds" \
		     "rounds, $jrounds moving the journal inode's pointers"

	check "the volume is clean, its contents unchanged"
	fsck_clean "$img"
	same_content "$RUN_DIR/man" "$img"

	check "e2undo gives back the original image"
	undo_restores "$undo" "$img" "$orig"
}

run_cases units_case "$CASES"
