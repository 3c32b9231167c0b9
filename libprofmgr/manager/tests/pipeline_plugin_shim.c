/* The test plugin's module for test_pipeline.c. The engine loads plugins only from modules
 * named by a configuration file; this one is that file's Module, and hands the engine's
 * DllGetClassObject on to the function the test program gave it (the test loads this module
 * before the engine does, and the engine's load then finds the same module), so the plugin
 * itself lives in the test and its behaviour is set per test. */
#include "clrie/abi/base.h"

typedef HRESULT (*get_class_object_fn)(REFCLSID clsid, REFIID iid, void **out);

static get_class_object_fn forward_to;

CLRIE_ABI_EXPORT void pipeline_plugin_shim_forward_to(get_class_object_fn fn);
void pipeline_plugin_shim_forward_to(get_class_object_fn fn)
{
    forward_to = fn;
}

CLRIE_ABI_EXPORT HRESULT STDAPICALLTYPE DllGetClassObject(REFCLSID clsid, REFIID iid, void **out);
HRESULT STDAPICALLTYPE DllGetClassObject(REFCLSID clsid, REFIID iid, void **out)
{
    if (!forward_to) {
        if (out)
            *out = NULL;
        return CLASS_E_CLASSNOTAVAILABLE;
    }
    return forward_to(clsid, iid, out);
}
