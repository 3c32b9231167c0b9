/* custom-profiler: a product's own CoreCLR profiler, with its own class ID, that hosts clrie.
 *
 * The runtime loads this module (CORECLR_PROFILER_PATH) and asks it for the class
 * {320C8EA1-5C4D-4081-98EF-7E92CAB2CC75} (CORECLR_PROFILER). Its object answers
 * ICorProfilerCallback up to ICorProfilerCallback11 and hands every callback, unchanged, to a
 * clrie profiler manager made with clrie_pm_profiler_create, which loads the plugins the
 * MicrosoftInstrumentationEngine_ConfigPath64_* config files name, exactly as clrie's engine
 * does. Of its own it writes one line to stderr when the runtime initialises it.
 *
 * The forwarders are generated from the interface table in clrie/abi/corprof.h; the object's
 * IUnknown is libclrie-plugin's COM base (clrie/plugin.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <clrie/abi/corprof.h>
#include <clrie/plugin.h>
#include <clrie/profmgr.h>

/* {320C8EA1-5C4D-4081-98EF-7E92CAB2CC75}: this product's class ID, not clrie's engine's. */
static const CLSID CLSID_CustomProfiler = {
    0x320C8EA1, 0x5C4D, 0x4081, {0x98, 0xEF, 0x7E, 0x92, 0xCA, 0xB2, 0xCC, 0x75}};

struct custom_profiler {
    ICorProfilerCallback11 callback;
    struct clrie_plugin_com com;
    ICorProfilerCallback11 *manager; /* clrie's manager: one reference, dropped in destroy */
};

/* ---- IUnknown: the COM base ------------------------------------------------------------- */

static const struct clrie_plugin_com_iface custom_ifaces[] = {
    CLRIE_PLUGIN_COM_PROFILER_CALLBACK_IFACES(struct custom_profiler, callback),
};

static void custom_destroy(void *object)
{
    struct custom_profiler *p = object;
    p->manager->lpVtbl->Release(p->manager);
    free(p);
}

static const struct clrie_plugin_com_class custom_class = {
    .name = "custom-profiler",
    .ifaces = custom_ifaces,
    .iface_count = CLRIE_PLUGIN_COM_COUNT(custom_ifaces),
    .com_offset = offsetof(struct custom_profiler, com),
    .destroy = custom_destroy,
    .module_ref = true, /* a live profiler object keeps this module loaded */
};

CLRIE_PLUGIN_COM_IUNKNOWN(custom, ICorProfilerCallback11, struct custom_profiler, callback, com)

/* ---- every callback, forwarded to clrie's manager -------------------------------------- */

/* One forwarder per slot of the table; the IUnknown slots and Initialize are this object's own
 * (below), so their forwarders go unused. */
#define FORWARD(ret, name, params, args)                                                           \
    __attribute__((unused)) static ret STDMETHODCALLTYPE forward_##name params                     \
    {                                                                                              \
        ICorProfilerCallback11 *manager =                                                          \
            CLRIE_CONTAINER_OF(This, struct custom_profiler, callback)->manager;                   \
        return manager->lpVtbl->name args;                                                         \
    }
CLRIE_ICORPROFILERCALLBACK11_METHODS(FORWARD, ICorProfilerCallback11 *This, manager)

/* The one thing this profiler does itself: say that it attached, then let clrie attach. */
static HRESULT STDMETHODCALLTYPE custom_Initialize(ICorProfilerCallback11 *This,
                                                   IUnknown *pICorProfilerInfoUnk)
{
    fprintf(stderr, "custom-profiler: attached, forwarding to clrie %s\n", clrie_pm_version());
    return forward_Initialize(This, pICorProfilerInfoUnk);
}

#define FORWARD_SLOT(ret, name, params, args) .name = forward_##name,
/* The later initialisers replace the generated ones for the same slots. */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Winitializer-overrides"
#else
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
#endif
static const struct ICorProfilerCallback11Vtbl custom_vtbl = {
    CLRIE_ICORPROFILERCALLBACK11_METHODS(FORWARD_SLOT, ICorProfilerCallback11 *This, This)
        CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(custom),
    .Initialize = custom_Initialize,
};
#if defined(__clang__)
#pragma clang diagnostic pop
#else
#pragma GCC diagnostic pop
#endif

/* ---- the class factory and the module's exports ---------------------------------------- */

/* IClassFactory::CreateInstance: a new profiler object around a new clrie manager. */
static HRESULT custom_create(const CLSID *clsid, REFIID riid, void **out)
{
    (void)clsid;
    struct custom_profiler *p = calloc(1, sizeof *p);
    if (!p)
        return E_OUTOFMEMORY;
    HRESULT hr = clrie_pm_profiler_create(&IID_ICorProfilerCallback11, (void **)&p->manager);
    if (FAILED(hr)) {
        free(p);
        return hr;
    }
    p->callback.lpVtbl = &custom_vtbl;
    clrie_plugin_com_init(&p->com, &custom_class);
    return clrie_plugin_com_give(&p->com, riid, out); /* *out holds it now, or nothing does */
}

CLRIE_ABI_EXPORT HRESULT STDAPICALLTYPE DllGetClassObject(REFCLSID rclsid, REFIID riid,
                                                          void **ppv);
CLRIE_ABI_EXPORT HRESULT STDAPICALLTYPE DllCanUnloadNow(void);

HRESULT STDAPICALLTYPE DllGetClassObject(REFCLSID rclsid, REFIID riid, void **ppv)
{
    if (!ppv)
        return E_POINTER;
    *ppv = NULL;
    if (!rclsid || !IsEqualCLSID(rclsid, &CLSID_CustomProfiler))
        return CLASS_E_CLASSNOTAVAILABLE;
    return clrie_plugin_get_class_object(custom_create, rclsid, riid, ppv);
}

/* Unloadable only while neither this module nor clrie has handed out an object. */
HRESULT STDAPICALLTYPE DllCanUnloadNow(void)
{
    bool in_use = clrie_plugin_module_can_unload_now() != S_OK || clrie_pm_can_unload_now() != S_OK;
    return in_use ? S_FALSE : S_OK;
}
