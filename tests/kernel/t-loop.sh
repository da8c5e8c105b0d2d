#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t-loop: the host's own kernel reads and writes volumes e3metapack
# packed, through loop mounts: the fast path of t-kernel.sh, with the
# same images, workload and checks (see common.sh), no qemu.
#
# For each variant (1 KiB and 4 KiB blocks):
#   read pass   mount -o loop,ro -t ext3 the packed image (a read-only
#               loop device: nothing, not even a journal replay, can
#               write to it; its sha256 is checked afterwards too);
#               every file's sha256, every path's stat(2) and every
#               symlink's target are what the host reads with debugfs
#               and libext2fs
#   write pass  mount -o loop -t ext3 a copy read-write, workload.sh,
#               unmount; e2fsck -fn clean, features kept, contents as
#               simulated, host and kernel agree; e3metapack again
#               (incremental), checked the same way; then a read pass of
#               the copy once more
#
# Skipped (1..0 # SKIP) unless root can loop-mount here (no loop devices,
# no privilege, a container, no ext3 support...).

. "${0%/*}/../lib.sh"
. "${0%/*}/common.sh"
need_tool
need_manifest
need e2undo cmp diff awk mount umount
[ "$(id -u)" -eq 0 ] || skip "loop mounts need root"

T_START=$SECONDS
MNT=$T/mnt
mkdir -p "$MNT"

# Never leave a mount behind, whatever happens.
_t_loop_cleanup() {
	if mountpoint -q "$MNT" 2>/dev/null ||
	   grep -q " $MNT " /proc/mounts 2>/dev/null; then
		umount "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null || :
	fi
}
_t_exit() {
	local rc=$?
	trap - ERR
	set +e
	_t_loop_cleanup
	return "$rc"
}
trap '_t_exit; _lib_exit' EXIT

# lmount OPTS IMG LOG: mount IMG on $MNT as ext3, loop; fail on error
# unless PROBE is set (then just return the status).
lmount() {
	local opts=$1 img=$2 log=$3
	if ! mount -t ext3 -o "loop,$opts" "$img" "$MNT" >"$log" 2>&1; then
		[ -n "${PROBE:-}" ] && return 1
		cat "$log" >&2
		fail "mount -t ext3 -o loop,$opts $img failed"
	fi
	grep " $MNT " /proc/mounts | grep -q ' ext3 ' || {
		grep " $MNT " /proc/mounts >&2
		fail "$img: not mounted as ext3"
	}
}

lumount() {
	umount "$MNT" >"$T/umount.log" 2>&1 ||
		{ cat "$T/umount.log" >&2; fail "umount $MNT failed"; }
}

# view DIR: fsview.sh's sums, list and links of $MNT into DIR.
view() {
	local d=$1 w
	mkdir -p "$d"
	for w in sums list links; do
		ks_sh "$KS_DIR/fsview.sh" "$w" "$MNT" >"$d/$w" 2>&1 ||
			{ cat "$d/$w" >&2; fail "fsview.sh $w failed"; }
	done
}

# Can we loop-mount at all?  Probe with a tiny ext3 volume.
mkimg_conf
mke2fs -q -F -t ext3 -b 1024 "$T/probe.img" 8M >"$T/probe.log" 2>&1 ||
	{ cat "$T/probe.log" >&2; fail "mke2fs of the probe image failed"; }
PROBE=1 lmount ro "$T/probe.img" "$T/probe.log" ||
	skip "cannot loop-mount here: $(head -n 1 "$T/probe.log")"
lumount
rm -f "$T/probe.img" "$T/probe.log"

ks_prepare_all

for tag in $(ks_tags); do
	t0=$SECONDS
	# read pass
	lmount ro "$T/$tag.img" "$T/$tag.mount.log"
	view "$T/got-$tag"
	lumount
	ks_check_read "$T/$tag" "$T/got-$tag" "loop, read pass, $tag"
	[ "$(sha_of "$T/$tag.img")" = "$(cat "$T/$tag.img.sha")" ] ||
		fail "$tag: the read pass changed the image"
	info "$tag: read pass: mounted as ext3, $(wc -l <"$T/got-$tag/sums")" \
	     "files, $(wc -l <"$T/got-$tag/list") paths as the host reads them"

	# write pass
	d=$T/got-$tag-rw
	mkdir -p "$d"
	lmount rw,noatime,errors=remount-ro "$T/$tag-rw.img" "$T/$tag-rw.mount.log"
	bs=$(sb_field "$T/$tag.img" 'Block size')
	ks_sh "$KS_DIR/workload.sh" "$MNT" "$bs" >"$d/workload" 2>&1 || :
	view "$d"
	lumount
	ks_check_write "$tag" "$d" "loop"

	# incremental e3metapack, then read it back
	ks_incremental "$tag"
	sha_of "$T/$tag-rw.img" >"$T/$tag-rw.img.sha"
	lmount ro "$T/$tag-rw.img" "$T/$tag-rw.mount.log"
	view "$T/got-$tag-back"
	lumount
	ks_check_read "$T/$tag-rw" "$T/got-$tag-back" \
		"loop, read back after the incremental run, $tag"
	[ "$(sha_of "$T/$tag-rw.img")" = "$(cat "$T/$tag-rw.img.sha")" ] ||
		fail "$tag: the read-back pass changed the image"
	info "$tag: loop passes done ($((SECONDS - t0))s)"
done

info "t-loop: all passes agree ($((SECONDS - T_START))s in all)"
