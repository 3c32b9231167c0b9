/* What the JIT did with a body the engine gave the runtime: a body the JIT rejects is reported
 * with the method and the plugins that changed it, and the method goes back to its original
 * code. Both compilations are watched: the first JIT (JITCompilationStarted gave the body) and
 * a ReJIT (GetReJITParameters gave it; ReJITCompilationStarted, ReJITCompilationFinished).
 *
 * A JIT that rejects a body (IL it will not compile, a token whose type cannot be loaded) sends
 * no JITCompilationFinished (nor ReJITCompilationFinished): the compilation ends with an
 * exception thrown on the compiling thread, out of the JIT into the method's caller. So each
 * compilation in progress is an entry that records its thread ("pending entries").
 * ExceptionThrown on that thread notes the exception's class in the thread's newest entry, and
 * the next exception event that names a managed frame shows that the exception has left the
 * JIT: the method and the plugins that changed it are logged. A first JIT's method, compiled
 * again, gets its original IL (jit_pipeline.c asks clrie_pm__jit_rejected_before). A ReJIT's
 * method is reverted (ICorProfilerInfo4::RequestRevert, on a thread of its own: the exception
 * callback must not suspend the runtime), so its next calls run its original code. An exception
 * the runtime raises and handles inside the JIT is followed by the Finished event instead,
 * which drops the entry without a word.
 *
 * A ReJIT body is set once per method (GetReJITParameters), while each of its functions (the
 * instantiations of a generic method) is compiled from it on its own: the body's record (a
 * template entry, function 0) stays until the method's next ReJIT or its revert, and each
 * ReJITCompilationStarted of one of its functions makes a pending entry from it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clrie/os/thread.h"
#include "manager.h"
#include "method_info.h"
#include "utf16.h"

struct jit_pending {
    FunctionID function; /* 0 in a ReJIT body's record */
    ModuleID module;
    mdMethodDef token;
    bool is_rejit;
    const void *thread; /* this_thread() of the compiling thread */
    uint64_t serial;    /* entries made later have larger ones */
    bool noted;         /* an exception was thrown on the thread since */
    ClassID thrown;     /* its class, 0 when unknown */
    size_t editor_count;
    struct plugin *editors[]; /* they stay allocated until the manager is freed */
};

/* Tells threads apart: the address of a thread-local object is unique among live threads. */
static _Thread_local char thread_mark;

static const void *this_thread(void)
{
    return &thread_mark;
}

static void pending_free(struct jit_pending *p)
{
    free(p);
}

/* Makes room for one more of `size`-byte items in *items (under jit_pending_lock); false when
 * out of memory. */
static bool make_room(void *items, size_t *capacity, size_t count, size_t size)
{
    if (count < *capacity)
        return true;
    size_t grown_capacity = *capacity ? *capacity * 2 : 16;
    void *grown = realloc(*(void **)items, grown_capacity * size);
    if (!grown)
        return false;
    *(void **)items = grown;
    *capacity = grown_capacity;
    return true;
}

static struct jit_pending *pending_new(size_t editor_count)
{
    struct jit_pending *p = calloc(1, sizeof(*p) + editor_count * sizeof(p->editors[0]));
    if (p)
        p->editor_count = editor_count;
    return p;
}

/* Adds a compilation in progress on this thread (a later entry for the same function, from a
 * compilation on another thread, replaces the earlier one). Takes p; out of memory: forgotten. */
static void add_pending(struct manager *m, struct jit_pending *p)
{
    p->thread = this_thread();
    clrie_os_mutex_lock(&m->jit_pending_lock);
    p->serial = ++m->jit_pending_serial;
    size_t count = atomic_load(&m->jit_pending_count);
    size_t i = 0;
    while (i < count && m->jit_pending[i]->function != p->function)
        i++;
    if (i < count) {
        pending_free(m->jit_pending[i]);
        m->jit_pending[i] = p;
        p = NULL;
    } else if (make_room(&m->jit_pending, &m->jit_pending_capacity, count, sizeof(p))) {
        m->jit_pending[count] = p;
        atomic_store(&m->jit_pending_count, count + 1);
        p = NULL;
    }
    clrie_os_mutex_unlock(&m->jit_pending_lock);
    if (p)
        pending_free(p);
}

/* The index of the ReJIT body record of (module, token), or count (under jit_pending_lock). */
static size_t find_rejit_body(struct manager *m, ModuleID module, mdMethodDef token)
{
    size_t count = atomic_load(&m->rejit_body_count), i = 0;
    while (i < count &&
           !(m->rejit_bodies[i]->module == module && m->rejit_bodies[i]->token == token))
        i++;
    return i;
}

/* Drops the ReJIT body record i (under jit_pending_lock). */
static void drop_rejit_body(struct manager *m, size_t i)
{
    size_t count = atomic_load(&m->rejit_body_count);
    pending_free(m->rejit_bodies[i]);
    m->rejit_bodies[i] = m->rejit_bodies[count - 1];
    atomic_store(&m->rejit_body_count, count - 1);
}

void clrie_pm__jit_rejected_remember(struct manager *m, FunctionID function, ModuleID module,
                                     mdMethodDef token, bool is_rejit,
                                     struct plugin *const *editors, size_t editor_count)
{
    struct jit_pending *p = pending_new(editor_count);
    if (!p)
        return;
    p->module = module;
    p->token = token;
    p->is_rejit = is_rejit;
    if (editor_count)
        memcpy(p->editors, editors, editor_count * sizeof(p->editors[0]));
    if (!is_rejit) {
        p->function = function;
        add_pending(m, p);
        return;
    }
    clrie_os_mutex_lock(&m->jit_pending_lock);
    size_t count = atomic_load(&m->rejit_body_count);
    size_t i = find_rejit_body(m, module, token);
    if (i < count) {
        pending_free(m->rejit_bodies[i]);
        m->rejit_bodies[i] = p;
        p = NULL;
    } else if (make_room(&m->rejit_bodies, &m->rejit_body_capacity, count, sizeof(p))) {
        m->rejit_bodies[count] = p;
        atomic_store(&m->rejit_body_count, count + 1);
        p = NULL;
    }
    clrie_os_mutex_unlock(&m->jit_pending_lock);
    if (p)
        pending_free(p);
}

void clrie_pm__jit_rejected_forget_rejit(struct manager *m, ModuleID module, mdMethodDef token)
{
    if (atomic_load_explicit(&m->rejit_body_count, memory_order_acquire) == 0)
        return;
    clrie_os_mutex_lock(&m->jit_pending_lock);
    size_t i = find_rejit_body(m, module, token);
    if (i < atomic_load(&m->rejit_body_count))
        drop_rejit_body(m, i);
    clrie_os_mutex_unlock(&m->jit_pending_lock);
}

void clrie_pm__jit_rejected_rejit_started(struct manager *m, FunctionID function)
{
    /* Most ReJITs compile bodies the engine did not change (none at all without plugins). */
    if (atomic_load_explicit(&m->rejit_body_count, memory_order_acquire) == 0)
        return;
    ClassID cls = 0;
    ModuleID module = 0;
    mdMethodDef token = mdTokenNil;
    if (FAILED(m->info->lpVtbl->GetFunctionInfo(m->info, function, &cls, &module, &token)))
        return;
    struct jit_pending *p = NULL;
    clrie_os_mutex_lock(&m->jit_pending_lock);
    size_t i = find_rejit_body(m, module, token);
    if (i < atomic_load(&m->rejit_body_count)) {
        struct jit_pending *body = m->rejit_bodies[i];
        p = pending_new(body->editor_count);
        if (p) {
            p->function = function;
            p->module = module;
            p->token = token;
            p->is_rejit = true;
            if (body->editor_count)
                memcpy(p->editors, body->editors, body->editor_count * sizeof(p->editors[0]));
        }
    }
    clrie_os_mutex_unlock(&m->jit_pending_lock);
    if (p)
        add_pending(m, p);
}

/* Takes entry i out of the pending list (under jit_pending_lock). */
static struct jit_pending *take_pending(struct manager *m, size_t i)
{
    size_t count = atomic_load(&m->jit_pending_count);
    struct jit_pending *p = m->jit_pending[i];
    m->jit_pending[i] = m->jit_pending[count - 1];
    atomic_store(&m->jit_pending_count, count - 1);
    return p;
}

bool clrie_pm__jit_rejected_before(struct manager *m, FunctionID function)
{
    if (atomic_load_explicit(&m->jit_rejected_count, memory_order_acquire) == 0)
        return false;
    bool found = false;
    clrie_os_mutex_lock(&m->jit_pending_lock);
    size_t count = atomic_load(&m->jit_rejected_count);
    for (size_t i = 0; i < count && !found; i++)
        found = m->jit_rejected[i] == function;
    clrie_os_mutex_unlock(&m->jit_pending_lock);
    return found;
}

/* `Namespace.Name` of a class, in buf; "" when it cannot be read. */
static void class_name(struct manager *m, ClassID cls, char *buf, size_t size)
{
    ModuleID module_id = 0;
    mdTypeDef type = mdTokenNil;
    IModuleInfo *module = NULL;
    IUnknown *unknown = NULL;
    IMetaDataImport *import = NULL;
    buf[0] = '\0';
    if (cls && m->domains &&
        SUCCEEDED(m->info->lpVtbl->GetClassIDInfo(m->info, cls, &module_id, &type)) &&
        SUCCEEDED(clrie_pm_domains_find_module(m->domains, module_id, &module)) &&
        SUCCEEDED(module->lpVtbl->GetMetaDataImport(module, &unknown)) &&
        SUCCEEDED(
            unknown->lpVtbl->QueryInterface(unknown, &IID_IMetaDataImport, (void **)&import))) {
        char16_t name[256];
        ULONG len = 0;
        char *text = NULL;
        if (SUCCEEDED(import->lpVtbl->GetTypeDefProps(import, type, name, 256, &len, NULL, NULL)) &&
            len > 1 && clrie_pm_utf16_to_utf8(name, len - 1, true, &text, NULL) == 0)
            snprintf(buf, size, "%s", text);
        free(text);
    }
    if (import)
        import->lpVtbl->Release(import);
    if (unknown)
        unknown->lpVtbl->Release(unknown);
    if (module)
        module->lpVtbl->Release(module);
}

/* Records the rejection (under jit_pending_lock). A first JIT's function goes on the rejected
 * list (out of memory: not added, and the method is instrumented again when compiled again); a
 * ReJIT's body record is dropped, so that the compilations that come before the revert is made
 * are not reported again. */
static void add_rejected(struct manager *m, const struct jit_pending *p)
{
    if (p->is_rejit) {
        size_t i = find_rejit_body(m, p->module, p->token);
        if (i < atomic_load(&m->rejit_body_count))
            drop_rejit_body(m, i);
        return;
    }
    size_t count = atomic_load(&m->jit_rejected_count);
    if (!make_room(&m->jit_rejected, &m->jit_rejected_capacity, count, sizeof(p->function)))
        return;
    m->jit_rejected[count] = p->function;
    atomic_store_explicit(&m->jit_rejected_count, count + 1, memory_order_release);
}

/* The method's full name (clrie_pm__method_info_full_name) in buf, or `method 0x06...... of
 * module <name>` when the engine cannot read it (an invalid token, a module it does not know).
 * Read when a line needs it: most bodies are never rejected. */
static void method_name(struct manager *m, ModuleID module_id, mdMethodDef token, char *buf,
                        size_t size)
{
    IModuleInfo *module = NULL;
    struct method_info *mi = NULL;
    BSTR module_name = NULL;
    snprintf(buf, size, "method 0x%08X of module 0x%llx", (unsigned)token,
             (unsigned long long)module_id);
    if (!m->domains || FAILED(clrie_pm_domains_find_module(m->domains, module_id, &module)))
        return;
    if (SUCCEEDED(clrie_pm__method_info_by_token(m, module, token, &mi)) && mi) {
        snprintf(buf, size, "%s", clrie_pm__method_info_full_name(mi));
        clrie_pm__method_info_release(mi);
    } else if (SUCCEEDED(module->lpVtbl->GetModuleName(module, &module_name)) && module_name) {
        char *text = NULL;
        if (clrie_pm_utf16_to_utf8(module_name, clrie_pm_bstr_len(module_name), true, &text,
                                   NULL) == 0)
            snprintf(buf, size, "method 0x%08X of module %s", (unsigned)token, text);
        free(text);
    }
    clrie_pm_bstr_free(module_name);
    module->lpVtbl->Release(module);
}

struct revert {
    struct manager *m; /* one reference */
    ModuleID module;
    mdMethodDef token;
    char name[];
};

static void revert_thread(void *arg)
{
    struct revert *r = arg;
    struct manager *m = r->m;
    HRESULT status = S_OK;
    HRESULT hr = m->info->lpVtbl->RequestRevert(m->info, 1, &r->module, &r->token, &status);
    if (FAILED(hr) || FAILED(status))
        CLRIE_PM_LOG_ERROR(m->log,
                           "%s: the runtime did not revert the ReJIT its JIT rejected (hr 0x%08X, "
                           "status 0x%08X)",
                           r->name, (unsigned)hr, (unsigned)status);
    free(r);
    m->callback.lpVtbl->Release(&m->callback); /* the thread's reference */
}

/* Reverts the method `name` of a rejected ReJIT body, from a thread of its own: the exception
 * event that finds the rejection runs on a thread the runtime may not suspend from. */
static void revert(struct manager *m, const struct jit_pending *p, const char *name)
{
    if (m->info_version < 4)
        return;
    size_t len = strlen(name) + 1;
    struct revert *r = malloc(sizeof(*r) + len);
    if (!r)
        return;
    r->m = m;
    r->module = p->module;
    r->token = p->token;
    memcpy(r->name, name, len);
    m->callback.lpVtbl->AddRef(&m->callback);
    int rc = clrie_os_thread_start_detached(revert_thread, r);
    if (rc != 0) {
        CLRIE_PM_LOG_ERROR(m->log, "%s: no thread to revert the ReJIT its JIT rejected", r->name);
        free(r);
        m->callback.lpVtbl->Release(&m->callback);
    }
}

/* The error line for a body the JIT rejected, `why` in parentheses, and a ReJIT's revert; then
 * the entry is freed. */
static void report_rejected(struct manager *m, struct jit_pending *p, const char *why)
{
    char name[600];
    method_name(m, p->module, p->token, name, sizeof name);
    if (p->is_rejit)
        revert(m, p, name);
    struct clrie_pm_log_line line;
    clrie_pm_log_line_begin(&line, m->log, CLRIE_PM_LOG_ERRORS, NULL,
                            "%s: the runtime's JIT rejected the instrumented body (%s); changed "
                            "by ",
                            name, why);
    for (size_t i = 0; i < p->editor_count; i++)
        clrie_pm_log_line_append(&line, "%splugin '%s' %s", i ? ", " : "", p->editors[i]->name,
                                 p->editors[i]->guid_text);
    if (p->editor_count == 0)
        clrie_pm_log_line_append(&line, "no plugin's edit (the engine re-encoded it)");
    clrie_pm_log_line_append(&line, p->is_rejit
                                        ? "; the ReJIT is reverted: the method runs its original "
                                          "code"
                                        : "; compiled again, it gets its original IL");
    clrie_pm_log_line_end(&line);
    pending_free(p);
}

void clrie_pm__jit_rejected_finished(struct manager *m, FunctionID function, HRESULT status)
{
    /* Most methods compiled were never given a new body: one atomic load for them. */
    if (atomic_load_explicit(&m->jit_pending_count, memory_order_acquire) == 0)
        return;
    struct jit_pending *found = NULL;
    clrie_os_mutex_lock(&m->jit_pending_lock);
    size_t count = atomic_load(&m->jit_pending_count);
    for (size_t i = 0; i < count && !found; i++)
        if (m->jit_pending[i]->function == function)
            found = take_pending(m, i);
    if (found && FAILED(status))
        add_rejected(m, found);
    clrie_os_mutex_unlock(&m->jit_pending_lock);
    if (!found)
        return;
    if (FAILED(status)) {
        char why[32];
        snprintf(why, sizeof why, "hr 0x%08X", (unsigned)status);
        report_rejected(m, found, why);
    } else {
        pending_free(found);
    }
}

void clrie_pm__jit_rejected_exception_thrown(struct manager *m, ObjectID thrown)
{
    if (atomic_load_explicit(&m->jit_pending_count, memory_order_acquire) == 0)
        return;
    const void *thread = this_thread();
    clrie_os_mutex_lock(&m->jit_pending_lock);
    struct jit_pending *newest = NULL;
    size_t count = atomic_load(&m->jit_pending_count);
    for (size_t i = 0; i < count; i++) {
        struct jit_pending *p = m->jit_pending[i];
        if (p->thread == thread && (!newest || p->serial > newest->serial))
            newest = p;
    }
    if (newest) {
        newest->noted = true;
        if (FAILED(m->info->lpVtbl->GetClassFromObject(m->info, thrown, &newest->thrown)))
            newest->thrown = 0;
    }
    clrie_os_mutex_unlock(&m->jit_pending_lock);
}

void clrie_pm__jit_rejected_exception_left_jit(struct manager *m)
{
    if (atomic_load_explicit(&m->jit_pending_count, memory_order_acquire) == 0)
        return;
    const void *thread = this_thread();
    struct jit_pending *failed[8];
    size_t failed_count = 0;
    clrie_os_mutex_lock(&m->jit_pending_lock);
    for (size_t i = 0; i < atomic_load(&m->jit_pending_count) && failed_count < 8;) {
        struct jit_pending *p = m->jit_pending[i];
        if (p->thread == thread && p->noted) {
            failed[failed_count++] = take_pending(m, i);
            add_rejected(m, p);
        } else {
            i++;
        }
    }
    clrie_os_mutex_unlock(&m->jit_pending_lock);
    for (size_t i = 0; i < failed_count; i++) {
        char why[288];
        class_name(m, failed[i]->thrown, why, sizeof why);
        report_rejected(m, failed[i], why[0] ? why : "an exception");
    }
}

void clrie_pm__jit_rejected_free(struct manager *m)
{
    size_t count = atomic_load(&m->jit_pending_count);
    for (size_t i = 0; i < count; i++)
        pending_free(m->jit_pending[i]);
    free(m->jit_pending);
    free(m->jit_rejected);
    count = atomic_load(&m->rejit_body_count);
    for (size_t i = 0; i < count; i++)
        pending_free(m->rejit_bodies[i]);
    free(m->rejit_bodies);
}

void clrie_pm__jit_rejected_rejit_error(struct manager *m, ModuleID module, mdMethodDef token,
                                        HRESULT status)
{
    char name[600];
    clrie_pm__jit_rejected_forget_rejit(m, module, token);
    method_name(m, module, token, name, sizeof name);
    CLRIE_PM_LOG_ERROR(m->log,
                       "%s: the runtime could not rejit it (ReJITError, hr 0x%08X); it keeps the "
                       "code it had",
                       name, (unsigned)status);
}
