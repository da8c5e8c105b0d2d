#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t0300-repack: real runs.  For each image: e3metapack repacks it (exit
# 0), e2fsck -fn finds it clean, nothing a user can see changed (the
# manifest helper and, independently, debugfs rdump), the indirect blocks
# now sit in metaclusters, a second run has nothing to do and writes
# nothing, and e2undo with the undo file gives back the original image
# byte for byte.  Every layout rule (--home=inode, data, inline) and
# both orders (--order=fsck, delete) have cases; after --order=delete the
# IND blocks under each DIND lie last first on disk (debugfs stat); after
# --mc-span=N under inode homing they lie in the first group of their
# inode's span of N groups (debugfs stat).
# Under every --dirs mode but leave (directory-heavy images,
# htree-indexed, with and without metadata_csum; the default, volume, on
# every image without --dirs) every block-mapped directory's data blocks
# are one contiguous run in logical order afterwards (debugfs stat;
# under roots and volume from block 1 on: roots puts every block 0
# apart, volume an htree's), the report counts
# them all in their region, and the rerun moves none.
#
# Case variables: the image (see mkimg.sh), and
#   ARGS        extra e3metapack arguments for every run (e.g. --home=data)
#   MC_MIN_PCT  after the run, at least this % of the indirect blocks must
#               be in a metacluster (99; 0: not checked, for full volumes);
#               under --home=inline, of those the rule does not keep
#   SWITCH      after the repack, run again with the option SWITCH:
#               --home=inline after inode homing must move nothing (exit
#               1, nothing written); --home=inode after the inline rule
#               must put every indirect block into a metacluster (the
#               first INDs too), --order=fsck after --order=delete must
#               put the IND blocks under each DIND first to last,
#               --mc-span=1 after another span must leave every one in
#               a metacluster; and its own undo file must give back the
#               packed image
#   SECOND_RC   exit code of the run after the repack (1)
#   SLOW=1      only with E3MP_SLOW=1

# shellcheck source=tests/lib.sh disable=SC2031,SC2119
. "${0%/*}/lib.sh"
need_tool
need_manifest
need e2undo cmp

CASES='
name=ext2-1k-mixed      BS=1024 FSTYPE=ext2           PROFILE=mixed SIZE=64M
name=ext3-1k-mixed      BS=1024 FSTYPE=ext3           PROFILE=mixed SIZE=64M  SWITCH=--home=inline
name=ext2-2k-mixed      BS=2048 FSTYPE=ext2           PROFILE=mixed SIZE=64M
name=ext3-4k-mixed      BS=4096 FSTYPE=ext3           PROFILE=mixed SIZE=128M GPB=8192
name=e4nf-1k-mixed      BS=1024 FSTYPE=ext4noext-flex PROFILE=mixed SIZE=64M
name=e4nf-4k-mixed      BS=4096 FSTYPE=ext4noext-flex PROFILE=mixed SIZE=128M GPB=8192
name=e4plain-2k-mixed   BS=2048 FSTYPE=ext4noext      PROFILE=mixed SIZE=64M
name=ext2-1k-i128-mixed BS=1024 FSTYPE=ext2           PROFILE=mixed SIZE=64M INODE_SIZE=128
name=e4mix-1k-mixed     BS=1024 FSTYPE=ext4mix        PROFILE=mixed SIZE=64M
name=ext2-1k-tind       BS=1024 FSTYPE=ext2           PROFILE=tind  SIZE=32M
name=e4nf-1k-tind       BS=1024 FSTYPE=ext4noext-flex PROFILE=tind  SIZE=32M
name=ext2-1k-aged       BS=1024 FSTYPE=ext2           PROFILE=aged  SIZE=64M
name=ext3-2k-aged       BS=2048 FSTYPE=ext3           PROFILE=aged  SIZE=128M
name=e4csum-1k-aged     BS=1024 FSTYPE=ext4noext-csum PROFILE=aged  SIZE=64M
name=ext2-1k-full       BS=1024 FSTYPE=ext2           PROFILE=full  SIZE=32M  MC_MIN_PCT=0
name=ext3-4k-full       BS=4096 FSTYPE=ext3           PROFILE=full  SIZE=64M  GPB=4096 MC_MIN_PCT=0
name=ext3-1k-homedata   BS=1024 FSTYPE=ext3           PROFILE=mixed SIZE=64M  ARGS=--home=data
name=e4nf-2k-homedata   BS=2048 FSTYPE=ext4noext-flex PROFILE=aged  SIZE=128M ARGS=--home=data
name=ext3-1k-inline     BS=1024 FSTYPE=ext3           PROFILE=mixed SIZE=64M  ARGS=--home=inline SWITCH=--home=inode
name=ext2-1k-tind-inline BS=1024 FSTYPE=ext2          PROFILE=tind  SIZE=32M  ARGS=--home=inline
name=ext3-2k-aged-span  BS=2048 FSTYPE=ext3           PROFILE=aged  SIZE=128M INODES=512 ARGS=--mc-span=2 SWITCH=--mc-span=1
name=ext3-1k-mixed-span BS=1024 FSTYPE=ext3           PROFILE=mixed SIZE=64M  INODES=1024 ARGS=--mc-span=3
name=ext3-1k-span-data  BS=1024 FSTYPE=ext3           PROFILE=mixed SIZE=64M  INODES=1024 ARGS="--mc-span=2 --home=data" SLOW=1
name=ext3-1k-dirs-span  BS=1024 FSTYPE=ext3           PROFILE=dirs  SIZE=64M  INODES=4096 ARGS="--mc-span=2 --dirs=pack" SLOW=1
name=ext3-1k-tind-delete BS=1024 FSTYPE=ext3           PROFILE=tind  SIZE=32M  ARGS=--order=delete SWITCH=--order=fsck
name=e4nf-2k-aged-delete BS=2048 FSTYPE=ext4noext-flex PROFILE=aged  SIZE=128M ARGS="--order=delete --home=data"
name=ext3-1k-dirs       BS=1024 FSTYPE=ext3           PROFILE=dirs  SIZE=64M  ARGS=--dirs=pack
name=ext2-2k-dirs       BS=2048 FSTYPE=ext2           PROFILE=dirs  SIZE=64M  ARGS=--dirs=pack
name=e4csum-1k-dirs     BS=1024 FSTYPE=ext4noext-csum PROFILE=dirs  SIZE=64M  ARGS=--dirs=pack
name=ext3-1k-dirs-data  BS=1024 FSTYPE=ext3           PROFILE=dirs  SIZE=64M  ARGS="--dirs=pack --home=data"
name=ext3-1k-dirs-volume BS=1024 FSTYPE=ext3          PROFILE=dirs  SIZE=64M
name=ext3-1k-dirs-roots BS=1024 FSTYPE=ext3           PROFILE=dirs  SIZE=64M  ARGS=--dirs=roots
name=e4csum-1k-dirs-roots BS=1024 FSTYPE=ext4noext-csum PROFILE=dirs SIZE=64M ARGS=--dirs=roots
name=ext2-2k-dirs-roots BS=2048 FSTYPE=ext2           PROFILE=dirs  SIZE=64M  ARGS=--dirs=roots SLOW=1
name=ext3-1k-dirs-roots-data BS=1024 FSTYPE=ext3      PROFILE=dirs  SIZE=64M  ARGS="--dirs=roots --home=data" SLOW=1
name=ext3-1k-dirs-volume-data BS=1024 FSTYPE=ext3     PROFILE=dirs  SIZE=64M  ARGS=--home=data SLOW=1
name=ext3-1k-dirs-leave BS=1024 FSTYPE=ext3           PROFILE=dirs  SIZE=64M  ARGS=--dirs=leave SLOW=1
name=ext3-4k-tind       BS=4096 FSTYPE=ext3           PROFILE=tind  SIZE=128M GPB=8192 SLOW=1
name=ext3-4k-aged       BS=4096 FSTYPE=ext3           PROFILE=aged  SIZE=512M SLOW=1
name=ext2-1k-aged-big   BS=1024 FSTYPE=ext2           PROFILE=aged  SIZE=256M AGED_FILES=800 SLOW=1
name=e4nf-1k-full-data  BS=1024 FSTYPE=ext4noext-flex PROFILE=full  SIZE=64M  MC_MIN_PCT=0 ARGS=--home=data SLOW=1
'

# at least PCT% of TOTAL: IN_MC * 100 >= PCT * TOTAL
expect_clustered() {
	local what=$1 in_mc=$2 total=$3 pct=$4
	[ $((in_mc * 100)) -ge $((pct * total)) ] ||
		fail "$what: $in_mc of $total indirect blocks in a" \
		     "metacluster, expected at least $pct%"
}

# steps_are IMG WAY: the IND blocks under each DIND go WAY (up: first to
# last, --order=fsck; down: last first, --order=delete) on disk, and
# there are some.
steps_are() {
	local steps
	steps=$(child_steps "$1" "$RUN_DIR/orig.manifest")
	case $2:$steps in
	up:0\ *|down:*\ 0) fail "no DIND child goes $2 (up, down: $steps)" ;;
	up:*\ 0|down:0\ *) info "DIND children (up, down): $steps" ;;
	*) fail "DIND children not all $2 (up, down: $steps)" ;;
	esac
}

# switch_rule IMG TOTAL: the run with the option $SWITCH (see the header).
switch_rule() {
	local img=$1 total=$2 packed=$RUN_DIR/packed.img u=$RUN_DIR/u3.e2undo
	cp --sparse=always "$img" "$packed"
	record_sha "$img"
	run_tool -z "$u" "$SWITCH" "$img"
	case $SWITCH in
	--home=inline)
		expect_exit 1
		expect_unchanged "$img"
		return ;;
	esac
	expect_exit 0
	fsck_clean "$img"
	same_content "$RUN_DIR/orig.manifest" "$img"
	run_tool -n --json "$SWITCH" "$img"
	expect_exit 1
	[ "$SWITCH" != --order=fsck ] || steps_are "$img" up
	[ "$(json_int before.in_metacluster)" = "$total" ] ||
		fail "after the switch to $SWITCH:" \
		     "$(json_int before.in_metacluster) of $total indirect" \
		     "blocks in a metacluster"
	undo_replay "$u" "$img"
	cmp "$packed" "$img" >&2 ||
		fail "e2undo of the switch does not give back the packed image"
	rm -f "$packed"
}

# dirs_packed BLOCKS MODE: after a repack under --dirs=MODE, as the last
# dry run reports it: all BLOCKS directory blocks in their region, none
# to move, and every directory contiguous by debugfs.
dirs_packed() {
	local blocks=$1 bad
	[ "$(json_int directories.blocks)" = "$blocks" ] ||
		fail "directories.blocks changed from $blocks to" \
		     "$(json_int directories.blocks)"
	[ "$(json_int directories.moved)" = 0 ] ||
		fail "the rerun would move $(json_int directories.moved)" \
		     "directory blocks"
	[ "$(json_int directories.in_region_before)" = "$blocks" ] ||
		fail "$(json_int directories.in_region_before) of $blocks" \
		     "directory blocks in their region"
	bad=$(dirs_scattered "$RUN_DIR/img" "$RUN_DIR/orig.manifest" \
		"$(dirs_run_from "$2")")
	if kept_by_rule; then
		dirs_split_by_kept "$RUN_DIR/img" "$bad"
	else
		[ -z "$bad" ] ||
			fail "directories not contiguous (ino, break):" $bad
	fi
	info "directory blocks in their region: $blocks of $blocks"
}

# span_placed PCT: under --mc-span=N in ARGS (inode homing), at least
# PCT% of the indirect blocks lie in the first group of their inode's
# span.
span_placed() {
	local span homed total
	# shellcheck disable=SC2086
	span=$(printf '%s\n' $ARGS | sed -n 's/^--mc-span=//p')
	case "$span: $ARGS " in
	:*|*" --home=data "*) return 0 ;;
	esac
	read -r homed total <<EOF
$(span_homed "$RUN_DIR/img" "$RUN_DIR/orig.manifest" "$span")
EOF
	[ "$total" -gt 0 ] || fail "debugfs lists no indirect block"
	expect_clustered "homed by --mc-span=$span" "$homed" "$total" "$1"
	info "in the first group of their span of $span: $homed of $total"
}

# kept_by_rule: the rule in ARGS keeps some file blocks in the regions
# (--home=data: the first data block under an indirect block; --home=
# inline: a file's first IND), which the directories are laid around.
kept_by_rule() {
	case " $ARGS " in
	*" --home=data "*|*" --home=inline "*) return 0 ;;
	esac
	return 1
}

# dirs_split_by_kept IMG "INO BREAK"...: each directory's break is a
# block of a regular file (one the rule keeps), not of another directory.
dirs_split_by_kept() {
	local img=$1 n=0 ino brk owner type
	while read -r ino brk; do
		[ -n "$ino" ] || continue
		owner=$(debugfs -R "icheck $brk" "$img" 2>/dev/null |
			awk 'NR == 2 { print $2 }')
		type=$(debugfs -R "stat <$owner>" "$img" 2>/dev/null |
			awk '/Type:/ { print $4; exit }')
		[ "$type" = regular ] ||
			fail "directory $ino broken at block $brk, which" \
			     "holds ${type:-nothing} inode ${owner:-none}"
		n=$((n + 1))
	done <<EOF
$2
EOF
	info "directories laid around a block the rule keeps: $n"
}

repack_case() {
	local img=$RUN_DIR/img undo=$RUN_DIR/u.e2undo pct=${MC_MIN_PCT:-99}
	local total kept dblocks= dmode
	ARGS=${ARGS:-}
	# shellcheck disable=SC2086
	dmode=$(dirs_mode $ARGS)

	mkimg "$img"
	cp --sparse=always "$img" "$RUN_DIR/orig.img"
	make_manifest "$img" "$RUN_DIR/orig.manifest"
	rdump_sums "$img" "$RUN_DIR/orig.sums"
	record_sha "$img"

	check "a dry run predicts a change and writes nothing"
	# shellcheck disable=SC2086
	run_tool -n --json $ARGS "$img"
	expect_exit 0
	expect_unchanged "$img"
	expect_json
	total=$(json_int indirect.total)
	[ "$total" -gt 0 ] || fail "indirect.total is 0 on a fresh image"
	kept=$(json_int moves.kept_inline)
	case " $ARGS " in
	*" --home=inline "*) [ "$kept" -gt 0 ] ||
		fail "the inline rule keeps no first IND block" ;;
	*) [ "$kept" = 0 ] || fail "moves.kept_inline $kept, not inline" ;;
	esac
	[ "$(json_get directories.mode)" = "$dmode" ] ||
		fail "directories.mode $(json_get directories.mode), not $dmode"
	case $dmode/$PROFILE in
	leave/*) [ "$(json_get directories.moved)" = 0 ] ||
		fail "directories moved under --dirs=leave" ;;
	*/dirs)
		dblocks=$(json_int directories.blocks)
		[ "$dblocks" -gt 0 ] || fail "no directory block recorded"
		[ "$(json_int directories.moved)" -gt 0 ] ||
			fail "no directory block would move" ;;
	*)	# (where there is room for them all)
		[ "$(json_int directories.no_space)" != 0 ] ||
			dblocks=$(json_int directories.blocks) ;;
	esac

	check "the packed image is fsck-clean with every file unchanged"
	# shellcheck disable=SC2086
	run_tool -z "$undo" $ARGS "$img"
	expect_exit 0
	[ -s "$undo" ] || fail "no undo file at $undo"
	fsck_clean "$img"
	same_content "$RUN_DIR/orig.manifest" "$img"
	same_rdump "$RUN_DIR/orig.sums" "$img"

	check "the indirect blocks are in their metaclusters"
	# what is on disk now, as the next dry run sees it
	# shellcheck disable=SC2086
	run_tool -n --json $ARGS "$img"
	expect_exit "${SECOND_RC:-1}"
	expect_json
	[ "$(json_int indirect.total)" = "$total" ] ||
		fail "indirect.total changed from $total to" \
		     "$(json_int indirect.total)"
	if [ "$pct" -gt 0 ]; then
		expect_clustered before.in_metacluster \
			"$(json_int before.in_metacluster)" \
			$((total - kept)) "$pct"
		expect_clustered after.in_metacluster \
			"$(json_int after.in_metacluster)" \
			$((total - kept)) "$pct"
	fi
	[ "$(json_int moves.kept_inline)" = "$kept" ] ||
		fail "moves.kept_inline changed from $kept to" \
		     "$(json_int moves.kept_inline)"
	[ -z "$dblocks" ] || dirs_packed "$dblocks" "$dmode"
	case " $ARGS " in
	*" --order=delete "*) steps_are "$img" down ;;
	esac
	[ "$pct" = 0 ] || span_placed "$pct"
	info "in metacluster after the repack:" \
	     "$(json_int before.in_metacluster) of $total;" \
	     "groups $(json_int before.groups);" \
	     "fsck seeks $(json_int before.fsck_seeks)"

	if [ -z "${SECOND_RC:-}" ]; then
		check "a second run exits 1 and writes nothing"
	else
		check "a second run exits $SECOND_RC, consistent and undoable"
	fi
	record_sha "$img"
	# shellcheck disable=SC2086
	run_tool -z "$RUN_DIR/u2.e2undo" $ARGS "$img"
	expect_exit "${SECOND_RC:-1}"
	if [ "$RUN_RC" = 1 ]; then
		expect_unchanged "$img"
	else
		fsck_clean "$img"
		same_content "$RUN_DIR/orig.manifest" "$img"
		undo_replay "$RUN_DIR/u2.e2undo" "$img"
	fi
	[ -z "${SWITCH:-}" ] || switch_rule "$img" "$total"

	check "e2undo restores the original byte for byte"
	undo_restores "$undo" "$img" "$RUN_DIR/orig.img"
}

run_cases repack_case "$CASES"
