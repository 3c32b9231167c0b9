/* Where a body's objects live: the chunks of memory they are carved from (freed with the body),
 * the pointer tables that find the object of a node or clause, and libilgraph's error codes as
 * the HRESULTs plugins see. The bottom of the IL objects: it calls none of them. */
#include "il_private.h"

#include <errno.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

/* ---- pointer table ---- */

static size_t slot_of(const void *key, size_t capacity)
{
    uint64_t h = (uint64_t)(uintptr_t)key * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 32) & (capacity - 1);
}

void *clrie_pm__il_ptr_map_get(const struct il_ptr_map *map, const void *key)
{
    if (!map->capacity)
        return NULL;
    for (size_t i = slot_of(key, map->capacity);; i = (i + 1) & (map->capacity - 1)) {
        if (map->slots[i].key == key)
            return map->slots[i].value;
        if (!map->slots[i].key)
            return NULL;
    }
}

static void put_slot(struct il_ptr_slot *slots, size_t capacity, void *key, void *value)
{
    size_t i = slot_of(key, capacity);
    while (slots[i].key && slots[i].key != key)
        i = (i + 1) & (capacity - 1);
    slots[i] = (struct il_ptr_slot){key, value};
}

int clrie_pm__il_ptr_map_reserve(struct il_ptr_map *map, size_t count)
{
    /* Load factor at most 1/2 keeps probes short and guarantees an empty slot. */
    if (count * 2 <= map->capacity)
        return 0;
    size_t capacity = map->capacity ? map->capacity : 16;
    while (capacity < count * 2)
        capacity *= 2;
    struct il_ptr_slot *slots = calloc(capacity, sizeof(*slots));
    if (!slots)
        return -ENOMEM;
    for (size_t i = 0; i < map->capacity; i++)
        if (map->slots[i].key)
            put_slot(slots, capacity, map->slots[i].key, map->slots[i].value);
    free(map->slots);
    map->slots = slots;
    map->capacity = capacity;
    return 0;
}

int clrie_pm__il_ptr_map_put(struct il_ptr_map *map, void *key, void *value)
{
    if (clrie_pm__il_ptr_map_reserve(map, map->count + 1) < 0)
        return -ENOMEM;
    put_slot(map->slots, map->capacity, key, value);
    map->count++;
    return 0;
}

void clrie_pm__il_ptr_map_finish(struct il_ptr_map *map)
{
    free(map->slots);
    memset(map, 0, sizeof(*map));
}

/* ---- object memory ---- */

struct il_chunk {
    struct il_chunk *next;
    size_t size;
    alignas(max_align_t) unsigned char data[];
};

#define CHUNK_SIZE 8192u

void *clrie_pm__il_alloc(struct il_body *body, size_t size)
{
    size = (size + alignof(max_align_t) - 1) & ~(alignof(max_align_t) - 1);
    struct il_chunk *c = body->chunks;
    if (!c || c->size - body->chunk_used < size) {
        size_t cap = size > CHUNK_SIZE ? size : CHUNK_SIZE;
        c = malloc(sizeof(*c) + cap);
        if (!c)
            return NULL;
        c->size = cap;
        c->next = body->chunks;
        body->chunks = c;
        body->chunk_used = 0;
    }
    void *p = c->data + body->chunk_used;
    body->chunk_used += size;
    memset(p, 0, size);
    return p;
}

void clrie_pm__il_alloc_finish(struct il_body *body)
{
    while (body->chunks) {
        struct il_chunk *c = body->chunks;
        body->chunks = c->next;
        free(c);
    }
    body->chunk_used = 0;
}

/* ---- errors ---- */

HRESULT clrie_pm__il_too_late(struct il_body *body, const char *call)
{
    IL_LOG(body,
           "%s: %s called after the method's instrumentation was over (E_UNEXPECTED); the "
           "plugin kept an IL object past its callback, and the edit cannot reach the runtime",
           clrie_pm_log_name_get(&body->method_name), call);
    return E_UNEXPECTED;
}

HRESULT clrie_pm__il_hresult(int err)
{
    switch (err) {
    case 0:
        return S_OK;
    case -ENOMEM:
        return E_OUTOFMEMORY;
    case -ENOTSUP:
        return E_NOTIMPL;
    case -EILSEQ:
        return E_FAIL;
    default:
        return E_INVALIDARG;
    }
}
