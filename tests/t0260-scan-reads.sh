#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t0260-scan-reads: the scan reads indirect blocks the way e2fsck's pass 1
# should: a group's inodes at a time, their IND/DIND/TIND blocks in block
# order, in sweeps up the disk, neighbours in one request
# (src/scan/prefetch.c).
# From the tool's own pread64 calls (strace) on a dry run, against the
# indirect blocks debugfs lists: every indirect block is read once; the
# requests that read them go backwards at most three times per group (one
# sweep per level); and after a real run has packed them (fsck-clean,
# contents unchanged), neighbours share a request (at least two blocks a
# request on average), still in sweeps.  A scan that reads them inode by
# inode fails the second check on the aged image and the third on both.
# A file whose DIND or TIND tree lies in the order of its data (mke2fs -d
# writes them so) is read in one sweep, as e2fsck's walk reads it: a scan
# that reads level by level fails the fourth check on the tind image.
# A DIND whose first IND lies right after it (as the allocators put it)
# is read in one request with that IND, not in a second sweep.  A batch
# of inodes runs on across groups: with fewer inodes in use than a batch
# holds, every inode table is read before the first indirect block (a
# scan that ends its batches with each group fails that, and one that
# ends them at 2048 inodes fails it on the dirs image).
#
# Case variables: mkimg's (tests/mkimg.sh).

# shellcheck source=tests/lib.sh disable=SC2031,SC2119
. "${0%/*}/lib.sh"
need_tool
need_manifest
need strace debugfs awk

CASES='
name=e4nf-1k-tind  BS=1024 FSTYPE=ext4noext-flex PROFILE=tind SIZE=32M
name=ext3-2k-aged  BS=2048 FSTYPE=ext3           PROFILE=aged SIZE=128M
name=ext3-1k-dirs  BS=1024 FSTYPE=ext3           PROFILE=dirs SIZE=64M
'

# scan.c's SCAN_BATCH: the inodes in use a batch holds at most
SCAN_BATCH=16384

# indirect_list IMG MANIFEST: every IND/DIND/TIND block, one per line,
# from lib.sh's stat_inodes (the journal's included).
indirect_list() {
	stat_inodes "$1" "$2" |
		grep -oE '\((IND|DIND|TIND)\):[0-9]+' | sed 's/.*://' | sort -un
}

# scan_reads IMG: the dry run's pread64 calls on IMG, "FIRST COUNT" in
# blocks, in issue order, into $RUN_DIR/reads.
scan_reads() {
	local rc=0
	strace -qq -e trace=pread64 -o "$RUN_DIR/trace" \
		"$E3MP" -n "$1" >/dev/null 2>"$RUN_DIR/trace.err" || rc=$?
	# (0: something to do; 1: nothing, as after packing)
	[ "$rc" -le 1 ] || { cat "$RUN_DIR/trace.err" >&2;
		fail "e3metapack -n under strace exited $rc"; }
	awk -v bs="$BS" -F', ' '/^pread64\(/ {
		split($NF, r, " = "); len = r[2]; off = r[1]
		if (len > 0) print int(off / bs), int((len + bs - 1) / bs)
	}' "$RUN_DIR/trace" >"$RUN_DIR/reads"
	[ -s "$RUN_DIR/reads" ] || fail "no pread64 in the trace"
}

# ind_requests: the requests that read indirect blocks ("FIRST COUNT
# NIND"), in order, into $RUN_DIR/indreq; checks each block read once.
ind_requests() {
	awk 'NR == FNR { ind[$1] = 1; next }
	     { n = 0; for (b = $1; b < $1 + $2; b++) if (b in ind) {
			n++; seen[b]++ }
	       if (n) print $1, $2, n }
	     END { for (b in ind) if (seen[b] != 1 && bad++ < 5)
			printf "block %s read %d times\n", b, seen[b] > "/dev/stderr"
		   exit bad > 0 }' "$RUN_DIR/ind" "$RUN_DIR/reads" >"$RUN_DIR/indreq"
}

# dind_pairs IMG MANIFEST: "DIND IND" for every DIND whose first IND lies
# in the block right after it, from lib.sh's stat_inodes.
dind_pairs() {
	stat_inodes "$1" "$2" |
		grep -oE '\(DIND\):[0-9]+, \(IND\):[0-9]+' |
		sed 's/(DIND)://; s/, (IND):/ /' | awk '$2 == $1 + 1'
}

# pairs_split: the pairs of $RUN_DIR/pairs that no request of
# $RUN_DIR/reads holds both blocks of, one per line.
pairs_split() {
	awk 'NR == FNR { want[$1] = 1; next }
	     ($1 in want) || ($1 + $2 - 1 in want) || $2 > 1 {
		for (b = $1; b + 1 < $1 + $2; b++) if (b in want) got[b] = 1 }
	     END { for (b in want) if (!(b in got)) print b }' \
		"$RUN_DIR/pairs" "$RUN_DIR/reads"
}

# ordered_trees IMG MANIFEST: "BLOCK INODE" for each indirect block of
# every inode with a DIND whose indirect blocks rise in the order
# debugfs lists them (its walk's, the data's order).
ordered_trees() {
	stat_inodes "$1" "$2" | awk '
		/^Inode: [0-9]+ / { ino = $2 }
		/\(DIND\):/ {
			n = 0; up = 1; line = $0
			while (match(line, /\((IND|DIND|TIND)\):[0-9]+/)) {
				b = substr(line, RSTART, RLENGTH)
				sub(/.*:/, "", b); b += 0
				if (n && b <= blk[n]) up = 0
				blk[++n] = b
				line = substr(line, RSTART + RLENGTH)
			}
			if (up) for (k = 1; k <= n; k++) print blk[k], ino
		}'
}

# tree_back_steps: how often a request in $RUN_DIR/indreq that reads a
# block of $RUN_DIR/trees starts before the last one that read a block
# of the same inode.
tree_back_steps() {
	awk 'NR == FNR { of[$1] = $2; next }
	     { for (b = $1; b < $1 + $2; b++) if (b in of) {
			i = of[b]; if ((i in last) && $1 < last[i]) n++
			last[i] = $1 } }
	     END { print n + 0 }' "$RUN_DIR/trees" "$RUN_DIR/indreq"
}

# itables_after_ind IMG: how many requests of $RUN_DIR/reads read an
# inode-table block for the first time after the first request that read
# an indirect block (of $RUN_DIR/ind); a block read again (the iterator
# reads its inode once more) comes from the page cache.
itables_after_ind() {
	dumpe2fs "$1" 2>/dev/null |
		sed -n 's/.*Inode table at \([0-9]*\)-\([0-9]*\).*/\1 \2/p' |
		awk 'FILENAME == "-" { lo[++n] = $1; hi[n] = $2; next }
		     FILENAME ~ /ind$/ { ind[$1] = 1; next }
		     { new = 0
		       for (b = $1; b < $1 + $2; b++) {
			if (b in ind) seen = 1
			for (k = 1; k <= n && seen && !(b in got); k++)
				if (b >= lo[k] && b <= hi[k]) new = 1
			got[b] = 1
		       }
		       late += new }
		     END { print late + 0 }' - "$RUN_DIR/ind" "$RUN_DIR/reads"
}

# backward_steps: how often a request in $RUN_DIR/indreq starts before
# the one it follows.
backward_steps() {
	awk 'NR > 1 && $1 < last { n++ } { last = $1 } END { print n + 0 }' \
		"$RUN_DIR/indreq"
}

reads_case() {
	local img=$RUN_DIR/img groups back nreq nind split used late

	mkimg "$img"
	make_manifest "$img" "$RUN_DIR/man"
	indirect_list "$img" "$RUN_DIR/man" >"$RUN_DIR/ind"
	nind=$(wc -l <"$RUN_DIR/ind")
	groups=$(dumpe2fs -h "$img" 2>/dev/null |
		awk '/^Block count:/ { b = $3 } /^Blocks per group:/ { g = $4 }
		     END { print int((b + g - 1) / g) }')
	[ "$nind" -gt $((3 * groups)) ] ||
		fail "only $nind indirect blocks for $groups groups: no test"

	check "a dry run reads every indirect block exactly once"
	scan_reads "$img"
	ind_requests || fail "an indirect block was not read exactly once"

	check "it reads them in block order, at most one sweep per level and group"
	back=$(backward_steps)
	info "$nind indirect blocks in $(wc -l <"$RUN_DIR/indreq") requests," \
	     "$back backward steps, $groups groups"
	[ "$back" -le $((3 * groups)) ] ||
		fail "$back backward steps between indirect-block reads"

	check "a batch runs across groups: the inode tables are read before the indirect blocks"
	used=$(dumpe2fs -h "$img" 2>/dev/null |
		awk '/^Inode count:/ { n = $3 } /^Free inodes:/ { f = $3 }
		     END { print n - f }')
	[ "$used" -lt "$SCAN_BATCH" ] ||
		fail "$used inodes in use: more than a batch"
	late=$(itables_after_ind "$img")
	info "$used inodes in use; $late first reads of inode-table blocks" \
	     "after the first indirect block"
	[ "$late" = 0 ] || fail "$late inode-table reads after an indirect one"

	check "a DIND and the IND right after it come in one request"
	dind_pairs "$img" "$RUN_DIR/man" >"$RUN_DIR/pairs"
	[ -s "$RUN_DIR/pairs" ] || fail "no DIND with its first IND after it"
	split=$(pairs_split | wc -l)
	info "$(wc -l <"$RUN_DIR/pairs") such DINDs, $split read apart"
	[ "$split" = 0 ] || fail "$split DINDs read apart from their first IND"

	check "a file whose indirect blocks lie in its data's order is read in one sweep"
	ordered_trees "$img" "$RUN_DIR/man" >"$RUN_DIR/trees"
	if [ "$PROFILE" = tind ]; then
		[ "$(cut -d' ' -f2 "$RUN_DIR/trees" | sort -u | wc -l)" -ge 2 ] ||
			fail "no file with an ordered DIND tree: no test"
	fi
	back=$(tree_back_steps)
	info "$(cut -d' ' -f2 "$RUN_DIR/trees" | sort -u | wc -l) such" \
	     "files, $(wc -l <"$RUN_DIR/trees") blocks, $back backward steps"
	[ "$back" = 0 ] || fail "$back backward steps within such a file"

	check "after packing, neighbours are read together: 2 blocks a request or more"
	run_tool -z none "$img"
	expect_exit 0
	fsck_clean "$img"
	same_content "$RUN_DIR/man" "$img"
	indirect_list "$img" "$RUN_DIR/man" >"$RUN_DIR/ind"
	[ "$(wc -l <"$RUN_DIR/ind")" = "$nind" ] ||
		fail "$nind indirect blocks before packing, not after"
	scan_reads "$img"
	ind_requests || fail "an indirect block was not read exactly once"
	nreq=$(wc -l <"$RUN_DIR/indreq")
	back=$(backward_steps)
	info "packed: $nind indirect blocks in $nreq requests," \
	     "$back backward steps"
	[ $((2 * nreq)) -le "$nind" ] ||
		fail "$nreq requests for $nind packed indirect blocks"
	[ "$back" -le $((3 * groups)) ] ||
		fail "$back backward steps between indirect-block reads"
}

run_cases reads_case "$CASES"
