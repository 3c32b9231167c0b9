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

#include <fnmatch.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <clrie/abi/corprof.h>
#include <clrie/abi/instrumentation.h>
#include <clrie/abi/metadata.h>
#include <clrie/plugin.h>

#include "timer.h"

#define NAME_UNITS 1024 /* longest type or method name read from metadata */

struct timer {
    IInstrumentationMethod method;
    atomic_ulong refs;
    IProfilerManagerLogging *logging;
    IProfilerStringManager *strings;
    char **patterns;
    size_t pattern_count;
    char *output;
    pthread_mutex_t lock; /* protects plans and framework */
    char *framework;      /* the folder System.Private.CoreLib.dll was loaded from */
    struct module_plan *plans;
};

/* ---- text, logging and settings ------------------------------------------------------------ */

/* An engine BSTR as UTF-8 (new string), freeing the BSTR. */
static char *take_string(struct timer *s, HRESULT hr, BSTR *text)
{
    return clrie_plugin_take_utf8(s->strings, hr, text);
}

static void log_line(struct timer *s, bool error, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static void log_line(struct timer *s, bool error, const char *format, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, format);
    int len = snprintf(text, sizeof text, "timer: ");
    vsnprintf(text + len, sizeof text - (size_t)len, format, ap);
    va_end(ap);
    clrie_plugin_log(s->logging, error, text);
}

static void apply_setting(void *data, const char *name, const char *value)
{
    struct timer *s = data;
    if (strcasecmp(name, "Output") == 0) {
        free(s->output);
        s->output = strdup(value);
        return;
    }
    if (strcasecmp(name, "Pattern") != 0) {
        log_line(s, true, "unknown setting '%s' ignored", name);
        return;
    }
    char *list = strdup(value);
    for (char *save = NULL, *item = list ? strtok_r(list, ";", &save) : NULL; item;
         item = strtok_r(NULL, ";", &save)) {
        while (*item == ' ')
            item++;
        if (!*item)
            continue;
        char **grown = realloc(s->patterns, (s->pattern_count + 1) * sizeof(*grown));
        if (!grown)
            break;
        s->patterns = grown;
        s->patterns[s->pattern_count++] = strdup(item);
    }
    free(list);
}

/* The <Settings> of this plugin's config entry, through CLRIE's attach context. */
static void read_settings(struct timer *s, IProfilerManager *manager)
{
    if (clrie_plugin_settings_each(manager, apply_setting, s) == -ENOSYS)
        log_line(s, true,
                 "the engine hands out no settings (no "
                 "IInstrumentationMethodAttachContext); nothing will be instrumented");
}

/* ---- metadata: which methods, and the references the new IL names ---------------------------- */

static bool name_selected(struct timer *s, const char *name)
{
    for (size_t i = 0; i < s->pattern_count; i++)
        if (fnmatch(s->patterns[i], name, 0) == 0)
            return true;
    return false;
}

static int by_token(const void *a, const void *b)
{
    mdMethodDef x = ((const struct timed_method *)a)->token;
    mdMethodDef y = ((const struct timed_method *)b)->token;
    return x < y ? -1 : x > y;
}

/* The user string of the method's name. */
static HRESULT define_name(IMetaDataEmit *emit, const WCHAR *name, struct timed_method *m)
{
    return emit->lpVtbl->DefineUserString(emit, name, (ULONG)clrie_plugin_wcs_len(name), &m->name);
}

struct selection {
    struct timer *s;
    IMetaDataEmit *emit;
    struct module_plan *plan;
    size_t capacity;
};

/* A MethodDef whose name matches gets its place in the plan and its user strings. */
static HRESULT select_method(void *data, mdMethodDef token, const WCHAR *full, ULONG rva)
{
    struct selection *sel = data;
    char *utf8 = clrie_plugin_bstr_to_utf8(full);
    bool selected = utf8 && name_selected(sel->s, utf8);
    free(utf8);
    if (!selected || rva == 0) /* abstract, extern, runtime-implemented */
        return S_OK;
    struct module_plan *plan = sel->plan;
    if (plan->count == sel->capacity) {
        size_t capacity = sel->capacity ? sel->capacity * 2 : 16;
        struct timed_method *grown = realloc(plan->methods, capacity * sizeof(*grown));
        if (!grown)
            return E_OUTOFMEMORY;
        plan->methods = grown;
        sel->capacity = capacity;
    }
    struct timed_method *m = &plan->methods[plan->count];
    m->token = token;
    HRESULT hr = define_name(sel->emit, full, m);
    if (SUCCEEDED(hr))
        plan->count++;
    return hr;
}

/* Every MethodDef of the module whose name matches, sorted by token. */
static HRESULT select_methods(struct timer *s, IMetaDataImport *import, IMetaDataEmit *emit,
                              struct module_plan *plan)
{
    struct selection sel = {s, emit, plan, 0};
    HRESULT hr = clrie_plugin_method_defs_each(import, select_method, &sel);
    if (plan->count)
        qsort(plan->methods, plan->count, sizeof(plan->methods[0]), by_token);
    return hr;
}

/* The module's AssemblyRef named `name` (and its version), or mdTokenNil. */
static mdAssemblyRef find_assembly_ref(IMetaDataAssemblyImport *assemblies, const char *name,
                                       ASSEMBLYMETADATA *version)
{
    HCORENUM e = NULL;
    mdAssemblyRef refs[64];
    ULONG count = 0;
    mdAssemblyRef found = mdTokenNil;
    while (found == mdTokenNil &&
           assemblies->lpVtbl->EnumAssemblyRefs(assemblies, &e, refs, 64, &count) == S_OK &&
           count > 0) {
        for (ULONG i = 0; i < count && found == mdTokenNil; i++) {
            WCHAR text[NAME_UNITS];
            ULONG len = 0;
            ASSEMBLYMETADATA meta;
            memset(&meta, 0, sizeof meta);
            const void *key = NULL, *hash = NULL;
            ULONG key_len = 0, hash_len = 0;
            DWORD flags = 0;
            if (FAILED(assemblies->lpVtbl->GetAssemblyRefProps(assemblies, refs[i], &key, &key_len,
                                                               text, NAME_UNITS, &len, &meta, &hash,
                                                               &hash_len, &flags)))
                continue;
            text[NAME_UNITS - 1] = 0;
            char *utf8 = clrie_plugin_bstr_to_utf8(text);
            if (utf8 && strcmp(utf8, name) == 0) {
                found = refs[i];
                if (version)
                    *version = meta;
            }
            free(utf8);
        }
    }
    assemblies->lpVtbl->CloseEnum(assemblies, e);
    return found;
}

/* [Clrie.Timer]Clrie.Timer.Probe::Enter and ::Exit, defined in the module. */
static HRESULT define_probe(struct timer *s, IMetaDataEmit *emit,
                            IMetaDataAssemblyImport *assemblies,
                            IMetaDataAssemblyEmit *assembly_emit, struct module_plan *plan)
{
    mdAssemblyRef helper = find_assembly_ref(assemblies, "Clrie.Timer", NULL);
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
        WCHAR path[NAME_UNITS] = {0};
        clrie_plugin_wcs_append_utf8(path, NAME_UNITS, s->output);
        hr = emit->lpVtbl->DefineUserString(emit, path, (ULONG)clrie_plugin_wcs_len(path),
                                            &plan->output);
    }
    return hr;
}

static HRESULT plan_module(struct timer *s, IModuleInfo *module, struct module_plan *plan)
{
    IUnknown *unknown = NULL;
    IMetaDataImport *import = NULL;
    IMetaDataEmit *emit = NULL;
    IMetaDataAssemblyImport *assemblies = NULL;
    IMetaDataAssemblyEmit *assembly_emit = NULL;
    HRESULT hr = module->lpVtbl->GetMetaDataImport(module, &unknown);
    if (SUCCEEDED(hr))
        hr = unknown->lpVtbl->QueryInterface(unknown, &IID_IMetaDataImport, (void **)&import);
    clrie_plugin_release(unknown);
    unknown = NULL;
    if (SUCCEEDED(hr))
        hr = module->lpVtbl->GetMetaDataEmit(module, &unknown);
    if (SUCCEEDED(hr))
        hr = unknown->lpVtbl->QueryInterface(unknown, &IID_IMetaDataEmit, (void **)&emit);
    clrie_plugin_release(unknown);
    unknown = NULL;
    if (SUCCEEDED(hr))
        hr = select_methods(s, import, emit, plan);
    if (SUCCEEDED(hr) && plan->count > 0) {
        hr = module->lpVtbl->GetMetaDataAssemblyImport(module, &unknown);
        if (SUCCEEDED(hr))
            hr = unknown->lpVtbl->QueryInterface(unknown, &IID_IMetaDataAssemblyImport,
                                                 (void **)&assemblies);
        clrie_plugin_release(unknown);
        unknown = NULL;
        if (SUCCEEDED(hr))
            hr = module->lpVtbl->GetMetaDataAssemblyEmit(module, &unknown);
        if (SUCCEEDED(hr))
            hr = unknown->lpVtbl->QueryInterface(unknown, &IID_IMetaDataAssemblyEmit,
                                                 (void **)&assembly_emit);
        clrie_plugin_release(unknown);
        if (SUCCEEDED(hr))
            hr = define_probe(s, emit, assemblies, assembly_emit, plan);
    }
    clrie_plugin_release(assembly_emit);
    clrie_plugin_release(assemblies);
    clrie_plugin_release(emit);
    clrie_plugin_release(import);
    return hr;
}

/* The plan entry for a method, or NULL. Plans are only added, never removed, while the
 * plugin lives; an entry stays valid. */
static const struct timed_method *find_method(struct timer *s, IMethodInfo *method,
                                              const struct module_plan **owner)
{
    IModuleInfo *module = NULL;
    ModuleID id = 0;
    mdToken token = mdTokenNil;
    if (FAILED(method->lpVtbl->GetModuleInfo(method, &module)) || !module)
        return NULL;
    HRESULT hr = module->lpVtbl->GetModuleID(module, &id);
    clrie_plugin_release(module);
    if (FAILED(hr) || FAILED(method->lpVtbl->GetMethodToken(method, &token)))
        return NULL;
    const struct timed_method *found = NULL;
    pthread_mutex_lock(&s->lock);
    for (struct module_plan *plan = s->plans; plan && !found; plan = plan->next) {
        if (plan->module != id)
            continue;
        struct timed_method key = {.token = token};
        found = bsearch(&key, plan->methods, plan->count, sizeof(key), by_token);
        if (found && owner)
            *owner = plan;
    }
    pthread_mutex_unlock(&s->lock);
    return found;
}

/* ---- IInstrumentationMethod ---------------------------------------------------------------- */

static struct timer *from_method(IInstrumentationMethod *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct timer, method);
}

static void timer_free(struct timer *s)
{
    clrie_plugin_release(s->logging);
    clrie_plugin_release(s->strings);
    for (size_t i = 0; i < s->pattern_count; i++)
        free(s->patterns[i]);
    free(s->patterns);
    free(s->output);
    free(s->framework);
    for (struct module_plan *plan = s->plans, *next; plan; plan = next) {
        next = plan->next;
        free(plan->methods);
        free(plan);
    }
    pthread_mutex_destroy(&s->lock);
    free(s);
    clrie_plugin_module_unref();
}

static HRESULT im_QueryInterface(IInstrumentationMethod *This, REFIID riid, void **ppv)
{
    if (!ppv)
        return E_POINTER;
    *ppv = NULL;
    if (!riid)
        return E_INVALIDARG;
    if (!IsEqualIID(riid, &IID_IUnknown) && !IsEqualIID(riid, &IID_IInstrumentationMethod))
        return E_NOINTERFACE;
    atomic_fetch_add(&from_method(This)->refs, 1);
    *ppv = This;
    return S_OK;
}

static ULONG im_AddRef(IInstrumentationMethod *This)
{
    return (ULONG)(atomic_fetch_add(&from_method(This)->refs, 1) + 1);
}

static ULONG im_Release(IInstrumentationMethod *This)
{
    struct timer *s = from_method(This);
    unsigned long left = atomic_fetch_sub(&s->refs, 1) - 1;
    if (left == 0)
        timer_free(s);
    return (ULONG)left;
}

static HRESULT im_Initialize(IInstrumentationMethod *This, IProfilerManager *manager)
{
    struct timer *s = from_method(This);
    if (!manager)
        return E_POINTER;
    manager->lpVtbl->GetLoggingInstance(manager, &s->logging);
    manager->lpVtbl->QueryInterface(manager, &IID_IProfilerStringManager, (void **)&s->strings);
    read_settings(s, manager);
    /* Timed code calls the helper: without it every timed method would throw
     * FileNotFoundException, so time nothing rather than break the app. */
    const char *hooks = getenv("DOTNET_STARTUP_HOOKS");
    if (s->pattern_count > 0 && !(hooks && strstr(hooks, "Clrie.Timer.dll"))) {
        log_line(s, true,
                 "DOTNET_STARTUP_HOOKS does not name Clrie.Timer.dll, so the runtime "
                 "could not load the helper: nothing will be timed");
        for (size_t i = 0; i < s->pattern_count; i++)
            free(s->patterns[i]);
        s->pattern_count = 0;
    } else if (s->pattern_count == 0) {
        log_line(s, true, "no Pattern setting: nothing will be timed");
    }
    return S_OK;
}

/* Whether the module is the app's: neither the helper nor a module of the shared framework
 * (those in System.Private.CoreLib's folder), which the helper itself runs on: timing them
 * would call the helper from inside the helper. */
static bool module_timeable(struct timer *s, IModuleInfo *module)
{
    BSTR text = NULL;
    char *path = take_string(s, module->lpVtbl->GetFullPath(module, &text), &text);
    if (!path)
        return false;
    char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t folder = slash ? (size_t)(slash - path) : 0;
    bool timeable;
    pthread_mutex_lock(&s->lock);
    if (strcmp(base, "System.Private.CoreLib.dll") == 0) {
        if (!s->framework && slash)
            s->framework = strndup(path, folder);
        timeable = false;
    } else {
        timeable = strcmp(base, "Clrie.Timer.dll") != 0 &&
                   !(s->framework && slash && strlen(s->framework) == folder &&
                     strncmp(path, s->framework, folder) == 0);
    }
    pthread_mutex_unlock(&s->lock);
    free(path);
    return timeable;
}

static HRESULT im_OnModuleLoaded(IInstrumentationMethod *This, IModuleInfo *module)
{
    struct timer *s = from_method(This);
    if (!module)
        return E_POINTER;
    if (s->pattern_count == 0 || !module_timeable(s, module))
        return S_OK;
    struct module_plan *plan = calloc(1, sizeof(*plan));
    if (!plan)
        return E_OUTOFMEMORY;
    HRESULT hr = module->lpVtbl->GetModuleID(module, &plan->module);
    if (SUCCEEDED(hr))
        hr = plan_module(s, module, plan);
    if (FAILED(hr) || plan->count == 0) {
        if (FAILED(hr)) {
            BSTR text = NULL;
            char *name = take_string(s, module->lpVtbl->GetModuleName(module, &text), &text);
            log_line(s, true, "%s: cannot prepare the module (hr 0x%08X); it is not timed",
                     name ? name : "?", (unsigned)hr);
            free(name);
        }
        free(plan->methods);
        free(plan);
        return S_OK;
    }
    pthread_mutex_lock(&s->lock);
    plan->next = s->plans;
    s->plans = plan;
    pthread_mutex_unlock(&s->lock);
    return S_OK;
}

static HRESULT im_ShouldInstrumentMethod(IInstrumentationMethod *This, IMethodInfo *method,
                                         BOOL isRejit, BOOL *pbInstrument)
{
    (void)isRejit;
    if (!pbInstrument)
        return E_POINTER;
    *pbInstrument = method && find_method(from_method(This), method, NULL) != NULL;
    return S_OK;
}

static HRESULT im_InstrumentMethod(IInstrumentationMethod *This, IMethodInfo *method, BOOL isRejit)
{
    struct timer *s = from_method(This);
    (void)isRejit;
    const struct module_plan *plan = NULL;
    const struct timed_method *timed = method ? find_method(s, method, &plan) : NULL;
    if (!timed)
        return S_OK;
    HRESULT hr = timer_rewrite(method, timed, plan);
    if (hr == S_FALSE) {
        BSTR text = NULL;
        char *name = take_string(s, method->lpVtbl->GetFullName(method, &text), &text);
        log_line(s, false, "%s: a tail call or byref return: not timed", name ? name : "?");
        free(name);
        return S_OK;
    }
    if (FAILED(hr)) {
        BSTR text = NULL;
        char *name = take_string(s, method->lpVtbl->GetFullName(method, &text), &text);
        log_line(s, true, "%s: not timed (hr 0x%08X)", name ? name : "?", (unsigned)hr);
        free(name);
    }
    return hr;
}

static HRESULT im_AllowInlineSite(IInstrumentationMethod *This, IMethodInfo *inlinee,
                                  IMethodInfo *caller, BOOL *pbAllowInline)
{
    (void)caller;
    if (!pbAllowInline)
        return E_POINTER;
    /* An inlined method is never jitted on its own: a timed one must stay a call. */
    *pbAllowInline = !(inlinee && find_method(from_method(This), inlinee, NULL));
    return S_OK;
}

static const struct IInstrumentationMethodVtbl method_vtbl = {
    .QueryInterface = im_QueryInterface,
    .AddRef = im_AddRef,
    .Release = im_Release,
    .Initialize = im_Initialize,
    CLRIE_PLUGIN_IGNORE_DOMAIN_AND_ASSEMBLY_EVENTS,
    .OnModuleLoaded = im_OnModuleLoaded,
    .OnModuleUnloaded = clrie_plugin_ignore_module,
    .OnShutdown = clrie_plugin_ignore_shutdown,
    .ShouldInstrumentMethod = im_ShouldInstrumentMethod,
    .BeforeInstrumentMethod = clrie_plugin_ignore_method,
    .InstrumentMethod = im_InstrumentMethod,
    .OnInstrumentationComplete = clrie_plugin_ignore_method,
    .AllowInlineSite = im_AllowInlineSite,
};

static struct timer *timer_new(void)
{
    struct timer *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->method.lpVtbl = &method_vtbl;
    atomic_init(&s->refs, 1);
    pthread_mutex_init(&s->lock, NULL);
    clrie_plugin_module_ref();
    return s;
}

/* Any class ID: each config entry naming this module is an instance with its own settings. */
static HRESULT create_instance(const CLSID *clsid, REFIID riid, void **out)
{
    (void)clsid;
    struct timer *s = timer_new();
    if (!s)
        return E_OUTOFMEMORY;
    HRESULT hr = im_QueryInterface(&s->method, riid, out);
    im_Release(&s->method);
    return hr;
}

CLRIE_PLUGIN_EXPORT_CLASS_FACTORY(create_instance)
