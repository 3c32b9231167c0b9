/* The raw hook's turn on a method, before the plugins' (hook_turn.h). */
#include "hook_turn.h"

#include <stdlib.h>
#include <string.h>

#include "clrie/ilgraph.h"
#include "domains.h"
#include "manager.h"
#include "method_info.h"

/* The mark CLRIE puts in a ReJIT's IL map (old offset 0xFEEFEE, new offset the ReJIT count):
 * no offset, so it is never looked up. */
#define REJIT_MAP_MARKER 0xFEEFEEu

static _Thread_local struct hook_turn *current;
static const struct ICorProfilerFunctionControlVtbl control_vtbl;

void clrie_pm__hook_turn_begin(struct hook_turn *turn, struct manager *m, ModuleID module,
                               mdMethodDef token, FunctionID function,
                               ICorProfilerFunctionControl *control)
{
    memset(turn, 0, sizeof(*turn));
    turn->control.lpVtbl = &control_vtbl;
    turn->m = m;
    turn->function = function;
    turn->runtime = control;
    if (function) {
        ClassID cls = 0;
        if (FAILED(m->info->lpVtbl->GetFunctionInfo(m->info, function, &cls, &module, &token)))
            module = 0, token = 0;
    }
    turn->module = module;
    turn->token = token;
    IModuleInfo *info = NULL;
    if (module && m->domains &&
        SUCCEEDED(clrie_pm_domains_find_module(m->domains, module, &info))) {
        LPCBYTE original = NULL;
        ULONG size = 0;
        if (SUCCEEDED(clrie_pm_module_original_il(info, token, &original, &size))) {
            turn->original = original;
            turn->original_len = size;
        }
        info->lpVtbl->Release(info);
    }
    turn->outer = current;
    current = turn;
}

struct hook_turn *clrie_pm__hook_turn_current(struct manager *m)
{
    struct hook_turn *turn = current;
    return turn && turn->m == m ? turn : NULL;
}

struct hook_turn *clrie_pm__hook_turn_on(struct manager *m, ModuleID module, mdMethodDef token)
{
    struct hook_turn *turn = clrie_pm__hook_turn_current(m);
    return turn && module && turn->module == module && turn->token == token ? turn : NULL;
}

/* Keeps a copy of the body the hook set (len 0: measured from its header). */
static HRESULT keep_body(struct hook_turn *turn, const uint8_t *body, size_t len)
{
    if (!body)
        return E_POINTER;
    if (!len) {
        struct clrie_il_body_layout layout;
        if (clrie_il_body_measure(body, SIZE_MAX / 2, &layout, NULL) != 0)
            return E_INVALIDARG;
        len = layout.len;
    }
    uint8_t *copy = malloc(len);
    if (!copy)
        return E_OUTOFMEMORY;
    memcpy(copy, body, len);
    free(turn->body);
    turn->body = copy;
    turn->body_len = len;
    return S_OK;
}

static HRESULT keep_map(struct hook_turn *turn, ULONG count, const COR_IL_MAP map[])
{
    if (count && !map)
        return E_POINTER;
    COR_IL_MAP *copy = malloc((count ? count : 1) * sizeof(*copy));
    if (!copy)
        return E_OUTOFMEMORY;
    if (count)
        memcpy(copy, map, count * sizeof(*copy));
    free(turn->map);
    turn->map = copy;
    turn->map_count = count;
    turn->mapped = true;
    return S_OK;
}

HRESULT clrie_pm__hook_turn_map_for(struct hook_turn *turn, const char *name,
                                    const COR_IL_MAP *plugins, size_t plugins_count,
                                    COR_IL_MAP **out, size_t *out_count)
{
    *out = NULL;
    *out_count = plugins_count;
    if (!turn || !turn->body)
        return S_OK;
    if (!turn->mapped) {
        CLRIE_PM_LOG_ERROR(turn->m->log,
                           "%s: the raw profiler hook changed the body without an IL map; the "
                           "debugger takes offsets of its body for the original's",
                           name);
        return S_OK;
    }
    return clrie_pm__il_map_compose(turn->map, turn->map_count, plugins, plugins_count, out,
                                    out_count)
               ? S_OK
               : E_OUTOFMEMORY;
}

/* Gives the runtime the hook's body and map, the plugins having given it nothing. */
static HRESULT apply_hook_body(struct hook_turn *turn)
{
    struct manager *m = turn->m;
    HRESULT hr;
    if (turn->runtime) {
        hr = turn->runtime->lpVtbl->SetILFunctionBody(turn->runtime, (ULONG)turn->body_len,
                                                      turn->body);
        if (SUCCEEDED(hr) && turn->mapped)
            hr = turn->runtime->lpVtbl->SetILInstrumentedCodeMap(turn->runtime,
                                                                 (ULONG)turn->map_count, turn->map);
        return hr;
    }
    IMethodMalloc *allocator = NULL;
    hr = m->info->lpVtbl->GetILFunctionBodyAllocator(m->info, turn->module, &allocator);
    if (FAILED(hr))
        return hr;
    void *memory = allocator->lpVtbl->Alloc(allocator, (ULONG)turn->body_len);
    allocator->lpVtbl->Release(allocator);
    if (!memory)
        return E_OUTOFMEMORY;
    memcpy(memory, turn->body, turn->body_len);
    hr = m->info->lpVtbl->SetILFunctionBody(m->info, turn->module, turn->token, memory);
    if (SUCCEEDED(hr) && turn->mapped)
        hr = m->info->lpVtbl->SetILInstrumentedCodeMap(m->info, turn->function, TRUE,
                                                       (ULONG)turn->map_count, turn->map);
    return hr;
}

void clrie_pm__hook_turn_end(struct hook_turn *turn)
{
    if (turn->body && !turn->applied) {
        HRESULT hr = apply_hook_body(turn);
        if (FAILED(hr))
            CLRIE_PM_LOG_ERROR(turn->m->log,
                               "method 0x%08X of module 0x%llx: the runtime refused the raw "
                               "profiler hook's body (hr 0x%08X)",
                               (unsigned)turn->token, (unsigned long long)turn->module,
                               (unsigned)hr);
    }
    current = turn->outer;
    free(turn->body);
    free(turn->map);
}

/* ---- who takes part in a method's ReJITs ------------------------------------------------ */

/* The parties that are loaded at all. */
static unsigned loaded_parties(struct manager *m)
{
    unsigned parties = 0;
    if (clrie_pm__manager_plugins(m)->count > 0)
        parties |= CLRIE_PM_REJIT_PLUGINS;
    if (atomic_load(&m->raw_hook))
        parties |= CLRIE_PM_REJIT_HOOK;
    return parties;
}

/* Records the party in or out of one method; the parties taking part after that. */
static unsigned set_party(struct manager *m, ModuleID module_id, mdMethodDef method, unsigned party,
                          bool in)
{
    IModuleInfo *module = NULL;
    if (!m->domains || FAILED(clrie_pm_domains_find_module(m->domains, module_id, &module)))
        return in ? CLRIE_PM_REJIT_ALL : CLRIE_PM_REJIT_ALL & ~party;
    unsigned parties = clrie_pm_module_set_rejit_party(module, method, party, in);
    module->lpVtbl->Release(module);
    return parties;
}

unsigned clrie_pm__rejit_parties(struct manager *m, ModuleID module_id, mdMethodDef method)
{
    IModuleInfo *module = NULL;
    if (!m->domains || FAILED(clrie_pm_domains_find_module(m->domains, module_id, &module)))
        return CLRIE_PM_REJIT_ALL;
    unsigned parties = clrie_pm_module_rejit_parties(module, method);
    module->lpVtbl->Release(module);
    return parties;
}

static ICorProfilerInfo10 *runtime_info(struct manager *m, int version)
{
    return m->info && m->info_version >= version ? (ICorProfilerInfo10 *)(void *)m->info : NULL;
}

HRESULT clrie_pm__rejit_request(struct manager *m, unsigned party, bool with_inliners, DWORD flags,
                                ULONG count, ModuleID modules[], mdMethodDef methods[])
{
    ICorProfilerInfo10 *info = runtime_info(m, with_inliners ? 10 : 4);
    if (!info)
        return E_NOTIMPL;
    for (ULONG i = 0; modules && methods && i < count; i++)
        set_party(m, modules[i], methods[i], party, true);
    return with_inliners
               ? info->lpVtbl->RequestReJITWithInliners(info, flags, count, modules, methods)
               : info->lpVtbl->RequestReJIT(info, count, modules, methods);
}

HRESULT clrie_pm__rejit_revert(struct manager *m, unsigned party, ULONG count, ModuleID modules[],
                               mdMethodDef methods[], HRESULT status[])
{
    ICorProfilerInfo10 *info = runtime_info(m, 4);
    if (!info)
        return E_NOTIMPL;
    if (!modules || !methods)
        return info->lpVtbl->RequestRevert(info, count, modules, methods, status);
    ModuleID *keep_modules = malloc((count ? count : 1) * 2 * sizeof(ModuleID));
    mdMethodDef *keep_methods = malloc((count ? count : 1) * 2 * sizeof(mdMethodDef));
    HRESULT *revert_status = malloc((count ? count : 1) * sizeof(HRESULT));
    if (!keep_modules || !keep_methods || !revert_status) {
        free(keep_modules);
        free(keep_methods);
        free(revert_status);
        return E_OUTOFMEMORY;
    }
    /* The first half of each array: methods rejitted for the other party; the second: those
     * reverted. */
    ModuleID *revert_modules = keep_modules + count;
    mdMethodDef *revert_methods = keep_methods + count;
    ULONG kept = 0, reverted = 0;
    unsigned others = loaded_parties(m) & ~party;
    for (ULONG i = 0; i < count; i++) {
        unsigned parties = set_party(m, modules[i], methods[i], party, false);
        if (parties & others) {
            keep_modules[kept] = modules[i];
            keep_methods[kept++] = methods[i];
        } else {
            revert_modules[reverted] = modules[i];
            revert_methods[reverted++] = methods[i];
        }
    }
    HRESULT hr = S_OK, kept_hr = S_OK;
    if (kept) {
        kept_hr = info->lpVtbl->RequestReJIT(info, kept, keep_modules, keep_methods);
        CLRIE_PM_LOG_MESSAGE(
            m->log,
            "%u method(s) reverted by the %s are rejitted for the %s, who still "
            "instrument them (hr 0x%08X)",
            (unsigned)kept, party == CLRIE_PM_REJIT_HOOK ? "raw profiler hook" : "plugins",
            party == CLRIE_PM_REJIT_HOOK ? "plugins" : "raw profiler hook", (unsigned)kept_hr);
    }
    if (reverted)
        hr = info->lpVtbl->RequestRevert(info, reverted, revert_modules, revert_methods,
                                         revert_status);
    /* Statuses in the caller's order. */
    for (ULONG i = 0, k = 0, r = 0; status && i < count; i++) {
        if (k < kept && keep_modules[k] == modules[i] && keep_methods[k] == methods[i]) {
            status[i] = kept_hr;
            k++;
        } else {
            status[i] = r < reverted ? revert_status[r++] : E_FAIL;
        }
    }
    free(keep_modules);
    free(keep_methods);
    free(revert_status);
    return FAILED(hr) ? hr : kept_hr;
}

/* ---- IL maps ----------------------------------------------------------------------------- */

/* Where map takes offset: forward by old offsets, or back by new offsets; false when no entry
 * lies at or below it. */
static bool map_through(const COR_IL_MAP *map, size_t count, ULONG32 offset, bool back,
                        ULONG32 *out)
{
    const COR_IL_MAP *best = NULL;
    for (size_t i = 0; i < count; i++) {
        ULONG32 from = back ? map[i].newOffset : map[i].oldOffset;
        if (map[i].oldOffset == REJIT_MAP_MARKER || from > offset)
            continue;
        if (!best || from > (back ? best->newOffset : best->oldOffset))
            best = &map[i];
    }
    if (!best)
        return false;
    *out = back ? best->oldOffset + (offset - best->newOffset)
                : best->newOffset + (offset - best->oldOffset);
    return true;
}

static int by_old_offset(const void *a, const void *b)
{
    const COR_IL_MAP *x = a, *y = b;
    return x->oldOffset < y->oldOffset ? -1 : x->oldOffset > y->oldOffset;
}

bool clrie_pm__il_map_compose(const COR_IL_MAP *first, size_t first_count, const COR_IL_MAP *second,
                              size_t second_count, COR_IL_MAP **out, size_t *count)
{
    COR_IL_MAP *all = malloc((first_count + second_count + 1) * sizeof(*all));
    if (!all)
        return false;
    size_t n = 0, marks = 0;
    COR_IL_MAP mark[1];
    for (size_t i = 0; i < first_count; i++) {
        if (first[i].oldOffset == REJIT_MAP_MARKER)
            continue;
        ULONG32 final = first[i].newOffset;
        map_through(second, second_count, first[i].newOffset, false, &final);
        all[n++] = (COR_IL_MAP){first[i].oldOffset, final, TRUE};
    }
    for (size_t i = 0; i < second_count; i++) {
        ULONG32 original;
        if (second[i].oldOffset == REJIT_MAP_MARKER) {
            if (!marks)
                mark[marks++] = second[i];
        } else if (map_through(first, first_count, second[i].oldOffset, true, &original)) {
            all[n++] = (COR_IL_MAP){original, second[i].newOffset, TRUE};
        }
    }
    qsort(all, n, sizeof(*all), by_old_offset);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (kept == 0 || all[i].oldOffset != all[kept - 1].oldOffset)
            all[kept++] = all[i];
    if (marks)
        all[kept++] = mark[0];
    *out = all;
    *count = kept;
    return true;
}

/* ---- the hook's ICorProfilerInfo ------------------------------------------------------------ */

HRESULT clrie_pm__hook_get_il_function_body(ICorProfilerInfo15 *runtime, ModuleID module,
                                            mdMethodDef token, LPCBYTE *header, ULONG *size,
                                            struct manager *m)
{
    struct hook_turn *turn = clrie_pm__hook_turn_on(m, module, token);
    if (!turn || !turn->original)
        return runtime->lpVtbl->GetILFunctionBody(runtime, module, token, header, size);
    if (!header)
        return E_POINTER;
    *header = turn->original;
    if (size)
        *size = (ULONG)turn->original_len;
    return S_OK;
}

/* A body or an IL map the hook gives the runtime itself, outside its turn on the method (in
 * another callback, or through ICorProfilerInfo during a ReJIT, where the body of the ReJIT
 * comes from the function control): the runtime takes it in place of what the engine gave it
 * for the plugins, the body the next time it compiles the method's first version (a tier-up,
 * after a revert), the map at once. Said when the plugins' last instrumentation changed the
 * method: an error for a body (code is lost), a message for a map (only the debugger's offsets
 * are; Microsoft's CLRIE as the hook sets its map so around a ReJIT). */
static void log_over_plugins(struct manager *m, ModuleID module_id, mdMethodDef token,
                             enum clrie_pm_log_kind kind, const char *what, const char *effect)
{
    IModuleInfo *module = NULL;
    if (!m->domains || FAILED(clrie_pm_domains_find_module(m->domains, module_id, &module)))
        return;
    ULONG32 count = 0;
    BOOL transformed = FALSE;
    if (clrie_pm_module_il_map(module, token, 0, NULL, &count, &transformed) == S_OK &&
        transformed && clrie_pm_log_enabled(m->log, kind)) {
        struct method_info *mi = NULL;
        bool named = SUCCEEDED(clrie_pm__method_info_by_token(m, module, token, &mi)) && mi;
        clrie_pm_log_write(m->log, kind, NULL,
                           "%s: the raw profiler hook set %s outside the engine's turn for the "
                           "method; %s",
                           named ? clrie_pm__method_info_full_name(mi) : "?", what, effect);
        if (mi)
            clrie_pm__method_info_release(mi);
    }
    module->lpVtbl->Release(module);
}

HRESULT clrie_pm__hook_set_il_function_body(ICorProfilerInfo15 *runtime, ModuleID module,
                                            mdMethodDef token, LPCBYTE header, struct manager *m)
{
    struct hook_turn *turn = clrie_pm__hook_turn_on(m, module, token);
    if (turn && !turn->runtime)
        return keep_body(turn, header, 0);
    HRESULT hr = runtime->lpVtbl->SetILFunctionBody(runtime, module, token, header);
    if (SUCCEEDED(hr))
        log_over_plugins(m, module, token, CLRIE_PM_LOG_ERRORS,
                         "a body through ICorProfilerInfo::SetILFunctionBody",
                         "the runtime compiles the method from it the next time, without the "
                         "plugins' edits");
    return hr;
}

HRESULT clrie_pm__hook_set_il_map(ICorProfilerInfo15 *runtime, FunctionID function, BOOL start,
                                  ULONG count, COR_IL_MAP map[], struct manager *m)
{
    struct hook_turn *turn = clrie_pm__hook_turn_current(m);
    if (turn && turn->function && turn->function == function)
        return keep_map(turn, count, map);
    HRESULT hr = runtime->lpVtbl->SetILInstrumentedCodeMap(runtime, function, start, count, map);
    ClassID cls = 0;
    ModuleID module = 0;
    mdMethodDef token = 0;
    if (SUCCEEDED(hr) &&
        SUCCEEDED(m->info->lpVtbl->GetFunctionInfo(m->info, function, &cls, &module, &token)))
        log_over_plugins(m, module, token, CLRIE_PM_LOG_MESSAGES,
                         "an IL map through ICorProfilerInfo::SetILInstrumentedCodeMap",
                         "it replaces the map the engine composed for the plugins' edits");
    return hr;
}

/* ---- the hook's function control at a ReJIT --------------------------------------------- */

static struct hook_turn *turn_of(ICorProfilerFunctionControl *This)
{
    return CLRIE_CONTAINER_OF(This, struct hook_turn, control);
}

/* It lives as long as the turn, like the runtime's own, which is valid only during the
 * callback: references are not counted. */
static HRESULT STDMETHODCALLTYPE control_QueryInterface(ICorProfilerFunctionControl *This,
                                                        REFIID riid, void **out)
{
    if (!out)
        return E_POINTER;
    *out = NULL;
    if (!riid)
        return E_POINTER;
    if (!IsEqualIID(riid, &IID_IUnknown) && !IsEqualIID(riid, &IID_ICorProfilerFunctionControl))
        return E_NOINTERFACE;
    *out = This;
    return S_OK;
}

static ULONG STDMETHODCALLTYPE control_AddRef(ICorProfilerFunctionControl *This)
{
    return 1;
}

static ULONG STDMETHODCALLTYPE control_Release(ICorProfilerFunctionControl *This)
{
    return 1;
}

static HRESULT STDMETHODCALLTYPE control_SetCodegenFlags(ICorProfilerFunctionControl *This,
                                                         DWORD flags)
{
    struct hook_turn *turn = turn_of(This);
    turn->codegen_flags = flags;
    return turn->runtime->lpVtbl->SetCodegenFlags(turn->runtime, flags);
}

static HRESULT STDMETHODCALLTYPE control_SetILFunctionBody(ICorProfilerFunctionControl *This,
                                                           ULONG size, LPCBYTE header)
{
    return keep_body(turn_of(This), header, size);
}

static HRESULT STDMETHODCALLTYPE control_SetILInstrumentedCodeMap(ICorProfilerFunctionControl *This,
                                                                  ULONG count, COR_IL_MAP map[])
{
    return keep_map(turn_of(This), count, map);
}

static const struct ICorProfilerFunctionControlVtbl control_vtbl = {
    .QueryInterface = control_QueryInterface,
    .AddRef = control_AddRef,
    .Release = control_Release,
    .SetCodegenFlags = control_SetCodegenFlags,
    .SetILFunctionBody = control_SetILFunctionBody,
    .SetILInstrumentedCodeMap = control_SetILInstrumentedCodeMap,
};
