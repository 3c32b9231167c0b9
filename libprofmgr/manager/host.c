/* The engine as one plugin sees it: IProfilerManager (1-5) and IProfilerStringManager, plus
 * the logger and wrapped ICorProfilerInfo it hands out. Every interface of a host counts its
 * references on the manager that owns it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clrie/config.h"
#include "clrie/os/fs.h"
#include "manager.h"
#include "types.h"
#include "utf16.h"

#define HOST_OF(iface, member) CLRIE_CONTAINER_OF(iface, struct host, member)

static const struct clrie_plugin_com_iface host_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IProfilerManager, struct host, manager),
    CLRIE_PLUGIN_COM_IFACE(&IID_IProfilerManager2, struct host, manager2),
    CLRIE_PLUGIN_COM_IFACE(&IID_IProfilerManager3, struct host, manager3),
    CLRIE_PLUGIN_COM_IFACE(&IID_IProfilerManager4, struct host, manager4),
    CLRIE_PLUGIN_COM_IFACE(&IID_IProfilerManager5, struct host, manager5),
    CLRIE_PLUGIN_COM_IFACE(&IID_IProfilerStringManager, struct host, strings),
    CLRIE_PLUGIN_COM_IFACE(&IID_IProfilerManagerLogging, struct host, logging.iface),
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethodAttachContext, struct host, attach.iface),
};
/* A host lives as long as its manager (which frees it): references go to the manager. */
#define LOG_OF(host) ((host)->owner->log)
CLRIE_PM_COM_CLASS_LOGGED(host_class, "IProfilerManager", struct host, com, NULL, host_ifaces,
                          LOG_OF);
#define OWNER_OF(host) manager_unknown((host)->owner)

/* IUnknown for each of the host's interfaces. */
#define HOST_IUNKNOWN(Iface, member)                                                               \
    CLRIE_PM_COM_OWNED(member, Iface, struct host, member, com, OWNER_OF)
HOST_IUNKNOWN(IProfilerManager, manager)
HOST_IUNKNOWN(IProfilerManager2, manager2)
HOST_IUNKNOWN(IProfilerManager3, manager3)
HOST_IUNKNOWN(IProfilerManager4, manager4)
HOST_IUNKNOWN(IProfilerManager5, manager5)
HOST_IUNKNOWN(IProfilerStringManager, strings)

/* ---- IProfilerManager ------------------------------------------------------------------ */

/* Loads the plugins named by config files (or folders of them) a host hands over, as the
 * environment's configuration is loaded at start. A ClassGuid already loaded or being loaded
 * (a plugin naming itself from its own Initialize) is refused: see clrie_pm__plugins_load_paths
 * for what it returns. */
static HRESULT STDMETHODCALLTYPE manager_SetupProfilingEnvironment(IProfilerManager *This,
                                                                   BSTR bstrConfigPath[],
                                                                   UINT numConfigPaths)
{
    struct manager *m = HOST_OF(This, manager)->owner;
    if (numConfigPaths && !bstrConfigPath)
        return E_POINTER;
    char **paths = calloc(numConfigPaths ? numConfigPaths : 1, sizeof(*paths));
    if (!paths)
        return E_OUTOFMEMORY;
    HRESULT hr = S_OK;
    for (UINT i = 0; i < numConfigPaths && SUCCEEDED(hr); i++) {
        size_t len = 0;
        if (!bstrConfigPath[i] ||
            clrie_pm_utf16_to_utf8(bstrConfigPath[i], clrie_pm_bstr_len(bstrConfigPath[i]), false,
                                   &paths[i], &len) != 0)
            hr = E_INVALIDARG;
    }
    if (SUCCEEDED(hr))
        hr = clrie_pm__plugins_load_paths(m, (const char *const *)paths, numConfigPaths);
    else
        CLRIE_PM_LOG_ERROR(m->log, "IProfilerManager::SetupProfilingEnvironment: a config path "
                                   "is NULL or not valid UTF-16");
    for (UINT i = 0; i < numConfigPaths; i++)
        free(paths[i]);
    free(paths);
    return hr;
}

static HRESULT STDMETHODCALLTYPE manager_AddRawProfilerHook(IProfilerManager *This,
                                                            IUnknown *pUnkProfilerCallback)
{
    struct manager *m = HOST_OF(This, manager)->owner;
    if (!pUnkProfilerCallback)
        return E_POINTER;
    if (!atomic_load(&m->initializing)) {
        CLRIE_PM_LOG_ERROR(m->log, "a raw profiler hook can only be added while the engine "
                                   "initialises");
        return E_FAIL;
    }
    return clrie_pm__raw_hook_install(m, pUnkProfilerCallback);
}

static HRESULT STDMETHODCALLTYPE manager_RemoveRawProfilerHook(IProfilerManager *This)
{
    struct manager *m = HOST_OF(This, manager)->owner;
    clrie_os_recursive_mutex_lock(&m->load_lock);
    struct raw_hook *old = atomic_exchange(&m->raw_hook, NULL);
    if (old) { /* a callback may still be inside it: freed with the manager */
        old->retired_next = m->retired_hook;
        m->retired_hook = old;
    }
    clrie_os_recursive_mutex_unlock(&m->load_lock);
    return old ? clrie_pm__manager_apply_event_mask(m) : S_FALSE;
}

static HRESULT STDMETHODCALLTYPE manager_GetCorProfilerInfo(IProfilerManager *This,
                                                            IUnknown **ppCorProfiler)
{
    struct host *host = HOST_OF(This, manager);
    if (!ppCorProfiler)
        return E_POINTER;
    manager_AddRef(This);
    *ppCorProfiler = (IUnknown *)(void *)&host->info;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE
manager_GetProfilerHost(IProfilerManager *This, IProfilerManagerHost **ppProfilerManagerHost)
{
    if (ppProfilerManagerHost)
        *ppProfilerManagerHost = NULL;
    return E_NOTIMPL; /* deprecated in CLRIE too */
}

static HRESULT STDMETHODCALLTYPE manager_GetLoggingInstance(IProfilerManager *This,
                                                            IProfilerManagerLogging **ppLogging)
{
    struct host *host = HOST_OF(This, manager);
    if (!ppLogging)
        return E_POINTER;
    manager_AddRef(This);
    *ppLogging = &host->logging.iface;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE manager_SetLoggingHost(IProfilerManager *This,
                                                        IProfilerManagerLoggingHost *pLoggingHost)
{
    return clrie_pm__logger_set_host(HOST_OF(This, manager)->owner, pLoggingHost);
}

static HRESULT STDMETHODCALLTYPE
manager_GetAppDomainCollection(IProfilerManager *This, IAppDomainCollection **ppAppDomainCollection)
{
    struct manager *m = HOST_OF(This, manager)->owner;
    if (!ppAppDomainCollection)
        return E_POINTER;
    if (!m->domains) {
        *ppAppDomainCollection = NULL;
        return E_UNEXPECTED;
    }
    IAppDomainCollection *collection = clrie_pm_domains_collection(m->domains);
    collection->lpVtbl->AddRef(collection);
    *ppAppDomainCollection = collection;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE
manager_CreateSignatureBuilder(IProfilerManager *This, ISignatureBuilder **ppSignatureBuilder)
{
    return clrie_pm_types_signature_builder_new(ppSignatureBuilder);
}

static struct plugin *find_plugin(struct manager *m, const GUID *clsid,
                                  IInstrumentationMethod *method)
{
    struct plugin_list *list = clrie_pm__manager_plugins(m);
    for (size_t i = 0; i < list->count; i++) {
        struct plugin *p = list->items[i];
        if ((clsid && IsEqualCLSID(&p->clsid, clsid)) || (method && p->method == method))
            return p;
    }
    return NULL;
}

static HRESULT STDMETHODCALLTYPE manager_GetInstrumentationMethod(IProfilerManager *This,
                                                                  REFGUID cslid,
                                                                  IUnknown **ppUnknown)
{
    if (!cslid || !ppUnknown)
        return E_POINTER;
    struct manager *m = HOST_OF(This, manager)->owner;
    clrie_pm__manager_plugins_enter(
        m); /* a plugin's own thread may ask while Shutdown releases them */
    struct plugin *p = find_plugin(m, cslid, NULL);
    *ppUnknown = NULL;
    HRESULT hr = p ? p->method->lpVtbl->QueryInterface(p->method, &IID_IUnknown, (void **)ppUnknown)
                   : E_NOINTERFACE;
    clrie_pm__manager_plugins_leave(m);
    return hr;
}

static HRESULT STDMETHODCALLTYPE manager_RemoveInstrumentationMethod(
    IProfilerManager *This, IInstrumentationMethod *pInstrumentationMethod)
{
    struct manager *m = HOST_OF(This, manager)->owner;
    if (!pInstrumentationMethod)
        return E_POINTER;
    clrie_os_recursive_mutex_lock(&m->load_lock);
    struct plugin *p = find_plugin(m, NULL, pInstrumentationMethod);
    HRESULT hr = p ? clrie_pm__manager_publish_plugins(m, NULL, p) : E_INVALIDARG;
    if (SUCCEEDED(hr))
        p->removed = true;
    clrie_os_recursive_mutex_unlock(&m->load_lock);
    if (SUCCEEDED(hr)) {
        CLRIE_PM_LOG_MESSAGE(m->log, "plugin '%s' %s removed", p->name, p->guid_text);
        clrie_pm__manager_apply_event_mask(m);
    }
    return hr;
}

/* A BSTR argument as UTF-8 (NULL or invalid: an empty string the caller need not free). */
static char *utf8_of(BSTR text)
{
    char *utf8 = NULL;
    if (text && clrie_pm_utf16_to_utf8(text, clrie_pm_utf16_len(text), false, &utf8, NULL) == 0)
        return utf8;
    return NULL;
}

/* Loads one plugin (plugins.c). Besides the plugin's own failures, it returns
 * CLRIE_PM__E_ALREADY_LOADED (0x800700B7) when a plugin with this ClassGuid is loaded or being
 * loaded (a plugin adding itself from its own Initialize), 0x800700C1 when the module is not a
 * complete module of this machine (an ELF shared object; on Windows a PE DLL), and
 * E_ACCESSDENIED when the trust rule refuses it; each with an error line. The module is taken
 * as given when it is an absolute path of this system, else in the folder bstrModulePath. */
static HRESULT STDMETHODCALLTYPE
manager_AddInstrumentationMethod(IProfilerManager *This, BSTR bstrModulePath, BSTR bstrName,
                                 BSTR bstrDescription, BSTR bstrModule, BSTR bstrClassGuid,
                                 DWORD dwPriority, IInstrumentationMethod **pInstrumentationMethod)
{
    struct manager *m = HOST_OF(This, manager)->owner;
    char *folder = utf8_of(bstrModulePath), *name = utf8_of(bstrName);
    char *module = utf8_of(bstrModule), *guid_text = utf8_of(bstrClassGuid);
    char *path = NULL;
    GUID clsid;
    HRESULT hr = E_INVALIDARG;
    if (!module || !guid_text ||
        clrie_config_guid_parse(guid_text, strlen(guid_text),
                                (struct clrie_config_guid *)(void *)&clsid) != 0) {
        CLRIE_PM_LOG_ERROR(m->log, "AddInstrumentationMethod: the module and a braced class "
                                   "GUID are required");
        goto out;
    }
    if (clrie_os_path_is_absolute(module) || !folder || !folder[0]) {
        path = strdup(module);
    } else {
        size_t len = strlen(folder);
        const char *between =
            clrie_os_is_separator(folder[len - 1]) ? "" : CLRIE_OS_SEPARATOR_STRING;
        size_t n = len + strlen(between) + strlen(module) + 1;
        path = malloc(n);
        if (path)
            snprintf(path, n, "%s%s%s", folder, between, module);
    }
    hr = path ? clrie_pm__plugins_load(m, name ? name : module, path, &clsid, dwPriority, NULL, 0,
                                       pInstrumentationMethod)
              : E_OUTOFMEMORY;
    if (SUCCEEDED(hr))
        clrie_pm__manager_apply_event_mask(m);
out:
    free(folder);
    free(name);
    free(module);
    free(guid_text);
    free(path);
    return hr;
}

static HRESULT STDMETHODCALLTYPE manager_GetRuntimeType(IProfilerManager *This,
                                                        COR_PRF_RUNTIME_TYPE *pRuntimeType)
{
    struct manager *m = HOST_OF(This, manager)->owner;
    if (!pRuntimeType)
        return E_POINTER;
    if (!m->info)
        return E_UNEXPECTED;
    USHORT instance, major, minor, build, qfe;
    ULONG len;
    return m->info->lpVtbl->GetRuntimeInformation(m->info, &instance, pRuntimeType, &major, &minor,
                                                  &build, &qfe, 0, &len, NULL);
}

static const struct IProfilerManagerVtbl manager_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(manager),
    .SetupProfilingEnvironment = manager_SetupProfilingEnvironment,
    .AddRawProfilerHook = manager_AddRawProfilerHook,
    .RemoveRawProfilerHook = manager_RemoveRawProfilerHook,
    .GetCorProfilerInfo = manager_GetCorProfilerInfo,
    .GetProfilerHost = manager_GetProfilerHost,
    .GetLoggingInstance = manager_GetLoggingInstance,
    .SetLoggingHost = manager_SetLoggingHost,
    .GetAppDomainCollection = manager_GetAppDomainCollection,
    .CreateSignatureBuilder = manager_CreateSignatureBuilder,
    .GetInstrumentationMethod = manager_GetInstrumentationMethod,
    .RemoveInstrumentationMethod = manager_RemoveInstrumentationMethod,
    .AddInstrumentationMethod = manager_AddInstrumentationMethod,
    .GetRuntimeType = manager_GetRuntimeType,
};

/* ---- IProfilerManager2..5 ---------------------------------------------------------------- */

static HRESULT STDMETHODCALLTYPE manager2_DisableProfiling(IProfilerManager2 *This)
{
    struct manager *m = HOST_OF(This, manager2)->owner;
    if (!atomic_load(&m->initializing) && atomic_load(&m->attached))
        return clrie_pm__detach_request(m, HOST_OF(This, manager2)); /* detach.c */
    if (!atomic_load(&m->initializing))
        return E_FAIL; /* only a plugin's Initialize can veto the attach */
    atomic_store(&m->profiling_disabled, true);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE manager2_ApplyMetadata(IProfilerManager2 *This,
                                                        IModuleInfo *pMethodInfo)
{
    struct manager *m = HOST_OF(This, manager2)->owner;
    ModuleID module;
    if (!pMethodInfo)
        return E_POINTER;
    if (!m->info || m->info_version < 7)
        return E_NOTIMPL;
    HRESULT hr = pMethodInfo->lpVtbl->GetModuleID(pMethodInfo, &module);
    if (FAILED(hr))
        return hr;
    return ((ICorProfilerInfo7 *)(void *)m->info)
        ->lpVtbl->ApplyMetaData((ICorProfilerInfo7 *)(void *)m->info, module);
}

static const struct IProfilerManager2Vtbl manager2_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(manager2),
    .DisableProfiling = manager2_DisableProfiling,
    .ApplyMetadata = manager2_ApplyMetadata,
};

static HRESULT STDMETHODCALLTYPE manager3_GetApiVersion(IProfilerManager3 *This, DWORD *pApiVer)
{
    if (!pApiVer)
        return E_POINTER;
    *pApiVer = CLR_INSTRUMENTATION_ENGINE_API_VER;
    return S_OK;
}

static const struct IProfilerManager3Vtbl manager3_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(manager3),
    .GetApiVersion = manager3_GetApiVersion,
};

static HRESULT STDMETHODCALLTYPE
manager4_GetGlobalLoggingInstance(IProfilerManager4 *This, IProfilerManagerLogging **ppLogging)
{
    if (!ppLogging)
        return E_POINTER;
    struct host *host = HOST_OF(This, manager4);
    manager4_AddRef(This);
    *ppLogging = &host->engine_logging.iface;
    return S_OK;
}

static const struct IProfilerManager4Vtbl manager4_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(manager4),
    .GetGlobalLoggingInstance = manager4_GetGlobalLoggingInstance,
};

static HRESULT STDMETHODCALLTYPE manager5_IsInstrumentationMethodRegistered(IProfilerManager5 *This,
                                                                            REFGUID cslid,
                                                                            BOOL *pfRegistered)
{
    if (!cslid || !pfRegistered)
        return E_POINTER;
    *pfRegistered = find_plugin(HOST_OF(This, manager5)->owner, cslid, NULL) != NULL;
    return S_OK;
}

static const struct IProfilerManager5Vtbl manager5_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(manager5),
    .IsInstrumentationMethodRegistered = manager5_IsInstrumentationMethodRegistered,
};

static HRESULT STDMETHODCALLTYPE strings_FreeString(IProfilerStringManager *This, BSTR bstr)
{
    clrie_pm_bstr_free(bstr);
    return S_OK;
}

static const struct IProfilerStringManagerVtbl strings_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(strings),
    .FreeString = strings_FreeString,
};

void clrie_pm__host_init(struct host *host, struct manager *owner, const char *guid36)
{
    host->manager.lpVtbl = &manager_vtbl;
    host->manager2.lpVtbl = &manager2_vtbl;
    host->manager3.lpVtbl = &manager3_vtbl;
    host->manager4.lpVtbl = &manager4_vtbl;
    host->manager5.lpVtbl = &manager5_vtbl;
    host->strings.lpVtbl = &strings_vtbl;
    clrie_pm__logger_init(&host->logging, (IUnknown *)(void *)&host->manager, owner->log, guid36);
    clrie_pm__logger_init(&host->engine_logging, (IUnknown *)(void *)&host->manager, owner->log,
                          NULL);
    clrie_pm__attach_context_init(&host->attach, (IUnknown *)(void *)&host->manager);
    host->info.lpVtbl = &clrie_pm__host_info_vtbl;
    clrie_plugin_com_init(&host->com, &host_class);
    host->owner = owner;
    host->guid36 = guid36;
    atomic_init(&host->event_mask, 0);
    atomic_init(&host->event_mask_high, 0);
}
