#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t0265-fsck-prediction: the report's walk of e2fsck -fn's own reads
# agrees with a replay of them.  For each image: e2fsck -fn runs with
# test_io logging every block it reads (Debian builds it in;
# TEST_IO_FLAGS=0x05), bench/hddmodel.py replays that log through the
# same disk model, and e3metapack -n --json's predicted.own_reads_ms.before
# (the walk with no kernel between e2fsck and the disk) must be within
# 15 % of the replay; then a copy is packed (fsck-clean, contents
# unchanged), and predicted.own_reads_ms.after of the dry run on the stock
# image must be within 15 % of the replay on the packed copy.  (The
# prediction through the kernel is checked against the emulated disk by
# bench/realfsck.)  Only with E3MP_SLOW=1 (make check-slow): every case
# runs e2fsck twice under test_io.
#
# Case variables: mkimg's (tests/mkimg.sh), and ARGS, e3metapack's options
# for both runs.

# shellcheck source=tests/lib.sh disable=SC2031,SC2119
. "${0%/*}/lib.sh"
need_tool
need_manifest
need e2fsck python3 jq awk

HDDMODEL=$top_srcdir/bench/hddmodel.py
[ -f "$HDDMODEL" ] || skip "no $HDDMODEL"
# one CPU: e2fsck's threaded bitmap reads then log in one order
ONECPU=$top_builddir/bench/onecpu.so
[ -f "$ONECPU" ] || ONECPU=

TOLERANCE=15

CASES='
name=ext3-1k-mixed      BS=1024 FSTYPE=ext3           PROFILE=mixed SIZE=64M  SLOW=1
name=ext3-4k-mixed      BS=4096 FSTYPE=ext3           PROFILE=mixed SIZE=256M GPB=8192 SLOW=1
name=ext3-1k-tind       BS=1024 FSTYPE=ext3           PROFILE=tind  SIZE=32M  SLOW=1
name=e4csum-2k-aged     BS=2048 FSTYPE=ext4noext-csum PROFILE=aged  SIZE=128M SLOW=1
name=e4nf-1k-mixed      BS=1024 FSTYPE=ext4noext-flex PROFILE=mixed SIZE=64M  SLOW=1
name=ext3-1k-dirs-pack  BS=1024 FSTYPE=ext3           PROFILE=dirs  SIZE=64M  ARGS=--dirs=pack SLOW=1
name=ext3-1k-tind-delete BS=1024 FSTYPE=ext3          PROFILE=tind  SIZE=32M  ARGS=--order=delete SLOW=1
'

# replay IMG: e2fsck -fn's reads of IMG through the model, in ms.
replay() {
	local log=$RUN_DIR/fsck.log rc=0
	rm -f "$log"
	LD_PRELOAD=$ONECPU TEST_IO_FLAGS=0x05 TEST_IO_LOGFILE=$log \
		e2fsck -fn -E readahead_kb=0 "$1" >/dev/null 2>&1 || rc=$?
	[ "$rc" = 0 ] || fail "e2fsck -fn $1 exited $rc"
	[ -s "$log" ] || fail "e2fsck logged no reads (built without test_io?)"
	python3 "$HDDMODEL" fsck "$log" --span "$(stat -c %s "$1")" \
		--bs "$BS" | jq .time_ms
}

# within WHAT PREDICTED REPLAYED: |PREDICTED - REPLAYED| <= TOLERANCE %.
within() {
	awk -v p="$2" -v r="$3" -v t="$TOLERANCE" 'BEGIN {
		e = 100 * (p - r) / r
		printf "%+.1f\n", e
		exit !(r > 0 && e <= t && e >= -t) }' >"$RUN_DIR/err" ||
		fail "$1: predicted $2 ms, replayed $3 ms" \
		     "($(cat "$RUN_DIR/err") %, more than $TOLERANCE %)"
	info "$1: predicted $2 ms, replayed $3 ms ($(cat "$RUN_DIR/err") %)"
}

predict_case() {
	local img=$RUN_DIR/img packed=$RUN_DIR/packed.img before after
	ARGS=${ARGS:-}

	mkimg "$img"
	make_manifest "$img" "$RUN_DIR/orig.manifest"

	check "the prediction before is within $TOLERANCE % of the replay"
	# shellcheck disable=SC2086
	run_tool -n --json $ARGS "$img"
	expect_exit 0
	expect_json
	before=$(json_get predicted.own_reads_ms.before)
	after=$(json_get predicted.own_reads_ms.after)
	within before "$before" "$(replay "$img")"

	check "the prediction after is within $TOLERANCE % of the replay" \
	      "on the packed copy"
	cp --sparse=always "$img" "$packed"
	# shellcheck disable=SC2086
	run_tool -z none $ARGS "$packed"
	expect_exit 0
	fsck_clean "$packed"
	same_content "$RUN_DIR/orig.manifest" "$packed"
	within after "$after" "$(replay "$packed")"
}

run_cases predict_case "$CASES"
