/* The manager's shared state, below every other file of the folder: its plugin list (publishing
 * a new one, entering and leaving it, retiring and releasing the plugins) and the event mask it
 * asks the runtime for. The manager is created and destroyed by callbacks.c. */
#include "manager.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct plugin_list *clrie_pm__manager_plugins(struct manager *m)
{
    return atomic_load_explicit(&m->plugins, memory_order_acquire);
}

HRESULT clrie_pm__manager_publish_plugins(struct manager *m, struct plugin *added,
                                          struct plugin *removed)
{
    struct plugin_list *old = clrie_pm__manager_plugins(m);
    struct plugin_list *list = malloc(sizeof(*list) + (old->count + 1) * sizeof(list->items[0]));
    if (!list)
        return E_OUTOFMEMORY;
    list->count = 0;
    list->retired_next = NULL;
    for (size_t i = 0; i <= old->count; i++) {
        bool added_goes_here = added && (i == old->count || old->items[i]->order > added->order);
        if (added_goes_here) {
            list->items[list->count++] = added;
            added = NULL;
        }
        if (i < old->count && old->items[i] != removed)
            list->items[list->count++] = old->items[i];
    }
    atomic_store_explicit(&m->plugins, list, memory_order_release);
    /* Readers may still walk the old list: it is freed with the manager. */
    old->retired_next = m->retired;
    m->retired = old;
    return S_OK;
}

struct plugin_list *clrie_pm__manager_plugins_enter(struct manager *m)
{
    atomic_fetch_add(&m->calls_in_flight, 1);
    return clrie_pm__manager_plugins(m);
}

void clrie_pm__manager_plugins_leave(struct manager *m)
{
    if (atomic_fetch_sub(&m->calls_in_flight, 1) == 1 && atomic_load(&m->release_when_idle))
        clrie_pm__manager_release_plugins(m, m->last_active);
}

/* Publishes an empty list, so no plugin is called after this; returns the list it replaced. */
static struct plugin_list *clear_plugins(struct manager *m)
{
    struct plugin_list *empty = calloc(1, sizeof(*empty));
    if (!empty)
        return NULL; /* plugins stay listed; shut_down still keeps the raw hook quiet */
    clrie_os_recursive_mutex_lock(&m->load_lock);
    struct plugin_list *old = atomic_exchange_explicit(&m->plugins, empty, memory_order_acq_rel);
    for (size_t i = 0; i < old->count; i++)
        old->items[i]->removed = true;
    old->retired_next = m->retired;
    m->retired = old;
    clrie_os_recursive_mutex_unlock(&m->load_lock);
    return old;
}

void clrie_pm__manager_retire_plugins(struct manager *m)
{
    /* A callback that entered before the list was emptied is counted in calls_in_flight by
     * now and releases the plugins when it leaves; one that enters after it sees no plugin. */
    m->last_active = clear_plugins(m);
    if (!m->last_active)
        return; /* out of memory: the plugins stay listed, so they stay alive */
    atomic_store(&m->release_when_idle, true);
    if (atomic_load(&m->calls_in_flight) == 0)
        clrie_pm__manager_release_plugins(m, m->last_active);
}

HRESULT clrie_pm__manager_apply_event_mask(struct manager *m)
{
    if (!m->info)
        return CORPROF_E_UNSUPPORTED_CALL_SEQUENCE;
    clrie_os_mutex_lock(&m->mask_lock);
    DWORD low = m->base_mask, high = m->base_mask_high;
    struct plugin_list *list = clrie_pm__manager_plugins(m);
    for (size_t i = 0; i < list->count; i++) {
        low |= atomic_load(&list->items[i]->host.event_mask);
        high |= atomic_load(&list->items[i]->host.event_mask_high);
    }
    struct plugin *loading = atomic_load(&m->loading);
    if (loading) {
        low |= atomic_load(&loading->host.event_mask);
        high |= atomic_load(&loading->host.event_mask_high);
    }
    struct raw_hook *hook = atomic_load(&m->raw_hook);
    if (hook) {
        low |= atomic_load(&hook->host.event_mask);
        high |= atomic_load(&hook->host.event_mask_high);
    }
    if (atomic_load(&m->attached)) {
        /* After attach the runtime refuses the whole mask if one bit is not allowed then. */
        DWORD dropped = low & ~(DWORD)COR_PRF_ALLOWABLE_AFTER_ATTACH;
        DWORD dropped_high = high & ~(DWORD)COR_PRF_HIGH_ALLOWABLE_AFTER_ATTACH;
        if (dropped || dropped_high)
            CLRIE_PM_LOG_MESSAGE(m->log,
                                 "after attach the runtime does not allow event flags 0x%08X, "
                                 "high 0x%08X; they are left out",
                                 (unsigned)dropped, (unsigned)dropped_high);
        low &= ~dropped;
        high &= ~dropped_high;
    }
    HRESULT hr = m->info_version >= 5 ? m->info->lpVtbl->SetEventMask2(m->info, low, high)
                                      : m->info->lpVtbl->SetEventMask(m->info, low);
    clrie_os_mutex_unlock(&m->mask_lock);
    if (SUCCEEDED(hr))
        CLRIE_PM_LOG_MESSAGE(m->log, "event mask 0x%08X, high 0x%08X", (unsigned)low,
                             (unsigned)high);
    return hr;
}

static void release_plugin(struct plugin *p)
{
    if (p->released)
        return;
    p->released = true;
    if (p->exception_events)
        p->exception_events->lpVtbl->Release(p->exception_events);
    if (p->jit_events)
        p->jit_events->lpVtbl->Release(p->jit_events);
    if (p->jit_events2)
        p->jit_events2->lpVtbl->Release(p->jit_events2);
    if (p->attach)
        p->attach->lpVtbl->Release(p->attach);
    if (p->method)
        p->method->lpVtbl->Release(p->method);
}

void clrie_pm__manager_release_plugins(struct manager *m, const struct plugin_list *order)
{
    clrie_os_recursive_mutex_lock(&m->load_lock);
    for (size_t i = 0; order && i < order->count; i++)
        release_plugin(order->items[i]);
    for (struct plugin *p = m->all_plugins; p; p = p->next_allocated)
        release_plugin(p); /* removed ones */
    clrie_os_recursive_mutex_unlock(&m->load_lock);
}

void clrie_pm__manager_runtime_version(struct manager *m, char *out, size_t size)
{
    ICorProfilerInfo3 *info = (ICorProfilerInfo3 *)(void *)m->info;
    USHORT instance = 0, major = 0, minor = 0, build = 0, qfe = 0;
    COR_PRF_RUNTIME_TYPE type;
    ULONG len = 0;
    if (info && SUCCEEDED(info->lpVtbl->GetRuntimeInformation(info, &instance, &type, &major,
                                                              &minor, &build, &qfe, 0, &len, NULL)))
        snprintf(out, size, "%u.%u.%u", major, minor, build);
    else
        snprintf(out, size, "(unknown version)");
}

/* ---- what the plugins were told of ------------------------------------------------------- */

/* The index of id in the sorted set, or where it would go. */
static size_t announced_find(const struct announced *set, UINT_PTR id)
{
    size_t low = 0, high = set->count;
    while (low < high) {
        size_t mid = low + (high - low) / 2;
        if (set->ids[mid] < id)
            low = mid + 1;
        else
            high = mid;
    }
    return low;
}

bool clrie_pm__manager_announce(struct manager *m, enum announce_kind kind, UINT_PTR id)
{
    struct announced *set = &m->announced[kind];
    bool first = true;
    clrie_os_mutex_lock(&m->announced_lock);
    size_t at = announced_find(set, id);
    if (at < set->count && set->ids[at] == id) {
        first = false;
    } else {
        if (set->count == set->capacity) {
            size_t capacity = set->capacity ? set->capacity * 2 : 64;
            UINT_PTR *grown = realloc(set->ids, capacity * sizeof(*grown));
            if (!grown)
                goto out;
            set->ids = grown;
            set->capacity = capacity;
        }
        memmove(set->ids + at + 1, set->ids + at, (set->count - at) * sizeof(*set->ids));
        set->ids[at] = id;
        set->count++;
    }
out:
    clrie_os_mutex_unlock(&m->announced_lock);
    return first;
}

void clrie_pm__manager_forget(struct manager *m, enum announce_kind kind, UINT_PTR id)
{
    struct announced *set = &m->announced[kind];
    clrie_os_mutex_lock(&m->announced_lock);
    size_t at = announced_find(set, id);
    if (at < set->count && set->ids[at] == id) {
        memmove(set->ids + at, set->ids + at + 1, (set->count - at - 1) * sizeof(*set->ids));
        set->count--;
    }
    clrie_os_mutex_unlock(&m->announced_lock);
}

void clrie_pm__manager_announced_free(struct manager *m)
{
    for (size_t i = 0; i < sizeof(m->announced) / sizeof(m->announced[0]); i++)
        free(m->announced[i].ids);
}
