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

#define NAME_UNITS 1024 /* longest type or method name read from metadata */

/* A method to trace and the user strings of its two lines. */
struct traced_method {
    mdMethodDef token;
    mdString enter;
    mdString exit;
};

/* What OnModuleLoaded prepared for one module. */
struct module_plan {
    ModuleID module;
    mdMemberRef write_line;
    size_t count;
    struct traced_method *methods; /* sorted by token */
    struct module_plan *next;
};

struct tracer {
    IInstrumentationMethod method;
    atomic_ulong refs;
    IProfilerManagerLogging *logging;
    IProfilerStringManager *strings;
    char **patterns;
    size_t pattern_count;
    pthread_mutex_t lock; /* protects plans and framework */
    char *framework;      /* the folder System.Private.CoreLib.dll was loaded from */
    struct module_plan *plans;
};

/* ---- text, logging and settings ------------------------------------------------------------ */

/* An engine BSTR as UTF-8 (new string), freeing the BSTR. */
static char *take_string(struct tracer *s, HRESULT hr, BSTR *text)
{
    return clrie_plugin_take_utf8(s->strings, hr, text);
}

static void log_line(struct tracer *s, bool error, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static void log_line(struct tracer *s, bool error, const char *format, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, format);
    int len = snprintf(text, sizeof text, "tracer: ");
    vsnprintf(text + len, sizeof text - (size_t)len, format, ap);
    va_end(ap);
    clrie_plugin_log(s->logging, error, text);
}

static void apply_setting(void *data, const char *name, const char *value)
{
    struct tracer *s = data;
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
static void read_settings(struct tracer *s, IProfilerManager *manager)
{
    if (clrie_plugin_settings_each(manager, apply_setting, s) == -ENOSYS)
        log_line(s, true,
                 "the engine hands out no settings (no "
                 "IInstrumentationMethodAttachContext); nothing will be instrumented");
}

/* ---- metadata: which methods, and the references the new IL names ---------------------------- */

static bool name_selected(struct tracer *s, const char *name)
{
    for (size_t i = 0; i < s->pattern_count; i++)
        if (fnmatch(s->patterns[i], name, 0) == 0)
            return true;
    return false;
}

static int by_token(const void *a, const void *b)
{
    mdMethodDef x = ((const struct traced_method *)a)->token;
    mdMethodDef y = ((const struct traced_method *)b)->token;
    return x < y ? -1 : x > y;
}

/* The user strings "enter <name>" and "exit <name>". */
static HRESULT define_lines(IMetaDataEmit *emit, const WCHAR *name, struct traced_method *m)
{
    WCHAR line[2 * NAME_UNITS + 16] = {0};
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

struct selection {
    struct tracer *s;
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
        struct traced_method *grown = realloc(plan->methods, capacity * sizeof(*grown));
        if (!grown)
            return E_OUTOFMEMORY;
        plan->methods = grown;
        sel->capacity = capacity;
    }
    struct traced_method *m = &plan->methods[plan->count];
    m->token = token;
    HRESULT hr = define_lines(sel->emit, full, m);
    if (SUCCEEDED(hr))
        plan->count++;
    return hr;
}

/* Every MethodDef of the module whose name matches, sorted by token. */
static HRESULT select_methods(struct tracer *s, IMetaDataImport *import, IMetaDataEmit *emit,
                              struct module_plan *plan)
{
    struct selection sel = {s, emit, plan, 0};
    HRESULT hr = clrie_plugin_method_defs_each(import, select_method, &sel);
    if (plan->count)
        qsort(plan->methods, plan->count, sizeof(plan->methods[0]), by_token);
    return hr;
}

static const BYTE console_token[8] = {0xB0, 0x3F, 0x5F, 0x7F, 0x11, 0xD5, 0x0A, 0x3A};

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

/* [System.Console]System.Console::WriteLine(string), defined in the module. */
static HRESULT define_write_line(IMetaDataEmit *emit, IMetaDataAssemblyImport *assemblies,
                                 IMetaDataAssemblyEmit *assembly_emit, mdMemberRef *out)
{
    mdAssemblyRef console = find_assembly_ref(assemblies, "System.Console", NULL);
    HRESULT hr = S_OK;
    if (console == mdTokenNil) {
        ASSEMBLYMETADATA version;
        memset(&version, 0, sizeof version);
        if (find_assembly_ref(assemblies, "System.Runtime", &version) == mdTokenNil)
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

static HRESULT plan_module(struct tracer *s, IModuleInfo *module, struct module_plan *plan)
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
            hr = define_write_line(emit, assemblies, assembly_emit, &plan->write_line);
    }
    clrie_plugin_release(assembly_emit);
    clrie_plugin_release(assemblies);
    clrie_plugin_release(emit);
    clrie_plugin_release(import);
    return hr;
}

/* The plan entry for a method, or NULL. Plans are only added, never removed, while the
 * plugin lives; an entry stays valid. */
static const struct traced_method *find_method(struct tracer *s, IMethodInfo *method,
                                               mdMemberRef *write_line)
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
    const struct traced_method *found = NULL;
    pthread_mutex_lock(&s->lock);
    for (struct module_plan *plan = s->plans; plan && !found; plan = plan->next) {
        if (plan->module != id)
            continue;
        struct traced_method key = {.token = token};
        found = bsearch(&key, plan->methods, plan->count, sizeof(key), by_token);
        if (found && write_line)
            *write_line = plan->write_line;
    }
    pthread_mutex_unlock(&s->lock);
    return found;
}

/* ---- the rewrite --------------------------------------------------------------------------- */

/* Where the exit line goes: single-ret's shared exit, else the last `ret` that does not end a
 * tail call (NULL for a method that only throws). Returned AddRef'd. */
static IInstruction *exit_of(IInstructionGraph *graph, ISingleRetDefaultInstrumentation *single)
{
    IInstruction *exit = clrie_plugin_single_ret_exit(single);
    return exit ? exit : clrie_plugin_last_plain_ret(graph);
}

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
    IInstructionGraph *graph = NULL;
    IInstructionFactory *factory = NULL;
    ISingleRetDefaultInstrumentation *single = NULL;
    IInstruction *first = NULL, *exit = NULL;
    HRESULT hr = method->lpVtbl->GetInstructions(method, &graph);
    if (SUCCEEDED(hr))
        hr = method->lpVtbl->GetInstructionFactory(method, &factory);
    if (SUCCEEDED(hr))
        hr = method->lpVtbl->GetSingleRetDefaultInstrumentation(method, &single);
    if (SUCCEEDED(hr))
        hr = single->lpVtbl->Initialize(single, graph);
    if (SUCCEEDED(hr))
        hr = single->lpVtbl->ApplySingleRetDefaultInstrumentation(single);
    /* Entry: before the first instruction, not retargeted, so a loop back to the start does
     * not print again. */
    if (SUCCEEDED(hr))
        hr = graph->lpVtbl->GetFirstInstruction(graph, &first);
    if (SUCCEEDED(hr))
        hr = print_before(graph, factory, first, traced->enter, write_line, false);
    /* Exit: before the shared exit, retargeted, so every return passes through it. */
    if (SUCCEEDED(hr) && (exit = exit_of(graph, single)))
        hr = print_before(graph, factory, exit, traced->exit, write_line, true);
    clrie_plugin_release(exit);
    clrie_plugin_release(first);
    clrie_plugin_release(single);
    clrie_plugin_release(factory);
    clrie_plugin_release(graph);
    return hr;
}

/* ---- IInstrumentationMethod ---------------------------------------------------------------- */

static struct tracer *from_method(IInstrumentationMethod *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct tracer, method);
}

static void tracer_free(struct tracer *s)
{
    clrie_plugin_release(s->logging);
    clrie_plugin_release(s->strings);
    for (size_t i = 0; i < s->pattern_count; i++)
        free(s->patterns[i]);
    free(s->patterns);
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
    struct tracer *s = from_method(This);
    unsigned long left = atomic_fetch_sub(&s->refs, 1) - 1;
    if (left == 0)
        tracer_free(s);
    return (ULONG)left;
}

static HRESULT im_Initialize(IInstrumentationMethod *This, IProfilerManager *manager)
{
    struct tracer *s = from_method(This);
    if (!manager)
        return E_POINTER;
    manager->lpVtbl->GetLoggingInstance(manager, &s->logging);
    manager->lpVtbl->QueryInterface(manager, &IID_IProfilerStringManager, (void **)&s->strings);
    read_settings(s, manager);
    if (s->pattern_count == 0)
        log_line(s, true, "no Pattern setting: nothing will be traced");
    return S_OK;
}

/* Whether the module is the app's: not one of the shared framework's, which the runtime loads
 * from System.Private.CoreLib's folder. Console.WriteLine runs through framework code, so
 * tracing it would make every line print lines of its own, without end. */
static bool module_traceable(struct tracer *s, IModuleInfo *module)
{
    BSTR text = NULL;
    char *path = take_string(s, module->lpVtbl->GetFullPath(module, &text), &text);
    if (!path)
        return false;
    char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    bool traceable;
    pthread_mutex_lock(&s->lock);
    if (strcmp(base, "System.Private.CoreLib.dll") == 0) {
        if (!s->framework && slash)
            s->framework = strndup(path, (size_t)(slash - path));
        traceable = false;
    } else {
        traceable = !(s->framework && slash && strlen(s->framework) == (size_t)(slash - path) &&
                      strncmp(path, s->framework, (size_t)(slash - path)) == 0);
    }
    pthread_mutex_unlock(&s->lock);
    free(path);
    return traceable;
}

static HRESULT im_OnModuleLoaded(IInstrumentationMethod *This, IModuleInfo *module)
{
    struct tracer *s = from_method(This);
    if (!module)
        return E_POINTER;
    if (s->pattern_count == 0 || !module_traceable(s, module))
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
            log_line(s, true, "%s: cannot prepare the module (hr 0x%08X); it is not traced",
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
    struct tracer *s = from_method(This);
    (void)isRejit;
    mdMemberRef write_line = mdTokenNil;
    const struct traced_method *traced = method ? find_method(s, method, &write_line) : NULL;
    if (!traced)
        return S_OK;
    HRESULT hr = rewrite(method, traced, write_line);
    if (FAILED(hr)) {
        BSTR text = NULL;
        char *name = take_string(s, method->lpVtbl->GetFullName(method, &text), &text);
        log_line(s, true, "%s: not traced (hr 0x%08X)", name ? name : "?", (unsigned)hr);
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
    /* An inlined method is never jitted on its own: a traced one must stay a call. */
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
    .OnModuleUnloaded = clrie_plugin_ignore_module, /* a ModuleID may come back: plans are kept */
    .OnShutdown = clrie_plugin_ignore_shutdown,
    .ShouldInstrumentMethod = im_ShouldInstrumentMethod,
    .BeforeInstrumentMethod = clrie_plugin_ignore_method,
    .InstrumentMethod = im_InstrumentMethod,
    .OnInstrumentationComplete = clrie_plugin_ignore_method,
    .AllowInlineSite = im_AllowInlineSite,
};

static struct tracer *tracer_new(void)
{
    struct tracer *s = calloc(1, sizeof(*s));
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
    struct tracer *s = tracer_new();
    if (!s)
        return E_OUTOFMEMORY;
    HRESULT hr = im_QueryInterface(&s->method, riid, out);
    im_Release(&s->method);
    return hr;
}

CLRIE_PLUGIN_EXPORT_CLASS_FACTORY(create_instance)
