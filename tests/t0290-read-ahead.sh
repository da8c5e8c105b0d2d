#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t0290-read-ahead: the e2fsck prediction is for the read_ahead_kb of the
# device e2fsck will read, and says whose it is.
#
#   image     an image file: 128 KiB, "image"; --read-ahead=N: N,
#             "option"; another read_ahead_kb, another prediction
#   device    the image on a read-only loop device whose read-ahead is
#             set to 256 KiB (blockdev --setra 512; root only): 256,
#             "device", and the same figures as the image file with
#             --read-ahead=256; --read-ahead still overrides it

# shellcheck source=tests/lib.sh disable=SC2031
. "${0%/*}/lib.sh"
need_tool
need_manifest

CASES='
name=image   KIND=image  BS=4096 FSTYPE=ext3 PROFILE=mixed SIZE=256M GPB=8192
name=device  KIND=device BS=4096 FSTYPE=ext3 PROFILE=mixed SIZE=256M GPB=8192
'

# expect_eq WHAT GOT WANT
expect_eq() {
	[ "$2" = "$3" ] || fail "$1: e3metapack says $2, expected $3"
}

# ra_of JSON: "read_ahead_kb from" of the prediction.
ra_of() {
	jq -r '.predicted.kernel | "\(.read_ahead_kb) \(.from)"' "$1"
}

# figures JSON: the e2fsck figures alone.
figures() {
	jq -cS '.predicted | {before_ms, after_ms}' "$1"
}

image_case() {
	local img=$RUN_DIR/i.img
	mkimg "$img"
	record_sha "$img"
	check "an image file: 128 KiB, an image's; the option's otherwise"
	run_tool -n --json "$img"
	cp "$RUN_OUT" "$RUN_DIR/128.json"
	expect_eq "read-ahead" "$(ra_of "$RUN_OUT")" "128 image"
	run_tool -n --json --read-ahead=2560 "$img"
	expect_eq "read-ahead" "$(ra_of "$RUN_OUT")" "2560 option"
	[ "$(figures "$RUN_OUT")" != "$(figures "$RUN_DIR/128.json")" ] ||
		fail "read_ahead_kb 2560 and 128: the same prediction"
	run_tool -n --json --read-ahead=128 "$img"
	expect_eq "read-ahead" "$(ra_of "$RUN_OUT")" "128 option"
	[ "$(figures "$RUN_OUT")" = "$(figures "$RUN_DIR/128.json")" ] ||
		fail "--read-ahead=128 is not an image file's default"
	expect_unchanged "$img"
}

device_case() {
	local img=$RUN_DIR/d.img dev setra rc1 rc2
	[ "$(id -u)" -eq 0 ] || skip "loop devices need root"
	need losetup blockdev
	mkimg "$img"
	record_sha "$img"
	run_tool -n --json --read-ahead=256 "$img"
	cp "$RUN_OUT" "$RUN_DIR/file.json"
	dev=$(losetup -f --show -r "$img" 2>/dev/null) ||
		skip "cannot attach a loop device here"
	# (every run before any check: the loop device is always detached)
	blockdev --setra 512 "$dev"
	setra=$?
	run_tool -n --json "$dev"
	rc1=$RUN_RC
	cp "$RUN_OUT" "$RUN_DIR/dev.json"
	run_tool -n --json --read-ahead=64 "$dev"
	rc2=$RUN_RC
	losetup -d "$dev"
	check "a block device: its own read_ahead_kb, as for the same file"
	[ "$setra" = 0 ] || fail "blockdev --setra 512 $dev failed"
	[ "$rc1" = "$rc2" ] && [ "$rc1" -le 1 ] ||
		fail "-n on the loop device exited $rc1, then $rc2"
	expect_eq "read-ahead" "$(ra_of "$RUN_DIR/dev.json")" "256 device"
	expect_eq "figures" "$(figures "$RUN_DIR/dev.json")" \
		"$(figures "$RUN_DIR/file.json")"
	expect_eq "read-ahead" "$(ra_of "$RUN_OUT")" "64 option"
	expect_unchanged "$img"
}

ra_case() {
	case $KIND in
	image)	image_case ;;
	device)	device_case ;;
	esac
}

run_cases ra_case "$CASES"
