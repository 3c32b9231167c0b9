/* IMethodParameter and IMethodLocal: one wrapper object holding an IType; and the
 * IEnumMethodParameters / IEnumMethodLocals over them (enum.h's snapshot enumerator, with
 * IDataContainer as every object of this library). */
#include <stdlib.h>
#include <string.h>

#include "types_private.h"

/* ---- IMethodParameter, IMethodLocal ------------------------------------------------------- */

struct typed_item {
    const void *vtbl; /* first: an IMethodParameter or IMethodLocal */
    struct clrie_pm_data_container data;
    struct clrie_plugin_com com; /* its class says which of the two it is */
    IType *type; /* strong */
};

static struct typed_item *item_from(void *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct typed_item, vtbl);
}

static void item_destroy(void *object)
{
    struct typed_item *t = object;
    clrie_pm_data_container_finish(&t->data);
    t->type->lpVtbl->Release(t->type);
    free(t);
}

static HRESULT item_type(struct typed_item *t, IType **out)
{
    if (!out)
        return E_POINTER;
    t->type->lpVtbl->AddRef(t->type);
    *out = t->type;
    return S_OK;
}

#define ITEM_INTERFACE(prefix, Iface)                                                              \
    CLRIE_PLUGIN_COM_IUNKNOWN(prefix, Iface, struct typed_item, vtbl, com)                         \
    static HRESULT STDMETHODCALLTYPE prefix##_GetType(Iface *This, IType **ppType)                 \
    {                                                                                              \
        return item_type(item_from(This), ppType);                                                 \
    }                                                                                              \
    static const struct Iface##Vtbl prefix##_vtbl = {                                              \
        CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(prefix),                                                   \
        .GetType = prefix##_GetType,                                                               \
    };                                                                                             \
    static const struct clrie_plugin_com_iface prefix##_ifaces[] = {                               \
        CLRIE_PLUGIN_COM_IFACE(&IID_##Iface, struct typed_item, vtbl),                             \
        CLRIE_PLUGIN_COM_IFACE(&IID_IDataContainer, struct typed_item, data.iface),                \
    };                                                                                             \
    CLRIE_PM_COM_CLASS(prefix##_class, #Iface, struct typed_item, com, item_destroy,               \
                       prefix##_ifaces);

ITEM_INTERFACE(parameter, IMethodParameter)
ITEM_INTERFACE(local, IMethodLocal)

static HRESULT item_new(enum types_enum_kind kind, IType *type, IUnknown **out)
{
    struct typed_item *t = calloc(1, sizeof(*t));
    if (!t)
        return E_OUTOFMEMORY;
    bool parameter = kind == TYPES_ENUM_PARAMETERS;
    t->vtbl = parameter ? (const void *)&parameter_vtbl : (const void *)&local_vtbl;
    clrie_plugin_com_init(&t->com, parameter ? &parameter_class : &local_class);
    clrie_pm_data_container_init(&t->data, (IUnknown *)(void *)&t->vtbl);
    type->lpVtbl->AddRef(type);
    t->type = type;
    *out = (IUnknown *)(void *)&t->vtbl;
    return S_OK;
}

HRESULT clrie_pm__types_enum_wrapping(enum types_enum_kind kind, IType *const *types, size_t count,
                                      void **out)
{
    *out = NULL;
    IUnknown **items = count ? calloc(count, sizeof(*items)) : NULL;
    size_t made = 0;
    HRESULT hr = count && !items ? E_OUTOFMEMORY : S_OK;
    for (; SUCCEEDED(hr) && made < count; made++)
        if (FAILED(hr = item_new(kind, types[made], &items[made])))
            break;
    const IID *iid =
        kind == TYPES_ENUM_PARAMETERS ? &IID_IEnumMethodParameters : &IID_IEnumMethodLocals;
    if (SUCCEEDED(hr))
        hr = clrie_pm_enum_from_array(iid, items, count, NULL, CLRIE_PM_ENUM_DATA_CONTAINER, out);
    for (size_t i = 0; i < made; i++)
        items[i]->lpVtbl->Release(items[i]);
    free(items);
    return hr;
}
