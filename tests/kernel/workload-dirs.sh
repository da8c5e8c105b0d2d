# SPDX-License-Identifier: GPL-2.0-only
# workload-dirs.sh --- the write pass on a directory-heavy volume (mkimg
# PROFILE=dirs) packed with --dirs=pack; sourced by workload.sh, in the
# volume's root, with die and BS set.
#
# Creates, deletes and renames entries in the packed directories: one
# htree directory (d04) grows by new blocks, enough for leaf splits and
# an indirect block, with some files' data allocated among its new
# blocks; a new directory; every third entry of another htree directory
# (d17) deleted; renames inside a directory, across directories, and of
# a directory; a subdirectory removed.  Each step checks what a lookup
# and a listing see.  Deterministic (the host runs it too, on a debugfs
# rdump of the same volume), POSIX sh + busybox applets.

# entries DIR: how many names DIR lists (not . and ..)
entries() {
	ls -A "$1" | wc -l
}
# expect_entries DIR N
expect_entries() {
	n=$(entries "$1")
	[ "$n" -eq "$2" ] || die "$1 lists $n entries, expected $2"
}

pad=abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789
n04=$(entries d04)
n17=$(entries d17)
n21=$(entries d21)

# 1. d04 grows by 300 long names; every tenth file gets data, so the new
#    directory blocks lie among new data blocks, as a kernel leaves them.
i=1
while [ $i -le 300 ]; do
	f="d04/grown-$i-$pad"
	if [ $((i % 10)) -eq 0 ]; then
		dd if=files/f.m1 bs="$BS" skip="$i" count=3 2>/dev/null >"$f"
	else
		: >"$f"
	fi
	i=$((i + 1))
done
expect_entries d04 $((n04 + 300))
[ -e "d04/grown-1-$pad" ] && [ -e "d04/grown-300-$pad" ] ||
	die "a new name in d04 is not found"

# 2. A new directory of 200 names (an htree one once it has two blocks).
mkdir late/newdir
i=1
while [ $i -le 200 ]; do
	: >"late/newdir/n$i-abcdefghijklmnopqrstuvwxyzABCD"
	i=$((i + 1))
done
expect_entries late/newdir 200

# 3. Delete every third entry of d17 (htree), in listing order.
i=0
gone=0
for f in d17/*; do
	i=$((i + 1))
	[ $((i % 3)) -eq 0 ] || continue
	rm "$f"
	gone=$((gone + 1))
	[ ! -e "$f" ] || die "$f still found after rm"
done
expect_entries d17 $((n17 - gone))

# 4. Renames: inside d17, from d17 into d21, and a directory.
first=$(ls d17 | head -n 1)
mv "d17/$first" "d17/renamed-inside-$pad"
[ -e "d17/renamed-inside-$pad" ] && [ ! -e "d17/$first" ] ||
	die "rename inside d17"
second=$(ls d17 | head -n 1)
mv "d17/$second" "d21/moved-from-d17"
expect_entries d17 $((n17 - gone - 1))
expect_entries d21 $((n21 + 1))
mv d08 late/d08.moved
[ -d late/d08.moved ] && [ ! -e d08 ] || die "rename of d08"

# 5. A subdirectory and its files removed.
rm -r d12/sub
[ ! -e d12/sub ] || die "d12/sub still there"

sync
echo "workload: ok"
