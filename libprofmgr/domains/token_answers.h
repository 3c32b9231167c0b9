/* Answers about a module's tokens that its methods ask again and again, found once.
 *
 * The verifier asks, for each method it checks, what each value type it meets is (a category
 * read from the type's name, its base type and an enum's value__ field) and whether each field
 * is static. Every method of a module asks about the same few hundred tokens, and each answer
 * costs several metadata reads; here the first answer is kept for the module's other methods.
 * A token's answer never changes: metadata rows are only ever added.
 *
 * Threads. One lock guards the table; it is held only to look up or store, never while reading
 * metadata. Two threads that ask about one token at once may both read it and store the same
 * answer. */
#ifndef CLRIE_PM_TOKEN_ANSWERS_H
#define CLRIE_PM_TOKEN_ANSWERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clrie/os/thread.h"

/* The questions; each token has one answer per question. */
enum clrie_pm_token_question {
    CLRIE_PM_ASK_VALUE_TYPE = 1, /* struct clrie_il_metadata's value_type */
    CLRIE_PM_ASK_FIELD_STATIC,   /* struct clrie_il_metadata's field_is_static */
};

struct clrie_pm__token_answer;

struct clrie_pm_token_answers {
    struct clrie_os_mutex lock;
    struct clrie_pm__token_answer *slots; /* open addressing; key 0 is an empty slot */
    size_t capacity, count;               /* capacity: 0 or a power of two */
};

void clrie_pm_token_answers_init(struct clrie_pm_token_answers *a);
/* Frees the table; nobody may be asking any more. NULL is fine. */
void clrie_pm_token_answers_finish(struct clrie_pm_token_answers *a);

/* The answer kept for (question, token): true and *answer, or false. a may be NULL (nothing is
 * kept). */
bool clrie_pm_token_answers_get(struct clrie_pm_token_answers *a,
                                enum clrie_pm_token_question question, uint32_t token, int *answer);
/* Keeps answer for (question, token); out of memory, it is simply not kept. a may be NULL. */
void clrie_pm_token_answers_put(struct clrie_pm_token_answers *a,
                                enum clrie_pm_token_question question, uint32_t token, int answer);

#endif
