/* Answers about a module's tokens, kept for its other methods (see token_answers.h). */
#include "token_answers.h"

#include <stdlib.h>

struct clrie_pm__token_answer {
    uint64_t key; /* question << 32 | token; 0: empty */
    int answer;
};

void clrie_pm_token_answers_init(struct clrie_pm_token_answers *a)
{
    clrie_os_mutex_init(&a->lock);
    a->slots = NULL;
    a->capacity = a->count = 0;
}

void clrie_pm_token_answers_finish(struct clrie_pm_token_answers *a)
{
    if (!a)
        return;
    free(a->slots);
    a->slots = NULL;
    a->capacity = a->count = 0;
    clrie_os_mutex_finish(&a->lock);
}

static uint64_t key_of(enum clrie_pm_token_question question, uint32_t token)
{
    return (uint64_t)question << 32 | token;
}

/* The slot of key, or the empty slot where it would go (capacity > 0, under the lock). */
static struct clrie_pm__token_answer *slot_of(struct clrie_pm__token_answer *slots, size_t capacity,
                                              uint64_t key)
{
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    for (size_t i = (size_t)(h >> 32) & (capacity - 1);; i = (i + 1) & (capacity - 1))
        if (slots[i].key == key || slots[i].key == 0)
            return &slots[i];
}

bool clrie_pm_token_answers_get(struct clrie_pm_token_answers *a,
                                enum clrie_pm_token_question question, uint32_t token, int *answer)
{
    if (!a)
        return false;
    bool found = false;
    clrie_os_mutex_lock(&a->lock);
    if (a->capacity) {
        const struct clrie_pm__token_answer *s =
            slot_of(a->slots, a->capacity, key_of(question, token));
        if (s->key) {
            *answer = s->answer;
            found = true;
        }
    }
    clrie_os_mutex_unlock(&a->lock);
    return found;
}

/* Room for one more key at a load of at most one half (under the lock); false: out of memory. */
static bool reserve(struct clrie_pm_token_answers *a)
{
    if ((a->count + 1) * 2 <= a->capacity)
        return true;
    size_t capacity = a->capacity ? a->capacity * 2 : 64;
    struct clrie_pm__token_answer *slots = calloc(capacity, sizeof(*slots));
    if (!slots)
        return false;
    for (size_t i = 0; i < a->capacity; i++)
        if (a->slots[i].key)
            *slot_of(slots, capacity, a->slots[i].key) = a->slots[i];
    free(a->slots);
    a->slots = slots;
    a->capacity = capacity;
    return true;
}

void clrie_pm_token_answers_put(struct clrie_pm_token_answers *a,
                                enum clrie_pm_token_question question, uint32_t token, int answer)
{
    if (!a)
        return;
    uint64_t key = key_of(question, token);
    clrie_os_mutex_lock(&a->lock);
    if (reserve(a)) {
        struct clrie_pm__token_answer *s = slot_of(a->slots, a->capacity, key);
        if (!s->key)
            a->count++;
        *s = (struct clrie_pm__token_answer){key, answer};
    }
    clrie_os_mutex_unlock(&a->lock);
}
