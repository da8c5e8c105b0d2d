# SPDX-License-Identifier: GPL-2.0-only
# common.sh --- host side of the kernel tests (t-kernel.sh, t-loop.sh)
#                                                             -*- sh -*-
# Sourced after tests/lib.sh.  A test
#
#   1. builds each variant's image with mkimg (ext3, PROFILE=mixed) and
#      packs it with e3metapack (ks_prepare), which also works out what
#      the write pass must leave behind by running workload.sh on the
#      host in a debugfs rdump of the packed image;
#   2. lets a kernel read it (-t ext3, read-only) and compares what the
#      kernel saw with the host's readings (ks_check_read);
#   3. lets a kernel write to a copy (workload.sh), then checks that copy
#      on the host (ks_check_write), runs e3metapack on it again
#      (ks_incremental), and lets the kernel read it back once more
#      (ks_check_read on the copy).
#
# The kernel's view is fsview.sh's output: "sums" (sha256 of every
# regular file), "list" (stat(2) of every path) and "links" (symlink
# targets).  The host's is debugfs rdump for the sums and the manifest
# helper (libext2fs) for list and links, put into fsview's format by
# ks_view: two independent readers on each side.
#
# Files of variant TAG, all in $T:
#   TAG.img        the packed image, read-only passes only
#   TAG-rw.img     its copy for the write pass
#   TAG.features   its feature list, which must never change
#   TAG.sums       rdump sums of the packed image
#   TAG.man        manifest of the packed image
#   TAG.list, TAG.links   ks_view of TAG.man
#   TAG.sim.sums   sums the write pass must leave (host simulation)
#   TAG.args       the variant's e3metapack options (ARGS)
#   TAG-rw.*       the same, for the written copy

KS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)

# The variants: mkimg variables, one line each (see tests/mkimg.sh), and
# ARGS, e3metapack's options.  "dirs": many directories, the multi-block
# ones htree-indexed, their blocks packed too (workload-dirs.sh).
KS_VARIANTS=${E3MP_KERNEL_VARIANTS:-'
name=1k BS=1024 SIZE=64M
name=4k BS=4096 SIZE=128M GPB=8192
name=4k-span BS=4096 SIZE=128M GPB=8192 INODES=2048 ARGS=--mc-span=2
name=dirs BS=1024 SIZE=64M PROFILE=dirs ARGS=--dirs=pack
name=dirs-volume BS=1024 SIZE=64M PROFILE=dirs
name=dirs-roots BS=1024 SIZE=64M PROFILE=dirs ARGS=--dirs=roots
'}

# ks_tags: the variant names, one a line.
ks_tags() {
	local line
	while IFS= read -r line; do
		[ -n "${line//[[:space:]]/}" ] || continue
		# shellcheck disable=SC2154 # name= comes from the line
		(eval "$line"; echo "$name")
	done <<<"$KS_VARIANTS"
}

# ks_sh: the shell that runs workload.sh and fsview.sh on the host:
# busybox's, as in the guest, when there is one.
ks_sh() {
	local bb=${KC_BUSYBOX:-}
	[ -n "$bb" ] || bb=$(command -v busybox 2>/dev/null || true)
	if [ -n "$bb" ]; then
		"$bb" sh "$@"
	else
		sh "$@"
	fi
}

ks_features() {
	sb_field "$1" 'Filesystem features'
}

# ks_compare WANT GOT WHAT: the two files are equal, else fail showing
# the difference.
ks_compare() {
	local want=$1 got=$2 what=$3
	if ! diff -u "$want" "$got" >"$got.diff" 2>&1; then
		echo "--- expected ($want), +++ seen ($got):" >&2
		head -n 40 "$got.diff" >&2
		fail "$what: differs ($(grep -c '^[-+][^-+]' "$got.diff") lines)"
	fi
	rm -f "$got.diff"
}

# ks_sort WHAT IN OUT: sort a view by path (sums: its second field).
ks_sort() {
	if [ "$1" = sums ]; then
		LC_ALL=C sort -k2 -o "$3" "$2"
	else
		LC_ALL=C sort -o "$3" "$2"
	fi
}

# ks_view MANIFEST LIST LINKS: the manifest in fsview.sh's list and
# links formats (paths "./a/b", root "."; mode as st_mode in hex; times
# in seconds; device numbers decoded as the kernel does).
ks_view() {
	awk -v list="$2" -v links="$3" '
	function num(s, base,   i, v) {
		v = 0
		for (i = 1; i <= length(s); i++)
			v = v * base + index("0123456789abcdef", \
					     substr(tolower(s), i, 1)) - 1
		return v
	}
	$1 == "#" { next }
	{
		name = ($1 == "/") ? "." : "." $1
		split("", f)
		for (i = 2; i <= NF; i++) {
			k = $i; sub(/=.*/, "", k)
			v = $i; sub(/^[^=]*=/, "", v)
			f[k] = v
		}
		t = f["type"]
		base = t == "reg" ? 32768 : t == "dir" ? 16384 : \
		       t == "lnk" ? 40960 : t == "chr" ? 8192 : \
		       t == "blk" ? 24576 : t == "fifo" ? 4096 : \
		       t == "sock" ? 49152 : 0
		split(f["atime"], a, ":"); split(f["mtime"], m, ":")
		split(f["ctime"], c, ":")
		maj = 0; mn = 0
		if ("rdev" in f) {
			split(f["rdev"], r, ":")
			old = num(r[1], 16); new = num(r[2], 16)
			if (old != 0) {
				maj = int(old / 256) % 256; mn = old % 256
			} else {
				maj = int((new % 1048576) / 256)
				mn = new % 256 + int(new / 1048576) * 256
			}
		}
		printf "%s %x %s %s %s %s %s %s %s %s %s %x:%x\n", name,
		       base + num(f["mode"], 8), f["ino"], f["uid"], f["gid"],
		       f["size"], f["links"], f["iblocks"], a[1], m[1], c[1],
		       maj, mn >list
		if (t == "lnk")
			print name " -> " f["target"] >links
	}' "$1"
	LC_ALL=C sort -o "$2" "$2"
	: >>"$3"
	LC_ALL=C sort -o "$3" "$3"
}

# ks_record IMG PREFIX: manifest, views and rdump sums of IMG, as
# PREFIX.man, PREFIX.list, PREFIX.links, PREFIX.sums.
ks_record() {
	make_manifest "$1" "$2.man"
	ks_view "$2.man" "$2.list" "$2.links"
	rdump_sums "$1" "$2.sums"
}

# ks_rdump_tree IMG DIR: IMG's files as a host directory (debugfs rdump
# of / puts the root's entries straight into DIR).
ks_rdump_tree() {
	local img=$1 dir=$2
	rm -rf "$dir"
	mkdir -p "$dir"
	debugfs -R "rdump / $dir" "$img" >"$dir.log" 2>&1 ||
		{ cat "$dir.log" >&2; fail "debugfs rdump of $img failed"; }
	if grep -v '^debugfs [0-9]' "$dir.log" | grep -q .; then
		cat "$dir.log" >&2
		fail "debugfs rdump of $img complained"
	fi
	rm -f "$dir.log"
}

# ks_prepare: with a variant's variables set (name=TAG BS= SIZE= ...),
# build, pack and record its image.  Prints how long it took.
ks_prepare() {
	local tag=$name t0=$SECONDS img=$T/$name.img sim=$T/$name.sim
	# shellcheck disable=SC2034 # read by mkimg
	FSTYPE=ext3 PROFILE=${PROFILE:-mixed}
	mkimg "$img"
	ks_features "$img" >"$T/$tag.features"
	ks_record "$img" "$T/$tag.orig"
	echo "${ARGS:-}" >"$T/$tag.args"

	# pack it: the starting point of every pass
	# shellcheck disable=SC2086
	run_tool ${ARGS:-} -z "$T/$tag.e2undo" "$img"
	expect_exit 0
	fsck_clean "$img"
	same_content "$T/$tag.orig.man" "$img"
	same_rdump "$T/$tag.orig.sums" "$img"
	ks_features "$img" >"$T/$tag.features.now"
	ks_compare "$T/$tag.features" "$T/$tag.features.now" \
		"$tag: features after e3metapack"
	ks_record "$img" "$T/$tag"
	ks_dirs_packed "$img" "$T/$tag.man" "$tag: after the repack"
	cp --sparse=always "$img" "$T/$tag-rw.img"
	sha_of "$img" >"$T/$tag.img.sha"

	# what the write pass must leave: the workload on the host
	ks_rdump_tree "$img" "$sim"
	ks_sh "$KS_DIR/workload.sh" "$sim" "$BS" >"$sim.out" 2>&1 ||
		{ cat "$sim.out" >&2; fail "$tag: workload.sh failed on the host"; }
	ks_sh "$KS_DIR/fsview.sh" sums "$sim" >"$T/$tag.sim.sums" 2>&1 ||
		fail "$tag: fsview.sh sums failed on the host"
	rm -rf "$sim"
	info "$tag: image built, packed and recorded ($((SECONDS - t0))s)"
}

# ks_prepare_all: ks_prepare for every variant.
ks_prepare_all() {
	local line
	while IFS= read -r line; do
		[ -n "${line//[[:space:]]/}" ] || continue
		( eval "$line"; ks_prepare )
	done <<<"$KS_VARIANTS"
}

# ks_check_read PREFIX GOTDIR WHO: a read-only pass of the image recorded
# as PREFIX (PREFIX.sums, .list, .links) saw the same: GOTDIR holds the
# reader's sums, list and links.
ks_check_read() {
	local p=$1 d=$2 who=$3 w
	for w in sums list links; do
		ks_sort "$w" "$d/$w" "$d/$w.sorted"
		ks_sort "$w" "$p.$w" "$d/$w.want"
		ks_compare "$d/$w.want" "$d/$w.sorted" \
			"$who: $w of ${p##*/} (want: host's reading)"
	done
}

# ks_check_write TAG GOTDIR WHO: after the write pass on TAG-rw.img
# (GOTDIR: what the writer saw before unmounting): fsck clean, the
# features kept, the contents as the host simulation says, and the host
# reading the same as the writer.
ks_check_write() {
	local tag=$1 d=$2 who=$3 img=$T/$1-rw.img
	grep -q 'workload: ok' "$d/workload" ||
		{ cat "$d/workload" >&2; fail "$who: $tag: workload failed"; }
	fsck_clean "$img"
	ks_features "$img" >"$T/$tag-rw.features"
	ks_compare "$T/$tag.features" "$T/$tag-rw.features" \
		"$who: $tag: features after the write pass"
	ks_sort sums "$d/sums" "$d/sums.sorted"
	ks_sort sums "$T/$tag.sim.sums" "$d/sim.sums"
	ks_compare "$d/sim.sums" "$d/sums.sorted" \
		"$who: $tag: contents after the write pass (want: host simulation)"
	ks_record "$img" "$T/$tag-rw"
	ks_check_read "$T/$tag-rw" "$d" "$who: $tag after the write pass"
	info "$tag: after the write pass: e2fsck clean, features kept," \
	     "contents as simulated, host and writer agree" \
	     "($(wc -l <"$d/list") paths)"
}

# ks_dirs_packed IMG MANIFEST WHAT: under --dirs=pack, roots or volume
# (the default), every directory's blocks are one run in logical order
# (under roots and volume from block 1 on; lib.sh's dirs_scattered).
ks_dirs_packed() {
	local bad mode
	# shellcheck disable=SC2046
	mode=$(dirs_mode $(cat "$T/$tag.args"))
	case $mode in pack | roots | volume) ;; *) return 0 ;; esac
	bad=$(dirs_scattered "$1" "$2" "$(dirs_run_from "$mode")")
	[ -z "$bad" ] ||
		fail "$3: directories not in one run (inode, break): $bad"
}

# ks_dirs_packing TAG: the variant's --dirs mode packs directories
# (pack, roots, volume: not leave); prints the mode.
ks_dirs_packing() {
	local mode
	# shellcheck disable=SC2046
	mode=$(dirs_mode $(cat "$T/$1.args"))
	case $mode in pack | roots | volume) echo "$mode" ;; *) return 1 ;; esac
}

# ks_dirs_incremental TAG: under a --dirs mode that packs, before the
# incremental run.  The directories the write pass changed (new, grown,
# shrunk: a block list unlike the packed image's), their blocks ("most")
# and of those the ones not in the packed image ("new"); the dry run's
# "moved" must be more than 0 and at most "new": a directory that did
# not change never moves, and a grown one keeps the blocks it had.
ks_dirs_incremental() {
	local tag=$1 img=$T/$1-rw.img d=$T/$1-dirs moved most new
	ks_dirs_packing "$tag" >/dev/null || return 0
	mkdir -p "$d"
	dir_blocks "$T/$tag.img" "$T/$tag.man" >"$d/packed"
	dir_blocks "$img" "$T/$tag-rw.man" >"$d/written"
	comm -13 "$d/packed" "$d/written" >"$d/changed"
	most=$(awk '{ n += NF - 1 } END { print n + 0 }' "$d/changed")
	new=$(awk 'NR == FNR { for (k = 2; k <= NF; k++) had[$1, $k] = 1
			       next }
		   { for (k = 2; k <= NF; k++) n += !(($1, $k) in had) }
		   END { print n + 0 }' "$d/packed" "$d/changed")
	[ "$new" -gt 0 ] || fail "$tag: the write pass added no directory block"
	# shellcheck disable=SC2086
	run_tool -f -n --json ${KS_ARGS:-} "$img"
	expect_exit 0
	moved=$(json_int directories.moved)
	[ "$moved" -gt 0 ] && [ "$moved" -le "$new" ] ||
		fail "$tag: the incremental run would move $moved directory" \
		     "blocks, not 1 to $new (the written directories' new" \
		     "blocks, of $most)"
	echo "$moved $new $most" >"$d/counts"
}

# ks_dirs_pieces PACKED AFTER FROM: for each directory of AFTER
# (dir_blocks lines), "INO KIND PIECES": KIND "new" when its block list
# does not start as in PACKED (a new directory, or a new one with a
# reused inode), else "grown"; PIECES the physically contiguous runs its
# blocks from logical block FROM on make.
ks_dirs_pieces() {
	awk -v from="$3" '
	NR == FNR { old[$1] = $0; next }
	{
		kind = "new"
		if ($1 in old) {
			split(old[$1], o, " ")
			if (o[2] == $2)
				kind = "grown"
		}
		pieces = NF >= 2 + from
		for (k = 3 + from; k <= NF; k++)
			pieces += $k != $(k - 1) + 1
		print $1, kind, pieces
	}' "$1" "$2"
}

# ks_dirs_after TAG: after the incremental run, only directories the
# write pass changed have moved; a new directory is one run, a grown one
# at most two (the blocks it had where they were, the new ones after
# them or, when other directories that stay follow it, in the first
# free stretch long enough: only new blocks move).
ks_dirs_after() {
	local tag=$1 d=$T/$1-dirs stray bad mode
	mode=$(ks_dirs_packing "$tag") || return 0
	cut -d' ' -f1 "$d/changed" >"$d/changed.ino"
	dir_blocks "$T/$tag-rw.img" "$T/$tag-rw.man" >"$d/after"
	stray=$(comm -13 "$d/written" "$d/after" | cut -d' ' -f1 |
		grep -vxF -f "$d/changed.ino" || true)
	[ -z "$stray" ] || fail "$tag: the incremental run moved" \
		"directories the write pass left alone: inodes" $stray
	bad=$(dirs_scattered "$T/$tag-rw.img" "$T/$tag-rw.man" \
		"$(dirs_run_from "$mode")")
	stray=$(cut -d' ' -f1 <<<"$bad" | grep -vxF -f "$d/changed.ino" ||
		true)
	[ -z "$stray" ] || fail "$tag: after the incremental run, directories" \
		"the write pass left alone are in pieces: inodes" $stray
	awk 'NR == FNR { want[$1] = 1; next } $1 in want' "$d/changed.ino" \
		"$d/after" >"$d/after.changed"
	ks_dirs_pieces "$d/packed" "$d/after.changed" \
		"$(dirs_run_from "$mode")" >"$d/pieces"
	bad=$(awk '($2 == "new" && $3 > 1) || $3 > 2 { print $1 "(" $2 ":" $3 ")" }' \
		"$d/pieces")
	[ -z "$bad" ] || fail "$tag: after the incremental run, written" \
		"directories in too many pieces (inode(kind:pieces)):" $bad
	info "$tag: incremental --dirs=$mode: moved $(cut -d' ' -f1 \
		"$d/counts") directory blocks ($(cut -d' ' -f2 "$d/counts")" \
		"new) of the $(cut -d' ' -f3 "$d/counts") in the" \
		"$(wc -l <"$d/changed") directories written, no other;" \
		"pieces (inode kind n): $(tr '\n' ',' <"$d/pieces")"
}

# ks_dirs_done: under a --dirs mode that packs, the last dry run
# (nothing to do) has every directory block in a directory region.
ks_dirs_done() {
	local blocks
	ks_dirs_packing "$tag" >/dev/null || return 0
	blocks=$(json_int directories.blocks)
	[ "$(json_int directories.moved)" = 0 ] &&
	[ "$(json_int directories.in_region_before)" = "$blocks" ] ||
		fail "$tag: after the incremental run, directory blocks out" \
		     "of their region: $(jq -c .directories "$RUN_OUT")"
}

# ks_incremental TAG: e3metapack again on the written copy: it moves the
# new indirect blocks (and, under a --dirs mode that packs, the new
# directory blocks: see ks_dirs_incremental) (exit 0), keeps everything a
# user sees, and a third run has nothing to do.  Its undo file gives
# back the written image.
ks_incremental() {
	local tag=$1 img=$T/$1-rw.img KS_ARGS
	KS_ARGS=$(cat "$T/$tag.args")
	ks_dirs_incremental "$tag"
	cp --sparse=always "$img" "$T/$tag-rw.before"
	# -f: the kernel mounted it since the last e2fsck (checked -fn above)
	# shellcheck disable=SC2086
	run_tool -f $KS_ARGS -z "$T/$tag-rw.e2undo" "$img"
	expect_exit 0
	fsck_clean "$img"
	same_content "$T/$tag-rw.man" "$img"
	same_rdump "$T/$tag-rw.sums" "$img"
	ks_features "$img" >"$T/$tag-rw.features"
	ks_compare "$T/$tag.features" "$T/$tag-rw.features" \
		"$tag: features after the incremental e3metapack"
	ks_dirs_after "$tag"
	# shellcheck disable=SC2086
	run_tool -f -n --json $KS_ARGS "$img"
	expect_exit 1
	expect_json
	ks_dirs_done
	info "$tag: incremental e3metapack: exit 0, then nothing to do;" \
	     "$(json_int before.in_metacluster) of $(json_int indirect.total)" \
	     "indirect blocks in metaclusters"
	cp --sparse=always "$img" "$T/$tag-rw.undone"
	e2undo "$T/$tag-rw.e2undo" "$T/$tag-rw.undone" >"$T/e2undo.log" 2>&1 ||
		{ cat "$T/e2undo.log" >&2; fail "$tag: e2undo failed"; }
	cmp "$T/$tag-rw.before" "$T/$tag-rw.undone" >&2 ||
		fail "$tag: e2undo of the incremental run differs"
	rm -f "$T/$tag-rw.before" "$T/$tag-rw.undone" "$T/$tag-rw.e2undo"
}
