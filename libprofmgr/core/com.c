/* The engine's side of the COM object base (com.h). */
#include "com.h"

#include "log.h"

void clrie_pm__com_surplus_release(struct clrie_pm_log *log, const char *name)
{
    CLRIE_PM_LOG_ERROR(log ? log : clrie_pm_process_log(), "surplus Release of %s ignored", name);
}

/* An owned object's count is 1 (its owner's, from clrie_plugin_com_init) plus the references
 * handed out; the owner holds one reference of its own for as long as any is out. */

ULONG clrie_pm__com_add_ref_owned(struct clrie_plugin_com *com, IUnknown *owner)
{
    if (!owner)
        return 1;
    unsigned long before = __atomic_fetch_add(&com->refs, 1, __ATOMIC_RELAXED);
    /* The first reference out keeps the owner alive. The caller holds a reference to the
     * owner or to this object, so the owner cannot go meanwhile. */
    if (before == 1)
        owner->lpVtbl->AddRef(owner);
    return (ULONG)before;
}

ULONG clrie_pm__com_release_owned(struct clrie_plugin_com *com, IUnknown *owner)
{
    if (!owner)
        return 1;
    unsigned long refs = __atomic_load_n(&com->refs, __ATOMIC_RELAXED);
    do {
        if (refs <= 1) {
            /* More Releases than references handed out: the owner's own is not the caller's
             * to give back, and neither is anyone else's. */
            if (com->cls->surplus_release) /* the class knows the object's log */
                com->cls->surplus_release((char *)com - com->cls->com_offset);
            else
                clrie_pm__com_surplus_release(NULL, com->cls->name);
            return 0;
        }
    } while (!__atomic_compare_exchange_n(&com->refs, &refs, refs - 1, true, __ATOMIC_ACQ_REL,
                                          __ATOMIC_RELAXED));
    if (refs == 2)
        owner->lpVtbl->Release(owner); /* the last reference out came back */
    return (ULONG)(refs - 2);
}

HRESULT clrie_pm__com_query_owned(struct clrie_plugin_com *com, IUnknown *owner, REFIID riid,
                                  void **out)
{
    HRESULT hr = clrie_plugin_com_query(com, riid, out);
    if (hr != S_OK)
        return hr;
    /* The base counted the reference without the owner: count it again as an owned one. The
     * caller holds a reference, so the count stays above the owner's 1 throughout. */
    clrie_plugin_com_release(com);
    clrie_pm__com_add_ref_owned(com, owner);
    return S_OK;
}
