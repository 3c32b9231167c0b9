/* A bump allocator: many small blocks, freed all at once. One per graph. */
#ifndef CLRIE_ILGRAPH_ARENA_H
#define CLRIE_ILGRAPH_ARENA_H

#include <stddef.h>

#include "private_names.h"

struct il_arena_chunk;

struct il_arena {
    struct il_arena_chunk *head;  /* allocations come from here; older chunks via prev */
    unsigned char *base;          /* the head chunk's data */
    size_t used, size;            /* of the head chunk */
    size_t next_size;             /* capacity of the next chunk (grows geometrically) */
    struct il_arena_chunk *spare; /* chunks emptied by il_arena_reset, for reuse */
};

/* Makes an arena that lives in its own first allocation, for an object that owns the arena
 * it is allocated from (a graph): takes a first chunk of first_chunk bytes or more (0: a
 * default; a caller that knows roughly what it will allocate gets it in one chunk), and
 * returns its first size bytes, in which the arena is set up at offset arena_at; the rest of
 * those bytes is the caller's to write. NULL on ENOMEM. Later chunks grow geometrically. */
void *il_arena_new_within(size_t first_chunk, size_t size, size_t arena_at);
/* Frees every chunk, the one holding a included (callers copy a out first); a is left an
 * empty arena. */
void il_arena_finish(struct il_arena *a);
/* Frees everything allocated except the first keep bytes of the first chunk, keeping the
 * chunks for the next allocations: an arena reused for many graphs stops calling malloc
 * once its chunks fit the biggest of them. */
void il_arena_reset(struct il_arena *a, size_t keep);
#include <stdalign.h>
#include <stdint.h>
#include <string.h>

/* Takes a new chunk and allocates from it (the slow path of il_arena_take). */
void *il_arena_alloc_chunk(struct il_arena *a, size_t size);

/* Uninitialised, aligned for any object; NULL on ENOMEM or overflow. For storage the
 * caller writes in full before reading it. */
static inline void *il_arena_take(struct il_arena *a, size_t size)
{
    const size_t align = alignof(max_align_t);
    if (size > SIZE_MAX / 2)
        return NULL;
    size = (size + align - 1) & ~(align - 1);
    if (!a->head || a->size - a->used < size)
        return il_arena_alloc_chunk(a, size);
    void *p = a->base + a->used;
    a->used += size;
    return p;
}

/* Zeroed, aligned for any object; NULL on ENOMEM or overflow. */
static inline void *il_arena_alloc(struct il_arena *a, size_t size)
{
    void *p = il_arena_take(a, size);
    if (p)
        memset(p, 0, size);
    return p;
}

/* n * size, checking for overflow: zeroed (il_arena_array) or not (il_arena_take_array). */
void *il_arena_array(struct il_arena *a, size_t n, size_t size);
void *il_arena_take_array(struct il_arena *a, size_t n, size_t size);

#endif
