#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# fsview.sh WHAT ROOT --- what the kernel shows of a mounted volume
#
# Run under the test kernel (busybox) and on the host (coreutils or
# busybox); both give the same text.  Paths are relative ("./a/b", the
# root is "."), sorted bytewise.
#
#   sums   "SHA256  PATH" of every regular file (sha256sum's format)
#   list   "PATH MODE_HEX INO UID GID SIZE NLINK BLOCKS512 ATIME MTIME
#          CTIME MAJOR:MINOR" of every path, from stat(2) (lstat: a
#          symlink is not followed)
#   links  "PATH -> TARGET" of every symlink
#
# common.sh (ks_view) prints the same list and links from the manifest
# helper's reading of the image with libext2fs, for comparison.

export LC_ALL=C
what=$1
cd "$2" || exit 1

case $what in
sums)
	find . -type f -print0 | sort -z | xargs -0 -r sha256sum
	;;
list)
	find . -print0 | sort -z |
		xargs -0 stat -c '%n %f %i %u %g %s %h %b %X %Y %Z %t:%T'
	;;
links)
	find . -type l | sort | while IFS= read -r l; do
		printf '%s -> %s\n' "$l" "$(readlink "$l")"
	done
	;;
*)
	echo "fsview.sh: unknown view '$what'" >&2
	exit 2
	;;
esac
