#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# workload.sh ROOT BS --- the write pass, on a volume made by mkimg
# (PROFILE=mixed) and packed by e3metapack (PROFILE=dirs: see
# workload-dirs.sh)
#
# Runs under the test kernel on the mounted volume, on the host on a
# loop mount, and on the host in a plain directory holding a debugfs
# rdump of the same volume: that last run tells what the contents must
# be afterwards.  So everything here is deterministic, derives its data
# from files already on the volume, and leaves alone the files the
# image has hard-linked (rdump does not keep hard links) and the special
# files (rdump drops them).
#
# It makes the file system allocate new IND, DIND and TIND blocks next
# to the packed ones and free some of the packed ones: appends to a
# large file, files crossing into the IND/DIND ranges, sparse writes
# far out, many files created and deleted, truncation up and down,
# renames, hard links and symlinks.  POSIX sh + busybox applets.

set -eu
export LC_ALL=C
cd "$1"
BS=$2
P=$((BS / 4))			# block numbers per indirect block
DIND0=$((12 + P))		# first block mapped through the DIND
TIND0=$((12 + P + P * P))	# first block mapped through the TIND

die() {
	echo "workload: FAIL: $*"
	exit 1
}
# expect_links FILE N
expect_links() {
	n=$(stat -c %h "$1")
	[ "$n" = "$2" ] || die "$1 has $n links, expected $2"
}
# expect_size FILE N
expect_size() {
	n=$(stat -c %s "$1")
	[ "$n" = "$2" ] || die "$1 is $n bytes, expected $2"
}
# blocks FILE COUNT SKIP: COUNT blocks of f.m1 from block SKIP on, then a
# line naming FILE, appended to FILE (every file's data is its own)
blocks() {
	dd if=f.m1 bs="$BS" skip="$3" count="$2" 2>/dev/null >>"$1"
	echo "workload $1 $2 $3" >>"$1"
}

# A directory-heavy volume (mkimg PROFILE=dirs, packed with --dirs=pack)
# gets a workload of its own: workload-dirs.sh, next to this script.
if [ -d d00 ] && [ -d late ]; then
	. "${0%/*}/workload-dirs.sh"
	exit 0
fi

mkdir w

# 1. Append to a large file that already has DIND blocks: new IND
#    blocks (and new DIND children) beside the packed ones.
m5=$(stat -c %s f.m5)
cat f.m2_5 f.m1 >>f.m5
expect_size f.m5 $((m5 + 2500000 + 1048576))

# 2. A new large file through the IND and into the DIND range.
cat f.m5 f.m1 >w/big
blocks w/big 7 3

# 3. Sparse writes: data only in the DIND range; at 1 KiB blocks also in
#    the TIND range (64 MiB out; at 4 KiB the TIND range starts at 4 GiB,
#    too slow to checksum under emulation: see 5).
blocks w/sparse.dind 0 0
dd if=f.m1 of=w/sparse.dind bs="$BS" seek=$((DIND0 + P + 7)) count=3 \
	conv=notrunc 2>/dev/null
if [ "$BS" -le 1024 ]; then
	dd if=f.m1 of=w/sparse.tind bs="$BS" seek=$((TIND0 + 3)) skip=20 \
		count=2 conv=notrunc 2>/dev/null
	expect_size w/sparse.tind $(((TIND0 + 5) * BS))
fi

# 4. Many files, most of them with an IND block; delete two in three,
#    then fill the holes with files of other sizes; a directory that
#    itself needs an IND block at 1 KiB.
mkdir w/many
i=1
while [ $i -le 180 ]; do
	blocks "w/many/file-$i-with-a-name-long-enough-to-fill-blocks" \
		$(((i * 7) % 23 + 1)) $((i % 200))
	i=$((i + 1))
done
i=1
while [ $i -le 180 ]; do
	[ $((i % 3)) -eq 0 ] ||
		rm "w/many/file-$i-with-a-name-long-enough-to-fill-blocks"
	i=$((i + 1))
done
i=1
while [ $i -le 60 ]; do
	blocks "w/many/again-$i" $(((i * 11) % 31 + 1)) $(((i * 3) % 200))
	i=$((i + 1))
done

# 5. Truncate down and up.
cp f.m1 w/trunc.ind
truncate -s $((12 * BS + 100)) w/trunc.ind	# keeps one IND, one entry
truncate -s $((11 * BS)) w/trunc.ind		# frees the IND
truncate -s $((20 * BS)) w/trunc.ind		# a hole where it was
blocks w/trunc.ind 2 9				# appended past the hole
cp f.m2_5 w/trunc.dind
truncate -s $(((DIND0 + 3) * BS + 17)) w/trunc.dind	# a partial DIND
: >w/trunc.up
truncate -s $(((DIND0 + 2 * P) * BS)) w/trunc.up	# a hole, no block
blocks w/trunc.up 4 1					# data in the DIND range
truncate -s 300000 w/trunc.up
truncate -s 2000000 w/trunc.up
blocks w/trunc.up 1 40
# A TIND chain allocated, then freed by truncation, at every block size.
dd if=f.m1 of=w/trunc.tind bs="$BS" seek=$((TIND0 + P + 1)) count=1 \
	conv=notrunc 2>/dev/null
truncate -s $((5 * BS + 3)) w/trunc.tind
expect_size w/trunc.tind $((5 * BS + 3))
# an existing packed file, cut into its IND range, then grown again
truncate -s $((13 * BS + 5)) f.m2_5
truncate -s 200000 f.m2_5
blocks f.m2_5 3 5

# 6. Renames: a file, a directory of packed files, across directories.
mv f.k100 w/renamed.k100
mv many w/many.moved
mv w/many/file-3-with-a-name-long-enough-to-fill-blocks w/file-3.moved
mv sparse/sp.comb w/sp.comb.moved

# 7. Hard links, then writes through one name.
ln w/big w/big.hl
ln w/big w/many/big.hl2
blocks w/big.hl 5 11
expect_links w/big 3
cmp w/big w/many/big.hl2 || die "hard links differ"
ln w/renamed.k100 renamed.k100.hl
expect_links w/renamed.k100 2
rm w/many/big.hl2
expect_links w/big 2

# 8. Symlinks: fast, slow (> 60 bytes), dangling, to a directory.
ln -s ../f.m5 w/sym.fast
slow=
i=1
while [ $i -le 12 ]; do
	slow="${slow}a-long-symlink-component-$i/"
	i=$((i + 1))
done
ln -s "$slow" w/sym.slow
ln -s w/renamed.k100 sym.new
ln -s nowhere/at/all w/sym.dangling
ln -s many.moved w/sym.dir
[ "$(readlink w/sym.slow)" = "$slow" ] || die "slow symlink target"
cmp sym.new renamed.k100.hl || die "symlink reads another file"

# 9. Delete files holding packed IND/DIND blocks.
rm sparse/sp.mid f.dind1
rm -r w/many.moved/m00[1-5]

sync
echo "workload: ok"
