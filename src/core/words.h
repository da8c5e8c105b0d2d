/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * words.h --- the values of the options that take a word (words.c)
 *
 * One table: cli.c parses by it and prints the usage from it, report.c
 * names the values in force by it, and tests/t0010-completion.sh holds
 * the bash completion and the man page to it, in its order.
 */
#ifndef E3MP_WORDS_H
#define E3MP_WORDS_H

#include <stddef.h>

/* The options with words, in the order of mp_words[]. */
enum mp_word_option {
	MP_WORDS_HOME = 0,	/* --home, by enum e3mp_homing */
	MP_WORDS_ORDER,		/* --order, by enum e3mp_order */
	MP_WORDS_DIRS,		/* --dirs, by enum e3mp_dirs */
	MP_WORDS_COUNT
};

struct mp_words {
	const char		*option;	/* "--home" */
	const char *const	*word;		/* NULL-terminated, by value */
};

extern const struct mp_words mp_words[MP_WORDS_COUNT];

/* The word of value @v of option @o. */
const char *mp_word(enum mp_word_option o, unsigned int v);

/* The value of word @s of option @o in *@v; 1: not one of them. */
int mp_word_value(enum mp_word_option o, const char *s, unsigned long *v);

/* Option @o's words joined by @sep ("inode|data|inline") into @buf. */
void mp_words_join(enum mp_word_option o, const char *sep, char *buf,
		   size_t len);

#endif /* E3MP_WORDS_H */
