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
        if (map->keys[i] == key)
            return map->values[i];
        if (!map->keys[i])
            return NULL;
    }
}

static void put_slot(void **keys, void **values, size_t capacity, void *key, void *value)
{
    size_t i = slot_of(key, capacity);
    while (keys[i] && keys[i] != key)
        i = (i + 1) & (capacity - 1);
    keys[i] = key;
    values[i] = value;
}

int clrie_pm__il_ptr_map_put(struct il_ptr_map *map, void *key, void *value)
{
    if ((map->count + 1) * 2 > map->capacity) {
        size_t capacity = map->capacity ? map->capacity * 2 : 16;
        void **keys = calloc(capacity, sizeof(*keys));
        void **values = calloc(capacity, sizeof(*values));
        if (!keys || !values) {
            free(keys);
            free(values);
            return -ENOMEM;
        }
        for (size_t i = 0; i < map->capacity; i++)
            if (map->keys[i])
                put_slot(keys, values, capacity, map->keys[i], map->values[i]);
        free(map->keys);
        free(map->values);
        map->keys = keys;
        map->values = values;
        map->capacity = capacity;
    }
    put_slot(map->keys, map->values, map->capacity, key, value);
    map->count++;
    return 0;
}

void clrie_pm__il_ptr_map_finish(struct il_ptr_map *map)
{
    free(map->keys);
    free(map->values);
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
