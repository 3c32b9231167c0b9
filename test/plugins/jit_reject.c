/* A plugin whose edits pass every check the engine can make, yet the JIT cannot compile them:
 * at the start of two methods of test/dotnet/jitreject it inserts `ldtoken T; pop`, where T is
 *
 *   Program::NeedsMissingAssembly   a TypeRef into the AssemblyRef `Clrie.Test.Absent`, an
 *                                   assembly that does not exist
 *   Program::NeedsMissingType       a TypeRef `Clrie.Test.NoSuchType` into the app's
 *                                   System.Runtime, which defines no such type
 *
 * and, when CLRIE_JIT_REJECT_MAIN is set, Program::Main as the second (no managed frame then
 * calls the method the JIT rejected).
 *
 * With CLRIE_JIT_REJECT_REJIT set it leaves every first JIT alone and makes the same edits at a
 * ReJIT instead: when the app's module loads it asks (IModuleInfo::RequestRejit, from a thread of
 * its own while the load waits) for the ReJIT of the two methods, and of MethodDef 0x06000FFF,
 * a row the module does not have, which the runtime answers with ReJITError.
 *
 * Both tokens name rows that exist, so no static check can refuse them; the runtime's type
 * loader fails when the JIT resolves them. This is how a plugin whose managed helper is not
 * deployed breaks an app. The engine must say which method failed and which plugin changed it
 * (test/dotnet/test_jit_reject.py). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <clrie/os/thread.h>
#include <clrie/plugin.h>

struct jit_reject {
    IInstrumentationMethod method;
    struct clrie_plugin_com com;
    struct clrie_plugin_host host;
    bool at_rejit; /* CLRIE_JIT_REJECT_REJIT */
};

/* The MethodDef the runtime has no row for: its ReJIT request ends in ReJITError. */
#define ABSENT_METHOD 0x06000FFFu

static struct jit_reject *of(IInstrumentationMethod *This)
{
    return CLRIE_CONTAINER_OF(This, struct jit_reject, method);
}

static HRESULT STDMETHODCALLTYPE jit_reject_Initialize(IInstrumentationMethod *This,
                                                       IProfilerManager *manager)
{
    clrie_plugin_host_init(&of(This)->host, manager, "jit_reject");
    const char *rejit = getenv("CLRIE_JIT_REJECT_REJIT");
    of(This)->at_rejit = rejit && *rejit;
    return S_OK;
}

/* Which of the two methods this is: 1 missing assembly, 2 missing type, 0 neither. */
static int target_of(struct jit_reject *p, IMethodInfo *mi)
{
    char name[256];
    if (FAILED(clrie_plugin_method_full_name(mi, p->host.strings, name, sizeof name)))
        return 0;
    if (strcmp(name, "Program.NeedsMissingAssembly") == 0)
        return 1;
    if (strcmp(name, "Program.NeedsMissingType") == 0 ||
        (strcmp(name, "Program.Main") == 0 && getenv("CLRIE_JIT_REJECT_MAIN") &&
         *getenv("CLRIE_JIT_REJECT_MAIN")))
        return 2;
    return 0;
}

static HRESULT STDMETHODCALLTYPE jit_reject_ShouldInstrumentMethod(IInstrumentationMethod *This,
                                                                   IMethodInfo *mi, BOOL isRejit,
                                                                   BOOL *pbInstrument)
{
    struct jit_reject *p = of(This);
    *pbInstrument = (p->at_rejit ? isRejit : !isRejit) && target_of(p, mi) != 0 ? TRUE : FALSE;
    return S_OK;
}

/* ---- ReJIT requests (CLRIE_JIT_REJECT_REJIT) ------------------------------------------ */

struct requests {
    struct jit_reject *p;
    IModuleInfo *module;
    mdMethodDef tokens[3];
    size_t count;
};

static HRESULT collect(void *data, mdMethodDef token, const WCHAR *full_name, ULONG rva)
{
    struct requests *r = data;
    char name[256];
    (void)rva;
    clrie_plugin_bstr_to_utf8_buf(full_name, name, sizeof name);
    if ((strcmp(name, "Program::NeedsMissingAssembly") == 0 ||
         strcmp(name, "Program::NeedsMissingType") == 0) &&
        r->count < 2)
        r->tokens[r->count++] = token;
    return S_OK;
}

/* A request suspends the runtime, which the thread of a runtime callback must not do. */
static void request_thread(void *data)
{
    struct requests *r = data;
    for (size_t i = 0; i < r->count; i++) {
        HRESULT hr = r->module->lpVtbl->RequestRejit(r->module, r->tokens[i]);
        if (FAILED(hr))
            clrie_plugin_host_log(&r->p->host, true, "RequestRejit(0x%08X) failed (hr 0x%08X)",
                                  (unsigned)r->tokens[i], (unsigned)hr);
    }
}

static HRESULT STDMETHODCALLTYPE jit_reject_OnModuleLoaded(IInstrumentationMethod *This,
                                                           IModuleInfo *module)
{
    struct jit_reject *p = of(This);
    BSTR bstr = NULL;
    char name[512] = "";
    if (!p->at_rejit || !module || FAILED(module->lpVtbl->GetModuleName(module, &bstr)))
        return S_OK;
    clrie_plugin_bstr_to_utf8_buf(bstr, name, sizeof name);
    clrie_plugin_free_bstr(p->host.strings, bstr);
    size_t len = strlen(name);
    if (len < 13 || strcmp(name + len - 13, "jitreject.dll") != 0)
        return S_OK;
    struct requests r = {.p = p, .module = module};
    IMetaDataImport *import = NULL;
    if (SUCCEEDED(clrie_plugin_module_metadata(module, &IID_IMetaDataImport, (void **)&import)))
        clrie_plugin_method_defs_each(import, collect, &r);
    clrie_plugin_release(import);
    r.tokens[r.count++] = ABSENT_METHOD;
    struct clrie_os_thread thread;
    if (clrie_os_thread_start(&thread, request_thread, &r) == 0)
        clrie_os_thread_join(&thread);
    return S_OK;
}

/* The TypeRef the method's new first instruction loads. */
static HRESULT define_type(IMethodInfo *mi, int target, mdTypeRef *type)
{
    IModuleInfo *module = NULL;
    struct clrie_plugin_metadata md = {0};
    HRESULT hr = mi->lpVtbl->GetModuleInfo(mi, &module);
    if (SUCCEEDED(hr))
        hr = clrie_plugin_metadata_init(&md, module);
    mdAssemblyRef scope = mdTokenNil;
    if (SUCCEEDED(hr) && target == 1) {
        ASSEMBLYMETADATA version;
        memset(&version, 0, sizeof version);
        version.usMajorVersion = 1;
        hr = md.assembly_emit->lpVtbl->DefineAssemblyRef(
            md.assembly_emit, NULL, 0, u"Clrie.Test.Absent", &version, NULL, 0, 0, &scope);
    } else if (SUCCEEDED(hr)) {
        scope = clrie_plugin_find_assembly_ref(md.assembly_import, "System.Runtime", NULL);
        if (scope == mdTokenNil)
            hr = E_FAIL;
    }
    if (SUCCEEDED(hr))
        hr = md.emit->lpVtbl->DefineTypeRefByName(
            md.emit, scope, target == 1 ? u"Clrie.Test.Absent.Helper" : u"Clrie.Test.NoSuchType",
            type);
    clrie_plugin_metadata_finish(&md);
    clrie_plugin_release(module);
    return hr;
}

static HRESULT STDMETHODCALLTYPE jit_reject_InstrumentMethod(IInstrumentationMethod *This,
                                                             IMethodInfo *mi, BOOL isRejit)
{
    struct jit_reject *p = of(This);
    IInstructionGraph *graph = NULL;
    IInstructionFactory *factory = NULL;
    IInstruction *first = NULL, *load = NULL, *pop = NULL;
    mdTypeRef type = mdTokenNil;
    HRESULT hr = define_type(mi, target_of(p, mi), &type);
    if (SUCCEEDED(hr))
        hr = mi->lpVtbl->GetInstructions(mi, &graph);
    if (SUCCEEDED(hr))
        hr = mi->lpVtbl->GetInstructionFactory(mi, &factory);
    if (SUCCEEDED(hr))
        hr = graph->lpVtbl->GetFirstInstruction(graph, &first);
    if (SUCCEEDED(hr))
        hr = factory->lpVtbl->CreateTokenOperandInstruction(factory, Cee_Ldtoken, type, &load);
    if (SUCCEEDED(hr))
        hr = factory->lpVtbl->CreateInstruction(factory, Cee_Pop, &pop);
    if (SUCCEEDED(hr))
        hr = graph->lpVtbl->InsertBefore(graph, first, load);
    if (SUCCEEDED(hr))
        hr = graph->lpVtbl->InsertAfter(graph, load, pop);
    if (FAILED(hr))
        clrie_plugin_host_log(&p->host, true, "cannot rewrite the method (hr 0x%08X)",
                              (unsigned)hr);
    clrie_plugin_release(pop);
    clrie_plugin_release(load);
    clrie_plugin_release(first);
    clrie_plugin_release(factory);
    clrie_plugin_release(graph);
    return hr;
}

/* ---- the COM object, its class and its factory ---------------------------------------- */

CLRIE_PLUGIN_COM_IUNKNOWN(jit_reject, IInstrumentationMethod, struct jit_reject, method, com)

static const struct IInstrumentationMethodVtbl jit_reject_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(jit_reject),
    .Initialize = jit_reject_Initialize,
    CLRIE_PLUGIN_IGNORE_DOMAIN_AND_ASSEMBLY_EVENTS,
    .OnModuleLoaded = jit_reject_OnModuleLoaded,
    .OnModuleUnloaded = clrie_plugin_ignore_module,
    .OnShutdown = clrie_plugin_ignore_shutdown,
    .ShouldInstrumentMethod = jit_reject_ShouldInstrumentMethod,
    .BeforeInstrumentMethod = clrie_plugin_ignore_method,
    .InstrumentMethod = jit_reject_InstrumentMethod,
    .OnInstrumentationComplete = clrie_plugin_ignore_method,
    .AllowInlineSite = clrie_plugin_allow_every_inline,
};

static void jit_reject_destroy(void *object)
{
    clrie_plugin_host_finish(&((struct jit_reject *)object)->host);
    free(object);
}

static const struct clrie_plugin_com_iface jit_reject_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethod, struct jit_reject, method),
};

static const struct clrie_plugin_com_class jit_reject_class = {
    .name = "jit_reject",
    .ifaces = jit_reject_ifaces,
    .iface_count = CLRIE_PLUGIN_COM_COUNT(jit_reject_ifaces),
    .com_offset = offsetof(struct jit_reject, com),
    .destroy = jit_reject_destroy,
    .module_ref = true,
};

static HRESULT jit_reject_create(const CLSID *clsid, REFIID riid, void **out)
{
    (void)clsid;
    struct jit_reject *p = calloc(1, sizeof *p);
    if (!p)
        return E_OUTOFMEMORY;
    p->method.lpVtbl = &jit_reject_vtbl;
    clrie_plugin_com_init(&p->com, &jit_reject_class);
    return clrie_plugin_com_give(&p->com, riid, out);
}

CLRIE_PLUGIN_EXPORT_CLASS_FACTORY(jit_reject_create)
