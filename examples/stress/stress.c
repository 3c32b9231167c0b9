/* stress: a CLR Instrumentation Engine plugin that rewrites every method of the modules it is
 * told to, in ways that change nothing the program can observe but give the engine's IL
 * rewriting, its encoder and the JIT real work. The engine's tests run whole programs with it
 * and compare their output with uninstrumented runs.
 *
 * For each method of a selected module:
 *   - single return (ISingleRetDefaultInstrumentation2), so there is one shared exit;
 *   - a new int32 local (ILocalVariableCollection::AddLocal) set at entry with
 *     `ldc.i4 <method number>; stloc <new>` and read before the exit with `ldloc <new>; pop`;
 *   - with Nops=true, a `nop` before every original instruction (branches and exception
 *     clauses that pointed at it now point at the nop), which lengthens the code so that short
 *     branches must become long ones.
 * This file is the plugin object, its settings, ReJIT requests and the report; rewrite.c is the
 * IL rewrite.
 *
 * Settings (the <Settings> of its config entry, read through IInstrumentationMethodAttachContext):
 *   Modules  `*` (every module) or a `;`-separated list of module file names, e.g.
 *            `ilshapes.dll;System.Private.CoreLib.dll` (case-insensitive). Default: none.
 *   Nops     `true`: the nops above.
 *   Rejit    `true`: instrument through ReJIT instead of the first JIT: the first JIT of each
 *            method is left alone and a rejit is requested for it (IModuleInfo::RequestRejit,
 *            from a thread of the plugin's own, since a ReJIT request suspends the runtime);
 *            the method is instrumented when the runtime rejits it (isRejit=TRUE).
 *   Report   a file written at shutdown with one line:
 *              stress seen=<n> instrumented=<n> failed=<n> rejit_requested=<n> rejit_failed=<n>
 *                     jit_compiled=<n> jit_failed=<n>
 *            (on one line) seen counts first JITs of methods of selected modules, instrumented
 *            the methods rewritten, failed those where a step failed (the engine then leaves
 *            the method as it was); jit_compiled and jit_failed count how the JIT took the
 *            rewritten IL (IInstrumentationMethodJitEvents2: the JIT result of methods whose IL
 *            was transformed). Without Report the line goes to the engine's log.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <clrie/abi/corprof.h>
#include <clrie/abi/instrumentation.h>
#include <clrie/abi/metadata.h>
#include <clrie/plugin.h>

#include "stress.h"

/* A method already asked to be rejitted: (module, token). */
struct rejit_key {
    ModuleID module;
    mdToken token;
};

struct rejit_request {
    IModuleInfo *module; /* one reference */
    mdToken token;
};

struct stress {
    IInstrumentationMethod method;
    IInstrumentationMethodJitEvents2 jit_events;
    atomic_ulong refs;
    IProfilerManagerLogging *logging;
    IProfilerStringManager *strings;

    bool all_modules;
    char **modules; /* file names, when not all */
    size_t module_count;
    bool nops;
    bool rejit;
    char *report;

    atomic_ulong seen, instrumented, failed, rejit_requested, rejit_failed;
    atomic_ulong jit_compiled, jit_failed; /* JIT results of methods whose IL was rewritten */
    atomic_int next_id;

    /* ReJIT mode: methods waiting for their request, handled by `worker`. */
    pthread_mutex_t lock; /* protects everything below */
    pthread_cond_t wake;
    struct rejit_request *queue;
    size_t queued, queue_capacity;
    struct rejit_key *requested; /* open addressing, token 0 = empty */
    size_t requested_count, requested_capacity;
    bool worker_started, stopping;
    pthread_t worker;
};

/* ---- text and settings ------------------------------------------------------------------- */

/* An engine BSTR as UTF-8 (new string), freeing the BSTR. */
static char *take_string(struct stress *s, HRESULT hr, BSTR *text)
{
    return clrie_plugin_take_utf8(s->strings, hr, text);
}

static void log_line(struct stress *s, bool error, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static void log_line(struct stress *s, bool error, const char *format, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, format);
    int len = snprintf(text, sizeof text, "stress: ");
    vsnprintf(text + len, sizeof text - (size_t)len, format, ap);
    va_end(ap);
    clrie_plugin_log(s->logging, error, text);
}

static bool is_true(const char *value)
{
    return value && (strcasecmp(value, "true") == 0 || strcmp(value, "1") == 0 ||
                     strcasecmp(value, "yes") == 0 || strcasecmp(value, "on") == 0);
}

static void apply_setting(void *data, const char *name, const char *value)
{
    struct stress *s = data;
    if (strcasecmp(name, "Modules") == 0) {
        char *list = strdup(value);
        for (char *save = NULL, *item = strtok_r(list, ";", &save); item;
             item = strtok_r(NULL, ";", &save)) {
            while (*item == ' ')
                item++;
            size_t len = strlen(item);
            while (len && item[len - 1] == ' ')
                item[--len] = '\0';
            if (!*item)
                continue;
            if (strcmp(item, "*") == 0) {
                s->all_modules = true;
                continue;
            }
            char **grown = realloc(s->modules, (s->module_count + 1) * sizeof(*grown));
            if (!grown)
                break;
            s->modules = grown;
            s->modules[s->module_count++] = strdup(item);
        }
        free(list);
    } else if (strcasecmp(name, "Nops") == 0) {
        s->nops = is_true(value);
    } else if (strcasecmp(name, "Rejit") == 0) {
        s->rejit = is_true(value);
    } else if (strcasecmp(name, "Report") == 0) {
        free(s->report);
        s->report = strdup(value);
    } else {
        log_line(s, true, "unknown setting '%s' ignored", name);
    }
}

/* The <Settings> of this plugin's config entry, through CLRIE's attach context. */
static void read_settings(struct stress *s, IProfilerManager *manager)
{
    if (clrie_plugin_settings_each(manager, apply_setting, s) == -ENOSYS)
        log_line(s, true,
                 "the engine hands out no settings (no "
                 "IInstrumentationMethodAttachContext); nothing will be instrumented");
}

/* ---- which methods ----------------------------------------------------------------------- */

static bool module_selected(struct stress *s, IModuleInfo *module)
{
    if (s->all_modules)
        return true;
    if (s->module_count == 0)
        return false;
    BSTR text = NULL;
    char *name = take_string(s, module->lpVtbl->GetModuleName(module, &text), &text);
    if (!name)
        return false;
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    bool selected = false;
    for (size_t i = 0; i < s->module_count && !selected; i++)
        selected = strcasecmp(base, s->modules[i]) == 0;
    free(name);
    return selected;
}

static bool method_selected(struct stress *s, IMethodInfo *method)
{
    IModuleInfo *module = NULL;
    if (FAILED(method->lpVtbl->GetModuleInfo(method, &module)) || !module)
        return false;
    bool selected = module_selected(s, module);
    module->lpVtbl->Release(module);
    return selected;
}

/* ---- ReJIT requests ------------------------------------------------------------------------ */

static size_t key_hash(ModuleID module, mdToken token)
{
    uint64_t h = (uint64_t)module * 0x9E3779B97F4A7C15u ^ token;
    return (size_t)(h ^ (h >> 29));
}

/* Records (module, token); false if it was there already. Called with lock held. */
static bool remember_request(struct stress *s, ModuleID module, mdToken token)
{
    if ((s->requested_count + 1) * 2 > s->requested_capacity) {
        size_t capacity = s->requested_capacity ? s->requested_capacity * 2 : 1024;
        struct rejit_key *table = calloc(capacity, sizeof(*table));
        if (!table)
            return false;
        for (size_t i = 0; i < s->requested_capacity; i++) {
            struct rejit_key k = s->requested[i];
            if (!k.token)
                continue;
            size_t j = key_hash(k.module, k.token) & (capacity - 1);
            while (table[j].token)
                j = (j + 1) & (capacity - 1);
            table[j] = k;
        }
        free(s->requested);
        s->requested = table;
        s->requested_capacity = capacity;
    }
    size_t j = key_hash(module, token) & (s->requested_capacity - 1);
    while (s->requested[j].token) {
        if (s->requested[j].module == module && s->requested[j].token == token)
            return false;
        j = (j + 1) & (s->requested_capacity - 1);
    }
    s->requested[j] = (struct rejit_key){module, token};
    s->requested_count++;
    return true;
}

static void *rejit_worker(void *arg)
{
    struct stress *s = arg;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        while (!s->queued && !s->stopping)
            pthread_cond_wait(&s->wake, &s->lock);
        if (s->stopping)
            break;
        struct rejit_request request = s->queue[--s->queued];
        pthread_mutex_unlock(&s->lock);
        HRESULT hr = request.module->lpVtbl->RequestRejit(request.module, request.token);
        if (SUCCEEDED(hr)) {
            atomic_fetch_add(&s->rejit_requested, 1);
        } else {
            atomic_fetch_add(&s->rejit_failed, 1);
            log_line(s, true, "RequestRejit(0x%08X) failed (hr 0x%08X)", (unsigned)request.token,
                     (unsigned)hr);
        }
        request.module->lpVtbl->Release(request.module);
        pthread_mutex_lock(&s->lock);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

static void queue_rejit(struct stress *s, IMethodInfo *method)
{
    IModuleInfo *module = NULL;
    ModuleID id = 0;
    mdToken token = 0;
    if (FAILED(method->lpVtbl->GetModuleInfo(method, &module)) || !module)
        return;
    if (FAILED(module->lpVtbl->GetModuleID(module, &id)) ||
        FAILED(method->lpVtbl->GetMethodToken(method, &token)) || !token) {
        module->lpVtbl->Release(module);
        return;
    }
    pthread_mutex_lock(&s->lock);
    bool queued = false;
    if (!s->stopping && remember_request(s, id, token)) {
        if (s->queued == s->queue_capacity) {
            size_t capacity = s->queue_capacity ? s->queue_capacity * 2 : 256;
            struct rejit_request *grown = realloc(s->queue, capacity * sizeof(*grown));
            if (grown) {
                s->queue = grown;
                s->queue_capacity = capacity;
            }
        }
        if (s->queued < s->queue_capacity) {
            s->queue[s->queued++] = (struct rejit_request){module, token};
            queued = true;
            if (!s->worker_started)
                s->worker_started = pthread_create(&s->worker, NULL, rejit_worker, s) == 0;
            pthread_cond_signal(&s->wake);
        }
    }
    pthread_mutex_unlock(&s->lock);
    if (!queued)
        module->lpVtbl->Release(module);
}

static void stop_worker(struct stress *s)
{
    pthread_mutex_lock(&s->lock);
    s->stopping = true;
    bool started = s->worker_started;
    s->worker_started = false;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->lock);
    if (started)
        pthread_join(s->worker, NULL);
    for (size_t i = 0; i < s->queued; i++)
        s->queue[i].module->lpVtbl->Release(s->queue[i].module);
    s->queued = 0;
}

/* ---- IInstrumentationMethod ---------------------------------------------------------------- */

static struct stress *from_method(IInstrumentationMethod *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct stress, method);
}

static void stress_free(struct stress *s)
{
    stop_worker(s);
    clrie_plugin_release(s->logging);
    clrie_plugin_release(s->strings);
    for (size_t i = 0; i < s->module_count; i++)
        free(s->modules[i]);
    free(s->modules);
    free(s->report);
    free(s->queue);
    free(s->requested);
    pthread_cond_destroy(&s->wake);
    pthread_mutex_destroy(&s->lock);
    free(s);
    clrie_plugin_module_unref();
}

static HRESULT stress_query(struct stress *s, REFIID riid, void **ppv)
{
    if (!ppv)
        return E_POINTER;
    *ppv = NULL;
    if (!riid)
        return E_INVALIDARG;
    if (IsEqualIID(riid, &IID_IUnknown) || IsEqualIID(riid, &IID_IInstrumentationMethod))
        *ppv = &s->method;
    else if (IsEqualIID(riid, &IID_IInstrumentationMethodJitEvents) ||
             IsEqualIID(riid, &IID_IInstrumentationMethodJitEvents2))
        *ppv = &s->jit_events;
    else
        return E_NOINTERFACE;
    atomic_fetch_add(&s->refs, 1);
    return S_OK;
}

static HRESULT im_QueryInterface(IInstrumentationMethod *This, REFIID riid, void **ppv)
{
    return stress_query(from_method(This), riid, ppv);
}

static ULONG im_AddRef(IInstrumentationMethod *This)
{
    return (ULONG)(atomic_fetch_add(&from_method(This)->refs, 1) + 1);
}

static ULONG im_Release(IInstrumentationMethod *This)
{
    struct stress *s = from_method(This);
    unsigned long left = atomic_fetch_sub(&s->refs, 1) - 1;
    if (left == 0)
        stress_free(s);
    return (ULONG)left;
}

static HRESULT im_Initialize(IInstrumentationMethod *This, IProfilerManager *manager)
{
    struct stress *s = from_method(This);
    if (!manager)
        return E_POINTER;
    manager->lpVtbl->GetLoggingInstance(manager, &s->logging);
    manager->lpVtbl->QueryInterface(manager, &IID_IProfilerStringManager, (void **)&s->strings);
    read_settings(s, manager);
    char modules[512] = "";
    size_t used = 0;
    for (size_t i = 0; i < s->module_count + s->all_modules && used < sizeof modules; i++)
        used += (size_t)snprintf(modules + used, sizeof modules - used, "%s%s", i ? ";" : "",
                                 i < s->module_count ? s->modules[i] : "*");
    log_line(s, false, "modules %s, nops %s, %s, report %s", used ? modules : "(none)",
             s->nops ? "on" : "off", s->rejit ? "through ReJIT" : "at first JIT",
             s->report ? s->report : "(log)");
    return S_OK;
}

static void write_report(struct stress *s)
{
    char line[256];
    snprintf(line, sizeof line,
             "stress seen=%lu instrumented=%lu failed=%lu rejit_requested=%lu rejit_failed=%lu "
             "jit_compiled=%lu jit_failed=%lu\n",
             atomic_load(&s->seen), atomic_load(&s->instrumented), atomic_load(&s->failed),
             atomic_load(&s->rejit_requested), atomic_load(&s->rejit_failed),
             atomic_load(&s->jit_compiled), atomic_load(&s->jit_failed));
    if (!s->report) {
        line[strlen(line) - 1] = '\0';
        log_line(s, false, "%s", line);
        return;
    }
    int fd = open(s->report, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || write(fd, line, strlen(line)) != (ssize_t)strlen(line))
        log_line(s, true, "cannot write the report '%s': %s", s->report, strerror(errno));
    if (fd >= 0)
        close(fd);
}

static HRESULT im_OnShutdown(IInstrumentationMethod *This)
{
    struct stress *s = from_method(This);
    stop_worker(s);
    write_report(s);
    return S_OK;
}

static HRESULT im_ShouldInstrumentMethod(IInstrumentationMethod *This, IMethodInfo *method,
                                         BOOL isRejit, BOOL *pbInstrument)
{
    struct stress *s = from_method(This);
    if (!pbInstrument)
        return E_POINTER;
    *pbInstrument = FALSE;
    if (!method || !method_selected(s, method))
        return S_OK;
    if (!isRejit)
        atomic_fetch_add(&s->seen, 1);
    if (s->rejit && !isRejit)
        queue_rejit(s, method);
    *pbInstrument = (isRejit != 0) == s->rejit;
    return S_OK;
}

static HRESULT im_InstrumentMethod(IInstrumentationMethod *This, IMethodInfo *method, BOOL isRejit)
{
    struct stress *s = from_method(This);
    if (!method)
        return E_POINTER;
    const char *step = NULL;
    int id = atomic_fetch_add(&s->next_id, 1) + 1;
    HRESULT hr = stress_rewrite(method, id, s->nops, &step);
    if (SUCCEEDED(hr)) {
        atomic_fetch_add(&s->instrumented, 1);
        return S_OK;
    }
    atomic_fetch_add(&s->failed, 1);
    BSTR text = NULL;
    char *name = take_string(s, method->lpVtbl->GetFullName(method, &text), &text);
    log_line(s, true, "%s%s: %s failed (hr 0x%08X)", name ? name : "?", isRejit ? " (rejit)" : "",
             step ? step : "?", (unsigned)hr);
    free(name);
    return hr;
}

static HRESULT im_AllowInlineSite(IInstrumentationMethod *This, IMethodInfo *inlinee,
                                  IMethodInfo *caller, BOOL *pbAllowInline)
{
    (void)This, (void)inlinee, (void)caller;
    if (!pbAllowInline)
        return E_POINTER;
    *pbAllowInline = TRUE;
    return S_OK;
}

static const struct IInstrumentationMethodVtbl method_vtbl = {
    .QueryInterface = im_QueryInterface,
    .AddRef = im_AddRef,
    .Release = im_Release,
    .Initialize = im_Initialize,
    CLRIE_PLUGIN_IGNORE_DOMAIN_AND_ASSEMBLY_EVENTS,
    .OnModuleLoaded = clrie_plugin_ignore_module,
    .OnModuleUnloaded = clrie_plugin_ignore_module,
    .OnShutdown = im_OnShutdown,
    .ShouldInstrumentMethod = im_ShouldInstrumentMethod,
    .BeforeInstrumentMethod = clrie_plugin_ignore_method,
    .InstrumentMethod = im_InstrumentMethod,
    .OnInstrumentationComplete = clrie_plugin_ignore_method,
    .AllowInlineSite = im_AllowInlineSite,
};

/* ---- IInstrumentationMethodJitEvents2: how the JIT took the rewritten IL ------------------ */

static struct stress *from_jit_events(IInstrumentationMethodJitEvents2 *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct stress, jit_events);
}

static HRESULT je_QueryInterface(IInstrumentationMethodJitEvents2 *This, REFIID riid, void **ppv)
{
    return stress_query(from_jit_events(This), riid, ppv);
}

static ULONG je_AddRef(IInstrumentationMethodJitEvents2 *This)
{
    return im_AddRef(&from_jit_events(This)->method);
}

static ULONG je_Release(IInstrumentationMethodJitEvents2 *This)
{
    return im_Release(&from_jit_events(This)->method);
}

static HRESULT je_JitStarted(IInstrumentationMethodJitEvents2 *This, FunctionID functionID,
                             BOOL isRejit)
{
    (void)This, (void)functionID, (void)isRejit;
    return S_OK;
}

/* The v1 event: an engine that only knows v1 tells no transformation status; not counted. */
static HRESULT je_JitComplete(IInstrumentationMethodJitEvents2 *This, FunctionID functionID,
                              BOOL isRejit, HRESULT jitResult)
{
    (void)This, (void)functionID, (void)isRejit, (void)jitResult;
    return S_OK;
}

static HRESULT je_JitComplete2(IInstrumentationMethodJitEvents2 *This, IMethodJitInfo *info)
{
    struct stress *s = from_jit_events(This);
    BOOL transformed = FALSE;
    HRESULT result = S_OK;
    if (!info || FAILED(info->lpVtbl->GetILTransformationStatus(info, &transformed)) ||
        !transformed || FAILED(info->lpVtbl->GetJitHR(info, &result)))
        return S_OK;
    if (SUCCEEDED(result)) {
        atomic_fetch_add(&s->jit_compiled, 1);
    } else {
        atomic_fetch_add(&s->jit_failed, 1);
        FunctionID function = 0;
        info->lpVtbl->GetFunctionID(info, &function);
        log_line(s, true, "the JIT rejected the rewritten IL of function 0x%llx (hr 0x%08X)",
                 (unsigned long long)function, (unsigned)result);
    }
    return S_OK;
}

static const struct IInstrumentationMethodJitEvents2Vtbl jit_events_vtbl = {
    .QueryInterface = je_QueryInterface,
    .AddRef = je_AddRef,
    .Release = je_Release,
    .JitStarted = je_JitStarted,
    .JitComplete = je_JitComplete,
    .JitComplete2 = je_JitComplete2,
};

static struct stress *stress_new(void)
{
    struct stress *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->method.lpVtbl = &method_vtbl;
    s->jit_events.lpVtbl = &jit_events_vtbl;
    atomic_init(&s->refs, 1);
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->wake, NULL);
    clrie_plugin_module_ref();
    return s;
}

/* Any class ID: each config entry naming this module is an instance with its own settings. */
static HRESULT create_instance(const CLSID *clsid, REFIID riid, void **out)
{
    (void)clsid;
    struct stress *s = stress_new();
    if (!s)
        return E_OUTOFMEMORY;
    HRESULT hr = im_QueryInterface(&s->method, riid, out);
    im_Release(&s->method);
    return hr;
}

CLRIE_PLUGIN_EXPORT_CLASS_FACTORY(create_instance)
