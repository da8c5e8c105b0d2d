#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t0010-completion: the bash completion file offers every option that
# "e3metapack --help" lists, and nothing that it does not; option values
# (--home, -z) complete to what the tool accepts.

# shellcheck source=tests/lib.sh
. "${0%/*}/lib.sh"
need_tool
bc=/usr/share/bash-completion/bash_completion
[ -r "$bc" ] || skip "bash-completion is not installed ($bc)"
comp=$top_srcdir/completion/e3metapack

# complete WORDS...: what the completion offers for the last word.
complete_words() {
	bash -c '
		. "$1"; . "$2"; shift 2
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		compopt() { :; }
		_e3metapack e3metapack "${COMP_WORDS[COMP_CWORD]}" \
			"${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"' sh "$bc" "$comp" "$@" | sort
}

check "the completion offers exactly the options of --help"
# the options of --help: "-n, --dry-run", "--json", "--home=RULE" ...
"$E3MP" --help | grep -Eo '^ +-[-a-zA-Z]+(, --[-a-z]+=?)?' |
	sed 's/^ *//; s/, /\n/' | sort >"$T/help"
complete_words e3metapack - | sed 's/=$/=/' >"$T/offered"
# --help shows "--undo=FILE" as "--undo" + "=": compare names only
sed 's/=$//' "$T/help" | sort >"$T/help.names"
sed 's/=$//' "$T/offered" | sort >"$T/offered.names"
diff -u "$T/help.names" "$T/offered.names" >&2 ||
	fail "the completion's options differ from --help's"
[ "$(wc -l <"$T/help.names")" -ge 20 ] ||
	fail "only $(wc -l <"$T/help.names") options found in --help"

info "completion offers the $(wc -l <"$T/help.names") options of --help"

check "option values and the device operand complete"
[ "$(complete_words e3metapack --home '' | tr '\n' ' ')" = \
  "data inline inode " ] ||
	fail "--home does not complete to inode, data and inline"
[ "$(complete_words e3metapack --order '' | tr '\n' ' ')" = \
  "delete fsck " ] ||
	fail "--order does not complete to fsck and delete"
complete_words e3metapack -z n | grep -qx none ||
	fail "-z does not offer none"
touch "$T/disk.img"
(cd "$T" && complete_words e3metapack -n dis) | grep -qx disk.img ||
	fail "the device operand does not complete to files"
