/* The manager's lifetime, its plugin list and the event mask it asks the runtime for. */
#include "manager.h"

#include <stdlib.h>
#include <string.h>

static void manager_destroy(void *object)
{
    struct manager *m = object;
    plugins_free_all(m);
    raw_hook_free(m);
    clrie_pm_domains_free(m->domains);
    if (m->info)
        m->info->lpVtbl->Release(m->info);
    free(atomic_load(&m->plugins));
    for (struct plugin_list *l = m->retired, *next; l; l = next) {
        next = l->retired_next;
        free(l);
    }
    pthread_mutex_destroy(&m->load_lock);
    pthread_mutex_destroy(&m->mask_lock);
    free(m);
}

static const struct clrie_plugin_com_iface manager_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_ICorProfilerCallback, struct manager, callback),
    CLRIE_PLUGIN_COM_IFACE(&IID_ICorProfilerCallback2, struct manager, callback),
    CLRIE_PLUGIN_COM_IFACE(&IID_ICorProfilerCallback3, struct manager, callback),
    CLRIE_PLUGIN_COM_IFACE(&IID_ICorProfilerCallback4, struct manager, callback),
    CLRIE_PLUGIN_COM_IFACE(&IID_ICorProfilerCallback5, struct manager, callback),
    CLRIE_PLUGIN_COM_IFACE(&IID_ICorProfilerCallback6, struct manager, callback),
    CLRIE_PLUGIN_COM_IFACE(&IID_ICorProfilerCallback7, struct manager, callback),
    CLRIE_PLUGIN_COM_IFACE(&IID_ICorProfilerCallback8, struct manager, callback),
    CLRIE_PLUGIN_COM_IFACE(&IID_ICorProfilerCallback9, struct manager, callback),
    CLRIE_PLUGIN_COM_IFACE(&IID_ICorProfilerCallback10, struct manager, callback),
    CLRIE_PLUGIN_COM_IFACE(&IID_ICorProfilerCallback11, struct manager, callback),
};
CLRIE_PM_COM_CLASS(manager_class, "the profiler manager", struct manager, com, manager_destroy,
                   manager_ifaces);

struct manager *manager_new(void)
{
    struct manager *m = calloc(1, sizeof(*m));
    struct plugin_list *empty = calloc(1, sizeof(*empty));
    if (!m || !empty) {
        free(m);
        free(empty);
        return NULL;
    }
    m->callback.lpVtbl = &manager_callback_vtbl;
    clrie_plugin_com_init(&m->com, &manager_class);
    m->log = clrie_pm_process_log();
    pthread_mutexattr_t recursive;
    pthread_mutexattr_init(&recursive);
    pthread_mutexattr_settype(&recursive, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&m->load_lock, &recursive);
    pthread_mutexattr_destroy(&recursive);
    pthread_mutex_init(&m->mask_lock, NULL);
    atomic_init(&m->plugins, empty);
    return m;
}

struct plugin_list *manager_plugins(struct manager *m)
{
    return atomic_load_explicit(&m->plugins, memory_order_acquire);
}

HRESULT manager_publish_plugins(struct manager *m, struct plugin *added, struct plugin *removed)
{
    struct plugin_list *old = manager_plugins(m);
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

struct plugin_list *manager_plugins_enter(struct manager *m)
{
    atomic_fetch_add(&m->calls_in_flight, 1);
    return manager_plugins(m);
}

void manager_plugins_leave(struct manager *m)
{
    if (atomic_fetch_sub(&m->calls_in_flight, 1) == 1 && atomic_load(&m->release_when_idle))
        plugins_release_all(m, m->last_active);
}

/* Publishes an empty list, so no plugin is called after this; returns the list it replaced. */
static struct plugin_list *clear_plugins(struct manager *m)
{
    struct plugin_list *empty = calloc(1, sizeof(*empty));
    if (!empty)
        return NULL; /* plugins stay listed; shut_down still keeps the raw hook quiet */
    pthread_mutex_lock(&m->load_lock);
    struct plugin_list *old = atomic_exchange_explicit(&m->plugins, empty, memory_order_acq_rel);
    for (size_t i = 0; i < old->count; i++)
        old->items[i]->removed = true;
    old->retired_next = m->retired;
    m->retired = old;
    pthread_mutex_unlock(&m->load_lock);
    return old;
}

void manager_retire_plugins(struct manager *m)
{
    /* A callback that entered before the list was emptied is counted in calls_in_flight by
     * now and releases the plugins when it leaves; one that enters after it sees no plugin. */
    m->last_active = clear_plugins(m);
    if (!m->last_active)
        return; /* out of memory: the plugins stay listed, so they stay alive */
    atomic_store(&m->release_when_idle, true);
    if (atomic_load(&m->calls_in_flight) == 0)
        plugins_release_all(m, m->last_active);
}

HRESULT manager_apply_event_mask(struct manager *m)
{
    if (!m->info)
        return CORPROF_E_UNSUPPORTED_CALL_SEQUENCE;
    pthread_mutex_lock(&m->mask_lock);
    DWORD low = m->base_mask, high = m->base_mask_high;
    struct plugin_list *list = manager_plugins(m);
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
    HRESULT hr = m->info_version >= 5 ? m->info->lpVtbl->SetEventMask2(m->info, low, high)
                                      : m->info->lpVtbl->SetEventMask(m->info, low);
    pthread_mutex_unlock(&m->mask_lock);
    if (SUCCEEDED(hr))
        CLRIE_PM_LOG_MESSAGE(m->log, "event mask 0x%08X, high 0x%08X", (unsigned)low,
                             (unsigned)high);
    return hr;
}
