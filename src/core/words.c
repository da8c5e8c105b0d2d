/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * words.c --- the values of the options that take a word
 *
 * Each list is in the order of its enum (core/records.h), which is the
 * order the usage, the report, the completion and the man page show.
 * A value that goes away goes from here, and cli.c then rejects it with
 * the values left.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdio.h>
#include <string.h>

#include "core/words.h"
#include "core/records.h"

static const char *const home_words[] = {
	[E3MP_HOME_INODE] = "inode",
	[E3MP_HOME_DATA] = "data",
	[E3MP_HOME_INLINE] = "inline",
	NULL
};

static const char *const order_words[] = {
	[E3MP_ORDER_FSCK] = "fsck",
	[E3MP_ORDER_DELETE] = "delete",
	NULL
};

static const char *const dirs_words[] = {
	[E3MP_DIRS_LEAVE] = "leave",
	[E3MP_DIRS_PACK] = "pack",
	[E3MP_DIRS_ROOTS] = "roots",
	[E3MP_DIRS_VOLUME] = "volume",
	NULL
};

const struct mp_words mp_words[MP_WORDS_COUNT] = {
	[MP_WORDS_HOME] = { "--home", home_words },
	[MP_WORDS_ORDER] = { "--order", order_words },
	[MP_WORDS_DIRS] = { "--dirs", dirs_words },
};

const char *mp_word(enum mp_word_option o, unsigned int v)
{
	return mp_words[o].word[v];
}

int mp_word_value(enum mp_word_option o, const char *s, unsigned long *v)
{
	const char *const *w = mp_words[o].word;

	for (*v = 0; w[*v]; ++*v)
		if (!strcmp(s, w[*v]))
			return 0;
	return 1;
}

void mp_words_join(enum mp_word_option o, const char *sep, char *buf,
		   size_t len)
{
	const char *const *w = mp_words[o].word;
	size_t at = 0;
	unsigned int i;

	buf[0] = 0;
	for (i = 0; w[i] && at < len; i++)
		at += snprintf(buf + at, len - at, "%s%s", i ? sep : "",
			       w[i]);
}
