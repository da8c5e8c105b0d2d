#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t0500-partitions: whole-disk images.  An MBR and a GPT image, each with
# two ext3 partitions and a swap partition: a dry run reports one JSON
# line per partition; a real run repacks both ext3 partitions (each
# e2fsck-clean and with its manifest unchanged, read through libext2fs's
# "?offset=" syntax), skips the swap one, a second run has nothing to
# do, and e2undo with the per-partition undo files gives back the whole
# image byte for byte.  --partition picks one; a table whose partitions
# overlap or run past the end is refused, the image untouched.
#
# Case variables: LABEL (dos or gpt).

# shellcheck source=tests/lib.sh
. "${0%/*}/lib.sh"
need_tool
need_manifest
need sfdisk mkswap e2undo cmp

CASES='
name=mbr LABEL=dos
name=gpt LABEL=gpt
'

MIB=1048576

# build_disk DISK: partitions at 1, 41 and 81 MiB (40, 40 and 8 MiB).
build_disk() {
	local disk=$1 type=83 n
	[ "$LABEL" = gpt ] && type=L
	truncate -s 96M "$disk"
	printf 'label: %s\n1MiB,40MiB,%s\n,40MiB,%s\n,8MiB,%s\n' \
		"$LABEL" "$type" "$type" "$type" | sfdisk -q "$disk" ||
		fail "sfdisk failed"
	for n in 1 2; do
		BS=1024 FSTYPE=ext3 PROFILE=mixed SIZE=40M \
			mkimg "$RUN_DIR/p$n.img"
		make_manifest "$RUN_DIR/p$n.img" "$RUN_DIR/p$n.manifest"
		dd if="$RUN_DIR/p$n.img" of="$disk" bs=$MIB \
			seek=$((1 + (n - 1) * 40)) conv=notrunc,sparse \
			status=none
		rm -f "$RUN_DIR/p$n.img"
	done
	truncate -s 8M "$RUN_DIR/swap"
	mkswap -q "$RUN_DIR/swap" >/dev/null
	dd if="$RUN_DIR/swap" of="$disk" bs=$MIB seek=81 conv=notrunc \
		status=none
}

part() {	# part N: the image as libext2fs opens partition N
	echo "$DISK?offset=$(((1 + ($1 - 1) * 40) * MIB))"
}

# jline N FIELD: FIELD of the JSON line about partition N
jline() {
	jq -r "select(.partition == $1) | .$2" "$RUN_OUT"
}

check_dry_run() {
	local n
	run_tool -n --json "$DISK"
	expect_exit 0
	expect_unchanged "$DISK"
	[ "$(jq -s length "$RUN_OUT")" = 3 ] ||
		fail "expected 3 JSON lines, got: $RUN_STDOUT"
	for n in 1 2; do
		[ "$(jline $n status)" = would_change ] ||
			fail "partition $n: status $(jline $n status)"
		[ "$(jline $n offset)" = $(((1 + (n - 1) * 40) * MIB)) ] ||
			fail "partition $n: offset $(jline $n offset)"
	done
	[ "$(jline 3 status)" = skipped ] ||
		fail "partition 3 (swap) not skipped: $(jline 3 status)"
}

check_repack() {
	local n undo=$RUN_DIR/u.e2undo
	run_tool -z "$undo" --json "$DISK"
	expect_exit 0
	for n in 1 2; do
		[ "$(jline $n status)" = changed ] ||
			fail "partition $n: status $(jline $n status)"
		[ "$(jline $n undo_file)" = "$RUN_DIR/u-p$n.e2undo" ] ||
			fail "partition $n: undo file $(jline $n undo_file)"
		[ "$(jline $n after.in_metacluster)" = \
		  "$(jline $n indirect.total)" ] ||
			fail "partition $n: not every indirect block packed"
		fsck_clean "$(part $n)"
		same_content "$RUN_DIR/p$n.manifest" "$(part $n)"
	done
	cmp -s -n $((81 * MIB)) -i $((81 * MIB)) "$DISK" "$RUN_DIR/orig" ||
		fail "the swap partition or the space after it changed"
	record_sha "$DISK"
	run_tool -z none "$DISK"
	expect_exit 1
	expect_unchanged "$DISK"
	e2undo "$RUN_DIR/u-p2.e2undo" "$DISK" >/dev/null ||
		fail "e2undo of partition 2 failed"
	e2undo "$RUN_DIR/u-p1.e2undo" "$DISK" >/dev/null ||
		fail "e2undo of partition 1 failed"
	cmp "$DISK" "$RUN_DIR/orig" || fail "e2undo did not restore $DISK"
}

check_one_partition() {
	run_tool --partition=2 -z "$RUN_DIR/one.e2undo" --json "$DISK"
	expect_exit 0
	[ "$(jq -s length "$RUN_OUT")" = 1 ] && [ "$(jline 2 status)" = changed ] ||
		fail "--partition=2 did not process partition 2 alone"
	[ -e "$RUN_DIR/one.e2undo" ] || fail "--partition=2: undo file renamed"
	cmp -s -n $((40 * MIB)) "$DISK" "$RUN_DIR/orig" ||
		fail "--partition=2 changed partition 1"
	fsck_clean "$(part 2)"
}

# mbr_entry SLOT START_SECTOR SECTORS: a raw MBR entry, type 0x83.
mbr_entry() {
	local off=$((446 + 16 * ($1 - 1)))
	printf "$(printf '\\x00\\x00\\x00\\x00\\x83\\x00\\x00\\x00\\x%02x\\x%02x\\x%02x\\x%02x\\x%02x\\x%02x\\x%02x\\x%02x' \
		$(($2 & 255)) $(($2 >> 8 & 255)) $(($2 >> 16 & 255)) $(($2 >> 24)) \
		$(($3 & 255)) $(($3 >> 8 & 255)) $(($3 >> 16 & 255)) $(($3 >> 24)))" |
		dd of="$DISK" bs=1 seek=$off conv=notrunc status=none
}

check_bad_tables() {
	[ "$LABEL" = dos ] || return 0
	cp --sparse=always "$RUN_DIR/orig" "$DISK"
	mbr_entry 2 40960 81920		# 20 MiB into partition 1
	record_sha "$DISK"
	run_tool -z none "$DISK"
	expect_exit 2
	expect_stderr_grep 'partition [12]: partition overlaps another'
	expect_unchanged "$DISK"
	# past the end of the 96 MiB image, and over partition 3: both are
	# refused, partition 1 is still repacked, the worst exit code wins
	cp --sparse=always "$RUN_DIR/orig" "$DISK"
	mbr_entry 2 83968 200000
	run_tool -z none "$DISK"
	expect_exit 2
	expect_stderr_grep 'partition 2: partition runs past the end'
	expect_stderr_grep 'partition 3: partition overlaps another'
	cmp -s -i $((41 * MIB)) "$DISK" "$RUN_DIR/orig" ||
		fail "a refused partition was written to"
	fsck_clean "$(part 1)"
	same_content "$RUN_DIR/p1.manifest" "$(part 1)"
}

check_case() {
	DISK=$RUN_DIR/disk
	build_disk "$DISK"
	cp --sparse=always "$DISK" "$RUN_DIR/orig"
	record_sha "$DISK"
	check "a dry run reports each partition in JSON, writes nothing"
	check_dry_run
	check "each ext partition is repacked, the swap untouched; their" \
	      "e2undo files restore the whole image"
	check_repack
	check "--partition=N repacks that partition only"
	check_one_partition
	check "overlapping or overlong entries are refused, the rest repacked"
	check_bad_tables
}

run_cases check_case "$CASES"
