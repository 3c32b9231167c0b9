/* IDataContainer: the (component, object) -> IUnknown store every engine object embeds.
 *
 * The lock is held while the item array is read or changed and while a found item is AddRef'd
 * for the caller; a replaced or removed item is released after the lock is dropped, since its
 * Release may run plugin code that calls back into the container. */
#include "datacontainer.h"

#include <stdlib.h>

#include "com.h"

struct clrie_pm_data_item {
    GUID component;
    GUID object;
    IUnknown *item;
};

static struct clrie_pm_data_container *from_iface(IDataContainer *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct clrie_pm_data_container, iface);
}

CLRIE_PM_COM_AGGREGATED(container, IDataContainer, struct clrie_pm_data_container, iface, outer)

/* The index of the item keyed (component, object), or count when absent. Under the lock. */
static size_t find_item(const struct clrie_pm_data_container *c, const GUID *component,
                        const GUID *object)
{
    for (size_t i = 0; i < c->count; i++)
        if (IsEqualGUID(&c->items[i].component, component) &&
            IsEqualGUID(&c->items[i].object, object))
            return i;
    return c->count;
}

static HRESULT STDMETHODCALLTYPE container_SetDataItem(IDataContainer *This,
                                                       const GUID *componentId,
                                                       const GUID *objectGuid, IUnknown *pDataItem)
{
    struct clrie_pm_data_container *c = from_iface(This);
    IUnknown *old = NULL;
    HRESULT hr = S_OK;

    if (!componentId || !objectGuid)
        return E_POINTER;
    if (pDataItem)
        pDataItem->lpVtbl->AddRef(pDataItem);

    clrie_os_mutex_lock(&c->lock);
    size_t i = find_item(c, componentId, objectGuid);
    if (i < c->count) {
        old = c->items[i].item;
        if (pDataItem) {
            c->items[i].item = pDataItem;
        } else {
            c->items[i] = c->items[c->count - 1];
            c->count--;
        }
    } else if (pDataItem) {
        if (c->count == c->capacity) {
            size_t capacity = c->capacity ? c->capacity * 2 : 4;
            struct clrie_pm_data_item *items = realloc(c->items, capacity * sizeof(*items));
            if (!items) {
                hr = E_OUTOFMEMORY;
                old = pDataItem; /* undo the AddRef above */
                goto unlock;
            }
            c->items = items;
            c->capacity = capacity;
        }
        c->items[c->count++] = (struct clrie_pm_data_item){
            .component = *componentId, .object = *objectGuid, .item = pDataItem};
    }
unlock:
    clrie_os_mutex_unlock(&c->lock);

    if (old)
        old->lpVtbl->Release(old);
    return hr;
}

static HRESULT STDMETHODCALLTYPE container_GetDataItem(IDataContainer *This,
                                                       const GUID *componentId,
                                                       const GUID *objectGuid,
                                                       IUnknown **ppDataItem)
{
    struct clrie_pm_data_container *c = from_iface(This);
    HRESULT hr = E_FAIL;

    if (!ppDataItem)
        return E_POINTER;
    *ppDataItem = NULL;
    if (!componentId || !objectGuid)
        return E_POINTER;

    clrie_os_mutex_lock(&c->lock);
    size_t i = find_item(c, componentId, objectGuid);
    if (i < c->count) {
        *ppDataItem = c->items[i].item;
        (*ppDataItem)->lpVtbl->AddRef(*ppDataItem);
        hr = S_OK;
    }
    clrie_os_mutex_unlock(&c->lock);
    return hr;
}

static const struct IDataContainerVtbl container_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(container),
    .SetDataItem = container_SetDataItem,
    .GetDataItem = container_GetDataItem,
};

void clrie_pm_data_container_init(struct clrie_pm_data_container *container, IUnknown *outer)
{
    container->iface.lpVtbl = &container_vtbl;
    container->outer = outer;
    clrie_os_mutex_init(&container->lock);
    container->count = 0;
    container->capacity = 0;
    container->items = NULL;
}

void clrie_pm_data_container_finish(struct clrie_pm_data_container *container)
{
    if (!container)
        return;
    /* The owner is being destroyed: no other thread can reach the container any more. */
    for (size_t i = 0; i < container->count; i++)
        container->items[i].item->lpVtbl->Release(container->items[i].item);
    free(container->items);
    container->items = NULL;
    container->count = container->capacity = 0;
    clrie_os_mutex_finish(&container->lock);
}
