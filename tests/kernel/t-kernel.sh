#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t-kernel: a real Linux kernel reads and writes volumes e3metapack packed.
#
# Boots Debian's cloud kernel (linux-image-cloud-amd64, resolved at run
# time, see cache.sh) under qemu-system-x86_64 with software emulation,
# from a busybox initramfs built here, with the images as virtio disks.
# Results come back over the second serial port (ttyS1); the console
# (ttyS0) is kept for diagnostics.  Two boots cover every variant (1 KiB
# and 4 KiB blocks, see common.sh):
#
# boot 1  read pass: the packed image, attached with snapshot=on (so not
#         even a journal replay could alter it), mounted -t ext3 -o ro:
#         the mount works (no ext4-only feature), and every file's
#         sha256, every path's stat(2) and every symlink's target are
#         what the host reads with debugfs and libext2fs.
#         write pass: a copy, mounted -t ext3 read-write; workload.sh;
#         unmounted.  Then on the host: e2fsck -fn clean, features kept,
#         contents as the host simulation of the workload says, host and
#         kernel agree on every path; e3metapack again (incremental):
#         exit 0, clean, nothing a user sees changed, then nothing to do.
#         control: an ext4 (extent) volume, which -t ext3 must refuse.
# boot 2  read back each written and re-packed copy (snapshot=on, ro).
#
# Skipped (1..0 # SKIP) when qemu, the kernel package or a static busybox
# cannot be had.  Environment, besides tests/lib.sh's:
#   E3MP_QEMU            the qemu binary (qemu-system-x86_64)
#   E3MP_KERNEL_CACHE    kernel + initramfs cache (see cache.sh)
#   E3MP_KERNEL_ACCEL    qemu accelerator: tcg (default), kvm, ...
#   E3MP_KERNEL_TIMEOUT  seconds one boot may take (600)
#   E3MP_KERNEL_VARIANTS the variants (see common.sh)

. "${0%/*}/../lib.sh"
. "${0%/*}/common.sh"
. "${0%/*}/cache.sh"
need_tool
need_manifest
need e2undo cmp diff awk gzip timeout
QEMU=${E3MP_QEMU:-qemu-system-x86_64}
command -v "$QEMU" >/dev/null 2>&1 ||
	skip "needs $QEMU (Debian package qemu-system-x86)"

T_START=$SECONDS
QEMU_PID=

# Never leave a qemu behind.
_t_exit() {
	local rc=$?
	trap - ERR
	set +e
	if [ -n "$QEMU_PID" ]; then
		kill "$QEMU_PID" 2>/dev/null
		wait "$QEMU_PID" 2>/dev/null
	fi
	return "$rc"
}
trap '_t_exit; _lib_exit' EXIT
ACCEL=${E3MP_KERNEL_ACCEL:-tcg}
BOOT_TIMEOUT=${E3MP_KERNEL_TIMEOUT:-600}

kc_setup
info "kernel and initramfs ready ($((SECONDS - T_START))s)"

# ks_section RESULTS TAG WHAT OUT: cut one section out of the results;
# prints its exit code, or "missing".
ks_section() {
	awk -v tag="$2" -v what="$3" -v out="$4" '
		$1 == "@@" && $2 == "BEGIN" && $3 == tag && $4 == what {
			on = 1; found = 1; printf "" >out; next
		}
		$1 == "@@" && $2 == "END" && $3 == tag && $4 == what {
			on = 0; rc = $5; sub(/^rc=/, "", rc); next
		}
		on { print >out }
		END { print found ? rc : "missing" }' "$1"
}

# boot NAME DRIVE...: boot once.  Each DRIVE is MODE:TAG:FILE:BS, MODE
# being ro, rw or refuse (guest-job.sh); ro and refuse disks are
# attached with snapshot=on.  Leaves $T/boot-NAME/results.
boot() {
	local name=$1 d=$T/boot-$1 t0=$SECONDS rc=0 spec mode tag file bs
	local drives=() n=0
	shift
	mkdir -p "$d/job"
	cp "$KS_DIR/guest-job.sh" "$d/job/run.sh"
	cp "$KS_DIR/fsview.sh" "$KS_DIR/workload.sh" "$KS_DIR/workload-dirs.sh" \
		"$d/job/"
	: >"$d/job/job.conf"
	for spec; do
		IFS=: read -r mode tag file bs <<<"$spec"
		echo "$mode $tag $bs" >>"$d/job/job.conf"
		n=$((n + 1))
		if [ "$mode" = rw ]; then
			drives+=(-drive "file=$file,format=raw,if=none,id=d$n,cache=writeback")
		else
			drives+=(-drive "file=$file,format=raw,if=none,id=d$n,snapshot=on")
		fi
		drives+=(-device "virtio-blk-pci,drive=d$n,serial=$tag")
	done
	kc_initrd "$d/initrd" "$d/job"
	# in the background, so that a signal to the test is handled at
	# once (the EXIT trap stops qemu)
	timeout -k 10 "$BOOT_TIMEOUT" "$QEMU" \
		-accel "$ACCEL" -m 512M -smp 1 \
		-nodefaults -nographic -no-reboot \
		-serial "file:$d/console" -serial "file:$d/results.raw" \
		-kernel "$KC_VMLINUZ" -initrd "$d/initrd" \
		-append "console=ttyS0 panic=-1 loglevel=4 rdinit=/init" \
		"${drives[@]}" </dev/null >"$d/qemu.out" 2>&1 &
	QEMU_PID=$!
	wait "$QEMU_PID" || rc=$?
	QEMU_PID=
	tr -d '\r' <"$d/results.raw" >"$d/results" 2>/dev/null || :
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		tail -n 30 "$d/console" >&2
		fail "boot $name: timed out after ${BOOT_TIMEOUT}s"
	fi
	if ! grep -q '^@@ BOOT ' "$d/results"; then
		# qemu itself could not run here: no such accelerator, no
		# firmware, no memory (a bad command line is a failure)
		if [ ! -s "$d/console" ] &&
		   grep -qiE 'kvm|accel|bios|firmware|memory' "$d/qemu.out"; then
			cat "$d/qemu.out" >&2
			skip "$QEMU -accel $ACCEL could not start" \
			     "(exit $rc): $(head -n 1 "$d/qemu.out")"
		fi
		cat "$d/qemu.out" >&2
		tail -n 40 "$d/console" >&2
		fail "boot $name: the guest never reported (qemu exit $rc)"
	fi
	if ! grep -q '^@@ DONE ' "$d/results"; then
		tail -n 40 "$d/console" >&2
		fail "boot $name: the guest's report is incomplete (qemu exit $rc)"
	fi
	info "boot $name: kernel $(sed -n 's/^@@ BOOT //p' "$d/results")," \
	     "$# disks, $((SECONDS - t0))s in all ($ACCEL)"
	# where the guest spent its time
	awk '
		$1 == "@@" && $2 == "BEGIN" { b[$3 " " $4] = substr($5, 3) }
		$1 == "@@" && $2 == "END" && $3 != "kernel" {
			t = substr($6, 3) - b[$3 " " $4]
			if (!($3 in line)) order[++n] = $3
			line[$3] = line[$3] sprintf(" %s %.1fs", $4, t)
		}
		$1 == "@@" && $2 == "TIME" { mode[$3] = $4; tot[$3] = $6 - $5 }
		END {
			for (i = 1; i <= n; i++)
				printf "#   %s (%s, %.1fs):%s\n", order[i],
				       mode[order[i]], tot[order[i]], line[order[i]]
		}' "$d/results"
	# the kernel logged no file system or I/O error
	ks_section "$d/results" kernel dmesg "$d/dmesg" >/dev/null
	if grep -iE 'EXT4-fs (error|warning)|I/O error|JBD2?.*(error|abort)|corrupt' \
		"$d/dmesg" >&2; then
		fail "boot $name: the kernel logged the errors above"
	fi
}

# expect_section RESULTS TAG WHAT OUTDIR WANT_RC: the section is there
# and ended with WANT_RC ("!0": any other than 0).
expect_section() {
	local rc
	rc=$(ks_section "$1" "$2" "$3" "$4/$3")
	[ "$rc" != missing ] || fail "$2: no '$3' in the guest's report"
	case $5 in
	'!0') [ "$rc" != 0 ] || { cat "$4/$3" >&2; fail "$2: $3 succeeded"; } ;;
	*) [ "$rc" = "$5" ] ||
		{ cat "$4/$3" >&2; fail "$2: $3 exited $rc in the guest"; } ;;
	esac
}

# guest_pass RESULTS TAG MODE: check one disk's sections; they go to
# $T/got-BOOT-TAG/.
guest_pass() {
	local res=$1 tag=$2 mode=$3 d w
	d=$T/got-$(basename "$(dirname "$res")")-$tag
	mkdir -p "$d"
	expect_section "$res" "$tag" mount "$d" 0
	grep -q " ext3 " "$d/mount" ||
		{ cat "$d/mount" >&2; fail "$tag: not mounted as ext3"; }
	if [ "$mode" = rw ]; then
		expect_section "$res" "$tag" workload "$d" 0
	fi
	for w in sums list links umount; do
		expect_section "$res" "$tag" "$w" "$d" 0
	done
	GOT=$d
}

# ---- the images -----------------------------------------------------

ks_prepare_all
mkimg_conf
mke2fs -q -F -t ext4 -b 1024 -O extent,^metadata_csum,^64bit \
	-U "$E3MP_UUID" "$T/ctl.img" 8M >"$T/ctl.log" 2>&1 ||
	{ cat "$T/ctl.log" >&2; fail "mke2fs of the control image failed"; }
TAGS=$(ks_tags)

# ---- boot 1: read pass, write pass, control -------------------------

DRIVES=()
for tag in $TAGS; do
	bs=$(sb_field "$T/$tag.img" 'Block size')
	DRIVES+=("ro:$tag:$T/$tag.img:$bs" "rw:$tag-rw:$T/$tag-rw.img:$bs")
done
DRIVES+=("refuse:ctl:$T/ctl.img:1024")
boot 1 "${DRIVES[@]}"
R=$T/boot-1/results

expect_section "$R" ctl mount "$T" '!0'
expect_section "$R" ctl mount4 "$T" 0
info "control: mount -t ext3 refuses an ext4 (extent) volume that" \
     "-t ext4 mounts: $(head -n 1 "$T/mount")"

for tag in $TAGS; do
	# read pass: the kernel read what the host reads; image untouched
	guest_pass "$R" "$tag" ro
	ks_check_read "$T/$tag" "$GOT" "kernel, read pass, $tag"
	[ "$(sha_of "$T/$tag.img")" = "$(cat "$T/$tag.img.sha")" ] ||
		fail "$tag: the read pass changed the image"
	info "$tag: read pass: mounted as ext3, $(wc -l <"$GOT/sums") files," \
	     "$(wc -l <"$GOT/list") paths as the host reads them"

	# write pass, then the incremental e3metapack
	guest_pass "$R" "$tag-rw" rw
	ks_check_write "$tag" "$GOT" "kernel"
	cp "$GOT/sums" "$T/$tag-rw.kernel.sums"
	ks_incremental "$tag"
done

# ---- boot 2: read back the written, re-packed copies ----------------

DRIVES=()
for tag in $TAGS; do
	bs=$(sb_field "$T/$tag.img" 'Block size')
	sha_of "$T/$tag-rw.img" >"$T/$tag-rw.img.sha"
	DRIVES+=("ro:$tag-rw:$T/$tag-rw.img:$bs")
done
boot 2 "${DRIVES[@]}"
R=$T/boot-2/results
for tag in $TAGS; do
	guest_pass "$R" "$tag-rw" ro
	ks_check_read "$T/$tag-rw" "$GOT" "kernel, read back after the incremental run, $tag"
	ks_compare "$T/$tag-rw.kernel.sums" "$GOT/sums" \
		"$tag: kernel's sums before and after the incremental run"
	[ "$(sha_of "$T/$tag-rw.img")" = "$(cat "$T/$tag-rw.img.sha")" ] ||
		fail "$tag: the read-back pass changed the image"
	info "$tag: read back after the incremental run: as before"
done

info "t-kernel: all passes agree ($((SECONDS - T_START))s in all)"
