#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# guest-job.sh --- what one boot does (copied to /job/run.sh)
#
# Reads /job/job.conf, one volume a line:
#
#	MODE TAG BS
#
# TAG is also the serial number qemu gave the virtio disk, which is how
# the disk is found (/sys/block/vd*/serial).
#
#   ro      mount -t ext3 -o ro, then report sums, list and links
#   rw      mount -t ext3 read-write, run /job/workload.sh, report sums,
#           list and links, unmount
#   refuse  mount -t ext3 -o ro must fail (a control: the kernel's ext3
#           mode does refuse ext4-only features)
#
# Everything goes to stdout (the results port) in sections
#
#	@@ BEGIN TAG WHAT
#	...
#	@@ END TAG WHAT rc=N
#
# that the host cuts apart (common.sh: ks_section).  POSIX sh + busybox.

J=/job

now() { cut -d' ' -f1 /proc/uptime; }
begin() { echo "@@ BEGIN $1 $2 t=$(now)"; }
end() { echo "@@ END $1 $2 rc=$3 t=$(now)"; }

# finddev SERIAL: set dev to the vd* disk with that serial number.
finddev() {
	i=0
	while :; do
		for s in /sys/block/vd*/serial; do
			[ -f "$s" ] && [ "$(cat "$s")" = "$1" ] || continue
			dev=${s%/serial}
			dev=${dev##*/}
			[ -b "/dev/$dev" ] && return 0
		done
		i=$((i + 1))
		[ "$i" -le 100 ] || return 1
		sleep 0.1
	done
}

report() {
	for what in sums list links; do
		begin "$1" "$what"
		sh "$J/fsview.sh" "$what" "$2" 2>&1
		end "$1" "$what" $?
	done
}

while read -r mode tag bs; do
	case $mode in ''|'#'*) continue ;; esac
	mnt=/mnt/$tag
	mkdir -p "$mnt"
	if ! finddev "$tag"; then
		begin "$tag" mount
		echo "no virtio disk with serial $tag"
		end "$tag" mount 99
		continue
	fi
	t0=$(now)
	case $mode in
	refuse)
		begin "$tag" mount
		mount -t ext3 -o ro "/dev/$dev" "$mnt" 2>&1
		rc=$?
		end "$tag" mount $rc
		[ $rc -ne 0 ] || umount "$mnt"
		# while -t ext4 mounts it: the disk itself is fine
		begin "$tag" mount4
		mount -t ext4 -o ro "/dev/$dev" "$mnt" 2>&1
		rc=$?
		grep " $mnt " /proc/mounts
		end "$tag" mount4 $rc
		[ $rc -ne 0 ] || umount "$mnt"
		;;
	ro|rw)
		opts=ro
		[ "$mode" = rw ] && opts=rw,noatime,errors=remount-ro
		begin "$tag" mount
		mount -t ext3 -o "$opts" "/dev/$dev" "$mnt" 2>&1
		rc=$?
		grep " $mnt " /proc/mounts
		end "$tag" mount $rc
		[ $rc -eq 0 ] || continue
		if [ "$mode" = rw ]; then
			begin "$tag" workload
			sh "$J/workload.sh" "$mnt" "$bs" 2>&1
			end "$tag" workload $?
		fi
		report "$tag" "$mnt"
		begin "$tag" umount
		umount "$mnt" 2>&1
		end "$tag" umount $?
		;;
	esac
	echo "@@ TIME $tag $mode $t0 $(now)"
done <"$J/job.conf"

begin kernel dmesg
dmesg | grep -iE 'ext[234]|jbd|i/o error|virtio|blk_update|buffer'
end kernel dmesg 0
