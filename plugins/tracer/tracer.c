/* tracer: the CLR Instrumentation Engine plugin that traces the methods named by the XML files
 * of a folder with tracers written in C# (docs/tracers.md).
 *
 * At start-up (Initialize) it reads the points of every `*.xml` file of its `Folder` setting
 * (points.c); a bad file is logged with its file:line:col and the others still apply. When a
 * module loads (OnModuleLoaded) it matches the points against the module's metadata (assembly,
 * type, method name and, when the point lists them, the parameter types: signature.c), defines
 * what the wrapper calls (the AssemblyRef Clrie.Tracing 1.0.0.0, the TypeRef
 * Clrie.Tracing.Shim, the MemberRefs Enter and Finish, and one user string per method that
 * describes its point) and asks for a ReJIT of every match, before the module's code can run.
 * The first JIT is never rewritten: IL set then cannot be reverted, and methods precompiled
 * with ReadyToRun are never jitted, while a ReJIT covers both. At the ReJIT
 * (InstrumentMethod with isRejit) the method's original IL is wrapped in the try/catch shape
 * of wrap.c.
 *
 * The points are read again when the folder changes (watch.c) or when the managed library
 * asks: methods no longer named are reverted, new ones rejitted (modules.c).
 *
 * Settings (the <Settings> of its configuration entry, or CLRIE_SETTING_<class ID>_<Name>):
 *   Folder  the folder of the points files. Without it nothing is traced.
 *   Watch   `false`: do not watch the folder (refresh only when the library asks). Default true.
 *
 * The injected code calls Clrie.Tracing.dll, which the application does not reference: the
 * runtime loads it because DOTNET_STARTUP_HOOKS names it (docs/tracers.md says why this and
 * not reflection). Without that the plugin traces nothing and says so, rather than make every
 * traced method throw FileNotFoundException. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <clrie/abi/corprof.h>
#include <clrie/abi/instrumentation.h>
#include <clrie/abi/metadata.h>
#include <clrie/os/env.h>
#include <clrie/plugin.h>

#include "tracer_plugin.h"

#define LIBRARY_FILE "Clrie.Tracing.dll"

typedef struct clrie_tracer__plugin tracer;

/* ---- settings -------------------------------------------------------------------------------- */

static void apply_setting(void *data, const char *name, const char *value)
{
    tracer *s = data;
    if (strcasecmp(name, "Folder") == 0) {
        free(s->folder);
        s->folder = strdup(value);
    } else if (strcasecmp(name, "Watch") == 0) {
        s->watch = clrie_plugin_is_true(value);
    } else {
        clrie_plugin_host_log(&s->host, true, "unknown setting '%s' ignored", name);
    }
}

/* ---- IInstrumentationMethod ---------------------------------------------------------------- */

static tracer *from_method(IInstrumentationMethod *iface)
{
    return CLRIE_CONTAINER_OF(iface, tracer, method);
}

static void tracer_destroy(void *object)
{
    tracer *s = object;
    clrie_tracer__watch_stop(s);
    clrie_tracer__modules_finish(s);
    clrie_plugin_release(s->info);
    clrie_plugin_host_finish(&s->host);
    free(s->folder);
    clrie_tracer_points_finish(&s->points);
    clrie_os_rwlock_finish(&s->lock);
    clrie_os_mutex_finish(&s->matching);
    clrie_os_mutex_finish(&s->refresh_lock);
    clrie_os_cond_finish(&s->refresh_wake);
    clrie_os_cond_finish(&s->refresh_done);
    free(s);
}

static const struct clrie_plugin_com_iface tracer_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethod, tracer, method),
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethodAttach, tracer, attach),
};

static const struct clrie_plugin_com_class tracer_class = {
    .name = "tracer",
    .ifaces = tracer_ifaces,
    .iface_count = CLRIE_PLUGIN_COM_COUNT(tracer_ifaces),
    .com_offset = offsetof(tracer, com),
    .destroy = tracer_destroy,
    .module_ref = true,
};

CLRIE_PLUGIN_COM_IUNKNOWN(tracer, IInstrumentationMethod, tracer, method, com)
CLRIE_PLUGIN_COM_IUNKNOWN(tracer_attach, IInstrumentationMethodAttach, tracer, attach, com)

/* Initialize at start-up, InitializeForAttach when the engine is attached to a running app. */
static HRESULT start(tracer *s, IProfilerManager *manager)
{
    if (!manager)
        return E_POINTER;
    clrie_plugin_host_init(&s->host, manager, "tracer");
    clrie_plugin_host_read_settings_for(&s->host, manager, &s->clsid, apply_setting, s);
    if (!s->folder) {
        clrie_plugin_host_log(&s->host, true, "no Folder setting: nothing will be traced");
        return S_OK;
    }
    /* The wrapped methods call the library: without it each would throw
     * FileNotFoundException, so trace nothing rather than break the app. */
    char *hooks = NULL;
    int r = clrie_os_env_get("DOTNET_STARTUP_HOOKS", &hooks);
    bool hooked = r == 0 && strstr(hooks, LIBRARY_FILE);
    free(hooks);
    if (!hooked) {
        clrie_plugin_host_log(&s->host, true,
                              "DOTNET_STARTUP_HOOKS does not name " LIBRARY_FILE
                              ", so the runtime could not load the tracer library: nothing "
                              "will be traced");
        return S_OK;
    }
    IUnknown *info = NULL;
    if (SUCCEEDED(manager->lpVtbl->GetCorProfilerInfo(manager, &info)) && info)
        info->lpVtbl->QueryInterface(info, &IID_ICorProfilerInfo4, (void **)&s->info);
    clrie_plugin_release(info);
    clrie_tracer__read_points(s, &s->points);
    clrie_tracer__watch_start(s);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE tracer_Initialize(IInstrumentationMethod *This,
                                                   IProfilerManager *manager)
{
    return start(from_method(This), manager);
}

static HRESULT STDMETHODCALLTYPE tracer_OnModuleLoaded(IInstrumentationMethod *This,
                                                       IModuleInfo *module)
{
    tracer *s = from_method(This);
    if (!module)
        return E_POINTER;
    if (s->refresher_started)
        clrie_tracer__module_loaded(s, module);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE tracer_OnModuleUnloaded(IInstrumentationMethod *This,
                                                         IModuleInfo *module)
{
    ModuleID id = 0;
    if (module && SUCCEEDED(module->lpVtbl->GetModuleID(module, &id)))
        clrie_tracer__module_unloaded(from_method(This), id);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE tracer_OnShutdown(IInstrumentationMethod *This)
{
    tracer *s = from_method(This);
    clrie_tracer__watch_stop(s);
    if (s->folder)
        clrie_tracer__report_never_loaded(s);
    return S_OK;
}

static bool lookup(tracer *s, IMethodInfo *method, struct clrie_tracer_method *traced,
                   struct clrie_tracer_refs *refs)
{
    ModuleID id = 0;
    mdMethodDef token = 0;
    return method && SUCCEEDED(clrie_plugin_method_key(method, &id, &token)) &&
           clrie_tracer__find(s, id, token, traced, refs);
}

static HRESULT STDMETHODCALLTYPE tracer_ShouldInstrumentMethod(IInstrumentationMethod *This,
                                                               IMethodInfo *method, BOOL isRejit,
                                                               BOOL *pbInstrument)
{
    if (!pbInstrument)
        return E_POINTER;
    /* the first JIT is left alone: only a ReJIT can be reverted */
    *pbInstrument = isRejit && lookup(from_method(This), method, NULL, NULL);
    return S_OK;
}

/* Whether the method must be left alone for a by-ref-like type, looked at again now: at the
 * module load the assembly that defines a parameter's type may not have loaded yet, while at the
 * ReJIT (the method's next call) its callers have been compiled, which loaded it. A type still
 * unknown is taken as by-ref-like: a wrapper that boxed one would be rejected by the JIT. */
static bool byref_like_now(tracer *s, IMethodInfo *method, mdMethodDef token)
{
    IModuleInfo *module = NULL;
    struct clrie_plugin_metadata md = {0};
    mdTypeDef owner = mdTokenNil;
    PCCOR_SIGNATURE sig = NULL;
    ULONG sig_len = 0, rva = 0, name_len = 0;
    DWORD attributes = 0, impl = 0;
    WCHAR name[CLRIE_PLUGIN_NAME_UNITS], type[CLRIE_PLUGIN_NAME_UNITS];
    char parameters[2048], unknown[256], name_utf8[CLRIE_PLUGIN_NAME_UNITS * 3],
        type_utf8[CLRIE_PLUGIN_NAME_UNITS * 3];
    enum clrie_tracer_byref_like answer = CLRIE_TRACER_NOT_BYREF_LIKE;
    if (FAILED(method->lpVtbl->GetModuleInfo(method, &module)) ||
        FAILED(clrie_plugin_metadata_init(&md, module)) ||
        FAILED(md.import->lpVtbl->GetMethodProps(md.import, token, &owner, name,
                                                 CLRIE_PLUGIN_NAME_UNITS, &name_len, &attributes,
                                                 &sig, &sig_len, &rva, &impl)))
        goto out;
    struct clrie_tracer__typerefs_of typerefs = {.s = s, .module = module};
    if (clrie_tracer_signature_byref_like(md.import, sig, sig_len, clrie_tracer__typerefs_of_module,
                                          &typerefs, &answer, unknown, sizeof unknown) != 0 ||
        answer == CLRIE_TRACER_NOT_BYREF_LIKE)
        goto out;
    type[0] = 0;
    clrie_plugin_type_name(md.import, owner, type, CLRIE_PLUGIN_NAME_UNITS);
    clrie_plugin_bstr_to_utf8_buf(type, type_utf8, sizeof type_utf8);
    clrie_plugin_bstr_to_utf8_buf(name, name_utf8, sizeof name_utf8);
    if (clrie_tracer_parameters_text(md.import, sig, sig_len, parameters, sizeof parameters) != 0)
        snprintf(parameters, sizeof parameters, "...");
    if (answer == CLRIE_TRACER_BYREF_LIKE)
        clrie_plugin_host_log(&s->host, true,
                              "%s::%s(%s): not traced: " CLRIE_TRACER__BYREF_LIKE_REASON, type_utf8,
                              name_utf8, parameters);
    else
        clrie_plugin_host_log(&s->host, true,
                              "%s::%s(%s): not traced: the assembly that defines the value type "
                              "%s has not loaded, so whether it is by-ref-like cannot be told",
                              type_utf8, name_utf8, parameters, unknown);
out:
    clrie_plugin_metadata_finish(&md);
    clrie_plugin_release(module);
    return answer != CLRIE_TRACER_NOT_BYREF_LIKE;
}

static HRESULT STDMETHODCALLTYPE tracer_InstrumentMethod(IInstrumentationMethod *This,
                                                         IMethodInfo *method, BOOL isRejit)
{
    tracer *s = from_method(This);
    struct clrie_tracer_method traced;
    struct clrie_tracer_refs refs;
    if (!isRejit || !lookup(s, method, &traced, &refs))
        return S_OK; /* not (or no longer) traced: the original IL */
    if (byref_like_now(s, method, traced.token))
        return S_OK;
    const char *why = NULL;
    HRESULT hr = clrie_tracer_wrap(method, &traced, &refs, &why);
    if (hr == S_OK)
        return S_OK;
    char name[512];
    clrie_plugin_method_full_name(method, s->host.strings, name, sizeof name);
    if (hr == S_FALSE) {
        clrie_plugin_host_log(&s->host, true, "%s: not traced: %s", name, why ? why : "?");
        return S_OK;
    }
    clrie_plugin_host_log(&s->host, true, "%s: not traced (hr 0x%08X)", name, (unsigned)hr);
    return hr;
}

static HRESULT STDMETHODCALLTYPE tracer_AllowInlineSite(IInstrumentationMethod *This,
                                                        IMethodInfo *inlinee, IMethodInfo *caller,
                                                        BOOL *pbAllowInline)
{
    (void)caller; /* a traced method must stay a call, wherever it is called from */
    if (!pbAllowInline)
        return E_POINTER;
    *pbAllowInline = !lookup(from_method(This), inlinee, NULL, NULL);
    return S_OK;
}

static const struct IInstrumentationMethodVtbl tracer_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(tracer),
    .Initialize = tracer_Initialize,
    CLRIE_PLUGIN_IGNORE_DOMAIN_AND_ASSEMBLY_EVENTS,
    .OnModuleLoaded = tracer_OnModuleLoaded,
    .OnModuleUnloaded = tracer_OnModuleUnloaded,
    .OnShutdown = tracer_OnShutdown,
    .ShouldInstrumentMethod = tracer_ShouldInstrumentMethod,
    .BeforeInstrumentMethod = clrie_plugin_ignore_method,
    .InstrumentMethod = tracer_InstrumentMethod,
    .OnInstrumentationComplete = clrie_plugin_ignore_method,
    .AllowInlineSite = tracer_AllowInlineSite,
};

/* ---- IInstrumentationMethodAttach: loaded into a running app ----------------------------------
 */

/* The engine then hands the plugin every module already loaded (OnModuleLoaded), and the
 * methods they name are rejitted like those of modules loaded later. */
static HRESULT STDMETHODCALLTYPE
tracer_InitializeForAttach(IInstrumentationMethodAttach *This, IProfilerManager *manager,
                           IInstrumentationMethodAttachContext *context)
{
    (void)context; /* its settings are the manager's, which start() reads */
    return start(CLRIE_CONTAINER_OF(This, tracer, attach), manager);
}

static HRESULT STDMETHODCALLTYPE tracer_AttachComplete(IInstrumentationMethodAttach *This)
{
    (void)This;
    return S_OK;
}

static const struct IInstrumentationMethodAttachVtbl tracer_attach_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(tracer_attach),
    .InitializeForAttach = tracer_InitializeForAttach,
    .AttachComplete = tracer_AttachComplete,
};

/* Any class ID: each config entry naming this module is an instance with its own settings. */
static HRESULT create_instance(const CLSID *clsid, REFIID riid, void **out)
{
    tracer *s = calloc(1, sizeof(*s));
    if (!s)
        return E_OUTOFMEMORY;
    s->clsid = *clsid;
    s->watch = true;
    clrie_os_mutex_init(&s->matching);
    clrie_os_rwlock_init(&s->lock);
    clrie_os_mutex_init(&s->refresh_lock);
    clrie_os_cond_init(&s->refresh_wake);
    clrie_os_cond_init(&s->refresh_done);
    s->method.lpVtbl = &tracer_vtbl;
    s->attach.lpVtbl = &tracer_attach_vtbl;
    clrie_plugin_com_init(&s->com, &tracer_class);
    return clrie_plugin_com_give(&s->com, riid, out);
}

CLRIE_PLUGIN_EXPORT_CLASS_FACTORY(create_instance)
