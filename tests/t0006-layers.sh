#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t0006-layers: src/ imports and calls downward only; no volume is needed.
#
# The directories of src/, from the bottom up (the order of LAYERS):
# lib (generic helpers), core (records, group geometry), model (the
# model disk), io (I/O layers, undo file, read-ahead), gate (the checks
# before any write), scan, plan, predict, write, and src/ itself (main.c,
# prepare.c, report.c).  A file may include headers of its own directory
# and of those below it, by their path from src/; the one exception is
# the shared state, src/e3metapack.h, which every stage's .c includes as
# resize2fs's files include resize2fs.h.  The objects the build made
# must agree: no file calls a function or uses a variable defined in a
# directory above its own, and no two files depend on each other, also
# through others (a cycle), in their includes or their symbols.  The
# model is at arm's length: the tool's files see it through model/model.h
# only; its disk and walks (model/disk.h) are the model's own.

# shellcheck source=tests/lib.sh
. "${0%/*}/lib.sh"
need nm tsort awk

LAYERS='lib core model io gate scan plan predict write .'
SRC=$top_srcdir/src
OBJ=$top_builddir/src

# rank PATH: the layer of a path from src/ (its directory's place).
rank() {
	local d=${1%/*} r=0 l
	[ "$d" != "$1" ] || d=.
	for l in $LAYERS; do
		[ "$l" = "$d" ] && { echo "$r"; return; }
		r=$((r + 1))
	done
	echo "unknown"
}

# The sources, as paths from src/ (the generated error table aside).
( cd "$SRC" && find . -name '*.[ch]' ! -name 'e3mp_err.[ch]' |
	sed 's#^\./##' | sort ) >"$T/sources"
[ -s "$T/sources" ] || fail "no sources under $SRC"

check "every file of src/ lies in one of the layers: $LAYERS"
while read -r f; do
	[ "$(rank "$f")" != unknown ] ||
		fail "$f: in no layer (tests/t0006-layers.sh's LAYERS)"
done <"$T/sources"

check "includes name a file by its path from src/, of a layer not above"
: >"$T/inc.pairs"
while read -r f; do
	while read -r h; do
		case $h in config.h|e3mp_err.h) continue ;; esac
		[ -f "$SRC/$h" ] || fail "$f includes \"$h\": no src/$h"
		echo "$f $h" >>"$T/inc.pairs"
		[ "$h" = e3metapack.h ] && continue
		[ "$(rank "$h")" -le "$(rank "$f")" ] ||
			fail "$f includes $h, of a layer above its own"
	done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$SRC/$f")
done <"$T/sources"

check "only the model's files (model/, predict/) include model/disk.h"
awk '$2 == "model/disk.h" && $1 !~ /^(model|predict)\// { print $1 }' \
	"$T/inc.pairs" >"$T/disk.users"
[ ! -s "$T/disk.users" ] ||
	fail "the model disk's header included by $(tr '\n' ' ' <"$T/disk.users")"

check "no include cycle"
tsort "$T/inc.pairs" >/dev/null 2>"$T/tsort.err" ||
	fail "include cycle: $(tr '\n' ' ' <"$T/tsort.err")"

# The objects of the sources, where the build put them.
check "the objects call no function of a layer above their own"
: >"$T/defs"
: >"$T/uses"
while read -r f; do
	case $f in *.c) ;; *) continue ;; esac
	o=$OBJ/${f%.c}.o
	[ -f "$o" ] || fail "no object $o (run make first)"
	nm -P --defined-only "$o" | awk -v f="$f" \
		'$2 ~ /^[TDBRC]$/ { print $1, f }' >>"$T/defs"
	nm -P -u "$o" | awk -v f="$f" '{ print $1, f }' >>"$T/uses"
done <"$T/sources"
# "user definer symbol" for each use of a symbol another file defines
awk 'NR == FNR { def[$1] = $2; next }
     ($1 in def) && def[$1] != $2 { print $2, def[$1], $1 }' \
	"$T/defs" "$T/uses" | sort -u >"$T/calls"
[ -s "$T/calls" ] || fail "no calls between files found (nm output?)"
while read -r user def sym; do
	[ "$(rank "$def")" -le "$(rank "$user")" ] ||
		fail "$user uses $sym of $def, a layer above its own"
done <"$T/calls"

check "no two files depend on each other through their symbols"
awk '{ print $1, $2 }' "$T/calls" | sort -u >"$T/call.pairs"
tsort "$T/call.pairs" >/dev/null 2>"$T/tsort.err" ||
	fail "call cycle: $(tr '\n' ' ' <"$T/tsort.err")"
