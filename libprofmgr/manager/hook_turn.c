/* The raw hook's turn on a method, after the plugins' (hook_turn.h). */
#include "hook_turn.h"

#include <stdlib.h>
#include <string.h>

#include "domains.h"
#include "manager.h"

/* The mark CLRIE puts in a ReJIT's IL map (old offset 0xFEEFEE, new offset the ReJIT count):
 * no offset, so it is carried over as it is and never looked up. */
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
    turn->module = module;
    turn->token = token;
    turn->function = function;
    turn->runtime = control;
    turn->outer = current;
    current = turn;
}

struct hook_turn *clrie_pm__hook_turn_current(struct manager *m)
{
    struct hook_turn *turn = current;
    return turn && turn->m == m ? turn : NULL;
}

void clrie_pm__hook_turn_plugins(struct hook_turn *turn, const uint8_t *body, size_t body_len,
                                 uint8_t *owned_body, COR_IL_MAP *map, size_t map_count,
                                 DWORD codegen_flags, char *name)
{
    turn->body = body;
    turn->body_len = body_len;
    turn->owned_body = owned_body;
    turn->map = map;
    turn->map_count = map ? map_count : 0;
    turn->codegen_flags = codegen_flags;
    turn->name = name;
}

static const char *name_of(const struct hook_turn *turn)
{
    return turn->name ? turn->name : "a method";
}

void clrie_pm__hook_turn_end(struct hook_turn *turn)
{
    if (turn->body && turn->hook_wrote && !turn->hook_mapped && turn->map_count)
        CLRIE_PM_LOG_ERROR(turn->m->log,
                           "%s: the raw profiler hook replaced the plugins' body without an IL "
                           "map; the debugger's offsets for this method no longer hold",
                           name_of(turn));
    current = turn->outer;
    free(turn->owned_body);
    free(turn->map);
    free(turn->name);
}

/* The turn of this thread on exactly this method, or NULL. */
static struct hook_turn *turn_on(struct manager *m, ModuleID module, mdMethodDef token)
{
    struct hook_turn *turn = clrie_pm__hook_turn_current(m);
    return turn && turn->module == module && turn->token == token ? turn : NULL;
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

/* Where `second` takes the middle offset `offset`. */
static ULONG32 map_through(const COR_IL_MAP *second, size_t count, ULONG32 offset)
{
    const COR_IL_MAP *best = NULL;
    for (size_t i = 0; i < count; i++) {
        if (second[i].oldOffset == REJIT_MAP_MARKER || second[i].oldOffset > offset)
            continue;
        if (!best || second[i].oldOffset > best->oldOffset)
            best = &second[i];
    }
    return best ? best->newOffset + (offset - best->oldOffset) : offset;
}

bool clrie_pm__il_map_compose(const COR_IL_MAP *first, size_t first_count, const COR_IL_MAP *second,
                              size_t second_count, COR_IL_MAP **out)
{
    *out = malloc((first_count ? first_count : 1) * sizeof(**out));
    if (!*out)
        return false;
    for (size_t i = 0; i < first_count; i++) {
        (*out)[i] = first[i];
        if (first[i].oldOffset != REJIT_MAP_MARKER)
            (*out)[i].newOffset = map_through(second, second_count, first[i].newOffset);
    }
    return true;
}

/* The map the runtime gets for the hook's: composed with the plugins' when they changed the
 * method (*merged then owns the array), else the hook's own. */
static HRESULT compose_for(struct hook_turn *turn, ULONG count, COR_IL_MAP map[],
                           COR_IL_MAP **merged, ULONG *merged_count)
{
    *merged = NULL;
    *merged_count = count;
    if (!turn || !turn->body || !turn->map_count)
        return S_OK;
    if (count && !map)
        return E_POINTER;
    if (!clrie_pm__il_map_compose(turn->map, turn->map_count, map, count, merged))
        return E_OUTOFMEMORY;
    *merged_count = (ULONG)turn->map_count;
    turn->hook_mapped = true;
    return S_OK;
}

/* ---- the hook's ICorProfilerInfo ------------------------------------------------------------ */

HRESULT clrie_pm__hook_get_il_function_body(ICorProfilerInfo15 *runtime, ModuleID module,
                                            mdMethodDef token, LPCBYTE *header, ULONG *size,
                                            struct manager *m)
{
    struct hook_turn *turn = turn_on(m, module, token);
    const uint8_t *body = turn ? (turn->body ? turn->body : turn->original) : NULL;
    if (!body)
        return runtime->lpVtbl->GetILFunctionBody(runtime, module, token, header, size);
    if (!header)
        return E_POINTER;
    *header = body;
    if (size)
        *size = (ULONG)(turn->body ? turn->body_len : turn->original_len);
    turn->hook_read = true;
    return S_OK;
}

/* Notes that the hook sets the body of the turn's method, and whether it overwrites the
 * plugins' edits unseen. */
static void hook_writes(struct hook_turn *turn)
{
    if (turn->body && !turn->hook_read && !turn->hook_wrote)
        CLRIE_PM_LOG_ERROR(turn->m->log,
                           "%s: the raw profiler hook set a new body without reading the "
                           "plugins' (GetILFunctionBody): their edits are lost",
                           name_of(turn));
    turn->hook_wrote = true;
}

HRESULT clrie_pm__hook_set_il_function_body(ICorProfilerInfo15 *runtime, ModuleID module,
                                            mdMethodDef token, LPCBYTE header, struct manager *m)
{
    struct hook_turn *turn = turn_on(m, module, token);
    if (turn)
        hook_writes(turn);
    return runtime->lpVtbl->SetILFunctionBody(runtime, module, token, header);
}

HRESULT clrie_pm__hook_set_il_map(ICorProfilerInfo15 *runtime, FunctionID function, BOOL start,
                                  ULONG count, COR_IL_MAP map[], struct manager *m)
{
    struct hook_turn *turn = clrie_pm__hook_turn_current(m);
    if (turn && (!turn->function || turn->function != function))
        turn = NULL;
    COR_IL_MAP *merged = NULL;
    ULONG merged_count = 0;
    HRESULT hr = compose_for(turn, count, map, &merged, &merged_count);
    if (FAILED(hr))
        return hr;
    hr = runtime->lpVtbl->SetILInstrumentedCodeMap(runtime, function, start, merged_count,
                                                   merged ? merged : map);
    free(merged);
    return hr;
}

/* ---- the hook's function control at a ReJIT --------------------------------------------- */

static struct hook_turn *turn_of(ICorProfilerFunctionControl *This)
{
    return CLRIE_CONTAINER_OF(This, struct hook_turn, control);
}

/* It lives as long as the turn, like the runtime's own, which is valid only during the
 * callback: references are not counted. */
static HRESULT control_QueryInterface(ICorProfilerFunctionControl *This, REFIID riid, void **out)
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

static ULONG control_AddRef(ICorProfilerFunctionControl *This)
{
    return 1;
}

static ULONG control_Release(ICorProfilerFunctionControl *This)
{
    return 1;
}

static HRESULT control_SetCodegenFlags(ICorProfilerFunctionControl *This, DWORD flags)
{
    struct hook_turn *turn = turn_of(This);
    if (turn->codegen_flags && flags != turn->codegen_flags)
        CLRIE_PM_LOG_ERROR(turn->m->log,
                           "%s: the raw profiler hook sets code-gen flags 0x%08X over the "
                           "plugins' 0x%08X",
                           name_of(turn), (unsigned)flags, (unsigned)turn->codegen_flags);
    return turn->runtime->lpVtbl->SetCodegenFlags(turn->runtime, flags);
}

static HRESULT control_SetILFunctionBody(ICorProfilerFunctionControl *This, ULONG size,
                                         LPCBYTE header)
{
    struct hook_turn *turn = turn_of(This);
    hook_writes(turn);
    return turn->runtime->lpVtbl->SetILFunctionBody(turn->runtime, size, header);
}

static HRESULT control_SetILInstrumentedCodeMap(ICorProfilerFunctionControl *This, ULONG count,
                                                COR_IL_MAP map[])
{
    struct hook_turn *turn = turn_of(This);
    COR_IL_MAP *merged = NULL;
    ULONG merged_count = 0;
    HRESULT hr = compose_for(turn, count, map, &merged, &merged_count);
    if (FAILED(hr))
        return hr;
    hr = turn->runtime->lpVtbl->SetILInstrumentedCodeMap(turn->runtime, merged_count,
                                                         merged ? merged : map);
    free(merged);
    return hr;
}

static const struct ICorProfilerFunctionControlVtbl control_vtbl = {
    .QueryInterface = control_QueryInterface,
    .AddRef = control_AddRef,
    .Release = control_Release,
    .SetCodegenFlags = control_SetCodegenFlags,
    .SetILFunctionBody = control_SetILFunctionBody,
    .SetILInstrumentedCodeMap = control_SetILInstrumentedCodeMap,
};
