/* Arena allocation for instruction graphs: nodes are never freed one by one, so a method's
 * whole graph goes with one walk over a few chunks. */
#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

struct il_arena_chunk {
    struct il_arena_chunk *prev;
    alignas(max_align_t) unsigned char data[];
};

#define FIRST_CHUNK 4096u
#define MAX_CHUNK (1u << 20)

void il_arena_init(struct il_arena *a, size_t first_chunk)
{
    a->head = NULL;
    a->base = NULL;
    a->used = 0;
    a->size = 0;
    a->next_size = first_chunk == 0          ? FIRST_CHUNK
                   : first_chunk > MAX_CHUNK ? MAX_CHUNK
                                             : first_chunk;
}

void il_arena_finish(struct il_arena *a)
{
    struct il_arena_chunk *c = a->head;
    while (c) {
        struct il_arena_chunk *prev = c->prev;
        free(c);
        c = prev;
    }
    il_arena_init(a, 0);
}

void *il_arena_alloc_chunk(struct il_arena *a, size_t size)
{
    /* size is already rounded by il_arena_alloc. A big request gets a chunk of its own
     * size, so it does not waste the rest of a geometric chunk. */
    size_t cap = a->next_size;
    if (cap < size)
        cap = size;
    struct il_arena_chunk *c = malloc(sizeof(*c) + cap);
    if (!c)
        return NULL;
    c->prev = a->head;
    a->head = c;
    a->base = c->data;
    a->used = 0;
    a->size = cap;
    if (a->next_size < FIRST_CHUNK / 2)
        a->next_size = FIRST_CHUNK; /* a small first chunk ran out: an edit is under way */
    else if (a->next_size < MAX_CHUNK)
        a->next_size *= 2;
    a->used = size;
    return a->base;
}

void *il_arena_array(struct il_arena *a, size_t n, size_t size)
{
    if (size != 0 && n > SIZE_MAX / size)
        return NULL;
    return il_arena_alloc(a, n * size);
}

void *il_arena_take_array(struct il_arena *a, size_t n, size_t size)
{
    if (size != 0 && n > SIZE_MAX / size)
        return NULL;
    return il_arena_take(a, n * size);
}
