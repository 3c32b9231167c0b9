/* A plugin that misuses the engine in the ways a careless third-party plugin does, on
 * test/dotnet/hello; none of it may change what the app does, and each must leave an error line:
 *
 *   Initialize             one Release of the IProfilerManager more than it took
 *   Program.Main           ShouldInstrumentMethod fails
 *   Program+<>c.<Main>...  (the app's lambda) InstrumentMethod releases its first instruction
 *                          once too often, and keeps the method's IInstructionGraph
 *   the next method asked  the kept graph is edited (RemoveAll), then released; when no
 *   (or shutdown)          method is jitted after the lambda (.NET 8 runs the rest of the app
 *                          from the framework's ReadyToRun code), at OnShutdown instead
 *
 * Only the ABI headers and libclrie-plugin are used, as by any third-party plugin. */
#include <stdlib.h>
#include <string.h>

#include "clrie/abi/instrumentation.h"
#include "clrie/plugin.h"

struct misuse {
    IInstrumentationMethod iface;
    struct clrie_plugin_com com;
    IInstructionGraph *kept; /* the lambda's graph, kept past its callback */
};

static struct misuse *of(IInstrumentationMethod *This)
{
    return CLRIE_CONTAINER_OF(This, struct misuse, iface);
}

static HRESULT STDMETHODCALLTYPE misuse_Initialize(IInstrumentationMethod *This,
                                                   IProfilerManager *manager)
{
    manager->lpVtbl->AddRef(manager);
    manager->lpVtbl->Release(manager);
    manager->lpVtbl->Release(manager); /* surplus: the engine must log it and carry on */
    return S_OK;
}

/* The method's full name in ASCII ("" when it cannot be read). */
static void full_name(IMethodInfo *mi, char *out, size_t size)
{
    BSTR name = NULL;
    out[0] = '\0';
    if (SUCCEEDED(mi->lpVtbl->GetFullName(mi, &name))) {
        clrie_plugin_bstr_to_utf8_buf(name, out, size);
        clrie_plugin_free_string_fn free_string = clrie_plugin_engine_free_string();
        if (free_string)
            free_string(name);
    }
}

/* Edits the graph kept past its callback, if any: too late, E_UNEXPECTED and a line. */
static void edit_kept_graph(struct misuse *p)
{
    IInstructionGraph *kept = __atomic_exchange_n(&p->kept, NULL, __ATOMIC_ACQ_REL);
    if (kept) {
        kept->lpVtbl->RemoveAll(kept);
        kept->lpVtbl->Release(kept);
    }
}

static HRESULT STDMETHODCALLTYPE misuse_OnShutdown(IInstrumentationMethod *This)
{
    edit_kept_graph(of(This));
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE misuse_ShouldInstrumentMethod(IInstrumentationMethod *This,
                                                               IMethodInfo *mi, BOOL isRejit,
                                                               BOOL *pbInstrument)
{
    char name[256];
    *pbInstrument = FALSE;
    edit_kept_graph(of(This));
    full_name(mi, name, sizeof(name));
    if (strcmp(name, "Program.Main") == 0)
        return E_ACCESSDENIED;
    *pbInstrument = strncmp(name, "Program+<>c.<Main>", 18) == 0;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE misuse_InstrumentMethod(IInstrumentationMethod *This,
                                                         IMethodInfo *mi, BOOL isRejit)
{
    IInstructionGraph *graph = NULL;
    HRESULT hr = mi->lpVtbl->GetInstructions(mi, &graph);
    if (FAILED(hr))
        return S_OK;
    IInstruction *first = NULL;
    if (SUCCEEDED(graph->lpVtbl->GetFirstInstruction(graph, &first)) && first) {
        first->lpVtbl->Release(first);
        first->lpVtbl->Release(first); /* surplus: must not free the method info */
    }
    IInstructionGraph *old = __atomic_exchange_n(&of(This)->kept, graph, __ATOMIC_ACQ_REL);
    if (old)
        old->lpVtbl->Release(old);
    return S_OK;
}

CLRIE_PLUGIN_COM_IUNKNOWN(misuse, IInstrumentationMethod, struct misuse, iface, com)

static const struct IInstrumentationMethodVtbl misuse_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(misuse),
    .Initialize = misuse_Initialize,
    CLRIE_PLUGIN_IGNORE_DOMAIN_AND_ASSEMBLY_EVENTS,
    .OnModuleLoaded = clrie_plugin_ignore_module,
    .OnModuleUnloaded = clrie_plugin_ignore_module,
    .OnShutdown = misuse_OnShutdown,
    .ShouldInstrumentMethod = misuse_ShouldInstrumentMethod,
    .BeforeInstrumentMethod = clrie_plugin_ignore_method,
    .InstrumentMethod = misuse_InstrumentMethod,
    .OnInstrumentationComplete = clrie_plugin_ignore_method,
    .AllowInlineSite = clrie_plugin_allow_every_inline,
};

static void misuse_destroy(void *object)
{
    struct misuse *p = object;
    if (p->kept)
        p->kept->lpVtbl->Release(p->kept);
    free(p);
}

static const struct clrie_plugin_com_iface misuse_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethod, struct misuse, iface),
};

static const struct clrie_plugin_com_class misuse_class = {
    .name = "misuse",
    .ifaces = misuse_ifaces,
    .iface_count = CLRIE_PLUGIN_COM_COUNT(misuse_ifaces),
    .com_offset = offsetof(struct misuse, com),
    .destroy = misuse_destroy,
    .module_ref = true,
};

static HRESULT misuse_create(const CLSID *clsid, REFIID riid, void **out)
{
    (void)clsid;
    struct misuse *p = calloc(1, sizeof *p);
    if (!p)
        return E_OUTOFMEMORY;
    p->iface.lpVtbl = &misuse_vtbl;
    clrie_plugin_com_init(&p->com, &misuse_class);
    return clrie_plugin_com_give(&p->com, riid, out);
}

CLRIE_PLUGIN_EXPORT_CLASS_FACTORY(misuse_create)
