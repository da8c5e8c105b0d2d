/*
 * undo.c --- the undo file, through libext2fs's undo_io_manager
 *
 * As in resize2fs and tune2fs, the undo manager is stacked on the unix
 * manager before ext2fs_open2(); it saves each block's old contents the
 * first time it is written, and e2undo puts them back.  An existing undo
 * file for the same filesystem state is continued, not replaced, so a
 * run that resumes an interrupted one can still be undone in one step
 * back to the very first original.  The undo manager opens both the
 * volume and the undo file through io.c's layer, which keeps the file
 * replayable by e2undo at every instant of the run (see there).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <libgen.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "e3metapack.h"

#define UNDO_DIR_DEFAULT	"/var/lib/e2fsprogs"

/*
 * @name, or for a partition of a whole-disk image @name with "-pN" put
 * before its ".e2undo" suffix (or at its end), so each partition's run
 * has an undo file of its own.
 */
static errcode_t undo_name(struct e3mp *mp, const char *dir,
			   const char *name, char **path)
{
	size_t len = strlen(name), suffix = strlen(".e2undo");
	char part[16] = "";
	errcode_t err;

	if (mp->part && !mp->opt.partition)
		snprintf(part, sizeof(part), "-p%d", mp->part->partno);
	if (len < suffix || strcmp(name + len - suffix, ".e2undo"))
		suffix = 0;
	err = ext2fs_get_mem(strlen(dir) + len + sizeof(part) + 2, path);
	if (!err)
		sprintf(*path, "%s%s%.*s%s%s", dir, *dir ? "/" : "",
			(int) (len - suffix), name, part, name + len - suffix);
	return err;
}

/*
 * The default directory is made when it is missing: Debian, for one,
 * ships no /var/lib/e2fsprogs, and a first run must not need a -z.  It
 * gets 0755 whatever the umask, like /var/lib itself (the undo manager
 * creates the files in it 0600).  Only the last component is made: a
 * missing parent is a mistyped E2FSPROGS_UNDO_DIR, better refused.
 */
static errcode_t undo_dir_ready(struct e3mp *mp, const char *dir)
{
	struct stat st;

	if (!mkdir(dir, 0755)) {
		mp->undo_dir_made = dir;
		if (chmod(dir, 0755))
			return E3MP_NO_UNDO_DIR;
	} else if (errno != EEXIST || stat(dir, &st) || !S_ISDIR(st.st_mode))
		return E3MP_NO_UNDO_DIR;
	return access(dir, W_OK | X_OK) ? E3MP_NO_UNDO_DIR : 0;
}

/* Where the undo file goes when -z is not given. */
static errcode_t default_undo_path(struct e3mp *mp, char **path)
{
	const char *dir = getenv("E2FSPROGS_UNDO_DIR");
	char *tmp, *base, *name;
	errcode_t err;

	if (!dir)
		dir = UNDO_DIR_DEFAULT;
	if (!strcmp(dir, "none") || !*dir) {
		*path = NULL;
		return 0;
	}
	err = undo_dir_ready(mp, dir);
	if (err)
		return err;
	tmp = strdup(mp->device);
	if (!tmp)
		return ENOMEM;
	base = basename(tmp);
	err = ext2fs_get_mem(strlen(base) + 32, &name);
	if (!err) {
		sprintf(name, "e3metapack-%s.e2undo", base);
		err = undo_name(mp, dir, name, path);
		ext2fs_free_mem(&name);
	}
	free(tmp);
	return err;
}

/*
 * The undo file must not be the volume: the same file by st_dev/st_ino
 * (through any link), or the same block device.  The undo manager would
 * otherwise write its header over the superblock before saving it.
 */
static int undo_is_volume(struct e3mp *mp)
{
	struct stat u, v;

	if (stat(mp->undo_path, &u) || stat(mp->device, &v))
		return 0;
	if (S_ISBLK(u.st_mode) && S_ISBLK(v.st_mode))
		return u.st_rdev == v.st_rdev;
	return u.st_dev == v.st_dev && u.st_ino == v.st_ino;
}

errcode_t undo_setup(struct e3mp *mp, io_manager *io)
{
	const char *file = mp->opt.undo_file;
	errcode_t err;

	if (file && !strcmp(file, "none"))
		return 0;
	if (file)
		err = undo_name(mp, "", file, &mp->undo_path);
	else
		err = default_undo_path(mp, &mp->undo_path);
	if (err || !mp->undo_path)
		return err;
	if (undo_is_volume(mp))
		return E3MP_UNDO_IS_VOLUME;
	mp->undo_created = access(mp->undo_path, F_OK) != 0;
	err = set_undo_io_backing_manager(*io);
	if (!err)
		err = set_undo_io_backup_file(mp->undo_path);
	if (!err)
		*io = undo_io_manager;
	return err;
}

/*
 * A run that wrote nothing to the volume leaves at most an undo header
 * and saved blocks nothing needs; remove the file if this run created
 * it.  A file that was there before belongs to an earlier run and is
 * kept.  Called after the volume is closed, last.
 */
void undo_discard_unused(struct e3mp *mp)
{
	if (mp->undo_path && mp->undo_created && !mp->dev_writes)
		unlink(mp->undo_path);
	ext2fs_free_mem(&mp->undo_path);
}
