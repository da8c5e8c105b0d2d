#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t0270-tool-time: the report's prediction of the run's own time on the
# model disk (predicted.tool_ms) against what the bench measures: the
# run's reads and writes of the volume, traced with strace and replayed
# through bench/hddmodel.py's strace command (its writeback kicks and
# read-ahead advice too, with the model's kick lag).  They must agree within
# 15 %.  The traced run repacks a copy, which must then be clean and hold
# what the original held.  Every case is in the slow tier; without strace
# or python3 a case is skipped.
#
# Case variables: the image (see mkimg.sh), and
#   ARGS        extra e3metapack arguments (e.g. --dirs=pack, -z none)

# shellcheck source=tests/lib.sh disable=SC2031,SC2119
. "${0%/*}/lib.sh"
need_tool
need_manifest

CASES='
name=ext3-1k-mixed BS=1024 FSTYPE=ext3 PROFILE=mixed SIZE=64M SLOW=1
name=ext3-4k-mixed BS=4096 FSTYPE=ext3 PROFILE=mixed SIZE=256M SLOW=1
name=ext3-1k-tind BS=1024 FSTYPE=ext3 PROFILE=tind SIZE=32M SLOW=1
name=e4csum-2k-aged BS=2048 FSTYPE=ext4noext-csum PROFILE=aged SIZE=128M SLOW=1
name=e4nf-1k-mixed BS=1024 FSTYPE=ext4noext-flex PROFILE=mixed SIZE=64M SLOW=1
name=1k-noundo BS=1024 FSTYPE=ext3 PROFILE=mixed SIZE=64M ARGS="-z none" SLOW=1
name=1k-dirs BS=1024 FSTYPE=ext3 PROFILE=dirs SIZE=64M ARGS=--dirs=pack SLOW=1'

HDDMODEL=$_lib_dir/../bench/hddmodel.py
# How late the writes of the copies' writeback kicks reach the disk: the
# model's one figure (src/model/disk.h), which the replay must use too.
KICK_LAG=$(awk '$2 == "MP_TOOLIO_KICK_LAG_MS" { print $3 }' \
	"$_lib_dir/../src/model/disk.h")

# replay TRACE IMG BS: the traced run's modelled time in ms.
replay() {
	[[ $KICK_LAG =~ ^[0-9.]+$ ]] ||
		fail "no MP_TOOLIO_KICK_LAG_MS in src/model/disk.h"
	python3 "$HDDMODEL" strace "$1" --image "$2" --span \
		"$(stat -c %s "$2")" --bs "$3" --kick-lag-ms "$KICK_LAG" \
		>"$RUN_DIR/replay.json" || fail "hddmodel.py strace failed"
	jq -r .time_ms "$RUN_DIR/replay.json"
}

tool_time_case() {
	local img=$RUN_DIR/img copy=$RUN_DIR/copy pred real undo=()
	local calls=read,write,pread64,pwrite64,preadv,pwritev,preadv2
	local kicks=sync_file_range,fadvise64
	need strace python3 jq
	[ -f "$HDDMODEL" ] || skip "no $HDDMODEL"
	MAN=$RUN_DIR/manifest
	mkimg "$img"
	make_manifest "$img" "$MAN"
	# shellcheck disable=SC2206
	local args=(${ARGS:-})
	[[ " ${ARGS:-} " == *" -z "* ]] || undo=(-z "$RUN_DIR/undo")

	check "the report predicts the run's own time"
	run_tool -n --json "${undo[@]}" "${args[@]}" "$img"
	expect_exit 0
	pred=$(jq -r '.predicted.tool_ms.total' "$RUN_OUT")
	[[ $pred =~ ^[0-9]+(\.[0-9]+)?$ ]] ||
		fail "predicted.tool_ms.total is '$pred'"

	check "the traced run's replay is within 15 % of it"
	cp --sparse=always "$img" "$copy"
	strace -f -y -T -o "$RUN_DIR/trace" \
		-e trace="$calls,pwritev2,fsync,fdatasync,$kicks" \
		"$E3MP" "${undo[@]}" "${args[@]}" "$copy" \
		>"$RUN_DIR/run.out" 2>&1 || fail "the traced run failed"
	real=$(replay "$RUN_DIR/trace" "$copy" "$BS")
	info "predicted $pred ms, replayed $real ms"
	awk -v p="$pred" -v r="$real" 'BEGIN { e = (p - r) / r;
		exit !(r > 0 && e <= 0.15 && e >= -0.15) }' ||
		fail "predicted $pred ms, replayed $real ms: over 15 % apart"

	check "the traced copy is clean and holds what the original held"
	fsck_clean "$copy"
	same_content "$MAN" "$copy"
}

run_cases tool_time_case "$CASES"
