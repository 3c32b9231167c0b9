/* The containers of the data model: object lists, ID maps, and the UTF-16 strings objects own. */
#include "domains_private.h"

#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "utf16.h"

int clrie_pm_ptr_list_reserve(struct clrie_pm_ptr_list *list, size_t extra)
{
    if (list->capacity - list->count >= extra)
        return 0;
    size_t capacity = list->capacity ? list->capacity : 4;
    while (capacity - list->count < extra) {
        if (capacity > SIZE_MAX / 2 / sizeof(void *))
            return -ENOMEM;
        capacity *= 2;
    }
    void **items = realloc(list->items, capacity * sizeof(void *));
    if (!items)
        return -ENOMEM;
    list->items = items;
    list->capacity = capacity;
    return 0;
}

void clrie_pm_ptr_list_append(struct clrie_pm_ptr_list *list, void *item)
{
    assert(list->count < list->capacity);
    list->items[list->count++] = item;
}

bool clrie_pm_ptr_list_remove(struct clrie_pm_ptr_list *list, void *item)
{
    for (size_t i = 0; i < list->count; i++) {
        if (list->items[i] == item) {
            memmove(&list->items[i], &list->items[i + 1], (list->count - i - 1) * sizeof(void *));
            list->count--;
            return true;
        }
    }
    return false;
}

void clrie_pm_ptr_list_finish(struct clrie_pm_ptr_list *list)
{
    free(list->items);
    list->items = NULL;
    list->count = list->capacity = 0;
}

/* IDs are addresses: drop the alignment bits and mix the rest. */
static size_t slot_of(UINT_PTR id, size_t capacity)
{
    uint64_t h = (uint64_t)id;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return (size_t)h & (capacity - 1);
}

void *clrie_pm_id_map_get(const struct clrie_pm_id_map *map, UINT_PTR id)
{
    if (map->capacity == 0 || id == 0)
        return NULL;
    for (size_t i = slot_of(id, map->capacity);; i = (i + 1) & (map->capacity - 1)) {
        if (map->slots[i].id == id)
            return map->slots[i].value;
        if (map->slots[i].id == 0)
            return NULL;
    }
}

static void put_slot(struct clrie_pm_id_slot *slots, size_t capacity, UINT_PTR id, void *value)
{
    size_t i = slot_of(id, capacity);
    while (slots[i].id != 0)
        i = (i + 1) & (capacity - 1);
    slots[i].id = id;
    slots[i].value = value;
}

int clrie_pm_id_map_reserve(struct clrie_pm_id_map *map)
{
    /* Load factor at most 1/2 keeps probes short and guarantees an empty slot. */
    if ((map->count + 1) * 2 <= map->capacity)
        return 0;
    size_t capacity = map->capacity ? map->capacity * 2 : 16;
    if (capacity > SIZE_MAX / sizeof(struct clrie_pm_id_slot))
        return -ENOMEM;
    struct clrie_pm_id_slot *slots = calloc(capacity, sizeof(*slots));
    if (!slots)
        return -ENOMEM;
    for (size_t i = 0; i < map->capacity; i++)
        if (map->slots[i].id != 0)
            put_slot(slots, capacity, map->slots[i].id, map->slots[i].value);
    free(map->slots);
    map->slots = slots;
    map->capacity = capacity;
    return 0;
}

void clrie_pm_id_map_put(struct clrie_pm_id_map *map, UINT_PTR id, void *value)
{
    assert(id != 0 && (map->count + 1) * 2 <= map->capacity);
    assert(clrie_pm_id_map_get(map, id) == NULL);
    put_slot(map->slots, map->capacity, id, value);
    map->count++;
}

void *clrie_pm_id_map_remove(struct clrie_pm_id_map *map, UINT_PTR id)
{
    if (map->capacity == 0 || id == 0)
        return NULL;
    size_t mask = map->capacity - 1;
    size_t i = slot_of(id, map->capacity);
    while (map->slots[i].id != id) {
        if (map->slots[i].id == 0)
            return NULL;
        i = (i + 1) & mask;
    }
    void *value = map->slots[i].value;
    /* Backward-shift deletion: pull later entries of the probe run into the hole so lookups
     * never stop early, without tombstones. */
    size_t hole = i;
    for (size_t j = (i + 1) & mask; map->slots[j].id != 0; j = (j + 1) & mask) {
        size_t home = slot_of(map->slots[j].id, map->capacity);
        /* The entry at j may move to the hole if its home is not in (hole, j], cyclically. */
        bool stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
        if (!stays) {
            map->slots[hole] = map->slots[j];
            hole = j;
        }
    }
    map->slots[hole].id = 0;
    map->slots[hole].value = NULL;
    map->count--;
    return value;
}

void clrie_pm_id_map_finish(struct clrie_pm_id_map *map)
{
    free(map->slots);
    map->slots = NULL;
    map->count = map->capacity = 0;
}

HRESULT clrie_pm_text_to_bstr(const char16_t *text, size_t len, BSTR *out)
{
    if (!out)
        return E_POINTER;
    *out = clrie_pm_bstr_new(text, len);
    return *out ? S_OK : E_OUTOFMEMORY;
}

bool clrie_pm_text_equal(const char16_t *a, size_t a_len, const char16_t *b)
{
    size_t b_len = clrie_pm_utf16_len(b);
    return a_len == b_len && (a_len == 0 || memcmp(a, b, a_len * sizeof(char16_t)) == 0);
}

void clrie_pm_text_finish(struct clrie_pm_text *text)
{
    free(text->text);
    text->text = NULL;
    text->len = 0;
}
