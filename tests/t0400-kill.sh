#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t0400-kill: kill -9 at the K-th write to the image, for K spread over
# the whole run.  A first, clean run under strace counts the N writes
# (pwrite64 for blocks, write for superblock fields; see kill-sweep.sh);
# then for each K in a fixed list spread over [1, N] the tool is run on a
# fresh copy of the image with
#
#	strace -P IMG -e inject=SYSCALL:signal=SIGKILL:when=J
#
# (J: the K-th write is the J-th SYSCALL), which kills it on entry to
# that write: writes 1..K-1 are on the image, the K-th is not (checked
# from the trace).  On the killed image:
#
#   (a) e2undo UNDO on a copy gives back the original, byte for byte;
#   (b) without the undo file, e2fsck -fy on a copy exits 0 or 1, a
#       following e2fsck -fn exits 0 and asks nothing, and every file,
#       directory, link and attribute is as before (the manifest, compared
#       with the original's after e2fsck -fy of the original: on ext3,
#       e2fsck -fy indexes the big directories mke2fs -d left unindexed).
#
# Every K is checked; a failure names the case (image type) and the K,
# and the test fails at the end of the case with the list of bad K.
# --home=data and --home=inline each get a sample of a few kill points.
#
# The cases are kill-sweep.sh's table, shared with t0410: KILLS kill
# points in the default run (12); with E3MP_SLOW=1 every case, and every
# write of the run is a kill point (SLOW_KILLS of them where a case sets
# it: the --dirs layout variants).
# Environment:
#   E3MP_KILLS=N|all   override KILLS for every case
#   E3MP_UNDO_EXACT=0  for (a), accept an e2undo that restores everything
#                      but the superblock's s_state/s_wtime/s_kbytes_written
#                      /s_checksum (what stock e2undo changes after it
#                      replays an undo file not marked finished), with
#                      e2undo -f if e2undo refuses; default 1: exact

. "${0%/*}/lib.sh"
. "${0%/*}/kill-sweep.sh"
need_tool
need_manifest
ks_need_strace

# The superblock bytes stock e2undo rewrites when it marks the volume
# not clean after replaying an unfinished undo file.
undo_near_exact() {
	local orig=$1 killed=$2 undo=$3 u=$RUN_DIR/near.img rc=0 bad
	cp --sparse=always "$killed" "$u"
	e2undo "$undo" "$u" >"$u.log" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ]; then
		rc=0
		cp --sparse=always "$killed" "$u"
		e2undo -f "$undo" "$u" >"$u.log" 2>&1 || rc=$?
	fi
	[ "$rc" -eq 0 ] || return 1
	# offsets (0-based) outside s_wtime, s_state, s_kbytes_written and
	# s_checksum of the primary superblock
	bad=$({ cmp -l "$orig" "$u" 2>/dev/null || true; } |
		awk '{ o = $1 - 1025 }
		!((o >= 48 && o < 52) || o == 58 || o == 59 ||
		  (o >= 376 && o < 384) || (o >= 1020 && o < 1024))' |
		wc -l)
	rm -f "$u" "$u.log"
	[ "$bad" -eq 0 ]
}

kill_case() {
	local orig=$RUN_DIR/orig.img work=$RUN_DIR/k.img man=$RUN_DIR/orig.man
	local kills=${E3MP_KILLS:-${KILLS:-12}} k sc j where done_w
	local bad_undo='' bad_fsck='' bad_run='' n=0 line fixed
	ARGS=${ARGS:-}
	[ "${E3MP_SLOW:-0}" != 1 ] || kills=${E3MP_KILLS:-${SLOW_KILLS:-all}}

	mkimg "$orig"
	ks_base_manifest "$orig" "$man"
	# shellcheck disable=SC2086
	ks_count "$orig" $ARGS
	info "kill points: $(ks_spread "$KS_NW" "$kills" | wc -l) of $KS_NW"

	for k in $(ks_spread "$KS_NW" "$kills"); do
		n=$((n + 1))
		read -r sc j <<<"$(ks_write_syscall "$k")"
		where=$(ks_write_where "$k")
		line="$name K=$k/$KS_NW ($sc #$j, $where)"
		# shellcheck disable=SC2086
		ks_inject "$orig" "$work" "$(ks_kill_spec "$k")" $ARGS
		if [ "$KS_RC" -ne 137 ]; then
			echo "FAIL: $line: not killed: exit $KS_RC" >&2
			sed -n '1,5s/^/    /p' "$KS_ERR" >&2
			bad_run="$bad_run $k"
			continue
		fi
		done_w=$(ks_done_writes "$KS_TRACE")
		if [ "$done_w" -ne $((k - 1)) ]; then
			echo "FAIL: $line: $done_w writes done before the" \
			     "kill, expected $((k - 1)): the run is not" \
			     "deterministic" >&2
			bad_run="$bad_run $k"
			continue
		fi
		# (a) the undo file
		if ks_check_undo "$orig" "$work" "$KS_UNDO"; then
			line="$line: undo exact"
		elif [ "${E3MP_UNDO_EXACT:-1}" = 0 ] &&
		     undo_near_exact "$orig" "$work" "$KS_UNDO"; then
			line="$line: undo exact but for the superblock state"
			echo "# $name K=$k: $KS_WHY"
		else
			echo "FAIL: $name K=$k: e2undo does not restore the" \
			     "original: $KS_WHY" >&2
			bad_undo="$bad_undo $k"
			line="$line: UNDO FAILED"
		fi
		# (b) e2fsck alone
		if ks_check_fsck "$man" "$work"; then
			fixed=${KS_FIXED:-nothing}
			line="$line; e2fsck -fy fixed: $fixed"
		else
			echo "FAIL: $name K=$k: $KS_WHY" >&2
			[ ! -f "$RUN_DIR/fsck-y.failed.log" ] ||
				sed 's/^/    /' "$RUN_DIR/fsck-y.failed.log" |
				head -n 40 >&2
			mv -f "$RUN_DIR/fsck-y.failed.log" \
				"$RUN_DIR/fsck-y.K$k.log" 2>/dev/null || true
			bad_fsck="$bad_fsck $k"
			line="$line; FSCK FAILED"
		fi
		echo "# $line"
	done
	rm -f "$work" "$work".*
	info "$name: $n kill points"
	check "kill -9 lands at each chosen write, after the writes before"
	[ -z "$bad_run" ] ||
		fail "kill not as counted at K=${bad_run# } (of N=$KS_NW writes)"
	check "after kill -9 at any write, e2undo restores the original exactly"
	[ -z "$bad_undo" ] ||
		fail "e2undo not exact at K=${bad_undo# } (of N=$KS_NW writes)"
	check "after kill -9 at any write, e2fsck -fy recovers every file"
	[ -z "$bad_fsck" ] ||
		fail "e2fsck recovery failed at K=${bad_fsck# }" \
		     "(of N=$KS_NW writes)"
}

run_cases kill_case "$(ks_cases kill)"
