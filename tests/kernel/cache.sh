# SPDX-License-Identifier: GPL-2.0-only
# cache.sh --- a Debian kernel and a busybox initramfs for the kernel tests
#                                                             -*- sh -*-
# Sourced by t-kernel.sh and prepare.sh (bash).  The caller defines
# skip, fail and info (tests/lib.sh does).  Nothing here touches the
# host's own kernel or boot setup: the kernel package is fetched with
# `apt-get download` and unpacked with `dpkg-deb -x` into the cache.
#
#   kc_setup      resolve, fetch and unpack the kernel, find a static
#                 busybox and build the base initramfs; sets
#                   KC_PKG      kernel package (linux-image-<abi>-cloud-amd64)
#                   KC_VMLINUZ  the kernel image
#                   KC_BASE     the base initramfs (busybox, modules, /init)
#                 or skips (exit 77) saying why.
#   kc_initrd OUT DIR  OUT = the base initramfs followed by a second
#                 archive holding DIR as /job (the kernel unpacks both).
#
# Environment:
#   E3MP_KERNEL_CACHE  cache directory (${TMPDIR:-/tmp}/e3mp-kernel-cache)
#   E3MP_KERNEL_META   metapackage to resolve (linux-image-cloud-amd64)
#   E3MP_KERNEL_PKG    use this kernel package instead of resolving one
#   E3MP_BUSYBOX       a static busybox binary to use
#
# The kernel package name carries an ABI number that the mirror retires,
# so it is never written down here: it is read from the metapackage's
# dependency at run time.  When apt knows no such metapackage (no
# `apt-get update` yet, or no network) the newest kernel already in the
# cache is used.

KC_DIR=${E3MP_KERNEL_CACHE:-${TMPDIR:-/tmp}/e3mp-kernel-cache}
# another user's default cache: use one of our own beside it
if [ -z "${E3MP_KERNEL_CACHE:-}" ] && [ -e "$KC_DIR" ] &&
   ! [ -w "$KC_DIR" ]; then
	KC_DIR=$KC_DIR-$(id -u)
fi
KC_META=${E3MP_KERNEL_META:-linux-image-cloud-amd64}
_kc_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)

# Modules the guest needs: virtio-blk over PCI.  Their dependencies are
# added from the modules' own .modinfo (the package has no modules.dep).
KC_WANT_MODULES="virtio_pci virtio_blk"

_kc_apt() {
	# -o APT::Sandbox::User=root: the download dir is ours, not _apt's
	local sb=()
	[ "$(id -u)" -ne 0 ] || sb=(-o APT::Sandbox::User=root)
	apt-get -q "${sb[@]}" "$@"
}

# kc_resolve: the kernel package the metapackage depends on, or nothing.
kc_resolve() {
	if [ -n "${E3MP_KERNEL_PKG:-}" ]; then
		echo "$E3MP_KERNEL_PKG"
		return 0
	fi
	command -v apt-cache >/dev/null 2>&1 || return 0
	LC_ALL=C apt-cache depends "$KC_META" 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[^ <>]*\)$/\1/p' | head -n 1
}

# _kc_modfile DIR NAME: the .ko of module NAME ('-' and '_' are one).
_kc_modfile() {
	local alt=${2//_/-}
	find "$1" \( -name "$2.ko" -o -name "$alt.ko" \) -print -quit
}

# _kc_modorder MODDIR NAME...: the modules and what they depend on, each
# after its dependencies, one name a line.
_kc_modorder() {
	local moddir=$1 seen=' ' out=''
	shift
	_kc_visit() {
		local m=$1 f deps d
		case $seen in *" $m "*) return 0 ;; esac
		seen="$seen$m "
		f=$(_kc_modfile "$moddir" "$m")
		[ -n "$f" ] || { echo "missing module $m" >&2; return 1; }
		deps=$(tr '\0' '\n' <"$f" | sed -n 's/^depends=//p' | head -n 1)
		for d in ${deps//,/ }; do
			_kc_visit "$d" || return 1
		done
		out="$out$m "
	}
	local m
	for m; do
		_kc_visit "$m" || return 1
	done
	# shellcheck disable=SC2086 # one name a word
	printf '%s\n' $out
}

# _kc_fetch PKG: unpack PKG's kernel and the modules we need into
# $KC_DIR/PKG (done once; an interrupted fetch leaves no half directory).
_kc_fetch() {
	local pkg=$1 dst=$KC_DIR/$1 tmp deb cfg kver moddir m f ord mods
	[ -f "$dst/ok" ] && return 0
	if ! command -v apt-get >/dev/null 2>&1 ||
	   ! command -v dpkg-deb >/dev/null 2>&1; then
		skip "no apt-get/dpkg-deb to fetch $pkg"
	fi
	tmp=$(mktemp -d "$KC_DIR/.fetch.XXXXXX")
	info "fetching $pkg (apt-get download)"
	if ! (cd "$tmp" && _kc_apt download "$pkg") >"$tmp/apt.log" 2>&1; then
		sed 's/^/  /' "$tmp/apt.log" | tail -n 5
		rm -rf "$tmp"
		skip "cannot download $pkg (no network to the Debian mirror?)"
	fi
	deb=$(ls "$tmp"/*.deb)
	mkdir "$tmp/x"
	dpkg-deb -x "$deb" "$tmp/x" || { rm -rf "$tmp"; fail "dpkg-deb -x $deb"; }
	mkdir -p "$tmp/out/modules"
	mv "$tmp"/x/boot/vmlinuz-* "$tmp"/x/boot/config-* "$tmp/out/" ||
		{ rm -rf "$tmp"; fail "$pkg has no /boot/vmlinuz-* and config-*"; }
	cfg=$(ls "$tmp"/out/config-*)
	kver=${cfg##*/config-}
	moddir=$tmp/x/lib/modules/$kver
	[ -d "$moddir" ] || { rm -rf "$tmp"; fail "$pkg has no $moddir"; }
	# What the guest needs built in, or as a module we can load.
	local need_y="CONFIG_BLK_DEV_INITRD CONFIG_DEVTMPFS CONFIG_SERIAL_8250
		      CONFIG_SERIAL_8250_CONSOLE CONFIG_PCI"
	for m in $need_y; do
		grep -q "^$m=y" "$cfg" ||
			{ rm -rf "$tmp"; skip "$pkg: $m is not built in"; }
	done
	mods=$KC_WANT_MODULES
	grep -q '^CONFIG_EXT4_FS=y' "$cfg" || mods="$mods ext4"
	grep -q '^CONFIG_EXT4_FS=[ym]' "$cfg" ||
		{ rm -rf "$tmp"; skip "$pkg has no ext4 driver"; }
	if find "$moddir" -name '*.ko.*' -print -quit | grep -q .; then
		rm -rf "$tmp"
		skip "$pkg has compressed modules; busybox insmod needs plain .ko"
	fi
	# Built-in modules are not files: drop them from the list.
	ord=$(
		for m in $mods; do
			grep -q "/${m}.ko\$" "$moddir/modules.builtin" 2>/dev/null ||
				echo "$m"
		done
	)
	# shellcheck disable=SC2086 # one name a word
	ord=$(_kc_modorder "$moddir" $ord) ||
		{ rm -rf "$tmp"; skip "$pkg lacks a module the guest needs"; }
	for m in $ord; do
		f=$(_kc_modfile "$moddir" "$m")
		cp "$f" "$tmp/out/modules/$m.ko"
	done
	# shellcheck disable=SC2086 # one name a word
	printf '%s\n' $ord >"$tmp/out/modules/order"
	echo "$kver" >"$tmp/out/kver"
	echo "$pkg from $(dpkg-deb -f "$deb" Version)" >"$tmp/out/ok"
	rm -rf "$dst"
	mv "$tmp/out" "$dst"
	rm -rf "$tmp"
	# kernels the mirror has retired are of no more use
	for m in "$KC_DIR"/linux-image-*; do
		[ "$m" = "$dst" ] || rm -rf "$m"
	done
}

# _kc_static FILE: FILE is a statically linked ELF executable.
_kc_static() {
	[ -x "$1" ] || return 1
	if command -v readelf >/dev/null 2>&1; then
		LC_ALL=C readelf -l "$1" 2>/dev/null | grep -q 'LOAD' || return 1
		! LC_ALL=C readelf -l "$1" 2>/dev/null | grep -q 'INTERP'
	else
		! grep -aq 'ld-linux' "$1"
	fi
}

# _kc_busybox: set KC_BUSYBOX to a static busybox: $E3MP_BUSYBOX, the
# host's (package busybox-static), else busybox-static fetched into the
# cache with apt-get download.
_kc_busybox() {
	local b tmp
	for b in ${E3MP_BUSYBOX:-} /bin/busybox /usr/bin/busybox \
		 "$KC_DIR/busybox/busybox"; do
		if _kc_static "$b"; then
			KC_BUSYBOX=$b
			return 0
		fi
	done
	command -v apt-get >/dev/null 2>&1 ||
		skip "no static busybox (install busybox-static)"
	tmp=$(mktemp -d "$KC_DIR/.bb.XXXXXX")
	info "fetching busybox-static (apt-get download)"
	if ! (cd "$tmp" && _kc_apt download busybox-static) >"$tmp/log" 2>&1 ||
	   ! dpkg-deb -x "$tmp"/busybox-static_*.deb "$tmp/x" ||
	   ! _kc_static "$tmp/x/bin/busybox"; then
		rm -rf "$tmp"
		skip "no static busybox (install busybox-static)"
	fi
	rm -rf "$KC_DIR/busybox"
	mkdir -p "$KC_DIR/busybox"
	mv "$tmp/x/bin/busybox" "$KC_DIR/busybox/busybox"
	rm -rf "$tmp"
	KC_BUSYBOX=$KC_DIR/busybox/busybox
}

# _kc_cpio DIR OUT: a gzipped newc archive of DIR (owner root).
_kc_cpio() {
	local dir=$1 out=$2
	(
		cd "$dir" &&
		find . -mindepth 1 | LC_ALL=C sort |
		if command -v cpio >/dev/null 2>&1; then
			cpio -o -H newc -R 0:0 --quiet
		else
			"$KC_BUSYBOX" cpio -o -H newc -R 0:0 2>/dev/null
		fi
	) | gzip -1 -n >"$out.tmp" && mv "$out.tmp" "$out"
}

# _kc_base: the cached base initramfs for this kernel, busybox and /init.
_kc_base() {
	local kd=$KC_DIR/$KC_PKG key st
	key=$({ sha256sum "$KC_BUSYBOX" "$_kc_here/guest-init.sh" \
		"$kd/modules/order" | cut -d' ' -f1; } | sha256sum | cut -c1-16)
	KC_BASE=$kd/base-$key.cpio.gz
	[ -s "$KC_BASE" ] && return 0
	rm -f "$kd"/base-*.cpio.gz
	st=$(mktemp -d "$KC_DIR/.initramfs.XXXXXX")
	mkdir -p "$st/bin" "$st/dev" "$st/proc" "$st/sys" "$st/mnt" \
		 "$st/tmp" "$st/lib/modules"
	cp "$KC_BUSYBOX" "$st/bin/busybox"
	cp "$_kc_here/guest-init.sh" "$st/init"
	chmod 0755 "$st/init" "$st/bin/busybox"
	cp "$kd"/modules/*.ko "$kd/modules/order" "$st/lib/modules/"
	_kc_cpio "$st" "$KC_BASE" || { rm -rf "$st"; fail "cannot build $KC_BASE"; }
	rm -rf "$st"
	info "built the base initramfs $KC_BASE"
}

kc_setup() {
	local pkg have
	if ! mkdir -p "$KC_DIR" 2>/dev/null || ! [ -w "$KC_DIR" ]; then
		skip "cannot write the kernel cache $KC_DIR"
	fi
	command -v flock >/dev/null 2>&1 || skip "needs flock (util-linux)"
	exec {_kc_lock}>"$KC_DIR/.lock"
	flock -w 900 "$_kc_lock" || skip "kernel cache $KC_DIR is locked"
	pkg=$(kc_resolve)
	if [ -n "$pkg" ]; then
		_kc_fetch "$pkg"
	else
		# apt knows nothing: fall back to the newest cached kernel
		have=$(cd "$KC_DIR" && ls -d linux-image-*/ok 2>/dev/null |
		       sort -V | tail -n 1)
		[ -n "$have" ] || skip "cannot resolve $KC_META with apt-cache" \
			"(run apt-get update) and no kernel in $KC_DIR"
		pkg=${have%/ok}
		info "apt-cache cannot resolve $KC_META; using cached $pkg"
	fi
	KC_PKG=$pkg
	KC_VMLINUZ=$(ls "$KC_DIR/$pkg"/vmlinuz-* | head -n 1)
	_kc_busybox
	_kc_base
	flock -u "$_kc_lock"
	exec {_kc_lock}>&-
	info "kernel: $(cat "$KC_DIR/$pkg/ok") ($KC_VMLINUZ)"
}

# kc_initrd OUT DIR
kc_initrd() {
	local out=$1 dir=$2 st
	st=$(mktemp -d "${out%/*}/.job.XXXXXX")
	mkdir "$st/job"
	cp -R "$dir"/. "$st/job/"
	_kc_cpio "$st" "$out.job" || fail "cannot archive $dir"
	rm -rf "$st"
	cat "$KC_BASE" "$out.job" >"$out"
	rm -f "$out.job"
}
