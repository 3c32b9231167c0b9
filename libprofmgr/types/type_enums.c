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
    atomic_ulong refs;
    const IID *iid;
    IType *type; /* strong */
};

static struct typed_item *item_from(void *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct typed_item, vtbl);
}

static HRESULT item_query(struct typed_item *t, REFIID riid, void **ppv)
{
    if (!ppv)
        return E_POINTER;
    *ppv = NULL;
    if (!riid)
        return E_POINTER;
    if (IsEqualIID(riid, &IID_IUnknown) || IsEqualIID(riid, t->iid))
        *ppv = &t->vtbl;
    else if (IsEqualIID(riid, &IID_IDataContainer))
        *ppv = &t->data.iface;
    else
        return E_NOINTERFACE;
    atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);
    return S_OK;
}

static ULONG item_add_ref(struct typed_item *t)
{
    return (ULONG)(atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed) + 1);
}

static ULONG item_release(struct typed_item *t)
{
    unsigned long left = atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) - 1;
    if (left == 0) {
        clrie_pm_data_container_finish(&t->data);
        t->type->lpVtbl->Release(t->type);
        free(t);
    }
    return (ULONG)left;
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
    static HRESULT prefix##_QueryInterface(Iface *This, REFIID riid, void **ppv)                   \
    {                                                                                              \
        return item_query(item_from(This), riid, ppv);                                             \
    }                                                                                              \
    static ULONG prefix##_AddRef(Iface *This)                                                      \
    {                                                                                              \
        return item_add_ref(item_from(This));                                                      \
    }                                                                                              \
    static ULONG prefix##_Release(Iface *This)                                                     \
    {                                                                                              \
        return item_release(item_from(This));                                                      \
    }                                                                                              \
    static HRESULT prefix##_GetType(Iface *This, IType **ppType)                                   \
    {                                                                                              \
        return item_type(item_from(This), ppType);                                                 \
    }                                                                                              \
    static const struct Iface##Vtbl prefix##_vtbl = {                                              \
        .QueryInterface = prefix##_QueryInterface,                                                 \
        .AddRef = prefix##_AddRef,                                                                 \
        .Release = prefix##_Release,                                                               \
        .GetType = prefix##_GetType,                                                               \
    };

ITEM_INTERFACE(parameter, IMethodParameter)
ITEM_INTERFACE(local, IMethodLocal)

static HRESULT item_new(enum types_enum_kind kind, IType *type, IUnknown **out)
{
    struct typed_item *t = calloc(1, sizeof(*t));
    if (!t)
        return E_OUTOFMEMORY;
    bool parameter = kind == TYPES_ENUM_PARAMETERS;
    t->vtbl = parameter ? (const void *)&parameter_vtbl : (const void *)&local_vtbl;
    t->iid = parameter ? &IID_IMethodParameter : &IID_IMethodLocal;
    atomic_init(&t->refs, 1);
    clrie_pm_data_container_init(&t->data, (IUnknown *)(void *)&t->vtbl);
    type->lpVtbl->AddRef(type);
    t->type = type;
    *out = (IUnknown *)(void *)&t->vtbl;
    return S_OK;
}

HRESULT types_enum_wrapping(enum types_enum_kind kind, IType *const *types, size_t count,
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
