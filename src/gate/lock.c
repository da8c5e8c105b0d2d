/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lock.c --- one run per volume at a time
 *
 * Before anything is read, a run locks what it was given, for as long
 * as the process lives (every partition of a whole-disk image is under
 * the one lock):
 *
 *  - an flock(2) on the file itself: exclusive for a writing run, shared
 *    for -n, which never writes.  The lock belongs to the inode, so two
 *    paths to one file (a symlink, a hard link) meet it; and it belongs
 *    to this open file description alone, so libext2fs opening and
 *    closing the same file does not drop it, as it would a POSIX fcntl
 *    lock.  On a block device node it keeps two runs through that node
 *    apart; the kernel's O_EXCL open (EXT2_FLAG_EXCLUSIVE, and the busy
 *    check of check_device()) keeps any other exclusive opener out;
 *
 *  - a regular file that backs a loop device is refused: the loop device
 *    is a second way in (a mount, another run on /dev/loopN) that no
 *    lock on the file is seen by.  Found through sysfs, and through
 *    LOOP_GET_STATUS64 where sysfs gives no usable path.
 *
 * Only other runs of e3metapack take the lock: e2fsck, resize2fs, tune2fs
 * and debugfs do not look at it.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/loop.h>

#include "e3metapack.h"

/* The pid and name of a process holding an flock on @st, from /proc. */
static void lock_holder(const struct stat *st, struct e3mp_lock *lk)
{
	char line[256], id[64], comm[32] = "", path[64];
	FILE *f = fopen("/proc/locks", "r");
	long pid = 0;

	snprintf(id, sizeof(id), "%02x:%02x:%llu", major(st->st_dev),
		 minor(st->st_dev), (unsigned long long) st->st_ino);
	while (f && fgets(line, sizeof(line), f)) {
		char kind[16], dev[64];
		long p;

		/* "1: FLOCK  ADVISORY  WRITE 1234 08:01:12345 0 EOF" */
		if (sscanf(line, "%*s %15s %*s %*s %ld %63s", kind, &p,
			   dev) == 3 && !strcmp(kind, "FLOCK") &&
		    !strcmp(dev, id) && p != (long) getpid()) {
			pid = p;
			break;
		}
	}
	if (f)
		fclose(f);
	lk->holder_pid = pid;
	lk->holder_name[0] = 0;
	if (!pid)
		return;
	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	f = fopen(path, "r");
	if (f && fgets(comm, sizeof(comm), f))
		comm[strcspn(comm, "\n")] = 0;
	if (f)
		fclose(f);
	snprintf(lk->holder_name, sizeof(lk->holder_name), "%s", comm);
}

/* Does loop device @name (e.g. "loop3") have @st as its backing file? */
static int loop_backs(const char *name, const struct stat *st)
{
	char path[PATH_MAX + 64], back[PATH_MAX];
	struct loop_info64 li;
	struct stat bs;
	ssize_t n;
	int fd, hit = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file", name);
	f = fopen(path, "r");
	if (!f)
		return 0;	/* not bound to a file */
	n = fgets(back, sizeof(back), f) ? (ssize_t) strlen(back) : 0;
	fclose(f);
	if (n > 0 && back[n - 1] == '\n')
		back[--n] = 0;
	if (n > 0 && !stat(back, &bs))
		return bs.st_dev == st->st_dev && bs.st_ino == st->st_ino;
	/* renamed, deleted or unreachable path: ask the loop device */
	snprintf(path, sizeof(path), "/dev/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (!ioctl(fd, LOOP_GET_STATUS64, &li))
		hit = li.lo_inode == st->st_ino &&
		      major(li.lo_device) == major(st->st_dev) &&
		      minor(li.lo_device) == minor(st->st_dev);
	close(fd);
	return hit;
}

/* The loop device (name in @lk) that @st is the backing file of. */
static int loop_find(const struct stat *st, struct e3mp_lock *lk)
{
	DIR *d = opendir("/sys/block");
	struct dirent *de;
	int hit = 0;

	while (d && !hit && (de = readdir(d))) {
		if (strncmp(de->d_name, "loop", 4) ||
		    !loop_backs(de->d_name, st))
			continue;
		snprintf(lk->loop, sizeof(lk->loop), "/dev/%s", de->d_name);
		hit = 1;
	}
	if (d)
		closedir(d);
	return hit;
}

/*
 * Lock @dev for this run: exclusive to write, shared for a dry run.
 * Returns E3MP_LOCKED (holder in @lk where /proc tells), E3MP_LOOP_BACKED
 * (the loop device in @lk), or an errno.
 */
errcode_t volume_lock(const char *dev, int dry_run, struct e3mp_lock *lk)
{
	int mode = (dry_run ? LOCK_SH : LOCK_EX) | LOCK_NB;
	struct stat st;
	int fd;

	memset(lk, 0, sizeof(*lk));
	lk->fd = -1;
	fd = open(dev, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (fstat(fd, &st)) {
		close(fd);
		return errno;
	}
	if (S_ISREG(st.st_mode) && loop_find(&st, lk)) {
		close(fd);
		return E3MP_LOOP_BACKED;
	}
	if (flock(fd, mode)) {
		errcode_t err = errno;

		if (err == EWOULDBLOCK) {
			lock_holder(&st, lk);
			/*
			 * Reading /proc/locks waits for an RCU grace period
			 * (the kernel takes file_rwsem for writing): a short
			 * run can finish meanwhile.  If no holder is listed,
			 * try the lock again; taken now, it was released
			 * since, and the refusal says so.
			 */
			if (!lk->holder_pid && !flock(fd, mode))
				lk->holder_gone = 1;
			err = E3MP_LOCKED;
		}
		close(fd);
		return err;
	}
	lk->fd = fd;	/* held until exit */
	return 0;
}
