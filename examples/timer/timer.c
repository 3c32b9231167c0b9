/* timer: a CLR Instrumentation Engine plugin that times selected methods the way commercial
 * APM agents do: each selected method is rewritten into
 *
 *       start = Clrie.Timer.Probe.Enter("<name>")
 *       try { <the original body, every return now a `leave` to the single exit> }
 *       finally { Clrie.Timer.Probe.Exit("<name>", start, "<Output>" or null) }
 *       <the single exit: [ldloc result;] ret>
 *
 * and the managed helper (helper/, assembly Clrie.Timer) prints `timer <name> <elapsed>us`
 * when the method is left, by a return or by an exception. This file is the plugin object,
 * its settings and the metadata it defines; rewrite.c is the IL rewrite.
 *
 * The helper's AssemblyRef (Clrie.Timer 1.0.0.0, no public key), the TypeRef Clrie.Timer.Probe,
 * the MemberRefs Enter(string) -> int64 and Exit(string, int64, string), a user string per
 * method and one for the Output setting are defined while the module loads (OnModuleLoaded). The
 * runtime must be able to load the helper for an app that does not reference it:
 * DOTNET_STARTUP_HOOKS must name Clrie.Timer.dll (see README.md); without it the plugin times
 * nothing, rather than make every timed method throw FileNotFoundException.
 *
 * Settings (the <Settings> of its config entry, read through IInstrumentationMethodAttachContext):
 *   Pattern  `;`-separated shell patterns (fnmatch) matched against `Namespace.Type::Method`
 *            (nested types as `Outer+Inner`), e.g. `Sample.*`. Without it nothing is timed.
 *            Methods of the shared framework (System.Private.CoreLib's folder) and of the
 *            helper itself are never timed (the helper runs on them: timing them would
 *            recurse).
 *   Output   a file the helper appends its lines to (passed to every Exit call as a string:
 *            the runtime keeps its own copy of the environment, so a variable the plugin set
 *            would not reach managed code); default: the app's stderr.
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
#include <clrie/os/fs.h>
#include <clrie/plugin.h>

#include "timer.h"

struct timer {
    IInstrumentationMethod method;
    CLSID clsid; /* the config entry's: names its environment settings */
    struct clrie_plugin_com com;
    struct clrie_plugin_host host;
    struct clrie_plugin_patterns patterns;
    char *output;
    struct clrie_plugin_framework framework;
    struct clrie_plugin_plans plans;
};

/* ---- settings ---------------------------------------------------------------------------------- */

static void apply_setting(void *data, const char *name, const char *value)
{
    struct timer *s = data;
    if (strcasecmp(name, "Output") == 0) {
        free(s->output);
        s->output = strdup(value);
    } else if (strcasecmp(name, "Pattern") == 0) {
        clrie_plugin_patterns_add(&s->patterns, value);
    } else {
        clrie_plugin_host_log(&s->host, true, "unknown setting '%s' ignored", name);
    }
}

/* ---- metadata: which methods, and the references the new IL names ---------------------------- */

/* The user string of the method's name. */
static HRESULT define_name(void *emit_iface, void *entry, const WCHAR *name)
{
    IMetaDataEmit *emit = emit_iface;
    struct timed_method *m = entry;
    return emit->lpVtbl->DefineUserString(emit, name, (ULONG)clrie_plugin_wcs_len(name), &m->name);
}


/* [Clrie.Timer]Clrie.Timer.Probe::Enter and ::Exit, defined in the module. */
static HRESULT define_probe(struct timer *s, IMetaDataEmit *emit,
                            IMetaDataAssemblyImport *assemblies,
                            IMetaDataAssemblyEmit *assembly_emit, struct module_plan *plan)
{
    mdAssemblyRef helper = clrie_plugin_find_assembly_ref(assemblies, "Clrie.Timer", NULL);
    HRESULT hr = S_OK;
    if (helper == mdTokenNil) {
        ASSEMBLYMETADATA version;
        memset(&version, 0, sizeof version);
        version.usMajorVersion = 1;
        hr = assembly_emit->lpVtbl->DefineAssemblyRef(assembly_emit, NULL, 0, u"Clrie.Timer",
                                                      &version, NULL, 0, 0, &helper);
        if (FAILED(hr))
            return hr;
    }
    mdTypeRef probe = mdTokenNil;
    hr = emit->lpVtbl->DefineTypeRefByName(emit, helper, u"Clrie.Timer.Probe", &probe);
    if (FAILED(hr))
        return hr;
    /* static int64 Enter(string); static void Exit(string, int64, string) */
    static const COR_SIGNATURE enter[] = {0x00, 0x01, ELEMENT_TYPE_I8, ELEMENT_TYPE_STRING};
    static const COR_SIGNATURE exit[] = {
        0x00, 0x03, ELEMENT_TYPE_VOID, ELEMENT_TYPE_STRING, ELEMENT_TYPE_I8, ELEMENT_TYPE_STRING};
    hr = emit->lpVtbl->DefineMemberRef(emit, probe, u"Enter", enter, sizeof enter, &plan->enter);
    if (SUCCEEDED(hr))
        hr = emit->lpVtbl->DefineMemberRef(emit, probe, u"Exit", exit, sizeof exit, &plan->exit);
    plan->output = mdTokenNil;
    if (SUCCEEDED(hr) && s->output) {
        WCHAR path[CLRIE_PLUGIN_NAME_UNITS] = {0};
        clrie_plugin_wcs_append_utf8(path, CLRIE_PLUGIN_NAME_UNITS, s->output);
        hr = emit->lpVtbl->DefineUserString(emit, path, (ULONG)clrie_plugin_wcs_len(path),
                                            &plan->output);
    }
    return hr;
}

/* Chooses the module's methods and defines what their wrapping names (clrie_plugin_plan_fn). */
static HRESULT plan_module(void *data, IModuleInfo *module, struct clrie_plugin_plan *plan)
{
    struct timer *s = data;
    struct clrie_plugin_metadata md;
    HRESULT hr = clrie_plugin_metadata_init(&md, module);
    if (SUCCEEDED(hr))
        hr = clrie_plugin_plan_select(plan, md.import, &s->patterns, define_name, md.emit);
    if (SUCCEEDED(hr) && plan->count > 0)
        hr = define_probe(s, md.emit, md.assembly_import, md.assembly_emit,
                          (struct module_plan *)plan);
    clrie_plugin_metadata_finish(&md);
    return hr;
}

/* ---- IInstrumentationMethod ---------------------------------------------------------------- */

static struct timer *from_method(IInstrumentationMethod *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct timer, method);
}

static void timer_destroy(void *object)
{
    struct timer *s = object;
    clrie_plugin_host_finish(&s->host);
    clrie_plugin_patterns_finish(&s->patterns);
    free(s->output);
    clrie_plugin_framework_finish(&s->framework);
    clrie_plugin_plans_finish(&s->plans);
    free(s);
}

static const struct clrie_plugin_com_iface timer_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethod, struct timer, method),
};

static const struct clrie_plugin_com_class timer_class = {
    .name = "timer",
    .ifaces = timer_ifaces,
    .iface_count = CLRIE_PLUGIN_COM_COUNT(timer_ifaces),
    .com_offset = offsetof(struct timer, com),
    .destroy = timer_destroy,
    .module_ref = true,
};

CLRIE_PLUGIN_COM_IUNKNOWN(timer, IInstrumentationMethod, struct timer, method, com)

static HRESULT STDMETHODCALLTYPE timer_Initialize(IInstrumentationMethod *This,
                                                  IProfilerManager *manager)
{
    struct timer *s = from_method(This);
    if (!manager)
        return E_POINTER;
    clrie_plugin_host_init(&s->host, manager, "timer");
    clrie_plugin_host_read_settings_for(&s->host, manager, &s->clsid, apply_setting, s);
    /* Timed code calls the helper: without it every timed method would throw
     * FileNotFoundException, so time nothing rather than break the app. */
    const char *hooks = getenv("DOTNET_STARTUP_HOOKS");
    if (s->patterns.count > 0 && !(hooks && strstr(hooks, "Clrie.Timer.dll"))) {
        clrie_plugin_host_log(&s->host, true,
                              "DOTNET_STARTUP_HOOKS does not name Clrie.Timer.dll, so the "
                              "runtime could not load the helper: nothing will be timed");
        clrie_plugin_patterns_finish(&s->patterns);
    } else if (s->patterns.count == 0) {
        clrie_plugin_host_log(&s->host, true, "no Pattern setting: nothing will be timed");
    }
    return S_OK;
}

/* Whether the module is the app's: neither the helper nor a module of the shared framework
 * (those in System.Private.CoreLib's folder), which the helper itself runs on: timing them
 * would call the helper from inside the helper. */
static bool module_timeable(struct timer *s, IModuleInfo *module)
{
    BSTR text = NULL;
    char *path = clrie_plugin_host_take_utf8(&s->host, module->lpVtbl->GetFullPath(module, &text),
                                             &text);
    if (!path)
        return false;
    bool helper = strcmp(clrie_os_path_name(path), "Clrie.Timer.dll") == 0;
    bool timeable = !clrie_plugin_framework_has(&s->framework, path) && !helper;
    free(path);
    return timeable;
}

static HRESULT STDMETHODCALLTYPE timer_OnModuleLoaded(IInstrumentationMethod *This,
                                                      IModuleInfo *module)
{
    struct timer *s = from_method(This);
    if (!module)
        return E_POINTER;
    if (s->patterns.count == 0 || !module_timeable(s, module))
        return S_OK;
    HRESULT hr = clrie_plugin_plans_prepare(&s->plans, module, sizeof(struct module_plan),
                                            sizeof(struct timed_method), plan_module, s);
    if (FAILED(hr)) {
        BSTR text = NULL;
        char *name = clrie_plugin_host_take_utf8(
            &s->host, module->lpVtbl->GetModuleName(module, &text), &text);
        clrie_plugin_host_log(&s->host, true,
                              "%s: cannot prepare the module (hr 0x%08X); it is not timed",
                              name ? name : "?", (unsigned)hr);
        free(name);
    }
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE timer_ShouldInstrumentMethod(IInstrumentationMethod *This,
                                                              IMethodInfo *method, BOOL isRejit,
                                                              BOOL *pbInstrument)
{
    (void)isRejit;
    return clrie_plugin_plans_should_instrument(&from_method(This)->plans, method, pbInstrument);
}

static HRESULT STDMETHODCALLTYPE timer_InstrumentMethod(IInstrumentationMethod *This,
                                                        IMethodInfo *method, BOOL isRejit)
{
    struct timer *s = from_method(This);
    (void)isRejit;
    const struct clrie_plugin_plan *plan = NULL;
    const struct timed_method *timed = clrie_plugin_plans_find(&s->plans, method, &plan);
    if (!timed)
        return S_OK;
    HRESULT hr = timer_rewrite(method, timed, (const struct module_plan *)plan);
    if (hr == S_OK)
        return S_OK;
    char name[512];
    clrie_plugin_method_full_name(method, s->host.strings, name, sizeof name);
    if (hr == S_FALSE) {
        clrie_plugin_host_log(&s->host, false, "%s: a tail call or byref return: not timed",
                              name);
        return S_OK;
    }
    if (FAILED(hr))
        clrie_plugin_host_log(&s->host, true, "%s: not timed (hr 0x%08X)", name, (unsigned)hr);
    return hr;
}

static HRESULT STDMETHODCALLTYPE timer_AllowInlineSite(IInstrumentationMethod *This,
                                                       IMethodInfo *inlinee, IMethodInfo *caller,
                                                       BOOL *pbAllowInline)
{
    (void)caller; /* a timed method must stay a call, wherever it is called from */
    return clrie_plugin_plans_allow_inline(&from_method(This)->plans, inlinee, pbAllowInline);
}

static const struct IInstrumentationMethodVtbl timer_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(timer),
    .Initialize = timer_Initialize,
    CLRIE_PLUGIN_IGNORE_DOMAIN_AND_ASSEMBLY_EVENTS,
    .OnModuleLoaded = timer_OnModuleLoaded,
    .OnModuleUnloaded = clrie_plugin_ignore_module,
    .OnShutdown = clrie_plugin_ignore_shutdown,
    .ShouldInstrumentMethod = timer_ShouldInstrumentMethod,
    .BeforeInstrumentMethod = clrie_plugin_ignore_method,
    .InstrumentMethod = timer_InstrumentMethod,
    .OnInstrumentationComplete = clrie_plugin_ignore_method,
    .AllowInlineSite = timer_AllowInlineSite,
};

/* Any class ID: each config entry naming this module is an instance with its own settings. */
static HRESULT create_instance(const CLSID *clsid, REFIID riid, void **out)
{
    struct timer *s = calloc(1, sizeof(*s));
    if (!s)
        return E_OUTOFMEMORY;
    s->clsid = *clsid;
    s->method.lpVtbl = &timer_vtbl;
    clrie_plugin_com_init(&s->com, &timer_class);
    return clrie_plugin_com_give(&s->com, riid, out);
}

CLRIE_PLUGIN_EXPORT_CLASS_FACTORY(create_instance)
