# SPDX-License-Identifier: GPL-2.0-only
# lib.sh --- shared helpers for the e3metapack tests        -*- sh -*-
#
# Every tests/t*.sh starts with
#
#	. "${0%/*}/lib.sh"
#
# and is then mostly variables and calls of the helpers below.  Tests are
# bash scripts run by automake's parallel harness through its TAP driver
# (tap-driver.sh): each prints one "ok N - behaviour" line per behaviour
# it checks ("not ok N - behaviour: why" for one that failed) and the plan
# "1..N" last; a test skipped as a whole prints "1..0 # SKIP reason".
# A behaviour is named by check "SENTENCE" and holds until the next check
# or the end of its case (or test); inside run_cases each line starts
# with the case name, and a case that names none is one line, its name.
#
# Environment (all optional; the Makefile sets the first four):
#   E3MP          the binary under test   ($top_builddir/src/e3metapack)
#   MANIFEST      the manifest helper     ($top_builddir/tests/manifest,
#                 else compiled into the scratch dir from manifest.c)
#   top_srcdir, top_builddir
#   E3MP_SLOW=1   also run the cases marked SLOW=1
#   E3MP_CASES    only run the cases whose name matches one of these
#                 space-separated shell patterns (e.g. 'ext3-* *tind*')
#   E3MP_KEEP=1   keep the scratch dir even when the test passes
#   E3MP_WRAPPER  command prefix for the tool, e.g.
#                 'valgrind -q --error-exitcode=99 --leak-check=full'
#   E3MP_TIMEOUT  seconds one run of the tool may take (600)
#   E3MP_COUNT_JOURNAL=0  leave the journal inode out of the independent
#                 indirect-block count (default: counted, see stat_inodes)
#   TMPDIR        where the scratch dir goes (/tmp)

# The tests are bash scripts; a harness that runs them with sh gets them
# run again with bash (this must stay the first command of the file).
if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi

set -eEu -o pipefail
PATH=$PATH:/usr/sbin:/sbin
export LC_ALL=C TZ=UTC
umask 022

TEST_NAME=${0##*/}
TEST_NAME=${TEST_NAME%.sh}
_lib_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
top_srcdir=${top_srcdir:-$_lib_dir/..}
top_builddir=${top_builddir:-$top_srcdir}

# ---- failure, skipping, tracing ------------------------------------

_lib_where() {
	local i=${1:-1} frame line func file
	while frame=$(caller "$i"); do
		read -r line func file <<<"$frame"
		echo "    at ${file##*/}:$line${func:+ ($func)}" >&2
		i=$((i + 1))
	done
}

_lib_err() {
	local rc=$1 cmd=$2
	trap - ERR
	echo "FAIL: command exited $rc: $cmd" >&2
	_lib_where 1
	_tap_line "not ok" "$(_tap_name): command exited $rc: $cmd"
	exit "$rc"
}

_lib_traps() {
	trap '_lib_err $? "$BASH_COMMAND"' ERR
}
_lib_traps

# fail MSG...: the test fails here (the behaviour being checked fails).
fail() {
	trap - ERR
	echo "FAIL: $*" >&2
	_lib_where 1
	_tap_line "not ok" "$(_tap_name): $*"
	exit 1
}

# skip REASON...: the test (or the current case) is skipped.
skip() {
	echo "SKIP: $*" >&2
	printf '%s\n' "$*" >"$T/.tap_skip"
	exit 77
}

# ---- TAP -------------------------------------------------------------
#
# TAP lines go to fd 7, a copy of the test's stdout, so that a fail()
# inside $(...) is still seen.  The count is kept in a file, since the
# cases run in subshells; .tap_notok has a line per "not ok".

exec 7>&1
TAP_CASE=
TAP_STEP=
TAP_BASE=0

_tap_count() {
	cat "$T/.tap_n" 2>/dev/null || echo 0
}

# _tap_line ok|"not ok" TEXT [SKIP-REASON]: the next numbered line (a
# "#" in TEXT is escaped, or the driver would read a directive there).
_tap_line() {
	local n text=${2//#/\\#}
	n=$(($(_tap_count) + 1))
	echo "$n" >"$T/.tap_n"
	[ "$1" = ok ] || echo "$n" >>"$T/.tap_notok"
	echo "$1 $n - $text${3:+ # SKIP $3}" >&7
}

# What the current line is about: "case: behaviour", or either alone.
_tap_name() {
	local what=${TAP_STEP:-${TAP_CASE:-$TEST_NAME}}
	[ -z "$TAP_CASE" ] || [ -z "$TAP_STEP" ] || what="$TAP_CASE: $what"
	printf '%s' "$what"
}

_tap_notok_count() {
	if [ -f "$T/.tap_notok" ]; then wc -l <"$T/.tap_notok"; else echo 0; fi
}

# The behaviour being checked holds; or nothing was named since the
# scope (case or test) began: the scope itself is the line.
_tap_close() {
	if [ -n "$TAP_STEP" ] || [ "$(_tap_count)" = "$TAP_BASE" ]; then
		_tap_line ok "$(_tap_name)"
	fi
	TAP_STEP=
}

# check SENTENCE...: the assertions that follow show this behaviour.
check() {
	[ -z "$TAP_STEP" ] || _tap_close
	TAP_STEP=$*
}

info() {
	echo "# $*"
}

# need CMD...: skip unless every CMD is on PATH (or is an executable).
need() {
	local c
	for c; do
		command -v "$c" >/dev/null 2>&1 || skip "needs '$c'"
	done
}

# ---- scratch dir ---------------------------------------------------

T=$(mktemp -d "${TMPDIR:-/tmp}/e3mp-$TEST_NAME.XXXXXX")
T=$(cd "$T" && pwd -P)
RUN_DIR=$T

# The end of the TAP stream: the last behaviour, a skip, or a failure
# that printed no "not ok" yet; then the plan.
_lib_tap_end() {
	local rc=$1 why
	case $rc in
	0)	_tap_close ;;
	77)	why=$(cat "$T/.tap_skip" 2>/dev/null || echo skipped)
		if [ "$(_tap_count)" = 0 ]; then
			echo "1..0 # SKIP $why" >&7
			return 0
		fi
		[ -z "$TAP_STEP" ] || _tap_line ok "$(_tap_name)" "$why" ;;
	*)	[ "$(_tap_notok_count)" -gt 0 ] ||
			_tap_line "not ok" "$(_tap_name): exited $rc" ;;
	esac
	echo "1..$(_tap_count)" >&7
}

_lib_exit() {
	local rc=$?
	trap - ERR EXIT
	_lib_tap_end "$rc"
	if { [ "$rc" -eq 0 ] || [ "$rc" -eq 77 ]; } && [ -z "${E3MP_KEEP:-}" ]
	then
		rm -rf "$T"
	else
		echo "# scratch dir kept: $T" >&2
	fi
	# a skip is said by the plan line; the TAP driver wants exit 0
	[ "$rc" -ne 77 ] || rc=0
	exit "$rc"
}
trap _lib_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Nothing a test does may touch the host's undo dir or config.
export E2FSPROGS_UNDO_DIR=$T/undo-default
mkdir -p "$E2FSPROGS_UNDO_DIR"
export E2FSCK_CONFIG=/dev/null
export DEBUGFS_PAGER=__none__ PAGER=__none__
unset EXT2FS_PRETEND_RW_MOUNT EXT2FS_PRETEND_RO_MOUNT \
      EXT2FS_NO_MTAB_OK E2FSPROGS_LIBMAGIC_SUPPRESS 2>/dev/null || true

# ---- the programs --------------------------------------------------

_lib_e3mp_env=${E3MP:+set}
E3MP=${E3MP:-$top_builddir/src/e3metapack}
E3MP_TIMEOUT=${E3MP_TIMEOUT:-600}

# need_tool: the binary must exist.  When E3MP came from the environment
# (make check) a missing binary is a failure; a test run by hand before
# anything is built is skipped.
need_tool() {
	[ -x "$E3MP" ] && return 0
	[ -z "$_lib_e3mp_env" ] || fail "E3MP=$E3MP is not an executable"
	skip "e3metapack not built ($E3MP)"
}

# need_manifest: find or build the manifest helper.
need_manifest() {
	MANIFEST=${MANIFEST:-$top_builddir/tests/manifest}
	[ -x "$MANIFEST" ] && return 0
	need cc pkg-config
	local src=$top_srcdir/tests/manifest.c
	[ -f "$src" ] || skip "no manifest helper and no $src"
	# shellcheck disable=SC2046
	cc -O2 -Wall -Wextra -Werror -o "$T/manifest" \
		$(pkg-config --cflags ext2fs com_err) "$src" \
		$(pkg-config --libs ext2fs com_err) >"$T/cc.log" 2>&1 ||
		{ cat "$T/cc.log" >&2; fail "cannot build $src"; }
	MANIFEST=$T/manifest
}

need mke2fs e2fsck debugfs dumpe2fs sha256sum jq

# ---- running the tool ----------------------------------------------

RUN_N=0

# run_tool ARGS...: run the tool; never aborts.  Sets RUN_RC, RUN_OUT and
# RUN_ERR (files), RUN_STDOUT and RUN_STDERR (contents).  E3MP_ENV holds
# VAR=value words given to the tool's environment only.
run_tool() {
	RUN_N=$((RUN_N + 1))
	RUN_OUT=$RUN_DIR/run$RUN_N.out
	RUN_ERR=$RUN_DIR/run$RUN_N.err
	echo "+ e3metapack $*" >"$RUN_DIR/run$RUN_N.cmd"
	RUN_RC=0
	# shellcheck disable=SC2086
	env ${E3MP_ENV:-} timeout -k 10 "$E3MP_TIMEOUT" ${E3MP_WRAPPER:-} \
		"$E3MP" "$@" >"$RUN_OUT" 2>"$RUN_ERR" </dev/null || RUN_RC=$?
	# shellcheck disable=SC2034
	RUN_STDOUT=$(cat "$RUN_OUT")
	# shellcheck disable=SC2034
	RUN_STDERR=$(cat "$RUN_ERR")
	echo "+ ${E3MP_ENV:+$E3MP_ENV }e3metapack $* => exit $RUN_RC"
	[ -z "$RUN_STDERR" ] || sed -n '1,5s/^/  stderr: /p' "$RUN_ERR"
	[ "$RUN_RC" -ne 124 ] ||
		fail "e3metapack timed out after ${E3MP_TIMEOUT}s: $*"
	return 0
}

_lib_show_run() {
	echo "  exit: $RUN_RC" >&2
	echo "  stdout (first 20 lines):" >&2
	sed -n '1,20s/^/    /p' "$RUN_OUT" >&2
	echo "  stderr (first 20 lines):" >&2
	sed -n '1,20s/^/    /p' "$RUN_ERR" >&2
}

# expect_exit N [N...]: the last run exited with one of these codes.
expect_exit() {
	local want
	for want; do
		[ "$RUN_RC" = "$want" ] && return 0
	done
	_lib_show_run
	fail "e3metapack exited $RUN_RC, expected ${*// / or }"
}

# expect_stderr_grep ERE / expect_stdout_grep ERE
expect_stderr_grep() {
	grep -Eq -e "$1" "$RUN_ERR" && return 0
	_lib_show_run
	fail "stderr does not match /$1/"
}
expect_stdout_grep() {
	grep -Eq -e "$1" "$RUN_OUT" && return 0
	_lib_show_run
	fail "stdout does not match /$1/"
}
expect_stderr_nogrep() {
	grep -Eq -e "$1" "$RUN_ERR" || return 0
	_lib_show_run
	fail "stderr matches /$1/ and should not"
}

# expect_stderr_line TEXT: stderr has a line that is exactly TEXT.
expect_stderr_line() {
	grep -Fxq -e "$1" "$RUN_ERR" && return 0
	_lib_show_run
	fail "stderr lacks the line: $1"
}

# expect_stderr_has TEXT: stderr contains TEXT (fixed string).
expect_stderr_has() {
	grep -Fq -e "$1" "$RUN_ERR" && return 0
	_lib_show_run
	fail "stderr lacks: $1"
}

expect_stdout_empty() {
	[ ! -s "$RUN_OUT" ] && return 0
	_lib_show_run
	fail "stdout is not empty"
}

# expect_messages_prefixed: every stderr line starts "e3metapack: ".
expect_messages_prefixed() {
	if grep -vq '^e3metapack: ' "$RUN_ERR"; then
		_lib_show_run
		fail "stderr has lines without the 'e3metapack: ' prefix"
	fi
}

# ---- images: fingerprints and checks -------------------------------

_lib_sha_file() {
	local p=$1
	echo "$T/.sha.$(printf '%s' "$p" | sha256sum | cut -c1-16)"
}

sha_of() {
	sha256sum "$1" | cut -d' ' -f1
}

# record_sha IMG; ... ; expect_unchanged IMG
record_sha() {
	sha_of "$1" >"$(_lib_sha_file "$1")"
}
expect_unchanged() {
	local f old new
	f=$(_lib_sha_file "$1")
	[ -f "$f" ] || fail "expect_unchanged $1: no record_sha before"
	old=$(cat "$f")
	new=$(sha_of "$1")
	[ "$old" = "$new" ] && return 0
	fail "image changed: $1 (sha256 $old -> $new)"
}

# fsck_clean IMG: e2fsck -fn exits 0 and asks nothing.
FSCK_N=0
fsck_clean() {
	local img=$1 rc=0 log
	FSCK_N=$((FSCK_N + 1))
	log=$RUN_DIR/fsck$FSCK_N.log
	e2fsck -fn "$img" >"$log" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ] || grep -Eq '\? (no|yes)$' "$log"; then
		sed 's/^/    /' "$log" >&2
		fail "e2fsck -fn $img: exit $rc, not clean"
	fi
}

# sb_field IMG 'Field name': a value from dumpe2fs -h.
sb_field() {
	dumpe2fs -h "$1" 2>/dev/null | sed -n "s/^$2: *//p"
}

# make_manifest IMG OUT
make_manifest() {
	"$MANIFEST" "$1" >"$2" 2>"$2.err" ||
		{ cat "$2.err" >&2; fail "manifest $1 failed"; }
	rm -f "$2.err"
}

# same_content ORIG_MANIFEST IMG: IMG's manifest equals the recorded one.
same_content() {
	local orig=$1 img=$2 now=$RUN_DIR/manifest.now
	make_manifest "$img" "$now"
	if ! diff -u "$orig" "$now" >"$now.diff"; then
		head -n 60 "$now.diff" >&2
		fail "manifest of $img differs from $orig"
	fi
	rm -f "$now" "$now.diff"
}

# undo_replay UNDO IMG: e2undo with UNDO on IMG, which must succeed.
undo_replay() {
	if ! e2undo "$1" "$2" >"$RUN_DIR/e2undo.log" 2>&1; then
		cat "$RUN_DIR/e2undo.log" >&2
		fail "e2undo $1 $2 failed"
	fi
}

# undo_restores UNDO IMG ORIG: e2undo with UNDO on IMG gives back ORIG,
# byte for byte.
undo_restores() {
	undo_replay "$1" "$2"
	cmp -s "$3" "$2" || fail "e2undo did not give back the original"
}

# block_bitmaps IMG: "GROUP BLOCK UNINIT" for each group's block bitmap,
# UNINIT 1 for a BLOCK_UNINIT group (whose bitmap libext2fs computes
# instead of reading it).
block_bitmaps() {
	dumpe2fs "$1" 2>/dev/null | awk '
		/^Group [0-9]+:/ { g = $2; sub(":", "", g); u = /BLOCK_UNINIT/ }
		/Block bitmap at [0-9]+/ {
			for (k = 1; k < NF; k++)
				if ($k == "at") { b = $(k + 1); sub(",", "", b) }
			print g, b, u + 0 }'
}

# rdump_sums IMG OUT: sha256 of every regular file as debugfs (a reader
# independent of the manifest helper) extracts it: "debugfs rdump" of
# every top-level entry, except for a top-level directory named "huge",
# whose files (sparse, up to 8 GiB with 4 KiB blocks, which rdump would
# write out in full) are summed from the block map debugfs prints (see
# mapped_sum).  Symlinks and device files are left to the manifest.
rdump_sums() {
	local img=$1 out=$2 d=$RUN_DIR/rdump.$$ e list=() f
	rm -rf "$d"
	mkdir -p "$d/tree"
	dbg "$img" "ls -p /" | awk -F/ 'NF >= 6 && $6 != "." && $6 != ".." {
		print $6 }' >"$d/top"
	while IFS= read -r e; do
		[ "$e" = huge ] || list+=("\"/$e\"")
	done <"$d/top"
	: >"$d/sums"
	if [ "${#list[@]}" -gt 0 ]; then
		debugfs -R "rdump ${list[*]} $d/tree" "$img" >"$d/log" 2>&1 ||
			{ cat "$d/log" >&2; fail "debugfs rdump of $img failed"; }
		if grep -v '^debugfs [0-9]' "$d/log" | grep -q .; then
			cat "$d/log" >&2
			fail "debugfs rdump of $img complained"
		fi
		(cd "$d/tree" && find . -type f -print0 |
			xargs -0r sha256sum) >>"$d/sums"
	fi
	if grep -qx huge "$d/top"; then
		"$MANIFEST" "$img" | awk '$1 ~ /^\/huge\// && $3 == "type=reg" {
			print $1 }' | sort -u >"$d/huge"
		while IFS= read -r f; do
			echo "$(mapped_sum "$img" "$f")  .$f"
		done <"$d/huge" >>"$d/sums"
	fi
	sort -k2 "$d/sums" >"$out"
	[ -s "$out" ] || fail "rdump of $img gave no files"
	rm -rf "$d"
}

# mapped_sum IMG PATH: a sha256 of a file's size, the logical numbers of
# its mapped blocks and their contents read straight from the image with
# dd, at the physical blocks debugfs stat lists (however the runs split).
mapped_sum() {
	local img=$1 path=$2 bs size runs l p n
	bs=$(sb_field "$img" 'Block size')
	dbg "$img" "stat \"$path\"" >"$RUN_DIR/mapped.stat"
	size=$(sed -n 's/.*Size: \([0-9]*\).*/\1/p' "$RUN_DIR/mapped.stat")
	[ -n "$size" ] || fail "debugfs cannot stat $path in $img"
	runs=$(awk '
		/^BLOCKS:/ { getline; line = $0 }
		END {
			n = split(line, a, ", ")
			for (i = 1; i <= n; i++) {
				t = a[i]
				if (t !~ /^\([0-9]/) continue
				sub(/^\(/, "", t)
				split(t, b, "\\):")
				split(b[1], l, "-")
				m = split(b[2], q, "-")
				c = (m == 2) ? q[2] - q[1] + 1 : 1
				print l[1], q[1], c
			}
		}' "$RUN_DIR/mapped.stat")
	rm -f "$RUN_DIR/mapped.stat"
	{
		echo "size $size"
		while read -r l p n; do
			[ -z "$l" ] || seq "$l" $((l + n - 1))
		done <<<"$runs"
		echo "data"
		while read -r l p n; do
			[ -z "$l" ] || dd if="$img" bs="$bs" skip="$p" \
				count="$n" status=none
		done <<<"$runs"
	} | sha256sum | cut -d' ' -f1
}

# same_rdump ORIG_SUMS IMG
same_rdump() {
	local orig=$1 img=$2 now=$RUN_DIR/rdump.now
	rdump_sums "$img" "$now"
	if ! diff -u "$orig" "$now" >"$now.diff"; then
		head -n 40 "$now.diff" >&2
		fail "file contents (debugfs rdump) of $img changed"
	fi
	rm -f "$now" "$now.diff"
}

# ---- debugfs -------------------------------------------------------

# dbg IMG CMD: one read-only debugfs command, output on stdout.
dbg() {
	debugfs -R "$2" "$1" 2>/dev/null
}

# dbg_w IMG < SCRIPT: run a debugfs -w script; fail if debugfs complains.
DBG_N=0
dbg_w() {
	local img=$1 s
	DBG_N=$((DBG_N + 1))
	s=$RUN_DIR/debugfs$DBG_N
	cat >"$s.cmds"
	debugfs -w -f "$s.cmds" "$img" >"$s.out" 2>"$s.err" ||
		{ cat "$s.err" >&2; fail "debugfs -w on $img failed"; }
	if grep -v '^debugfs [0-9]' "$s.err" | grep -q .; then
		grep -v '^debugfs [0-9]' "$s.err" | head -n 20 >&2
		fail "debugfs -w on $img complained (script $s.cmds)"
	fi
	rm -f "$s.cmds" "$s.out" "$s.err"
}

# stat_inodes IMG MANIFEST: debugfs stat of every inode in MANIFEST plus
# the journal inode (unless E3MP_COUNT_JOURNAL=0), independently of the
# tool.
stat_inodes() {
	local img=$1 man=$2 j
	{
		awk '$1 != "#" { sub(/^ino=/, "", $2); print $2 }' "$man"
		if [ "${E3MP_COUNT_JOURNAL:-1}" = 1 ]; then
			j=$(sb_field "$img" 'Journal inode')
			[ -z "$j" ] || echo "$j"
		fi
	} | sort -un | sed 's/.*/stat <&>/' >"$RUN_DIR/stat.cmds"
	debugfs -f "$RUN_DIR/stat.cmds" "$img" 2>/dev/null
}

# count_indirect IMG MANIFEST: count indirect blocks independently, from
# stat_inodes.  Prints "ind dind tind inodes_with_indirect".
count_indirect() {
	stat_inodes "$1" "$2" |
	awk '
		/^Inode: [0-9]+ / { cur = $2 }
		{
			line = $0
			i = gsub(/\(IND\):/, "", line)
			d = gsub(/\(DIND\):/, "", line)
			t = gsub(/\(TIND\):/, "", line)
			ind += i; dind += d; tind += t
			if (i + d + t > 0) has[cur] = 1
		}
		END {
			n = 0
			for (k in has) n++
			printf "%d %d %d %d\n", ind, dind, tind, n
		}'
}

# span_homed IMG MANIFEST SPAN: independently of the tool (stat_inodes),
# "HOMED TOTAL": of the TOTAL indirect blocks, how many lie in the group
# --mc-span=SPAN homes them in under inode homing, the first group of
# their inode's span (the inode's group, less its remainder by SPAN).
span_homed() {
	local bpg ipg first
	bpg=$(sb_field "$1" 'Blocks per group')
	ipg=$(sb_field "$1" 'Inodes per group')
	first=$(sb_field "$1" 'First block')
	stat_inodes "$1" "$2" | awk -v bpg="$bpg" -v ipg="$ipg" \
		-v first="$first" -v span="$3" '
		/^Inode: [0-9]+ / {
			g = int(($2 - 1) / ipg)
			home = g - g % span
		}
		{
			n = split($0, part, ", ")
			for (k = 1; k <= n; k++) {
				if (part[k] !~ /^\((IND|DIND|TIND)\):/)
					continue
				b = part[k]
				sub(/^\([A-Z]+\):/, "", b)
				total++
				if (int((b - first) / bpg) == home)
					homed++
			}
		}
		END { printf "%d %d\n", homed, total }'
}

# child_steps IMG MANIFEST: independently of the tool (stat_inodes),
# how the IND blocks under each DIND follow each other on disk, in
# logical order: "UP DOWN", the number of steps to a higher block and to
# a lower one, over all DINDs.  After --order=fsck they go up; after
# --order=delete, down.
child_steps() {
	stat_inodes "$1" "$2" | awk '
		/^Inode: [0-9]+ / { prev = 0 }
		{
			n = split($0, part, ", ")
			for (k = 1; k <= n; k++) {
				if (part[k] ~ /^\((DIND|TIND)\):/) {
					prev = 0
				} else if (part[k] ~ /^\(IND\):/) {
					b = substr(part[k], 7) + 0
					if (prev && b > prev) up++
					if (prev && b < prev) down++
					prev = b
				}
			}
		}
		END { printf "%d %d\n", up, down }'
}

# dir_blocks IMG MANIFEST: "INO BLOCK BLOCK ..." for every directory in
# MANIFEST, its data blocks in logical order as debugfs stat lists them
# (a reader independent of the tool; an extent-mapped one lists none),
# one line each, sorted as comm(1) wants.
dir_blocks() {
	awk '$1 != "#" && $3 == "type=dir" { sub(/^ino=/, "", $2); print $2 }' \
		"$2" | sort -un | sed 's/.*/stat <&>/' >"$RUN_DIR/dstat.cmds"
	debugfs -f "$RUN_DIR/dstat.cmds" "$1" 2>/dev/null | awk '
		function out() { if (ino != "") print ino line }
		/^Inode: [0-9]+ / { out(); ino = $2; line = ""; blk = 0 }
		/^BLOCKS:/ { blk = 1; next }
		/^TOTAL:/ { blk = 0 }
		blk {
			n = split($0, part, ", ")
			for (k = 1; k <= n; k++) {
				if (part[k] !~ /^\([0-9]/)
					continue	# (IND), (DIND), (TIND)
				sub(/^\([^)]*\):/, "", part[k])
				split(part[k], r, "-")
				e = r[2] == "" ? r[1] : r[2]
				for (b = r[1]; b <= e; b++)
					line = line " " b
			}
		}
		END { out() }' | LC_ALL=C sort
}

# dirs_scattered IMG MANIFEST [FROM]: independently of the tool
# (dir_blocks), print one line per block-mapped directory whose data
# blocks from logical block FROM (0) on are not one contiguous run in
# logical order ("INO FIRST-BREAK"); nothing when every directory is
# packed.  (--dirs=roots puts block 0 apart, --dirs=volume an htree's:
# FROM 1, see dirs_run_from.)
dirs_scattered() {
	dir_blocks "$1" "$2" | awk -v from="${3:-0}" '{
		for (k = 3 + from; k <= NF; k++)
			if ($k != $(k - 1) + 1) {
				print $1, $(k - 1) + 1
				break
			}
	}'
}

# dirs_mode ARG...: the --dirs mode the tool runs under with these
# arguments (its default when none is given).
dirs_mode() {
	local a m=volume
	for a; do
		case $a in --dirs=*) m=${a#--dirs=} ;; esac
	done
	echo "$m"
}

# dirs_run_from MODE: the logical block from which each directory is one
# run after a repack under --dirs=MODE (dirs_scattered's FROM).
dirs_run_from() {
	case $1 in roots | volume) echo 1 ;; *) echo 0 ;; esac
}

# ---- JSON ----------------------------------------------------------

# expect_json [FILE]: FILE (default: last stdout) is one JSON object.
expect_json() {
	local f=${1:-$RUN_OUT}
	if ! jq -se 'length == 1 and (.[0] | type == "object")' "$f" \
		>/dev/null 2>&1; then
		_lib_show_run
		fail "stdout is not exactly one JSON object"
	fi
}

# json_get FIELD [FILE]: value of a dotted field ("moves.indirect") of
# the last stdout; fails when the field is absent.  Strings come out
# raw, null as "null".
json_get() {
	local f=$1 file=${2:-$RUN_OUT} parent last
	case $f in
	*.*) parent=.${f%.*} last=${f##*.} ;;
	*) parent=. last=$f ;;
	esac
	jq -e "($parent | type == \"object\") and ($parent | has(\"$last\"))" \
		"$file" >/dev/null 2>&1 || {
		_lib_show_run
		fail "JSON field '$f' is missing"
	}
	jq -r ".$f" "$file"
}

# json_int FIELD [FILE]: like json_get, but it must be an integer >= 0.
json_int() {
	local v
	v=$(json_get "$@")
	case $v in
	''|*[!0-9]*) _lib_show_run; fail "JSON field '$1' = '$v', not a count" ;;
	esac
	echo "$v"
}

# ---- cases ---------------------------------------------------------
#
# A test's cases are one line each of shell assignments:
#
#	CASES='
#	name=ext2-1k  BS=1024 FSTYPE=ext2 PROFILE=mixed SIZE=64M
#	name=slow-4k  BS=4096 FSTYPE=ext3 PROFILE=tind  SIZE=8G SLOW=1
#	'
#	run_cases check_one "$CASES"
#
# Each case runs in a subshell with its own RUN_DIR ($T/NAME), which is
# removed when the case passes.  A failing case does not stop the others;
# the test fails at the end if any did.

run_cases() {
	local func=$1 cases=$2 line name rc t0 notok
	local passed=0 failed='' skipped=0
	while IFS= read -r line; do
		line=${line%%#*}
		[ -n "${line//[[:space:]]/}" ] || continue
		name=$(eval "$line"; echo "${name:-}")
		[ -n "$name" ] || fail "case without name=: $line"
		if [ -n "${E3MP_CASES:-}" ]; then
			local pat hit=
			for pat in $E3MP_CASES; do
				# shellcheck disable=SC2053
				if [[ $name == $pat ]]; then hit=1; fi
			done
			[ -n "$hit" ] || continue
		fi
		case " $line " in
		*" SLOW=1 "*)
			if [ "${E3MP_SLOW:-0}" != 1 ]; then
				_tap_line ok "$name" \
					"slow (E3MP_SLOW=1 runs it)"
				skipped=$((skipped + 1))
				continue
			fi ;;
		esac
		echo "## case $name: $line"
		t0=$SECONDS
		notok=$(_tap_notok_count)
		rm -f "$T/.tap_skip"
		trap - ERR
		set +e
		(
			set -eE
			_lib_traps
			trap - EXIT
			TAP_CASE=$name TAP_STEP= TAP_BASE=$(_tap_count)
			eval "$line"
			RUN_DIR=$T/$name
			mkdir -p "$RUN_DIR"
			"$func"
			_tap_close
		)
		rc=$?
		set -e
		_lib_traps
		case $rc in
		0)	echo "# case $name passed ($((SECONDS - t0))s)"
			passed=$((passed + 1))
			[ -n "${E3MP_KEEP:-}" ] || rm -rf "${T:?}/$name" ;;
		77)	_tap_line ok "$name" "$(cat "$T/.tap_skip" \
				2>/dev/null || echo skipped)"
			skipped=$((skipped + 1))
			rm -rf "${T:?}/$name" ;;
		*)	[ "$(_tap_notok_count)" -gt "$notok" ] ||
				_tap_line "not ok" "$name: exited $rc"
			echo "# case $name failed (exit $rc," \
			     "$((SECONDS - t0))s; files in $T/$name)"
			failed="$failed $name" ;;
		esac
	done <<<"$cases"
	# shellcheck disable=SC2086
	set -- $failed
	echo "# $TEST_NAME cases: ok $passed, not ok $#, skipped $skipped"
	# (each failed case has said "not ok" already)
	[ -z "$failed" ] || exit 1
	[ "$passed" -gt 0 ] || skip "no case ran"
}

# ---- images --------------------------------------------------------

. "$_lib_dir/mkimg.sh"
