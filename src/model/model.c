/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * model.c --- the model's state: the scan's notes and the figures
 *
 * The scan notes here, through model.h, what the model needs beyond the
 * records the plan places: where each of its batches of inodes starts
 * (the run's own reads, predict/predtool.c) and the blocks e2fsck's
 * pass 1 reads besides indirect blocks (predict/predict.c).  The
 * predictions live here too, for the report to read.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "model/disk.h"
#include "lib/array.h"

errcode_t mp_model_new(struct mp_model **out)
{
	return ext2fs_get_memzero(sizeof(**out), out);
}

void mp_model_free(struct mp_model **m)
{
	if (!*m)
		return;
	ext2fs_free_mem(&(*m)->xr);
	ext2fs_free_mem(&(*m)->cut);
	ext2fs_free_mem(m);
}

errcode_t mp_model_note_batch(struct mp_model *m, __u32 ino)
{
	errcode_t err;

	err = mp_grow(&m->cut, &m->cut_alloc, m->ncut, sizeof(*m->cut));
	if (!err)
		m->cut[m->ncut++] = ino;
	return err;
}

errcode_t mp_model_note_extra(struct mp_model *m, __u32 ino, blk64_t blk,
			      __u32 kind)
{
	errcode_t err;

	err = mp_grow(&m->xr, &m->x_alloc, m->nx, sizeof(*m->xr));
	if (err)
		return err;
	m->xr[m->nx].blk = blk;
	m->xr[m->nx].ino = ino;
	m->xr[m->nx].kind = kind;
	m->nx++;
	return 0;
}

static const struct mp_model none;

const struct mp_prediction *mp_model_fsck(const struct mp_model *m,
					  int after)
{
	return &(m ? m : &none)->pred[!!after];
}

const struct mp_prediction *mp_model_fsck_log(const struct mp_model *m,
					      int after)
{
	return &(m ? m : &none)->log[!!after];
}

const struct mp_fsck_setting *mp_model_fsck_setting(const struct mp_model *m)
{
	return &(m ? m : &none)->setting;
}

double mp_model_fsck_dirs(const struct mp_model *m, unsigned int dirs)
{
	return dirs < MP_DIRS_MODES ? (m ? m : &none)->dirs_ms[dirs] : 0;
}

double mp_model_fsck_span(const struct mp_model *m, unsigned int span)
{
	return span <= MP_MC_SPAN_MAX ? (m ? m : &none)->span_ms[span] : 0;
}

const struct mp_tool_prediction *mp_model_tool(const struct mp_model *m)
{
	return &(m ? m : &none)->tool;
}
