/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * onecpu.c --- LD_PRELOAD shim: make the process believe it has one CPU.
 *
 * libext2fs (lib/ext2fs/rw_bitmaps.c, ext2fs_rw_bitmaps) reads the block
 * and inode bitmaps with one thread per configured CPU, the count taken
 * from sysconf(_SC_NPROCESSORS_CONF), when the I/O channel was opened
 * with IO_FLAG_THREADS (e2fsck opens it so).  The threads' reads then
 * interleave in the test_io log in an order that changes from run to run.
 * With one CPU, ext2fs_rw_bitmaps falls back to its single-threaded loop,
 * and the log of an e2fsck run is the same every time.
 *
 * Build:  make bench-progs (bench/onecpu.so)
 * Use:    LD_PRELOAD=/path/onecpu.so e2fsck ...
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <unistd.h>

long sysconf(int name)
{
	static long (*real_sysconf)(int);

	if (name == _SC_NPROCESSORS_CONF || name == _SC_NPROCESSORS_ONLN)
		return 1;
	if (!real_sysconf)
		real_sysconf = (long (*)(int))dlsym(RTLD_NEXT, "sysconf");
	return real_sysconf ? real_sysconf(name) : -1;
}
