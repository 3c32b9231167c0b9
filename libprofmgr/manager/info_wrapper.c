/* The ICorProfilerInfo a plugin (or the raw hook) is handed: every slot forwards to the
 * runtime's, except the event mask, which is recorded for that plugin and combined with every
 * other plugin's before the runtime is told. That record is what lets the engine deliver to
 * each plugin only the events it asked for. */
#include <stddef.h>

#include "domains.h"
#include "hook_turn.h"
#include "manager.h"

#define SLOT_OF(name) (offsetof(struct ICorProfilerInfo15Vtbl, name) / sizeof(void *))

static const size_t info_slots[] = {
    [3] = CLRIE_ABI_SLOT_COUNT(CLRIE_ICORPROFILERINFO3_METHODS),
    [4] = CLRIE_ABI_SLOT_COUNT(CLRIE_ICORPROFILERINFO4_METHODS),
    [5] = CLRIE_ABI_SLOT_COUNT(CLRIE_ICORPROFILERINFO5_METHODS),
    [6] = CLRIE_ABI_SLOT_COUNT(CLRIE_ICORPROFILERINFO6_METHODS),
    [7] = CLRIE_ABI_SLOT_COUNT(CLRIE_ICORPROFILERINFO7_METHODS),
    [8] = CLRIE_ABI_SLOT_COUNT(CLRIE_ICORPROFILERINFO8_METHODS),
    [9] = CLRIE_ABI_SLOT_COUNT(CLRIE_ICORPROFILERINFO9_METHODS),
    [10] = CLRIE_ABI_SLOT_COUNT(CLRIE_ICORPROFILERINFO10_METHODS),
    [11] = CLRIE_ABI_SLOT_COUNT(CLRIE_ICORPROFILERINFO11_METHODS),
    [12] = CLRIE_ABI_SLOT_COUNT(CLRIE_ICORPROFILERINFO12_METHODS),
    [13] = CLRIE_ABI_SLOT_COUNT(CLRIE_ICORPROFILERINFO13_METHODS),
    [14] = CLRIE_ABI_SLOT_COUNT(CLRIE_ICORPROFILERINFO14_METHODS),
    [15] = CLRIE_ABI_SLOT_COUNT(CLRIE_ICORPROFILERINFO15_METHODS),
};

static struct host *host_of(ICorProfilerInfo15 *info)
{
    return CLRIE_CONTAINER_OF(info, struct host, info);
}

/* The runtime's interface, if it has this slot (a plugin that casts past what QueryInterface
 * gave it gets E_NOTIMPL instead of a call into the unknown). */
static ICorProfilerInfo15 *runtime_with_slot(ICorProfilerInfo15 *This, size_t slot)
{
    struct manager *m = host_of(This)->owner;
    return m->info && slot < info_slots[m->info_version] ? m->info : NULL;
}

#define FORWARD(ret, name, params, args)                                                           \
    __attribute__((unused)) static ret STDMETHODCALLTYPE fwd_##name params                         \
    {                                                                                              \
        ICorProfilerInfo15 *inner = runtime_with_slot(This, SLOT_OF(name));                        \
        return inner ? inner->lpVtbl->name args : (ret)E_NOTIMPL;                                  \
    }
CLRIE_ICORPROFILERINFO15_METHODS(FORWARD, ICorProfilerInfo15 *This, inner)

/* Special: not a class, since what it answers depends on the runtime's version; like its
 * host's interfaces, it counts its references on the host (com.h's owned objects). */
static HRESULT STDMETHODCALLTYPE on_QueryInterface(ICorProfilerInfo15 *This, REFIID riid,
                                                   void **ppvObject)
{
    struct manager *m = host_of(This)->owner;
    if (!ppvObject)
        return E_POINTER;
    *ppvObject = NULL;
    if (!riid)
        return E_POINTER;
    /* Only the versions the runtime itself implements. */
    for (int v = 0; v <= m->info_version && clrie_pm__info_iid(v); v++) {
        if (IsEqualIID(riid, clrie_pm__info_iid(v))) {
            clrie_pm__com_add_ref_owned(&host_of(This)->com, manager_unknown(m));
            *ppvObject = This;
            return S_OK;
        }
    }
    return E_NOINTERFACE;
}

static ULONG STDMETHODCALLTYPE on_AddRef(ICorProfilerInfo15 *This)
{
    struct host *host = host_of(This);
    return clrie_pm__com_add_ref_owned(&host->com, manager_unknown(host->owner));
}

static ULONG STDMETHODCALLTYPE on_Release(ICorProfilerInfo15 *This)
{
    struct host *host = host_of(This);
    return clrie_pm__com_release_owned(&host->com, manager_unknown(host->owner));
}

/* Records what this plugin asks for; the runtime gets the union. A refusal (the runtime will
 * not change immutable flags after Initialize) leaves the plugin's record as it was. */
static HRESULT set_mask(struct host *host, DWORD low, DWORD high, bool with_high)
{
    DWORD old_low = atomic_exchange(&host->event_mask, low);
    DWORD old_high = with_high ? atomic_exchange(&host->event_mask_high, high)
                               : atomic_load(&host->event_mask_high);
    HRESULT hr = clrie_pm__manager_apply_event_mask(host->owner);
    if (FAILED(hr)) {
        atomic_store(&host->event_mask, old_low);
        atomic_store(&host->event_mask_high, old_high);
        clrie_pm__manager_apply_event_mask(host->owner);
        if (clrie_pm_log_enabled(host->owner->log, CLRIE_PM_LOG_ERRORS))
            clrie_pm_log_write(host->owner->log, CLRIE_PM_LOG_ERRORS, host->guid36,
                               "the runtime refused event mask 0x%08X, high 0x%08X "
                               "(hr 0x%08X)",
                               (unsigned)low, (unsigned)high, (unsigned)hr);
    }
    return hr;
}

static HRESULT STDMETHODCALLTYPE on_SetEventMask(ICorProfilerInfo15 *This, DWORD dwEvents)
{
    return set_mask(host_of(This), dwEvents, 0, false);
}

static HRESULT STDMETHODCALLTYPE on_SetEventMask2(ICorProfilerInfo15 *This, DWORD dwEventsLow,
                                                  DWORD dwEventsHigh)
{
    if (host_of(This)->owner->info_version < 5)
        return E_NOTIMPL;
    return set_mask(host_of(This), dwEventsLow, dwEventsHigh, true);
}

/* A plugin reads back its own mask, so `get, add a flag, set` keeps meaning "mine". */
static HRESULT STDMETHODCALLTYPE on_GetEventMask(ICorProfilerInfo15 *This, DWORD *pdwEvents)
{
    if (!pdwEvents)
        return E_POINTER;
    *pdwEvents = atomic_load(&host_of(This)->event_mask);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE on_GetEventMask2(ICorProfilerInfo15 *This, DWORD *pdwEventsLow,
                                                  DWORD *pdwEventsHigh)
{
    if (!pdwEventsLow || !pdwEventsHigh)
        return E_POINTER;
    *pdwEventsLow = atomic_load(&host_of(This)->event_mask);
    *pdwEventsHigh = atomic_load(&host_of(This)->event_mask_high);
    return S_OK;
}

/* ReJIT requests and reverts, recorded per party (hook_turn.h): a plugin's here, the raw
 * hook's below. */
#define REJIT_SLOTS(prefix, party)                                                                 \
    static HRESULT STDMETHODCALLTYPE prefix##RequestReJIT(                                         \
        ICorProfilerInfo15 *This, ULONG cFunctions, ModuleID moduleIds[], mdMethodDef methodIds[]) \
    {                                                                                              \
        return clrie_pm__rejit_request(host_of(This)->owner, party, false, 0, cFunctions,          \
                                       moduleIds, methodIds);                                      \
    }                                                                                              \
    static HRESULT STDMETHODCALLTYPE prefix##RequestReJITWithInliners(                             \
        ICorProfilerInfo15 *This, DWORD dwRejitFlags, ULONG cFunctions, ModuleID moduleIds[],      \
        mdMethodDef methodIds[])                                                                   \
    {                                                                                              \
        return clrie_pm__rejit_request(host_of(This)->owner, party, true, dwRejitFlags,            \
                                       cFunctions, moduleIds, methodIds);                          \
    }                                                                                              \
    static HRESULT STDMETHODCALLTYPE prefix##RequestRevert(                                        \
        ICorProfilerInfo15 *This, ULONG cFunctions, ModuleID moduleIds[], mdMethodDef methodIds[], \
        HRESULT status[])                                                                          \
    {                                                                                              \
        return clrie_pm__rejit_revert(host_of(This)->owner, party, cFunctions, moduleIds,          \
                                      methodIds, status);                                          \
    }
REJIT_SLOTS(plugin_, CLRIE_PM_REJIT_PLUGINS)
REJIT_SLOTS(hook_, CLRIE_PM_REJIT_HOOK)

#define INIT_FORWARD(ret, name, params, args) .name = fwd_##name,
/* Every wrapped info: the runtime's slots, then its own lifetime and event mask. */
#define COMMON_SLOTS                                                                               \
    CLRIE_ICORPROFILERINFO15_METHODS(INIT_FORWARD, ICorProfilerInfo15 *This, This)                 \
        .QueryInterface = on_QueryInterface,                                                       \
   .AddRef = on_AddRef, .Release = on_Release, .SetEventMask = on_SetEventMask,                    \
   .SetEventMask2 = on_SetEventMask2, .GetEventMask = on_GetEventMask,                             \
   .GetEventMask2 = on_GetEventMask2

VTABLE_OVERRIDES_BEGIN
const struct ICorProfilerInfo15Vtbl clrie_pm__host_info_vtbl = {
    COMMON_SLOTS,
    .RequestReJIT = plugin_RequestReJIT,
    .RequestReJITWithInliners = plugin_RequestReJITWithInliners,
    .RequestRevert = plugin_RequestRevert,
};
VTABLE_OVERRIDES_END

/* The raw hook's: during its turn on a method it sees the plugins' work (hook_turn.h). */
static HRESULT STDMETHODCALLTYPE hook_GetILFunctionBody(ICorProfilerInfo15 *This, ModuleID moduleId,
                                                        mdMethodDef methodId,
                                                        LPCBYTE *ppMethodHeader,
                                                        ULONG *pcbMethodSize)
{
    struct manager *m = host_of(This)->owner;
    if (!m->info)
        return E_NOTIMPL;
    return clrie_pm__hook_get_il_function_body(m->info, moduleId, methodId, ppMethodHeader,
                                               pcbMethodSize, m);
}

static HRESULT STDMETHODCALLTYPE hook_SetILFunctionBody(ICorProfilerInfo15 *This, ModuleID moduleId,
                                                        mdMethodDef methodid,
                                                        LPCBYTE pbNewILMethodHeader)
{
    struct manager *m = host_of(This)->owner;
    if (!m->info)
        return E_NOTIMPL;
    return clrie_pm__hook_set_il_function_body(m->info, moduleId, methodid, pbNewILMethodHeader, m);
}

static HRESULT STDMETHODCALLTYPE hook_SetILInstrumentedCodeMap(ICorProfilerInfo15 *This,
                                                               FunctionID functionId,
                                                               BOOL fStartJit, ULONG cILMapEntries,
                                                               COR_IL_MAP rgILMapEntries[])
{
    struct manager *m = host_of(This)->owner;
    if (!m->info)
        return E_NOTIMPL;
    return clrie_pm__hook_set_il_map(m->info, functionId, fStartJit, cILMapEntries, rgILMapEntries,
                                     m);
}

VTABLE_OVERRIDES_BEGIN
const struct ICorProfilerInfo15Vtbl clrie_pm__hook_info_vtbl = {
    COMMON_SLOTS,
    .GetILFunctionBody = hook_GetILFunctionBody,
    .SetILFunctionBody = hook_SetILFunctionBody,
    .SetILInstrumentedCodeMap = hook_SetILInstrumentedCodeMap,
    .RequestReJIT = hook_RequestReJIT,
    .RequestReJITWithInliners = hook_RequestReJITWithInliners,
    .RequestRevert = hook_RequestRevert,
};
VTABLE_OVERRIDES_END
