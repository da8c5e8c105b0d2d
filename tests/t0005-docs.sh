#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t0005-docs: what the tree says about itself stays true.
#
#   tests listed   every test file (Makefile.am's SHELL_TESTS, UNIT_TESTS
#                  and KERNEL_TESTS, and tests/t*.sh, tests/unit/test_*.c,
#                  tests/kernel/t-*.sh, tests/fuzz/run) is named in
#                  tests/README.md, as its path under tests/ in backquotes
#                  (a unit test without its .c), and every tNNNN test that
#                  tests/README.md names exists
#   SPDX           every source, script and test file carries
#                  "SPDX-License-Identifier: GPL-2.0-only": in a git
#                  checkout the files git tracks, elsewhere (a make
#                  distdir tree) the sources and scripts found in the tree;
#                  documentation, packaging metadata and autotools output
#                  are exempt (see spdx_exempt)

# shellcheck source=tests/lib.sh
. "${0%/*}/lib.sh"
src=$top_srcdir
readme=$src/tests/README.md
[ -r "$readme" ] || skip "no $readme"
[ -r "$src/Makefile.am" ] || skip "no $src/Makefile.am"

# makefile_list VAR: the words of VAR's definition in Makefile.am.
makefile_list() {
	awk -v v="$1" '
		!on && $1 == v && $2 == "=" { on = 1; $1 = $2 = "" }
		on { c = sub(/\\$/, ""); print; if (!c) on = 0 }' \
		"$src/Makefile.am" | tr -s ' \t' '\n' | sed '/^$/d'
}

check "tests/README.md names every test file of Makefile.am and tests/"
{
	for v in SHELL_TESTS UNIT_TESTS KERNEL_TESTS; do
		makefile_list "$v"
	done
	(cd "$src" && ls tests/t[0-9]*.sh tests/unit/test_*.c \
		tests/kernel/t-*.sh tests/fuzz/run 2>/dev/null)
} | sed 's|^tests/||; s|^\(unit/test_[a-z_0-9]*\)\.c$|\1|' |
	sort -u >"$T/tests"
[ "$(wc -l <"$T/tests")" -ge 20 ] ||
	fail "only $(wc -l <"$T/tests") test files found"
missing=
while read -r t; do
	grep -qF "\`$t\`" "$readme" || missing="$missing $t"
done <"$T/tests"
[ -z "$missing" ] ||
	fail "tests/README.md does not list:$missing (add a row for each)"
info "$(wc -l <"$T/tests") test files, each listed"

check "every tNNNN test that tests/README.md names exists"
stale=
# shellcheck disable=SC2016 # the backquotes are Markdown's, not a command
for t in $(grep -o '`t[0-9]\{4\}-[a-z0-9-]*\.sh`' "$readme" | tr -d '`' |
		sort -u); do
	[ -f "$src/tests/$t" ] || stale="$stale $t"
done
[ -z "$stale" ] || fail "tests/README.md names missing tests:$stale"

# spdx_exempt PATH: true for files that are not source, script or test:
# documentation, packaging metadata, the license itself, autotools output,
# recorded test data.
spdx_exempt() {
	case $1 in
	COPYING | README | *.md | .gitignore | */.gitignore) return 0 ;;
	debian/changelog | debian/control | debian/copyright | \
	debian/source/format | debian/tests/control) return 0 ;;
	configure | Makefile.in | */Makefile.in | aclocal.m4 | \
	config.h.in | build-aux/*) return 0 ;;
	tests/unit/*.txt) return 0 ;;	# recorded data a unit test reads
	esac
	return 1
}

# The files to check: git's list where the source tree is a checkout's
# top, else what looks like a source or a script (sources by name,
# scripts by their #! line) outside build products and autotools output.
spdx_files() {
	local top
	top=$(git -C "$src" rev-parse --show-toplevel 2>/dev/null) || top=
	if [ -n "$top" ] && [ "$(cd "$top" && pwd -P)" = "$(cd "$src" && pwd -P)" ]; then
		git -C "$src" ls-files
		return
	fi
	(cd "$src" && find . \( -name autom4te.cache -o -name build-aux -o \
		-name .deps -o -name __pycache__ -o -name '_*' -o -name .git \
		-o -name '*.dir' -o -name '*.tmp' \) -prune -o -type f -print) |
	sed 's|^\./||' | while read -r f; do
		case $f in
		configure | config.status | config.h | libtool | \
		src/e3mp_err.c | src/e3mp_err.h) continue ;;
		*.c | *.h | *.py | *.sh | *.et | *.am | *.ac | man/*.[1-9]) ;;
		*) [ "$(head -c 2 "$src/$f" 2>/dev/null)" = '#!' ] || continue ;;
		esac
		printf '%s\n' "$f"
	done
}

check "every source, script and test file says SPDX-License-Identifier: GPL-2.0-only"
spdx_files >"$T/files"
[ "$(wc -l <"$T/files")" -ge 50 ] ||
	fail "only $(wc -l <"$T/files") files found to check"
bad=
n=0
while read -r f; do
	spdx_exempt "$f" && continue
	[ -f "$src/$f" ] || continue	# deleted, not yet committed
	n=$((n + 1))
	grep -q 'SPDX-License-Identifier: GPL-2.0-only' "$src/$f" ||
		bad="$bad $f"
done <"$T/files"
[ -z "$bad" ] || fail "no SPDX-License-Identifier: GPL-2.0-only line in:$bad"
info "$n files carry the SPDX line"
