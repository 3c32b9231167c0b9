/* IAppDomainCollection: the process-wide view plugins get from IProfilerManager, over the
 * tables domains.c fills (registry.c reads them), and the collection's lifetime.
 *
 * GetAppDomainIDs does what its signature says (CLRIE's fails whenever the buffer is large
 * enough): *pcActual is the number of domains; the IDs are written up to cAppDomains; S_OK when
 * they all fitted (or for a size query with a NULL buffer), else E_NOT_SUFFICIENT_BUFFER.
 * GetMethodInfoById asks the manager's method factory (domains.h) for an info-only method. */
#include "domains_private.h"

#include <stdlib.h>

#define E_NOT_SUFFICIENT_BUFFER CLRIE_HRESULT(0x8007007Au)

static struct clrie_pm_domains *from_iface(IAppDomainCollection *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct clrie_pm_domains, iface);
}

/* Every object holds a reference, so the tables are empty by now. */
static void collection_destroy(void *object)
{
    struct clrie_pm_domains *domains = object;
    clrie_pm_data_container_finish(&domains->data);
    clrie_pm_ptr_list_finish(&domains->domain_list);
    clrie_pm_id_map_finish(&domains->domain_map);
    clrie_pm_id_map_finish(&domains->assembly_map);
    clrie_pm_id_map_finish(&domains->module_map);
    clrie_os_mutex_finish(&domains->lock);
    free(domains);
}

static const struct clrie_plugin_com_iface collection_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IAppDomainCollection, struct clrie_pm_domains, iface),
    CLRIE_PLUGIN_COM_IFACE(&IID_IDataContainer, struct clrie_pm_domains, data.iface),
};
CLRIE_PM_COM_CLASS(collection_class, "IAppDomainCollection", struct clrie_pm_domains, com,
                   collection_destroy, collection_ifaces);
CLRIE_PLUGIN_COM_IUNKNOWN(collection, IAppDomainCollection, struct clrie_pm_domains, iface, com)

static HRESULT STDMETHODCALLTYPE collection_GetAppDomainCount(IAppDomainCollection *This,
                                                              DWORD *pdwCount)
{
    struct clrie_pm_domains *d = from_iface(This);
    if (!pdwCount)
        return E_POINTER;
    clrie_os_mutex_lock(&d->lock);
    *pdwCount = (DWORD)d->domain_list.count;
    clrie_os_mutex_unlock(&d->lock);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE collection_GetAppDomainById(IAppDomainCollection *This,
                                                             AppDomainID appDomainId,
                                                             IAppDomainInfo **ppAppDomainInfo)
{
    struct clrie_pm_domains *d = from_iface(This);
    if (!ppAppDomainInfo)
        return E_POINTER;
    struct clrie_pm_appdomain *dom = clrie_pm_domains_find(d, &d->domain_map, appDomainId);
    *ppAppDomainInfo = dom ? &dom->iface : NULL;
    return dom ? S_OK : E_FAIL;
}

static HRESULT STDMETHODCALLTYPE collection_GetAppDomainIDs(IAppDomainCollection *This,
                                                            DWORD cAppDomains, DWORD *pcActual,
                                                            AppDomainID *AppDomainIDs)
{
    struct clrie_pm_domains *d = from_iface(This);
    if (!pcActual || (!AppDomainIDs && cAppDomains))
        return E_POINTER;
    clrie_os_mutex_lock(&d->lock);
    size_t count = d->domain_list.count;
    for (size_t i = 0; i < count && i < cAppDomains; i++)
        AppDomainIDs[i] = ((struct clrie_pm_appdomain *)d->domain_list.items[i])->id;
    clrie_os_mutex_unlock(&d->lock);
    *pcActual = (DWORD)count;
    return (!AppDomainIDs || count <= cAppDomains) ? S_OK : E_NOT_SUFFICIENT_BUFFER;
}

static HRESULT STDMETHODCALLTYPE collection_GetAppDomains(IAppDomainCollection *This,
                                                          IEnumAppDomainInfo **ppEnumAppDomains)
{
    struct clrie_pm_domains *d = from_iface(This);
    return clrie_pm_enum_from_list(d, &IID_IEnumAppDomainInfo, &d->domain_list, NULL, NULL,
                                   (void **)ppEnumAppDomains);
}

static HRESULT STDMETHODCALLTYPE collection_GetAssemblyInfoById(IAppDomainCollection *This,
                                                                AssemblyID assemblyID,
                                                                IAssemblyInfo **ppAssemblyInfo)
{
    struct clrie_pm_domains *d = from_iface(This);
    if (!ppAssemblyInfo)
        return E_POINTER;
    struct clrie_pm_assembly *a = clrie_pm_domains_find(d, &d->assembly_map, assemblyID);
    *ppAssemblyInfo = a ? &a->iface : NULL;
    return a ? S_OK : E_FAIL;
}

static HRESULT STDMETHODCALLTYPE collection_GetModuleInfoById(IAppDomainCollection *This,
                                                              ModuleID moduleID,
                                                              IModuleInfo **ppModuleInfo)
{
    return clrie_pm_domains_find_module(from_iface(This), moduleID, ppModuleInfo);
}

static HRESULT STDMETHODCALLTYPE collection_GetModuleInfosByMvid(IAppDomainCollection *This,
                                                                 GUID mvid,
                                                                 IEnumModuleInfo **ppEnum)
{
    struct clrie_pm_domains *d = from_iface(This);
    if (!ppEnum)
        return E_POINTER;
    *ppEnum = NULL;
    clrie_os_mutex_lock(&d->lock);
    struct clrie_pm_enum *e = clrie_pm_enum_new(&IID_IEnumModuleInfo, d->module_map.count, NULL, 0);
    for (size_t i = 0; e && i < d->domain_list.count; i++) {
        struct clrie_pm_appdomain *dom = d->domain_list.items[i];
        for (size_t j = 0; j < dom->modules.count; j++)
            if (clrie_pm_module_has_mvid(dom->modules.items[j], &mvid))
                clrie_pm_enum_add(e, CLRIE_PM_UNKNOWN(dom->modules.items[j]));
    }
    clrie_os_mutex_unlock(&d->lock);
    if (!e)
        return E_OUTOFMEMORY;
    *ppEnum = clrie_pm_enum_iface(e);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE collection_GetMethodInfoById(IAppDomainCollection *This,
                                                              FunctionID functionID,
                                                              IMethodInfo **ppMethodInfo)
{
    struct clrie_pm_domains *d = CLRIE_CONTAINER_OF(This, struct clrie_pm_domains, iface);
    if (!ppMethodInfo)
        return E_POINTER;
    *ppMethodInfo = NULL;
    if (!d->method_factory.by_function)
        return E_NOTIMPL;
    return d->method_factory.by_function(d->method_factory.ctx, functionID, ppMethodInfo);
}

void clrie_pm_domains_set_method_factory(struct clrie_pm_domains *domains,
                                         const struct clrie_pm_method_factory *factory)
{
    domains->method_factory = *factory;
}

static const struct IAppDomainCollectionVtbl collection_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(collection),
    .GetAppDomainCount = collection_GetAppDomainCount,
    .GetAppDomainById = collection_GetAppDomainById,
    .GetAppDomainIDs = collection_GetAppDomainIDs,
    .GetAppDomains = collection_GetAppDomains,
    .GetAssemblyInfoById = collection_GetAssemblyInfoById,
    .GetModuleInfoById = collection_GetModuleInfoById,
    .GetModuleInfosByMvid = collection_GetModuleInfosByMvid,
    .GetMethodInfoById = collection_GetMethodInfoById,
};

void clrie_pm__collection_init(struct clrie_pm_domains *domains)
{
    domains->iface.lpVtbl = &collection_vtbl;
    clrie_pm_data_container_init(&domains->data, CLRIE_PM_UNKNOWN(domains));
    clrie_plugin_com_init(&domains->com, &collection_class);
}
