/* The test plugin's module for test_pipeline.c. The engine loads plugins only from shared
 * objects named by a configuration file; this one is that file's Module, and hands the
 * engine's DllGetClassObject on to the test program (built with exported symbols), so the
 * plugin itself lives in the test and its behaviour is set per test. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_DEFAULT */
#endif
#include <dlfcn.h>

#include "clrie/abi/base.h"

typedef HRESULT (*get_class_object_fn)(REFCLSID clsid, REFIID iid, void **out);

__attribute__((visibility("default"))) HRESULT STDAPICALLTYPE DllGetClassObject(REFCLSID clsid,
                                                                                REFIID iid,
                                                                                void **out);
HRESULT STDAPICALLTYPE DllGetClassObject(REFCLSID clsid, REFIID iid, void **out)
{
    union {
        void *object;
        get_class_object_fn fn;
    } symbol = {dlsym(RTLD_DEFAULT, "pipeline_test_get_class_object")};
    if (!symbol.object) {
        if (out)
            *out = NULL;
        return CLASS_E_CLASSNOTAVAILABLE;
    }
    return symbol.fn(clsid, iid, out);
}
