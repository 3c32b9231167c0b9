/* tracer: a CLR Instrumentation Engine plugin that makes selected methods print their entry
 * and exit through the application's own runtime:
 *
 *   enter Sample.Program::Sum
 *   exit Sample.Program::Sum
 *
 * Each selected method gets `ldstr "enter <name>"; call void [System.Console]System.Console::
 * WriteLine(string)` at its start, and the same with "exit <name>" before its single exit
 * (ISingleRetDefaultInstrumentation2 gathers every return into one; a method left by an
 * exception prints no exit line).
 *
 * Everything the new IL names is defined while the module loads (OnModuleLoaded), through
 * IModuleInfo's metadata interfaces: the AssemblyRef to System.Console (the module's own if
 * it has one, else a new one with System.Console's public key token and the version of the
 * module's System.Runtime reference), the TypeRef System.Console, the MemberRef
 * WriteLine(string) with a hand-built signature, and a user string per line.
 *
 * Setting (the <Settings> of its config entry, read through IInstrumentationMethodAttachContext):
 *   Pattern  `;`-separated shell patterns (fnmatch) matched against `Namespace.Type::Method`
 *            (nested types as `Outer+Inner`), e.g. `Sample.*` or `Sample.Program::Sum;*::Main`.
 *            Without it nothing is traced. Only the app's modules are traced: not the shared
 *            framework's (those in System.Private.CoreLib's folder), through which
 *            Console.WriteLine runs; tracing them would print without end.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <clrie/abi/corprof.h>
#include <clrie/abi/instrumentation.h>
#include <clrie/abi/metadata.h>
#include <clrie/plugin.h>

/* A method to trace and the user strings of its two lines. */
struct traced_method {
    mdMethodDef token;
    mdString enter;
    mdString exit;
};

/* What OnModuleLoaded prepared for one module: its traced_methods and WriteLine. */
struct module_plan {
    struct clrie_plugin_plan base;
    mdMemberRef write_line;
};

struct tracer {
    IInstrumentationMethod method;
    CLSID clsid; /* the config entry's: names its environment settings */
    struct clrie_plugin_com com;
    struct clrie_plugin_host host;
    struct clrie_plugin_patterns patterns;
    struct clrie_plugin_framework framework;
    struct clrie_plugin_plans plans;
};

/* ---- settings ----------------------------------------------------------------------------------
 */

static void apply_setting(void *data, const char *name, const char *value)
{
    struct tracer *s = data;
    if (strcasecmp(name, "Pattern") == 0)
        clrie_plugin_patterns_add(&s->patterns, value);
    else
        clrie_plugin_host_log(&s->host, true, "unknown setting '%s' ignored", name);
}

/* ---- metadata: which methods, and the references the new IL names ---------------------------- */

/* The user strings "enter <name>" and "exit <name>". */
static HRESULT define_lines(void *emit_iface, void *entry, const WCHAR *name)
{
    IMetaDataEmit *emit = emit_iface;
    struct traced_method *m = entry;
    WCHAR line[2 * CLRIE_PLUGIN_NAME_UNITS + 16] = {0};
    clrie_plugin_wcs_append_utf8(line, sizeof line / sizeof line[0], "enter ");
    clrie_plugin_wcs_append(line, sizeof line / sizeof line[0], name);
    HRESULT hr =
        emit->lpVtbl->DefineUserString(emit, line, (ULONG)clrie_plugin_wcs_len(line), &m->enter);
    if (FAILED(hr))
        return hr;
    line[0] = 0;
    clrie_plugin_wcs_append_utf8(line, sizeof line / sizeof line[0], "exit ");
    clrie_plugin_wcs_append(line, sizeof line / sizeof line[0], name);
    return emit->lpVtbl->DefineUserString(emit, line, (ULONG)clrie_plugin_wcs_len(line), &m->exit);
}

static const BYTE console_token[8] = {0xB0, 0x3F, 0x5F, 0x7F, 0x11, 0xD5, 0x0A, 0x3A};

/* [System.Console]System.Console::WriteLine(string), defined in the module. */
static HRESULT define_write_line(IMetaDataEmit *emit, IMetaDataAssemblyImport *assemblies,
                                 IMetaDataAssemblyEmit *assembly_emit, mdMemberRef *out)
{
    mdAssemblyRef console = clrie_plugin_find_assembly_ref(assemblies, "System.Console", NULL);
    HRESULT hr = S_OK;
    if (console == mdTokenNil) {
        ASSEMBLYMETADATA version;
        memset(&version, 0, sizeof version);
        if (clrie_plugin_find_assembly_ref(assemblies, "System.Runtime", &version) == mdTokenNil)
            version.usMajorVersion = 4; /* any installed System.Console is newer */
        version.szLocale = NULL;
        version.cbLocale = 0;
        hr = assembly_emit->lpVtbl->DefineAssemblyRef(assembly_emit, console_token,
                                                      sizeof console_token, u"System.Console",
                                                      &version, NULL, 0, 0, &console);
        if (FAILED(hr))
            return hr;
    }
    mdTypeRef type = mdTokenNil;
    hr = emit->lpVtbl->DefineTypeRefByName(emit, console, u"System.Console", &type);
    if (FAILED(hr))
        return hr;
    /* static void WriteLine(string): DEFAULT, 1 parameter, VOID, STRING */
    static const COR_SIGNATURE signature[] = {0x00, 0x01, ELEMENT_TYPE_VOID, ELEMENT_TYPE_STRING};
    return emit->lpVtbl->DefineMemberRef(emit, type, u"WriteLine", signature, sizeof signature,
                                         out);
}

/* Chooses the module's methods and defines what their lines name (clrie_plugin_plan_fn). */
static HRESULT plan_module(void *data, IModuleInfo *module, struct clrie_plugin_plan *plan)
{
    struct tracer *s = data;
    struct clrie_plugin_metadata md;
    HRESULT hr = clrie_plugin_metadata_init(&md, module);
    if (SUCCEEDED(hr))
        hr = clrie_plugin_plan_select(plan, md.import, &s->patterns, define_lines, md.emit);
    if (SUCCEEDED(hr) && plan->count > 0)
        hr = define_write_line(md.emit, md.assembly_import, md.assembly_emit,
                               &((struct module_plan *)plan)->write_line);
    clrie_plugin_metadata_finish(&md);
    return hr;
}

/* ---- the rewrite --------------------------------------------------------------------------- */

/* `ldstr line; call WriteLine`, placed before `where`. */
static HRESULT print_before(IInstructionGraph *graph, IInstructionFactory *factory,
                            IInstruction *where, mdString line, mdMemberRef write_line,
                            bool retarget)
{
    IInstruction *load = NULL, *call = NULL;
    HRESULT hr = factory->lpVtbl->CreateTokenOperandInstruction(factory, Cee_Ldstr, line, &load);
    if (SUCCEEDED(hr))
        hr = factory->lpVtbl->CreateTokenOperandInstruction(factory, Cee_Call, write_line, &call);
    if (SUCCEEDED(hr))
        hr = retarget ? graph->lpVtbl->InsertBeforeAndRetargetOffsets(graph, where, load)
                      : graph->lpVtbl->InsertBefore(graph, where, load);
    if (SUCCEEDED(hr))
        hr = graph->lpVtbl->InsertAfter(graph, load, call);
    clrie_plugin_release(call);
    clrie_plugin_release(load);
    return hr;
}

static HRESULT rewrite(IMethodInfo *method, const struct traced_method *traced,
                       mdMemberRef write_line)
{
    struct clrie_plugin_rewrite rw;
    IInstruction *first = NULL, *exit = NULL;
    HRESULT hr = clrie_plugin_rewrite_init(&rw, method);
    /* Entry: before the first instruction, not retargeted, so a loop back to the start does
     * not print again. */
    if (SUCCEEDED(hr))
        hr = rw.graph->lpVtbl->GetFirstInstruction(rw.graph, &first);
    if (SUCCEEDED(hr))
        hr = print_before(rw.graph, rw.factory, first, traced->enter, write_line, false);
    /* Exit: before single-ret's shared exit (or the last plain `ret`), retargeted, so every
     * return passes through it. */
    if (SUCCEEDED(hr) && (exit = clrie_plugin_rewrite_exit(&rw)))
        hr = print_before(rw.graph, rw.factory, exit, traced->exit, write_line, true);
    clrie_plugin_release(exit);
    clrie_plugin_release(first);
    clrie_plugin_rewrite_finish(&rw);
    return hr;
}

/* ---- IInstrumentationMethod ---------------------------------------------------------------- */

static struct tracer *from_method(IInstrumentationMethod *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct tracer, method);
}

static void tracer_destroy(void *object)
{
    struct tracer *s = object;
    clrie_plugin_host_finish(&s->host);
    clrie_plugin_patterns_finish(&s->patterns);
    clrie_plugin_framework_finish(&s->framework);
    clrie_plugin_plans_finish(&s->plans);
    free(s);
}

static const struct clrie_plugin_com_iface tracer_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethod, struct tracer, method),
};

static const struct clrie_plugin_com_class tracer_class = {
    .name = "tracer",
    .ifaces = tracer_ifaces,
    .iface_count = CLRIE_PLUGIN_COM_COUNT(tracer_ifaces),
    .com_offset = offsetof(struct tracer, com),
    .destroy = tracer_destroy,
    .module_ref = true,
};

CLRIE_PLUGIN_COM_IUNKNOWN(tracer, IInstrumentationMethod, struct tracer, method, com)

static HRESULT STDMETHODCALLTYPE tracer_Initialize(IInstrumentationMethod *This,
                                                   IProfilerManager *manager)
{
    struct tracer *s = from_method(This);
    if (!manager)
        return E_POINTER;
    clrie_plugin_host_init(&s->host, manager, "tracer");
    clrie_plugin_host_read_settings_for(&s->host, manager, &s->clsid, apply_setting, s);
    if (s->patterns.count == 0)
        clrie_plugin_host_log(&s->host, true, "no Pattern setting: nothing will be traced");
    return S_OK;
}

/* Whether the module is the app's: not one of the shared framework's, which the runtime loads
 * from System.Private.CoreLib's folder. Console.WriteLine runs through framework code, so
 * tracing it would make every line print lines of its own, without end. */
static bool module_traceable(struct tracer *s, IModuleInfo *module)
{
    BSTR text = NULL;
    char *path =
        clrie_plugin_host_take_utf8(&s->host, module->lpVtbl->GetFullPath(module, &text), &text);
    bool traceable = path && !clrie_plugin_framework_has(&s->framework, path);
    free(path);
    return traceable;
}

static HRESULT STDMETHODCALLTYPE tracer_OnModuleLoaded(IInstrumentationMethod *This,
                                                       IModuleInfo *module)
{
    struct tracer *s = from_method(This);
    if (!module)
        return E_POINTER;
    if (s->patterns.count == 0 || !module_traceable(s, module))
        return S_OK;
    HRESULT hr = clrie_plugin_plans_prepare(&s->plans, module, sizeof(struct module_plan),
                                            sizeof(struct traced_method), plan_module, s);
    if (FAILED(hr)) {
        BSTR text = NULL;
        char *name = clrie_plugin_host_take_utf8(
            &s->host, module->lpVtbl->GetModuleName(module, &text), &text);
        clrie_plugin_host_log(&s->host, true,
                              "%s: cannot prepare the module (hr 0x%08X); it is not traced",
                              name ? name : "?", (unsigned)hr);
        free(name);
    }
    return hr == E_OUTOFMEMORY ? hr : S_OK;
}

static HRESULT STDMETHODCALLTYPE tracer_ShouldInstrumentMethod(IInstrumentationMethod *This,
                                                               IMethodInfo *method, BOOL isRejit,
                                                               BOOL *pbInstrument)
{
    (void)isRejit;
    return clrie_plugin_plans_should_instrument(&from_method(This)->plans, method, pbInstrument);
}

static HRESULT STDMETHODCALLTYPE tracer_InstrumentMethod(IInstrumentationMethod *This,
                                                         IMethodInfo *method, BOOL isRejit)
{
    struct tracer *s = from_method(This);
    (void)isRejit;
    const struct clrie_plugin_plan *plan = NULL;
    const struct traced_method *traced = clrie_plugin_plans_find(&s->plans, method, &plan);
    if (!traced)
        return S_OK;
    HRESULT hr = rewrite(method, traced, ((const struct module_plan *)plan)->write_line);
    if (FAILED(hr)) {
        char name[512];
        clrie_plugin_method_full_name(method, s->host.strings, name, sizeof name);
        clrie_plugin_host_log(&s->host, true, "%s: not traced (hr 0x%08X)", name, (unsigned)hr);
    }
    return hr;
}

static HRESULT STDMETHODCALLTYPE tracer_AllowInlineSite(IInstrumentationMethod *This,
                                                        IMethodInfo *inlinee, IMethodInfo *caller,
                                                        BOOL *pbAllowInline)
{
    (void)caller; /* a traced method must stay a call, wherever it is called from */
    return clrie_plugin_plans_allow_inline(&from_method(This)->plans, inlinee, pbAllowInline);
}

static const struct IInstrumentationMethodVtbl tracer_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(tracer),
    .Initialize = tracer_Initialize,
    CLRIE_PLUGIN_IGNORE_DOMAIN_AND_ASSEMBLY_EVENTS,
    .OnModuleLoaded = tracer_OnModuleLoaded,
    .OnModuleUnloaded = clrie_plugin_ignore_module, /* a ModuleID may come back: plans are kept */
    .OnShutdown = clrie_plugin_ignore_shutdown,
    .ShouldInstrumentMethod = tracer_ShouldInstrumentMethod,
    .BeforeInstrumentMethod = clrie_plugin_ignore_method,
    .InstrumentMethod = tracer_InstrumentMethod,
    .OnInstrumentationComplete = clrie_plugin_ignore_method,
    .AllowInlineSite = tracer_AllowInlineSite,
};

/* Any class ID: each config entry naming this module is an instance with its own settings. */
static HRESULT create_instance(const CLSID *clsid, REFIID riid, void **out)
{
    struct tracer *s = calloc(1, sizeof(*s));
    if (!s)
        return E_OUTOFMEMORY;
    s->clsid = *clsid;
    s->method.lpVtbl = &tracer_vtbl;
    clrie_plugin_com_init(&s->com, &tracer_class);
    return clrie_plugin_com_give(&s->com, riid, out);
}

CLRIE_PLUGIN_EXPORT_CLASS_FACTORY(create_instance)
