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
 *   FailEvery  n > 0: every n-th InstrumentMethod call fails (E_FAIL) without touching the
 *            method, as a faulty plugin would; the engine must then run that method
 *            uninstrumented and say so (test/soak). The report then ends with refused=<n>.
 *   Report   a file written at shutdown with one line:
 *              stress seen=<n> instrumented=<n> failed=<n> rejit_requested=<n> rejit_failed=<n>
 *                     jit_compiled=<n> jit_failed=<n>
 *            (on one line) seen counts first JITs of methods of selected modules, instrumented
 *            the methods rewritten, failed those where a step failed (the engine then leaves
 *            the method as it was); jit_compiled and jit_failed count how the JIT took the
 *            rewritten IL (IInstrumentationMethodJitEvents2: the JIT result of methods whose IL
 *            was transformed). Without Report the line goes to the engine's log. It is
 *            written at OnShutdown, after the methods other threads are instrumenting then;
 *            methods the JIT compiles later are left alone and not counted.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <clrie/abi/corprof.h>
#include <clrie/abi/instrumentation.h>
#include <clrie/abi/metadata.h>
#include <clrie/os/fs.h>
#include <clrie/os/thread.h>
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
    CLSID clsid; /* the config entry's: names its environment settings */
    IInstrumentationMethodJitEvents2 jit_events;
    struct clrie_plugin_com com;
    struct clrie_plugin_host host;

    bool all_modules;
    struct clrie_plugin_patterns modules; /* file names, compared as they are: not patterns */
    bool nops;
    bool rejit;
    char *report;
    unsigned long fail_every; /* 0: never */

    atomic_ulong calls, refused; /* InstrumentMethod calls, and those FailEvery failed */
    atomic_ulong seen, instrumented, failed, rejit_requested, rejit_failed;
    atomic_ulong jit_compiled, jit_failed; /* JIT results of methods whose IL was rewritten */
    atomic_int next_id;
    /* The report counts whole instrumentations: a method another thread is instrumenting when
     * OnShutdown comes is waited for, and none starts after it (see stress_OnShutdown). */
    atomic_int in_flight;
    atomic_bool shutting_down;

    /* ReJIT mode: methods waiting for their request, handled by `worker`. */
    struct clrie_os_mutex lock; /* protects everything below */
    struct clrie_os_cond wake;
    struct rejit_request *queue;
    size_t queued, queue_capacity;
    struct rejit_key *requested; /* open addressing, token 0 = empty */
    size_t requested_count, requested_capacity;
    bool worker_started, stopping;
    struct clrie_os_thread worker;
};

/* ---- settings -------------------------------------------------------------------------------- */

static void apply_setting(void *data, const char *name, const char *value)
{
    struct stress *s = data;
    if (strcasecmp(name, "Modules") == 0) {
        size_t first = s->modules.count;
        clrie_plugin_patterns_add(&s->modules, value);
        for (size_t i = first; i < s->modules.count;) { /* `*`: every module */
            if (strcmp(s->modules.items[i], "*") != 0) {
                i++;
                continue;
            }
            s->all_modules = true;
            free(s->modules.items[i]);
            s->modules.items[i] = s->modules.items[--s->modules.count];
        }
    } else if (strcasecmp(name, "Nops") == 0) {
        s->nops = clrie_plugin_is_true(value);
    } else if (strcasecmp(name, "Rejit") == 0) {
        s->rejit = clrie_plugin_is_true(value);
    } else if (strcasecmp(name, "FailEvery") == 0) {
        char *end;
        errno = 0;
        unsigned long n = strtoul(value, &end, 10);
        if (errno || end == value || *end || value[0] == '-')
            clrie_plugin_host_log(&s->host, true, "FailEvery='%s': expected a count", value);
        else
            s->fail_every = n;
    } else if (strcasecmp(name, "Report") == 0) {
        free(s->report);
        s->report = strdup(value);
    } else {
        clrie_plugin_host_log(&s->host, true, "unknown setting '%s' ignored", name);
    }
}

/* ---- which methods ----------------------------------------------------------------------- */

static bool module_selected(struct stress *s, IModuleInfo *module)
{
    if (s->all_modules)
        return true;
    if (s->modules.count == 0)
        return false;
    BSTR text = NULL;
    char *name =
        clrie_plugin_host_take_utf8(&s->host, module->lpVtbl->GetModuleName(module, &text), &text);
    if (!name)
        return false;
    const char *base = clrie_os_path_name(name);
    bool selected = false;
    for (size_t i = 0; i < s->modules.count && !selected; i++)
        selected = strcasecmp(base, s->modules.items[i]) == 0;
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

static void rejit_worker(void *arg)
{
    struct stress *s = arg;
    clrie_os_mutex_lock(&s->lock);
    for (;;) {
        while (!s->queued && !s->stopping)
            clrie_os_cond_wait(&s->wake, &s->lock);
        if (s->stopping)
            break;
        struct rejit_request request = s->queue[--s->queued];
        clrie_os_mutex_unlock(&s->lock);
        HRESULT hr = request.module->lpVtbl->RequestRejit(request.module, request.token);
        if (SUCCEEDED(hr)) {
            atomic_fetch_add(&s->rejit_requested, 1);
        } else {
            atomic_fetch_add(&s->rejit_failed, 1);
            clrie_plugin_host_log(&s->host, true, "RequestRejit(0x%08X) failed (hr 0x%08X)",
                                  (unsigned)request.token, (unsigned)hr);
        }
        request.module->lpVtbl->Release(request.module);
        clrie_os_mutex_lock(&s->lock);
    }
    clrie_os_mutex_unlock(&s->lock);
}

static void queue_rejit(struct stress *s, IMethodInfo *method)
{
    IModuleInfo *module = NULL;
    ModuleID id = 0;
    mdToken token = 0;
    if (FAILED(clrie_plugin_method_key(method, &id, &token)) || !token ||
        FAILED(method->lpVtbl->GetModuleInfo(method, &module)) || !module)
        return;
    clrie_os_mutex_lock(&s->lock);
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
                s->worker_started = clrie_os_thread_start(&s->worker, rejit_worker, s) == 0;
            clrie_os_cond_signal(&s->wake);
        }
    }
    clrie_os_mutex_unlock(&s->lock);
    if (!queued)
        module->lpVtbl->Release(module);
}

static void stop_worker(struct stress *s)
{
    clrie_os_mutex_lock(&s->lock);
    s->stopping = true;
    bool started = s->worker_started;
    s->worker_started = false;
    clrie_os_cond_signal(&s->wake);
    clrie_os_mutex_unlock(&s->lock);
    if (started)
        clrie_os_thread_join(&s->worker);
    for (size_t i = 0; i < s->queued; i++)
        s->queue[i].module->lpVtbl->Release(s->queue[i].module);
    s->queued = 0;
}

/* ---- IInstrumentationMethod ---------------------------------------------------------------- */

static struct stress *from_method(IInstrumentationMethod *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct stress, method);
}

static void stress_destroy(void *object)
{
    struct stress *s = object;
    stop_worker(s);
    clrie_plugin_host_finish(&s->host);
    clrie_plugin_patterns_finish(&s->modules);
    free(s->report);
    free(s->queue);
    free(s->requested);
    clrie_os_cond_finish(&s->wake);
    clrie_os_mutex_finish(&s->lock);
    free(s);
}

static const struct clrie_plugin_com_iface stress_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethod, struct stress, method),
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethodJitEvents, struct stress, jit_events),
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethodJitEvents2, struct stress, jit_events),
};

static const struct clrie_plugin_com_class stress_class = {
    .name = "stress",
    .ifaces = stress_ifaces,
    .iface_count = CLRIE_PLUGIN_COM_COUNT(stress_ifaces),
    .com_offset = offsetof(struct stress, com),
    .destroy = stress_destroy,
    .module_ref = true,
};

CLRIE_PLUGIN_COM_IUNKNOWN(stress, IInstrumentationMethod, struct stress, method, com)
CLRIE_PLUGIN_COM_IUNKNOWN(stress_jit, IInstrumentationMethodJitEvents2, struct stress, jit_events,
                          com)

static HRESULT STDMETHODCALLTYPE stress_Initialize(IInstrumentationMethod *This,
                                                   IProfilerManager *manager)
{
    struct stress *s = from_method(This);
    if (!manager)
        return E_POINTER;
    clrie_plugin_host_init(&s->host, manager, "stress");
    clrie_plugin_host_read_settings_for(&s->host, manager, &s->clsid, apply_setting, s);
    char modules[512] = "";
    size_t used = 0;
    for (size_t i = 0; i < s->modules.count + s->all_modules && used < sizeof modules; i++)
        used += (size_t)snprintf(modules + used, sizeof modules - used, "%s%s", i ? ";" : "",
                                 i < s->modules.count ? s->modules.items[i] : "*");
    clrie_plugin_host_log(&s->host, false, "modules %s, nops %s, %s, report %s, fail every %lu",
                          used ? modules : "(none)", s->nops ? "on" : "off",
                          s->rejit ? "through ReJIT" : "at first JIT",
                          s->report ? s->report : "(log)", s->fail_every);
    return S_OK;
}

static void write_report(struct stress *s)
{
    char line[256];
    int len =
        snprintf(line, sizeof line,
                 "stress seen=%lu instrumented=%lu failed=%lu rejit_requested=%lu rejit_failed=%lu "
                 "jit_compiled=%lu jit_failed=%lu",
                 atomic_load(&s->seen), atomic_load(&s->instrumented), atomic_load(&s->failed),
                 atomic_load(&s->rejit_requested), atomic_load(&s->rejit_failed),
                 atomic_load(&s->jit_compiled), atomic_load(&s->jit_failed));
    if (s->fail_every && len > 0 && (size_t)len < sizeof line)
        snprintf(line + len, sizeof line - (size_t)len, " refused=%lu", atomic_load(&s->refused));
    if (!s->report) {
        clrie_plugin_host_log(&s->host, false, "%s", line);
        return;
    }
    int fd;
    int r = clrie_plugin_open_lines(s->report, true, &fd);
    if (r == 0)
        r = clrie_plugin_append_line(fd, "%s", line);
    if (r != 0)
        clrie_plugin_host_log(&s->host, true, "cannot write the report '%s': %s", s->report,
                              strerror(-r));
    clrie_plugin_close_lines(fd);
}

/* Waits, for a few seconds at most, for the instrumentations other threads are in, so that the
 * report never counts a method as seen and not (yet) instrumented. A thread that enters
 * ShouldInstrumentMethod later sees shutting_down (both sides use sequentially consistent
 * atomics: either this wait sees its in_flight, or it sees shutting_down) and leaves the method
 * alone, uncounted. */
static void wait_for_instrumentations(struct stress *s)
{
    atomic_store(&s->shutting_down, true);
    for (int i = 0; i < 500 && atomic_load(&s->in_flight) > 0; i++) {
        clrie_os_sleep_ms(10);
    }
}

static HRESULT STDMETHODCALLTYPE stress_OnShutdown(IInstrumentationMethod *This)
{
    struct stress *s = from_method(This);
    stop_worker(s);
    wait_for_instrumentations(s);
    write_report(s);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE stress_ShouldInstrumentMethod(IInstrumentationMethod *This,
                                                               IMethodInfo *method, BOOL isRejit,
                                                               BOOL *pbInstrument)
{
    struct stress *s = from_method(This);
    if (!pbInstrument)
        return E_POINTER;
    *pbInstrument = FALSE;
    if (!method || !method_selected(s, method))
        return S_OK;
    atomic_fetch_add(&s->in_flight, 1);
    if (atomic_load(&s->shutting_down)) {
        atomic_fetch_sub(&s->in_flight, 1);
        return S_OK;
    }
    if (!isRejit)
        atomic_fetch_add(&s->seen, 1);
    if (s->rejit && !isRejit)
        queue_rejit(s, method);
    *pbInstrument = (isRejit != 0) == s->rejit;
    if (!*pbInstrument)
        atomic_fetch_sub(&s->in_flight, 1); /* else InstrumentMethod ends the instrumentation */
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE stress_InstrumentMethod(IInstrumentationMethod *This,
                                                         IMethodInfo *method, BOOL isRejit)
{
    struct stress *s = from_method(This);
    if (!method)
        return E_POINTER;
    if (s->fail_every && (atomic_fetch_add(&s->calls, 1) + 1) % s->fail_every == 0) {
        atomic_fetch_add(&s->refused, 1);
        atomic_fetch_sub(&s->in_flight, 1);
        return E_FAIL; /* FailEvery: a faulty plugin, on purpose; the engine logs the method */
    }
    const char *step = NULL;
    int id = atomic_fetch_add(&s->next_id, 1) + 1;
    HRESULT hr = stress_rewrite(method, id, s->nops, &step);
    atomic_fetch_add(SUCCEEDED(hr) ? &s->instrumented : &s->failed, 1);
    atomic_fetch_sub(&s->in_flight, 1);
    if (SUCCEEDED(hr))
        return S_OK;
    char name[512];
    clrie_plugin_method_full_name(method, s->host.strings, name, sizeof name);
    clrie_plugin_host_log(&s->host, true, "%s%s: %s failed (hr 0x%08X)", name,
                          isRejit ? " (rejit)" : "", step ? step : "?", (unsigned)hr);
    return hr;
}

static HRESULT STDMETHODCALLTYPE stress_AllowInlineSite(IInstrumentationMethod *This,
                                                        IMethodInfo *inlinee, IMethodInfo *caller,
                                                        BOOL *pbAllowInline)
{
    (void)This, (void)inlinee, (void)caller;
    if (!pbAllowInline)
        return E_POINTER;
    *pbAllowInline = TRUE;
    return S_OK;
}

static const struct IInstrumentationMethodVtbl method_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(stress),
    .Initialize = stress_Initialize,
    CLRIE_PLUGIN_IGNORE_DOMAIN_AND_ASSEMBLY_EVENTS,
    .OnModuleLoaded = clrie_plugin_ignore_module,
    .OnModuleUnloaded = clrie_plugin_ignore_module,
    .OnShutdown = stress_OnShutdown,
    .ShouldInstrumentMethod = stress_ShouldInstrumentMethod,
    .BeforeInstrumentMethod = clrie_plugin_ignore_method,
    .InstrumentMethod = stress_InstrumentMethod,
    .OnInstrumentationComplete = clrie_plugin_ignore_method,
    .AllowInlineSite = stress_AllowInlineSite,
};

/* ---- IInstrumentationMethodJitEvents2: how the JIT took the rewritten IL ------------------ */

static struct stress *from_jit_events(IInstrumentationMethodJitEvents2 *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct stress, jit_events);
}

/* The v1 JitComplete: an engine that only knows v1 tells no transformation status; not
 * counted. */
static HRESULT STDMETHODCALLTYPE stress_JitComplete2(IInstrumentationMethodJitEvents2 *This,
                                                     IMethodJitInfo *info)
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
        clrie_plugin_host_log(&s->host, true,
                              "the JIT rejected the rewritten IL of function 0x%llx (hr 0x%08X)",
                              (unsigned long long)function, (unsigned)result);
    }
    return S_OK;
}

static const struct IInstrumentationMethodJitEvents2Vtbl jit_events_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(stress_jit),
    .JitStarted = clrie_plugin_ignore_jit_started,
    .JitComplete = clrie_plugin_ignore_jit_complete,
    .JitComplete2 = stress_JitComplete2,
};

/* Any class ID: each config entry naming this module is an instance with its own settings. */
static HRESULT create_instance(const CLSID *clsid, REFIID riid, void **out)
{
    struct stress *s = calloc(1, sizeof(*s));
    if (!s)
        return E_OUTOFMEMORY;
    s->clsid = *clsid;
    s->method.lpVtbl = &method_vtbl;
    s->jit_events.lpVtbl = &jit_events_vtbl;
    clrie_os_mutex_init(&s->lock);
    clrie_os_cond_init(&s->wake);
    clrie_plugin_com_init(&s->com, &stress_class);
    return clrie_plugin_com_give(&s->com, riid, out);
}

CLRIE_PLUGIN_EXPORT_CLASS_FACTORY(create_instance)
