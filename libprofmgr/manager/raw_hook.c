/* The raw profiler hook: one ordinary CoreCLR profiler loaded beside the plugins. It receives
 * every callback after the plugins and a wrapped ICorProfilerInfo of its own. Named by
 *   MicrosoftInstrumentationEngine_RawProfilerHook={CLSID}
 *   MicrosoftInstrumentationEngine_RawProfilerHookPath_64 (_ARM64 on aarch64), or ...Path
 * or added by a plugin during Initialize through IProfilerManager::AddRawProfilerHook. CLRIE
 * supports the variables on Windows only. The module passes the same checks as a plugin's
 * (clrie_pm__plugins_check_module) before it is loaded. */
#include <stdlib.h>
#include <string.h>

#include "clrie/config.h"
#include "clrie/os/module.h"
#include "env.h"
#include "manager.h"

#define HOOK_VARIABLE "MicrosoftInstrumentationEngine_RawProfilerHook"
#if defined(__aarch64__)
#define HOOK_PATH_VARIABLE HOOK_VARIABLE "Path_ARM64"
#else
#define HOOK_PATH_VARIABLE HOOK_VARIABLE "Path_64"
#endif

typedef LPFNGETCLASSOBJECT get_class_object_fn;

union symbol {
    clrie_os_function function;
    get_class_object_fn get_class_object;
};

static const IID *const callback_iids[] = {
    [2] = &IID_ICorProfilerCallback2,   [3] = &IID_ICorProfilerCallback3,
    [4] = &IID_ICorProfilerCallback4,   [5] = &IID_ICorProfilerCallback5,
    [6] = &IID_ICorProfilerCallback6,   [7] = &IID_ICorProfilerCallback7,
    [8] = &IID_ICorProfilerCallback8,   [9] = &IID_ICorProfilerCallback9,
    [10] = &IID_ICorProfilerCallback10, [11] = &IID_ICorProfilerCallback11,
};

HRESULT clrie_pm__raw_hook_install(struct manager *m, IUnknown *profiler)
{
    struct raw_hook *hook = calloc(1, sizeof(*hook));
    if (!hook)
        return E_OUTOFMEMORY;
    for (int v = 11; v >= 2 && !hook->callback; v--) {
        void *callback = NULL;
        if (SUCCEEDED(profiler->lpVtbl->QueryInterface(profiler, callback_iids[v], &callback)) &&
            callback) {
            hook->callback = callback;
            hook->version = v;
        }
    }
    if (!hook->callback) {
        CLRIE_PM_LOG_ERROR(m->log, "raw profiler hook: it implements no ICorProfilerCallback2 "
                                   "or newer");
        free(hook);
        return E_NOINTERFACE;
    }
    m->init_host(&hook->host, m, NULL);
    hook->host.info.lpVtbl = &clrie_pm__hook_info_vtbl;

    clrie_os_recursive_mutex_lock(&m->load_lock);
    struct raw_hook *old = atomic_exchange(&m->raw_hook, hook);
    if (old) {
        old->retired_next = m->retired_hook;
        m->retired_hook = old;
    }
    clrie_os_recursive_mutex_unlock(&m->load_lock);

    HRESULT hr =
        hook->callback->lpVtbl->Initialize(hook->callback, (IUnknown *)(void *)&hook->host.info);
    if (FAILED(hr)) {
        CLRIE_PM_LOG_ERROR(m->log,
                           "raw profiler hook: Initialize failed (hr 0x%08X); it is not "
                           "used",
                           (unsigned)hr);
        clrie_os_recursive_mutex_lock(&m->load_lock);
        struct raw_hook *expected = hook;
        atomic_compare_exchange_strong(&m->raw_hook, &expected, NULL);
        hook->retired_next = m->retired_hook;
        m->retired_hook = hook;
        clrie_os_recursive_mutex_unlock(&m->load_lock);
        clrie_pm__manager_apply_event_mask(m);
        return hr;
    }
    CLRIE_PM_LOG_MESSAGE(m->log, "raw profiler hook attached (ICorProfilerCallback%d)",
                         hook->version);
    return S_OK;
}

void clrie_pm__raw_hook_load_configured(struct manager *m)
{
    char *const *env = clrie_pm_env_engine();
    const char *clsid_text = clrie_pm_env_lookup(env, HOOK_VARIABLE);
    if (!clsid_text || !*clsid_text)
        return;
    const char *path = clrie_pm_env_lookup(env, HOOK_PATH_VARIABLE);
    if (!path || !*path)
        path = clrie_pm_env_lookup(env, HOOK_VARIABLE "Path");
    if (!path || !*path) {
        CLRIE_PM_LOG_ERROR(m->log,
                           HOOK_VARIABLE " is set but neither " HOOK_PATH_VARIABLE
                                         " nor " HOOK_VARIABLE "Path names the profiler to load");
        return;
    }
    GUID clsid;
    if (clrie_config_guid_parse(clsid_text, strlen(clsid_text),
                                (struct clrie_config_guid *)(void *)&clsid) != 0) {
        CLRIE_PM_LOG_ERROR(m->log, HOOK_VARIABLE "='%s' is not a braced GUID", clsid_text);
        return;
    }
    char *canonical = NULL;
    if (FAILED(clrie_pm__plugins_check_module(m, path, "raw profiler hook", &canonical)))
        return;
    struct clrie_os_module *library = NULL;
    char why[512] = "";
    int loaded = clrie_os_module_load(canonical, &library, why, sizeof(why));
    free(canonical);
    if (loaded != 0) {
        CLRIE_PM_LOG_ERROR(m->log, "raw profiler hook: cannot load '%s': %s", path,
                           why[0] ? why : "unknown error");
        return;
    }
    union symbol get = {clrie_os_module_function(library, "DllGetClassObject")};
    IClassFactory *factory = NULL;
    HRESULT hr = get.function ? get.get_class_object(&clsid, &IID_IClassFactory, (void **)&factory)
                              : CLRIE_HRESULT(0x8007007Fu);
    if (SUCCEEDED(hr) && !factory)
        hr = E_NOINTERFACE;
    if (FAILED(hr)) {
        CLRIE_PM_LOG_ERROR(m->log, "raw profiler hook '%s': DllGetClassObject failed (hr 0x%08X)",
                           path, (unsigned)hr);
        return;
    }
    IUnknown *profiler = NULL;
    hr = factory->lpVtbl->CreateInstance(factory, NULL, &IID_ICorProfilerCallback2,
                                         (void **)&profiler);
    factory->lpVtbl->Release(factory);
    if (FAILED(hr) || !profiler) {
        CLRIE_PM_LOG_ERROR(m->log, "raw profiler hook '%s': CreateInstance failed (hr 0x%08X)",
                           path, (unsigned)hr);
        return;
    }
    clrie_pm__raw_hook_install(m, profiler);
    profiler->lpVtbl->Release(profiler);
}

static void free_hook(struct raw_hook *hook)
{
    if (hook) {
        hook->callback->lpVtbl->Release(hook->callback);
        free(hook);
    }
}

void clrie_pm__raw_hook_free(struct manager *m)
{
    free_hook(atomic_exchange(&m->raw_hook, NULL));
    for (struct raw_hook *h = m->retired_hook, *next; h; h = next) {
        next = h->retired_next;
        free_hook(h);
    }
    m->retired_hook = NULL;
}
