/* The profiler manager as the runtime sees it, top of the folder: ICorProfilerCallback..11 and
 * the manager's creation and destruction (what wires the callback vtable and the hosts'
 * maker into it).
 *
 * Every slot is generated from the interface table as a forwarder to the raw profiler hook
 * (when one is loaded and its interface version has that slot). The callbacks the engine acts
 * on are written out below and override the generated ones in the vtable: they tell the
 * plugins in priority order first, then forward to the raw hook as CLRIE does. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "crash.h"
#include "domains.h"
#include "hook_turn.h"
#include "manager.h"
#include "method_info.h"

#define SLOT_OF(name) (offsetof(struct ICorProfilerCallback11Vtbl, name) / sizeof(void *))

/* How many slots each version of the callback interface has. */
static const size_t callback_slots[] = {
    [2] = CLRIE_ABI_SLOT_COUNT(CLRIE_ICORPROFILERCALLBACK2_METHODS),
    [3] = CLRIE_ABI_SLOT_COUNT(CLRIE_ICORPROFILERCALLBACK3_METHODS),
    [4] = CLRIE_ABI_SLOT_COUNT(CLRIE_ICORPROFILERCALLBACK4_METHODS),
    [5] = CLRIE_ABI_SLOT_COUNT(CLRIE_ICORPROFILERCALLBACK5_METHODS),
    [6] = CLRIE_ABI_SLOT_COUNT(CLRIE_ICORPROFILERCALLBACK6_METHODS),
    [7] = CLRIE_ABI_SLOT_COUNT(CLRIE_ICORPROFILERCALLBACK7_METHODS),
    [8] = CLRIE_ABI_SLOT_COUNT(CLRIE_ICORPROFILERCALLBACK8_METHODS),
    [9] = CLRIE_ABI_SLOT_COUNT(CLRIE_ICORPROFILERCALLBACK9_METHODS),
    [10] = CLRIE_ABI_SLOT_COUNT(CLRIE_ICORPROFILERCALLBACK10_METHODS),
    [11] = CLRIE_ABI_SLOT_COUNT(CLRIE_ICORPROFILERCALLBACK11_METHODS),
};

static struct manager *manager_of(ICorProfilerCallback11 *callback)
{
    return CLRIE_CONTAINER_OF(callback, struct manager, callback);
}

/* The raw hook's callback interface if it has this slot and its own event mask asks for the
 * callback (hook_events.c), else NULL. */
static ICorProfilerCallback11 *hook_with_slot(struct manager *m, size_t slot)
{
    struct raw_hook *hook = atomic_load_explicit(&m->raw_hook, memory_order_acquire);
    if (!hook || atomic_load(&m->shut_down))
        return NULL;
    if (slot >= callback_slots[hook->version] || !clrie_pm__hook_hears(hook, slot))
        return NULL;
    return hook->callback;
}

#define TO_RAW_HOOK(ret, name, params, args)                                                       \
    __attribute__((unused)) static ret STDMETHODCALLTYPE hook_##name params                        \
    {                                                                                              \
        ICorProfilerCallback11 *inner = hook_with_slot(manager_of(This), SLOT_OF(name));           \
        return inner ? inner->lpVtbl->name args : (ret)S_OK;                                       \
    }
CLRIE_ICORPROFILERCALLBACK11_METHODS(TO_RAW_HOOK, ICorProfilerCallback11 *This, inner)

/* ---- IUnknown: the manager's class (with its lifetime, at the end of the file) ---------- */

CLRIE_PLUGIN_COM_IUNKNOWN(on, ICorProfilerCallback11, struct manager, callback, com)

/* ---- start and end --------------------------------------------------------------------- */

/* What start-up and attach share: the runtime's newest info, the app-domain model, the method
 * info factory and the crash handler. Returns S_OK or CORPROF_E_PROFILER_CANCEL_ACTIVATION. */
static HRESULT start(struct manager *m, IUnknown *pICorProfilerInfoUnk)
{
    /* Newest first: the manager keeps the newest ICorProfilerInfo the runtime offers. */
    for (int v = CLRIE_PM__INFO_NEWEST; v >= 3 && !m->info; v--) {
        void *info = NULL;
        if (SUCCEEDED(pICorProfilerInfoUnk->lpVtbl->QueryInterface(pICorProfilerInfoUnk,
                                                                   clrie_pm__info_iid(v), &info)) &&
            info) {
            m->info = info;
            m->info_version = v;
        }
    }
    if (!m->info) {
        CLRIE_PM_LOG_ERROR(m->log, "the runtime offers no ICorProfilerInfo3 or newer; the "
                                   "engine does not attach");
        return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
    }
    HRESULT hr = clrie_pm_domains_new((ICorProfilerInfo3 *)(void *)m->info, m->log, &m->domains);
    if (FAILED(hr)) {
        CLRIE_PM_LOG_ERROR(m->log, "cannot set up the engine (hr 0x%08X); it does not attach",
                           (unsigned)hr);
        return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
    }
    clrie_pm__method_info_install_factory(m);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE on_Initialize(ICorProfilerCallback11 *This,
                                               IUnknown *pICorProfilerInfoUnk)
{
    struct manager *m = manager_of(This);
    if (!pICorProfilerInfoUnk)
        return E_POINTER;
    HRESULT hr = start(m, pICorProfilerInfoUnk);
    if (FAILED(hr))
        return hr;
    if (!clrie_pm__attach_policy_admits(m, NULL))
        return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
    clrie_pm__crash_install(clrie_pm_log_fd(m->log)); /* before the first plugin runs */
    char runtime[48];
    clrie_pm__manager_runtime_version(m, runtime, sizeof(runtime));
    CLRIE_PM_LOG_MESSAGE(m->log, "clrie engine %s attached (ICorProfilerInfo%d) to runtime %s",
                         CLRIE_VERSION, m->info_version, runtime);

    atomic_store(&m->initializing, true);
    clrie_pm__plugins_load_configured(m);
    clrie_pm__raw_hook_load_configured(m);
    if (clrie_pm__manager_plugins(m)->count > 0) {
        clrie_os_mutex_lock(&m->mask_lock);
        m->base_mask = CLRIE_PM_DEFAULT_EVENT_MASK | CLRIE_PM_ENGINE_EVENT_MASK;
        clrie_os_mutex_unlock(&m->mask_lock);
    }
    hr = clrie_pm__manager_apply_event_mask(m);
    atomic_store(&m->initializing, false);
    if (FAILED(hr))
        CLRIE_PM_LOG_ERROR(m->log, "the runtime refused the event mask (hr 0x%08X)", (unsigned)hr);
    if (atomic_load(&m->profiling_disabled)) {
        CLRIE_PM_LOG_MESSAGE(m->log, "a plugin disabled profiling; the engine detaches");
        return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
    }
    clrie_pm__memory_line_arm(m, clrie_pm__policy_lookup_env, NULL);
    if (clrie_pm__manager_plugins(m)->count > 0)
        clrie_pm__detach_arm(m, clrie_pm__policy_lookup_env, NULL);
    return S_OK;
}

/* Attach (attach.c): the client data names the plugins; the raw hook is a start-up feature. */
static HRESULT STDMETHODCALLTYPE on_InitializeForAttach(ICorProfilerCallback11 *This,
                                                        IUnknown *pCorProfilerInfoUnk,
                                                        void *pvClientData, UINT cbClientData)
{
    struct manager *m = manager_of(This);
    if (!pCorProfilerInfoUnk)
        return E_POINTER;
    HRESULT hr = start(m, pCorProfilerInfoUnk);
    if (SUCCEEDED(hr))
        hr = clrie_pm__attach_initialize(m, pvClientData, cbClientData);
    if (SUCCEEDED(hr))
        clrie_pm__crash_install(clrie_pm_log_fd(m->log));
    return hr;
}

static HRESULT STDMETHODCALLTYPE on_ProfilerAttachComplete(ICorProfilerCallback11 *This)
{
    clrie_pm__attach_complete(manager_of(This));
    return hook_ProfilerAttachComplete(This);
}

static HRESULT STDMETHODCALLTYPE on_ProfilerDetachSucceeded(ICorProfilerCallback11 *This)
{
    HRESULT hr = hook_ProfilerDetachSucceeded(This);
    clrie_pm__detach_succeeded(manager_of(This));
    return hr;
}

static HRESULT STDMETHODCALLTYPE on_LoadAsNotificationOnly(ICorProfilerCallback11 *This,
                                                           BOOL *pbNotificationOnly)
{
    /* The engine rewrites IL, which notification-only profilers may not do. */
    if (!pbNotificationOnly)
        return E_POINTER;
    *pbNotificationOnly = FALSE;
    return S_OK;
}

/* After Shutdown no plugin is called again, and the plugins are released as soon as no
 * other thread is inside one (the runtime never releases the engine). */
static HRESULT STDMETHODCALLTYPE on_Shutdown(ICorProfilerCallback11 *This)
{
    struct manager *m = manager_of(This);
    clrie_pm__memory_line_write(m);
    struct plugin_list *list = clrie_pm__manager_plugins_enter(m);
    for (size_t i = 0; i < list->count; i++)
        CLRIE_PM__IN_PLUGIN(list->items[i], "OnShutdown",
                            list->items[i]->method->lpVtbl->OnShutdown(list->items[i]->method));
    clrie_pm__manager_plugins_leave(m);
    HRESULT hr = hook_Shutdown(This);
    atomic_store(&m->shut_down, true);
    clrie_pm__manager_retire_plugins(m);
    return hr;
}

/* ---- app domains, assemblies, modules -------------------------------------------------- */

/* Calls `call` on every active plugin, in priority order; failures are the plugin's business
 * but are logged for whoever is diagnosing it. */
#define FOR_EACH_PLUGIN(m, event, call)                                                            \
    do {                                                                                           \
        struct plugin_list *list_ = clrie_pm__manager_plugins_enter(m);                            \
        for (size_t i_ = 0; i_ < list_->count; i_++) {                                             \
            struct plugin *p_ = list_->items[i_];                                                  \
            HRESULT hr_;                                                                           \
            CLRIE_PM__IN_PLUGIN(p_, event, hr_ = p_->method->lpVtbl->call);                        \
            if (FAILED(hr_) && clrie_pm_log_enabled((m)->log, CLRIE_PM_LOG_MESSAGES))              \
                clrie_pm_log_write((m)->log, CLRIE_PM_LOG_MESSAGES, p_->guid36,                    \
                                   event " returned 0x%08X", (unsigned)hr_);                       \
        }                                                                                          \
        clrie_pm__manager_plugins_leave(m);                                                        \
    } while (0)

static HRESULT STDMETHODCALLTYPE on_AppDomainCreationFinished(ICorProfilerCallback11 *This,
                                                              AppDomainID appDomainId,
                                                              HRESULT hrStatus)
{
    struct manager *m = manager_of(This);
    IAppDomainInfo *domain = NULL;
    if (SUCCEEDED(hrStatus) && m->domains &&
        SUCCEEDED(clrie_pm_domains_appdomain_created(m->domains, appDomainId, &domain))) {
        if (clrie_pm__manager_announce(m, ANNOUNCE_APPDOMAIN, appDomainId))
            FOR_EACH_PLUGIN(m, "OnAppDomainCreated", OnAppDomainCreated(p_->method, domain));
        domain->lpVtbl->Release(domain);
    }
    return hook_AppDomainCreationFinished(This, appDomainId, hrStatus);
}

static HRESULT STDMETHODCALLTYPE on_AppDomainShutdownFinished(ICorProfilerCallback11 *This,
                                                              AppDomainID appDomainId,
                                                              HRESULT hrStatus)
{
    struct manager *m = manager_of(This);
    IAppDomainInfo *domain = NULL;
    if (m->domains &&
        clrie_pm_domains_appdomain_shutdown(m->domains, appDomainId, &domain) == S_OK) {
        FOR_EACH_PLUGIN(m, "OnAppDomainShutdown", OnAppDomainShutdown(p_->method, domain));
        clrie_pm__manager_forget(m, ANNOUNCE_APPDOMAIN, appDomainId);
        domain->lpVtbl->Release(domain);
    }
    return hook_AppDomainShutdownFinished(This, appDomainId, hrStatus);
}

static HRESULT STDMETHODCALLTYPE on_AssemblyLoadFinished(ICorProfilerCallback11 *This,
                                                         AssemblyID assemblyId, HRESULT hrStatus)
{
    struct manager *m = manager_of(This);
    IAssemblyInfo *assembly = NULL;
    if (SUCCEEDED(hrStatus) && m->domains &&
        SUCCEEDED(clrie_pm_domains_assembly_loaded(m->domains, assemblyId, &assembly))) {
        if (clrie_pm__manager_announce(m, ANNOUNCE_ASSEMBLY, assemblyId))
            FOR_EACH_PLUGIN(m, "OnAssemblyLoaded", OnAssemblyLoaded(p_->method, assembly));
        assembly->lpVtbl->Release(assembly);
    }
    return hook_AssemblyLoadFinished(This, assemblyId, hrStatus);
}

static HRESULT STDMETHODCALLTYPE on_AssemblyUnloadFinished(ICorProfilerCallback11 *This,
                                                           AssemblyID assemblyId, HRESULT hrStatus)
{
    struct manager *m = manager_of(This);
    IAssemblyInfo *assembly = NULL;
    if (m->domains &&
        clrie_pm_domains_assembly_unloaded(m->domains, assemblyId, &assembly) == S_OK) {
        FOR_EACH_PLUGIN(m, "OnAssemblyUnloaded", OnAssemblyUnloaded(p_->method, assembly));
        clrie_pm__manager_forget(m, ANNOUNCE_ASSEMBLY, assemblyId);
        assembly->lpVtbl->Release(assembly);
    }
    return hook_AssemblyUnloadFinished(This, assemblyId, hrStatus);
}

static HRESULT STDMETHODCALLTYPE on_ModuleAttachedToAssembly(ICorProfilerCallback11 *This,
                                                             ModuleID moduleId,
                                                             AssemblyID AssemblyId)
{
    struct manager *m = manager_of(This);
    IModuleInfo *module = NULL;
    if (m->domains &&
        clrie_pm_domains_module_attached(m->domains, moduleId, AssemblyId, &module) == S_OK) {
        if (clrie_pm__manager_announce(m, ANNOUNCE_MODULE, moduleId))
            FOR_EACH_PLUGIN(m, "OnModuleLoaded", OnModuleLoaded(p_->method, module));
        module->lpVtbl->Release(module);
    }
    return hook_ModuleAttachedToAssembly(This, moduleId, AssemblyId);
}

static HRESULT STDMETHODCALLTYPE on_ModuleUnloadFinished(ICorProfilerCallback11 *This,
                                                         ModuleID moduleId, HRESULT hrStatus)
{
    struct manager *m = manager_of(This);
    IModuleInfo *module = NULL;
    if (m->domains && clrie_pm_domains_module_unloaded(m->domains, moduleId, &module) == S_OK) {
        FOR_EACH_PLUGIN(m, "OnModuleUnloaded", OnModuleUnloaded(p_->method, module));
        clrie_pm__manager_forget(m, ANNOUNCE_MODULE, moduleId);
        module->lpVtbl->Release(module);
    }
    return hook_ModuleUnloadFinished(This, moduleId, hrStatus);
}

/* ---- exceptions: only to plugins that asked for them ------------------------------------ */

/* Exception callbacks that name a function hand plugins a fresh info-only IMethodInfo. */
#define EXCEPTION_EVENT(m, event, call)                                                            \
    do {                                                                                           \
        struct plugin_list *list_ = clrie_pm__manager_plugins_enter(m);                            \
        for (size_t i_ = 0; i_ < list_->count; i_++) {                                             \
            struct plugin *p_ = list_->items[i_];                                                  \
            if (p_->exception_events &&                                                            \
                (atomic_load(&p_->host.event_mask) & COR_PRF_MONITOR_EXCEPTIONS))                  \
                CLRIE_PM__IN_PLUGIN(p_, event, p_->exception_events->lpVtbl->call);                \
        }                                                                                          \
        clrie_pm__manager_plugins_leave(m);                                                        \
    } while (0)

static HRESULT STDMETHODCALLTYPE on_ExceptionThrown(ICorProfilerCallback11 *This,
                                                    ObjectID thrownObjectId)
{
    struct manager *m = manager_of(This);
    clrie_pm__jit_rejected_exception_thrown(m, thrownObjectId);
    EXCEPTION_EVENT(m, "ExceptionThrown", ExceptionThrown(p_->exception_events, thrownObjectId));
    return hook_ExceptionThrown(This, thrownObjectId);
}

#define EXCEPTION_LEAVE(name)                                                                      \
    static HRESULT STDMETHODCALLTYPE on_##name(ICorProfilerCallback11 *This)                       \
    {                                                                                              \
        EXCEPTION_EVENT(manager_of(This), #name, name(p_->exception_events));                      \
        return hook_##name(This);                                                                  \
    }
EXCEPTION_LEAVE(ExceptionSearchFunctionLeave)
EXCEPTION_LEAVE(ExceptionSearchFilterLeave)
EXCEPTION_LEAVE(ExceptionUnwindFunctionLeave)
EXCEPTION_LEAVE(ExceptionUnwindFinallyLeave)
EXCEPTION_LEAVE(ExceptionCatcherLeave)

/* Whether some plugin will receive exception events (so a method info is worth making). */
static bool exception_subscribers(struct manager *m)
{
    struct plugin_list *list = clrie_pm__manager_plugins(m);
    for (size_t i = 0; i < list->count; i++)
        if (list->items[i]->exception_events &&
            (atomic_load(&list->items[i]->host.event_mask) & COR_PRF_MONITOR_EXCEPTIONS))
            return true;
    return false;
}

/* Each names a managed frame: an exception noted while a JIT was running has left it. */
#define EXCEPTION_ENTER(name)                                                                      \
    static HRESULT STDMETHODCALLTYPE on_##name(ICorProfilerCallback11 *This,                       \
                                               FunctionID functionId)                              \
    {                                                                                              \
        struct manager *m = manager_of(This);                                                      \
        struct method_info *mi = NULL;                                                             \
        clrie_pm__jit_rejected_exception_left_jit(m);                                              \
        if (exception_subscribers(m) &&                                                            \
            SUCCEEDED(clrie_pm__method_info_by_function(m, functionId, &mi))) {                    \
            EXCEPTION_EVENT(m, #name, name(p_->exception_events, method_info_iface(mi)));          \
            clrie_pm__method_info_release(mi);                                                     \
        }                                                                                          \
        return hook_##name(This, functionId);                                                      \
    }
EXCEPTION_ENTER(ExceptionSearchFunctionEnter)
EXCEPTION_ENTER(ExceptionSearchFilterEnter)
EXCEPTION_ENTER(ExceptionSearchCatcherFound)
EXCEPTION_ENTER(ExceptionUnwindFunctionEnter)
EXCEPTION_ENTER(ExceptionUnwindFinallyEnter)

static HRESULT STDMETHODCALLTYPE on_ExceptionCatcherEnter(ICorProfilerCallback11 *This,
                                                          FunctionID functionId, ObjectID objectId)
{
    struct manager *m = manager_of(This);
    struct method_info *mi = NULL;
    clrie_pm__jit_rejected_exception_left_jit(m);
    if (exception_subscribers(m) &&
        SUCCEEDED(clrie_pm__method_info_by_function(m, functionId, &mi))) {
        EXCEPTION_EVENT(
            m, "ExceptionCatcherEnter",
            ExceptionCatcherEnter(p_->exception_events, method_info_iface(mi), objectId));
        clrie_pm__method_info_release(mi);
    }
    return hook_ExceptionCatcherEnter(This, functionId, objectId);
}

/* ---- JIT and ReJIT ----------------------------------------------------------------------- */

static HRESULT STDMETHODCALLTYPE on_JITCompilationStarted(ICorProfilerCallback11 *This,
                                                          FunctionID functionId,
                                                          BOOL fIsSafeToBlock)
{
    struct manager *m = manager_of(This);
    clrie_pm__jit_events_started(m, functionId, false);
    if (!hook_with_slot(m, SLOT_OF(JITCompilationStarted))) {
        clrie_pm__jit_pipeline_jit(m, functionId);
        return S_OK;
    }
    /* The hook first, then the plugins on its body (hook_turn.h). */
    struct hook_turn turn;
    clrie_pm__hook_turn_begin(&turn, m, 0, 0, functionId, NULL);
    HRESULT hr = hook_JITCompilationStarted(This, functionId, fIsSafeToBlock);
    clrie_pm__jit_pipeline_jit(m, functionId);
    clrie_pm__hook_turn_end(&turn);
    return hr;
}

static HRESULT STDMETHODCALLTYPE on_JITCompilationFinished(ICorProfilerCallback11 *This,
                                                           FunctionID functionId, HRESULT hrStatus,
                                                           BOOL fIsSafeToBlock)
{
    clrie_pm__jit_rejected_finished(manager_of(This), functionId, hrStatus);
    clrie_pm__jit_events_finished(manager_of(This), functionId, 0, false, hrStatus);
    clrie_pm__memory_line_now_and_then(manager_of(This));
    return hook_JITCompilationFinished(This, functionId, hrStatus, fIsSafeToBlock);
}

static HRESULT STDMETHODCALLTYPE on_ReJITCompilationStarted(ICorProfilerCallback11 *This,
                                                            FunctionID functionId, ReJITID rejitId,
                                                            BOOL fIsSafeToBlock)
{
    clrie_pm__jit_rejected_rejit_started(manager_of(This), functionId);
    clrie_pm__jit_events_started(manager_of(This), functionId, true);
    return hook_ReJITCompilationStarted(This, functionId, rejitId, fIsSafeToBlock);
}

static HRESULT STDMETHODCALLTYPE
on_GetReJITParameters(ICorProfilerCallback11 *This, ModuleID moduleId, mdMethodDef methodId,
                      ICorProfilerFunctionControl *pFunctionControl)
{
    struct manager *m = manager_of(This);
    if (clrie_pm__detach_rejit(m, moduleId, methodId, pFunctionControl))
        return S_OK; /* detaching: the method's original IL (detach.c) */
    ICorProfilerCallback11 *hook = hook_with_slot(m, SLOT_OF(GetReJITParameters));
    if (!hook || !pFunctionControl)
        return clrie_pm__jit_pipeline_rejit(m, moduleId, methodId, pFunctionControl);
    /* As at the first JIT: the hook with a control of the engine's, then the plugins on its
     * body; each only while it has not reverted the method (hook_turn.h). */
    unsigned parties = clrie_pm__rejit_parties(m, moduleId, methodId);
    struct hook_turn turn;
    HRESULT hr = S_OK;
    clrie_pm__hook_turn_begin(&turn, m, moduleId, methodId, 0, pFunctionControl);
    if (parties & CLRIE_PM_REJIT_HOOK)
        hr = hook->lpVtbl->GetReJITParameters(hook, moduleId, methodId, &turn.control);
    if (parties & CLRIE_PM_REJIT_PLUGINS)
        clrie_pm__jit_pipeline_rejit(m, moduleId, methodId, pFunctionControl);
    clrie_pm__hook_turn_end(&turn);
    return hr;
}

static HRESULT STDMETHODCALLTYPE on_ReJITCompilationFinished(ICorProfilerCallback11 *This,
                                                             FunctionID functionId, ReJITID rejitId,
                                                             HRESULT hrStatus, BOOL fIsSafeToBlock)
{
    clrie_pm__jit_rejected_finished(manager_of(This), functionId, hrStatus);
    clrie_pm__jit_events_finished(manager_of(This), functionId, rejitId, true, hrStatus);
    clrie_pm__memory_line_now_and_then(manager_of(This));
    return hook_ReJITCompilationFinished(This, functionId, rejitId, hrStatus, fIsSafeToBlock);
}

static HRESULT STDMETHODCALLTYPE on_ReJITError(ICorProfilerCallback11 *This, ModuleID moduleId,
                                               mdMethodDef methodId, FunctionID functionId,
                                               HRESULT hrStatus)
{
    clrie_pm__jit_rejected_rejit_error(manager_of(This), moduleId, methodId, hrStatus);
    return hook_ReJITError(This, moduleId, methodId, functionId, hrStatus);
}

/* Plugins first, in order, the first "no" wins; the raw hook is asked only if they all agree. */
static HRESULT STDMETHODCALLTYPE on_JITInlining(ICorProfilerCallback11 *This, FunctionID callerId,
                                                FunctionID calleeId, BOOL *pfShouldInline)
{
    if (!pfShouldInline)
        return E_POINTER;
    if (!clrie_pm__jit_events_allow_inline(manager_of(This), callerId, calleeId)) {
        *pfShouldInline = FALSE;
        return S_OK;
    }
    /* An [out] parameter: runtimes before .NET 5 pass it uninitialised, and without a raw hook
     * nobody else writes it. */
    *pfShouldInline = TRUE;
    return hook_JITInlining(This, callerId, calleeId, pfShouldInline);
}

/* ---- the vtable ------------------------------------------------------------------------- */

#define INIT_TO_RAW_HOOK(ret, name, params, args) .name = hook_##name,

VTABLE_OVERRIDES_BEGIN
static const struct ICorProfilerCallback11Vtbl callback_vtbl = {
    /* Everything goes to the raw hook ... */
    CLRIE_ICORPROFILERCALLBACK11_METHODS(INIT_TO_RAW_HOOK, ICorProfilerCallback11 *This, This)
        /* ... except what the engine handles itself first. */
        .QueryInterface = on_QueryInterface,
    .AddRef = on_AddRef,
    .Release = on_Release,
    .Initialize = on_Initialize,
    .InitializeForAttach = on_InitializeForAttach,
    .ProfilerAttachComplete = on_ProfilerAttachComplete,
    .ProfilerDetachSucceeded = on_ProfilerDetachSucceeded,
    .LoadAsNotificationOnly = on_LoadAsNotificationOnly,
    .Shutdown = on_Shutdown,
    .AppDomainCreationFinished = on_AppDomainCreationFinished,
    .AppDomainShutdownFinished = on_AppDomainShutdownFinished,
    .AssemblyLoadFinished = on_AssemblyLoadFinished,
    .AssemblyUnloadFinished = on_AssemblyUnloadFinished,
    .ModuleAttachedToAssembly = on_ModuleAttachedToAssembly,
    .ModuleUnloadFinished = on_ModuleUnloadFinished,
    .ExceptionThrown = on_ExceptionThrown,
    .ExceptionSearchFunctionLeave = on_ExceptionSearchFunctionLeave,
    .ExceptionSearchFilterLeave = on_ExceptionSearchFilterLeave,
    .ExceptionUnwindFunctionLeave = on_ExceptionUnwindFunctionLeave,
    .ExceptionUnwindFinallyLeave = on_ExceptionUnwindFinallyLeave,
    .ExceptionCatcherLeave = on_ExceptionCatcherLeave,
    .ExceptionSearchFunctionEnter = on_ExceptionSearchFunctionEnter,
    .ExceptionSearchFilterEnter = on_ExceptionSearchFilterEnter,
    .ExceptionSearchCatcherFound = on_ExceptionSearchCatcherFound,
    .ExceptionUnwindFunctionEnter = on_ExceptionUnwindFunctionEnter,
    .ExceptionUnwindFinallyEnter = on_ExceptionUnwindFinallyEnter,
    .ExceptionCatcherEnter = on_ExceptionCatcherEnter,
    .JITCompilationStarted = on_JITCompilationStarted,
    .JITCompilationFinished = on_JITCompilationFinished,
    .ReJITCompilationStarted = on_ReJITCompilationStarted,
    .GetReJITParameters = on_GetReJITParameters,
    .ReJITCompilationFinished = on_ReJITCompilationFinished,
    .ReJITError = on_ReJITError,
    .JITInlining = on_JITInlining,
};
VTABLE_OVERRIDES_END

/* ---- the manager's lifetime ------------------------------------------------------------ */

static void manager_destroy(void *object)
{
    struct manager *m = object;
    clrie_pm__plugins_free_all(m);
    clrie_pm__raw_hook_free(m);
    clrie_pm_domains_free(m->domains);
    if (m->info)
        m->info->lpVtbl->Release(m->info);
    free(atomic_load(&m->plugins));
    for (struct plugin_list *l = m->retired, *next; l; l = next) {
        next = l->retired_next;
        free(l);
    }
    clrie_pm__jit_rejected_free(m);
    clrie_pm__manager_announced_free(m);
    clrie_os_mutex_finish(&m->announced_lock);
    clrie_pm__logger_drop_host(m);
    clrie_pm_log_finish(&m->log_view);
    clrie_os_mutex_finish(&m->jit_pending_lock);
    clrie_os_recursive_mutex_finish(&m->load_lock);
    clrie_os_mutex_finish(&m->mask_lock);
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

struct manager *clrie_pm__manager_new(void)
{
    struct manager *m = calloc(1, sizeof(*m));
    struct plugin_list *empty = calloc(1, sizeof(*empty));
    if (!m || !empty) {
        free(m);
        free(empty);
        return NULL;
    }
    m->callback.lpVtbl = &callback_vtbl;
    m->init_host = clrie_pm__host_init;
    clrie_plugin_com_init(&m->com, &manager_class);
    clrie_pm_log_init_view(&m->log_view, clrie_pm_process_log());
    m->log = &m->log_view;
    clrie_os_recursive_mutex_init(&m->load_lock);
    clrie_os_mutex_init(&m->mask_lock);
    clrie_os_mutex_init(&m->jit_pending_lock);
    clrie_os_mutex_init(&m->announced_lock);
    atomic_init(&m->plugins, empty);
    atomic_init(&m->memory_line_due, UINT64_MAX); /* armed at Initialize */
    return m;
}
