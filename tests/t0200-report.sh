#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t0200-report: dry runs (-n, --json) on images of every block size and
# flavour: the image stays byte-identical, the JSON report is one object
# with the documented fields, and its counts agree with an independent
# count made with debugfs and the manifest helper.
#
# Case variables: the image (see mkimg.sh), and
#   TIND_MIN   the report must count at least this many TIND blocks (0)
#   EMPTY=1    the volume has no indirect block at all (exit 1 expected)

# shellcheck source=tests/lib.sh disable=SC2031,SC2119
. "${0%/*}/lib.sh"
need_tool
need_manifest

CASES='
name=ext2-1k-mixed   BS=1024 FSTYPE=ext2           PROFILE=mixed SIZE=64M
name=ext3-2k-mixed   BS=2048 FSTYPE=ext3           PROFILE=mixed SIZE=64M
name=e4nf-4k-mixed   BS=4096 FSTYPE=ext4noext-flex PROFILE=mixed SIZE=128M GPB=8192
name=e4nf-1k-mixed   BS=1024 FSTYPE=ext4noext-flex PROFILE=mixed SIZE=64M
name=e4csum-2k-aged  BS=2048 FSTYPE=ext4noext-csum PROFILE=aged  SIZE=128M
name=ext2-1k-tind    BS=1024 FSTYPE=ext2           PROFILE=tind  SIZE=32M TIND_MIN=3
name=ext3-1k-tind    BS=1024 FSTYPE=ext3           PROFILE=tind  SIZE=32M TIND_MIN=3
name=e4mix-1k        BS=1024 FSTYPE=ext4mix        PROFILE=mixed SIZE=64M
name=ext4-1k-extents BS=1024 FSTYPE=ext4           PROFILE=small SIZE=16M EMPTY=1
name=ext3-2k-tind    BS=2048 FSTYPE=ext3           PROFILE=tind  SIZE=64M TIND_MIN=3 SLOW=1
name=ext3-4k-tind    BS=4096 FSTYPE=ext3           PROFILE=tind  SIZE=128M GPB=8192 TIND_MIN=3 SLOW=1
'

# Unique inodes of the manifest whose line matches an awk condition.
count_inodes() {
	awk -v OFS=' ' '$1 != "#" && ('"$1"') { print $2 }' "$MAN" | sort -u |
		wc -l
}

# Unique inodes whose i_flags has EXT4_EXTENTS_FL, and the journal
# inode if it has it (unless E3MP_COUNT_JOURNAL=0).
count_extent_inodes() {
	local img=$1 n=0 flags j
	while read -r _ flags; do
		if ((flags & 0x80000)); then n=$((n + 1)); fi
	done < <(awk '$1 != "#" { f = $10; sub(/^flags=/, "", f);
		     print $2, f }' "$MAN" | sed 's/^ino=//' | sort -u)
	j=$(sb_field "$img" 'Journal inode')
	if [ -n "$j" ] && [ "${E3MP_COUNT_JOURNAL:-1}" = 1 ]; then
		flags=$(dbg "$img" "stat <$j>" |
			sed -n 's/.*Flags: \(0x[0-9a-f]*\).*/\1/p')
		if ((flags & 0x80000)); then n=$((n + 1)); fi
	fi
	echo "$n"
}

# first_inds IMG MANIFEST: inodes (those of MANIFEST, and the journal
# unless E3MP_COUNT_JOURNAL=0) whose i_block[12] maps an IND block: in
# debugfs stat's block list an "(IND)" comes before any "(DIND)".
first_inds() {
	local img=$1 man=$2 j
	{
		awk '$1 != "#" { sub(/^ino=/, "", $2); print $2 }' "$man"
		if [ "${E3MP_COUNT_JOURNAL:-1}" = 1 ]; then
			j=$(sb_field "$img" 'Journal inode')
			[ -z "$j" ] || echo "$j"
		fi
	} | sort -un | sed 's/.*/stat <&>/' >"$RUN_DIR/first.cmds"
	debugfs -f "$RUN_DIR/first.cmds" "$img" 2>/dev/null |
	awk '
		/^Inode: [0-9]+ / { cur = $2 }
		match($0, /\((IND|DIND|TIND)\):/) && !(cur in seen) {
			seen[cur] = 1
			if (substr($0, RSTART, RLENGTH) == "(IND):") n++
		}
		END { print n + 0 }'
}

# The documented fields of the JSON report, as a jq projection.
DOCUMENTED='{device, block_size, groups, homing, rule, order, mc_max_pct,
	mc_span, dry_run,
	inodes: (.inodes | {scanned, block_mapped, with_indirect,
		skipped_extent, skipped_inline, skipped_fast_symlink,
		skipped_special}),
	indirect: (.indirect | {ind, dind, tind, total}),
	before: (.before | {in_metacluster, groups, fsck_reads, fsck_seeks}),
	after: (.after | {in_metacluster, groups, fsck_reads, fsck_seeks}),
	moves: (.moves | {indirect, data_evacuated, temporary, unclustered,
		no_space, kept_inline}),
	directories: (.directories | {mode, block_mapped, blocks, moved,
		no_space, in_region_before, in_region_after}),
	undo_file, undo_bound_bytes,
	predicted: (.predicted | {
		disk: (.disk | {settle_ms, stroke_ms, half_rotation_ms,
			mb_per_s, reference}),
		kernel: (.kernel | {read_ahead_kb, from, page_kb,
			drive_cache_kb, drive_segments}),
		e2fsck: (.e2fsck | {readahead_kb, bitmap_threads}),
		own_reads_ms: (.own_reads_ms | {before, after}),
		dirs_ms, span_ms,
		before_ms: (.before_ms | {inode_tables, bitmaps, indirect,
			directories, journal, other, total, reads, seeks}),
		after_ms: (.after_ms | {inode_tables, bitmaps, indirect,
			directories, journal, other, total, reads, seeks}),
		tool_ms: (.tool_ms | if . == null then null else {scan, read,
			write, total, reads, writes, seeks, undo_unit} end)}),
	status, exit_code}'

# check_spans IMG: --mc-span=2 and 4 each predict, as their own after_ms,
# what the default run's span_ms says of them (2) and the same span 1.
check_spans() {
	local s
	for s in 2 4; do
		run_tool -n --json --mc-span=$s "$1"
		jq -e --slurpfile ref "$RUN_DIR/report.json" --arg s "$s" \
			'.mc_span == ($s | tonumber) and
			 .predicted.after_ms.total == .predicted.span_ms[$s] and
			 .predicted.span_ms["1"] == $ref[0].predicted.span_ms["1"] and
			 ($s != "2" or .predicted.after_ms.total ==
			  $ref[0].predicted.span_ms["2"])' "$RUN_OUT" \
			>/dev/null || fail "--mc-span=$s: predicted.span_ms" \
			"is not each span's own after_ms"
	done
}

# check_predicted JSON: the prediction's parts are times that add up to
# the total, on the reference disk, through the kernel it states (an
# image file's read_ahead_kb, e2fsck's read-ahead of two groups' inode
# tables, a bitmap thread per CPU); e2fsck's own reads alone take time
# too; nothing to move, nothing changes.  (A part may be 0: what the
# kernel read ahead for another costs it nothing.)
check_predicted() {
	local ipb ra
	jq -e '.predicted.disk == {settle_ms: 1, stroke_ms: 15,
		half_rotation_ms: 4.17, mb_per_s: 150, reference: true}' \
		"$1" >/dev/null || fail "predicted.disk is not the reference"
	ipb=$(dumpe2fs -h "$img" 2>/dev/null |
		awk -F: '/^Inode blocks per group/ { print $2 + 0 }')
	ra=$(( 2 * ipb * $(json_int block_size "$1") / 1024 ))
	jq -e --argjson ra "$ra" --argjson cpus "$(getconf _NPROCESSORS_CONF)" \
		'.predicted | .kernel == {read_ahead_kb: 128, from: "image",
		page_kb: 4, drive_cache_kb: 512, drive_segments: 16} and
		.e2fsck == {readahead_kb: $ra, bitmap_threads: $cpus}' \
		"$1" >/dev/null || fail "predicted: not the kernel and e2fsck" \
		"of an image file ($ra KiB, $(getconf _NPROCESSORS_CONF) CPUs)"
	jq -e '.predicted | [.before_ms, .after_ms][] |
		(.inode_tables + .bitmaps + .indirect + .directories +
		 .journal + .other - .total | fabs) < 1 and .total > 0 and
		.inode_tables > 0 and .bitmaps >= 0 and .reads > 0 and
		.seeks >= 0 and .seeks <= .reads' "$1" >/dev/null ||
		fail "predicted: parts do not add up to the total"
	jq -e '.predicted.own_reads_ms | .before > 0 and .after > 0' \
		"$1" >/dev/null || fail "predicted.own_reads_ms: no time"
	if [ "$(json_int exit_code "$1")" = 1 ]; then
		jq -e '.predicted | .before_ms == .after_ms and
			.own_reads_ms.before == .own_reads_ms.after' \
			"$1" >/dev/null ||
			fail "predicted: nothing to move, but after != before"
	fi
	if [ "$(json_int indirect.total "$1")" -gt 0 ]; then
		jq -e '.predicted.before_ms.indirect > 0' "$1" >/dev/null ||
			fail "predicted: no time for the indirect blocks"
	fi
	check_tool_ms "$1"
}

# check_tool_ms JSON: the run's own predicted time is null when nothing
# moves; else its reads and writes add up to a positive total, the scan
# reads at least every inode table block the e2fsck prediction reads
# before the run, and the writes took requests.
check_tool_ms() {
	if [ "$(json_int exit_code "$1")" = 1 ]; then
		jq -e '.predicted.tool_ms == null' "$1" >/dev/null ||
			fail "predicted.tool_ms: nothing to move, yet not null"
		return 0
	fi
	jq -e '.predicted | .tool_ms as $t |
		($t.read + $t.write - $t.total | fabs) < 0.2 and
		$t.scan > 0 and $t.scan <= $t.read and $t.write > 0 and
		$t.reads > 0 and $t.writes > 0 and
		$t.seeks <= $t.reads + $t.writes and
		$t.scan >= .before_ms.inode_tables - 0.1' "$1" >/dev/null ||
		fail "predicted.tool_ms is not a sane time"
}

# block_mapped_dirs MANIFEST: directories neither extent-mapped nor
# inline, by their inode flags.
block_mapped_dirs() {
	local n=0 fl
	for fl in $(awk '$1 != "#" && $3 == "type=dir" {
			for (i = 4; i <= NF; i++)
				if ($i ~ /^flags=/) { sub(/^flags=/, "", $i); print $i }
		}' "$1"); do
		(((fl & 0x10080000) == 0)) && n=$((n + 1))
	done
	echo "$n"
}

# dirs_report TOTAL: the directories object, under the default (volume),
# leave, and each mode that moves them: every directory block is in its
# region after the run or counted in no_space.
dirs_report() {
	local total=$1 dirs blocks f m
	expect_eq directories.mode "$(json_get directories.mode)" volume
	dirs=$(block_mapped_dirs "$MAN")
	expect_eq directories.block_mapped \
		"$(json_int directories.block_mapped)" "$dirs"
	blocks=$(json_int directories.blocks)
	[ "$blocks" -ge "$dirs" ] ||
		fail "directories.blocks $blocks < $dirs directories"
	run_tool -n --json --dirs=leave "$MAN_IMG"
	expect_exit 0 1
	expect_json
	expect_eq directories.mode "$(json_get directories.mode)" leave
	expect_eq directories.blocks "$(json_int directories.blocks)" "$blocks"
	expect_eq directories.moved "$(json_int directories.moved)" 0
	expect_eq directories.in_region_before \
		"$(json_get directories.in_region_before)" null
	for m in pack roots volume; do
		run_tool -n --json --dirs=$m "$MAN_IMG"
		expect_exit 0 1
		expect_json
		expect_eq directories.mode "$(json_get directories.mode)" $m
		expect_eq directories.blocks \
			"$(json_int directories.blocks)" "$blocks"
		expect_eq indirect.total "$(json_int indirect.total)" "$total"
		for f in moved no_space in_region_before in_region_after; do
			[ "$(json_int "directories.$f")" -le "$blocks" ] ||
				fail "$m: directories.$f > directories.blocks"
		done
		expect_eq "$m: in_region_after + no_space" \
			$(($(json_int directories.in_region_after) +
			   $(json_int directories.no_space))) "$blocks"
	done
	run_tool -n -v --dirs=pack "$MAN_IMG"
	expect_exit 0 1
	expect_stdout_grep "^Directories: $dirs block-mapped, $blocks blocks"
}


expect_eq() {
	[ "$2" = "$3" ] || fail "$1: e3metapack says $2, expected $3"
}

report_case() {
	local img=$RUN_DIR/img groups bpg first blocks
	MAN=$RUN_DIR/manifest
	mkimg "$img"
	make_manifest "$img" "$MAN"
	record_sha "$img"

	check "a dry run writes nothing and prints one JSON object"
	run_tool -n --json "$img"
	if [ -n "${EMPTY:-}" ]; then expect_exit 1; else expect_exit 0 1; fi
	expect_unchanged "$img"
	expect_json
	cp "$RUN_OUT" "$RUN_DIR/report.json"

	check "the JSON report names the volume and its geometry"
	expect_eq device "$(json_get device)" "$img"
	expect_eq block_size "$(json_int block_size)" "$BS"
	blocks=$(sb_field "$img" 'Block count')
	first=$(sb_field "$img" 'First block')
	bpg=$(sb_field "$img" 'Blocks per group')
	groups=$(((blocks - first + bpg - 1) / bpg))
	expect_eq groups "$(json_int groups)" "$groups"
	expect_eq homing "$(json_get homing)" inode
	expect_eq rule "$(json_get rule)" inode
	expect_eq dry_run "$(json_get dry_run)" true
	expect_eq exit_code "$(json_int exit_code)" "$RUN_RC"
	case $RUN_RC in
	0) expect_eq status "$(json_get status)" would_change ;;
	1) expect_eq status "$(json_get status)" nothing_to_do ;;
	esac

	check "the indirect block counts add up, and match debugfs's"
	# indirect blocks: internally consistent ...
	local ind dind tind total
	ind=$(json_int indirect.ind)
	dind=$(json_int indirect.dind)
	tind=$(json_int indirect.tind)
	total=$(json_int indirect.total)
	expect_eq indirect.total "$total" $((ind + dind + tind))
	if [ -n "${EMPTY:-}" ]; then
		expect_eq indirect.total "$total" 0
	else
		[ "$total" -gt 0 ] || fail "indirect.total is 0"
	fi
	[ "$tind" -ge "${TIND_MIN:-0}" ] ||
		fail "indirect.tind is $tind, expected at least $TIND_MIN"

	# ... and equal to what debugfs counts
	local c
	read -r -a c < <(count_indirect "$img" "$MAN")
	info "debugfs counts: ind=${c[0]} dind=${c[1]} tind=${c[2]}" \
	     "inodes=${c[3]}; e3metapack: $ind $dind $tind" \
	     "$(json_int inodes.with_indirect)"
	expect_eq indirect.ind "$ind" "${c[0]}"
	expect_eq indirect.dind "$dind" "${c[1]}"
	expect_eq indirect.tind "$tind" "${c[2]}"
	expect_eq inodes.with_indirect "$(json_int inodes.with_indirect)" "${c[3]}"

	check "the inode classes the scan skips are counted"
	expect_eq inodes.skipped_fast_symlink \
		"$(json_int inodes.skipped_fast_symlink)" \
		"$(count_inodes "\$NF == \"fast=1\"")"
	expect_eq inodes.skipped_extent "$(json_int inodes.skipped_extent)" \
		"$(count_extent_inodes "$img")"
	expect_eq inodes.skipped_inline "$(json_int inodes.skipped_inline)" 0
	local f
	for f in scanned block_mapped skipped_special; do
		json_int "inodes.$f" >/dev/null
	done
	[ "$(json_int inodes.block_mapped)" -ge \
	  "$(json_int inodes.with_indirect)" ] ||
		fail "inodes.block_mapped < inodes.with_indirect"

	check "before/after figures and moves are counts within the totals"
	for f in before after; do
		local g
		for g in in_metacluster groups fsck_reads fsck_seeks; do
			json_int "$f.$g" >/dev/null
		done
		[ "$(json_int "$f.in_metacluster")" -le "$total" ] ||
			fail "$f.in_metacluster > indirect.total"
	done
	for f in indirect data_evacuated temporary unclustered no_space; do
		json_int "moves.$f" >/dev/null
	done
	expect_eq moves.kept_inline "$(json_int moves.kept_inline)" 0
	local moved
	moved=$(($(json_int moves.indirect) + $(json_int moves.data_evacuated) +
		 $(json_int directories.moved)))
	if [ "$RUN_RC" = 0 ]; then
		[ "$moved" -gt 0 ] || fail "exit 0 (would change) but no moves"
	else
		expect_eq "moves.indirect + data_evacuated + directories.moved" \
			"$moved" 0
	fi
	json_get undo_file >/dev/null
	MAN_IMG=$img dirs_report "$total"

	check "the prediction adds up, and --disk changes it"
	check_predicted "$RUN_DIR/report.json"

	# a faster disk: another disk in the report, less time
	run_tool -n --json --disk=0.5,8,2,250 "$img"
	expect_exit "$(json_int exit_code "$RUN_DIR/report.json")"
	jq -e '.predicted.disk == {settle_ms: 0.5, stroke_ms: 8,
		half_rotation_ms: 2, mb_per_s: 250, reference: false}' \
		"$RUN_OUT" >/dev/null || fail "--disk: not in predicted.disk"
	jq -e --slurpfile ref "$RUN_DIR/report.json" \
		'.predicted.before_ms.total < $ref[0].predicted.before_ms.total' \
		"$RUN_OUT" >/dev/null || fail "--disk: a faster disk is no faster"

	# each --dirs value's e2fsck after the run: that run's own figure
	if [ "$(jq -c '.predicted.dirs_ms' "$RUN_DIR/report.json")" != null ]
	then
		for m in pack roots volume; do
			run_tool -n --json --dirs=$m "$img"
			jq -e --slurpfile ref "$RUN_DIR/report.json" --arg m "$m" \
				'.predicted.after_ms.total ==
				 $ref[0].predicted.dirs_ms[$m]' "$RUN_OUT" \
				>/dev/null || fail "predicted.dirs_ms.$m is not" \
				"--dirs=$m's own after_ms"
		done
	fi
	run_tool -n --json --dirs=leave "$img"
	jq -e '.predicted.dirs_ms == null' "$RUN_OUT" >/dev/null ||
		fail "--dirs=leave: predicted.dirs_ms not null"

	# --mc-span 1 and 2, and this run's: each that run's own figure
	# (none without an indirect block)
	if [ "$(jq '.indirect.total' "$RUN_DIR/report.json")" = 0 ]; then
		jq -e '.predicted.span_ms == null' "$RUN_DIR/report.json" \
			>/dev/null || fail "predicted.span_ms without an" \
			"indirect block"
	else
		jq -e '.mc_span == 1 and
		       (.predicted.span_ms | keys) == ["1", "2"]' \
			"$RUN_DIR/report.json" >/dev/null ||
			fail "predicted.span_ms does not hold spans 1 and 2"
		check_spans "$img"
	fi

	# another read_ahead_kb: stated as the option's
	run_tool -n --json --read-ahead=2560 "$img"
	expect_exit "$(json_int exit_code "$RUN_DIR/report.json")"
	jq -e '.predicted.kernel | .read_ahead_kb == 2560 and
		.from == "option"' "$RUN_OUT" >/dev/null ||
		fail "--read-ahead=2560: not in predicted.kernel"

	# without an undo file: no undo unit, so no undo reads (and the
	# block bitmaps read alone, not with their units: bitmapio.c)
	run_tool -n --json -z none "$img"
	expect_exit "$(json_int exit_code "$RUN_DIR/report.json")"
	jq -e --slurpfile ref "$RUN_DIR/report.json" \
		'.predicted.tool_ms as $t | $ref[0].predicted.tool_ms as $u |
		if $u == null then $t == null else $t.undo_unit == 0 and
		$u.undo_unit > 0 and $t.read < $u.read and
		$t.reads <= $u.reads end' "$RUN_OUT" >/dev/null ||
		fail "-z none: tool_ms not less reading without undo reads"

	check "the same dry run again gives the same report"
	# (documented fields only; the tool may add others, timings)
	run_tool -n --json "$img"
	expect_exit "$(json_int exit_code "$RUN_DIR/report.json")"
	jq -S "$DOCUMENTED" "$RUN_DIR/report.json" >"$RUN_DIR/a.json"
	jq -S "$DOCUMENTED" "$RUN_OUT" >"$RUN_DIR/b.json"
	diff -u "$RUN_DIR/a.json" "$RUN_DIR/b.json" >&2 ||
		fail "two identical dry runs gave different reports"

	check "--home=data: the same scan, another homing"
	run_tool -n --json --home=data "$img"
	expect_exit 0 1
	expect_json
	expect_eq homing "$(json_get homing)" data
	expect_eq rule "$(json_get rule)" data
	expect_eq order "$(json_get order)" fsck
	expect_eq indirect.total "$(json_int indirect.total)" "$total"

	check "--home=inline keeps every file's first IND and says so"
	# --home=inline: every file's first IND (one per inode that has an
	# IND in i_block[12]: the IND count less the ones under a DIND or
	# TIND) is kept, so kept + in MCs + unclustered = total
	run_tool -n --json --home=inline "$img"
	expect_exit 0 1
	expect_json
	expect_eq rule "$(json_get rule)" inline
	expect_eq indirect.total "$(json_int indirect.total)" "$total"
	expect_eq "moves.kept_inline + after.in_metacluster + unclustered" \
		$(($(json_int moves.kept_inline) + \
		   $(json_int after.in_metacluster) + \
		   $(json_int moves.unclustered))) "$total"
	expect_eq moves.kept_inline "$(json_int moves.kept_inline)" \
		"$(first_inds "$img" "$MAN")"

	check "without --json: a human report naming the rule, and still" \
	      "nothing written"
	run_tool -n -v "$img"
	expect_exit "$(json_int exit_code "$RUN_DIR/report.json")"
	expect_stdout_grep '^Layout rule: inode, fsck order$'
	expect_stdout_grep '^Predicted e2fsck -fn on the reference disk: [0-9]+\.[0-9]{2} s( -> [0-9]+\.[0-9]{2} s)?$'
	pat="^  \\(e2fsck's defaults, $(getconf _NPROCESSORS_CONF) bitmap"
	expect_stdout_grep "$pat threads; read_ahead_kb 128: an image file's\\)$"
	expect_stdout_grep '^  inode tables [0-9.]+ s'
	expect_stdout_grep 'indirect blocks [0-9.]+ s'
	expect_stdout_grep 'directories [0-9.]+ s'
	if [ "$(json_int exit_code "$RUN_DIR/report.json")" = 1 ]; then
		expect_stdout_grep '^e3metapack itself: nothing to move$'
	else
		expect_stdout_grep '^e3metapack itself: about [0-9]+\.[0-9]{2} s on the same disk \(reads [0-9.]+ s, writes [0-9.]+ s\)$'
		expect_stdout_grep "^  the scan [0-9.]+ s; the undo manager's reads included$"
	fi
	! grep -q 'pass 1 seeks' "$RUN_OUT" ||
		fail "the text report still shows the pass 1 seek count"
	run_tool -n --home=inline "$img"
	expect_exit 0 1
	expect_stdout_grep '^Layout rule: inline \([0-9]+ first IND blocks.*\), fsck order$'
	run_tool -n --json --order=delete "$img"
	expect_exit 0 1
	expect_eq order "$(json_get order)" delete
	expect_eq indirect.total "$(json_int indirect.total)" "$total"
	run_tool -n --order=delete "$img"
	expect_stdout_grep '^Layout rule: inode, delete order$'
	expect_unchanged "$img"
}

run_cases report_case "$CASES"
