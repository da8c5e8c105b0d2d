#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-only
# guest-init.sh --- /init of the kernel tests' initramfs
#
# Loads the virtio modules listed in /lib/modules/order, then runs
# /job/run.sh (a second archive appended to the initramfs per boot) with
# its stdout on the second serial port, ttyS1, where the host collects
# the results; the console (ttyS0) only gets diagnostics.  Powers off at
# the end; should anything here die, panic=-1 and qemu's -no-reboot end
# the VM too.

/bin/busybox mkdir -p /proc /sys /dev /tmp /mnt
/bin/busybox --install -s /bin
export PATH=/bin:/sbin
export LC_ALL=C TZ=UTC

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp

echo "e3mp-init: kernel $(uname -r)"
for m in $(cat /lib/modules/order); do
	insmod "/lib/modules/$m.ko" || echo "e3mp-init: insmod $m failed"
done

res=/dev/ttyS1
stty -F "$res" raw -echo 2>/dev/null
rc=1
{
	echo "@@ BOOT $(uname -r)"
	if [ -f /job/run.sh ]; then
		sh /job/run.sh
		rc=$?
	else
		echo "@@ NOJOB"
	fi
	echo "@@ DONE rc=$rc"
} >"$res"
# closing the tty waited for its output to drain; give the host a moment
sync
sleep 1
echo "e3mp-init: done"
poweroff -f
