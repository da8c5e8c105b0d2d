/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cli.c --- command line, in e2fsprogs' idiom
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e3metapack.h"
#include "core/words.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

#define MC_MAX_DEFAULT	12

enum { OPT_JSON = 256, OPT_HOME, OPT_MC_MAX, OPT_MC_SPAN, OPT_PARTITION,
       OPT_DIRS, OPT_DISK, OPT_ORDER, OPT_READ_AHEAD };

static const struct option long_opts[] = {
	{ "dry-run",	no_argument,		NULL, 'n' },
	{ "force",	no_argument,		NULL, 'f' },
	{ "progress",	no_argument,		NULL, 'p' },
	{ "verbose",	no_argument,		NULL, 'v' },
	{ "undo",	required_argument,	NULL, 'z' },
	{ "debug",	required_argument,	NULL, 'd' },
	{ "json",	no_argument,		NULL, OPT_JSON },
	{ "home",	required_argument,	NULL, OPT_HOME },
	{ "order",	required_argument,	NULL, OPT_ORDER },
	{ "mc-max",	required_argument,	NULL, OPT_MC_MAX },
	{ "mc-span",	required_argument,	NULL, OPT_MC_SPAN },
	{ "dirs",	required_argument,	NULL, OPT_DIRS },
	{ "partition",	required_argument,	NULL, OPT_PARTITION },
	{ "disk",	required_argument,	NULL, OPT_DISK },
	{ "read-ahead",	required_argument,	NULL, OPT_READ_AHEAD },
	{ "version",	no_argument,		NULL, 'V' },
	{ "help",	no_argument,		NULL, 'h' },
	{ NULL,		0,			NULL, 0 }
};

/* The synopsis, the values of --home, --order and --dirs from words.c. */
static void usage_synopsis(FILE *f)
{
	char w[MP_WORDS_COUNT][128];
	int o;

	for (o = 0; o < MP_WORDS_COUNT; o++)
		mp_words_join(o, "|", w[o], sizeof(w[o]));
	fprintf(f,
"Usage: e3metapack [-fnpv] [-z undo_file] [-d debug_flags] [--json]\n"
"                  [--home=%s] [--order=%s]\n"
"                  [--mc-max=percent] [--mc-span=groups]\n"
"                  [--dirs=%s]\n"
"                  [--partition=N] [--disk=S,F,H,R] [--read-ahead=KB]\n"
"                  [-V] [-h] device\n",
		w[MP_WORDS_HOME], w[MP_WORDS_ORDER], w[MP_WORDS_DIRS]);
}

void usage(FILE *f)
{
	usage_synopsis(f);
	fprintf(f,
"\n"
"Move every indirect block of an unmounted ext2/ext3 volume into the\n"
"metacluster at the tail of its block group, so e2fsck reads them in\n"
"a few short sweeps.  device may be LABEL=label or UUID=uuid, or a\n"
"whole-disk image whose ext2/3/4 partitions are then processed in turn.\n"
"\n"
"  -n, --dry-run       change nothing; report what would move\n"
"  -f, --force         run although not checked since the last mount\n"
"  -p, --progress      show progress\n"
"  -v, --verbose       print the before/after report after a run\n"
"  -z, --undo=FILE     undo file (\"none\": no undo file)\n"
"  -d, --debug=FLAGS   debug output: 1 planned moves, 2 copies\n"
"      --json          print the report as one JSON object\n"
"      --home=RULE     inode (default), data or inline: the layout rule\n"
"      --order=ORDER   fsck (default) or delete: each file's indirect\n"
"                      blocks in the order e2fsck reads them, or in the\n"
"                      order the kernel frees them on delete\n"
"      --mc-max=PCT    metacluster at most PCT%% (1-50) of a group (default %d)\n"
"      --mc-span=N     the tail of every Nth group (1-%d) holds the\n"
"                      metaclusters of the N groups from it on (default 1)\n"
"      --dirs=MODE     where to move the blocks of block-mapped\n"
"                      directories: volume (default: one region in the\n"
"                      middle of the volume, an htree's root after its\n"
"                      inode table), roots (block 0 after the inode\n"
"                      table, the rest after the metacluster), pack (all\n"
"                      after the metacluster) or leave (where they are)\n"
"      --partition=N   of a whole-disk image, process partition N only\n"
"      --disk=S,F,H,R  the model disk of the predictions: settle,\n"
"                      full-stroke seek and half-rotation times in ms,\n"
"                      transfer rate in MB/s (default 1,15,4.17,150)\n"
"      --read-ahead=KB the read_ahead_kb e2fsck's device will have\n"
"                      (default: the device's own; 128 for an image)\n"
"  -V, --version       print the version and exit\n"
"  -h, --help          print this help and exit\n", MC_MAX_DEFAULT,
		MP_MC_SPAN_MAX);
}

void print_version(void)
{
	const char *lib_ver = "?";

	ext2fs_get_library_version(&lib_ver, NULL);
	printf("e3metapack %s\n", PACKAGE_VERSION);
	printf("\tUsing EXT2FS Library version %s\n", lib_ver);
}

static int parse_number(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 0);
	return errno || !*s || *end || *s == '-' || *out > max;
}

/*
 * The value of word @s of option @o in *@out; else a usage error that
 * names the values there are (opt->bad, in @msg).
 */
static errcode_t parse_word(struct e3mp_options *opt, enum mp_word_option o,
			    const char *s, unsigned long *out)
{
	static char msg[256];
	char list[128];

	if (!mp_word_value(o, s, out))
		return 0;
	mp_words_join(o, ", ", list, sizeof(list));
	snprintf(msg, sizeof(msg), "%s value '%s' (one of %s)",
		 mp_words[o].option, s, list);
	opt->bad = msg;
	return EINVAL;
}

static errcode_t parse_one(int c, struct e3mp_options *opt)
{
	unsigned long v;

	switch (c) {
	case 'n': opt->dry_run = 1; break;
	case 'f': opt->force = 1; break;
	case 'p': opt->progress = 1; break;
	case 'v': opt->verbose = 1; break;
	case 'z': opt->undo_file = optarg; break;
	case 'V': opt->version = 1; break;
	case 'h': opt->help = 1; break;
	case OPT_JSON: opt->json = 1; break;
	case 'd':
		if (parse_number(optarg, ~0UL, &opt->debug))
			return opt->bad = "--debug", EINVAL;
		break;
	case OPT_HOME:
		if (parse_word(opt, MP_WORDS_HOME, optarg, &v))
			return EINVAL;
		opt->homing = v;
		break;
	case OPT_ORDER:
		if (parse_word(opt, MP_WORDS_ORDER, optarg, &v))
			return EINVAL;
		opt->order = v;
		break;
	case OPT_DIRS:
		if (parse_word(opt, MP_WORDS_DIRS, optarg, &v))
			return EINVAL;
		opt->dirs = v;
		break;
	case OPT_PARTITION:
		if (parse_number(optarg, 4096, &v) || v == 0)
			return opt->bad = "--partition", EINVAL;
		opt->partition = v;
		break;
	case OPT_DISK:
		if (mp_disk_parse(optarg, &opt->disk))
			return opt->bad = "--disk (want SETTLE_MS,STROKE_MS,"
				"HALF_ROT_MS,MB_PER_S: times 0-1000 ms, "
				"settle <= stroke, rate above 0, e.g. "
				"1,15,4.17,150)", EINVAL;
		break;
	case OPT_READ_AHEAD:
		if (parse_number(optarg, MP_READ_AHEAD_MAX_KB, &v))
			return opt->bad = "--read-ahead", EINVAL;
		opt->read_ahead_kb = v;
		opt->ra_given = 1;
		break;
	case OPT_MC_MAX:
		if (parse_number(optarg, 50, &v) || v == 0)
			return opt->bad = "--mc-max", EINVAL;
		opt->mc_max_pct = v;
		break;
	case OPT_MC_SPAN:
		if (parse_number(optarg, MP_MC_SPAN_MAX, &v) || v == 0)
			return opt->bad = "--mc-span", EINVAL;
		opt->mc_span = v;
		break;
	default:
		return opt->bad = "unknown option", EINVAL;
	}
	return 0;
}

errcode_t parse_args(int argc, char **argv, struct e3mp_options *opt)
{
	errcode_t err;
	int c;

	memset(opt, 0, sizeof(*opt));
	opt->mc_max_pct = MC_MAX_DEFAULT;
	opt->mc_span = 1;
	/* (the fastest e2fsck by the measurements of docs/PERFORMANCE.md) */
	opt->dirs = E3MP_DIRS_VOLUME;
	mp_disk_default(&opt->disk);
	opt->read_ahead_kb = MP_READ_AHEAD_IMAGE_KB;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "nfpvz:d:Vh", long_opts,
				NULL)) != -1) {
		err = parse_one(c, opt);
		if (err)
			return err;
	}
	if (opt->help || opt->version)
		return 0;
	if (optind != argc - 1)
		return opt->bad = optind < argc ? "extra argument" :
			"missing device", EINVAL;
	if (opt->undo_file && !*opt->undo_file)
		return opt->bad = "-z", EINVAL;
	opt->spec = argv[optind];
	return 0;
}
