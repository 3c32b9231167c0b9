/* IEnumTypes, IEnumMethodParameters and IEnumMethodLocals: one enumerator over a fixed list of
 * AddRef'd items (the three interfaces have the same slots with different element types, so each
 * gets thin typed entry points that call the shared code); and IMethodParameter / IMethodLocal,
 * one wrapper object holding an IType.
 *
 * Next follows CLRIE: pceltFetched may be NULL only when asking for one item (COM's rule), S_OK
 * when celt items came, else S_FALSE. Skip past the end stops at the end with S_FALSE.
 * The item list never changes; `lock` protects the cursor, so one enumerator may be shared
 * between threads. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "types_private.h"

struct type_enum {
    const void *vtbl; /* first: an IEnumTypes, IEnumMethodParameters or IEnumMethodLocals */
    struct clrie_pm_data_container data;
    atomic_ulong refs;
    enum types_enum_kind kind;
    pthread_mutex_t lock; /* protects position */
    size_t position;
    size_t count;
    IUnknown *items[]; /* each holds a reference */
};

_Static_assert(offsetof(struct type_enum, vtbl) == 0, "vtbl first");

static const IID *const kind_iid[] = {
    [TYPES_ENUM_TYPES] = &IID_IEnumTypes,
    [TYPES_ENUM_PARAMETERS] = &IID_IEnumMethodParameters,
    [TYPES_ENUM_LOCALS] = &IID_IEnumMethodLocals,
};

static struct type_enum *from_ptr(void *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct type_enum, vtbl);
}

static HRESULT enum_query(struct type_enum *e, REFIID riid, void **ppv)
{
    if (!ppv)
        return E_POINTER;
    *ppv = NULL;
    if (!riid)
        return E_POINTER;
    if (IsEqualIID(riid, &IID_IUnknown) || IsEqualIID(riid, kind_iid[e->kind]))
        *ppv = &e->vtbl;
    else if (IsEqualIID(riid, &IID_IDataContainer))
        *ppv = &e->data.iface;
    else
        return E_NOINTERFACE;
    atomic_fetch_add_explicit(&e->refs, 1, memory_order_relaxed);
    return S_OK;
}

static ULONG enum_add_ref(struct type_enum *e)
{
    return (ULONG)(atomic_fetch_add_explicit(&e->refs, 1, memory_order_relaxed) + 1);
}

static ULONG enum_release(struct type_enum *e)
{
    unsigned long left = atomic_fetch_sub_explicit(&e->refs, 1, memory_order_acq_rel) - 1;
    if (left == 0) {
        clrie_pm_data_container_finish(&e->data);
        for (size_t i = 0; i < e->count; i++)
            e->items[i]->lpVtbl->Release(e->items[i]);
        pthread_mutex_destroy(&e->lock);
        free(e);
    }
    return (ULONG)left;
}

static HRESULT enum_next(struct type_enum *e, ULONG celt, IUnknown **rgelt, ULONG *fetched)
{
    if (fetched)
        *fetched = 0;
    if (celt == 0)
        return S_OK;
    if (!rgelt || (!fetched && celt != 1))
        return E_POINTER;
    ULONG n = 0;
    pthread_mutex_lock(&e->lock);
    while (n < celt && e->position < e->count) {
        IUnknown *item = e->items[e->position++];
        item->lpVtbl->AddRef(item);
        rgelt[n++] = item;
    }
    pthread_mutex_unlock(&e->lock);
    for (ULONG i = n; i < celt; i++)
        rgelt[i] = NULL;
    if (fetched)
        *fetched = n;
    return n == celt ? S_OK : S_FALSE;
}

static HRESULT enum_skip(struct type_enum *e, ULONG celt)
{
    pthread_mutex_lock(&e->lock);
    size_t left = e->count - e->position;
    bool all = celt <= left;
    e->position += all ? celt : left;
    pthread_mutex_unlock(&e->lock);
    return all ? S_OK : S_FALSE;
}

static HRESULT enum_reset(struct type_enum *e)
{
    pthread_mutex_lock(&e->lock);
    e->position = 0;
    pthread_mutex_unlock(&e->lock);
    return S_OK;
}

static HRESULT enum_clone(struct type_enum *e, void **out)
{
    if (!out)
        return E_POINTER;
    *out = NULL;
    void *copy;
    HRESULT hr = types_enum_new(e->kind, e->items, e->count, &copy);
    if (FAILED(hr))
        return hr;
    pthread_mutex_lock(&e->lock);
    from_ptr(copy)->position = e->position;
    pthread_mutex_unlock(&e->lock);
    *out = copy;
    return S_OK;
}

static HRESULT enum_count(struct type_enum *e, DWORD *length)
{
    if (!length)
        return E_POINTER;
    *length = (DWORD)e->count;
    return S_OK;
}

/* The typed entry points of one enumerator interface. */
#define ENUM_INTERFACE(prefix, Iface, Item)                                                        \
    static HRESULT prefix##_QueryInterface(Iface *This, REFIID riid, void **ppv)                   \
    {                                                                                              \
        return enum_query(from_ptr(This), riid, ppv);                                              \
    }                                                                                              \
    static ULONG prefix##_AddRef(Iface *This)                                                      \
    {                                                                                              \
        return enum_add_ref(from_ptr(This));                                                       \
    }                                                                                              \
    static ULONG prefix##_Release(Iface *This)                                                     \
    {                                                                                              \
        return enum_release(from_ptr(This));                                                       \
    }                                                                                              \
    static HRESULT prefix##_Next(Iface *This, ULONG celt, Item **rgelt, ULONG *pceltFetched)       \
    {                                                                                              \
        return enum_next(from_ptr(This), celt, (IUnknown **)(void *)rgelt, pceltFetched);          \
    }                                                                                              \
    static HRESULT prefix##_Skip(Iface *This, ULONG celt)                                          \
    {                                                                                              \
        return enum_skip(from_ptr(This), celt);                                                    \
    }                                                                                              \
    static HRESULT prefix##_Reset(Iface *This)                                                     \
    {                                                                                              \
        return enum_reset(from_ptr(This));                                                         \
    }                                                                                              \
    static HRESULT prefix##_Clone(Iface *This, Iface **ppenum)                                     \
    {                                                                                              \
        return enum_clone(from_ptr(This), (void **)ppenum);                                        \
    }                                                                                              \
    static HRESULT prefix##_GetCount(Iface *This, DWORD *pLength)                                  \
    {                                                                                              \
        return enum_count(from_ptr(This), pLength);                                                \
    }                                                                                              \
    static const struct Iface##Vtbl prefix##_vtbl = {                                              \
        .QueryInterface = prefix##_QueryInterface,                                                 \
        .AddRef = prefix##_AddRef,                                                                 \
        .Release = prefix##_Release,                                                               \
        .Next = prefix##_Next,                                                                     \
        .Skip = prefix##_Skip,                                                                     \
        .Reset = prefix##_Reset,                                                                   \
        .Clone = prefix##_Clone,                                                                   \
        .GetCount = prefix##_GetCount,                                                             \
    };

ENUM_INTERFACE(types, IEnumTypes, IType)
ENUM_INTERFACE(params, IEnumMethodParameters, IMethodParameter)
ENUM_INTERFACE(locals, IEnumMethodLocals, IMethodLocal)

static const void *const kind_vtbl[3] = {
    [TYPES_ENUM_TYPES] = &types_vtbl,
    [TYPES_ENUM_PARAMETERS] = &params_vtbl,
    [TYPES_ENUM_LOCALS] = &locals_vtbl,
};

HRESULT types_enum_new(enum types_enum_kind kind, IUnknown *const *items, size_t count, void **out)
{
    *out = NULL;
    struct type_enum *e = calloc(1, sizeof(*e) + count * sizeof(e->items[0]));
    if (!e)
        return E_OUTOFMEMORY;
    e->vtbl = kind_vtbl[kind];
    atomic_init(&e->refs, 1);
    e->kind = kind;
    pthread_mutex_init(&e->lock, NULL);
    clrie_pm_data_container_init(&e->data, (IUnknown *)(void *)&e->vtbl);
    for (size_t i = 0; i < count; i++) {
        items[i]->lpVtbl->AddRef(items[i]);
        e->items[i] = items[i];
    }
    e->count = count;
    *out = &e->vtbl;
    return S_OK;
}

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
    if (SUCCEEDED(hr))
        hr = types_enum_new(kind, items, count, out);
    for (size_t i = 0; i < made; i++)
        items[i]->lpVtbl->Release(items[i]);
    free(items);
    return hr;
}
