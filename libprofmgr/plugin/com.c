/* The COM object base (clrie/plugin.h): QueryInterface from a table of interfaces, one
 * reference count, for plugins and for the engine's own objects alike. */
#include "clrie/plugin.h"

#include <stdint.h>

static char *object_of(const struct clrie_plugin_com *com)
{
    return (char *)com - com->cls->com_offset;
}

void clrie_plugin_com_init(struct clrie_plugin_com *com, const struct clrie_plugin_com_class *cls)
{
    com->cls = cls;
    __atomic_store_n(&com->refs, 1, __ATOMIC_RELAXED);
    if (cls->module_ref)
        clrie_plugin_module_ref();
}

HRESULT clrie_plugin_com_query(struct clrie_plugin_com *com, REFIID riid, void **out)
{
    if (!out)
        return E_POINTER;
    *out = NULL;
    if (!riid)
        return E_POINTER;
    const struct clrie_plugin_com_class *cls = com->cls;
    size_t found = SIZE_MAX;
    if (IsEqualIID(riid, &IID_IUnknown)) {
        found = 0;
    } else {
        for (size_t i = 0; i < cls->iface_count && found == SIZE_MAX; i++)
            if (IsEqualIID(riid, cls->ifaces[i].iid))
                found = i;
    }
    if (found == SIZE_MAX)
        return E_NOINTERFACE;
    clrie_plugin_com_add_ref(com);
    *out = object_of(com) + cls->ifaces[found].offset;
    return S_OK;
}

ULONG clrie_plugin_com_add_ref(struct clrie_plugin_com *com)
{
    return (ULONG)(__atomic_add_fetch(&com->refs, 1, __ATOMIC_RELAXED));
}

ULONG clrie_plugin_com_release(struct clrie_plugin_com *com)
{
    unsigned long refs = __atomic_load_n(&com->refs, __ATOMIC_RELAXED);
    do {
        if (refs == 0) {
            /* A surplus Release: the count stays at zero and nothing is freed twice. */
            if (com->cls->surplus_release)
                com->cls->surplus_release(object_of(com));
            return 0;
        }
    } while (!__atomic_compare_exchange_n(&com->refs, &refs, refs - 1, true, __ATOMIC_ACQ_REL,
                                          __ATOMIC_RELAXED));
    if (refs == 1) {
        const struct clrie_plugin_com_class *cls = com->cls; /* destroy frees com */
        cls->destroy(object_of(com));
        if (cls->module_ref)
            clrie_plugin_module_unref();
    }
    return (ULONG)(refs - 1);
}

ULONG clrie_plugin_com_refs(const struct clrie_plugin_com *com)
{
    return (ULONG)__atomic_load_n(&com->refs, __ATOMIC_ACQUIRE);
}

HRESULT clrie_plugin_com_give(struct clrie_plugin_com *com, REFIID riid, void **out)
{
    HRESULT hr = clrie_plugin_com_query(com, riid, out);
    clrie_plugin_com_release(com);
    return hr;
}
