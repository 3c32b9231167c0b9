/* How the raw profiler hook and the plugins compose on one method (hook_turn.c).
 *
 * The hook goes first and the plugins edit what it made, the same at the first JIT and at a
 * ReJIT: profilers that rewrite IL build each body from the method's original IL, which they
 * read at the first JIT and keep (CLRIE does so at a ReJIT), so the plugins are the ones that
 * can build on another's body. Inside a "turn" on this thread the engine calls the hook's
 * JITCompilationStarted or GetReJITParameters; what the hook sets through its
 * ICorProfilerInfo (first JIT) or the engine's function control (ReJIT) is kept, not given to
 * the runtime: the body, its IL map (original offsets to the hook's body) and code-gen flags.
 * The plugins' pipeline then takes the hook's body as the method's IL, and the runtime gets
 * one body: the plugins' when they changed it, else the hook's, with one IL map composed from
 * the hook's and the plugins' (original offsets to the final body). During its turn the hook
 * reads the method's original IL through GetILFunctionBody, at a ReJIT too (the runtime itself
 * would answer with the body of the first JIT).
 *
 * Code-gen flags of both sides reach the runtime at a ReJIT. What does not compose is logged
 * with the method's name: a hook body without a map under the plugins' edits, code-gen flags
 * of the hook and the plugins that differ, and a body or IL map the hook gives the runtime
 * itself (through its ICorProfilerInfo, outside its turn on the method) for a method the
 * plugins changed.
 *
 * Threads: a turn belongs to the thread that begins it. */
#ifndef CLRIE_PM_HOOK_TURN_H
#define CLRIE_PM_HOOK_TURN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clrie/abi/corprof.h"

struct manager;

struct hook_turn {
    ICorProfilerFunctionControl control; /* the hook's, at a ReJIT */
    struct manager *m;
    ModuleID module;
    mdMethodDef token;
    FunctionID function;                  /* at the first JIT; 0 at a ReJIT */
    ICorProfilerFunctionControl *runtime; /* the runtime's control at a ReJIT, else NULL */
    /* The method's original IL, the runtime's memory (what the hook reads). */
    const uint8_t *original;
    size_t original_len;
    /* What the hook set (malloc'd copies; body NULL: it set none). */
    uint8_t *body;
    size_t body_len;
    COR_IL_MAP *map;
    size_t map_count;
    bool mapped;         /* it set a map (maybe empty) */
    DWORD codegen_flags; /* at a ReJIT; 0 none */
    bool applied;        /* the runtime has the final body */
    struct hook_turn *outer;
};

/* Starts the hook's turn on a method (function at the first JIT, control at a ReJIT), and
 * reads the method's original IL for it. */
void clrie_pm__hook_turn_begin(struct hook_turn *turn, struct manager *m, ModuleID module,
                               mdMethodDef token, FunctionID function,
                               ICorProfilerFunctionControl *control);
/* The turn this thread is in for the manager, or NULL. */
struct hook_turn *clrie_pm__hook_turn_current(struct manager *m);
/* The turn of this thread on exactly this method, or NULL. */
struct hook_turn *clrie_pm__hook_turn_on(struct manager *m, ModuleID module, mdMethodDef token);
/* The IL map the runtime gets with the plugins' body: the hook's composed with theirs (a new
 * malloc'd array in *out, the plugins' own when the hook set no map: *out NULL then). Logs a
 * hook body without a map. E_OUTOFMEMORY or S_OK. */
HRESULT clrie_pm__hook_turn_map_for(struct hook_turn *turn, const char *name,
                                    const COR_IL_MAP *plugins, size_t plugins_count,
                                    COR_IL_MAP **out, size_t *out_count);
/* Ends the turn after the plugins' pipeline: gives the runtime the hook's body and map when the
 * plugins gave it nothing, then frees. */
void clrie_pm__hook_turn_end(struct hook_turn *turn);

/* The hook's ICorProfilerInfo slots that see the turn (info_wrapper.c's hook vtable). */
HRESULT clrie_pm__hook_get_il_function_body(ICorProfilerInfo15 *runtime, ModuleID module,
                                            mdMethodDef token, LPCBYTE *header, ULONG *size,
                                            struct manager *m);
HRESULT clrie_pm__hook_set_il_function_body(ICorProfilerInfo15 *runtime, ModuleID module,
                                            mdMethodDef token, LPCBYTE header, struct manager *m);
HRESULT clrie_pm__hook_set_il_map(ICorProfilerInfo15 *runtime, FunctionID function, BOOL start,
                                  ULONG count, COR_IL_MAP map[], struct manager *m);

/* ReJIT requests and reverts through a party's ICorProfilerInfo (party: CLRIE_PM_REJIT_PLUGINS
 * or CLRIE_PM_REJIT_HOOK, domains.h). A request takes the party back into the methods' ReJITs
 * and goes to the runtime (with_inliners: RequestReJITWithInliners with flags). A revert takes
 * the party out; a method the other party (loaded, and not out itself) still takes part in is
 * rejitted again without the reverting party instead of reverted, so each side's revert keeps
 * the other's edits. */
HRESULT clrie_pm__rejit_request(struct manager *m, unsigned party, bool with_inliners, DWORD flags,
                                ULONG count, ModuleID modules[], mdMethodDef methods[]);
HRESULT clrie_pm__rejit_revert(struct manager *m, unsigned party, ULONG count, ModuleID modules[],
                               mdMethodDef methods[], HRESULT status[]);
/* The parties that take part in a ReJIT of the method now (CLRIE_PM_REJIT_ALL when the module is
 * unknown). */
unsigned clrie_pm__rejit_parties(struct manager *m, ModuleID module, mdMethodDef method);

/* Composes two IL maps: first (original -> middle offsets) then second (middle -> final), both
 * sorted by old offset. The result, sorted by original offset, has an entry for each entry of
 * first (its middle offset carried through second) and for each entry of second whose middle
 * offset first reaches (carried back through first); "through" a map means by its entry with
 * the largest old (or new, going back) offset not above the one looked up, moved by the
 * distance between the two. CLRIE's ReJIT marks (old offset 0xFEEFEE) of first are dropped,
 * those of second kept. A new malloc'd array in *out, its length in *count; false when out of
 * memory. */
bool clrie_pm__il_map_compose(const COR_IL_MAP *first, size_t first_count, const COR_IL_MAP *second,
                              size_t second_count, COR_IL_MAP **out, size_t *count);

#endif
