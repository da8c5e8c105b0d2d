#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# identity.sh OLD NEW: a change that must not change behaviour did not.
#
# Not part of make check (it needs a second binary): run by hand around a
# refactoring, e.g.
#
#	cp src/e3metapack /tmp/e3mp-base	# before
#	...
#	tests/identity.sh /tmp/e3mp-base src/e3metapack
#
# On every image type of t0300-repack.sh (its CASES, SLOW ones too; built
# once by mkimg.sh into $E3MP_IDENTITY_CACHE, default
# /tmp/e3mp-identity-imgs, and reused) both binaries run on copies of the
# image with each option combination of COMBOS below; the images after
# the run must be cmp-identical, the exit codes and the stderr equal, and
# the --json objects equal but for the fields named in E3MP_IDENTITY_SKIP
# (jq paths, e.g. '.before.fsck_seeks .after.fsck_seeks'; default none:
# the JSON holds no wall-clock timings, every figure is modelled).  One
# combination runs with an undo file; the undo files must be identical
# too.
#
# COMBOS: every --home rule with every --dirs mode (12), both orders with
# each rule (--order=delete, 3 more), the --mc-max bounds (1, 50), two
# spans (--mc-span=2, and 3 with --home=data), a
# non-reference --disk and a dry run; --partition, -p, -v, -d change no
# plan and are left out.  A combination's options are joined by '+'
# (--disk's value holds commas); E3MP_IDENTITY_COMBOS replaces the list.
# E3MP_CASES (shell patterns) narrows the images, E3MP_IDENTITY_QUICK=1
# the combinations to the first of each kind;
# E3MP_IDENTITY_IMAGES (paths) adds images of one's own, e.g. bench/run's
# (E3MP_CASES='none' then runs those alone).
#
# Prints one line per difference and a summary; exits 1 on a difference.

# shellcheck source=tests/lib.sh
. "${0%/*}/lib.sh"

[ $# -eq 2 ] || fail "usage: identity.sh OLD_BINARY NEW_BINARY"
OLD=$(readlink -f "$1") NEW=$(readlink -f "$2")
[ -x "$OLD" ] && [ -x "$NEW" ] || fail "not executables: $1 $2"
need_manifest
need cmp jq

CACHE=${E3MP_IDENTITY_CACHE:-/tmp/e3mp-identity-imgs}
mkdir -p "$CACHE"

COMBOS=''
for home in inode data inline; do
	for dirs in volume leave pack roots; do
		COMBOS="$COMBOS --home=$home+--dirs=$dirs"
	done
	COMBOS="$COMBOS --home=$home+--order=delete"
done
COMBOS="$COMBOS --mc-max=1 --mc-max=50 --mc-span=2 --mc-span=3+--home=data
	--disk=2,20,6,100 -n
	--home=data+--dirs=pack+-zUNDO"
if [ -n "${E3MP_IDENTITY_QUICK:-}" ]; then
	COMBOS='--home=inode+--dirs=volume --home=data+--dirs=pack
		--home=inline+--order=delete -zUNDO'
fi
COMBOS=${E3MP_IDENTITY_COMBOS:-$COMBOS}

# The cases of t0300 (its CASES='...' block), one line each.
t0300_cases() {
	sed -n "/^CASES='/,/^'/p" "$_lib_dir/t0300-repack.sh" |
		sed '1d;$d'
}

# image_for LINE: the cached image of case LINE (built when missing).
image_for() {
	local line=$1 name img
	name=$(eval "$line"; echo "$name")
	img=$CACHE/$name.img
	if [ ! -f "$img" ]; then
		(
			unset ARGS SWITCH SLOW MC_MIN_PCT SECOND_RC
			eval "$line"
			RUN_DIR=$T/build-$name
			mkdir -p "$RUN_DIR"
			mkimg "$T/$name.img" >&2
		)
		mv "$T/$name.img" "$img"
	fi
	echo "$img"
}

# run_one BIN DIR IMG ARGS: run BIN on a copy of IMG in DIR, as "v.img"
# (the JSON names the device); leaves rc, out.json, err.txt there.
run_one() {
	local bin=$1 dir=$2 img=$3 args=$4 rc=0
	local -a a
	mkdir -p "$dir"
	cp --sparse=always "$img" "$dir/v.img"
	IFS=+ read -r -a a <<<"$args"
	a=("${a[@]/#-zUNDO/-z$dir/../u-${dir##*/}.e2undo}")
	case $args in *-zUNDO*) ;; *) a+=(-z none) ;; esac
	(cd "$dir" && timeout -k 10 "$E3MP_TIMEOUT" "$bin" --json "${a[@]}" \
		v.img >out.json 2>err.txt </dev/null) || rc=$?
	echo "$rc" >"$dir/rc"
	# the undo file's path differs between the two runs
	sed -i "s#$dir/\.\./u-${dir##*/}#UNDO#g" "$dir/out.json" \
		"$dir/err.txt"
}

# json_norm FILE: the JSON without the fields E3MP_IDENTITY_SKIP names.
json_norm() {
	local f=$1 filt=. p
	for p in ${E3MP_IDENTITY_SKIP:-}; do
		filt="$filt | del($p)"
	done
	jq -S "$filt" "$f" 2>/dev/null || cat "$f"
}

# compare IMG NAME ARGS: one combination; prints the differences.
compare() {
	local img=$1 name=$2 args=$3 w=$T/cmp what=''
	rm -rf "$w"
	run_one "$OLD" "$w/old" "$img" "$args"
	run_one "$NEW" "$w/new" "$img" "$args"
	cmp -s "$w/old/rc" "$w/new/rc" ||
		what="$what exit($(cat "$w/old/rc")/$(cat "$w/new/rc"))"
	cmp -s "$w/old/v.img" "$w/new/v.img" || what="$what image"
	cmp -s "$w/old/err.txt" "$w/new/err.txt" || what="$what stderr"
	cmp -s <(json_norm "$w/old/out.json") \
		<(json_norm "$w/new/out.json") || what="$what json"
	if [ -f "$w/u-old.e2undo" ]; then
		cmp -s "$w/u-old.e2undo" "$w/u-new.e2undo" ||
			what="$what undo"
	fi
	if [ -n "$what" ]; then
		echo "DIFF $name $args:$what"
		diff <(json_norm "$w/old/out.json") \
			<(json_norm "$w/new/out.json") | sed -n '1,10s/^/  /p'
		return 1
	fi
}

runs=0 diffs=0 images=0
while IFS= read -r line; do
	line=${line%%#*}
	[ -n "${line//[[:space:]]/}" ] || continue
	name=$(eval "$line"; echo "$name")
	if [ -n "${E3MP_CASES:-}" ]; then
		hit=
		for pat in $E3MP_CASES; do
			# shellcheck disable=SC2053
			if [[ $name == $pat ]]; then hit=1; fi
		done
		[ -n "$hit" ] || continue
	fi
	img=$(image_for "$line")
	images=$((images + 1))
	for args in $COMBOS; do
		runs=$((runs + 1))
		compare "$img" "$name" "$args" || diffs=$((diffs + 1))
	done
done <<<"$(t0300_cases)"
# Images of one's own (the bench's, say), named by their paths.
for img in ${E3MP_IDENTITY_IMAGES:-}; do
	[ -f "$img" ] || fail "no such image: $img"
	images=$((images + 1))
	for args in $COMBOS; do
		runs=$((runs + 1))
		compare "$img" "${img##*/}" "$args" || diffs=$((diffs + 1))
	done
done
skipped=${E3MP_IDENTITY_SKIP:+, JSON without $E3MP_IDENTITY_SKIP}
echo "# identity: $images images, $runs combinations, $diffs differ" \
     "(old $OLD, new $NEW$skipped)"
[ "$diffs" -eq 0 ] || fail "$diffs of $runs runs differ"
check "every run identical"
