#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t0700-lock: one run per volume at a time, and an undo file that is not
# the volume.
#
#   race      two writing runs started together on one image file, the
#             second through the file itself, a symlink to it or a hard
#             link to it, PAIRS times each (default 20), the two started
#             in alternating order: exactly one exits 0, the other exits
#             2 naming the device and the other process's pid (or, if
#             that one finished while /proc/locks was read, saying it
#             was released since), leaves no undo file and writes
#             nothing; then e2fsck -fn is clean,
#             every file is as before, and e2undo with the winner's undo
#             file gives back the original byte for byte
#   held      a lock held by another process (flock(1)): a writing run
#             and a -n run refuse with exit 2 naming flock's pid, the
#             image untouched; a shared lock (another -n) lets -n run and
#             still keeps a writing run out
#   loop      a file attached to a loop device (root only): refused,
#             naming the loop device, even once the file is renamed
#   undo-self -z naming the volume, a symlink or a hard link to it:
#             refused with exit 2 before anything is written
#
# Environment: E3MP_PAIRS overrides PAIRS.

# shellcheck source=tests/lib.sh
. "${0%/*}/lib.sh"
need_tool
need_manifest
need flock cmp e2undo
. "${0%/*}/kill-sweep.sh"

CASES='
name=race-file     KIND=file     BS=1024 FSTYPE=ext2 PROFILE=tind  SIZE=32M
name=race-symlink  KIND=symlink  BS=1024 FSTYPE=ext3 PROFILE=mixed SIZE=32M
name=race-hardlink KIND=hardlink BS=4096 FSTYPE=ext3 PROFILE=mixed SIZE=64M
name=held          KIND=held     BS=1024 FSTYPE=ext2 PROFILE=small SIZE=8M
name=loop          KIND=loop     BS=1024 FSTYPE=ext2 PROFILE=small SIZE=8M
name=undo-self     KIND=self     BS=1024 FSTYPE=ext2 PROFILE=small SIZE=8M
'

LOCKED='in use: locked by another process'

# second_path WORK: the path the second run is given.
second_path() {
	case $KIND in
	file)     echo "$1" ;;
	symlink)  ln -sf "$1" "$1.sym"; echo "$1.sym" ;;
	hardlink) ln -f "$1" "$1.hl"; echo "$1.hl" ;;
	esac
}

# One pair: both runs started together; sets PAIR_BAD on failure.
race_pair() {
	local i=$1 work=$RUN_DIR/w.img other ra=0 rb=0 win lose
	cp --sparse=always "$ORIG" "$work"
	rm -f "$work".*
	other=$(second_path "$work")
	if [ $((i % 2)) = 0 ]; then
		"$E3MP" -z "$work.a.e2undo" "$work" >"$work.a.out" \
			2>"$work.a.err" & pa=$!
		"$E3MP" -z "$work.b.e2undo" "$other" >"$work.b.out" \
			2>"$work.b.err" & pb=$!
	else
		"$E3MP" -z "$work.b.e2undo" "$other" >"$work.b.out" \
			2>"$work.b.err" & pb=$!
		"$E3MP" -z "$work.a.e2undo" "$work" >"$work.a.out" \
			2>"$work.a.err" & pa=$!
	fi
	wait "$pa" || ra=$?
	wait "$pb" || rb=$?
	case "$ra $rb" in
	"0 2")	win=a lose=b ;;
	"2 0")	win=b lose=a ;;
	*)	echo "FAIL: pair $i: exits $ra and $rb, expected 0 and 2" >&2
		sed 's/^/    /' "$work.a.err" "$work.b.err" >&2
		return 1 ;;
	esac
	# the loser: one line naming the device and the winner's pid (its
	# name too unless it had exited when /proc/PID/comm was read), or,
	# when the winner finished while the loser read /proc/locks,
	# saying that the lock was released since
	local dev=$work pid=$pa
	[ $lose = a ] || dev=$other
	[ $win = a ] || pid=$pb
	if grep -Fxq -e "e3metapack: $dev: $LOCKED (pid $pid, e3metapack); nothing was written" \
		-e "e3metapack: $dev: $LOCKED (pid $pid); nothing was written" \
		"$work.$lose.err"; then
		NAMED=$((NAMED + 1))
	elif ! grep -Fxq "e3metapack: $dev: $LOCKED (released since); nothing was written" \
		"$work.$lose.err"; then
		echo "FAIL: pair $i: the refusal does not name $dev and" \
		     "pid $pid:" >&2
		sed 's/^/    /' "$work.$lose.err" >&2
		return 1
	fi
	if [ -e "$work.$lose.e2undo" ]; then
		echo "FAIL: pair $i: the refused run left an undo file" >&2
		return 1
	fi
	fsck_clean "$work"
	same_content "$MAN" "$work"
	ks_check_undo "$ORIG" "$work" "$work.$win.e2undo" || {
		echo "FAIL: pair $i: e2undo not exact: $KS_WHY" >&2
		return 1
	}
	return 0
}

race_case() {
	local pairs=${E3MP_PAIRS:-${PAIRS:-20}} i bad=''
	NAMED=0
	ORIG=$RUN_DIR/orig.img MAN=$RUN_DIR/orig.man
	mkimg "$ORIG"
	make_manifest "$ORIG" "$MAN"
	check "of two runs started together one repacks, the other is" \
	      "refused naming it, and e2undo is exact"
	for i in $(seq 1 "$pairs"); do
		race_pair "$i" || bad="$bad $i"
	done
	info "$name: $pairs pairs started together, $NAMED refusals named" \
	     "the winner's pid, the others found it released since"
	[ -z "$bad" ] || fail "$name: pairs failed:$bad"
}

# hold MODE IMG: flock(1) holds a MODE (-x or -s) lock on IMG until
# release; sets HOLD_PID.
hold() {
	rm -f "$RUN_DIR/held"
	# (-o: the lock stays with flock itself, not with its sleep)
	flock -o "$1" "$2" sh -c "echo \$\$ >'$RUN_DIR/held.tmp' &&
		mv '$RUN_DIR/held.tmp' '$RUN_DIR/held' && exec sleep 60" &
	HOLD_PID=$!
	while [ ! -e "$RUN_DIR/held" ]; do sleep 0.05; done
}
release() {
	kill "$(cat "$RUN_DIR/held")" 2>/dev/null || true
	wait "$HOLD_PID" 2>/dev/null || true
}

held_case() {
	local img=$RUN_DIR/h.img
	mkimg "$img"
	record_sha "$img"
	check "under an exclusive lock a run and a dry run are refused," \
	      "naming the holder"
	hold -x "$img"
	run_tool -z "$img.e2undo" "$img"
	expect_exit 2
	expect_stderr_grep "^e3metapack: $img: $LOCKED \\(pid [0-9]+, flock\\); nothing was written\$"
	[ ! -e "$img.e2undo" ] || fail "a refused run left an undo file"
	run_tool -n "$img"
	expect_exit 2
	expect_stderr_has "$LOCKED"
	release
	expect_unchanged "$img"
	check "under a shared lock a dry run runs, a real run is refused"
	hold -s "$img"
	run_tool -n "$img"
	expect_exit 0
	run_tool -z "$img.e2undo" "$img"
	expect_exit 2
	expect_stderr_has "$LOCKED"
	release
	expect_unchanged "$img"
}

loop_case() {
	local img=$RUN_DIR/l.img dev rc1 err1 rc2 err2
	[ "$(id -u)" -eq 0 ] || skip "loop devices need root"
	command -v losetup >/dev/null 2>&1 || skip "needs losetup"
	mkimg "$img"
	record_sha "$img"
	dev=$(losetup -f --show "$img" 2>/dev/null) ||
		skip "cannot attach a loop device here"
	# (both runs before any check: the loop device is always detached)
	run_tool -z "$img.e2undo" "$img"
	rc1=$RUN_RC err1=$RUN_ERR
	mv "$img" "$img.moved"
	run_tool -n "$img.moved"
	rc2=$RUN_RC err2=$RUN_ERR
	mv "$img.moved" "$img"
	losetup -d "$dev"
	check "a loop device's backing file is refused, under any name"
	RUN_RC=$rc1 RUN_ERR=$err1
	expect_exit 2
	expect_stderr_line "e3metapack: $img: is the backing file of a loop device $dev; detach it (losetup -d) first"
	[ ! -e "$img.e2undo" ] || fail "a refused run left an undo file"
	RUN_RC=$rc2 RUN_ERR=$err2
	expect_exit 2
	expect_stderr_line "e3metapack: $img.moved: is the backing file of a loop device $dev; detach it (losetup -d) first"
	expect_unchanged "$img"
}

self_case() {
	local img=$RUN_DIR/s.img z
	mkimg "$img"
	ln -s "$img" "$RUN_DIR/s.sym"
	ln "$img" "$RUN_DIR/s.hl"
	record_sha "$img"
	check "an undo file that is the volume (by any link) is refused"
	for z in "$img" "$RUN_DIR/s.sym" "$RUN_DIR/s.hl"; do
		run_tool -z "$z" "$img"
		expect_exit 2
		expect_stderr_line "e3metapack: $img: the undo file is the volume itself; choose another with -z"
		expect_unchanged "$img"
	done
	[ -L "$RUN_DIR/s.sym" ] && [ -e "$RUN_DIR/s.hl" ] ||
		fail "a link to the volume was removed"
}

lock_case() {
	case $KIND in
	held)	held_case ;;
	loop)	loop_case ;;
	self)	self_case ;;
	*)	race_case ;;
	esac
}

run_cases lock_case "$CASES"
