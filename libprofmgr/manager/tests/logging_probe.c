/* A plugin for test_logging_hosts.c: Initialize keeps the IProfilerManager it was handed, so
 * that the test can act as the plugin of each runtime (each manager) through it;
 * logging_probe_manager(i) gives the i-th one kept (a borrowed reference, NULL past the end).
 * Every other slot answers S_OK (probe_plugin.c). */
#include <stdatomic.h>

#include <clrie/abi/instrumentation.h>
#include <clrie/plugin.h>

#include "probe_plugin.h"

#define MAX_MANAGERS 4

CLRIE_ABI_EXPORT IProfilerManager *logging_probe_manager(int index);
CLRIE_ABI_EXPORT void logging_probe_forget(void);

static IProfilerManager *managers[MAX_MANAGERS];
static atomic_int manager_count;

CLRIE_ABI_EXPORT IProfilerManager *logging_probe_manager(int index)
{
    return index >= 0 && index < atomic_load(&manager_count) ? managers[index] : NULL;
}

/* The test releases what it took before the managers go; this drops the probe's own. */
CLRIE_ABI_EXPORT void logging_probe_forget(void)
{
    int count = atomic_exchange(&manager_count, 0);
    for (int i = 0; i < count; i++) {
        clrie_plugin_release(managers[i]);
        managers[i] = NULL;
    }
}

HRESULT probe_plugin_initialize(IProfilerManager *manager)
{
    int index = atomic_load(&manager_count);
    if (!manager || index >= MAX_MANAGERS)
        return E_FAIL;
    manager->lpVtbl->AddRef(manager);
    managers[index] = manager;
    atomic_store(&manager_count, index + 1);
    return S_OK;
}
