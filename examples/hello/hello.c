/* hello: the smallest useful plugin. It logs, through the engine's log, the name of every
 * module the runtime loads, and rewrites nothing. */
#include <stdlib.h>

#include <clrie/plugin.h>

struct hello {
    IInstrumentationMethod method;
    struct clrie_plugin_com com;
    struct clrie_plugin_host host; /* the engine's logging and string services */
};

static HRESULT STDMETHODCALLTYPE hello_Initialize(IInstrumentationMethod *This,
                                                  IProfilerManager *manager)
{
    clrie_plugin_host_init(&CLRIE_CONTAINER_OF(This, struct hello, method)->host, manager, "hello");
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE hello_OnModuleLoaded(IInstrumentationMethod *This,
                                                      IModuleInfo *module)
{
    const struct clrie_plugin_host *host = &CLRIE_CONTAINER_OF(This, struct hello, method)->host;
    BSTR name = NULL;
    char *text = clrie_plugin_host_take_utf8(host, module->lpVtbl->GetModuleName(module, &name),
                                             &name);
    clrie_plugin_host_log(host, false, "module loaded: %s", text ? text : "?");
    free(text);
    return S_OK;
}

/* ---- the COM object, its class and its factory ---------------------------------------- */

CLRIE_PLUGIN_COM_IUNKNOWN(hello, IInstrumentationMethod, struct hello, method, com)

static const struct IInstrumentationMethodVtbl hello_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(hello),
    .Initialize = hello_Initialize,
    CLRIE_PLUGIN_IGNORE_DOMAIN_AND_ASSEMBLY_EVENTS,
    .OnModuleLoaded = hello_OnModuleLoaded,
    .OnModuleUnloaded = clrie_plugin_ignore_module,
    .OnShutdown = clrie_plugin_ignore_shutdown,
    CLRIE_PLUGIN_INSTRUMENT_NOTHING,
};

static void hello_destroy(void *object)
{
    clrie_plugin_host_finish(&((struct hello *)object)->host);
    free(object);
}

static const struct clrie_plugin_com_iface hello_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethod, struct hello, method),
};

static const struct clrie_plugin_com_class hello_class = {
    .name = "hello",
    .ifaces = hello_ifaces,
    .iface_count = CLRIE_PLUGIN_COM_COUNT(hello_ifaces),
    .com_offset = offsetof(struct hello, com),
    .destroy = hello_destroy,
    .module_ref = true,
};

static HRESULT hello_create(const CLSID *clsid, REFIID riid, void **out)
{
    (void)clsid;
    struct hello *h = calloc(1, sizeof *h);
    if (!h)
        return E_OUTOFMEMORY;
    h->method.lpVtbl = &hello_vtbl;
    clrie_plugin_com_init(&h->com, &hello_class);
    return clrie_plugin_com_give(&h->com, riid, out);
}

CLRIE_PLUGIN_EXPORT_CLASS_FACTORY(hello_create)
