/* Detaching from a process the engine was attached to.
 *
 * After an attach, IProfilerManager2::DisableProfiling is a plugin's request to detach. Once
 * every active plugin asked, a thread of the engine puts every method the plugins changed back
 * to its original code (a ReJIT for which the engine gives no new body, so the runtime compiles
 * the method's own IL: the way the runtime's documentation recommends to revert), waits until
 * the runtime asked for those bodies (at most DETACH_WAIT_MS: a method not called again keeps
 * its instrumented code until it is), and calls ICorProfilerInfo3::RequestProfilerDetach. On
 * ProfilerDetachSucceeded the plugins are released. CoreCLR refuses to detach a profiler that
 * changed IL or ever asked for COR_PRF_ENABLE_REJIT, which the engine always asks for
 * (CORPROF_E_IRREVERSIBLE_INSTRUMENTATION_PRESENT, from EEToProfInterfaceImpl::
 * EnsureProfilerDetachable; seen with .NET 8 and 10): then the methods still get their
 * original code back and the plugins are released, but the engine stays in the process, idle,
 * and the runtime takes no other profiler. The engine's shared object stays loaded (pinned
 * before the detach starts): plugins may hold threads and the crash handler points into it.
 *
 * An operator or the app can also ask, whatever the plugins do: the engine settings DetachFile
 * (a file whose appearance triggers the detach: `touch` it, or create it from the app) and
 * DetachAfter (seconds after the engine started), read from the attach data or the
 * environment (MicrosoftInstrumentationEngine_DetachFile, ..._DetachAfter). A thread of the
 * engine watches for them; the detach that follows is the one above. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clrie/os/fs.h"
#include "clrie/os/module.h"
#include "clrie/os/process.h"
#include "clrie/os/thread.h"
#include "manager.h"
#include "policy.h"

#define DETACH_WAIT_MS 10000
#define MAX_RESTORED 65536
#define TRIGGER_POLL_MS 100
#define DETACH_AFTER_MAX (366.0 * 24 * 3600) /* a year: past that, a mistake */

static void detach_thread(void *arg)
{
    struct manager *m = arg;
    ModuleID *modules = calloc(MAX_RESTORED, sizeof(*modules));
    mdMethodDef *tokens = calloc(MAX_RESTORED, sizeof(*tokens));
    size_t count = 0;
    if (modules && tokens && m->domains)
        count = clrie_pm_domains_transformed_methods(m->domains, modules, tokens, MAX_RESTORED);
    if (count > MAX_RESTORED)
        count = MAX_RESTORED;
    atomic_store(&m->detach_pending, count);
    atomic_store(&m->detaching, true);
    HRESULT hr = S_OK;
    if (count > 0) {
        hr = m->info->lpVtbl->RequestReJIT(m->info, (ULONG)count, modules, tokens);
        if (FAILED(hr)) {
            CLRIE_PM_LOG_ERROR(m->log,
                               "detach: cannot give %zu methods back their original code "
                               "(RequestReJIT hr 0x%08X)",
                               count, (unsigned)hr);
            atomic_store(&m->detach_pending, 0);
        }
    }
    for (int waited = 0; atomic_load(&m->detach_pending) > 0 && waited < DETACH_WAIT_MS;
         waited += 20)
        clrie_os_sleep_ms(20);
    size_t left = atomic_load(&m->detach_pending);
    CLRIE_PM_LOG_MESSAGE(m->log,
                         "detach: %zu methods back to their original code (%zu not called since)",
                         count - left, left);
    free(modules);
    free(tokens);
    hr = m->info->lpVtbl->RequestProfilerDetach(m->info, 1000);
    if (FAILED(hr)) {
        /* CoreCLR refuses for good once the profiler enabled ReJIT or changed IL
         * (CORPROF_E_IRREVERSIBLE_INSTRUMENTATION_PRESENT): the engine stays, idle. */
        CLRIE_PM_LOG_ERROR(m->log,
                           "detach: the runtime refused RequestProfilerDetach (hr 0x%08X%s); the "
                           "methods have their original code, the plugins are released and the "
                           "engine stays loaded, idle",
                           (unsigned)hr,
                           hr == CLRIE_HRESULT(0x80131370u)
                               ? ": the runtime lets no profiler that enabled ReJIT or changed "
                                 "IL detach"
                               : "");
        atomic_store(&m->shut_down, true);
        clrie_pm__manager_retire_plugins(m);
    }
    m->callback.lpVtbl->Release(&m->callback); /* the thread's reference */
}

/* The runtime unloads a profiler that detached; the engine's file stays loaded instead
 * (clrie_os_module_pin), as plugins may keep threads and the crash handler points into it. */
static const char engine_anchor;

void clrie_pm__detach_pin_engine(struct manager *m)
{
    if (clrie_os_module_pin(&engine_anchor) != 0)
        CLRIE_PM_LOG_MESSAGE(m->log, "cannot keep the engine loaded after a detach; detach is "
                                     "still possible");
}

/* Starts the detach once, on a thread of its own; `why` ends the line that says so. */
static HRESULT start_detach(struct manager *m, const char *why)
{
    if (atomic_load(&m->shut_down) || atomic_exchange(&m->detach_started, true))
        return S_OK;
    clrie_pm__detach_pin_engine(m); /* an engine loaded at start-up was not pinned */
    CLRIE_PM_LOG_MESSAGE(m->log, "%s; the engine detaches", why);
    m->callback.lpVtbl->AddRef(&m->callback);
    int rc = clrie_os_thread_start_detached(detach_thread, m);
    if (rc != 0) {
        m->callback.lpVtbl->Release(&m->callback);
        atomic_store(&m->detach_started, false);
        CLRIE_PM_LOG_ERROR(m->log, "detach: cannot start a thread");
        return E_FAIL;
    }
    return S_OK;
}

HRESULT clrie_pm__detach_request(struct manager *m, struct host *host)
{
    clrie_os_recursive_mutex_lock(&m->load_lock);
    struct plugin_list *list = clrie_pm__manager_plugins(m);
    bool all = list->count > 0;
    for (size_t i = 0; i < list->count; i++) {
        if (&list->items[i]->host == host)
            list->items[i]->detach_requested = true;
        all = all && list->items[i]->detach_requested;
    }
    clrie_os_recursive_mutex_unlock(&m->load_lock);
    if (!all)
        return S_OK;
    return start_detach(m, "every plugin asked to detach");
}

/* ---- the operator's triggers: DetachFile, DetachAfter ------------------------------------ */

struct trigger {
    struct manager *m;
    char *file;     /* NULL when not set */
    double after_s; /* < 0 when not set */
};

static double now_s(void)
{
    return (double)clrie_os_monotonic_ns() / 1e9;
}

static void trigger_thread(void *arg)
{
    struct trigger *t = arg;
    struct manager *m = t->m;
    double deadline = t->after_s >= 0 ? now_s() + t->after_s : 0;
    char why[4200];
    why[0] = '\0';
    while (!atomic_load(&m->shut_down) && !atomic_load(&m->detach_started)) {
        enum clrie_os_kind kind;
        if (t->file && clrie_os_path_kind(t->file, &kind) == 0) {
            snprintf(why, sizeof(why), "DetachFile: '%s' appeared", t->file);
            break;
        }
        if (t->after_s >= 0 && now_s() >= deadline) {
            snprintf(why, sizeof(why), "DetachAfter: %g s passed", t->after_s);
            break;
        }
        clrie_os_sleep_ms(TRIGGER_POLL_MS);
    }
    if (why[0])
        start_detach(m, why);
    free(t->file);
    free(t);
    m->callback.lpVtbl->Release(&m->callback); /* the thread's reference */
}

/* Seconds, a number from 0 to DETACH_AFTER_MAX ("90", "0.5"); -1 when it is not one. */
static double parse_seconds(const char *text)
{
    char *end = NULL;
    errno = 0;
    double value = strtod(text, &end);
    while (end && (*end == ' ' || *end == '\t'))
        end++;
    if (errno || end == text || !end || *end || !isfinite(value) || value < 0 ||
        value > DETACH_AFTER_MAX)
        return -1;
    return value;
}

void clrie_pm__detach_arm(struct manager *m, policy_lookup_fn lookup, void *ctx)
{
    const char *file = lookup(ctx, "DetachFile");
    const char *after = lookup(ctx, "DetachAfter");
    double after_s = -1;
    if (after) {
        after_s = parse_seconds(after);
        if (after_s < 0)
            CLRIE_PM_LOG_ERROR(m->log,
                               "DetachAfter='%s': expected seconds from 0 to %.0f (such as 600 "
                               "or 0.5); no detach after a delay",
                               after, DETACH_AFTER_MAX);
    }
    if (file && !clrie_os_path_is_absolute(file)) {
        CLRIE_PM_LOG_ERROR(m->log,
                           "DetachFile='%s': expected an absolute path (the process has its own "
                           "working folder); no detach on a file",
                           file);
        file = NULL;
    }
    if (!file && after_s < 0)
        return;
    struct trigger *t = calloc(1, sizeof(*t));
    if (!t || (file && !(t->file = strdup(file)))) {
        free(t);
        CLRIE_PM_LOG_ERROR(m->log, "out of memory arming the detach triggers");
        return;
    }
    t->m = m;
    t->after_s = after_s;
    m->callback.lpVtbl->AddRef(&m->callback);
    int rc = clrie_os_thread_start_detached(trigger_thread, t);
    if (rc != 0) {
        m->callback.lpVtbl->Release(&m->callback);
        free(t->file);
        free(t);
        CLRIE_PM_LOG_ERROR(m->log, "detach: cannot start the thread that watches DetachFile and "
                                   "DetachAfter");
        return;
    }
    if (file && after_s >= 0)
        CLRIE_PM_LOG_MESSAGE(m->log, "the engine detaches when '%s' appears or after %g s", file,
                             after_s);
    else if (file)
        CLRIE_PM_LOG_MESSAGE(m->log, "the engine detaches when '%s' appears", file);
    else
        CLRIE_PM_LOG_MESSAGE(m->log, "the engine detaches after %g s", after_s);
}

bool clrie_pm__detach_rejit(struct manager *m, ModuleID module_id, mdMethodDef token,
                            ICorProfilerFunctionControl *control)
{
    if (!atomic_load(&m->detaching))
        return false;
    /* A body set at the first JIT became the method's IL for the runtime: only the original
     * bytes, given explicitly, put it back. */
    IModuleInfo *module = NULL;
    if (control && m->domains &&
        SUCCEEDED(clrie_pm_domains_find_module(m->domains, module_id, &module))) {
        LPCBYTE original = NULL;
        ULONG size = 0;
        if (SUCCEEDED(clrie_pm_module_original_il(module, token, &original, &size)) && original)
            control->lpVtbl->SetILFunctionBody(control, size, original);
        module->lpVtbl->Release(module);
    }
    size_t pending = atomic_load(&m->detach_pending);
    while (pending > 0 && !atomic_compare_exchange_weak(&m->detach_pending, &pending, pending - 1))
        ;
    return true;
}

void clrie_pm__detach_succeeded(struct manager *m)
{
    CLRIE_PM_LOG_MESSAGE(m->log, "the engine detached; the process runs on without it");
    atomic_store(&m->shut_down, true);
    clrie_pm__manager_retire_plugins(m);
}
