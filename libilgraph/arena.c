/* Arena allocation for instruction graphs: nodes are never freed one by one, so a method's
 * whole graph goes with one walk over a few chunks. */
#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

struct il_arena_chunk {
    struct il_arena_chunk *prev;
    size_t size; /* bytes of data */
    alignas(max_align_t) unsigned char data[];
};

#define FIRST_CHUNK 4096u
#define MAX_CHUNK (1u << 20)

/* The process keeps one chunk of a finished arena, of at most KEPT_CHUNK bytes, for the first
 * chunk of the next arena: decoding one method after another, with a new graph for each (the
 * engine), then takes memory from malloc only when a method needs more than the biggest one
 * before it. The slot is only ever swapped atomically, so each chunk has one owner; threads
 * that meet there fall back to malloc. Under AddressSanitizer the kept chunk is poisoned, so
 * a graph used after its free is still caught. */
#define KEPT_CHUNK (64u << 10)
static _Atomic(struct il_arena_chunk *) kept_chunk;

/* The kept chunk if it holds size bytes (one too small is freed: the chunk taken instead is
 * bigger, and is kept in its place later); NULL otherwise. */
static struct il_arena_chunk *take_kept(size_t size)
{
    if (!atomic_load_explicit(&kept_chunk, memory_order_relaxed))
        return NULL;
    struct il_arena_chunk *c = atomic_exchange_explicit(&kept_chunk, NULL, memory_order_acquire);
    if (c && c->size < size) {
        free(c);
        return NULL;
    }
    if (c)
        UNPOISON(c->data, c->size);
    return c;
}

/* Keeps c if it is no bigger than KEPT_CHUNK, in place of a smaller kept one; frees what it
 * does not keep. Once c is in the slot it belongs to whichever thread takes it next (which
 * may free it at once), so nothing of c is read after the swap. */
static void keep(struct il_arena_chunk *c)
{
    size_t size = c->size;
    if (size > KEPT_CHUNK) {
        free(c);
        return;
    }
    POISON(c->data, size);
    struct il_arena_chunk *old = atomic_exchange_explicit(&kept_chunk, c, memory_order_acq_rel);
    if (old && old->size > size) /* put the bigger one back */
        old = atomic_exchange_explicit(&kept_chunk, old, memory_order_acq_rel);
    free(old);
}

/* A new chunk of cap bytes; NULL on ENOMEM. */
static struct il_arena_chunk *new_chunk(size_t cap)
{
    struct il_arena_chunk *c = malloc(sizeof(*c) + cap);
    if (c)
        c->size = cap;
    return c;
}

void *il_arena_new_within(size_t first_chunk, size_t size, size_t arena_at)
{
    const size_t align = alignof(max_align_t);
    if (size > SIZE_MAX / 2)
        return NULL;
    size = (size + align - 1) & ~(align - 1);
    size_t cap = first_chunk == 0 ? FIRST_CHUNK : first_chunk;
    if (cap < size)
        cap = size;
    struct il_arena_chunk *c = take_kept(cap);
    if (!c)
        c = new_chunk(cap);
    if (!c)
        return NULL;
    c->prev = NULL;
    /* Written where it lives, field by field: an arena built elsewhere and copied in would
     * be read back, in 16-byte loads, from the 8-byte stores that just wrote it, which the
     * processor cannot forward. After a first chunk sized for its content (a decoded
     * method), more is wanted for edits: later chunks start small, then grow. */
    struct il_arena *a = (struct il_arena *)(void *)(c->data + arena_at);
    a->head = c;
    a->base = c->data;
    a->used = size;
    a->size = c->size;
    a->next_size = FIRST_CHUNK;
    a->spare = NULL;
    return c->data;
}

static void free_chunks(struct il_arena_chunk *c)
{
    while (c) {
        struct il_arena_chunk *prev = c->prev;
        free(c);
        c = prev;
    }
}

/* Takes the biggest chunk of at most limit bytes out of the list at *list; NULL if there is
 * none. */
static struct il_arena_chunk *unlink_biggest(struct il_arena_chunk **list, size_t limit)
{
    struct il_arena_chunk **best = NULL;
    for (struct il_arena_chunk **p = list; *p; p = &(*p)->prev)
        if ((*p)->size <= limit && (!best || (*p)->size > (*best)->size))
            best = p;
    if (!best)
        return NULL;
    struct il_arena_chunk *c = *best;
    *best = c->prev;
    return c;
}

void il_arena_finish(struct il_arena *a)
{
    struct il_arena_chunk *c = unlink_biggest(&a->head, KEPT_CHUNK);
    struct il_arena_chunk *s = unlink_biggest(&a->spare, KEPT_CHUNK);
    if (c && s && s->size > c->size) {
        struct il_arena_chunk *t = c;
        c = s;
        s = t;
    }
    free(s);
    if (c)
        keep(c);
    free_chunks(a->head);
    free_chunks(a->spare);
    *a = (struct il_arena){.next_size = FIRST_CHUNK};
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
    struct il_arena_chunk *c = unlink_biggest(&a->spare, SIZE_MAX);
    if (c && c->size < size) {
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
        c = new_chunk(a->next_size > size ? a->next_size : size);
        if (!c)
            return NULL;
        if (a->next_size < MAX_CHUNK)
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
