/* The IDataContainer every engine object embeds (domains, types, IL objects): lives in
 * libprofmgr_core so every object library below the manager can use it. */
#ifndef CLRIE_PM_DATACONTAINER_H
#define CLRIE_PM_DATACONTAINER_H

#include <stddef.h>

#include "clrie/abi/instrumentation.h"
#include "clrie/os/thread.h"

/* Data containers: the IDataContainer part every engine object embeds. `outer` is the object
 * that owns it; QueryInterface/AddRef/Release on the container go to the outer object. Items
 * are keyed by (component GUID, object GUID) and hold a reference to their IUnknown; setting
 * NULL removes an item. */
struct clrie_pm_data_item;
struct clrie_pm_data_container {
    IDataContainer iface;
    IUnknown *outer;
    struct clrie_os_mutex lock; /* protects count, capacity and items */
    size_t count;
    size_t capacity;
    struct clrie_pm_data_item *items;
};

void clrie_pm_data_container_init(struct clrie_pm_data_container *container, IUnknown *outer);
/* Releases every item. */
void clrie_pm_data_container_finish(struct clrie_pm_data_container *container);

#endif
