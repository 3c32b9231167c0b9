/* The profiler manager's class factory and the library's entry points. */
#include "clrie/profmgr.h"

#include "manager.h"
#include "utf16.h"

/* How many managers were created in this process: the other process-wide state besides the
 * log (see core/log.c). */
static atomic_uint managers_created;

/* The factory is a static object: references keep nothing alive, so none is counted. */
struct factory {
    IClassFactory iface;
    struct clrie_plugin_com com; /* for its class */
};

static const struct clrie_plugin_com_iface factory_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IClassFactory, struct factory, iface),
};
CLRIE_PM_COM_CLASS(factory_class, "IClassFactory", struct factory, com, NULL, factory_ifaces);
#define NO_OWNER(factory) ((void)(factory), (IUnknown *)NULL)
CLRIE_PM_COM_OWNED(factory, IClassFactory, struct factory, iface, com, NO_OWNER)

static HRESULT STDMETHODCALLTYPE factory_CreateInstance(IClassFactory *This, IUnknown *pUnkOuter,
                                                        REFIID riid, void **ppvObject)
{
    if (!ppvObject)
        return E_POINTER;
    *ppvObject = NULL;
    if (pUnkOuter)
        return CLASS_E_NOAGGREGATION;
    return clrie_pm_profiler_create(riid, ppvObject);
}

static HRESULT STDMETHODCALLTYPE factory_LockServer(IClassFactory *This, BOOL fLock)
{
    return S_OK;
}

static const struct IClassFactoryVtbl factory_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(factory),
    .CreateInstance = factory_CreateInstance,
    .LockServer = factory_LockServer,
};

static struct factory factory = {
    .iface = {&factory_vtbl},
    .com = {.cls = &factory_class, .refs = 1},
};

HRESULT clrie_pm_get_class_object(REFCLSID clsid, REFIID iid, void **out)
{
    if (!out)
        return E_POINTER;
    *out = NULL;
    if (!clsid || !iid)
        return E_POINTER;
    if (!IsEqualCLSID(clsid, &CLSID_CProfilerManager)) {
        CLRIE_PM_LOG_ERROR(clrie_pm_process_log(),
                           "asked for class {%08X-%04X-%04X-%02X%02X-%02X%02X%02X%02X%02X%02X}, "
                           "which this engine does not provide (CORECLR_PROFILER should be "
                           "{324F817A-7420-4E6D-B3C1-143FBED6D855})",
                           (unsigned)clsid->Data1, clsid->Data2, clsid->Data3, clsid->Data4[0],
                           clsid->Data4[1], clsid->Data4[2], clsid->Data4[3], clsid->Data4[4],
                           clsid->Data4[5], clsid->Data4[6], clsid->Data4[7]);
        return CLASS_E_CLASSNOTAVAILABLE;
    }
    return factory_QueryInterface(&factory.iface, iid, out);
}

HRESULT clrie_pm_profiler_create(REFIID iid, void **out)
{
    if (!out)
        return E_POINTER;
    *out = NULL;
    if (!iid)
        return E_POINTER;
    struct manager *m = clrie_pm__manager_new();
    if (!m) {
        CLRIE_PM_LOG_ERROR(clrie_pm_process_log(), "out of memory creating the profiler manager");
        return E_OUTOFMEMORY;
    }
    atomic_fetch_add(&managers_created, 1);
    HRESULT hr = m->callback.lpVtbl->QueryInterface(&m->callback, iid, out);
    m->callback.lpVtbl->Release(&m->callback);
    return hr;
}

HRESULT clrie_pm_can_unload_now(void)
{
    return atomic_load(&managers_created) == 0 ? S_OK : S_FALSE;
}

HRESULT clrie_pm_get_logger(IProfilerManagerLogging **out)
{
    if (!out)
        return E_POINTER;
    *out = clrie_pm__logger_global();
    return S_OK;
}

void clrie_pm_free_string(BSTR text)
{
    clrie_pm_bstr_free(text);
}

const char *clrie_pm_version(void)
{
    return CLRIE_VERSION;
}
