#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t0100-refuse: every safety refusal, on a real run (not -n): the exit
# code, the exact one-line message, and an image left byte-identical.
#
# Case variables:
#   FSTYPE, PROFILE, BS, SIZE  the image (see mkimg.sh); PROFILE=zeros or
#               junk: no filesystem at all; PROFILE=missing: no file
#   DEBUGFS     debugfs -w commands applied after building (';' between)
#   ENV         VAR=value words for the tool's environment only
#   ARGS        extra arguments
#   RC          expected exit code;  MSG  key of the expected message
#   FORCE_RC    exit code(s) expected with -f added ("0 1": accepted;
#               the image may change and must then be fsck-clean)
#   DRY_RC      exit code(s) expected with -n added;  DRY_GREP  an ERE
#               its stderr must match

# shellcheck source=tests/lib.sh disable=SC2031,SC2119
. "${0%/*}/lib.sh"
need_tool
need_manifest

CASES="
name=mounted     FSTYPE=ext3 ENV=EXT2FS_PRETEND_RW_MOUNT=1 RC=2 MSG=mounted FORCE_RC=2 DRY_RC='0 1' DRY_GREP='[Mm]ounted'
name=recovery    FSTYPE=ext3 DEBUGFS='feature needs_recovery' RC=2 MSG=recovery FORCE_RC=2
name=notchecked  FSTYPE=ext2 DEBUGFS='ssv mtime @1609459200' RC=2 MSG=notchecked FORCE_RC='0 1'
name=notchecked3 FSTYPE=ext3 DEBUGFS='ssv mtime @1609459200' RC=2 MSG=notchecked FORCE_RC='0 1'
name=unclean     FSTYPE=ext2 DEBUGFS='ssv state 0' RC=2 MSG=unclean FORCE_RC=2
name=errors      FSTYPE=ext2 DEBUGFS='ssv state 3' RC=2 MSG=errors FORCE_RC=2
name=orphans     FSTYPE=ext3 DEBUGFS='ssv last_orphan 12' RC=2 MSG=orphans FORCE_RC=2
name=bigalloc    FSTYPE=ext4 MKFS_OPTS='-O bigalloc -C 16384' RC=2 MSG=bigalloc FORCE_RC=2
name=zeros       PROFILE=zeros RC=2 MSG=notext FORCE_RC=2
name=junk        PROFILE=junk RC=2 MSG=notext FORCE_RC=2
name=missing     PROFILE=missing RC=4 MSG=missing
name=garbage     FSTYPE=ext2 ARGS=--no-such-option RC=16 MSG=usage
name=garbage2    FSTYPE=ext2 ARGS='--mc-max=0' RC=16 MSG=usage
"

# The message each refusal must print, for device $1.
message() {
	local dev=$1 fsck="Please run 'e2fsck -f $1' first."
	case $MSG in
	mounted)    echo "e3metapack: $dev: is mounted; e3metapack works only on unmounted volumes" ;;
	recovery)   echo "e3metapack: $dev: journal needs recovery. $fsck" ;;
	notchecked) echo "e3metapack: $dev: not checked since last mount. $fsck" ;;
	unclean)    echo "e3metapack: $dev: not cleanly unmounted. $fsck" ;;
	errors)     echo "e3metapack: $dev: errors recorded. $fsck" ;;
	orphans)    echo "e3metapack: $dev: orphan inodes to clean up. $fsck" ;;
	bigalloc)   echo "e3metapack: $dev: unsupported feature: bigalloc" ;;
	notext)     echo "e3metapack: $dev: not an ext2/3/4 filesystem" ;;
	missing)    echo "e3metapack: No such file or directory while opening $dev" ;;
	usage)      echo "" ;;
	*)          fail "no message for MSG=$MSG" ;;
	esac
}

# The checks after a refused run on $IMG.
check_refused() {
	local want
	want=$(message "$IMG")
	if [ "$MSG" = usage ]; then
		expect_stderr_grep '[Uu]sage'
	else
		expect_stderr_line "$want"
		expect_messages_prefixed
	fi
	if [ "$PROFILE" = missing ]; then
		[ ! -e "$IMG" ] || fail "$IMG was created"
	else
		expect_unchanged "$IMG"
	fi
}

refuse_case() {
	IMG=$RUN_DIR/img
	BS=${BS:-1024} SIZE=${SIZE:-8M} PROFILE=${PROFILE:-small}
	ARGS=${ARGS:-} ENV=${ENV:-}
	case $PROFILE in
	zeros)	dd if=/dev/zero of="$IMG" bs=1M count=8 status=none ;;
	junk)	gen_data junk $((8 * 1024 * 1024)) >"$IMG" ;;
	missing) ;;
	*)	mkimg "$IMG"
		if [ -n "${DEBUGFS:-}" ]; then
			tr ';' '\n' <<<"$DEBUGFS" | dbg_w "$IMG"
		fi ;;
	esac
	[ "$PROFILE" = missing ] || record_sha "$IMG"

	check "refused: exit $RC, the exact message, image byte-identical"
	# shellcheck disable=SC2086
	E3MP_ENV=$ENV run_tool -z "$RUN_DIR/undo1" $ARGS "$IMG"
	expect_exit "$RC"
	check_refused

	if [ -n "${FORCE_RC:-}" ]; then
		check "with -f: exit ${FORCE_RC// / or }"
		# shellcheck disable=SC2086
		E3MP_ENV=$ENV run_tool -f -z "$RUN_DIR/undo2" $ARGS "$IMG"
		# shellcheck disable=SC2086
		expect_exit $FORCE_RC
		if [ "$RUN_RC" = "$RC" ]; then
			check_refused
		else
			expect_stderr_nogrep "$(message "$IMG" | sed 's/[].[*^$\\]/\\&/g')"
			fsck_clean "$IMG"
		fi
	fi

	if [ -n "${DRY_RC:-}" ]; then
		check "a dry run exits ${DRY_RC// / or }, warns, writes nothing"
		[ "$PROFILE" = missing ] || record_sha "$IMG"
		# shellcheck disable=SC2086
		E3MP_ENV=$ENV run_tool -n $ARGS "$IMG"
		# shellcheck disable=SC2086
		expect_exit $DRY_RC
		expect_stderr_grep "$DRY_GREP"
		expect_unchanged "$IMG"
	fi
}

run_cases refuse_case "$CASES"
