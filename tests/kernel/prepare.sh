#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# prepare.sh --- get what the kernel tests need, before they run
#
#   tests/kernel/prepare.sh [--no-install]
#
# 1. As root on Debian, installs the missing host packages with apt-get
#    (qemu-system-x86 for t-kernel.sh; busybox-static and cpio, which it
#    can do without, as it can fetch busybox-static itself), unless
#    --no-install or E3MP_KERNEL_INSTALL=0.
# 2. Fills the kernel cache (see cache.sh): resolves the current
#    linux-image-*-cloud-amd64 through the linux-image-cloud-amd64
#    metapackage, fetches it with apt-get download, unpacks the kernel
#    and the virtio modules, builds the busybox initramfs.
#
# Never fails the build: anything missing makes the tests skip (exit 77)
# with the reason, and this script says so too.  Exit 0 always.

set -u
export LC_ALL=C

install=${E3MP_KERNEL_INSTALL:-1}
[ "${1:-}" = --no-install ] && install=0

say() { echo "prepare.sh: $*"; }
info() { say "$*"; }
skip() { say "the kernel tests will skip: $*"; exit 0; }
fail() { say "error: $*"; exit 0; }

pkgs=(qemu-system-x86 busybox-static cpio)
if [ "$install" = 1 ] && [ "$(id -u)" -eq 0 ] &&
   command -v apt-get >/dev/null 2>&1 && command -v dpkg-query >/dev/null; then
	missing=()
	for p in "${pkgs[@]}"; do
		st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)
		[ "$st" = installed ] || missing+=("$p")
	done
	# apt-cache must know the kernel metapackage too
	if [ ${#missing[@]} -gt 0 ] ||
	   ! apt-cache show linux-image-cloud-amd64 >/dev/null 2>&1; then
		say "apt-get update"
		DEBIAN_FRONTEND=noninteractive apt-get -q update </dev/null \
			>/dev/null 2>&1 || say "apt-get update failed"
	fi
	if [ ${#missing[@]} -gt 0 ]; then
		say "installing ${missing[*]}"
		DEBIAN_FRONTEND=noninteractive apt-get -q install -y \
			--no-install-recommends "${missing[@]}" </dev/null |
			tail -n 2 || say "apt-get install failed"
	fi
elif [ "$install" = 1 ]; then
	say "not root or not Debian: installing nothing (wanted: ${pkgs[*]})"
fi

command -v qemu-system-x86_64 >/dev/null 2>&1 ||
	say "no qemu-system-x86_64: t-kernel.sh will skip"

# shellcheck source=cache.sh
. "$(dirname "$0")/cache.sh"
kc_setup
say "kernel cache ready in $KC_DIR"
exit 0
