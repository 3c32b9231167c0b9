/* The instrumentation pipeline of one method, as CLRIE runs it (clrie-behaviour.md §4.4):
 * ShouldInstrumentMethod to every plugin, BeforeInstrumentMethod then InstrumentMethod to
 * those that said yes in priority order, then the engine encodes the graph, checks it, and
 * gives the runtime the new body and IL map; OnInstrumentationComplete follows.
 *
 * No lock is held: every piece of state lives in the method info of this callback, and the
 * shared tables it touches (the module's records, the plugin list) have their own. So methods
 * are instrumented concurrently on whatever threads the runtime jits them.
 *
 * Failure never reaches the application: a plugin that fails, IL that does not encode or does
 * not verify, or a runtime call that fails leaves the method as it was, with an error line
 * naming the method and the reason. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clrie/os/process.h"
#include "crash.h"
#include "hook_turn.h"
#include "il_dump.h"
#include "manager.h"
#include "method_info.h"
#include "utf16.h"
#include "verify_metadata.h"

/* Verifier complaints logged per method; the rest are counted. */
#define MAX_REPORTED_PROBLEMS 8

struct encoded {
    uint8_t *body;
    size_t len;
    COR_IL_MAP *map;
    size_t map_count;
    /* Every instruction where it was and no new one: the map says what the runtime assumes
     * when it has none (plugins that change operands in place, such as a call's target). */
    bool identity_map;
};

static void encoded_finish(struct encoded *e)
{
    free(e->body);
    free(e->map);
}

/* Where one method's time went. The whole is read from two clocks: the wall clock, and the
 * thread's CPU time (which leaves out the time the thread waited for a core, as it does on a
 * loaded machine). Its steps are read from the wall clock alone, which costs some 20 ns where
 * the thread's CPU clock is a system call. Nothing is read unless the log takes Messages,
 * where the times are written. */
enum pipeline_step {
    STEP_PLUGINS, /* ShouldInstrumentMethod, BeforeInstrumentMethod, InstrumentMethod */
    STEP_LOCALS,  /* the new locals signature's token (IMetaDataEmit::GetTokenFromSig) */
    STEP_VERIFY,  /* the verifier */
    STEP_BODY,    /* the runtime's allocator and SetILFunctionBody */
    STEP_MAP,     /* SetILInstrumentedCodeMap */
    PIPELINE_STEPS
};

static const char *const step_names[PIPELINE_STEPS] = {"plugins", "locals signature", "verify",
                                                       "body", "IL map"};

struct pipeline_clock {
    uint64_t wall_ns, cpu_ns; /* when the method's instrumentation started */
    double step_us[PIPELINE_STEPS];
    bool read;
};

static void clock_start(struct manager *m, struct pipeline_clock *c)
{
    *c = (struct pipeline_clock){.read = clrie_pm_log_enabled(m->log, CLRIE_PM_LOG_MESSAGES)};
    if (c->read) {
        c->wall_ns = clrie_os_monotonic_ns();
        c->cpu_ns = clrie_os_thread_cpu_ns();
    }
}

static double us_since(uint64_t now_ns, uint64_t start_ns)
{
    return (double)(now_ns - start_ns) / 1e3;
}

/* A step starts: the monotonic clock now, when the method's clock is read (c may be NULL). */
static uint64_t step_start(const struct pipeline_clock *c)
{
    return c && c->read ? clrie_os_monotonic_ns() : 0;
}

static void step_end(struct pipeline_clock *c, enum pipeline_step step, const uint64_t *t)
{
    if (c && c->read)
        c->step_us[step] += us_since(clrie_os_monotonic_ns(), *t);
}

/* ---- the plugins' part ------------------------------------------------------------------ */

/* The plugins that changed one method, in the order they ran. */
struct editors {
    struct plugin **items; /* malloc'd */
    size_t count;
    bool instrumented; /* some plugin wanted the method, and all of them ran without failing */
};

/* Once per plugin, however many of its steps changed the method. */
static bool listed(const struct editors *editors, const struct plugin *p)
{
    for (size_t k = 0; k < editors->count; k++)
        if (editors->items[k] == p)
            return true;
    return false;
}

/* Asks every plugin; runs Before/InstrumentMethod on those that said yes, noting in *editors who
 * changed the method. S_FALSE when none wanted the method; a failure when one of them failed
 * (logged: the method stays as it was). Either way the method's IL is closed to edits after. */
static HRESULT run_plugins(struct manager *m, struct method_info *mi, struct editors *editors)
{
    struct plugin_list *list = clrie_pm__manager_plugins(m);
    IMethodInfo *iface = method_info_iface(mi);
    BOOL rejit = mi->is_rejit ? TRUE : FALSE;
    bool chosen_small[32];
    bool *chosen = list->count <= 32 ? chosen_small : calloc(list->count, sizeof(bool));
    size_t chosen_count = 0;
    HRESULT hr = S_FALSE;
    if (!chosen) {
        hr = E_OUTOFMEMORY;
        goto out;
    }

    for (size_t i = 0; i < list->count; i++) {
        BOOL wants = FALSE;
        struct plugin *p = list->items[i];
        HRESULT asked;
        CLRIE_PM__IN_PLUGIN(
            p, "ShouldInstrumentMethod",
            asked = p->method->lpVtbl->ShouldInstrumentMethod(p->method, iface, rejit, &wants));
        if (FAILED(asked))
            CLRIE_PM_LOG_ERROR(m->log,
                               "plugin '%s' %s: ShouldInstrumentMethod failed for %s (hr "
                               "0x%08X); taken as no",
                               p->name, p->guid_text, clrie_pm__method_info_full_name(mi),
                               (unsigned)asked);
        chosen[i] = SUCCEEDED(asked) && wants;
        chosen_count += chosen[i];
    }
    if (chosen_count == 0)
        goto out;
    editors->items = malloc(chosen_count * sizeof(*editors->items));
    if (!editors->items) {
        hr = E_OUTOFMEMORY;
        goto out;
    }

    static const char *const steps[] = {"BeforeInstrumentMethod", "InstrumentMethod"};
    for (int step = 0; step < 2; step++) {
        for (size_t i = 0; i < list->count; i++) {
            if (!chosen[i])
                continue;
            struct plugin *p = list->items[i];
            unsigned long edits = clrie_pm__method_info_edits(mi);
            clrie_pm__method_info_allow_baseline(mi, step == 0);
            CLRIE_PM__IN_PLUGIN(
                p, steps[step],
                hr = step == 0 ? p->method->lpVtbl->BeforeInstrumentMethod(p->method, iface, rejit)
                               : p->method->lpVtbl->InstrumentMethod(p->method, iface, rejit));
            if (FAILED(hr)) {
                CLRIE_PM_LOG_ERROR(m->log,
                                   "plugin '%s' %s: %s failed for %s (hr 0x%08X); the method "
                                   "runs uninstrumented",
                                   p->name, p->guid_text, steps[step],
                                   clrie_pm__method_info_full_name(mi), (unsigned)hr);
                goto out;
            }
            if (clrie_pm__method_info_edits(mi) != edits && !listed(editors, p))
                editors->items[editors->count++] = p;
        }
    }
    editors->instrumented = true;
    hr = S_OK;
out:
    clrie_pm__method_info_allow_baseline(mi, false);
    clrie_pm__method_info_close(mi);
    if (chosen && chosen != chosen_small)
        free(chosen);
    return hr;
}

/* ---- encoding ------------------------------------------------------------------------------ */

struct problems {
    struct manager *m;
    struct method_info *mi;
    unsigned count;
};

static void report_problem(void *ctx, uint32_t offset, const char *message)
{
    struct problems *p = ctx;
    if (p->count++ < MAX_REPORTED_PROBLEMS)
        CLRIE_PM_LOG_ERROR(p->m->log, "%s: instrumented IL is invalid at IL_%04X: %s",
                           clrie_pm__method_info_full_name(p->mi), (unsigned)offset, message);
}

static bool is_sequence_point(const struct il_body_baseline *baseline, uint32_t offset)
{
    for (size_t i = 0; i < baseline->sequence_point_count; i++)
        if (baseline->sequence_points[i] == offset)
            return true;
    return false;
}

static bool is_identity(const COR_IL_MAP *map, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (map[i].oldOffset != map[i].newOffset)
            return false;
    return true;
}

/* Whether the encoded code is as long as the original. */
static bool same_code_size(struct method_info *mi, struct clrie_il_graph *g)
{
    struct clrie_il_header now;
    struct clrie_il_body_layout original;
    struct clrie_il_diag diag;
    clrie_il_graph_header(g, &now);
    return mi->original_body &&
           clrie_il_body_measure(mi->original_body, mi->original_size, &original, &diag) == 0 &&
           original.header.code_size == now.code_size;
}

/* The local-variable signature token the new body names. */
static HRESULT final_local_sig_token(struct method_info *mi, mdSignature *token)
{
    if (clrie_pm_types_locals_changed(mi->locals))
        return clrie_pm_types_locals_commit(mi->locals, token);
    *token = mi->local_sig_token; /* the header's, or the plugin's SetLocalVarSigToken */
    return S_OK;
}

/* Verifies the graph as the method it is: its signature, its final locals (locals_token) and
 * the module's metadata, so that IL the JIT would refuse never reaches it. */
static int verify(struct method_info *mi, struct clrie_il_graph *g, mdSignature locals_token,
                  struct problems *problems, uint32_t *max_stack)
{
    struct clrie_il_verify_context c = {
        .resolve = clrie_pm__method_info_stack_effect,
        .resolve_ctx = mi,
        .method_sig = mi->sig,
        .method_sig_len = mi->sig_len,
    };
    PCCOR_SIGNATURE sig = NULL;
    ULONG sig_len = 0;
    if (clrie_pm_types_locals_changed(mi->locals) || !mi->local_sig_token_set)
        clrie_pm_types_locals_signature(mi->locals, &c.local_sig, &c.local_sig_len);
    else if (locals_token && SUCCEEDED(mi->import->lpVtbl->GetSigFromToken(mi->import, locals_token,
                                                                           &sig, &sig_len)))
        c.local_sig = sig, c.local_sig_len = sig_len;
    else if (locals_token)
        c.method_sig = NULL; /* locals unknown: indices and types cannot be checked */
    struct verify_metadata vm;
    clrie_pm_verify_metadata_init(&vm, mi->import, clrie_pm_module_user_strings(mi->module),
                                  clrie_pm_module_verify_answers(mi->module));
    c.metadata = &vm.callbacks;
    int rc = clrie_il_graph_verify_in_max_stack(g, &c, report_problem, problems, max_stack);
    clrie_pm_verify_metadata_finish(&vm);
    return rc;
}

/* Turns the edited graph into a method body the runtime accepts, or says why not. */
static HRESULT encode(struct manager *m, struct method_info *mi, struct encoded *out,
                      struct pipeline_clock *clock)
{
    struct clrie_il_graph *g = clrie_pm_il_body_ilgraph(mi->body);
    struct clrie_il_diag diag = {0};
    uint32_t max_stack = 0;
    mdSignature locals = 0;

    uint64_t t = step_start(clock);
    HRESULT hr = final_local_sig_token(mi, &locals);
    step_end(clock, STEP_LOCALS, &t);
    if (FAILED(hr)) {
        CLRIE_PM_LOG_ERROR(m->log, "%s: cannot commit the new local variables (hr 0x%08X)",
                           clrie_pm__method_info_full_name(mi), (unsigned)hr);
        return hr;
    }
    /* The verifier's stack analysis also gives the max stack. */
    struct problems problems = {m, mi, 0};
    t = step_start(clock);
    int rc = verify(mi, g, locals, &problems, &max_stack);
    step_end(clock, STEP_VERIFY, &t);
    if (rc != 0) {
        if (problems.count > MAX_REPORTED_PROBLEMS)
            CLRIE_PM_LOG_ERROR(m->log, "%s: %u more problems", clrie_pm__method_info_full_name(mi),
                               problems.count - MAX_REPORTED_PROBLEMS);
        else if (problems.count == 0)
            CLRIE_PM_LOG_ERROR(m->log, "%s: the instrumented IL cannot be checked (%d)",
                               clrie_pm__method_info_full_name(mi), rc);
        return E_FAIL;
    }

    struct clrie_il_header header;
    clrie_il_graph_header(g, &header);
    if (header.fat || max_stack > 8 || locals) {
        /* A tiny body has no locals, so locals added to it must start zeroed. */
        uint16_t flags = header.fat ? header.flags : CLRIE_IL_HEADER_INIT_LOCALS;
        if (max_stack > UINT16_MAX) {
            CLRIE_PM_LOG_ERROR(m->log, "%s: the instrumented IL needs %u stack slots",
                               clrie_pm__method_info_full_name(mi), (unsigned)max_stack);
            return E_FAIL;
        }
        clrie_il_graph_set_fat_header(g, flags, (uint16_t)max_stack, locals);
    }
    /* The shortest encoding: every branch in its shortest form that reaches (branches a
     * plugin expanded stay long). */
    if (clrie_il_graph_encode(g, 0, &out->body, &out->len, &diag) != 0) {
        CLRIE_PM_LOG_ERROR(m->log, "%s: cannot encode the instrumented IL at IL_%04X: %s",
                           clrie_pm__method_info_full_name(mi), (unsigned)diag.offset,
                           diag.message);
        return E_FAIL;
    }

    struct clrie_il_map_entry *entries = NULL;
    size_t count = 0;
    if (clrie_il_graph_il_map(g, &entries, &count) != 0 ||
        (count && !(out->map = malloc(count * sizeof(*out->map))))) {
        free(entries);
        return E_OUTOFMEMORY;
    }
    /* After CreateBaseline the map starts as the identity over the plugin's sequence points
     * (baseline offsets), as CLRIE composes it: entries for other offsets are dropped. A
     * baseline without sequence points keeps the whole map, as CLRIE 18.11 does (conformance
     * case baseline-with-il-map). */
    struct il_body_baseline baseline;
    bool replaced =
        clrie_pm_il_body_baseline(mi->body, &baseline) && baseline.sequence_point_count > 0;
    size_t kept = 0;
    for (size_t i = 0; i < count; i++) {
        if (replaced && !is_sequence_point(&baseline, entries[i].old_offset))
            continue;
        out->map[kept++] = (COR_IL_MAP){entries[i].old_offset, entries[i].new_offset, TRUE};
    }
    out->map_count = kept;
    free(entries);
    /* Every instruction an original one (new code has no entry of its own), each where it
     * was, in code as long as before. */
    out->identity_map = !replaced && kept == clrie_il_graph_count(g) &&
                        is_identity(out->map, kept) && same_code_size(mi, g);

    if (clrie_pm_log_enabled(m->log, CLRIE_PM_LOG_DUMPS)) {
        const uint8_t *sig = NULL;
        size_t sig_len = 0;
        clrie_pm_types_locals_signature(mi->locals, &sig, &sig_len);
        clrie_pm__il_dump_method(m->log, mi, g, out->body, out->len, sig, sig_len, out->map,
                                 out->map_count);
    }
    return S_OK;
}

/* Runs the plugins and, if they changed the method, encodes it. S_FALSE: nothing to apply. */
static HRESULT instrument(struct manager *m, struct method_info *mi, struct editors *editors,
                          struct encoded *out, struct pipeline_clock *clock)
{
    uint64_t t = step_start(clock);
    HRESULT hr = run_plugins(m, mi, editors);
    step_end(clock, STEP_PLUGINS, &t);
    if (hr != S_OK)
        return hr;
    bool changed =
        mi->body && (clrie_pm_il_body_changed(mi->body) ||
                     clrie_pm_types_locals_changed(mi->locals) || mi->local_sig_token_set);
    return changed ? encode(m, mi, out, clock) : S_FALSE;
}

static void complete(struct manager *m, struct method_info *mi)
{
    struct plugin_list *list = clrie_pm__manager_plugins(m);
    for (size_t i = 0; i < list->count; i++) {
        IInstrumentationMethod *method = list->items[i]->method;
        CLRIE_PM__IN_PLUGIN(list->items[i], "OnInstrumentationComplete",
                            method->lpVtbl->OnInstrumentationComplete(method, method_info_iface(mi),
                                                                      mi->is_rejit ? TRUE : FALSE));
    }
}

/* The method's time, whole and by step (what the steps leave is method info, max stack,
 * encoding, the IL map and OnInstrumentationComplete). */
static void log_timing(struct manager *m, struct method_info *mi,
                       const struct pipeline_clock *clock)
{
    if (!clock->read || !clrie_pm_log_enabled(m->log, CLRIE_PM_LOG_MESSAGES))
        return;
    /* Read before the name, which is the line's and not the method's time. */
    double wall = us_since(clrie_os_monotonic_ns(), clock->wall_ns);
    double cpu = us_since(clrie_os_thread_cpu_ns(), clock->cpu_ns);
    char steps[160];
    size_t used = 0;
    for (int k = 0; k < PIPELINE_STEPS; k++) {
        int n = snprintf(steps + used, sizeof(steps) - used, "%s%s %.1f", k ? ", " : "",
                         step_names[k], clock->step_us[k]);
        if (n < 0 || (size_t)n >= sizeof(steps) - used)
            break;
        used += (size_t)n;
    }
    clrie_pm_log_write(m->log, CLRIE_PM_LOG_MESSAGES, NULL,
                       "instrumented %s in %.1f us (thread CPU %.1f us; %s us)",
                       clrie_pm__method_info_full_name(mi), wall, cpu, steps);
}

/* Gives the runtime an encoded body: through ICorProfilerInfo at a first JIT, through the
 * function control at a ReJIT. */
typedef HRESULT (*apply_fn)(struct manager *m, struct method_info *mi, struct encoded *e, void *ctx,
                            struct pipeline_clock *clock);

/* The raw hook's turn on this method, if one is open (hook_turn.h). */
static struct hook_turn *hook_turn_of(struct manager *m, struct method_info *mi)
{
    return clrie_pm__hook_turn_on(m, mi->module_id, mi->token);
}

/* The hook went first: its body is the method's IL for the plugins. */
static void start_from_hook(struct hook_turn *turn, struct method_info *mi)
{
    if (turn && turn->body) {
        mi->original_body = turn->body;
        mi->original_size = (ULONG)turn->body_len;
    }
}

/* The runtime gets one map from the original offsets: the hook's composed with the plugins'. */
static HRESULT compose_with_hook(struct manager *m, struct hook_turn *turn, struct method_info *mi,
                                 struct encoded *e)
{
    if (!turn)
        return S_OK;
    const char *name = clrie_pm__method_info_full_name(mi);
    /* Code-gen flags only turn things off (inlining, optimisations): the runtime gets what both
     * asked to turn off, and a difference is said, since one side's code then runs with less
     * than it expected. */
    if (mi->is_rejit && turn->codegen_flags) {
        if (mi->codegen_flags && mi->codegen_flags != turn->codegen_flags)
            CLRIE_PM_LOG_ERROR(m->log,
                               "%s: the raw profiler hook's code-gen flags 0x%08X and the "
                               "plugins' 0x%08X differ; the runtime gets both (0x%08X)",
                               name, (unsigned)turn->codegen_flags, (unsigned)mi->codegen_flags,
                               (unsigned)(turn->codegen_flags | mi->codegen_flags));
        mi->codegen_flags |= turn->codegen_flags;
    }
    if (!turn->body)
        return S_OK;
    COR_IL_MAP *merged = NULL;
    size_t count = 0;
    HRESULT hr = clrie_pm__hook_turn_map_for(turn, name, e->map, e->map_count, &merged, &count);
    if (merged) {
        free(e->map);
        e->map = merged;
        e->map_count = count;
        e->identity_map = false; /* the hook's body came first: the runtime needs the whole map */
    }
    return hr;
}

/* The whole pipeline for one method, from the plugins to OnInstrumentationComplete. */
static void run(struct manager *m, struct method_info *mi, apply_fn apply, void *ctx,
                struct pipeline_clock *clock)
{
    struct encoded e = {0};
    struct editors editors = {0};
    struct hook_turn *turn = hook_turn_of(m, mi);
    start_from_hook(turn, mi);
    HRESULT hr = instrument(m, mi, &editors, &e, clock);
    bool changed = hr == S_OK;
    if (changed) {
        hr = compose_with_hook(m, turn, mi, &e);
        if (SUCCEEDED(hr))
            hr = apply(m, mi, &e, ctx, clock);
        if (SUCCEEDED(hr) && turn)
            turn->applied = true;
        if (SUCCEEDED(hr))
            clrie_pm__jit_rejected_remember(m, mi->function_id, mi->module_id, mi->token,
                                            mi->is_rejit, editors.items, editors.count);
        else if (mi->is_rejit)
            clrie_pm__jit_rejected_forget_rejit(m, mi->module_id, mi->token);
        if (FAILED(hr))
            CLRIE_PM_LOG_ERROR(m->log,
                               "%s: the runtime refused the instrumented body (hr 0x%08X); the "
                               "method runs uninstrumented",
                               clrie_pm__method_info_full_name(mi), (unsigned)hr);
        clrie_pm_module_record_il_map(mi->module, mi->token, SUCCEEDED(hr), e.map, e.map_count);
        complete(m, mi);
        if (SUCCEEDED(hr))
            log_timing(m, mi, clock);
    } else if (mi->body || mi->is_rejit) {
        /* A ReJIT nobody instruments runs the original IL: what an earlier compilation
         * recorded no longer describes the code. */
        clrie_pm_module_record_il_map(mi->module, mi->token, false, NULL, 0);
    }
    if (!changed && mi->is_rejit)
        clrie_pm__jit_rejected_forget_rejit(m, mi->module_id, mi->token);
    /* Instrumented without a change, or with IL the engine refused: the runtime keeps the
     * original body, but the plugins hear of it as under CLRIE, which gives the runtime every
     * method a plugin wanted, re-encoded, unchecked. */
    if (!changed && editors.instrumented)
        complete(m, mi);
    free(editors.items);
    encoded_finish(&e);
}

/* ---- JIT ----------------------------------------------------------------------------------- */

/* Whether an earlier compilation of the method gave the runtime a map, which a new one must
 * then replace. */
static bool mapped_before(struct method_info *mi)
{
    ULONG32 needed = 0;
    BOOL transformed = FALSE;
    return clrie_pm_module_il_map(mi->module, mi->token, 0, NULL, &needed, &transformed) == S_OK &&
           transformed && needed > 0;
}

/* Gives the runtime the new body, in memory from its allocator for this module, and its IL map
 * unless the map is the identity (SetILInstrumentedCodeMap costs more the more methods the
 * runtime holds maps for: the debugger's table of methods has a fixed number of buckets). */
static HRESULT apply_jit(struct manager *m, struct method_info *mi, struct encoded *e, void *ctx,
                         struct pipeline_clock *clock)
{
    uint64_t t = step_start(clock);
    IMethodMalloc *allocator = NULL;
    HRESULT hr = m->info->lpVtbl->GetILFunctionBodyAllocator(m->info, mi->module_id, &allocator);
    if (FAILED(hr))
        return hr;
    void *body = allocator->lpVtbl->Alloc(allocator, (ULONG)e->len);
    allocator->lpVtbl->Release(allocator);
    if (!body)
        return E_OUTOFMEMORY;
    memcpy(body, e->body, e->len);
    hr = m->info->lpVtbl->SetILFunctionBody(m->info, mi->module_id, mi->token, body);
    step_end(clock, STEP_BODY, &t);
    if (FAILED(hr) || !e->map_count || (e->identity_map && !mapped_before(mi)))
        return hr;
    t = step_start(clock);
    hr = m->info->lpVtbl->SetILInstrumentedCodeMap(m->info, mi->function_id, TRUE,
                                                   (ULONG)e->map_count, e->map);
    step_end(clock, STEP_MAP, &t);
    return hr;
}

/* A method compiled again after the JIT rejected its instrumented body: the runtime still holds
 * that body, so the engine gives it the original IL back, and no plugin sees the method. */
static HRESULT restore_original(struct manager *m, struct method_info *mi)
{
    const char *name = clrie_pm__method_info_full_name(mi);
    struct encoded original = {0};
    HRESULT hr = E_OUTOFMEMORY;
    if (mi->original_body && (original.body = malloc(mi->original_size))) {
        memcpy(original.body, mi->original_body, mi->original_size);
        original.len = mi->original_size;
        hr = apply_jit(m, mi, &original, NULL, NULL);
    }
    encoded_finish(&original);
    if (SUCCEEDED(hr)) {
        /* The map of the rejected body describes no code now. */
        m->info->lpVtbl->SetILInstrumentedCodeMap(m->info, mi->function_id, TRUE, 0, NULL);
        clrie_pm_module_record_il_map(mi->module, mi->token, false, NULL, 0);
        CLRIE_PM_LOG_MESSAGE(m->log,
                             "%s: compiled again after the JIT rejected its instrumented body; "
                             "it gets its original IL",
                             name);
    } else {
        CLRIE_PM_LOG_ERROR(m->log,
                           "%s: compiled again after the JIT rejected its instrumented body, "
                           "but the original IL cannot be given back (hr 0x%08X)",
                           name, (unsigned)hr);
    }
    return hr;
}

void clrie_pm__jit_pipeline_jit(struct manager *m, FunctionID function)
{
    struct pipeline_clock clock;
    clock_start(m, &clock);
    if (clrie_pm__manager_plugins(m)->count == 0)
        return; /* no plugin: nothing to count or do */
    struct method_info *mi = NULL;
    /* No method info when the method has no IL the engine can see. */
    if (clrie_pm__manager_plugins_enter(m)->count > 0 &&
        clrie_pm__method_info_for_jit(m, function, &mi) == S_OK) {
        if (clrie_pm__jit_rejected_before(m, function)) {
            struct hook_turn *turn = hook_turn_of(m, mi);
            start_from_hook(turn, mi); /* the hook's body is the original the plugins saw */
            if (SUCCEEDED(restore_original(m, mi)) && turn)
                turn->applied = true;
        } else
            run(m, mi, apply_jit, NULL, &clock);
        clrie_pm__method_info_release(mi);
    }
    clrie_pm__manager_plugins_leave(m);
}

/* ---- ReJIT --------------------------------------------------------------------------------- */

/* A map entry CLRIE appends after a ReJIT so that debuggers can tell which version of the
 * method they see: oldOffset 0xFEEFEE, newOffset = the ReJIT count. */
#define REJIT_MAP_MARKER 0xFEEFEEu

static HRESULT apply_rejit(struct manager *m, struct method_info *mi, struct encoded *e, void *ctx,
                           struct pipeline_clock *clock)
{
    ICorProfilerFunctionControl *control = ctx;
    uint64_t t = step_start(clock);
    HRESULT hr = control->lpVtbl->SetILFunctionBody(control, (ULONG)e->len, e->body);
    step_end(clock, STEP_BODY, &t);
    if (FAILED(hr))
        return hr;
    if (mi->codegen_flags) {
        hr = control->lpVtbl->SetCodegenFlags(control, mi->codegen_flags);
        if (FAILED(hr))
            return hr;
    }
    COR_IL_MAP *map = realloc(e->map, (e->map_count + 1) * sizeof(*map));
    if (!map)
        return E_OUTOFMEMORY;
    e->map = map;
    map[e->map_count] = (COR_IL_MAP){REJIT_MAP_MARKER, mi->rejit_count, TRUE};
    t = step_start(clock);
    hr = control->lpVtbl->SetILInstrumentedCodeMap(control, (ULONG)e->map_count + 1, map);
    step_end(clock, STEP_MAP, &t);
    return hr;
}

HRESULT clrie_pm__jit_pipeline_rejit(struct manager *m, ModuleID module, mdMethodDef token,
                                     ICorProfilerFunctionControl *control)
{
    struct pipeline_clock clock;
    clock_start(m, &clock);
    struct method_info *mi = NULL;
    HRESULT hr = clrie_pm__method_info_for_rejit(m, module, token, &mi);
    if (hr == S_FALSE) {
        CLRIE_PM_LOG_ERROR(m->log,
                           "ReJIT of method 0x%08X in module 0x%llx: the engine does not know "
                           "that module or the method has no IL; it runs uninstrumented",
                           (unsigned)token, (unsigned long long)module);
        return S_OK;
    }
    if (hr != S_OK) {
        CLRIE_PM_LOG_ERROR(m->log,
                           "ReJIT of method 0x%08X in module 0x%llx: the engine cannot "
                           "read its IL (hr 0x%08X); it runs uninstrumented",
                           (unsigned)token, (unsigned long long)module, (unsigned)hr);
        return S_OK;
    }
    clrie_pm__manager_plugins_enter(m);
    run(m, mi, apply_rejit, control, &clock);
    clrie_pm__manager_plugins_leave(m);
    clrie_pm__method_info_release(mi);
    return S_OK;
}
