/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report.c --- the layout report: text, or one JSON object (--json)
 *
 * Field names of the JSON object are an interface: e3metapack(8) lists
 * them, and scripts rely on them.  Add fields; never rename one.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdio.h>
#include <string.h>

#include "e3metapack.h"
#include "core/words.h"

/* The --order value in force. */
static const char *order_name(enum e3mp_order o)
{
	return mp_word(MP_WORDS_ORDER, o);
}

/* The --home value in force: the rule the report calls "rule". */
static const char *homing_name(enum e3mp_homing h)
{
	return mp_word(MP_WORDS_HOME, h);
}

static __u64 ind_total(const struct e3mp *mp)
{
	return mp->st.ind_by_level[1] + mp->st.ind_by_level[2] +
	       mp->st.ind_by_level[3];
}

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/*
 * The plan's counts, and pass 1's reads of indirect blocks and their
 * seeks as the model of e2fsck walks them (the "indirect" of
 * "predicted").
 */
static void json_figures(FILE *f, const char *name,
			 const struct mp_figures *x,
			 const struct mp_prediction *m)
{
	fprintf(f, "\"%s\":{\"in_metacluster\":%llu,\"groups\":%llu,"
		"\"fsck_reads\":%llu,\"fsck_seeks\":%llu}", name,
		(unsigned long long) x->in_mc, (unsigned long long) x->groups,
		(unsigned long long) m->kind_reads[MP_K_IND],
		(unsigned long long) m->kind_seeks[MP_K_IND]);
}

/* JSON names and text of enum mp_kind, in its order. */
static const char *const kind_json[MP_K_COUNT] = {
	"inode_tables", "bitmaps", "indirect", "directories", "journal",
	"other"
};
static const char *const kind_text[MP_K_COUNT] = {
	"inode tables", "bitmaps", "indirect blocks", "directories",
	"journal", "other"
};

static void json_prediction(FILE *f, const char *name,
			    const struct mp_prediction *x)
{
	int k;

	fprintf(f, "\"%s\":{", name);
	for (k = 0; k < MP_K_COUNT; k++)
		fprintf(f, "\"%s\":%.1f,", kind_json[k], x->ms[k]);
	fprintf(f, "\"total\":%.1f,\"reads\":%llu,\"seeks\":%llu}",
		x->total_ms, (unsigned long long) x->reads,
		(unsigned long long) x->seeks);
}

/* "tool_ms": the run's own time on the model disk; null: nothing moves. */
static void json_tool(const struct e3mp *mp, FILE *f)
{
	const struct mp_tool_prediction *t = mp_model_tool(mp->model);

	if (!t->valid) {
		fputs(",\"tool_ms\":null", f);
		return;
	}
	fprintf(f, ",\"tool_ms\":{\"scan\":%.1f,\"read\":%.1f,"
		"\"write\":%.1f,\"total\":%.1f,\"reads\":%llu,"
		"\"writes\":%llu,\"seeks\":%llu,\"undo_unit\":%u}",
		t->scan_ms, t->read_ms, t->write_ms, t->total_ms,
		(unsigned long long) t->reads, (unsigned long long) t->writes,
		(unsigned long long) t->seeks, mp->undo_unit);
}

static const char *const ra_from[] = {
	[E3MP_RA_IMAGE] = "image",
	[E3MP_RA_DEVICE] = "device",
	[E3MP_RA_OPTION] = "option",
};

/* "kernel" and "e2fsck": what the prediction assumed of them. */
static void json_setting(const struct e3mp *mp, FILE *f)
{
	const struct mp_fsck_setting *s = mp_model_fsck_setting(mp->model);

	fprintf(f, "\"kernel\":{\"read_ahead_kb\":%u,\"from\":\"%s\","
		"\"page_kb\":%u,\"drive_cache_kb\":%u,"
		"\"drive_segments\":%u},\"e2fsck\":{\"readahead_kb\":%u,"
		"\"bitmap_threads\":%u},", s->ra_kb, ra_from[mp->ra_from],
		s->page_kb, s->drive_kb, s->segments, s->fsck_ra_kb,
		s->threads);
}

/* "dirs_ms": e2fsck after the run by --dirs value; null: not predicted. */
static void json_dirs_ms(const struct e3mp *mp, FILE *f)
{
	const char *sep = "{";
	unsigned int d;
	double ms;

	fputs(",\"dirs_ms\":", f);
	for (d = 0; d < MP_DIRS_MODES; d++) {
		ms = mp_model_fsck_dirs(mp->model, d);
		if (!ms)
			continue;
		fprintf(f, "%s\"%s\":%.1f", sep, mp_word(MP_WORDS_DIRS, d),
			ms);
		sep = ",";
	}
	fputs(*sep == '{' ? "null" : "}", f);
}

/* "span_ms": e2fsck after the run by --mc-span value; null: none. */
static void json_span_ms(const struct e3mp *mp, FILE *f)
{
	const char *sep = "{";
	unsigned int s;
	double ms;

	fputs(",\"span_ms\":", f);
	for (s = 1; s <= MP_MC_SPAN_MAX; s++) {
		ms = mp_model_fsck_span(mp->model, s);
		if (!ms)
			continue;
		fprintf(f, "%s\"%u\":%.1f", sep, s, ms);
		sep = ",";
	}
	fputs(*sep == '{' ? "null" : "}", f);
}

/* "predicted": e2fsck -fn's time on the model disk, before and after. */
static void json_predicted(const struct e3mp *mp, FILE *f)
{
	const struct mp_disk_params *d = &mp->opt.disk;

	fprintf(f, ",\"predicted\":{\"disk\":{\"settle_ms\":%g,"
		"\"stroke_ms\":%g,\"half_rotation_ms\":%g,"
		"\"mb_per_s\":%g,\"reference\":%s},", d->settle_ms,
		d->stroke_ms, d->half_rot_ms, d->mb_per_s,
		mp_disk_is_default(d) ? "true" : "false");
	json_setting(mp, f);
	json_prediction(f, "before_ms", mp_model_fsck(mp->model, 0));
	fputc(',', f);
	json_prediction(f, "after_ms", mp_model_fsck(mp->model, 1));
	fprintf(f, ",\"own_reads_ms\":{\"before\":%.1f,\"after\":%.1f}",
		mp_model_fsck_log(mp->model, 0)->total_ms,
		mp_model_fsck_log(mp->model, 1)->total_ms);
	json_dirs_ms(mp, f);
	json_span_ms(mp, f);
	json_tool(mp, f);
	fputc('}', f);
}

/* The fields every JSON line starts with: which filesystem it is about. */
static void json_head(const struct e3mp *mp, FILE *f)
{
	fputs("{\"device\":", f);
	json_string(f, mp->device ? mp->device : mp->opt.spec);
	if (mp->part)
		fprintf(f, ",\"partition\":%d,\"offset\":%llu",
			mp->part->partno,
			(unsigned long long) mp->part->offset);
}

void report_json_failure(const struct e3mp *mp, FILE *f, const char *status,
			 const char *why, int exit_code)
{
	json_head(mp, f);
	fprintf(f, ",\"status\":\"%s\",\"reason\":", status);
	json_string(f, why);
	fprintf(f, ",\"exit_code\":%d}\n", exit_code);
}

/*
 * "directories": what --dirs did.  The in-region figures are those of
 * the plan, so they exist only when --dirs is not leave.
 */
static void json_dirs(const struct e3mp *mp, FILE *f)
{
	const struct mp_plan *p = &mp->plan;

	fprintf(f, "\"directories\":{\"mode\":\"%s\",\"block_mapped\":%llu,"
		"\"blocks\":%llu,\"moved\":%llu,\"no_space\":%llu,",
		mp_word(MP_WORDS_DIRS, mp->opt.dirs),
		(unsigned long long) mp->st.dirs_mapped,
		(unsigned long long) mp->st.dir_blocks,
		(unsigned long long) p->dir_moved,
		(unsigned long long) p->dir_no_space);
	if (mp->opt.dirs)
		fprintf(f, "\"in_region_before\":%llu,"
			"\"in_region_after\":%llu},",
			(unsigned long long) p->dir_before,
			(unsigned long long) p->dir_after);
	else
		fputs("\"in_region_before\":null,\"in_region_after\":null},",
		      f);
}

/* One count of a JSON object, by its key. */
struct json_count {
	const char	*key;
	__u64		v;
};

#define NCOUNTS(a)	(sizeof(a) / sizeof((a)[0]))

/* "@name":{"key":count,...}, */
static void json_counts(FILE *f, const char *name,
			const struct json_count *c, size_t n)
{
	size_t i;

	fprintf(f, "\"%s\":{", name);
	for (i = 0; i < n; i++)
		fprintf(f, "%s\"%s\":%llu", i ? "," : "", c[i].key,
			(unsigned long long) c[i].v);
	fputs("},", f);
}

/* What the scan found: "inodes" and "indirect". */
static void json_scan(const struct e3mp *mp, FILE *f)
{
	const struct e3mp_stats *st = &mp->st;
	const struct json_count inodes[] = {
		{ "scanned", st->inodes_scanned },
		{ "block_mapped", st->inodes_mapped },
		{ "with_indirect", st->inodes_with_ind },
		{ "skipped_extent", st->skipped_extent },
		{ "skipped_inline", st->skipped_inline },
		{ "skipped_fast_symlink", st->skipped_fastlink },
		{ "skipped_special", st->skipped_special },
	}, levels[] = {
		{ "ind", st->ind_by_level[1] },
		{ "dind", st->ind_by_level[2] },
		{ "tind", st->ind_by_level[3] },
		{ "total", ind_total(mp) },
	};

	json_counts(f, "inodes", inodes, NCOUNTS(inodes));
	json_counts(f, "indirect", levels, NCOUNTS(levels));
}

/* What the plan moves: "metacluster_groups" and "moves". */
static void json_moves(const struct mp_plan *p, FILE *f)
{
	const struct json_count moves[] = {
		{ "indirect", p->ind_moved },
		{ "data_evacuated", p->data_evacuated },
		{ "temporary", p->temp_moves },
		{ "unclustered", p->unclustered },
		{ "no_space", p->no_space },
		{ "kept_inline", p->kept_inline },
	};

	fprintf(f, ",\"metacluster_groups\":%llu,",
		(unsigned long long) p->mc_groups);
	json_counts(f, "moves", moves, NCOUNTS(moves));
}

static void report_json(struct e3mp *mp, FILE *f, const char *status,
			int exit_code)
{
	const struct mp_plan *p = &mp->plan;

	json_head(mp, f);
	fprintf(f, ",\"block_size\":%u,\"groups\":%u,\"homing\":\"%s\","
		"\"rule\":\"%s\",\"order\":\"%s\",\"mc_max_pct\":%u,"
		"\"mc_span\":%u,\"dry_run\":%s,",
		mp->fs ? mp->fs->blocksize : 0, mp->geom.group_count,
		homing_name(mp->opt.homing), homing_name(mp->opt.homing),
		order_name(mp->opt.order), mp->opt.mc_max_pct,
		mp->opt.mc_span, mp->opt.dry_run ? "true" : "false");
	json_scan(mp, f);
	json_figures(f, "before", &p->before, mp_model_fsck_log(mp->model, 0));
	fputc(',', f);
	json_figures(f, "after", &p->after, mp_model_fsck_log(mp->model, 1));
	json_moves(p, f);
	json_dirs(mp, f);
	fputs("\"undo_file\":", f);
	if (mp->undo_path && !mp->opt.dry_run)
		json_string(f, mp->undo_path);
	else
		fputs("null", f);
	if (mp->undo_bound)
		fprintf(f, ",\"undo_bound_bytes\":%llu",
			(unsigned long long) mp->undo_bound);
	else
		fputs(",\"undo_bound_bytes\":null", f);
	json_predicted(mp, f);
	fprintf(f, ",\"status\":\"%s\",\"exit_code\":%d}\n", status,
		exit_code);
}

static void text_row(FILE *f, const char *what, __u64 before, __u64 after)
{
	fprintf(f, "  %-24s %12llu %12llu\n", what,
		(unsigned long long) before, (unsigned long long) after);
}

/* Under --dirs other than leave: the directory blocks, and where. */
static void report_dirs(const struct e3mp *mp, FILE *f, const char *verb)
{
	const struct mp_plan *p = &mp->plan;

	fprintf(f, "Directories: %llu block-mapped, %llu blocks; %s %llu "
		"into their region\n",
		(unsigned long long) mp->st.dirs_mapped,
		(unsigned long long) mp->st.dir_blocks, verb,
		(unsigned long long) p->dir_moved);
	text_row(f, "directory blocks there", p->dir_before, p->dir_after);
	if (p->dir_no_space)
		fprintf(f, "Left where they are for want of free space: "
			"%llu directory blocks\n",
			(unsigned long long) p->dir_no_space);
}

/* "1.23 s", or "1.23 s -> 0.45 s" when the run changes it. */
static int text_time(char *buf, size_t len, double before, double after)
{
	char a[32], b[32];

	snprintf(a, sizeof(a), "%.2f s", before / 1000);
	snprintf(b, sizeof(b), "%.2f s", after / 1000);
	if (!strcmp(a, b))
		return snprintf(buf, len, "%s", a);
	return snprintf(buf, len, "%s -> %s", a, b);
}

/* The run's own time on the same disk. */
static void text_tool(const struct e3mp *mp, FILE *f)
{
	const struct mp_tool_prediction *t = mp_model_tool(mp->model);

	if (!t->valid) {
		fputs("e3metapack itself: nothing to move\n", f);
		return;
	}
	fprintf(f, "e3metapack itself: about %.2f s on the same disk "
		"(reads %.2f s, writes %.2f s)\n", t->total_ms / 1000,
		t->read_ms / 1000, t->write_ms / 1000);
	fprintf(f, "  the scan %.2f s; %s\n", t->scan_ms / 1000,
		mp->undo_unit ? "the undo manager's reads included" :
		"no undo file");
}

static const char *const ra_text[] = {
	[E3MP_RA_IMAGE] = "an image file's",
	[E3MP_RA_DEVICE] = "the device's",
	[E3MP_RA_OPTION] = "--read-ahead",
};

/* What the prediction assumed of the kernel and e2fsck. */
static void text_setting(const struct e3mp *mp, FILE *f)
{
	const struct mp_fsck_setting *s = mp_model_fsck_setting(mp->model);

	fprintf(f, "  (e2fsck's defaults, %u bitmap threads; read_ahead_kb "
		"%u: %s)\n", s->threads, s->ra_kb,
		ra_text[mp->ra_from]);
}

/* e2fsck after the run under each --dirs value, when predicted. */
static void text_dirs(const struct e3mp *mp, FILE *f)
{
	const char *sep = "  after, by --dirs:";
	unsigned int d;
	double ms;

	for (d = 0; d < MP_DIRS_MODES; d++) {
		ms = mp_model_fsck_dirs(mp->model, d);
		if (!ms)
			continue;
		fprintf(f, "%s %s %.2f s%s", sep, mp_word(MP_WORDS_DIRS, d),
			ms / 1000, d == mp->opt.dirs ? " (this run)" : "");
		sep = ",";
	}
	if (*sep == ',')
		fputc('\n', f);
}

/* e2fsck after the run under each --mc-span value, when predicted. */
static void text_spans(const struct e3mp *mp, FILE *f)
{
	const char *sep = "  after, by --mc-span:";
	unsigned int s;
	double ms;

	for (s = 1; s <= MP_MC_SPAN_MAX; s++) {
		ms = mp_model_fsck_span(mp->model, s);
		if (!ms)
			continue;
		fprintf(f, "%s %u %.2f s%s", sep, s, ms / 1000,
			s == mp->opt.mc_span ? " (this run)" : "");
		sep = ",";
	}
	if (*sep == ',')
		fputc('\n', f);
}

/* The prediction: the totals, then where the time goes, wrapped. */
static void text_predicted(const struct e3mp *mp, FILE *f)
{
	const struct mp_disk_params *d = &mp->opt.disk;
	const struct mp_prediction *b = mp_model_fsck(mp->model, 0);
	const struct mp_prediction *a = mp_model_fsck(mp->model, 1);
	char t[96], part[160];
	int k, col;

	text_time(t, sizeof(t), b->total_ms, a->total_ms);
	if (mp_disk_is_default(d))
		fprintf(f, "Predicted e2fsck -fn on the reference disk: %s\n",
			t);
	else
		fprintf(f, "Predicted e2fsck -fn on the disk "
			"--disk=%g,%g,%g,%g: %s\n", d->settle_ms,
			d->stroke_ms, d->half_rot_ms, d->mb_per_s, t);
	col = 0;
	for (k = 0; k < MP_K_COUNT; k++) {
		text_time(t, sizeof(t), b->ms[k], a->ms[k]);
		snprintf(part, sizeof(part), "%s %s%s", kind_text[k], t,
			 k + 1 < MP_K_COUNT ? "," : "");
		if (col && col + 1 + strlen(part) > 78) {
			fputc('\n', f);
			col = 0;
		}
		col += fprintf(f, "%s%s", col ? " " : "  ", part);
	}
	fputc('\n', f);
	text_setting(mp, f);
	text_dirs(mp, f);
	text_spans(mp, f);
	text_tool(mp, f);
}

/* The volume, and the options that shape the plan. */
static void text_volume(const struct e3mp *mp, FILE *f)
{
	fprintf(f, "%s: %u-byte blocks, %u groups, %s homing, "
		"metacluster at most %u%% of a group", volume_label(mp),
		mp->fs->blocksize, mp->geom.group_count,
		homing_name(mp->opt.homing), mp->opt.mc_max_pct);
	if (mp->opt.mc_span > 1)
		fprintf(f, ", shared by %u groups", mp->opt.mc_span);
	fputc('\n', f);
	fprintf(f, "Layout rule: %s", homing_name(mp->opt.homing));
	if (mp->opt.homing == E3MP_HOME_INLINE)
		fprintf(f, " (%llu first IND blocks stay where they are)",
			(unsigned long long) mp->plan.kept_inline);
	fprintf(f, ", %s order\n", order_name(mp->opt.order));
}

/* What the scan found: the inodes, and their indirect blocks. */
static void text_scan(const struct e3mp *mp, FILE *f)
{
	const struct e3mp_stats *st = &mp->st;

	fprintf(f, "Inodes: %llu in use, %llu block-mapped, "
		"%llu with indirect blocks\n",
		(unsigned long long) st->inodes_scanned,
		(unsigned long long) st->inodes_mapped,
		(unsigned long long) st->inodes_with_ind);
	fprintf(f, "  left alone: %llu extent-mapped, %llu inline, "
		"%llu fast symlinks, %llu special\n",
		(unsigned long long) st->skipped_extent,
		(unsigned long long) st->skipped_inline,
		(unsigned long long) st->skipped_fastlink,
		(unsigned long long) st->skipped_special);
	fprintf(f, "Indirect blocks: %llu (IND %llu, DIND %llu, TIND %llu)\n",
		(unsigned long long) ind_total(mp),
		(unsigned long long) st->ind_by_level[1],
		(unsigned long long) st->ind_by_level[2],
		(unsigned long long) st->ind_by_level[3]);
}

/* The plan: the figures before and after, and what moves. */
static void text_plan(const struct e3mp *mp, FILE *f, const char *verb)
{
	const struct mp_plan *p = &mp->plan;

	fprintf(f, "  %-24s %12s %12s\n", "", "before", "after");
	text_row(f, "in their metacluster", p->before.in_mc, p->after.in_mc);
	text_row(f, "groups holding them", p->before.groups, p->after.groups);
	text_row(f, "e2fsck pass 1 reads",
		 mp_model_fsck_log(mp->model, 0)->kind_reads[MP_K_IND],
		 mp_model_fsck_log(mp->model, 1)->kind_reads[MP_K_IND]);
	fprintf(f, "Metaclusters: %llu groups; %s %llu indirect blocks, "
		"evacuating %llu data blocks (%llu parked)\n",
		(unsigned long long) p->mc_groups, verb,
		(unsigned long long) p->ind_moved,
		(unsigned long long) p->data_evacuated,
		(unsigned long long) p->temp_moves);
	if (p->unclustered)
		fprintf(f, "Left outside a metacluster: %llu indirect blocks "
			"(%llu for want of free space)\n",
			(unsigned long long) p->unclustered,
			(unsigned long long) p->no_space);
}

static void report_text(struct e3mp *mp, FILE *f)
{
	const char *verb = mp->opt.dry_run ? "would move" : "moved";

	text_volume(mp, f);
	text_scan(mp, f);
	text_plan(mp, f, verb);
	if (mp->opt.dirs)
		report_dirs(mp, f, verb);
	text_predicted(mp, f);
	if (mp->undo_bound)
		fprintf(f, "Undo file: at most %llu bytes (%u-byte units)\n",
			(unsigned long long) mp->undo_bound, mp->undo_unit);
}

void report_print(struct e3mp *mp, FILE *f, const char *status,
		  int exit_code)
{
	if (mp->opt.json)
		report_json(mp, f, status, exit_code);
	else
		report_text(mp, f);
}

static const char *const kind_name[] = {
	[MV_IND] = "ind", [MV_DATA] = "data", [MV_TEMP] = "park",
	[MV_OUT] = "out", [MV_DIR] = "dir",
};

void report_debug_moves(struct e3mp *mp, FILE *f)
{
	const struct mp_plan *p = &mp->plan;
	__u32 r, i;

	for (r = 0; r < 2; r++)
		for (i = 0; i < p->nmv[r]; i++) {
			const struct mp_move *m = &p->mv[r][i];

			fprintf(f, "round %u: %-4s ino %u level %u: "
				"%llu -> %llu\n", r + 1, kind_name[m->kind],
				m->ino, m->level, (unsigned long long) m->from,
				(unsigned long long) m->to);
		}
}
