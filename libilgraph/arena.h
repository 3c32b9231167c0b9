/* A bump allocator: many small blocks, freed all at once. One per graph. */
#ifndef CLRIE_ILGRAPH_ARENA_H
#define CLRIE_ILGRAPH_ARENA_H

#include <stddef.h>

struct il_arena_chunk;

struct il_arena {
    struct il_arena_chunk *head;
    size_t used, size; /* of the head chunk */
    size_t next_size;  /* capacity of the next chunk (grows geometrically) */
};

void il_arena_init(struct il_arena *a);
void il_arena_finish(struct il_arena *a);
/* Zeroed, aligned for any object; NULL on ENOMEM or overflow. */
void *il_arena_alloc(struct il_arena *a, size_t size);
/* n * size, checking for overflow. */
void *il_arena_array(struct il_arena *a, size_t n, size_t size);

#endif
