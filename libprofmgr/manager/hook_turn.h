/* How the raw profiler hook and the plugins compose on one method (hook_turn.c).
 *
 * The plugins go first, the hook second, the same at the first JIT and at a ReJIT: the engine
 * gives the runtime the plugins' body, then calls the hook's JITCompilationStarted or
 * GetReJITParameters inside a "turn" on this thread. During the turn the hook's
 * ICorProfilerInfo answers GetILFunctionBody for that method with the plugins' body, and at a
 * ReJIT the hook gets a function control of the engine's that forwards to the runtime's. What
 * the hook sets is final; an IL map it sets (offsets of the plugins' body to offsets of its
 * own) is composed with the plugins' map (original offsets to the plugins' body), so the
 * runtime gets one map from the original offsets to the final body. A hook that overwrites the
 * plugins' body without having read it, replaces the body without a map, or sets code-gen
 * flags other than the plugins' is logged with the method's name.
 *
 * Threads: a turn belongs to the thread that begins it; turns on other threads are separate. */
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
    /* What the plugins gave the runtime; body NULL when they changed nothing. */
    const uint8_t *body;
    size_t body_len;
    uint8_t *owned_body; /* freed at the end of the turn */
    COR_IL_MAP *map;     /* original offsets -> the plugins' body; freed at the end */
    size_t map_count;
    DWORD codegen_flags; /* set by the plugins at a ReJIT, 0 none */
    /* At a ReJIT, the method's original IL: what the hook reads when the plugins changed
     * nothing (the runtime would answer with the body of the first JIT). */
    const uint8_t *original;
    size_t original_len;
    char *name;          /* the method's, for the log; freed at the end */
    /* What the hook did in its turn. */
    bool hook_read, hook_wrote, hook_mapped;
    struct hook_turn *outer; /* the turn this one runs inside, on this thread */
};

/* Starts the hook's turn on a method, before the plugins run (control: the runtime's at a
 * ReJIT, NULL at the first JIT). */
void clrie_pm__hook_turn_begin(struct hook_turn *turn, struct manager *m, ModuleID module,
                               mdMethodDef token, FunctionID function,
                               ICorProfilerFunctionControl *control);
/* The turn this thread is in for the manager, or NULL. */
struct hook_turn *clrie_pm__hook_turn_current(struct manager *m);
/* Records what the plugins gave the runtime. The turn takes owned_body (NULL when body is the
 * runtime's memory), map and name (malloc'd; each may be NULL). */
void clrie_pm__hook_turn_plugins(struct hook_turn *turn, const uint8_t *body, size_t body_len,
                                 uint8_t *owned_body, COR_IL_MAP *map, size_t map_count,
                                 DWORD codegen_flags, char *name);
/* Ends the turn after the hook's callback returned: reports what did not compose, frees. */
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

/* Composes two IL maps: first (original -> middle offsets) then second (middle -> final).
 * Each original offset of first maps to where second takes its middle offset: the entry of
 * second with the largest old offset not above it, moved by the distance between the two.
 * A new malloc'd array of first_count entries in *out; false when out of memory. */
bool clrie_pm__il_map_compose(const COR_IL_MAP *first, size_t first_count, const COR_IL_MAP *second,
                              size_t second_count, COR_IL_MAP **out);

#endif
