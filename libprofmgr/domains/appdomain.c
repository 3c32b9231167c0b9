/* IAppDomainInfo: one app domain. CoreCLR (.NET 10, seen in a real process) reports two: its
 * system domain, named "System.Private.CoreLib.dll", which holds CoreLib and is reported first,
 * then the app's domain, named "DefaultDomain" (other hosts and versions name it "clrhost" or
 * after the app). The system/shared/default flags come from the names as in CLRIE, with clrie's
 * fallback for other names; see classify_locked in domains.c. */
#include "domains_private.h"

#include <stdlib.h>

static struct clrie_pm_appdomain *from_iface(IAppDomainInfo *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct clrie_pm_appdomain, iface);
}

static void appdomain_destroy(void *object)
{
    struct clrie_pm_appdomain *d = object;
    /* Out of the tables (they hold a reference), so the lists are empty. */
    clrie_pm_data_container_finish(&d->data);
    clrie_pm_text_finish(&d->name);
    clrie_pm_ptr_list_finish(&d->assemblies);
    clrie_pm_ptr_list_finish(&d->modules);
    CLRIE_PM_RELEASE(d->domains);
    free(d);
}

static const struct clrie_plugin_com_iface appdomain_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IAppDomainInfo, struct clrie_pm_appdomain, iface),
    CLRIE_PLUGIN_COM_IFACE(&IID_IDataContainer, struct clrie_pm_appdomain, data.iface),
};
CLRIE_PM_COM_CLASS(appdomain_class, "IAppDomainInfo", struct clrie_pm_appdomain, com,
                   appdomain_destroy, appdomain_ifaces);
CLRIE_PLUGIN_COM_IUNKNOWN(appdomain, IAppDomainInfo, struct clrie_pm_appdomain, iface, com)

static HRESULT STDMETHODCALLTYPE appdomain_GetAppDomainId(IAppDomainInfo *This,
                                                          AppDomainID *pAppDomainId)
{
    if (!pAppDomainId)
        return E_POINTER;
    *pAppDomainId = from_iface(This)->id;
    return S_OK;
}

/* One of the flags the name gave the domain (domains.c). */
static HRESULT flag(IAppDomainInfo *This, const bool *field, BOOL *pbValue)
{
    struct clrie_pm_appdomain *d = from_iface(This);
    if (!pbValue)
        return E_POINTER;
    clrie_os_mutex_lock(&d->domains->lock);
    *pbValue = *field ? TRUE : FALSE;
    clrie_os_mutex_unlock(&d->domains->lock);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE appdomain_GetIsSystemDomain(IAppDomainInfo *This, BOOL *pbValue)
{
    return flag(This, &from_iface(This)->is_system, pbValue);
}

static HRESULT STDMETHODCALLTYPE appdomain_GetIsSharedDomain(IAppDomainInfo *This, BOOL *pbValue)
{
    return flag(This, &from_iface(This)->is_shared, pbValue);
}

static HRESULT STDMETHODCALLTYPE appdomain_GetIsDefaultDomain(IAppDomainInfo *This, BOOL *pbValue)
{
    return flag(This, &from_iface(This)->is_default, pbValue);
}

static HRESULT STDMETHODCALLTYPE appdomain_GetName(IAppDomainInfo *This, BSTR *pbstrName)
{
    struct clrie_pm_appdomain *d = from_iface(This);
    if (!pbstrName)
        return E_POINTER;
    clrie_os_mutex_lock(&d->domains->lock);
    HRESULT hr = clrie_pm_text_to_bstr(d->name.text, d->name.len, pbstrName);
    clrie_os_mutex_unlock(&d->domains->lock);
    return hr;
}

static HRESULT STDMETHODCALLTYPE appdomain_GetAssemblies(IAppDomainInfo *This,
                                                         IEnumAssemblyInfo **ppAssemblyInfos)
{
    struct clrie_pm_appdomain *d = from_iface(This);
    return clrie_pm_enum_from_list(d->domains, &IID_IEnumAssemblyInfo, &d->assemblies, NULL, NULL,
                                   (void **)ppAssemblyInfos);
}

static HRESULT STDMETHODCALLTYPE appdomain_GetModules(IAppDomainInfo *This,
                                                      IEnumModuleInfo **ppModuleInfos)
{
    struct clrie_pm_appdomain *d = from_iface(This);
    return clrie_pm_enum_from_list(d->domains, &IID_IEnumModuleInfo, &d->modules, NULL, NULL,
                                   (void **)ppModuleInfos);
}

static HRESULT STDMETHODCALLTYPE appdomain_GetAssemblyInfoById(IAppDomainInfo *This,
                                                               AssemblyID assemblyID,
                                                               IAssemblyInfo **ppAssemblyInfo)
{
    struct clrie_pm_appdomain *d = from_iface(This);
    if (!ppAssemblyInfo)
        return E_POINTER;
    clrie_os_mutex_lock(&d->domains->lock);
    struct clrie_pm_assembly *a = clrie_pm_id_map_get(&d->domains->assembly_map, assemblyID);
    if (a && a->appdomain == d)
        CLRIE_PM_ADDREF(a);
    else
        a = NULL;
    clrie_os_mutex_unlock(&d->domains->lock);
    *ppAssemblyInfo = a ? &a->iface : NULL;
    return a ? S_OK : E_FAIL;
}

static HRESULT STDMETHODCALLTYPE appdomain_GetAssemblyInfosByName(
    IAppDomainInfo *This, BSTR pszAssemblyName, IEnumAssemblyInfo **ppAssemblyInfos)
{
    struct clrie_pm_appdomain *d = from_iface(This);
    if (!pszAssemblyName) {
        if (ppAssemblyInfos)
            *ppAssemblyInfos = NULL;
        return E_POINTER;
    }
    return clrie_pm_enum_from_list(d->domains, &IID_IEnumAssemblyInfo, &d->assemblies,
                                   clrie_pm_assembly_has_name, pszAssemblyName,
                                   (void **)ppAssemblyInfos);
}

static HRESULT STDMETHODCALLTYPE appdomain_GetModuleCount(IAppDomainInfo *This,
                                                          ULONG *pcModuleInfos)
{
    struct clrie_pm_appdomain *d = from_iface(This);
    if (!pcModuleInfos)
        return E_POINTER;
    clrie_os_mutex_lock(&d->domains->lock);
    *pcModuleInfos = (ULONG)d->modules.count;
    clrie_os_mutex_unlock(&d->domains->lock);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE appdomain_GetModuleInfoById(IAppDomainInfo *This,
                                                             ModuleID moduleId,
                                                             IModuleInfo **ppModuleInfo)
{
    struct clrie_pm_appdomain *d = from_iface(This);
    if (!ppModuleInfo)
        return E_POINTER;
    clrie_os_mutex_lock(&d->domains->lock);
    struct clrie_pm_module *m = clrie_pm_id_map_get(&d->domains->module_map, moduleId);
    if (m && m->appdomain == d)
        CLRIE_PM_ADDREF(m);
    else
        m = NULL;
    clrie_os_mutex_unlock(&d->domains->lock);
    *ppModuleInfo = m ? (IModuleInfo *)(void *)&m->iface : NULL;
    return m ? S_OK : E_FAIL;
}

static HRESULT STDMETHODCALLTYPE appdomain_GetModuleInfosByMvid(IAppDomainInfo *This, GUID mvid,
                                                                IEnumModuleInfo **ppModuleInfo)
{
    struct clrie_pm_appdomain *d = from_iface(This);
    return clrie_pm_enum_from_list(d->domains, &IID_IEnumModuleInfo, &d->modules,
                                   clrie_pm_module_has_mvid, &mvid, (void **)ppModuleInfo);
}

static HRESULT STDMETHODCALLTYPE appdomain_GetModuleInfosByName(IAppDomainInfo *This,
                                                                BSTR pszModuleName,
                                                                IEnumModuleInfo **ppModuleInfo)
{
    struct clrie_pm_appdomain *d = from_iface(This);
    if (!pszModuleName) {
        if (ppModuleInfo)
            *ppModuleInfo = NULL;
        return E_POINTER;
    }
    return clrie_pm_enum_from_list(d->domains, &IID_IEnumModuleInfo, &d->modules,
                                   clrie_pm_module_has_name, pszModuleName, (void **)ppModuleInfo);
}

static const struct IAppDomainInfoVtbl appdomain_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(appdomain),
    .GetAppDomainId = appdomain_GetAppDomainId,
    .GetIsSystemDomain = appdomain_GetIsSystemDomain,
    .GetIsSharedDomain = appdomain_GetIsSharedDomain,
    .GetIsDefaultDomain = appdomain_GetIsDefaultDomain,
    .GetName = appdomain_GetName,
    .GetAssemblies = appdomain_GetAssemblies,
    .GetModules = appdomain_GetModules,
    .GetAssemblyInfoById = appdomain_GetAssemblyInfoById,
    .GetAssemblyInfosByName = appdomain_GetAssemblyInfosByName,
    .GetModuleCount = appdomain_GetModuleCount,
    .GetModuleInfoById = appdomain_GetModuleInfoById,
    .GetModuleInfosByMvid = appdomain_GetModuleInfosByMvid,
    .GetModuleInfosByName = appdomain_GetModuleInfosByName,
};

HRESULT clrie_pm_appdomain_new(struct clrie_pm_domains *domains, AppDomainID id,
                               struct clrie_pm_text name, struct clrie_pm_appdomain **out)
{
    struct clrie_pm_appdomain *d = calloc(1, sizeof(*d));
    if (!d) {
        clrie_pm_text_finish(&name);
        return E_OUTOFMEMORY;
    }
    d->iface.lpVtbl = &appdomain_vtbl;
    clrie_pm_data_container_init(&d->data, CLRIE_PM_UNKNOWN(d));
    clrie_plugin_com_init(&d->com, &appdomain_class);
    CLRIE_PM_ADDREF(domains);
    d->domains = domains;
    d->id = id;
    d->name = name;
    *out = d;
    return S_OK;
}
