/* The snapshot enumerator behind every CLRIE IEnumXxx interface whose items are COM objects:
 * IEnumModuleInfo, IEnumAssemblyInfo, IEnumAppDomainInfo, IEnumInstructions,
 * IEnumExceptionClauses, IEnumTypes, IEnumMethodParameters, IEnumMethodLocals and
 * IEnumInstrumentationMethodSettings. Lives in libprofmgr_core so every object library can hand
 * one out.
 *
 * The interfaces have the same slots (Next, Skip, Reset, Clone, GetCount) and differ only in
 * the item type, so one object serves them all; which interface it is follows from the IID it
 * was made for. Semantics are CLRIE's:
 * - Next(celt, rgelt, fetched): S_OK when celt items came, S_FALSE when fewer did (the slots
 *   not filled are set to NULL); fetched may be NULL only when celt is 1; each item handed out
 *   is AddRef'd for the caller.
 * - Skip past the end stops at the end and answers S_FALSE; Reset goes back to the start;
 *   Clone makes an enumerator over the same snapshot at the same position; GetCount is the
 *   number of items in the snapshot, whatever the position.
 *
 * Thread-safety: the snapshot never changes once the interface pointer is taken; a lock
 * protects the position, so one enumerator may be used from several threads. */
#ifndef CLRIE_PM_ENUM_H
#define CLRIE_PM_ENUM_H

#include <stddef.h>

#include "clrie/abi/instrumentation.h"

struct clrie_pm_enum;

enum clrie_pm_enum_flags {
    /* The enumerator also answers IDataContainer (and clones get an empty one of their own). */
    CLRIE_PM_ENUM_DATA_CONTAINER = 1u << 0,
};

/* A new enumerator answering `iid` (one of the interfaces above), with room for `capacity`
 * items and one reference, not yet handed out. owner (may be NULL) is AddRef'd and held until
 * the enumerator (and any clone of it, which holds its own) dies, so whatever owns the items
 * outlives it. NULL when out of memory or when iid is not an enumerator interface. */
struct clrie_pm_enum *clrie_pm_enum_new(const IID *iid, size_t capacity, IUnknown *owner,
                                        unsigned flags);
/* Appends item (AddRef'd by the enumerator); ignored past the capacity. Only before
 * clrie_pm_enum_iface. */
void clrie_pm_enum_add(struct clrie_pm_enum *e, IUnknown *item);
/* The interface pointer (IEnumModuleInfo * etc. as asked at creation), carrying the creation
 * reference. */
void *clrie_pm_enum_iface(struct clrie_pm_enum *e);

/* In one step: an enumerator over items, an array of count interface pointers of any COM
 * interface type (IType *, IInstruction *, ...), each AddRef'd by it; the caller keeps its own
 * references. *out is the interface pointer; E_POINTER without out, E_OUTOFMEMORY,
 * E_INVALIDARG for an iid that is not an enumerator interface. */
HRESULT clrie_pm_enum_from_array(const IID *iid, const void *items, size_t count, IUnknown *owner,
                                 unsigned flags, void **out);

#endif
