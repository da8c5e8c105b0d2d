#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t0360-undo-space: the undo file's size bound, the room it needs, and an
# undo file that cannot be written mid-run.
#
# For each image type:
#
#   bound   the -n report and --json give the bound (undo_bound_bytes);
#           a real run's undo file is never larger, and the bound is
#           within 25 % of it
#   room    with the undo file on a tmpfs too small for the bound (sizes
#           spread from a header's worth to just short of the real
#           file), the run is refused: exit 2, one line naming the bytes
#           needed, the bytes available and the directory, the image
#           byte for byte the original, no undo file left; with room for
#           the bound it packs, and e2undo restores the original
#   faults  ENOSPC, EDQUOT, EFBIG or EIO on the K-th write to the undo
#           file only (strace -P UNDO -e inject=pwrite64:error=E:when=K,
#           and the unix I/O manager's retry), K spread over every undo
#           write of the run: exit 4 with the image untouched and no undo
#           file, or exit 8 naming the undo file, the volume consistent,
#           e2fsck -fy keeping every file, and the e2undo command printed
#           restoring the original byte for byte
#   lasting the same error on every undo write from the K-th on (so the
#           tool's own repair of the file fails too): an e2undo command
#           is printed only if it restores the original; otherwise the
#           tool says the undo file cannot restore the run and that
#           e2fsck -f works, and e2fsck -fy keeps every file
#
# Case variables: the image (see mkimg.sh), ARGS (extra e3metapack
# arguments), SLOW=1 (only with E3MP_SLOW=1).  E3MP_SLOW=1 also sweeps
# every undo write with each of the four errors, and more room sizes.

. "${0%/*}/lib.sh"
. "${0%/*}/kill-sweep.sh"
need_tool
need_manifest
ks_need_strace
need e2undo cmp stat mount umount

CASES='
name=ext2-1k-tind      BS=1024 FSTYPE=ext2           PROFILE=tind  SIZE=32M
name=ext3-4k-mixed     BS=4096 FSTYPE=ext3           PROFILE=mixed SIZE=128M GPB=8192
name=e4csum-1k-aged    BS=1024 FSTYPE=ext4noext-csum PROFILE=aged  SIZE=64M
name=e4csum-1k-dirs    BS=1024 FSTYPE=ext4noext-csum PROFILE=dirs  SIZE=64M  ARGS=--dirs=pack SLOW=1
name=e4nf-2k-homedata  BS=2048 FSTYPE=ext4noext-flex PROFILE=aged  SIZE=128M ARGS=--home=data SLOW=1
name=ext3-1k-full      BS=1024 FSTYPE=ext3           PROFILE=full  SIZE=32M  SLOW=1
'

ALLOWED_FIXES='^(Block bitmap differences|Free blocks count wrong( for group)?|Padding at end of block bitmap is not set)$'

base_manifest() {
	local b=$RUN_DIR/base.img rc=0
	cp --sparse=always "$1" "$b"
	e2fsck -fy "$b" >"$b.log" 2>&1 || rc=$?
	[ "$rc" -le 1 ] || fail "e2fsck -fy of the original exited $rc"
	make_manifest "$b" "$2"
	rm -f "$b" "$b.log"
}

# The bound from -n, text and JSON; sets BOUND.
check_bound_reported() {
	check "-n and --json give the undo file's size bound"
	# shellcheck disable=SC2086
	run_tool -n --json $ARGS "$WORK"
	expect_exit 0
	BOUND=$(json_int undo_bound_bytes)
	# shellcheck disable=SC2086
	run_tool -n $ARGS "$WORK"
	expect_stdout_grep "^Undo file: at most $BOUND bytes \\([0-9]+-byte units\\)\$"
	# shellcheck disable=SC2086
	run_tool -n --json -z none $ARGS "$WORK"
	[ "$(json_get undo_bound_bytes)" = null ] ||
		fail "-z none: undo_bound_bytes is not null"
}

# A real run: the undo file is within the bound, and at least 80 % of it;
# sets REAL and UNIT.
check_bound_real() {
	local undo=$RUN_DIR/real.e2undo
	check "the real undo file is within the bound and 80 % of it"
	cp --sparse=always "$ORIG" "$WORK"
	# shellcheck disable=SC2086
	run_tool -z "$undo" $ARGS "$WORK"
	expect_exit 0
	REAL=$(stat -c %s "$undo")
	UNIT=$({ e2undo -h "$undo" "$WORK" 2>&1 || true; } |
		sed -n 's/^block size:[[:space:]]*//p')
	[ -n "$UNIT" ] || fail "e2undo -h shows no block size for $undo"
	[ "$REAL" -le "$BOUND" ] ||
		fail "the undo file ($REAL bytes) is larger than the bound ($BOUND)"
	[ $((REAL * 125)) -ge $((BOUND * 100)) ] ||
		fail "the bound ($BOUND) is more than 25 % above the undo file ($REAL)"
	info "undo file $REAL bytes, bound $BOUND ($((BOUND * 100 / REAL)) %)"
	check "the packed image is fsck-clean, the same files, e2undo exact"
	fsck_clean "$WORK"
	same_content "$MAN0" "$WORK"
	ks_check_undo "$ORIG" "$WORK" "$undo" || fail "e2undo: $KS_WHY"
	rm -f "$undo"
}

# run_small BYTES [ENV]: run the tool with its undo file on a tmpfs of
# BYTES; the mount is gone before any check can fail.
run_small() {
	local mnt=$RUN_DIR/small
	mkdir -p "$mnt"
	mount -t tmpfs -o "size=$1" e3mp-small "$mnt" \
		2>"$RUN_DIR/mount.err" ||
		skip "cannot mount a tmpfs here: $(cat "$RUN_DIR/mount.err")"
	cp --sparse=always "$ORIG" "$WORK"
	E3MP_ENV="E2FSPROGS_UNDO_DIR=$mnt" run_tool $ARGS "$WORK"
	SMALL_LEFT=$(ls -A "$mnt")
	if [ "$RUN_RC" = 0 ]; then
		ks_check_undo "$ORIG" "$WORK" "$mnt/e3metapack-${WORK##*/}.e2undo" ||
			SMALL_LEFT="e2undo: $KS_WHY"
	fi
	umount "$mnt"
}

check_room() {
	local sizes s n=5 mnt=$RUN_DIR/small
	[ "$(id -u)" = 0 ] || { info "room: needs root (tmpfs)"; return 0; }
	[ "${E3MP_SLOW:-0}" != 1 ] || n=12
	# from a header's worth (3 units) to just short of the real file
	sizes=$(ks_spread $(((REAL - 4096 - 3 * UNIT) / 4096)) "$n" |
		awk -v b=$((3 * UNIT)) '{ print b + ($1 - 1) * 4096 }')
	check "too little room for the undo file: refused, nothing written"
	for s in $sizes; do
		run_small "$s"
		expect_exit 2
		expect_stderr_line "e3metapack: $WORK: not enough free space for the undo file: it needs up to $BOUND bytes, $mnt has $s available; use -z FILE on another filesystem, or -z none"
		expect_messages_prefixed
		cmp -s "$ORIG" "$WORK" || fail "tmpfs of $s bytes: the image changed"
		[ -z "$SMALL_LEFT" ] ||
			fail "tmpfs of $s bytes: left behind: $SMALL_LEFT"
	done
	check "room for the bound: packed, and e2undo restores the image"
	run_small $(((BOUND + 4095) / 4096 * 4096))
	expect_exit 0
	[ "$SMALL_LEFT" = "e3metapack-${WORK##*/}.e2undo" ] ||
		fail "with room for the bound: $SMALL_LEFT"
	info "room: refused at $(echo $sizes | wc -w) sizes from" \
	     "$((3 * UNIT)) to $(echo "$sizes" | tail -n 1) bytes, packed at" \
	     "$(((BOUND + 4095) / 4096 * 4096))"
}

# undo_inject "SPEC...": run the tool on a copy of ORIG in WORK with the
# undo file UNDO, under strace -P UNDO with -e inject=SPEC for each SPEC.
undo_inject() {
	local i
	local -a iargs=()
	for i in $1; do
		iargs+=(-e "inject=$i")
	done
	cp --sparse=always "$ORIG" "$WORK"
	rm -f "$UNDO"
	INJ_RC=0
	# shellcheck disable=SC2086
	{ ASAN_OPTIONS=$KS_ASAN timeout -k 10 "$E3MP_TIMEOUT" \
		"$E3MP_STRACE" -f -qq -P "$UNDO" \
		-e trace=pwrite64,write,lseek "${iargs[@]}" \
		-o "$WORK.trace" "$E3MP" -z "$UNDO" $ARGS "$WORK" \
		>"$WORK.out" 2>"$WORK.err" </dev/null; } 2>/dev/null ||
		INJ_RC=$?
	[ "$INJ_RC" -ne 124 ] || fail "timed out: strace -e inject=$1"
	[ -z "$1" ] || grep -q INJECTED "$WORK.trace" ||
		fail "$1: no error was injected"
}

# What the failed run left: consistent, recoverable by e2fsck, and
# e2undo exact where the tool printed it.  LASTING=1 allows the tool to
# say instead that the undo file cannot restore the run.
check_failed() {
	local what=$1 err=$2 bad
	case $INJ_RC in
	4)	cmp -s "$ORIG" "$WORK" || fail "$what: exit 4 but the image changed"
		[ ! -e "$UNDO" ] || fail "$what: exit 4 but an undo file was left"
		return 0 ;;
	8)	;;
	*)	sed 's/^/    /' "$WORK.err" >&2
		fail "$what: exit $INJ_RC, expected 8 (or 4 before any write)" ;;
	esac
	grep -Fq "undo file $UNDO" "$WORK.err" ||
		fail "$what: the message does not name the undo file"
	grep -q "$err" "$WORK.err" || fail "$what: the message does not say '$err'"
	ks_fsck_n "$WORK"
	bad=$(printf '%s\n' "${KS_FIXED//; /$'\n'}" | grep -vE "$ALLOWED_FIXES" || true)
	[ "$KS_FSCK_N_RC" -eq 0 ] || { [ "$KS_FSCK_N_RC" -eq 4 ] && [ -z "$bad" ]; } ||
		fail "$what: e2fsck -fn exit $KS_FSCK_N_RC: $KS_FIXED"
	ks_check_fsck "$MAN" "$WORK" || fail "$what: $KS_WHY"
	if grep -Fq "'e2undo $UNDO $WORK'" "$WORK.err"; then
		ks_check_undo "$ORIG" "$WORK" "$UNDO" ||
			fail "$what: the printed e2undo fails: $KS_WHY"
		UNDONE=$((UNDONE + 1))
	elif [ "${LASTING:-0}" = 1 ]; then
		grep -Fq "the undo file $UNDO cannot restore this run" "$WORK.err" &&
		grep -Fq "run 'e2fsck -f $WORK'" "$WORK.err" ||
			fail "$what: neither an e2undo command nor why not"
		UNUSABLE=$((UNUSABLE + 1))
	else
		sed 's/^/    /' "$WORK.err" >&2
		fail "$what: no e2undo command printed"
	fi
}

# strerror text of the errors injected
err_text() {
	case $1 in
	ENOSPC)	echo 'No space left on device' ;;
	EDQUOT)	echo 'Disk quota exceeded' ;;
	EFBIG)	echo 'File too large' ;;
	EIO)	echo 'Input/output error' ;;
	esac
}

check_faults() {
	local nw k e i=0 points errs='ENOSPC EIO' n=6 spec
	UNDO=$RUN_DIR/u.e2undo UNDONE=0 UNUSABLE=0
	undo_inject ''		# counting run: no error
	cp "$WORK.trace" "$RUN_DIR/count.trace"
	nw=$(grep -cE '^[0-9]+ +pwrite64\(' "$WORK.trace" || true)
	[ "$nw" -gt 3 ] || fail "the counting run made $nw undo file writes"
	[ "$(grep -cE '^[0-9]+ +write\(' "$WORK.trace" || true)" = 0 ] ||
		fail "the tool writes the undo file with write(): retries miscounted"
	# the full sweep: every undo write (12 in the SLOW cases), the four
	# errors in turn
	if [ "${E3MP_SLOW:-0}" = 1 ]; then
		n=all
		[ "${SLOW:-0}" != 1 ] || n=12
		errs='ENOSPC EDQUOT EFBIG EIO'
	fi
	check "an undo write that fails: exit 4 untouched, or 8 consistent" \
	      "with e2undo exact"
	points=$(ks_spread "$nw" "$n")
	for k in $points; do
		for e in $errs; do
			[ "$n" != all ] && [ "$n" != 12 ] ||
				[ "$e" = "$(echo $errs | cut -d' ' -f$((k % 4 + 1)))" ] ||
				continue
			# (write: unix_io's retry of the failed pwrite64)
			spec="pwrite64:error=$e:when=$k write:error=$e:when=1"
			undo_inject "$spec"
			check_failed "$e on undo write $k" "$(err_text "$e")"
			i=$((i + 1))
		done
	done
	info "faults: $i runs, $UNDONE undone exactly, at K in" \
	     "$(echo $points | tr ' ' ',') of $nw undo writes ($errs)"
	UNDONE=0
	check "a lasting undo write error: no e2undo printed that would fail"
	points=$(ks_spread "$nw" 6)
	[ "${E3MP_SLOW:-0}" != 1 ] || points=$(ks_spread "$nw" 16)
	for k in $points; do
		undo_inject "pwrite64:error=EIO:when=$k+ write:error=EIO:when=1+"
		LASTING=1 check_failed "EIO on every undo write from $k on" \
			"$(err_text EIO)"
	done
	# The header write that follows the tool's own update of the
	# superblock copy: failing it and the repair leaves a copy the header
	# does not match, which e2undo refuses.
	k=$(awk '/^[0-9]+ +pwrite64\(/ {
			n++; m = split($0, f, ", "); len = f[m - 1]
			off = f[m]; sub(/\).*/, "", off)
			if (prev == 1024 && len == 512 && off == 0) {
				print n
				exit
			}
			prev = len
		}' "$RUN_DIR/count.trace")
	check "a failed superblock copy update that cannot be repaired: the" \
	      "undo file is said unusable, e2fsck -f is given"
	[ -n "$k" ] || fail "no update of the superblock copy in the counting run"
	UNUSABLE=0
	undo_inject "pwrite64:error=EIO:when=$k+ write:error=EIO:when=1+"
	LASTING=1 check_failed "EIO on the header write $k and after" \
		"$(err_text EIO)"
	[ "$UNUSABLE" = 1 ] ||
		fail "EIO from undo write $k on: the undo file should be unusable"
	info "lasting EIO: $UNDONE undone exactly; at the header write $k the" \
	     "undo file is said unusable"
}

undo_space_case() {
	ORIG=$RUN_DIR/orig.img WORK=$RUN_DIR/img MAN=$RUN_DIR/orig.man
	ARGS=${ARGS:-}
	mkimg "$ORIG"
	make_manifest "$ORIG" "$RUN_DIR/orig.man0"
	MAN0=$RUN_DIR/orig.man0
	# (e2fsck -fy indexes directories: compare after the same -fy)
	base_manifest "$ORIG" "$MAN"
	cp --sparse=always "$ORIG" "$WORK"
	check_bound_reported
	check_bound_real
	check_room
	check_faults
}

export E2FSPROGS_FAKE_TIME=${E2FSPROGS_FAKE_TIME:-1700000000}
run_cases undo_space_case "$CASES"
