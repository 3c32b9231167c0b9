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
 * Settings (the <Settings> of its configuration entry, or CLRIE_SETTING_<class ID>_<Name>):
 *   Folder  the folder of the points files. Without it nothing is traced.
 *
 * The injected code calls Clrie.Tracing.dll, which the application does not reference: the
 * runtime loads it because DOTNET_STARTUP_HOOKS names it (docs/tracers.md says why this and
 * not reflection). Without that the plugin traces nothing and says so, rather than make every
 * traced method throw FileNotFoundException. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <clrie/abi/corprof.h>
#include <clrie/abi/instrumentation.h>
#include <clrie/abi/metadata.h>
#include <clrie/plugin.h>

#include "points.h"
#include "tracer.h"

#define LIBRARY_NAME "Clrie.Tracing"
#define LIBRARY_FILE "Clrie.Tracing.dll"
/* How long a module load waits for the ReJIT requests of its methods. */
#define REJIT_WAIT_SECONDS 30

struct tracer {
    IInstrumentationMethod method;
    CLSID clsid; /* the config entry's: names its environment settings */
    struct clrie_plugin_com com;
    struct clrie_plugin_host host;
    char *folder;
    struct clrie_tracer_points points; /* read in Initialize, then only read */
    struct clrie_plugin_plans plans;
};

/* One module's plan: its traced methods (struct clrie_tracer_method) and what they call. */
struct module_plan {
    struct clrie_plugin_plan base;
    struct clrie_tracer_refs refs;
};

/* ---- settings and points -------------------------------------------------------------------- */

static void apply_setting(void *data, const char *name, const char *value)
{
    struct tracer *s = data;
    if (strcasecmp(name, "Folder") == 0) {
        free(s->folder);
        s->folder = strdup(value);
    } else {
        clrie_plugin_host_log(&s->host, true, "unknown setting '%s' ignored", name);
    }
}

static void report_problem(void *data, const char *file, unsigned line, unsigned column,
                           const char *message)
{
    struct tracer *s = data;
    if (line)
        clrie_plugin_host_log(&s->host, true, "%s:%u:%u: %s", file, line, column, message);
    else
        clrie_plugin_host_log(&s->host, true, "%s: %s", file, message);
}

/* ---- matching a module's methods ---------------------------------------------------------------
 */

/* What plan_module works with. */
struct matching {
    struct tracer *s;
    const char *assembly;
    struct clrie_plugin_metadata md;
    struct clrie_plugin_plan *plan;
    mdMethodDef *tokens; /* the methods to rejit */
    size_t count, capacity;
    HRESULT hr;
};

/* Whether the TypeDef derives from System.ValueType or System.Enum: its methods' `this` is a
 * byref, not an object. */
static bool is_value_type(IMetaDataImport *import, mdTypeDef type)
{
    WCHAR name[CLRIE_PLUGIN_NAME_UNITS];
    mdToken extends = mdTokenNil, scope = mdTokenNil;
    ULONG len = 0;
    DWORD flags = 0;
    if (FAILED(import->lpVtbl->GetTypeDefProps(import, type, name, CLRIE_PLUGIN_NAME_UNITS, &len,
                                               &flags, &extends)))
        return false;
    name[0] = 0;
    if ((extends & 0xFF000000u) == mdtTypeRef) {
        if (FAILED(import->lpVtbl->GetTypeRefProps(import, extends, &scope, name,
                                                   CLRIE_PLUGIN_NAME_UNITS, &len)))
            return false;
    } else if ((extends & 0xFF000000u) == mdtTypeDef) {
        if (FAILED(clrie_plugin_type_name(import, extends, name, CLRIE_PLUGIN_NAME_UNITS)))
            return false;
    } else {
        return false;
    }
    char utf8[64];
    clrie_plugin_bstr_to_utf8_buf(name, utf8, sizeof utf8);
    return strcmp(utf8, "System.ValueType") == 0 || strcmp(utf8, "System.Enum") == 0;
}

/* The user string the wrapper passes to Shim.Enter: library, factory, assembly, type, method
 * and parameter types, one per line (Shim.cs reads it). */
static HRESULT define_point(struct matching *m, const struct clrie_tracer_point *p,
                            const char *parameters, mdString *out)
{
    size_t len = strlen(p->library ? p->library : "") + strlen(p->factory) + strlen(m->assembly) +
                 strlen(p->type) + strlen(p->method) + strlen(parameters) + 8;
    char *text = malloc(len);
    WCHAR *wide = malloc(len * sizeof *wide);
    HRESULT hr = E_OUTOFMEMORY;
    if (text && wide) {
        snprintf(text, len, "%s\n%s\n%s\n%s\n%s\n%s", p->library ? p->library : "", p->factory,
                 m->assembly, p->type, p->method, parameters);
        wide[0] = 0;
        clrie_plugin_wcs_append_utf8(wide, len, text);
        hr = m->md.emit->lpVtbl->DefineUserString(m->md.emit, wide,
                                                  (ULONG)clrie_plugin_wcs_len(wide), out);
    }
    free(text);
    free(wide);
    return hr;
}

static HRESULT match_method(void *data, mdMethodDef token, const WCHAR *full_name, ULONG rva)
{
    struct matching *m = data;
    if (rva == 0)
        return S_OK; /* no IL: abstract, extern or runtime-implemented */
    char name[CLRIE_PLUGIN_NAME_UNITS * 3];
    clrie_plugin_bstr_to_utf8_buf(full_name, name, sizeof name);
    char *sep = strstr(name, "::");
    if (!sep)
        return S_OK;
    *sep = '\0';
    const char *type = name, *method = sep + 2;

    mdTypeDef owner = mdTokenNil;
    PCCOR_SIGNATURE sig = NULL;
    ULONG sig_len = 0, ignored_rva = 0;
    DWORD attributes = 0, impl = 0;
    ULONG name_len = 0;
    char parameters[2048];
    bool have_parameters = false;
    for (size_t i = 0; i < m->s->points.count; i++) {
        const struct clrie_tracer_point *p = &m->s->points.items[i];
        if (strcmp(p->type, type) != 0 || strcmp(p->method, method) != 0 ||
            strcasecmp(p->assembly, m->assembly) != 0)
            continue;
        if (!have_parameters) {
            if (FAILED(m->md.import->lpVtbl->GetMethodProps(m->md.import, token, &owner, NULL, 0,
                                                            &name_len, &attributes, &sig, &sig_len,
                                                            &ignored_rva, &impl)) ||
                clrie_tracer_parameters_text(m->md.import, sig, sig_len, parameters,
                                             sizeof parameters) != 0) {
                clrie_plugin_host_log(&m->s->host, true,
                                      "%s::%s (0x%08X): cannot read its signature; not traced",
                                      type, method, (unsigned)token);
                return S_OK;
            }
            have_parameters = true;
        }
        if (!clrie_tracer_point_matches(p, m->assembly, type, method, parameters))
            continue;
        bool byref_like = false;
        if (clrie_tracer_signature_byref_like(m->md.import, sig, sig_len, &byref_like) == 0 &&
            byref_like) {
            clrie_plugin_host_log(&m->s->host, true,
                                  "%s::%s(%s): not traced: a by-ref-like parameter or result "
                                  "(Span<T>, ...) cannot be handed to a tracer",
                                  type, method, parameters);
            return S_OK;
        }
        struct clrie_tracer_method *traced = clrie_plugin_plan_add_method(m->plan, token);
        if (!traced)
            return E_OUTOFMEMORY;
        traced->no_instance = strcmp(method, ".ctor") == 0 || is_value_type(m->md.import, owner);
        HRESULT hr = define_point(m, p, parameters, &traced->point);
        if (FAILED(hr))
            return hr;
        if (m->count == m->capacity) {
            size_t capacity = m->capacity ? m->capacity * 2 : 16;
            mdMethodDef *grown = realloc(m->tokens, capacity * sizeof *grown);
            if (!grown)
                return E_OUTOFMEMORY;
            m->tokens = grown;
            m->capacity = capacity;
        }
        m->tokens[m->count++] = token;
        clrie_plugin_host_log(&m->s->host, false, "%s: %s::%s(%s) traced by %s (%s:%u)",
                              m->assembly, type, method, parameters, p->factory, p->file, p->line);
        return S_OK; /* the first point that names a method traces it */
    }
    return S_OK;
}

/* [Clrie.Tracing]Clrie.Tracing.Shim::Enter and ::Finish, defined in the module. */
static HRESULT define_refs(struct matching *m, struct clrie_tracer_refs *refs)
{
    mdAssemblyRef library =
        clrie_plugin_find_assembly_ref(m->md.assembly_import, LIBRARY_NAME, NULL);
    HRESULT hr = S_OK;
    if (library == mdTokenNil) {
        ASSEMBLYMETADATA version;
        memset(&version, 0, sizeof version);
        version.usMajorVersion = 1;
        hr = m->md.assembly_emit->lpVtbl->DefineAssemblyRef(
            m->md.assembly_emit, NULL, 0, u"" LIBRARY_NAME, &version, NULL, 0, 0, &library);
        if (FAILED(hr))
            return hr;
    }
    mdTypeRef shim = mdTokenNil;
    hr = m->md.emit->lpVtbl->DefineTypeRefByName(m->md.emit, library, u"Clrie.Tracing.Shim", &shim);
    if (FAILED(hr))
        return hr;
    /* static object Enter(string, object, object[]); static void Finish(object, object, object) */
    static const COR_SIGNATURE enter[] = {0x00,
                                          0x03,
                                          ELEMENT_TYPE_OBJECT,
                                          ELEMENT_TYPE_STRING,
                                          ELEMENT_TYPE_OBJECT,
                                          ELEMENT_TYPE_SZARRAY,
                                          ELEMENT_TYPE_OBJECT};
    static const COR_SIGNATURE finish[] = {0x00,
                                           0x03,
                                           ELEMENT_TYPE_VOID,
                                           ELEMENT_TYPE_OBJECT,
                                           ELEMENT_TYPE_OBJECT,
                                           ELEMENT_TYPE_OBJECT};
    hr = m->md.emit->lpVtbl->DefineMemberRef(m->md.emit, shim, u"Enter", enter, sizeof enter,
                                             &refs->enter);
    if (SUCCEEDED(hr))
        hr = m->md.emit->lpVtbl->DefineMemberRef(m->md.emit, shim, u"Finish", finish, sizeof finish,
                                                 &refs->finish);
    return hr;
}

/* Chooses the module's traced methods (clrie_plugin_plan_fn). */
static HRESULT plan_module(void *data, IModuleInfo *module, struct clrie_plugin_plan *plan)
{
    struct matching *m = data;
    m->plan = plan;
    HRESULT hr = clrie_plugin_metadata_init(&m->md, module);
    if (SUCCEEDED(hr))
        hr = clrie_plugin_method_defs_each(m->md.import, match_method, m);
    if (SUCCEEDED(hr) && plan->count > 0)
        hr = define_refs(m, &((struct module_plan *)plan)->refs);
    clrie_plugin_metadata_finish(&m->md);
    return hr;
}

/* ---- ReJIT requests -------------------------------------------------------------------------- */

/* The ReJIT requests of one module, made on a thread of their own (a request suspends the
 * runtime) while the module load waits for them. Freed by the last of the two to let go. */
struct rejit_batch {
    atomic_int refs;
    struct tracer *s;
    IModuleInfo *module; /* one reference */
    mdMethodDef *tokens;
    size_t count;
    size_t failed;
    pthread_mutex_t lock; /* protects done */
    pthread_cond_t finished;
    bool done;
};

static void batch_unref(struct rejit_batch *b)
{
    if (atomic_fetch_sub(&b->refs, 1) != 1)
        return;
    clrie_plugin_release(b->module);
    free(b->tokens);
    pthread_cond_destroy(&b->finished);
    pthread_mutex_destroy(&b->lock);
    free(b);
}

static void *request_rejits(void *arg)
{
    struct rejit_batch *b = arg;
    for (size_t i = 0; i < b->count; i++) {
        HRESULT hr = b->module->lpVtbl->RequestRejit(b->module, b->tokens[i]);
        if (FAILED(hr)) {
            b->failed++;
            clrie_plugin_host_log(&b->s->host, true, "RequestRejit(0x%08X) failed (hr 0x%08X)",
                                  (unsigned)b->tokens[i], (unsigned)hr);
        }
    }
    pthread_mutex_lock(&b->lock);
    b->done = true;
    pthread_cond_signal(&b->finished);
    pthread_mutex_unlock(&b->lock);
    batch_unref(b);
    return NULL;
}

/* Requests the ReJITs and waits for the requests (not the compilations) to be made. */
static void rejit_and_wait(struct tracer *s, IModuleInfo *module, const char *name,
                           mdMethodDef *tokens, size_t count)
{
    struct rejit_batch *b = calloc(1, sizeof *b);
    if (!b) {
        free(tokens);
        return;
    }
    atomic_init(&b->refs, 2);
    b->s = s;
    b->module = module;
    module->lpVtbl->AddRef(module);
    b->tokens = tokens;
    b->count = count;
    pthread_mutex_init(&b->lock, NULL);
    pthread_cond_init(&b->finished, NULL);
    pthread_t thread;
    if (pthread_create(&thread, NULL, request_rejits, b) != 0) {
        clrie_plugin_host_log(&s->host, true, "%s: no thread for the ReJIT requests: not traced",
                              name);
        atomic_store(&b->refs, 1);
        batch_unref(b);
        return;
    }
    pthread_detach(thread);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += REJIT_WAIT_SECONDS;
    pthread_mutex_lock(&b->lock);
    int wait = 0;
    while (!b->done && wait == 0)
        wait = pthread_cond_timedwait(&b->finished, &b->lock, &until);
    bool done = b->done;
    pthread_mutex_unlock(&b->lock);
    if (!done)
        clrie_plugin_host_log(&s->host, true,
                              "%s: the ReJIT requests took over %d s; the module runs on and its "
                              "methods are traced once they are made",
                              name, REJIT_WAIT_SECONDS);
    batch_unref(b);
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
    free(s->folder);
    clrie_tracer_points_finish(&s->points);
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

static HRESULT tracer_Initialize(IInstrumentationMethod *This, IProfilerManager *manager)
{
    struct tracer *s = from_method(This);
    if (!manager)
        return E_POINTER;
    clrie_plugin_host_init(&s->host, manager, "tracer");
    clrie_plugin_host_read_settings_for(&s->host, manager, &s->clsid, apply_setting, s);
    if (!s->folder) {
        clrie_plugin_host_log(&s->host, true, "no Folder setting: nothing will be traced");
        return S_OK;
    }
    size_t files = 0;
    if (clrie_tracer_points_load_folder(&s->points, s->folder, report_problem, s, &files) ==
        -ENOMEM)
        clrie_plugin_host_log(&s->host, true, "out of memory reading %s", s->folder);
    clrie_plugin_host_log(&s->host, false, "%zu points from %zu files of %s", s->points.count,
                          files, s->folder);
    /* The wrapped methods call the library: without it each would throw
     * FileNotFoundException, so trace nothing rather than break the app. */
    const char *hooks = getenv("DOTNET_STARTUP_HOOKS");
    if (s->points.count > 0 && !(hooks && strstr(hooks, LIBRARY_FILE))) {
        clrie_plugin_host_log(&s->host, true,
                              "DOTNET_STARTUP_HOOKS does not name " LIBRARY_FILE
                              ", so the runtime could not load the tracer library: nothing "
                              "will be traced");
        clrie_tracer_points_finish(&s->points);
    }
    return S_OK;
}

static HRESULT tracer_OnModuleLoaded(IInstrumentationMethod *This, IModuleInfo *module)
{
    struct tracer *s = from_method(This);
    if (!module)
        return E_POINTER;
    if (s->points.count == 0)
        return S_OK;
    IAssemblyInfo *assembly = NULL;
    BSTR text = NULL;
    char *name = NULL;
    if (SUCCEEDED(module->lpVtbl->GetAssemblyInfo(module, &assembly)) && assembly)
        name = clrie_plugin_host_take_utf8(&s->host, assembly->lpVtbl->GetName(assembly, &text),
                                           &text);
    clrie_plugin_release(assembly);
    if (!name)
        return S_OK;
    bool named = false;
    for (size_t i = 0; i < s->points.count && !named; i++)
        named = strcasecmp(s->points.items[i].assembly, name) == 0;
    if (!named || strcasecmp(name, LIBRARY_NAME) == 0) {
        free(name);
        return S_OK;
    }
    struct matching m = {.s = s, .assembly = name};
    HRESULT hr = clrie_plugin_plans_prepare(&s->plans, module, sizeof(struct module_plan),
                                            sizeof(struct clrie_tracer_method), plan_module, &m);
    if (FAILED(hr)) {
        clrie_plugin_host_log(&s->host, true,
                              "%s: cannot prepare the module (hr 0x%08X); it is not traced", name,
                              (unsigned)hr);
        free(m.tokens);
    } else if (m.count > 0) {
        rejit_and_wait(s, module, name, m.tokens, m.count);
    } else {
        free(m.tokens);
    }
    free(name);
    return S_OK;
}

static HRESULT tracer_ShouldInstrumentMethod(IInstrumentationMethod *This, IMethodInfo *method,
                                             BOOL isRejit, BOOL *pbInstrument)
{
    if (!pbInstrument)
        return E_POINTER;
    *pbInstrument = FALSE;
    if (!isRejit) /* the first JIT is left alone: only a ReJIT can be reverted */
        return S_OK;
    return clrie_plugin_plans_should_instrument(&from_method(This)->plans, method, pbInstrument);
}

static HRESULT tracer_InstrumentMethod(IInstrumentationMethod *This, IMethodInfo *method,
                                       BOOL isRejit)
{
    struct tracer *s = from_method(This);
    const struct clrie_plugin_plan *plan = NULL;
    const struct clrie_tracer_method *traced = clrie_plugin_plans_find(&s->plans, method, &plan);
    if (!traced || !isRejit)
        return S_OK;
    const char *why = NULL;
    HRESULT hr = clrie_tracer_wrap(method, traced, &((const struct module_plan *)plan)->refs, &why);
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

static HRESULT tracer_AllowInlineSite(IInstrumentationMethod *This, IMethodInfo *inlinee,
                                      IMethodInfo *caller, BOOL *pbAllowInline)
{
    (void)caller; /* a traced method must stay a call, wherever it is called from */
    return clrie_plugin_plans_allow_inline(&from_method(This)->plans, inlinee, pbAllowInline);
}

static const struct IInstrumentationMethodVtbl tracer_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(tracer),
    .Initialize = tracer_Initialize,
    CLRIE_PLUGIN_IGNORE_DOMAIN_AND_ASSEMBLY_EVENTS,
    .OnModuleLoaded = tracer_OnModuleLoaded,
    .OnModuleUnloaded = clrie_plugin_ignore_module,
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
