/* IEnumInstructions and IEnumExceptionClauses: snapshots of the body's objects.
 *
 * Unlike the other objects of a body, an enumerator has a cursor of its own, so it is a
 * separate heap object with its own count; it holds a reference to every item (which counts
 * on the method) and one on the method itself, so the body outlives it. */
#include "il_private.h"

#include <stdlib.h>
#include <string.h>

struct il_enum {
    union {
        IEnumInstructions instructions;
        IEnumExceptionClauses clauses;
    } iface; /* first: the interface pointer is the object's address */
    atomic_ulong refs;
    bool of_clauses;
    struct il_body *body;
    size_t position;
    size_t count;
    IUnknown *items[];
};

/* items: an array of count interface pointers (IInstruction * or IExceptionClause *), read
 * with memcpy since their pointee types differ from IUnknown. */
static HRESULT enum_create(struct il_body *body, bool of_clauses, const void *items, size_t count,
                           size_t position, struct il_enum **out);

static struct il_enum *from(void *iface)
{
    return (struct il_enum *)iface;
}

static HRESULT enum_query_interface(struct il_enum *e, REFIID riid, void **ppv)
{
    if (!ppv)
        return E_POINTER;
    *ppv = NULL;
    if (!riid)
        return E_POINTER;
    const IID *own = e->of_clauses ? &IID_IEnumExceptionClauses : &IID_IEnumInstructions;
    if (!IsEqualIID(riid, &IID_IUnknown) && !IsEqualIID(riid, own))
        return E_NOINTERFACE;
    atomic_fetch_add_explicit(&e->refs, 1, memory_order_relaxed);
    *ppv = e;
    return S_OK;
}

static ULONG enum_add_ref(struct il_enum *e)
{
    return (ULONG)(atomic_fetch_add_explicit(&e->refs, 1, memory_order_relaxed) + 1);
}

static ULONG enum_release(struct il_enum *e)
{
    unsigned long left = atomic_fetch_sub_explicit(&e->refs, 1, memory_order_acq_rel) - 1;
    if (left == 0) {
        struct il_body *body = e->body;
        for (size_t i = 0; i < e->count; i++)
            e->items[i]->lpVtbl->Release(e->items[i]);
        free(e);
        il_body_release(body);
    }
    return (ULONG)left;
}

/* rgelt is an array of IInstruction * or IExceptionClause *: written with memcpy. */
static HRESULT enum_next(struct il_enum *e, ULONG celt, void *rgelt, ULONG *fetched)
{
    if (!rgelt && celt > 0)
        return E_POINTER;
    ULONG n = 0;
    while (n < celt && e->position < e->count) {
        IUnknown *item = e->items[e->position++];
        item->lpVtbl->AddRef(item);
        memcpy((char *)rgelt + (size_t)n++ * sizeof(item), &item, sizeof(item));
    }
    if (n < celt)
        memset((char *)rgelt + (size_t)n * sizeof(void *), 0, (size_t)(celt - n) * sizeof(void *));
    if (fetched)
        *fetched = n;
    return n == celt ? S_OK : S_FALSE;
}

static HRESULT enum_skip(struct il_enum *e, ULONG celt)
{
    size_t left = e->count - e->position;
    HRESULT hr = celt <= left ? S_OK : S_FALSE;
    e->position += celt <= left ? celt : left;
    return hr;
}

static HRESULT enum_reset(struct il_enum *e)
{
    e->position = 0;
    return S_OK;
}

static HRESULT enum_clone(struct il_enum *e, void **out)
{
    if (!out)
        return E_POINTER;
    *out = NULL;
    struct il_enum *copy;
    HRESULT hr = enum_create(e->body, e->of_clauses, e->items, e->count, e->position, &copy);
    if (SUCCEEDED(hr))
        *out = copy;
    return hr;
}

static HRESULT enum_get_count(struct il_enum *e, DWORD *length)
{
    if (!length)
        return E_POINTER;
    *length = (DWORD)e->count;
    return S_OK;
}

#define ENUM_INTERFACE(prefix, IEnum, Element)                                                     \
    static HRESULT prefix##_QueryInterface(IEnum *This, REFIID riid, void **ppv)                   \
    {                                                                                              \
        return enum_query_interface(from(This), riid, ppv);                                        \
    }                                                                                              \
    static ULONG prefix##_AddRef(IEnum *This)                                                      \
    {                                                                                              \
        return enum_add_ref(from(This));                                                           \
    }                                                                                              \
    static ULONG prefix##_Release(IEnum *This)                                                     \
    {                                                                                              \
        return enum_release(from(This));                                                           \
    }                                                                                              \
    static HRESULT prefix##_Next(IEnum *This, ULONG celt, Element **rgelt, ULONG *pceltFetched)    \
    {                                                                                              \
        return enum_next(from(This), celt, rgelt, pceltFetched);                                   \
    }                                                                                              \
    static HRESULT prefix##_Skip(IEnum *This, ULONG celt)                                          \
    {                                                                                              \
        return enum_skip(from(This), celt);                                                        \
    }                                                                                              \
    static HRESULT prefix##_Reset(IEnum *This)                                                     \
    {                                                                                              \
        return enum_reset(from(This));                                                             \
    }                                                                                              \
    static HRESULT prefix##_Clone(IEnum *This, IEnum **ppenum)                                     \
    {                                                                                              \
        return enum_clone(from(This), (void **)ppenum);                                            \
    }                                                                                              \
    static HRESULT prefix##_GetCount(IEnum *This, DWORD *pLength)                                  \
    {                                                                                              \
        return enum_get_count(from(This), pLength);                                                \
    }                                                                                              \
    static const struct IEnum##Vtbl prefix##_vtbl = {                                              \
        .QueryInterface = prefix##_QueryInterface,                                                 \
        .AddRef = prefix##_AddRef,                                                                 \
        .Release = prefix##_Release,                                                               \
        .Next = prefix##_Next,                                                                     \
        .Skip = prefix##_Skip,                                                                     \
        .Reset = prefix##_Reset,                                                                   \
        .Clone = prefix##_Clone,                                                                   \
        .GetCount = prefix##_GetCount,                                                             \
    };

ENUM_INTERFACE(enum_instructions, IEnumInstructions, IInstruction)
ENUM_INTERFACE(enum_clauses, IEnumExceptionClauses, IExceptionClause)

static HRESULT enum_create(struct il_body *body, bool of_clauses, const void *items, size_t count,
                           size_t position, struct il_enum **out)
{
    struct il_enum *e = malloc(sizeof(*e) + count * sizeof(IUnknown *));
    if (!e)
        return E_OUTOFMEMORY;
    if (of_clauses)
        e->iface.clauses.lpVtbl = &enum_clauses_vtbl;
    else
        e->iface.instructions.lpVtbl = &enum_instructions_vtbl;
    atomic_init(&e->refs, 1);
    e->of_clauses = of_clauses;
    e->body = body;
    e->position = position;
    e->count = count;
    for (size_t i = 0; i < count; i++) {
        memcpy(&e->items[i], (const char *)items + i * sizeof(void *), sizeof(void *));
        e->items[i]->lpVtbl->AddRef(e->items[i]);
    }
    il_body_add_ref(body);
    *out = e;
    return S_OK;
}

HRESULT il_enum_instructions_new(struct il_body *body, IInstruction **items, size_t count,
                                 IEnumInstructions **out)
{
    struct il_enum *e;
    HRESULT hr = enum_create(body, false, items, count, 0, &e);
    if (SUCCEEDED(hr))
        *out = &e->iface.instructions;
    return hr;
}

HRESULT il_enum_clauses_new(struct il_body *body, IExceptionClause **items, size_t count,
                            IEnumExceptionClauses **out)
{
    struct il_enum *e;
    HRESULT hr = enum_create(body, true, items, count, 0, &e);
    if (SUCCEEDED(hr))
        *out = &e->iface.clauses;
    return hr;
}
