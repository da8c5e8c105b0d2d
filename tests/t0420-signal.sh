#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t0420-signal: SIGINT/SIGTERM stop the run at a safe point.  strace
# delivers the signal at a chosen system call on the image:
#   - during the scan (a read): exit 32, "nothing was written", the image
#     byte-identical;
#   - at the first write of round 1: the round is finished, the volume is
#     marked clean, exit 32 with the e2undo command printed (or exit 0 when
#     the plan had no second round); e2fsck -fn is clean and nothing a user
#     can see changed; running again finishes (exit 0), a third run has
#     nothing to do, and e2undo gives back the original image.
#
# Case variables: the image (see mkimg.sh).

# shellcheck source=tests/lib.sh
. "${0%/*}/lib.sh"
need_tool
need_manifest
need strace e2undo cmp

CASES='
name=ext3-1k-mixed BS=1024 FSTYPE=ext3 PROFILE=mixed SIZE=64M
name=ext2-2k-aged  BS=2048 FSTYPE=ext2 PROFILE=aged  SIZE=128M
'

# strace_tool SIGNAL SYSCALL: run the tool with SIGNAL delivered at the
# first SYSCALL on the image.
strace_tool() {
	local sig=$1 call=$2
	# the injected call must be in the trace set, or nothing is injected;
	# LeakSanitizer cannot work under ptrace
	E3MP_ENV=ASAN_OPTIONS=detect_leaks=0 E3MP_WRAPPER="strace -f -qq -o /dev/null -P $IMG -e trace=$call \
-e inject=$call:signal=$sig:when=1" run_tool -z "$UNDO" "$IMG"
}

check_case() {
	IMG=$RUN_DIR/img UNDO=$RUN_DIR/u.e2undo
	mkimg "$IMG"
	cp --sparse=always "$IMG" "$RUN_DIR/orig"
	make_manifest "$IMG" "$RUN_DIR/orig.manifest"
	strace -f -qq -o /dev/null -e trace=none true 2>/dev/null ||
		skip "strace cannot trace here"

	check "SIGINT during the scan: exit 32, nothing written, no undo file"
	record_sha "$IMG"
	strace_tool SIGINT pread64
	expect_exit 32
	expect_stderr_grep 'interrupted; nothing was written'
	expect_unchanged "$IMG"
	[ ! -e "$UNDO" ] || fail "an undo file was left by a run that wrote nothing"

	check "SIGTERM at the first write: the round ends, the volume is clean"
	strace_tool SIGTERM pwrite64
	expect_exit 0 32
	if [ "$RUN_RC" = 32 ]; then
		expect_stderr_grep 'interrupted after the first round'
		expect_stderr_grep "e2undo $UNDO $IMG'"
	fi
	fsck_clean "$IMG"
	same_content "$RUN_DIR/orig.manifest" "$IMG"

	check "a rerun finishes, and e2undo restores the original"
	run_tool -z "$UNDO" "$IMG"
	expect_exit 0 1
	fsck_clean "$IMG"
	same_content "$RUN_DIR/orig.manifest" "$IMG"
	run_tool -z none "$IMG"
	expect_exit 1
	undo_restores "$UNDO" "$IMG" "$RUN_DIR/orig"
}

run_cases check_case "$CASES"
