#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t0000-usage: options, usage text and exit codes; no volume is needed.
#
# Usage errors exit 16 with the usage text on stderr and nothing on
# stdout.  Valid options given a device that does not exist get as far as
# opening it: exit 4, "No such file or directory while opening DEV".

# shellcheck source=tests/lib.sh disable=SC2031,SC2119
. "${0%/*}/lib.sh"
need_tool

NOPE=$T/no-such-device.img
OPEN_FAILED="e3metapack: No such file or directory while opening $NOPE"

check "-h prints the usage, naming the long options, and exits 0"
run_tool -h
expect_exit 0
cat "$RUN_OUT" "$RUN_ERR" >"$T/help"
grep -qi 'usage' "$T/help" || fail "-h prints no usage text"
for opt in --home --order --mc-max --mc-span --json --disk; do
	grep -q -e "$opt" "$T/help" || fail "-h does not mention $opt"
done

check "-V prints the program and a version number, and exits 0"
run_tool -V
expect_exit 0
cat "$RUN_OUT" "$RUN_ERR" >"$T/version"
grep -q 'e3metapack' "$T/version" || fail "-V does not name the program"
grep -Eq '[0-9]+\.[0-9]+' "$T/version" || fail "-V prints no version"

# Each line: the arguments of one run that must be a usage error.
check "a usage error exits 16 with the usage on stderr, nothing on stdout"
USAGE_ERRORS="
	(none)
	-x $NOPE
	-Q $NOPE
	--frobnicate $NOPE
	--home=sideways $NOPE
	--home= $NOPE
	--home $NOPE
	--order=backwards $NOPE
	--order= $NOPE
	--mc-max=0 $NOPE
	--mc-max=101 $NOPE
	--mc-max=abc $NOPE
	--mc-max=-5 $NOPE
	--mc-max=50x $NOPE
	--mc-max= $NOPE
	--mc-span=0 $NOPE
	--mc-span=17 $NOPE
	--mc-span=two $NOPE
	--mc-span=-2 $NOPE
	--mc-span= $NOPE
	--disk= $NOPE
	--disk=1,15,4.17 $NOPE
	--disk=1,15,4.17,150,9 $NOPE
	--disk=1,15,4.17,0 $NOPE
	--disk=16,15,4.17,150 $NOPE
	--disk=-1,15,4.17,150 $NOPE
	--disk=1,15,x,150 $NOPE
	--disk=1,2000,4,150 $NOPE
	--read-ahead= $NOPE
	--read-ahead=x $NOPE
	--read-ahead=-1 $NOPE
	--read-ahead=2097152 $NOPE
	$NOPE $NOPE.second
	-n $NOPE $NOPE.second
	-z
	-d
"
while read -r args; do
	[ -n "$args" ] || continue
	[ "$args" = "(none)" ] && args=
	# shellcheck disable=SC2086
	run_tool $args
	expect_exit 16
	expect_stderr_grep '[Uu]sage'
	expect_stdout_empty
	[ ! -e "$NOPE" ] || fail "a usage error created $NOPE"
done <<<"$USAGE_ERRORS"

# Each line: valid options; the run must fail only at opening $NOPE.
check "valid options on a missing device exit 4, failing only to open it"
VALID="
	$NOPE
	-n $NOPE
	-f -n -p -v $NOPE
	-fnpv $NOPE
	-z none $NOPE
	-z $T/undo.e2undo $NOPE
	--home=inode $NOPE
	--home=data $NOPE
	--home=inline $NOPE
	--order=fsck $NOPE
	--order=delete --home=data -n $NOPE
	--mc-max=1 $NOPE
	--mc-max=50 $NOPE
	--mc-max=50 --home=data -n $NOPE
	--mc-span=1 $NOPE
	--mc-span=16 --home=data -n $NOPE
	-d 0 -n $NOPE
	--disk=1,15,4.17,150 $NOPE
	--disk=0.5,8,2,250 -n $NOPE
	--disk=0,0,0,0.5 $NOPE
	--read-ahead=0 $NOPE
	--read-ahead=2560 -n $NOPE
"
while read -r args; do
	[ -n "$args" ] || continue
	# shellcheck disable=SC2086
	run_tool $args
	expect_exit 4
	expect_stderr_line "$OPEN_FAILED"
	[ ! -e "$NOPE" ] || fail "e3metapack $args created $NOPE"
done <<<"$VALID"

# A bad --disk says what it wants.
run_tool --disk=1,15 "$NOPE"
expect_exit 16
expect_stderr_grep 'invalid --disk \(want SETTLE_MS,STROKE_MS,HALF_ROT_MS,MB_PER_S'

# --json still fails the same way (what it prints on stdout is not
# specified for failures before the volume is open).
check "--json on a missing device fails the same way"
run_tool --json -n "$NOPE"
expect_exit 4
expect_stderr_line "$OPEN_FAILED"
