#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t0600-hostile: corrupted and hostile images.  A real run (not -n) of
# the tool on an image with bad block pointers, shared or looping
# indirect blocks, or flipped bytes in the superblock, the group
# descriptors, an inode table block or an indirect block must refuse
# (exit 2) or fail before writing (exit 4) with one line on stderr,
# "e3metapack: ..." naming the image, leave the image byte-identical
# (cmp against a copy taken before the run) and no undo file behind,
# and never crash (exit < 128, no sanitizer report).  A dry run (-n) of
# the same image must not crash or write either.  Where libext2fs itself
# rejects the image (ext2fs_open2), exit 4 with its message is fine.
# Where the message is predictable (the scan's refusals), it is checked
# word for word, inode and block included.
#
# The base images (1 KiB blocks, PROFILE=mixed: ext3, ext2, csum with
# metadata_csum, uninit with uninit_bg, mix with extent files too; dirs:
# ext3, PROFILE=dirs, many directories, htree-indexed, run with
# --dirs=pack, roots and volume, in the slow tier as building it takes a
# while) are built once, on first use, and copied for every case; each
# case corrupts its copy deterministically.
#
# Case variables:
#   FS       the base image: ext3 | nodx (ext3 without dir_index) | ext2 |
#            csum | uninit | mix | dirs
#   HOW      a recipe (a function how_<HOW> below) run on the copy $IMG;
#            it may set WANT, the exact expected message after
#            "e3metapack: $IMG: "
#   FLIP     where to XOR bytes, space-separated WHERE:OFFSET[:MASK]
#            (MASK default 0xff); WHERE is one of
#              sb         the primary superblock
#              gd:G       group G's descriptor in the primary table
#              ino:PATH   PATH's on-disk inode
#              ind:PATH   PATH's first IND block; dind:PATH  its DIND
#              blk:N      block N
#   RC       accepted exit codes of the real run ('2 4' if unset)
#   ARGS     more options for every run of the tool (--dirs=pack)
#   GREP     an ERE the refusal message must match (besides the image)
#   SETTLED  =1 (with HARMLESS): the run sets the count right, as e2fsck
#            would: after it e2fsck -fn is clean
#   HARMLESS =1: a corruption the tool need not care about (the bitmaps
#            are authoritative): it must go ahead (RC, default 0) and
#            leave e2fsck -fn with nothing to say but FSCK_ONLY (an ERE
#            every e2fsck question must match), with the same counts
#            off by as much after the run as before; set right with
#            debugfs, the image is then fsck-clean and its manifest that
#            of the base image
#   CORRUPT  =1: a volume marked clean and freshly checked whose metadata
#            that the tool reads or rewrites is corrupt: besides the
#            checks of every refusal, the same refusal (exit 2, the image
#            byte-identical) comes with -f, and with -n; e2fsck -fn finds the damage
#            (unless FSCK_SILENT=1: e2fsck -n leaves it unsaid, -fy
#            repairs it); and after e2fsck -fy on a copy, as the message
#            says, the tool no longer refuses
#   LEAVE    =1: a directory fault (CORRUPT's kind) that --dirs=leave
#            does not see: the default dry run refuses it; a dry run
#            under --dirs=leave reads no directory block (strace) and so
#            goes ahead, writing nothing (a real run is not tried: the
#            volume is damaged)
#   GAP      a known gap of the tool (what it does instead): the case
#            still fails on a crash or sanitizer report, but only prints
#            "known gap" when the tool accepts the image or prints more
#            than its one line.  E3MP_STRICT=1 makes gaps fail.  Remove
#            GAP= from a case once the tool handles it.

# shellcheck source=tests/lib.sh disable=SC2031,SC2119
. "${0%/*}/lib.sh"
need_tool
need_manifest

# ---- helpers ---------------------------------------------------------

# base_image FS: path of the pristine base image (built on first use;
# the cases run one after another, each in a subshell, so a built image
# stays in $T for the next).
base_image() {
	local fs=$1 img=$T/base-$1.img profile=mixed
	if [ ! -f "$img" ]; then
		case $fs in
		csum)	FSTYPE=ext4noext-csum ;;
		uninit)	FSTYPE=ext4noext MKFS_OPTS='-O uninit_bg' ;;
		mix)	FSTYPE=ext4mix ;;
		nodx)	FSTYPE=ext3 MKFS_OPTS='-O ^dir_index' ;;
		dirs)	FSTYPE=ext3 profile=dirs ;;
		*)	FSTYPE=$fs ;;
		esac
		BS=1024 PROFILE=$profile SIZE=32M mkimg "$img.tmp" >&2
		make_manifest "$img.tmp" "$T/base-$fs.manifest"
		mv "$img.tmp" "$img"
	fi
	echo "$img"
}

le32() {	# le32 VALUE: 4 little-endian bytes as a printf format
	local v=$1
	printf '\\x%02x\\x%02x\\x%02x\\x%02x' $((v & 255)) \
		$((v >> 8 & 255)) $((v >> 16 & 255)) $((v >> 24 & 255))
}

# put_be32 IMG BYTE_OFFSET VALUE: the journal's byte order
put_be32() {
	# shellcheck disable=SC2059
	printf "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($3 >> 24 & 255)) \
		$(($3 >> 16 & 255)) $(($3 >> 8 & 255)) $(($3 & 255)))" |
		dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# put_le32 IMG BYTE_OFFSET VALUE / get_le32 IMG BYTE_OFFSET
put_le32() {
	# shellcheck disable=SC2059
	printf "$(le32 "$3")" |
		dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
get_le32() {
	od -An -tu4 -j "$2" -N4 "$1" | tr -d ' '
}

# xor_byte IMG BYTE_OFFSET MASK
xor_byte() {
	local b
	b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	[ -n "$b" ] || fail "xor_byte: offset $2 is past the end of $1"
	# shellcheck disable=SC2059
	printf "$(printf '\\x%02x' $((b ^ $3)))" |
		dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# Where things are, asked of debugfs.
ino_of() {
	local n
	n=$(dbg "$1" "stat \"$2\"" | sed -n 's/^Inode: \([0-9]*\) .*/\1/p')
	[ -n "$n" ] || fail "no inode for $2 in $1"
	echo "$n"
}
# meta_of IMG PATH TAG [N]: the Nth (default 1st) block tagged (TAG) in
# debugfs stat's block list (TAG: IND, DIND, TIND).
meta_of() {
	local n
	n=$(dbg "$1" "stat \"$2\"" | grep -o "($3):[0-9]*" |
		sed -n "${4:-1}s/.*://p")
	[ -n "$n" ] || fail "$2 in $1 has no ($3) block #${4:-1}"
	echo "$n"
}
# data_of IMG PATH LOGICAL: the physical block of a logical block.
data_of() {
	local n
	n=$(dbg "$1" "bmap \"$2\" $3")
	case $n in ''|*[!0-9]*|0) fail "no block $3 in $2 of $1" ;; esac
	echo "$n"
}
# group_loc IMG GROUP 'block bitmap'|'inode bitmap'|'inode table'
group_loc() {
	local n
	n=$(dbg "$1" stats | sed -n "s/^ Group *$2: .*$3 at \([0-9]*\).*/\1/p")
	[ -n "$n" ] || fail "no $3 for group $2 in $1"
	echo "$n"
}
# inode_off IMG INO: byte offset of the on-disk inode.
inode_off() {
	local blk off
	read -r blk off < <(dbg "$1" "imap <$2>" |
		sed -n 's/.*located at block \([0-9]*\), offset \(0x[0-9a-f]*\).*/\1 \2/p')
	[ -n "$blk" ] || fail "debugfs imap <$2> failed on $1"
	echo $((blk * BS + off))
}
# first_free IMG FROM: the first block free in the bitmap from FROM on.
first_free() {
	local n
	n=$(dbg "$1" "ffb 1 $2" | sed -n 's/^Free blocks found: \([0-9]*\).*/\1/p')
	[ -n "$n" ] || fail "no free block from $2 in $1"
	echo "$n"
}
blocks_count() {
	sb_field "$1" 'Block count'
}

# where_off IMG WHERE: byte offset of WHERE (see FLIP above).
where_off() {
	local img=$1 w=$2 dsz
	case $w in
	sb)	echo 1024 ;;
	gd:*)	dsz=$(sb_field "$img" 'Group descriptor size')
		dsz=${dsz:-32}
		echo $((($(sb_field "$img" 'First block') + 1) * BS +
			${w#gd:} * dsz)) ;;
	ino:*)	inode_off "$img" "$(ino_of "$img" "${w#ino:}")" ;;
	ind:*)	echo $(($(meta_of "$img" "${w#ind:}" IND) * BS)) ;;
	dind:*)	echo $(($(meta_of "$img" "${w#dind:}" DIND) * BS)) ;;
	blk:*)	echo $((${w#blk:} * BS)) ;;
	*)	fail "unknown FLIP place '$w'" ;;
	esac
}

# apply_flips IMG "WHERE:OFFSET[:MASK] ...": XOR the bytes.
apply_flips() {
	local img=$1 f where rest off mask base
	for f in $2; do
		case $f in
		sb:*)	where=sb rest=${f#sb:} ;;
		*:*:*)	where=${f%%:*}:$(cut -d: -f2 <<<"$f")
			rest=${f#"$where":} ;;
		*)	fail "bad FLIP '$f'" ;;
		esac
		off=${rest%%:*} mask=0xff
		case $rest in *:*) mask=${rest#*:} ;; esac
		base=$(where_off "$img" "$where")
		xor_byte "$img" $((base + off)) "$mask"
	done
}

# ---- recipes: each corrupts $IMG; WANT is the expected message -------

# e3metapack's messages for the scan's refusals.
fsck_hint() { echo ". Please run 'e2fsck -f $IMG' first."; }
m_outside() { echo "inode $1, block $2: block pointer outside the filesystem$(fsck_hint)"; }
m_free()    { echo "inode $1, block $2: block in use by a file but free in the block bitmap$(fsck_hint)"; }
m_twice()   { echo "inode $1, block $2: block claimed twice$(fsck_hint)"; }

# Files of the mixed profile used below (no extended attributes):
#   /f.i13   13 blocks: one IND     /f.k100  98 blocks: one IND
#   /f.m2_5  2.4 MB: IND, DIND (/f.m1, which has xattrs, in FLIP cases)
A=/f.i13 B=/f.k100 C=/f.m2_5

# Recipes for a file or a directory (PATH), each setting WANT.
# iblock_past_end PATH FIELD: i_block FIELD (IND, 0) past the end.
iblock_past_end() {
	local ino v
	ino=$(ino_of "$IMG" "$1") v=$(($(blocks_count "$IMG") + 7))
	echo "sif <$ino> block[$2] $v" | dbg_w "$IMG"
	WANT=$(m_outside "$ino" "$v")
}
# ind_slot_past_end PATH: a data pointer past the end in its IND (slot 5).
ind_slot_past_end() {
	local ino ind v
	ino=$(ino_of "$IMG" "$1") ind=$(meta_of "$IMG" "$1" IND)
	v=$(blocks_count "$IMG")
	put_le32 "$IMG" $((ind * BS + 5 * 4)) "$v"
	WANT=$(m_outside "$ino" "$v")
}
# iblock_into_itable PATH FIELD GROUP K: i_block FIELD to block K of
# group GROUP's inode table.
iblock_into_itable() {
	local ino t
	ino=$(ino_of "$IMG" "$1")
	t=$(($(group_loc "$IMG" "$3" 'inode table') + $4))
	echo "sif <$ino> block[$2] $t" | dbg_w "$IMG"
	WANT=$(m_twice "$ino" "$t")
}
# iblock_to_free_block PATH FIELD: i_block FIELD to a free block.
iblock_to_free_block() {
	local ino f
	ino=$(ino_of "$IMG" "$1")
	f=$(first_free "$IMG" $(($(blocks_count "$IMG") - 1000)))
	echo "sif <$ino> block[$2] $f" | dbg_w "$IMG"
	WANT=$(m_free "$ino" "$f")
}
# ind_marked_free PATH: its IND block marked free in the bitmap.
ind_marked_free() {
	local ino ind
	ino=$(ino_of "$IMG" "$1") ind=$(meta_of "$IMG" "$1" IND)
	echo "freeb $ind" | dbg_w "$IMG"
	WANT=$(m_free "$ino" "$ind")
}
# ind_self_loop PATH: its IND block's first slot points to itself.
ind_self_loop() {
	local ino ind
	ino=$(ino_of "$IMG" "$1") ind=$(meta_of "$IMG" "$1" IND)
	put_le32 "$IMG" $((ind * BS)) "$ind"
	WANT=$(m_twice "$ino" "$ind")
}

# An i_block[] pointer past the end of the volume: IND, and data.
how_iblock_ind_past_end() { iblock_past_end $B IND; }
how_iblock_data_past_end() {
	local ino
	ino=$(ino_of "$IMG" $A)
	echo "sif <$ino> block[3] 4294967295" | dbg_w "$IMG"
	WANT=$(m_outside "$ino" 4294967295)
}
# A data pointer past the end inside an IND block (slot 5).
how_ind_slot_past_end() { ind_slot_past_end $B; }
# An IND pointer past the end inside a DIND block (slot 1).
how_dind_slot_past_end() {
	local ino dind
	ino=$(ino_of "$IMG" $C) dind=$(meta_of "$IMG" $C DIND)
	put_le32 "$IMG" $((dind * BS + 4)) 3000000000
	WANT=$(m_outside "$ino" 3000000000)
}
# Pointers into fixed metadata: the scan claims it before any file.
how_data_into_itable() { iblock_into_itable $A 2 1 7; }
how_ind_into_itable() { iblock_into_itable $B IND 0 3; }
how_ind_into_block_bitmap() {
	local ino t
	ino=$(ino_of "$IMG" $B) t=$(group_loc "$IMG" 0 'block bitmap')
	echo "sif <$ino> block[IND] $t" | dbg_w "$IMG"
	WANT=$(m_twice "$ino" "$t")
}
how_ind_slot_into_inode_bitmap() {
	local ino ind t
	ino=$(ino_of "$IMG" $B) ind=$(meta_of "$IMG" $B IND)
	t=$(group_loc "$IMG" 1 'inode bitmap')
	put_le32 "$IMG" $((ind * BS + 40)) "$t"
	WANT=$(m_twice "$ino" "$t")
}
how_data_into_superblock() {
	local ino
	ino=$(ino_of "$IMG" $A)
	echo "sif <$ino> block[1] 1" | dbg_w "$IMG"
	WANT=$(m_twice "$ino" 1)
}
how_data_into_backup_gdt() {
	local ino g
	ino=$(ino_of "$IMG" $A) g=$(($(blocks_count "$IMG") / 4 + 2))
	# group 1 of a 32 MiB 1 KiB-block volume: superblock at 8193, the
	# descriptor table at 8194
	[ "$g" = 8194 ] || fail "unexpected geometry (group 1 gdt at $g?)"
	echo "sif <$ino> block[0] $g" | dbg_w "$IMG"
	WANT=$(m_twice "$ino" "$g")
}
how_data_into_reserved_gdt() {
	local ino
	ino=$(ino_of "$IMG" $A)
	echo "sif <$ino> block[4] 50" | dbg_w "$IMG"
	WANT=$(m_twice "$ino" 50)
}
# One IND block in two files: the second to claim it is refused.
how_ind_shared() {
	local ia ib ind
	ia=$(ino_of "$IMG" $A) ib=$(ino_of "$IMG" $B)
	ind=$(meta_of "$IMG" $A IND)
	[ "$ia" -lt "$ib" ] || fail "expected $A before $B"
	echo "sif <$ib> block[IND] $ind" | dbg_w "$IMG"
	WANT=$(m_twice "$ib" "$ind")
}
# A data block in two files.
how_data_shared() {
	local ia ib d
	ia=$(ino_of "$IMG" $A) ib=$(ino_of "$IMG" $B)
	d=$(data_of "$IMG" $A 5)
	echo "sif <$ib> block[0] $d" | dbg_w "$IMG"
	WANT=$(m_twice "$ib" "$d")
}
# Loops: an IND block whose slot points to itself; a DIND whose slot
# points to itself; an IND under a DIND pointing back to the DIND (its
# parent); a TIND pointer to the file's own DIND.
how_ind_self_loop() { ind_self_loop $B; }
how_dind_self_loop() {
	local ino dind
	ino=$(ino_of "$IMG" $C) dind=$(meta_of "$IMG" $C DIND)
	put_le32 "$IMG" $((dind * BS + 8)) "$dind"
	WANT=$(m_twice "$ino" "$dind")
}
how_ind_to_parent_dind() {
	local ino dind ind
	ino=$(ino_of "$IMG" $C) dind=$(meta_of "$IMG" $C DIND)
	ind=$(meta_of "$IMG" $C IND 2)	# the first IND under the DIND
	[ "$(get_le32 "$IMG" $((dind * BS)))" = "$ind" ] ||
		fail "IND #2 of $C is not the DIND's first child"
	put_le32 "$IMG" $((ind * BS + 4 * 17)) "$dind"
	WANT=$(m_twice "$ino" "$dind")
}
how_tind_is_own_dind() {
	local ino dind
	ino=$(ino_of "$IMG" $C) dind=$(meta_of "$IMG" $C DIND)
	echo "sif <$ino> block[TIND] $dind" | dbg_w "$IMG"
	WANT=$(m_twice "$ino" "$dind")
}
# A TIND pointer to another file's IND block.
how_tind_to_other_ind() {
	local ia ib ind
	ia=$(ino_of "$IMG" $A) ib=$(ino_of "$IMG" $B)
	ind=$(meta_of "$IMG" $A IND)
	echo "sif <$ib> block[TIND] $ind" | dbg_w "$IMG"
	WANT=$(m_twice "$ib" "$ind")
}
# Pointers to blocks the bitmap says are free.
how_data_to_free_block() { iblock_to_free_block $A 2; }
how_ind_slot_to_free_block() {
	local ino ind f
	ino=$(ino_of "$IMG" $B) ind=$(meta_of "$IMG" $B IND)
	f=$(first_free "$IMG" $(($(blocks_count "$IMG") - 100)))
	put_le32 "$IMG" $((ind * BS + 4 * 30)) "$f"
	WANT=$(m_free "$ino" "$f")
}
how_ind_marked_free() { ind_marked_free $B; }
how_dind_marked_free() {
	local ino dind
	ino=$(ino_of "$IMG" $C) dind=$(meta_of "$IMG" $C DIND)
	echo "freeb $dind" | dbg_w "$IMG"
	WANT=$(m_free "$ino" "$dind")
}
# The extended-attribute block: past the end, and free.
how_xattr_past_end() {
	local ino
	ino=$(ino_of "$IMG" $A)
	echo "sif <$ino> file_acl 123456789" | dbg_w "$IMG"
	WANT=$(m_outside "$ino" 123456789)
}
how_xattr_free() {
	local ino f
	ino=$(ino_of "$IMG" $A)
	f=$(first_free "$IMG" $(($(blocks_count "$IMG") - 10)))
	echo "sif <$ino> file_acl $f" | dbg_w "$IMG"
	WANT=$(m_free "$ino" "$f")
}
# An inode in use (linked) but free in the inode bitmap.
how_inode_free() {
	local ino
	ino=$(ino_of "$IMG" $B)
	echo "freei <$ino>" | dbg_w "$IMG"
	WANT="inode $ino: inode in use but free in the inode bitmap$(fsck_hint)"
}
# The bad-blocks inode lists a file's data block.
how_badblocks_claim_data() {
	local ino d
	ino=$(ino_of "$IMG" $A) d=$(data_of "$IMG" $A 0)
	dbg_w "$IMG" <<-EOF
	sif <1> block[0] $d
	sif <1> size $BS
	sif <1> blocks $((BS / 512))
	EOF
	WANT=$(m_twice "$ino" "$d")
}
# The resize inode's DIND past the end.
how_resize_dind_past_end() {
	echo "sif <7> block[DIND] 99999999" | dbg_w "$IMG"
	WANT=$(m_outside 7 99999999)
}
# A file's IND pointer to the journal's first IND block.
how_ind_into_journal() {
	local ino j
	ino=$(ino_of "$IMG" $B) j=$(meta_of "$IMG" '<8>' IND)
	echo "sif <$ino> block[IND] $j" | dbg_w "$IMG"
	WANT=$(m_twice "$ino" "$j")
}
# A block-mapped file flagged as extent-mapped: its i_block[] is no
# extent header.  libext2fs's iterator fails; exit 4.
how_fake_extent_flag() {
	local ino
	ino=$(ino_of "$IMG" $B)
	echo "sif <$ino> flags 0x80000" | dbg_w "$IMG"
}
# Group descriptors whose block bitmap is somewhere else: in the inode
# table of group 0 (on write-back the tool would write group 3's bitmap
# over live inodes), or shared with group 2's.
how_gd_bitmap_in_itable() {
	local t
	t=$(($(group_loc "$IMG" 0 'inode table') + 155))
	echo "set_bg 3 block_bitmap $t" | dbg_w "$IMG"
}
how_gd_bitmap_shared() {
	echo "set_bg 3 block_bitmap $(group_loc "$IMG" 2 'block bitmap')" |
		dbg_w "$IMG"
}
# Group 3's block bitmap on the free block the plan (asked with -n -d 1)
# copies its first block to in round 1: on write-back the bitmap lands on
# the copy (silent data loss; e2fsck is clean afterwards).
how_gd_bitmap_on_destination() {
	local f
	"$E3MP" -n -d 1 "$IMG" >"$RUN_DIR/plan.out" 2>&1 || :
	f=$(sed -n 's/^round 1: .* -> \([0-9]*\)$/\1/p' "$RUN_DIR/plan.out" |
		sed -n 1p)
	[ -n "$f" ] || fail "no round-1 move in the plan of $IMG"
	echo "set_bg 3 block_bitmap $f" | dbg_w "$IMG"
}
how_gd_bitmap_past_end() {
	echo "set_bg 3 block_bitmap $(($(blocks_count "$IMG") + 100))" |
		dbg_w "$IMG"
}
how_gd_itable_past_end() {
	echo "set_bg 1 inode_table $(($(blocks_count "$IMG") + 100))" |
		dbg_w "$IMG"
}
# Directories of the dirs profile, packed under --dirs=pack:
#   /big  29 blocks: one IND      /d04, /d17  htree, 6 blocks or more
DA=/big DB=/d04 DC=/d17

# A directory's pointers: past the end, into fixed metadata, to a free
# block, marked free, looping; a directory block in two directories.
how_dir_iblock_past_end() { iblock_past_end $DB 0; }
how_dir_ind_slot_past_end() { ind_slot_past_end $DA; }
how_dir_data_into_itable() { iblock_into_itable $DB 1 1 7; }
how_dir_ind_into_itable() { iblock_into_itable $DA IND 0 3; }
how_dir_data_to_free_block() { iblock_to_free_block $DB 2; }
how_dir_block_marked_free() {
	local ino d
	ino=$(ino_of "$IMG" $DB) d=$(data_of "$IMG" $DB 2)
	echo "freeb $d" | dbg_w "$IMG"
	WANT=$(m_free "$ino" "$d")
}
how_dir_ind_marked_free() { ind_marked_free $DA; }
how_dir_ind_self_loop() { ind_self_loop $DA; }
# The later directory in inode order is refused for the block.
how_dir_data_shared() {
	local ib ic d
	ib=$(ino_of "$IMG" $DB) ic=$(ino_of "$IMG" $DC)
	[ "$ib" -lt "$ic" ] || fail "expected $DB before $DC"
	d=$(data_of "$IMG" $DB 1)
	echo "sif <$ic> block[3] $d" | dbg_w "$IMG"
	WANT=$(m_twice "$ic" "$d")
}

# Harmless for the tool (it counts free blocks in the bitmaps): wrong
# summary counts in a group descriptor and in the superblock.
how_gd_free_count() {
	echo "set_bg 0 free_blocks_count 100" | dbg_w "$IMG"
}
how_gd_dirs_count() {
	echo "set_bg 2 used_dirs_count 7" | dbg_w "$IMG"
}
how_sb_free_count() {
	echo "ssv free_blocks_count 1234" | dbg_w "$IMG"
}

# ---- recipes: volumes marked clean, with corrupt metadata (CORRUPT=1) ---

m_inode() { echo "inode $1: $2$(fsck_hint)"; }
m_jsb()   { echo "journal superblock invalid: $1$(fsck_hint)"; }

# Checksums (metadata_csum; uninit_bg for the descriptors).
how_gd_csum() {
	echo "set_bg 1 checksum 0x1234" | dbg_w "$IMG"
	WANT="group 1: group descriptor checksum does not match$(fsck_hint)"
}
how_sb_csum() {
	xor_byte "$IMG" $((1024 + 1020)) 0x55	# s_checksum
	WANT="superblock checksum does not match$(fsck_hint)"
}
# gd_csum_calc G: make group G's descriptor checksum valid again
# (debugfs -n: it cannot open the volume with checksums verified).
gd_csum_calc() {
	debugfs -w -n -R "set_bg $1 checksum calc" "$IMG" >/dev/null 2>&1 ||
		fail "debugfs -n set_bg $1 checksum calc failed"
}
# A bitmap's checksum in its descriptor (which is then made valid).
how_block_bitmap_csum() {
	xor_byte "$IMG" $(($(where_off "$IMG" gd:0) + 0x18)) 0x55
	gd_csum_calc 0
	WANT="block bitmap checksum does not match$(fsck_hint)"
}
how_inode_bitmap_csum() {
	xor_byte "$IMG" $(($(where_off "$IMG" gd:0) + 0x1a)) 0x55
	gd_csum_calc 0
	WANT="inode bitmap checksum does not match$(fsck_hint)"
}
how_inode_csum() {
	local ino
	ino=$(ino_of "$IMG" $B)
	xor_byte "$IMG" $(($(inode_off "$IMG" "$ino") + 124)) 0x55
	WANT=$(m_inode "$ino" "inode checksum does not match")
}
# i_blocks of a file the run rewrites, off by one block.
how_i_blocks() {
	local ino n
	ino=$(ino_of "$IMG" $B)
	n=$(dbg "$IMG" "stat <$ino>" | sed -n 's/.*Blockcount: \([0-9]*\).*/\1/p')
	echo "sif <$ino> blocks $((n + BS / 512))" | dbg_w "$IMG"
	WANT=$(m_inode "$ino" "i_blocks does not match the blocks the inode maps")
}
# The journal (inode 8): its superblock, big-endian, at its block 0.
jsb_put() {
	put_be32 "$IMG" $(($(data_of "$IMG" '<8>' 0) * BS + $1)) "$2"
}
how_jsb_magic()     { jsb_put 0 0x12345678; WANT=$(m_jsb "bad magic number"); }
how_jsb_log_block() { jsb_put 4 1; WANT=$(m_jsb "a log block where the superblock should be"); }
how_jsb_blocksize() { jsb_put 12 4096; WANT=$(m_jsb "block size differs from the filesystem's"); }
how_jsb_maxlen()    { jsb_put 16 8192; WANT=$(m_jsb "s_maxlen is past the end of the journal inode"); }
how_jsb_start()     { jsb_put 28 5; WANT=$(m_jsb "holds transactions, but the volume needs no recovery"); }
how_jsb_errno()     { jsb_put 32 0xfffffffb; WANT=$(m_jsb "records an aborted journal (s_errno)"); }
# csum v3 set: a checksum type, then a checksum, that do not fit
how_jsb_csum_type() { jsb_put 40 0x10; WANT=$(m_jsb "unknown checksum type"); }
how_jsb_csum() {
	jsb_put 40 0x10
	jsb_put 80 0x04000000	# s_checksum_type crc32c; s_checksum stays 0
	WANT=$(m_jsb "checksum does not match")
}
how_jsb_unknown_feature() {
	jsb_put 40 0x100
	WANT="unsupported feature: unknown journal feature"
}
how_journal_short() {	# i_size below s_maxlen
	echo "sif <8> size $((2048 * BS))" | dbg_w "$IMG"
	WANT=$(m_jsb "s_maxlen is past the end of the journal inode")
}
how_journal_not_file() {
	echo "sif <8> mode 040600" | dbg_w "$IMG"
	WANT=$(m_inode 8 "journal inode invalid: not a regular file in use")
}
# The journal inode's block map: a hole; a block past the end; the
# superblock's copy of i_block[] (s_jnl_blocks) differing from it.
how_journal_hole() {
	put_le32 "$IMG" $(($(meta_of "$IMG" '<8>' IND) * BS + 4 * 9)) 0
	WANT=$(m_inode 8 "journal inode invalid: a hole in its block map")
}
how_journal_past_end() {
	local v
	v=$(($(blocks_count "$IMG") + 3))
	put_le32 "$IMG" $(($(meta_of "$IMG" '<8>' IND) * BS + 4 * 9)) "$v"
	WANT=$(m_outside 8 "$v")
}
how_journal_backup() {
	echo "ssv jnl_blocks[3] 1234" | dbg_w "$IMG"
	WANT="the superblock's copy of the journal inode's block map differs from it$(fsck_hint)"
}

# An extent file (mix base) with an extent tree block: written sparse by
# debugfs, eight extents; then a byte of that block's checksum flipped.
how_extent_block_csum() {
	local h=$RUN_DIR/sparse k ino etb
	rm -f "$h"
	for k in 0 2 4 6 8 10 12 14; do
		gen_data "sparse$k" "$BS" |
			dd of="$h" bs="$BS" seek="$k" conv=notrunc status=none
	done
	echo "write $h /ext/sparse" | dbg_w "$IMG"
	ino=$(ino_of "$IMG" /ext/sparse)
	etb=$(dbg "$IMG" "stat <$ino>" | grep -o '(ETB0):[0-9]*' | sed 's/.*://')
	[ -n "$etb" ] || fail "/ext/sparse has no extent tree block"
	fsck_clean "$IMG"
	xor_byte "$IMG" $((etb * BS + BS - 4)) 0x55
	WANT=$(m_inode "$ino" "extent tree block checksum does not match")
}


# ---- recipes: directories, the bad-blocks inode, group counts ----------
# Each sets WANT (or GREP where the block is the tree's to pick); the
# directory recipes make their own directories with debugfs, which keeps
# every checksum right, and edit bytes only where no checksum covers them
# (the bases without metadata_csum).

m_dent()  { echo "inode $1, block $2: directory entry invalid: $3$(fsck_hint)"; }
m_dino()  { echo "inode $1: directory inode invalid: $2$(fsck_hint)"; }
m_dtree() { echo "inode $1: directory not connected to the tree as its entries say: $2$(fsck_hint)"; }
m_group() { echo "group $1: group descriptor counts disagree with the bitmaps: $2$(fsck_hint)"; }
m_bb()    { echo "inode 1, block $1: bad-blocks inode lists an invalid block: $2$(fsck_hint)"; }

# /dc and /dc2, each with a subdirectory and a file; DC, SUB: inodes;
# DB: the physical block 0 of /dc.
mk_dirs() {
	dbg_w "$IMG" <<-EOF
	mkdir /dc
	mkdir /dc/sub
	mkdir /dc2
	mkdir /dc2/sub2
	write /dev/null /dc/x
	EOF
	DC=$(ino_of "$IMG" /dc) SUB=$(ino_of "$IMG" /dc/sub)
	DB=$(data_of "$IMG" /dc 0)
}
how_dir_unused_ino() {
	local free
	mk_dirs
	free=$(dbg "$IMG" "ffi" | sed -n 's/^Free inode found: \([0-9]*\).*/\1/p')
	echo "ln <$free> /dc/ghost" | dbg_w "$IMG"
	WANT=$(m_dent "$DC" "$DB" "it names an inode not in use")
}
how_dir_ftype() {
	mk_dirs
	dbg_w "$IMG" <<-EOF
	cd /dc
	mknod pipe p
	sif /dc/pipe mode 020644
	EOF
	WANT=$(m_dent "$DC" "$DB" "its file type disagrees with the inode's mode")
}
how_dir_bad_mode() {
	mk_dirs
	dbg_w "$IMG" <<-EOF
	cd /dc
	mknod pipe p
	sif /dc/pipe mode 0170644
	EOF
	WANT=$(m_dent "$DC" "$DB" "it names an inode of no valid type")
}
how_dir_dotdot() {	# /dc/sub's '..' names /dc2
	mk_dirs
	dbg_w "$IMG" <<-EOF
	unlink /dc/sub/..
	ln /dc2 /dc/sub/..
	EOF
	WANT=$(m_dtree "$SUB" "its '..' does not name the directory that names it")
}
how_dir_unlinked() {
	mk_dirs
	echo "unlink /dc/sub" | dbg_w "$IMG"
	WANT=$(m_dtree "$SUB" "no directory names it")
}
how_dir_twice() {
	mk_dirs
	echo "ln /dc/sub /dc2/again" | dbg_w "$IMG"
	WANT=$(m_dtree "$SUB" "more than one entry names it")
}
how_dir_size() {
	mk_dirs
	echo "sif /dc size $((BS + BS / 2))" | dbg_w "$IMG"
	WANT=$(m_dino "$DC" "its size is not a whole number of blocks")
}
# Raw edits of /dc's block 0: '.' rec_len 12 -> 13; its name_len 1 -> 5;
# the third entry (x) renamed '.'.
how_dir_rec_len() {
	mk_dirs
	xor_byte "$IMG" $((DB * BS + 4)) 0x01
	WANT=$(m_dent "$DC" "$DB" "a rec_len outside the block or unaligned")
}
how_dir_name_len() {
	mk_dirs
	xor_byte "$IMG" $((DB * BS + 6)) 0x04
	WANT=$(m_dent "$DC" "$DB" "a name longer than its entry")
}
how_dir_dup_dot() {
	mk_dirs
	[ "$(dbg "$IMG" "ls -l /dc" | awk 'NR == 3 { print $NF }')" = sub ] ||
		fail "/dc's third entry is not sub"
	printf '\001' | dd of="$IMG" bs=1 seek=$((DB * BS + 24 + 6)) \
		conv=notrunc status=none
	printf '.' | dd of="$IMG" bs=1 seek=$((DB * BS + 24 + 8)) \
		conv=notrunc status=none
	WANT=$(m_dent "$DC" "$DB" "'.' or '..' where another entry belongs")
}
how_dir_csum() {
	mk_dirs
	xor_byte "$IMG" $((DB * BS + 24 + 8)) 0x20
	WANT="inode $DC, block $DB: directory block checksum does not match$(fsck_hint)"
}
# An htree directory /hx (e2fsck -fD indexes it); HB: its root block.
mk_htree() {
	local i
	mkdir -p "$RUN_DIR"
	{
		echo "mkdir /hx"
		for i in $(seq 1 300); do echo "symlink /hx/entry-$i x"; done
	} | dbg_w "$IMG"
	e2fsck -fyD "$IMG" >"$RUN_DIR/fsck-D.log" 2>&1 || :
	fsck_clean "$IMG"
	HX=$(ino_of "$IMG" /hx) HB=$(data_of "$IMG" /hx 0)
	dbg "$IMG" "htree_dump /hx" | grep -q '^Root node dump' ||
		fail "/hx is not htree-indexed"
}
m_htree() { echo "inode $HX, block $1: directory index (htree) invalid: $2$(fsck_hint)"; }
how_htree_hash_version() {
	mk_htree
	printf '\007' | dd of="$IMG" bs=1 seek=$((HB * BS + 28)) \
		conv=notrunc status=none
	WANT=$(m_htree "$HB" "an unknown hash version")
}
how_htree_levels() {
	mk_htree
	printf '\003' | dd of="$IMG" bs=1 seek=$((HB * BS + 30)) \
		conv=notrunc status=none
	WANT=$(m_htree "$HB" "more index levels than allowed")
}
how_htree_limit() {
	mk_htree
	xor_byte "$IMG" $((HB * BS + 32)) 0x01
	WANT=$(m_htree "$HB" "an index limit that does not fit its block")
}
how_htree_swap() {	# the first two leaves' blocks swapped in the root
	local a b
	mk_htree
	a=$(get_le32 "$IMG" $((HB * BS + 36)))
	b=$(get_le32 "$IMG" $((HB * BS + 44)))
	put_le32 "$IMG" $((HB * BS + 36)) "$b"
	put_le32 "$IMG" $((HB * BS + 44)) "$a"
	GREP="inode $HX, block [0-9]+: directory index \\(htree\\) invalid: a name hashing outside its leaf's range"
}
how_badblocks_past_end() {
	local v
	v=$(($(blocks_count "$IMG") + 5))
	dbg_w "$IMG" <<-EOF
	sif <1> block[0] $v
	sif <1> size $BS
	sif <1> blocks $((BS / 512))
	EOF
	WANT=$(m_bb "$v" "a block outside the filesystem")
}
how_badblocks_metadata() {
	local t
	t=$(group_loc "$IMG" 1 'inode table')
	dbg_w "$IMG" <<-EOF
	sif <1> block[0] $t
	sif <1> size $BS
	sif <1> blocks $((BS / 512))
	EOF
	WANT="unsupported feature: a bad block in fixed metadata"
}
# A file in use (links_count 1) that no entry names: e2fsck pass 4
# links it into lost+found.
how_unattached() {
	local ino
	echo "write /dev/null /lonely" | dbg_w "$IMG"
	ino=$(ino_of "$IMG" /lonely)
	echo "unlink /lonely" | dbg_w "$IMG"
	WANT="inode $ino: inode in use but named by no directory entry$(fsck_hint)"
}
# A slow symlink (80 bytes of target, in its block) whose size says 100:
# e2fsck pass 1 reads the block and finds the symlink invalid.
how_slow_symlink_size() {
	local ino
	echo "symlink /slow $(printf 'target%.0s' $(seq 1 16) | cut -c1-80)" |
		dbg_w "$IMG"
	ino=$(ino_of "$IMG" /slow)
	[ "$(dbg "$IMG" "stat /slow" | grep -c '^(0):')" = 1 ] ||
		fail "/slow is not a slow symlink"
	echo "sif /slow size 100" | dbg_w "$IMG"
	WANT=$(m_inode "$ino" "inode field invalid: a slow symlink whose size is not its target's")
}
# A file flagged encrypted, without the attribute that holds its policy:
# refused as unsupported (the run reads no attributes), which e2fsck
# clears the flag of.
how_encrypted() {
	local ino
	echo "write /dev/null /enc" | dbg_w "$IMG"
	ino=$(ino_of "$IMG" /enc)
	echo "sif /enc flags 0x800" | dbg_w "$IMG"
	WANT="inode $ino: encrypted inode: not supported (its encryption policy is not checked)"
}

# (debugfs set_bg leaves the descriptor checksum as it was)
gd_resum() {
	case $FS in csum|uninit) gd_csum_calc "$1" ;; esac
}
how_gd_free_blocks() {
	how_gd_free_count
	gd_resum 0
	WANT=$(m_group 0 "its free-block count")
}
how_gd_free_inodes() {
	local n
	n=$(dbg "$IMG" stats | sed -n 's/^  *\([0-9]*\) free blocks, \([0-9]*\) free inodes.*/\2/p' | sed -n 2p)
	echo "set_bg 1 free_inodes_count $((n - 3))" | dbg_w "$IMG"
	gd_resum 1
	WANT=$(m_group 1 "its free-inode count")
}
how_gd_dirs() {
	how_gd_dirs_count
	gd_resum 2
	WANT=$(m_group 2 "its directory count")
}

# ---- the cases -------------------------------------------------------

# Pointer cases run on both base images; flips mostly on ext3.
CASES=
for fs in ext3 ext2; do
	for how in iblock_ind_past_end iblock_data_past_end \
		ind_slot_past_end dind_slot_past_end \
		data_into_itable ind_into_itable ind_into_block_bitmap \
		ind_slot_into_inode_bitmap data_into_superblock \
		data_into_backup_gdt data_into_reserved_gdt \
		ind_shared data_shared ind_self_loop dind_self_loop \
		ind_to_parent_dind tind_is_own_dind tind_to_other_ind \
		data_to_free_block ind_slot_to_free_block ind_marked_free \
		dind_marked_free xattr_past_end xattr_free inode_free \
		badblocks_claim_data resize_dind_past_end; do
		CASES+="name=$fs-${how//_/-} FS=$fs HOW=$how RC=2
"
	done
done
CASES+="
name=ext3-ind-into-journal   FS=ext3 HOW=ind_into_journal RC=2
name=ext3-fake-extent-flag   FS=ext3 HOW=fake_extent_flag
name=ext2-fake-extent-flag   FS=ext2 HOW=fake_extent_flag

# the superblock: counts, sizes, magic, state, revision, features
name=ext3-sb-inodes-count    FS=ext3 FLIP='sb:0'   RC=4
name=ext3-sb-blocks-count    FS=ext3 FLIP='sb:4'   RC=4
name=ext3-sb-first-data      FS=ext3 FLIP='sb:20' 
name=ext3-sb-log-bsize       FS=ext3 FLIP='sb:24'  RC=4
name=ext3-sb-bpg             FS=ext3 FLIP='sb:32'  RC=4
name=ext3-sb-ipg             FS=ext3 FLIP='sb:40'  RC=4
name=ext3-sb-magic           FS=ext3 FLIP='sb:56'  RC=2 GREP='not an ext2/3/4'
name=ext3-sb-state           FS=ext3 FLIP='sb:58'  RC=2 GREP='errors recorded'
name=ext3-sb-rev             FS=ext3 FLIP='sb:76'  RC=4
name=ext3-sb-inode-size      FS=ext3 FLIP='sb:88'  RC=4
name=ext3-sb-incompat        FS=ext3 FLIP='sb:96'  RC=2
name=ext3-sb-ro-compat       FS=ext3 FLIP='sb:100' RC=4
name=ext3-sb-compat          FS=ext3 FLIP='sb:92' 
name=ext3-sb-reserved-gdt    FS=ext3 FLIP='sb:206'
name=ext2-sb-blocks-count    FS=ext2 FLIP='sb:4'   RC=4
name=ext2-sb-ipg             FS=ext2 FLIP='sb:41'  RC=4
name=ext2-sb-magic           FS=ext2 FLIP='sb:57'  RC=2 GREP='not an ext2/3/4'
name=ext2-sb-incompat        FS=ext2 FLIP='sb:96'  RC=2

# group descriptors: bitmap and inode table locations
name=ext3-gd0-block-bitmap   FS=ext3 FLIP='gd:0:0' RC=2
name=ext3-gd0-block-bitmap-hi FS=ext3 FLIP='gd:0:1'
name=ext3-gd0-inode-bitmap   FS=ext3 FLIP='gd:0:4' RC=2
name=ext3-gd0-inode-table    FS=ext3 FLIP='gd:0:8' RC=2
name=ext3-gd0-inode-table-hi FS=ext3 FLIP='gd:0:9'
name=ext3-gd1-block-bitmap   FS=ext3 FLIP='gd:1:0' RC=2
name=ext3-gd1-inode-bitmap   FS=ext3 FLIP='gd:1:4'
name=ext3-gd1-inode-table    FS=ext3 FLIP='gd:1:8' RC=2
name=ext3-gd2-block-bitmap   FS=ext3 FLIP='gd:2:0' RC=2
name=ext3-gd2-inode-table    FS=ext3 FLIP='gd:2:8' RC=2
name=ext3-gd3-block-bitmap   FS=ext3 FLIP='gd:3:0'
name=ext3-gd3-block-bitmap-hi FS=ext3 FLIP='gd:3:1'
name=ext3-gd3-inode-table    FS=ext3 FLIP='gd:3:8' RC=2
name=ext3-gd-bitmap-in-itable FS=ext3 HOW=gd_bitmap_in_itable
name=ext3-gd-bitmap-shared   FS=ext3 HOW=gd_bitmap_shared
name=ext3-gd-bitmap-on-destination FS=ext3 HOW=gd_bitmap_on_destination
name=ext2-gd-bitmap-on-destination FS=ext2 HOW=gd_bitmap_on_destination
name=ext3-gd-bitmap-past-end FS=ext3 HOW=gd_bitmap_past_end
name=ext3-gd-itable-past-end FS=ext3 HOW=gd_itable_past_end
name=ext2-gd0-block-bitmap   FS=ext2 FLIP='gd:0:0' RC=2
name=ext2-gd0-inode-table    FS=ext2 FLIP='gd:0:8' RC=2
name=ext2-gd2-inode-table    FS=ext2 FLIP='gd:2:8'

# an inode table block: the on-disk inodes of files with IND/DIND blocks
name=ext3-ino-iblock12-b1    FS=ext3 FLIP='ino:/f.k100:89' RC=2
name=ext3-ino-iblock12-b0    FS=ext3 FLIP='ino:/f.k100:88' RC=2
name=ext3-ino-iblock13-b0    FS=ext3 FLIP='ino:/f.m2_5:92' RC=2
name=ext3-ino-iblock14-b3    FS=ext3 FLIP='ino:/f.m2_5:99' RC=2
name=ext3-ino-iblock0-b2     FS=ext3 FLIP='ino:/f.i13:42' RC=2
name=ext3-ino-iblock-run     FS=ext3 FLIP='ino:/f.m1:40 ino:/f.m1:45 ino:/f.m1:50 ino:/f.m1:55' RC=2
name=ext3-ino-flags-extents  FS=ext3 FLIP='ino:/f.m1:34:0x08'
name=ext2-ino-iblock12-b1    FS=ext2 FLIP='ino:/f.k100:89' RC=2
name=ext2-ino-iblock13-b0    FS=ext2 FLIP='ino:/f.m2_5:92' RC=2

# indirect blocks: a slot's bytes
name=ext3-ind-slot0-b2       FS=ext3 FLIP='ind:/f.k100:2' RC=2
name=ext3-ind-slot20-b0      FS=ext3 FLIP='ind:/f.k100:80' RC=2
name=ext3-ind-slot7-b1       FS=ext3 FLIP='ind:/f.m1:29' RC=2
name=ext3-dind-slot1-b0      FS=ext3 FLIP='dind:/f.m2_5:4' RC=2
name=ext3-dind-slot0-b3      FS=ext3 FLIP='dind:/f.m2_5:3' RC=2
name=ext2-ind-slot0-b2       FS=ext2 FLIP='ind:/f.k100:2' RC=2
name=ext2-dind-slot1-b0      FS=ext2 FLIP='dind:/f.m2_5:4' RC=2

# marked clean, freshly checked, corrupt where the tool reads or writes
name=csum-gd-csum            FS=csum   HOW=gd_csum CORRUPT=1 RC=2
name=uninit-gd-csum          FS=uninit HOW=gd_csum CORRUPT=1 RC=2
name=csum-sb-csum            FS=csum   HOW=sb_csum CORRUPT=1 RC=2
name=csum-block-bitmap-csum  FS=csum   HOW=block_bitmap_csum CORRUPT=1 RC=2
name=csum-inode-bitmap-csum  FS=csum   HOW=inode_bitmap_csum CORRUPT=1 RC=2
name=csum-inode-csum         FS=csum   HOW=inode_csum CORRUPT=1 RC=2
name=csum-i-blocks           FS=csum   HOW=i_blocks CORRUPT=1 RC=2
name=ext3-i-blocks           FS=ext3   HOW=i_blocks CORRUPT=1 RC=2
name=ext2-i-blocks           FS=ext2   HOW=i_blocks CORRUPT=1 RC=2
name=ext3-jsb-magic          FS=ext3   HOW=jsb_magic CORRUPT=1 RC=2
name=ext3-jsb-log-block      FS=ext3   HOW=jsb_log_block CORRUPT=1 RC=2
name=ext3-jsb-blocksize      FS=ext3   HOW=jsb_blocksize CORRUPT=1 RC=2
name=ext3-jsb-maxlen         FS=ext3   HOW=jsb_maxlen CORRUPT=1 RC=2
name=ext3-jsb-start          FS=ext3   HOW=jsb_start CORRUPT=1 RC=2 FSCK_SILENT=1
name=ext3-jsb-errno          FS=ext3   HOW=jsb_errno CORRUPT=1 RC=2 FSCK_SILENT=1
name=ext3-jsb-csum-type      FS=ext3   HOW=jsb_csum_type CORRUPT=1 RC=2
name=csum-jsb-csum           FS=csum   HOW=jsb_csum CORRUPT=1 RC=2
name=ext3-journal-short      FS=ext3   HOW=journal_short CORRUPT=1 RC=2
name=ext3-journal-not-file   FS=ext3   HOW=journal_not_file CORRUPT=1 RC=2
name=ext3-journal-hole       FS=ext3   HOW=journal_hole CORRUPT=1 RC=2
name=ext3-journal-past-end   FS=ext3   HOW=journal_past_end CORRUPT=1 RC=2
name=csum-journal-past-end   FS=csum   HOW=journal_past_end CORRUPT=1 RC=2
name=ext3-journal-backup     FS=ext3   HOW=journal_backup CORRUPT=1 RC=2 FSCK_SILENT=1
name=mix-extent-block-csum   FS=mix    HOW=extent_block_csum CORRUPT=1 RC=2
# a journal feature e2fsck does not know: refused, but not e2fsck's to fix
name=ext3-jsb-unknown-feature FS=ext3  HOW=jsb_unknown_feature RC=2

# the superblock's totals may lag: the run sets them as e2fsck would
name=ext3-sb-free-count      FS=ext3 HOW=sb_free_count HARMLESS=1 SETTLED=1 FSCK_ONLY='^Free blocks count wrong [(]'
name=ext2-sb-free-count      FS=ext2 HOW=sb_free_count HARMLESS=1 SETTLED=1 FSCK_ONLY='^Free blocks count wrong [(]'
# a bad block in an inode table: e2fsck lives with it, the run does not
name=ext3-badblocks-metadata FS=ext3 HOW=badblocks_metadata RC=2
name=csum-badblocks-metadata FS=csum HOW=badblocks_metadata RC=2
"
# Directories, the bad-blocks inode and group counts: each fault class
# on ext3 and on one more base (in turn), every base with E3MP_SLOW=1.
# Raw edits of entries only where no checksum covers them; the htree
# cases where dir_index is on and no checksum covers the index.
DIR_BASES="ext3 nodx ext2 csum uninit"
i=0
for how in dir_unused_ino dir_ftype dir_bad_mode dir_dotdot dir_unlinked \
	dir_twice dir_size dir_rec_len dir_name_len dir_dup_dot dir_csum \
	htree_hash_version htree_levels htree_limit htree_swap \
	badblocks_past_end \
	gd_free_blocks gd_free_inodes gd_dirs \
	unattached slow_symlink_size encrypted; do
	case $how in
	dir_rec_len|dir_name_len|dir_dup_dot) bases="ext3 nodx ext2 uninit" ;;
	dir_csum) bases="csum" ;;
	htree_*) bases="ext3 ext2 uninit" ;;
	*) bases=$DIR_BASES ;;
	esac
	set -- $bases
	extra=$(echo $bases | tr ' ' '\n' | sed -n "$((i % $# + 1))p")
	i=$((i + 1))
	for fs in $bases; do
		slow=1
		[ "$fs" != "$1" ] && [ "$fs" != "$extra" ] || slow=
		CASES+="name=$fs-${how//_/-} FS=$fs HOW=$how CORRUPT=1 RC=2${slow:+ SLOW=1}
"
	done
done
set --
# --dirs=leave reads no directory block, so checks none.
CASES+="
name=ext3-dir-unused-ino-leave FS=ext3 HOW=dir_unused_ino LEAVE=1
name=csum-dir-csum-leave       FS=csum HOW=dir_csum LEAVE=1
"
# Directories under each --dirs mode that moves them (slow: the base
# image); pack keeps the historical names.
for mode in pack roots volume; do
	sfx=-$mode
	[ "$mode" != pack ] || sfx=
	for how in dir_iblock_past_end dir_ind_slot_past_end \
		dir_data_into_itable dir_ind_into_itable dir_data_to_free_block \
		dir_block_marked_free dir_ind_marked_free dir_ind_self_loop \
		dir_data_shared; do
		CASES+="name=dirs-${how//_/-}$sfx FS=dirs HOW=$how RC=2 ARGS=--dirs=$mode SLOW=1
"
	done
	CASES+="
name=dirs-gd-dirs-count$sfx FS=dirs HOW=gd_dirs CORRUPT=1 RC=2 ARGS=--dirs=$mode SLOW=1
name=dirs-gd-free-count$sfx FS=dirs HOW=gd_free_blocks CORRUPT=1 RC=2 ARGS=--dirs=$mode SLOW=1
"
done

# ---- checks ----------------------------------------------------------

SAN_RE='AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:|MemorySanitizer|ThreadSanitizer|Segmentation fault|core dumped'

GAP_MISS=

# gap_or_fail MSG...: a miss; fatal unless the case is a known gap.
gap_or_fail() {
	if [ -n "${GAP:-}" ] && [ "${E3MP_STRICT:-0}" != 1 ]; then
		echo "# known gap: $* -- $GAP"
		GAP_MISS=1
		return 0
	fi
	_lib_show_run
	fail "$*"
}

# No crash, whatever the case.
expect_no_crash() {
	if [ "$RUN_RC" -ge 128 ]; then
		_lib_show_run
		fail "e3metapack died (exit $RUN_RC: signal $((RUN_RC - 128)))"
	fi
	if grep -Eq "$SAN_RE" "$RUN_ERR" "$RUN_OUT"; then
		_lib_show_run
		fail "sanitizer report or crash message"
	fi
	case $RUN_RC in 0|1|2|4|8) ;; *)
		_lib_show_run
		fail "unexpected exit code $RUN_RC" ;;
	esac
}

# The one refusal line: "e3metapack: ..." naming the image.
expect_refusal_line() {
	local n
	n=$(wc -l <"$RUN_ERR")
	if [ "$n" -ne 1 ]; then
		gap_or_fail "stderr has $n lines, not one"
		return 0
	fi
	if ! grep -q '^e3metapack: ' "$RUN_ERR"; then
		gap_or_fail "stderr lacks the 'e3metapack: ' prefix"
		return 0
	fi
	grep -Fq -e "$IMG" "$RUN_ERR" || gap_or_fail "message does not name $IMG"
	if [ -n "${WANT:-}" ]; then
		grep -Fxq -e "e3metapack: $IMG: $WANT" "$RUN_ERR" ||
			gap_or_fail "message is not: e3metapack: $IMG: $WANT"
	fi
	if [ -n "${GREP:-}" ]; then
		grep -Eq -e "$GREP" "$RUN_ERR" ||
			gap_or_fail "message does not match /$GREP/"
	fi
}

# image_unchanged WHAT: the image is byte for byte its copy img.orig
# (cmp, not sha256sum: that takes 0.3 s a run on 32 MiB here).
image_unchanged() {
	local blks
	cmp -s "$IMG.orig" "$IMG" && return 0
	blks=$({ cmp -l "$IMG.orig" "$IMG" 2>/dev/null || :; } |
		awk -v bs="$BS" '{ b = int(($1 - 1) / bs)
			if (b != last && n++ < 12) printf "%s ", b
			last = b }')
	gap_or_fail "$1 changed the image (blocks ${blks}...)"
}

# fsck_only OUT: e2fsck -fn asks questions, and only ones matching
# FSCK_ONLY; OUT gets them, with each count's error (stated - counted).
fsck_only() {
	local log=$RUN_DIR/fsck-only.log rc=0
	e2fsck -fn "$IMG" >"$log" 2>&1 || rc=$?
	[ "$rc" -lt 8 ] || { cat "$log" >&2; fail "e2fsck -fn exit $rc"; }
	# every question: its line (or the one before a bare "Fix? no")
	awk '/\? no$/ { q = $0; sub(/ *[A-Za-z]+\? no$/, "", q)
			if (q == "") q = prev; print q } { prev = $0 }' \
		"$log" >"$log.q"
	[ -s "$log.q" ] || { cat "$log" >&2; fail "e2fsck -fn asks nothing"; }
	if grep -Ev -e "$FSCK_ONLY" "$log.q" | grep -q .; then
		sed 's/^/    /' "$log" >&2
		fail "e2fsck -fn complains about more than /$FSCK_ONLY/"
	fi
	sed -n 's/^\(.*\) (\([0-9]*\), counted=\([0-9]*\)).*/\1 \2 \3/p' \
		"$log.q" | awk '{ c = $NF; s = $(NF - 1); NF -= 2
				  print $0 ": off by " s - c }' >"$1"
}

# fix_counts: set the counts e2fsck -fn complained about to its values.
fix_counts() {
	local log=$RUN_DIR/fsck-only.log.q what g counted
	while read -r what g _ counted; do
		case $what in
		FB) echo "set_bg $g free_blocks_count $counted" ;;
		FI) echo "set_bg $g free_inodes_count $counted" ;;
		UD) echo "set_bg $g used_dirs_count $counted" ;;
		SB) echo "ssv free_blocks_count $counted" ;;
		SI) echo "ssv free_inodes_count $counted" ;;
		esac
	done < <(sed -n \
		-e 's/^Free blocks count wrong for group #\([0-9]*\) (\([0-9]*\), counted=\([0-9]*\)).*/FB \1 \2 \3/p' \
		-e 's/^Free inodes count wrong for group #\([0-9]*\) (\([0-9]*\), counted=\([0-9]*\)).*/FI \1 \2 \3/p' \
		-e 's/^Directories count wrong for group #\([0-9]*\) (\([0-9]*\), counted=\([0-9]*\)).*/UD \1 \2 \3/p' \
		-e 's/^Free blocks count wrong (\([0-9]*\), counted=\([0-9]*\)).*/SB - \1 \2/p' \
		-e 's/^Free inodes count wrong (\([0-9]*\), counted=\([0-9]*\)).*/SI - \1 \2/p' \
		"$log") | dbg_w "$IMG"
}

# CORRUPT=1: -f changes nothing; e2fsck sees the damage and, run as the
# message says, repairs it so that the tool goes ahead.
corrupt_checks() {
	local fixed=$RUN_DIR/fixed.img rc=0
	# shellcheck disable=SC2086
	run_tool ${ARGS:-} -f -z "$RUN_DIR/u.e2undo" "$IMG"
	expect_no_crash
	expect_exit 2
	expect_refusal_line
	image_unchanged "the run with -f"
	[ ! -e "$RUN_DIR/u.e2undo" ] || fail "-f left an undo file behind"
	if [ -z "${FSCK_SILENT:-}" ]; then
		e2fsck -fn "$IMG" >"$RUN_DIR/fsck-n.log" 2>&1 || rc=$?
		[ "$rc" -ne 0 ] ||
			fail "e2fsck -fn finds nothing wrong: not a corrupt volume"
		image_unchanged "e2fsck -fn"
	fi
	cp "$IMG" "$fixed"
	rc=0
	e2fsck -fy "$fixed" >"$RUN_DIR/fsck-y.log" 2>&1 || rc=$?
	[ "$rc" -lt 4 ] || { cat "$RUN_DIR/fsck-y.log" >&2; fail "e2fsck -fy exit $rc"; }
	fsck_clean "$fixed"
	# shellcheck disable=SC2086
	run_tool ${ARGS:-} -n "$fixed"
	expect_exit 0 1
}

# On the dirs image, a harmless case packs the directories (every --dirs
# mode but leave): some are in pieces before the run (the dirs profile
# grows them among data), none after (under roots, from block 1 on).
dirs_from() {
	# shellcheck disable=SC2086
	dirs_run_from "$(dirs_mode ${ARGS:-})"
}
dirs_scattered_before() {
	[ "$FS" = dirs ] || return 0
	[ -n "$(dirs_scattered "$IMG" "$T/base-$FS.manifest" "$(dirs_from)")" ] ||
		fail "no directory in pieces before the run: nothing to show"
}
dirs_moved() {
	local bad
	[ "$FS" = dirs ] || return 0
	bad=$(dirs_scattered "$IMG" "$T/base-$FS.manifest" "$(dirs_from)")
	[ -z "$bad" ] ||
		fail "directories still in pieces after the run: $bad"
}

# LEAVE=1 (see above): every block the dry run reads, against every
# block of a directory (debugfs, through a manifest of the image).
leave_checks() {
	local rc=0 p d2 s2
	check "the default dry run refuses the directory fault"
	run_tool -n "$IMG"
	expect_exit 2
	expect_refusal_line
	check "under --dirs=leave, a dry run reads no directory block"
	command -v strace >/dev/null || skip "no strace"
	strace -qq -e trace=pread64 -o "$RUN_DIR/trace" \
		"$E3MP" -n --dirs=leave "$IMG" >"$RUN_DIR/leave.out" \
		2>"$RUN_DIR/leave.err" || rc=$?
	[ "$rc" -le 1 ] || { cat "$RUN_DIR/leave.err" >&2;
		fail "e3metapack -n --dirs=leave exited $rc"; }
	image_unchanged "the dry run under --dirs=leave"
	awk -v bs="$BS" -F', ' '/^pread64\(/ {
		split($NF, r, " = "); len = r[2]; off = r[1]
		for (b = int(off / bs); b * bs < off + len; b++) print b
	}' "$RUN_DIR/trace" | sort -u >"$RUN_DIR/read"
	[ -s "$RUN_DIR/read" ] || fail "no pread64 in the trace"
	# the base's directories, the root and mk_dirs' four (/dc's block
	# may be the faulty one: its inodes as mk_dirs found them)
	d2=$(ino_of "$IMG" /dc2)
	s2=$(ino_of "$IMG" /dc2/sub2)
	{
		cat "$T/base-$FS.manifest"
		for p in 2 "$DC" "$SUB" "$d2" "$s2"; do
			echo "- ino=$p type=dir"
		done
	} >"$RUN_DIR/manifest"
	dir_blocks "$IMG" "$RUN_DIR/manifest" | cut -d' ' -f2- |
		tr ' ' '\n' | grep . | sort -u >"$RUN_DIR/dirblk"
	grep -qx "$(data_of "$IMG" /dc 0)" "$RUN_DIR/dirblk" ||
		fail "/dc's block 0 is not among the directory blocks"
	if comm -12 "$RUN_DIR/read" "$RUN_DIR/dirblk" | grep -q .; then
		fail "directory blocks read: $(comm -12 "$RUN_DIR/read" \
			"$RUN_DIR/dirblk" | head -5 | tr '\n' ' ')"
	fi
}

hostile_case() {
	local base
	IMG=$RUN_DIR/img
	WANT="" BS=1024
	base=$(base_image "$FS")
	cp "$base" "$IMG"
	[ -z "${HOW:-}" ] || "how_$HOW"
	[ -z "${FLIP:-}" ] || apply_flips "$IMG" "$FLIP"
	cmp -s "$base" "$IMG" && fail "the corruption changed nothing"
	cp "$IMG" "$IMG.orig"
	if [ -n "${LEAVE:-}" ]; then
		leave_checks
		return 0
	fi
	[ -z "${HARMLESS:-}" ] || fsck_only "$RUN_DIR/fsck.before"
	[ -z "${HARMLESS:-}" ] || dirs_scattered_before

	# the real run
	if [ -n "${HARMLESS:-}" ]; then
		check "harmless: run exits ${RC:-0}, e2fsck complains as before"
	else
		check "refused with one line, image untouched, no undo file"
	fi
	# shellcheck disable=SC2086
	run_tool ${ARGS:-} -z "$RUN_DIR/u.e2undo" "$IMG"
	expect_no_crash
	if [ -n "${HARMLESS:-}" ]; then
		expect_exit "${RC:-0}"
		# the same complaints, each count off by as much as before
		if [ -n "${SETTLED:-}" ]; then
			fsck_clean "$IMG"
			same_content "$T/base-$FS.manifest" "$IMG"
			return 0
		fi
		fsck_only "$RUN_DIR/fsck.after"
		if ! diff -u "$RUN_DIR/fsck.before" "$RUN_DIR/fsck.after" >&2
		then
			fail "e2fsck -fn complains differently after the run"
		fi
		fix_counts
		fsck_clean "$IMG"
		same_content "$T/base-$FS.manifest" "$IMG"
		if [ "$FS" = dirs ]; then
			check "under --dirs=${ARGS#--dirs=}, the directories are packed"
			dirs_moved
		fi
		return 0
	fi
	# shellcheck disable=SC2086
	case " ${RC:-2 4} " in
	*" $RUN_RC "*) expect_refusal_line ;;
	*) gap_or_fail "exit $RUN_RC, expected ${RC:-2 or 4}" ;;
	esac
	image_unchanged "the real run"
	[ ! -e "$RUN_DIR/u.e2undo" ] || [ -n "$GAP_MISS" ] ||
		fail "a refused run left an undo file behind"
	[ -z "${CORRUPT:-}" ] || corrupt_checks

	check "a dry run neither crashes nor writes"
	cmp -s "$IMG.orig" "$IMG" || cp "$IMG.orig" "$IMG"
	# shellcheck disable=SC2086
	run_tool ${ARGS:-} -n "$IMG"
	expect_no_crash
	[ "$RUN_RC" != 8 ] || fail "a dry run exited 8"
	image_unchanged "the dry run"
	if [ -n "${CORRUPT:-}" ]; then
		expect_exit 2
		expect_refusal_line
	fi
	if [ -n "${GAP:-}" ] && [ -z "$GAP_MISS" ]; then
		echo "# GAP closed: the tool now handles this; remove GAP= from $name"
	fi
}

run_cases hostile_case "$CASES"
