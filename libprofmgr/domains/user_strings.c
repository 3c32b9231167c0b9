/* The #US heap's entry starts of one module (user_strings.h).
 *
 * A block is the sorted array of every entry start the walks have found so far, and `end`, the
 * offset where the last walk stopped (recorded as a start itself: the next string defined begins
 * there). Offsets up to `end` are decided by a binary search. A block grows in place while it has
 * room: readers never look past `count`, which is stored before `end`, so a reader that sees the
 * new `end` also sees the entries below it. A block without room is copied into one twice its
 * size, which is then published; the old one is retired until finish, because a reader may still
 * be searching it (the retired blocks together are smaller than the live one). */
#include "user_strings.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct clrie_pm__us_block {
    struct clrie_pm__us_block *retired_next; /* under the lock */
    size_t capacity;
    _Atomic size_t count;
    _Atomic ULONG end;
    ULONG starts[]; /* sorted, strictly increasing; starts[0] is 0 */
};

#define FIRST_CAPACITY 256

void clrie_pm_user_strings_init(struct clrie_pm_user_strings *us)
{
    atomic_init(&us->current, NULL);
    clrie_os_mutex_init(&us->lock);
    us->retired = NULL;
}

void clrie_pm_user_strings_finish(struct clrie_pm_user_strings *us)
{
    if (!us)
        return;
    free(atomic_load_explicit(&us->current, memory_order_relaxed));
    for (struct clrie_pm__us_block *b = us->retired, *next; b; b = next) {
        next = b->retired_next;
        free(b);
    }
    clrie_os_mutex_finish(&us->lock);
}

static struct clrie_pm__us_block *block_new(size_t capacity)
{
    if (capacity > (SIZE_MAX - sizeof(struct clrie_pm__us_block)) / sizeof(ULONG))
        return NULL;
    struct clrie_pm__us_block *b =
        malloc(sizeof(struct clrie_pm__us_block) + capacity * sizeof(ULONG));
    if (!b)
        return NULL;
    b->retired_next = NULL;
    b->capacity = capacity;
    atomic_init(&b->count, 0);
    atomic_init(&b->end, 0);
    return b;
}

/* Whether offset is one of the first count starts of b. */
static bool search(const struct clrie_pm__us_block *b, size_t count, ULONG offset)
{
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (b->starts[mid] < offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < count && b->starts[lo] == offset;
}

/* Walks on from where *block's walk stopped (from 0 for none) to the end of the heap, adding the
 * starts found, and publishes the result. Call with the lock. 0, -ENOENT (the heap cannot be
 * walked at all) or -ENOMEM. */
static int walk_on(struct clrie_pm_user_strings *us, IMetaDataTables *tables)
{
    struct clrie_pm__us_block *old = atomic_load_explicit(&us->current, memory_order_relaxed);
    struct clrie_pm__us_block *b = old;
    size_t count = b ? atomic_load_explicit(&b->count, memory_order_relaxed) : 0;
    ULONG at = b ? atomic_load_explicit(&b->end, memory_order_relaxed) : 0;
    if (!b) {
        if (!(b = block_new(FIRST_CAPACITY)))
            return -ENOMEM;
        b->starts[count++] = 0;
    }
    for (;;) {
        ULONG next = 0;
        if (tables->lpVtbl->GetNextUserString(tables, at, &next) != S_OK || next <= at)
            break;
        if (count == b->capacity) {
            struct clrie_pm__us_block *bigger = block_new(b->capacity * 2);
            if (!bigger) {
                if (b != old)
                    free(b);
                return -ENOMEM;
            }
            memcpy(bigger->starts, b->starts, count * sizeof(ULONG));
            if (b != old)
                free(b);
            b = bigger;
        }
        b->starts[count++] = at = next;
    }
    if (!old && count == 1) {
        free(b);
        return -ENOENT; /* no walk at all */
    }
    atomic_store_explicit(&b->count, count, memory_order_release);
    atomic_store_explicit(&b->end, at, memory_order_release);
    if (b != old) {
        atomic_store_explicit(&us->current, b, memory_order_release);
        if (old) {
            old->retired_next = us->retired;
            us->retired = old;
        }
    }
    return 0;
}

int clrie_pm_user_strings_starts(struct clrie_pm_user_strings *us, IMetaDataTables *tables,
                                 ULONG offset)
{
    ULONG heap_size = 0;
    if (FAILED(tables->lpVtbl->GetUserStringHeapSize(tables, &heap_size)))
        return -ENOENT;
    if (offset >= heap_size)
        return 0;
    struct clrie_pm__us_block *b = atomic_load_explicit(&us->current, memory_order_acquire);
    if (b && offset <= atomic_load_explicit(&b->end, memory_order_acquire))
        return search(b, atomic_load_explicit(&b->count, memory_order_acquire), offset);

    /* Not covered yet: the first question of the module, or a string defined since. */
    clrie_os_mutex_lock(&us->lock);
    int rc = 0;
    b = atomic_load_explicit(&us->current, memory_order_relaxed);
    if (!b || offset > atomic_load_explicit(&b->end, memory_order_relaxed))
        rc = walk_on(us, tables);
    if (rc == 0) {
        b = atomic_load_explicit(&us->current, memory_order_relaxed);
        rc = search(b, atomic_load_explicit(&b->count, memory_order_relaxed), offset);
    }
    clrie_os_mutex_unlock(&us->lock);
    return rc;
}
