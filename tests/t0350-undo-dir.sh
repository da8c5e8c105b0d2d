#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t0350-undo-dir: the default undo directory ($E2FSPROGS_UNDO_DIR, else
# /var/lib/e2fsprogs) when -z is not given.  A missing one is created
# (0755 whatever the umask; the undo file in it 0600), the tool says so
# in one line, and the e2undo command it prints gives back the original
# byte for byte.  A dry run creates nothing.  One that cannot be created
# or written is refused with the usual message and the image untouched:
# below a regular file, below a missing parent, a regular file itself,
# on a read-only mount (root only), and not writable for a user (root
# only, the tool run as nobody).
#
# Case variables:
#   DIR     E2FSPROGS_UNDO_DIR, relative to the case's scratch dir
#   SETUP   what the case prepares: none, file (DIR's parent is a regular
#           file), plainfile (DIR is a regular file), rofs (a read-only
#           tmpfs at ro/), nobody (DIR is root's 0755, the tool runs as
#           nobody)
#   UMASK   the tool's umask (022)
#   RC      expected exit code: 0 created and used, 2 refused

# shellcheck source=tests/lib.sh disable=SC2031,SC2119
. "${0%/*}/lib.sh"
need_tool
need_manifest
need e2undo cmp stat

CASES='
name=created        DIR=e2fsprogs         SETUP=none RC=0
name=created-umask  DIR=undo              SETUP=none RC=0 UMASK=077
name=under-file     DIR=file/undo         SETUP=file RC=2
name=no-parent      DIR=nope/undo         SETUP=none RC=2
name=is-file        DIR=undo              SETUP=plainfile RC=2
name=ro-missing     DIR=ro/undo           SETUP=rofs RC=2
name=ro-existing    DIR=ro                SETUP=rofs RC=2
name=not-writable   DIR=undo              SETUP=nobody RC=2
'

# (a missing parent is refused, not made: only the last component is
# created, so a mistyped E2FSPROGS_UNDO_DIR does not grow a tree)

# mode_of PATH: octal permission bits, e.g. 755
mode_of() {
	stat -c %a "$1"
}

# The undo dir is created, announced, holds a 0600 undo file, and the
# e2undo command the tool printed restores the image.
check_created() {
	local dir=$1 cmd
	expect_exit 0
	expect_stdout_grep "^e3metapack: created the undo directory $dir\$"
	[ "$(grep -c 'created the undo directory' "$RUN_OUT")" = 1 ] ||
		fail "the creation is announced more than once"
	[ -d "$dir" ] || fail "$dir was not created"
	[ "$(mode_of "$dir")" = 755 ] ||
		fail "$dir has mode $(mode_of "$dir"), expected 755"
	[ "$(stat -c %u "$dir")" = "$(id -u)" ] ||
		fail "$dir is owned by $(stat -c %u "$dir"), not $(id -u)"
	[ -f "$dir/e3metapack-img.e2undo" ] ||
		fail "no undo file e3metapack-img.e2undo in $dir"
	[ "$(mode_of "$dir/e3metapack-img.e2undo")" = 600 ] ||
		fail "undo file has mode $(mode_of "$dir/e3metapack-img.e2undo")"
	fsck_clean "$IMG"
	same_content "$RUN_DIR/orig.manifest" "$IMG"
	cmd=$(sed -n 's/^    \(e2undo .*\)$/\1/p' "$RUN_OUT")
	[ "$cmd" = "e2undo $dir/e3metapack-img.e2undo $IMG" ] ||
		fail "printed undo command is '$cmd'"
	$cmd >"$RUN_DIR/e2undo.log" 2>&1 ||
		{ cat "$RUN_DIR/e2undo.log" >&2; fail "'$cmd' failed"; }
	cmp "$RUN_DIR/orig.img" "$IMG" >&2 ||
		fail "image after e2undo differs from the original"
}

check_refused() {
	local dir=$1
	expect_exit 2
	expect_stderr_line "e3metapack: $IMG: no writable undo directory; pass -z FILE or -z none"
	expect_messages_prefixed
	expect_unchanged "$IMG"
	if grep -q 'created the undo directory' "$RUN_OUT" "$RUN_ERR"; then
		fail "a refused run announces a created directory"
	fi
}

# run_rofs DIR: run the tool with DIR on a read-only tmpfs at ro/; the
# mount is gone again before any check can fail.
run_rofs() {
	local mnt=$RUN_DIR/ro
	[ "$(id -u)" = 0 ] || skip "a read-only mount needs root"
	mount -t tmpfs -o ro,size=1m e3mp-ro "$mnt" 2>"$RUN_DIR/mount.err" ||
		skip "cannot mount a tmpfs here: $(cat "$RUN_DIR/mount.err")"
	E3MP_ENV="E2FSPROGS_UNDO_DIR=$1" run_tool "$IMG"
	umount "$mnt"
}

# run_nobody DIR: DIR is root's, 0755; the tool runs as nobody, who owns
# the image.
run_nobody() {
	[ "$(id -u)" = 0 ] || skip "running as another user needs root"
	need setpriv
	chmod 755 "$T" "$RUN_DIR"
	mkdir -m 755 "$1"
	chown nobody "$IMG"
	E3MP_WRAPPER="setpriv --reuid=nobody --regid=nogroup --clear-groups" \
		E3MP_ENV="E2FSPROGS_UNDO_DIR=$1" run_tool "$IMG"
	chown 0 "$IMG"
	[ -z "$(ls -A "$1")" ] || fail "something was written to $1"
}

undo_dir_case() {
	local dir=$RUN_DIR/$DIR existed=
	IMG=$RUN_DIR/img
	cp --sparse=always "$T/base.img" "$IMG"
	cp --sparse=always "$IMG" "$RUN_DIR/orig.img"
	cp "$T/base.manifest" "$RUN_DIR/orig.manifest"
	record_sha "$IMG"
	case $SETUP in
	file)	echo "a regular file" >"$RUN_DIR/${DIR%/*}" ;;
	plainfile) echo "a regular file" >"$dir" ;;
	rofs)	mkdir "$RUN_DIR/ro" ;;
	esac

	# a dry run writes nothing, so it needs no undo directory
	if [ "$SETUP" = none ]; then
		check "a dry run creates no undo directory"
		E3MP_ENV="E2FSPROGS_UNDO_DIR=$dir" run_tool -n "$IMG"
		expect_exit 0
		[ ! -e "$dir" ] || fail "a dry run created $dir"
		expect_unchanged "$IMG"
	fi

	if [ "$RC" = 0 ]; then
		check "the undo directory is made 0755, announced once," \
		      "and its e2undo command restores the image"
	else
		check "refused with the usual message, image untouched"
	fi
	[ ! -e "$dir" ] || existed=1
	case $SETUP in
	rofs)	run_rofs "$dir" ;;
	nobody)	run_nobody "$dir" ;;
	*)	umask "${UMASK:-022}"
		E3MP_ENV="E2FSPROGS_UNDO_DIR=$dir" run_tool "$IMG"
		umask 022 ;;
	esac
	if [ "$RC" = 0 ]; then
		check_created "$dir"
	else
		check_refused "$dir"
		[ -n "$existed" ] || [ "$SETUP" = nobody ] ||
			[ ! -e "$dir" ] || fail "$dir exists after a refusal"
	fi
}

# one image for every case (the same variables give the same image)
BS=1024 FSTYPE=ext3 PROFILE=mixed SIZE=32M mkimg "$T/base.img"
make_manifest "$T/base.img" "$T/base.manifest"

run_cases undo_dir_case "$CASES"
