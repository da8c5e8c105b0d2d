#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t0015-words: the values of --home, --order and --dirs are one table
# (src/core/words.c); no volume is needed.
#
# --help's synopsis prints the table ("--home=inode|data|inline"); the
# bash completion (completion/e3metapack) must offer the same words and
# the man page list them, each time it lists them, in the same order.
# A word not in the table is a usage error (exit 16) that names the
# values there are.

# shellcheck source=tests/lib.sh
. "${0%/*}/lib.sh"
need_tool
comp=$top_srcdir/completion/e3metapack
man=$top_srcdir/man/e3metapack.8
OPTIONS='home order dirs'

# table OPT: the words of --OPT, space-separated, as --help prints them.
table() {
	"$E3MP" --help | grep -o -- "--$1=[a-z|]*" | head -n 1 |
		sed "s/^--$1=//; s/|/ /g"
}

# completion OPT: the words the completion offers after --OPT.
completion() {
	sed -n "/^[[:space:]]*--$1)/,/;;/p" "$comp" |
		sed -n "s/.*compgen -W '\\([^']*\\)'.*/\\1/p"
}

# man_lists OPT: each list of --OPT's values in the man page, one a
# line ("\fB\-\-home=\fR{\fBinode\fR|...}" and ".BR \-\-home= { ... }").
man_lists() {
	sed 's/\\f[BIRP]//g; s/\\-/-/g; s/\\%//g; s/^\.[A-Z]* //' "$man" |
		tr -d ' ' | grep -o -- "--$1={[a-z|]*}" |
		sed "s/^--$1={//; s/}\$//; s/|/ /g"
}

check "--help's synopsis lists the values of the table"
for o in $OPTIONS; do
	[ -n "$(table "$o")" ] || fail "--help lists no values of --$o"
done

check "the completion offers the table's values, in its order"
for o in $OPTIONS; do
	[ "$(completion "$o")" = "$(table "$o")" ] ||
		fail "--$o: the completion offers '$(completion "$o")'," \
		     "the table has '$(table "$o")'"
done

check "the man page lists the table's values, in its order, each time"
for o in $OPTIONS; do
	n=0
	while read -r list; do
		n=$((n + 1))
		[ "$list" = "$(table "$o")" ] ||
			fail "--$o: the man page lists '$list', the table" \
			     "has '$(table "$o")'"
	done < <(man_lists "$o")
	[ "$n" -gt 0 ] || fail "the man page lists no values of --$o"
	info "--$o: $n lists in the man page"
done

check "a value not in the table is a usage error naming those there are"
for o in $OPTIONS; do
	run_tool "--$o=nosuchvalue" "$T/no-such-device.img"
	expect_exit 16
	want="invalid --$o value 'nosuchvalue' (one of $(table "$o" |
		sed 's/ /, /g'))"
	grep -qxF "e3metapack: $want" "$RUN_ERR" ||
		fail "--$o=nosuchvalue: no line 'e3metapack: $want'"
done

# Values that went away (issue 31: --dirs=itable won on no volume the
# real e2fsck was measured on) are usage errors like any unknown one.
check "a value that went away is a usage error naming the values left"
for ov in dirs=itable; do
	o=${ov%%=*}
	run_tool "--$ov" "$T/no-such-device.img"
	expect_exit 16
	want="invalid --$o value '${ov#*=}' (one of $(table "$o" |
		sed 's/ /, /g'))"
	grep -qxF "e3metapack: $want" "$RUN_ERR" ||
		fail "--$ov: no line 'e3metapack: $want'"
	case " $(table "$o") " in
	*" ${ov#*=} "*) fail "--help still lists --$ov" ;;
	esac
done
