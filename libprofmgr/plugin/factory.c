/* The class factory a plugin's DllGetClassObject hands out (clrie/plugin.h). */
#include "clrie/plugin.h"

#include <stdlib.h>

/* A class factory for one class ID; it holds a module reference while it lives. */
struct factory {
    IClassFactory iface;
    struct clrie_plugin_com com;
    CLSID clsid;
    clrie_plugin_create_fn create;
};

static void factory_destroy(void *object)
{
    free(object);
}

static const struct clrie_plugin_com_iface factory_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IClassFactory, struct factory, iface),
};

static const struct clrie_plugin_com_class factory_class = {
    .name = "clrie_plugin class factory",
    .ifaces = factory_ifaces,
    .iface_count = CLRIE_PLUGIN_COM_COUNT(factory_ifaces),
    .com_offset = offsetof(struct factory, com),
    .destroy = factory_destroy,
    .module_ref = true,
};

CLRIE_PLUGIN_COM_IUNKNOWN(factory, IClassFactory, struct factory, iface, com)

static HRESULT STDMETHODCALLTYPE factory_CreateInstance(IClassFactory *This, IUnknown *outer,
                                                        REFIID riid, void **out)
{
    if (!out)
        return E_POINTER;
    *out = NULL;
    if (outer)
        return CLASS_E_NOAGGREGATION;
    struct factory *factory = CLRIE_CONTAINER_OF(This, struct factory, iface);
    return factory->create(&factory->clsid, riid, out);
}

static HRESULT STDMETHODCALLTYPE factory_LockServer(IClassFactory *This, BOOL lock)
{
    (void)This;
    if (lock)
        clrie_plugin_module_ref();
    else
        clrie_plugin_module_unref();
    return S_OK;
}

static const struct IClassFactoryVtbl factory_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(factory),
    .CreateInstance = factory_CreateInstance,
    .LockServer = factory_LockServer,
};

HRESULT clrie_plugin_get_class_object(clrie_plugin_create_fn create, REFCLSID clsid, REFIID riid,
                                      void **out)
{
    if (!out)
        return E_POINTER;
    *out = NULL;
    if (!clsid || !riid)
        return E_INVALIDARG;
    struct factory *factory = calloc(1, sizeof *factory);
    if (!factory)
        return E_OUTOFMEMORY;
    factory->iface.lpVtbl = &factory_vtbl;
    factory->clsid = *clsid;
    factory->create = create;
    clrie_plugin_com_init(&factory->com, &factory_class);
    return clrie_plugin_com_give(&factory->com, riid, out);
}
