/* A plugin .so's module reference count, for DllCanUnloadNow (clrie/plugin.h): live objects
 * whose class asks for it, class factories and server locks each hold one.
 *
 * The library is linked statically into each plugin, so `module_refs` is one count per plugin
 * .so: the one global of the library that changes, and atomic. */
#include "clrie/plugin.h"

static long module_refs;

void clrie_plugin_module_ref(void)
{
    __atomic_fetch_add(&module_refs, 1, __ATOMIC_SEQ_CST);
}

void clrie_plugin_module_unref(void)
{
    __atomic_fetch_sub(&module_refs, 1, __ATOMIC_SEQ_CST);
}

HRESULT clrie_plugin_module_can_unload_now(void)
{
    return __atomic_load_n(&module_refs, __ATOMIC_SEQ_CST) > 0 ? S_FALSE : S_OK;
}
