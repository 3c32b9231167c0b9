/* Arena allocation for instruction graphs: nodes are never freed one by one, so a method's
 * whole graph goes with one walk over a few chunks. */
#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

struct il_arena_chunk {
    struct il_arena_chunk *prev;
    size_t size; /* bytes of data */
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
    a->next_size = first_chunk == 0 ? FIRST_CHUNK : first_chunk;
    a->spare = NULL;
}

static void free_chunks(struct il_arena_chunk *c)
{
    while (c) {
        struct il_arena_chunk *prev = c->prev;
        free(c);
        c = prev;
    }
}

void il_arena_finish(struct il_arena *a)
{
    free_chunks(a->head);
    free_chunks(a->spare);
    il_arena_init(a, 0);
}

void il_arena_reset(struct il_arena *a, size_t keep)
{
    const size_t align = alignof(max_align_t);
    struct il_arena_chunk *c = a->head;
    if (!c)
        return;
    while (c->prev) {
        struct il_arena_chunk *prev = c->prev;
        c->prev = a->spare;
        a->spare = c;
        c = prev;
    }
    a->head = c;
    a->base = c->data;
    a->size = c->size;
    a->used = (keep + align - 1) & ~(align - 1);
}

/* The biggest spare chunk if it holds size bytes; a smaller biggest one is freed, since
 * the chunk taken instead will be bigger. NULL if there is none to use. */
static struct il_arena_chunk *take_spare(struct il_arena *a, size_t size)
{
    struct il_arena_chunk **best = NULL;
    for (struct il_arena_chunk **p = &a->spare; *p; p = &(*p)->prev)
        if (!best || (*p)->size > (*best)->size)
            best = p;
    if (!best)
        return NULL;
    struct il_arena_chunk *c = *best;
    *best = c->prev;
    if (c->size < size) {
        free(c);
        return NULL;
    }
    return c;
}

void *il_arena_alloc_chunk(struct il_arena *a, size_t size)
{
    /* size is already rounded by il_arena_alloc. A big request gets a chunk of its own
     * size, so it does not waste the rest of a geometric chunk. */
    struct il_arena_chunk *c = take_spare(a, size);
    if (!c) {
        size_t cap = a->next_size;
        if (cap < size)
            cap = size;
        c = malloc(sizeof(*c) + cap);
        if (!c)
            return NULL;
        c->size = cap;
        /* After a first chunk sized for its content (a decoded method), more is wanted
         * for edits: start small again, then grow geometrically. */
        if (!a->head && a->spare == NULL)
            a->next_size = FIRST_CHUNK;
        else if (a->next_size < MAX_CHUNK)
            a->next_size *= 2;
    }
    c->prev = a->head;
    a->head = c;
    a->base = c->data;
    a->size = c->size;
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
