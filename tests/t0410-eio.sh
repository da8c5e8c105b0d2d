#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t0410-eio: an I/O error (EIO) on the K-th write to the image, and on
# the K-th read of it, for K spread over the whole run.  A clean run under
# strace counts the writes (pwrite64, and write for superblock fields)
# and the pread64s; each point then runs the tool on a fresh copy with
#
#	strace -P IMG -e inject=pwrite64:error=EIO:when=J ...
#
# The unix I/O manager retries a failed pread64/pwrite64 once with
# lseek + read/write, so the retry is made to fail too (see
# kill-sweep.sh); a lone pwrite64/pread64 EIO never reaches the tool.
# The error is transient: later I/O succeeds, as when a sector is
# remapped.  For each point:
#
#   exit    8 (failed after writing began) or 4 (failed before any
#           write); 4 only if the image is byte for byte the original and
#           no undo file is left (so an error on the first write may give
#           either)
#   message stderr names the device, the block that failed ("block N",
#           N in the failed request; "superblock" will do for the
#           superblock's) and the error ("Input/output error")
#   volume  e2fsck -fn on a copy is clean, or finds only bitmap/count
#           differences (reported as info); anything else fails
#   fsck    e2fsck -fy on a copy, then e2fsck -fn clean, every file as
#           before (the manifest)
#   undo    e2undo with the undo file on a copy gives back the original,
#           byte for byte
#
# The cases are kill-sweep.sh's table, shared with t0400: WRITES write
# and READS read error points in the default run (6 and 6); with
# E3MP_SLOW=1 every case, every write and 60 reads, or SLOW_WRITES and
# SLOW_READS where a case sets them (the layout-rule variants, whose
# write order is the default's: a sample keeps make check-faults short).
# Environment: E3MP_WRITES, E3MP_READS override WRITES and READS (a
# number, or "all").

. "${0%/*}/lib.sh"
. "${0%/*}/kill-sweep.sh"
need_tool
need_manifest
ks_need_strace

# What e2fsck -fn may find after a failed run of a live process: blocks
# marked in use that nothing uses, and the counts that follow.
ALLOWED_FIXES='^(Block bitmap differences|Free blocks count wrong( for group)?|Inode bitmap differences|Free inodes count wrong( for group)?|Directories count wrong for group|Padding at end of block bitmap is not set)$'

# The first lines of the tool's stderr, less the undo hint.
err_lines() {
	{ grep -v -e '^The volume' -e '^ *e2undo ' "$KS_ERR" || true; } |
		head -n 2 | tr '\n' ' '
}

# check_point KIND K SPEC: one injected run and its checks.  Appends the
# K to the BAD_* lists of the checks that fail.
check_point() {
	local kind=$1 k=$2 spec=$3 what blocks first last n bad=''
	local line state msg_ok=1
	# shellcheck disable=SC2086
	ks_inject "$ORIG" "$WORK" "$spec" $ARGS
	blocks=$(ks_injected_blocks "$KS_TRACE")
	if [ -z "$blocks" ]; then
		echo "FAIL: $name $kind K=$k: no I/O error was injected" \
		     "(exit $KS_RC)" >&2
		BAD_RUN="$BAD_RUN $kind$k"
		return 0
	fi
	read -r first last <<<"$blocks"
	what="block $first"
	[ "$first" = "$last" ] || what="blocks $first-$last"
	line="$name EIO on $kind K=$k ($what): exit $KS_RC"

	# exit code, and what it promises about the image
	case $KS_RC in
	4)	if ! cmp -s "$ORIG" "$WORK"; then
			bad="exit 4 but the image changed"
		elif [ -e "$KS_UNDO" ]; then
			bad="exit 4 but an undo file was left"
		fi ;;
	8)	;;
	*)	bad="exit $KS_RC, expected 8 (or 4 before any write)" ;;
	esac
	if [ -n "$bad" ]; then
		echo "FAIL: $name $kind K=$k: $bad" >&2
		sed -n '1,5s/^/    /p' "$KS_ERR" >&2
		BAD_EXIT="$BAD_EXIT $kind$k"
	fi

	# the message: device, block, error
	if [ "$KS_RC" -ne 0 ]; then
		grep -Fq -- "$WORK" "$KS_ERR" || msg_ok=0
		grep -q 'Input/output error' "$KS_ERR" || msg_ok=0
		n=$(awk -v a="$first" -v b="$last" '{
			while (match($0, /block [0-9]+/)) {
				v = substr($0, RSTART + 6, RLENGTH - 6) + 0
				if (v >= a && v <= b) n++
				$0 = substr($0, RSTART + RLENGTH)
			} } END { print n + 0 }' "$KS_ERR")
		# a superblock error may say "superblock" instead
		[ "$n" -gt 0 ] ||
		{ [ "$first" = $((1024 / KS_BS)) ] &&
		  grep -q 'superblock' "$KS_ERR"; } || msg_ok=0
		if [ "$msg_ok" = 0 ]; then
			echo "FAIL: $name $kind K=$k: the message does not name" \
			     "the device, $what and the I/O error:" \
			     "$(err_lines)" >&2
			BAD_MSG="$BAD_MSG $kind$k"
		fi
	fi

	# the volume as the failed run left it
	ks_fsck_n "$WORK"
	state=$({ dumpe2fs -h "$WORK" 2>/dev/null || true; } |
		sed -n 's/^Filesystem state: *//p')
	state=${state:-unreadable (dumpe2fs -h failed)}
	if [ "$KS_FSCK_N_RC" -eq 0 ]; then
		line="$line; e2fsck -fn clean; state $state"
	else
		bad=$(printf '%s\n' "${KS_FIXED//; /$'\n'}" |
			grep -vE "$ALLOWED_FIXES" || true)
		if [ "$KS_FSCK_N_RC" -ne 4 ] || [ -n "$bad" ]; then
			echo "FAIL: $name $kind K=$k: e2fsck -fn exit" \
			     "$KS_FSCK_N_RC, finds: $KS_FIXED" >&2
			sed -n '1,30s/^/    /p' "$RUN_DIR/fsck-n.log" >&2
			BAD_VOL="$BAD_VOL $kind$k"
		fi
		line="$line; e2fsck -fn: $KS_FIXED; state $state"
	fi

	# e2fsck -fy brings every file back
	if ! ks_check_fsck "$MAN" "$WORK"; then
		echo "FAIL: $name $kind K=$k: $KS_WHY" >&2
		[ ! -f "$RUN_DIR/fsck-y.failed.log" ] ||
			sed 's/^/    /' "$RUN_DIR/fsck-y.failed.log" |
			head -n 30 >&2
		BAD_FSCK="$BAD_FSCK $kind$k"
		line="$line; FSCK FAILED"
	fi

	# the undo file
	if [ "$KS_RC" -eq 4 ] && [ ! -e "$KS_UNDO" ]; then
		line="$line; no undo file (nothing written)"
	elif ks_check_undo "$ORIG" "$WORK" "$KS_UNDO"; then
		line="$line; undo exact"
	else
		echo "FAIL: $name $kind K=$k: e2undo does not restore the" \
		     "original: $KS_WHY" >&2
		BAD_UNDO="$BAD_UNDO $kind$k"
		line="$line; UNDO FAILED"
	fi
	echo "# $line"
	echo "#   stderr: $(err_lines)"
}

eio_case() {
	local writes=${E3MP_WRITES:-${WRITES:-6}} reads=${E3MP_READS:-${READS:-6}}
	local k n=0
	ORIG=$RUN_DIR/orig.img WORK=$RUN_DIR/e.img MAN=$RUN_DIR/orig.man
	BAD_RUN='' BAD_EXIT='' BAD_MSG='' BAD_VOL='' BAD_FSCK='' BAD_UNDO=''
	ARGS=${ARGS:-}
	if [ "${E3MP_SLOW:-0}" = 1 ]; then
		writes=${E3MP_WRITES:-${SLOW_WRITES:-all}}
		reads=${E3MP_READS:-${SLOW_READS:-60}}
	fi

	mkimg "$ORIG"
	ks_base_manifest "$ORIG" "$MAN"
	# shellcheck disable=SC2086
	ks_count "$ORIG" $ARGS

	for k in $(ks_spread "$KS_NW" "$writes"); do
		check_point write "$k" "$(ks_eio_write_spec "$k")"
		n=$((n + 1))
	done
	for k in $(ks_spread "$KS_NR" "$reads"); do
		check_point read "$k" "$(ks_eio_read_spec "$k")"
		n=$((n + 1))
	done
	rm -f "$WORK" "$WORK".*
	info "$name: $n I/O error points (writes: of $KS_NW; reads: of" \
	     "$KS_NR, $KS_NR0 before the first write)"
	check "an I/O error is injected at every chosen read and write"
	[ -z "$BAD_RUN" ] || fail "not injected:$BAD_RUN"
	check "exit 4 with the image untouched and no undo file, else exit 8"
	[ -z "$BAD_EXIT" ] || fail "wrong exit:$BAD_EXIT"
	check "the message names the device, the block and the I/O error"
	[ -z "$BAD_MSG" ] || fail "message:$BAD_MSG"
	check "the volume is left consistent (e2fsck -fn)"
	[ -z "$BAD_VOL" ] || fail "volume:$BAD_VOL"
	check "e2fsck -fy recovers every file"
	[ -z "$BAD_FSCK" ] || fail "e2fsck recovery:$BAD_FSCK"
	check "e2undo restores the original byte for byte"
	[ -z "$BAD_UNDO" ] || fail "e2undo:$BAD_UNDO"
}

run_cases eio_case "$(ks_cases eio)"
