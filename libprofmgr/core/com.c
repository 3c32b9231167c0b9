/* The engine's side of the COM object base (com.h). */
#include "com.h"

#include "log.h"

void clrie_pm__com_surplus_release(const char *name)
{
    CLRIE_PM_LOG_ERROR(clrie_pm_process_log(), "surplus Release of %s ignored", name);
}

HRESULT clrie_pm__com_query_owned(struct clrie_plugin_com *com, IUnknown *owner, REFIID riid,
                                  void **out)
{
    HRESULT hr = clrie_plugin_com_query(com, riid, out);
    if (hr != S_OK)
        return hr;
    /* The reference belongs to the owner: move it there. */
    clrie_pm__com_add_ref_owned(owner);
    clrie_plugin_com_release(com);
    return S_OK;
}

ULONG clrie_pm__com_add_ref_owned(IUnknown *owner)
{
    return owner ? owner->lpVtbl->AddRef(owner) : 1;
}

ULONG clrie_pm__com_release_owned(IUnknown *owner)
{
    return owner ? owner->lpVtbl->Release(owner) : 1;
}
