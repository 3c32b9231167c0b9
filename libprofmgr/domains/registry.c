/* The collection's tables as the objects and the runtime's unload events see them: finding an
 * object by ID, listing a parent's children into an enumerator, and taking objects out when the
 * runtime unloads them. Everything here runs under domains->lock (domains_private.h); objects
 * are created and put into the tables by domains.c. */
#include "domains_private.h"

#include <stdlib.h>

/* The object with that ID in map, AddRef'd, or NULL. */
void *clrie_pm_domains_find(struct clrie_pm_domains *d, struct clrie_pm_id_map *map, UINT_PTR id)
{
    clrie_os_mutex_lock(&d->lock);
    void *object = clrie_pm_id_map_get(map, id);
    if (object)
        CLRIE_PM_ADDREF(object);
    clrie_os_mutex_unlock(&d->lock);
    return object;
}

/* Filled under the lock straight into the enumerator: no temporary array. */
HRESULT clrie_pm_enum_from_list(struct clrie_pm_domains *domains, const IID *iid,
                                const struct clrie_pm_ptr_list *list,
                                bool (*keep)(void *object, const void *arg), const void *arg,
                                void **out)
{
    if (!out)
        return E_POINTER;
    *out = NULL;
    clrie_os_mutex_lock(&domains->lock);
    struct clrie_pm_enum *e = clrie_pm_enum_new(iid, list->count, NULL, 0);
    if (e)
        for (size_t i = 0; i < list->count; i++)
            if (!keep || keep(list->items[i], arg))
                clrie_pm_enum_add(e, CLRIE_PM_UNKNOWN(list->items[i]));
    clrie_os_mutex_unlock(&domains->lock);
    if (!e)
        return E_OUTOFMEMORY;
    *out = clrie_pm_enum_iface(e);
    return S_OK;
}

/* Takes module m out of the tables, under the lock. Its tables reference is the caller's. */
static void detach_module_locked(struct clrie_pm_domains *d, struct clrie_pm_module *m)
{
    clrie_pm_id_map_remove(&d->module_map, m->id);
    clrie_pm_ptr_list_remove(&m->assembly->modules, m);
    clrie_pm_ptr_list_remove(&m->appdomain->modules, m);
    if (m->assembly->manifest == m)
        m->assembly->manifest = NULL;
    m->loaded = false;
}

static void release_all(struct clrie_pm_ptr_list *list)
{
    for (size_t i = 0; i < list->count; i++)
        CLRIE_PM_RELEASE(list->items[i]);
    clrie_pm_ptr_list_finish(list);
}

HRESULT clrie_pm_domains_module_unloaded(struct clrie_pm_domains *domains, ModuleID id,
                                         IModuleInfo **out)
{
    if (out)
        *out = NULL;
    clrie_os_mutex_lock(&domains->lock);
    struct clrie_pm_module *m = clrie_pm_id_map_get(&domains->module_map, id);
    if (m)
        detach_module_locked(domains, m);
    clrie_os_mutex_unlock(&domains->lock);
    if (!m)
        return S_FALSE;
    give_to_caller(m, (void **)out);
    return S_OK;
}

HRESULT clrie_pm_domains_assembly_unloaded(struct clrie_pm_domains *domains, AssemblyID id,
                                           IAssemblyInfo **out)
{
    struct clrie_pm_ptr_list modules = {0};
    if (out)
        *out = NULL;
    clrie_os_mutex_lock(&domains->lock);
    struct clrie_pm_assembly *a = clrie_pm_id_map_remove(&domains->assembly_map, id);
    if (a) {
        clrie_pm_ptr_list_remove(&a->appdomain->assemblies, a);
        /* Its modules leave with it (CLRIE's fabricated module unloads). */
        modules = a->modules;
        a->modules = (struct clrie_pm_ptr_list){0};
        for (size_t i = 0; i < modules.count; i++)
            detach_module_locked(domains, modules.items[i]);
        a->manifest = NULL;
        a->loaded = false;
    }
    clrie_os_mutex_unlock(&domains->lock);
    release_all(&modules);
    if (!a)
        return S_FALSE;
    give_to_caller(a, (void **)out);
    return S_OK;
}

HRESULT clrie_pm_domains_appdomain_shutdown(struct clrie_pm_domains *domains, AppDomainID id,
                                            IAppDomainInfo **out)
{
    struct clrie_pm_ptr_list assemblies = {0};
    struct clrie_pm_ptr_list modules = {0};
    if (out)
        *out = NULL;
    clrie_os_mutex_lock(&domains->lock);
    struct clrie_pm_appdomain *dom = clrie_pm_id_map_remove(&domains->domain_map, id);
    if (dom) {
        clrie_pm_ptr_list_remove(&domains->domain_list, dom);
        assemblies = dom->assemblies;
        dom->assemblies = (struct clrie_pm_ptr_list){0};
        modules = dom->modules;
        dom->modules = (struct clrie_pm_ptr_list){0};
        for (size_t i = 0; i < modules.count; i++) {
            struct clrie_pm_module *m = modules.items[i];
            clrie_pm_id_map_remove(&domains->module_map, m->id);
            m->loaded = false;
        }
        for (size_t i = 0; i < assemblies.count; i++) {
            struct clrie_pm_assembly *a = assemblies.items[i];
            clrie_pm_id_map_remove(&domains->assembly_map, a->id);
            clrie_pm_ptr_list_finish(&a->modules); /* a subset of the domain's */
            a->manifest = NULL;
            a->loaded = false;
        }
        dom->loaded = false;
    }
    clrie_os_mutex_unlock(&domains->lock);
    release_all(&modules);
    release_all(&assemblies);
    if (!dom)
        return S_FALSE;
    give_to_caller(dom, (void **)out);
    return S_OK;
}

HRESULT clrie_pm_domains_find_module(struct clrie_pm_domains *domains, ModuleID id,
                                     IModuleInfo **out)
{
    if (!out)
        return E_POINTER;
    struct clrie_pm_module *m = clrie_pm_domains_find(domains, &domains->module_map, id);
    *out = m ? (IModuleInfo *)(void *)&m->iface : NULL;
    return m ? S_OK : E_FAIL;
}
