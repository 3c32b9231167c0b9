/* stress: the IL rewrite. Single return, an int32 local set at entry and read before the
 * exit, optionally a nop before every original instruction (see stress.c). */
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include <clrie/plugin.h>

#include "stress.h"

static bool is_prefix(ILOrdinalOpcode op)
{
    return op == Cee_Unaligned || op == Cee_Volatile || op == Cee_Tailcall ||
           op == Cee_Constrained || op == Cee_Readonly || op == Cee_Unused69 /* no. */;
}

static bool is_call(ILOrdinalOpcode op)
{
    return op == Cee_Call || op == Cee_Callvirt || op == Cee_Calli;
}

/* The instructions of the graph in order (each AddRef'd), or NULL. */
static IInstruction **instructions_of(IInstructionGraph *graph, size_t *count)
{
    size_t n = 0, capacity = 64;
    IInstruction **all = malloc(capacity * sizeof(*all));
    IInstruction *at = NULL;
    if (!all || FAILED(graph->lpVtbl->GetFirstInstruction(graph, &at))) {
        free(all);
        return NULL;
    }
    while (at) {
        if (n == capacity) {
            capacity *= 2;
            IInstruction **grown = realloc(all, capacity * sizeof(*all));
            if (!grown) {
                clrie_plugin_release(at);
                break;
            }
            all = grown;
        }
        all[n++] = at;
        IInstruction *next = NULL;
        if (FAILED(at->lpVtbl->GetNextInstruction(at, &next)))
            next = NULL;
        at = next;
    }
    *count = n;
    return all;
}

static void release_all(IInstruction **all, size_t count)
{
    for (size_t i = 0; i < count; i++)
        clrie_plugin_release(all[i]);
    free(all);
}

/* A `ret` that is not the end of a tail call (`tail. call X; [pop;] ret`), which single-ret
 * leaves alone and which must stay right after its call. */
static bool is_plain_return(IInstruction **all, size_t i)
{
    if (clrie_plugin_opcode(all[i]) != Cee_Ret)
        return false;
    size_t j = i;
    if (j > 0 && clrie_plugin_opcode(all[j - 1]) == Cee_Pop)
        j--;
    return !(j >= 2 && is_call(clrie_plugin_opcode(all[j - 1])) &&
             clrie_plugin_opcode(all[j - 2]) == Cee_Tailcall);
}

/* A nop before every original instruction, except between a prefix and its instruction and
 * between a tail call and its ret. Branches and clauses follow to the nop. */
static HRESULT insert_nops(IInstructionGraph *graph, IInstructionFactory *factory)
{
    size_t count = 0;
    IInstruction **all = instructions_of(graph, &count);
    if (!all)
        return E_OUTOFMEMORY;
    HRESULT hr = S_OK;
    for (size_t i = 0; i < count && SUCCEEDED(hr); i++) {
        BOOL is_new = FALSE;
        if (FAILED(all[i]->lpVtbl->GetIsNew(all[i], &is_new)) || is_new)
            continue;
        if (i > 0 && is_prefix(clrie_plugin_opcode(all[i - 1])))
            continue;
        if (clrie_plugin_opcode(all[i]) == Cee_Ret && !is_plain_return(all, i))
            continue;
        if (clrie_plugin_opcode(all[i]) == Cee_Pop && i + 1 < count &&
            clrie_plugin_opcode(all[i + 1]) == Cee_Ret && i >= 2 &&
            is_call(clrie_plugin_opcode(all[i - 1])) &&
            clrie_plugin_opcode(all[i - 2]) == Cee_Tailcall)
            continue;
        IInstruction *nop = NULL;
        hr = factory->lpVtbl->CreateInstruction(factory, Cee_Nop, &nop);
        if (SUCCEEDED(hr))
            hr = graph->lpVtbl->InsertBeforeAndRetargetOffsets(graph, all[i], nop);
        clrie_plugin_release(nop);
    }
    release_all(all, count);
    return hr;
}

/* Where the exit probe goes: single-ret's shared exit, or else the one plain `ret` (NULL for a
 * method that only throws). Returned AddRef'd. */
static IInstruction *exit_of(IInstructionGraph *graph, ISingleRetDefaultInstrumentation *single)
{
    IInstruction *exit = clrie_plugin_single_ret_exit(single);
    if (exit)
        return exit;
    size_t count = 0;
    IInstruction **all = instructions_of(graph, &count);
    if (!all)
        return NULL;
    for (size_t i = count; i-- > 0;) {
        if (is_plain_return(all, i)) {
            exit = all[i];
            exit->lpVtbl->AddRef(exit);
            break;
        }
    }
    release_all(all, count);
    return exit;
}

static HRESULT add_int32_local(IMethodInfo *method, DWORD *index)
{
    IType *int32 = NULL;
    HRESULT hr = clrie_plugin_element_type(method, ELEMENT_TYPE_I4, &int32);
    if (SUCCEEDED(hr))
        hr = clrie_plugin_add_local(method, int32, index);
    clrie_plugin_release(int32);
    return hr;
}

/* Runs one step of a rewrite unless an earlier one failed, remembering its name. */
#define STEP(name, call)                                                                           \
    do {                                                                                           \
        if (SUCCEEDED(hr)) {                                                                       \
            *step = (name);                                                                        \
            hr = (call);                                                                           \
        }                                                                                          \
    } while (0)

HRESULT stress_rewrite(IMethodInfo *method, int id, bool nops, const char **step)
{
    /* What clrie_plugin_rewrite_init would fill, filled step by step to name a failing one. */
    struct clrie_plugin_rewrite rw = {0};
    IInstruction *first = NULL, *exit = NULL;
    IInstruction *load_id = NULL, *store = NULL, *load = NULL, *pop = NULL;
    DWORD local = 0;
    HRESULT hr = S_OK;
    STEP("GetInstructions", method->lpVtbl->GetInstructions(method, &rw.graph));
    STEP("GetInstructionFactory", method->lpVtbl->GetInstructionFactory(method, &rw.factory));
    STEP("GetSingleRetDefaultInstrumentation",
         method->lpVtbl->GetSingleRetDefaultInstrumentation(method, &rw.single));
    STEP("ISingleRetDefaultInstrumentation::Initialize",
         rw.single->lpVtbl->Initialize(rw.single, rw.graph));
    STEP("ApplySingleRetDefaultInstrumentation",
         rw.single->lpVtbl->ApplySingleRetDefaultInstrumentation(rw.single));
    STEP("AddLocal(int32)", add_int32_local(method, &local));

    /* Entry: `ldc.i4 id; stloc local` before the first instruction. InsertBefore, not
     * retargeted: branches to the first instruction (loops) do not run the probe again. */
    STEP("CreateIntOperandInstruction(ldc.i4)",
         rw.factory->lpVtbl->CreateIntOperandInstruction(rw.factory, Cee_Ldc_I4, id, &load_id));
    STEP("CreateStoreLocalInstruction",
         rw.factory->lpVtbl->CreateStoreLocalInstruction(rw.factory, (USHORT)local, &store));
    STEP("GetFirstInstruction", rw.graph->lpVtbl->GetFirstInstruction(rw.graph, &first));
    STEP("InsertBefore(first)", rw.graph->lpVtbl->InsertBefore(rw.graph, first, load_id));
    STEP("InsertAfter(ldc.i4)", rw.graph->lpVtbl->InsertAfter(rw.graph, load_id, store));

    /* Exit: `ldloc local; pop` before the single exit, retargeted, so that every way out (the
     * branches single-ret made) passes through it. */
    if (SUCCEEDED(hr) && (exit = exit_of(rw.graph, rw.single))) {
        STEP("CreateLoadLocalInstruction",
             rw.factory->lpVtbl->CreateLoadLocalInstruction(rw.factory, (USHORT)local, &load));
        STEP("CreateInstruction(pop)",
             rw.factory->lpVtbl->CreateInstruction(rw.factory, Cee_Pop, &pop));
        STEP("InsertBeforeAndRetargetOffsets(exit)",
             rw.graph->lpVtbl->InsertBeforeAndRetargetOffsets(rw.graph, exit, load));
        STEP("InsertAfter(ldloc)", rw.graph->lpVtbl->InsertAfter(rw.graph, load, pop));
    }
    if (nops)
        STEP("the nops", insert_nops(rw.graph, rw.factory));
    clrie_plugin_release(pop);
    clrie_plugin_release(load);
    clrie_plugin_release(store);
    clrie_plugin_release(load_id);
    clrie_plugin_release(exit);
    clrie_plugin_release(first);
    clrie_plugin_rewrite_finish(&rw);
    return hr;
}
