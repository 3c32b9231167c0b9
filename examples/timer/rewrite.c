/* timer: the IL rewrite. A selected method becomes
 *
 *       start = Probe.Enter(name)
 *       try { <body; every return a `leave` to the single exit> }
 *       finally { Probe.Exit(name, start, output) }
 *       <single exit>
 *
 * through ISingleRetDefaultInstrumentation, ILocalVariableCollection::AddLocal and
 * IExceptionSection::AddNewExceptionClause. */
#include <stdbool.h>
#include <stddef.h>

#include <clrie/plugin.h>

#include "timer.h"

#define CLAUSE_FINALLY 0x0002 /* COR_ILEXCEPTION_CLAUSE_FINALLY */

/* Inserts `count` new instructions after `where`, in order. */
static HRESULT insert_after(IInstructionGraph *graph, IInstruction *where, IInstruction **items,
                            size_t count)
{
    HRESULT hr = S_OK;
    for (size_t i = 0; i < count && SUCCEEDED(hr); i++) {
        hr = graph->lpVtbl->InsertAfter(graph, where, items[i]);
        where = items[i];
    }
    return hr;
}

/* Whether the method can be wrapped: no tail call (a tail call cannot leave a try) and no
 * byref return (single-ret keeps a byref on the stack across its branches; `leave` empties
 * the stack). */
static bool can_wrap(IMethodInfo *method, IInstructionGraph *graph)
{
    IType *result = NULL;
    CorElementType kind = ELEMENT_TYPE_END;
    if (FAILED(method->lpVtbl->GetReturnType(method, &result)) ||
        FAILED(result->lpVtbl->GetCorElementType(result, &kind))) {
        clrie_plugin_release(result);
        return false;
    }
    clrie_plugin_release(result);
    if (kind == ELEMENT_TYPE_BYREF)
        return false;
    IInstruction *at = NULL;
    graph->lpVtbl->GetFirstInstruction(graph, &at);
    bool tail = false;
    while (at && !tail) {
        tail = clrie_plugin_opcode(at) == Cee_Tailcall;
        clrie_plugin_next_instruction(&at);
    }
    clrie_plugin_release(at);
    return !tail;
}

/* Makes the method's single exit `exit` (AddRef'd) and turns every way to it into a `leave`.
 * After ISingleRetDefaultInstrumentation the exit is its branch target and the ways to it
 * are its `br`s; when single-ret changed nothing (one return), the return itself becomes
 * `[stloc result;] leave exit` with `exit: [ldloc result;] ret` appended. *exit is NULL for a
 * method that never returns (it only throws). */
static HRESULT make_exit(IMethodInfo *method, const struct clrie_plugin_rewrite *rw,
                         IInstruction **exit)
{
    IInstructionGraph *graph = rw->graph;
    IInstructionFactory *factory = rw->factory;
    ISingleRetDefaultInstrumentation *single = rw->single;
    *exit = NULL;
    ISingleRetDefaultInstrumentation2 *single2 = NULL;
    IInstruction *target = NULL;
    HRESULT hr = single->lpVtbl->QueryInterface(single, &IID_ISingleRetDefaultInstrumentation2,
                                                (void **)&single2);
    if (SUCCEEDED(hr) && FAILED(single2->lpVtbl->GetBranchTargetInstruction(single2, &target)))
        target = NULL;
    clrie_plugin_release(single2);
    if (FAILED(hr))
        return hr;

    if (!target) {
        IInstruction *ret = clrie_plugin_rewrite_exit(rw);
        if (!ret)
            return S_OK;
        IType *result = NULL;
        CorElementType kind = ELEMENT_TYPE_VOID;
        hr = method->lpVtbl->GetReturnType(method, &result);
        if (SUCCEEDED(hr))
            hr = result->lpVtbl->GetCorElementType(result, &kind);
        IInstruction *last = NULL, *store = NULL, *load = NULL, *new_ret = NULL, *to_exit = NULL;
        DWORD local = 0;
        if (SUCCEEDED(hr) && kind != ELEMENT_TYPE_VOID)
            hr = clrie_plugin_add_local(method, result, &local);
        if (SUCCEEDED(hr))
            hr = graph->lpVtbl->GetLastInstruction(graph, &last);
        if (SUCCEEDED(hr))
            hr = factory->lpVtbl->CreateInstruction(factory, Cee_Ret, &new_ret);
        if (SUCCEEDED(hr) && kind != ELEMENT_TYPE_VOID) {
            hr = factory->lpVtbl->CreateLoadLocalInstruction(factory, (USHORT)local, &load);
            if (SUCCEEDED(hr))
                hr = factory->lpVtbl->CreateStoreLocalInstruction(factory, (USHORT)local, &store);
            IInstruction *tail[] = {load, new_ret};
            if (SUCCEEDED(hr))
                hr = insert_after(graph, last, tail, 2);
            target = load;
        } else if (SUCCEEDED(hr)) {
            hr = graph->lpVtbl->InsertAfter(graph, last, new_ret);
            target = new_ret;
        }
        if (target)
            target->lpVtbl->AddRef(target);
        if (SUCCEEDED(hr))
            hr = factory->lpVtbl->CreateBranchInstruction(factory, Cee_Br, target, &to_exit);
        /* The old return becomes [stloc result;] br exit; the br is made a leave below. */
        if (SUCCEEDED(hr) && store) {
            hr = graph->lpVtbl->Replace(graph, ret, store);
            if (SUCCEEDED(hr))
                hr = graph->lpVtbl->InsertAfter(graph, store, to_exit);
        } else if (SUCCEEDED(hr)) {
            hr = graph->lpVtbl->Replace(graph, ret, to_exit);
        }
        clrie_plugin_release(to_exit);
        clrie_plugin_release(new_ret);
        clrie_plugin_release(load);
        clrie_plugin_release(store);
        clrie_plugin_release(last);
        clrie_plugin_release(result);
        clrie_plugin_release(ret);
        if (FAILED(hr)) {
            clrie_plugin_release(target);
            return hr;
        }
    }

    /* Every `br exit` becomes `leave exit`. */
    IInstruction *at = NULL;
    hr = graph->lpVtbl->GetFirstInstruction(graph, &at);
    while (SUCCEEDED(hr) && at) {
        IInstruction *next = NULL;
        if (FAILED(at->lpVtbl->GetNextInstruction(at, &next)))
            next = NULL;
        ILOrdinalOpcode op = clrie_plugin_opcode(at);
        if (op == Cee_Br || op == Cee_Br_S) {
            IBranchInstruction *branch = NULL;
            IInstruction *to = NULL;
            if (SUCCEEDED(
                    at->lpVtbl->QueryInterface(at, &IID_IBranchInstruction, (void **)&branch)) &&
                SUCCEEDED(branch->lpVtbl->GetBranchTarget(branch, &to)) && to == target) {
                IInstruction *leave = NULL;
                hr = factory->lpVtbl->CreateBranchInstruction(factory, Cee_Leave, target, &leave);
                if (SUCCEEDED(hr))
                    hr = graph->lpVtbl->Replace(graph, at, leave);
                clrie_plugin_release(leave);
            }
            clrie_plugin_release(to);
            clrie_plugin_release(branch);
        }
        clrie_plugin_release(at);
        at = next;
    }
    clrie_plugin_release(at);
    if (FAILED(hr)) {
        clrie_plugin_release(target);
        return hr;
    }
    *exit = target;
    return S_OK;
}

HRESULT timer_rewrite(IMethodInfo *method, const struct timed_method *timed,
                      const struct module_plan *plan)
{
    struct clrie_plugin_rewrite rw = {0};
    IInstructionGraph *graph = NULL;
    IExceptionSection *clauses = NULL;
    IInstruction *first = NULL, *exit = NULL, *try_last = NULL;
    IInstruction *entry[3] = {NULL, NULL, NULL}, *handler[5] = {NULL, NULL, NULL, NULL, NULL};
    IType *int64 = NULL;
    IExceptionClause *clause = NULL;
    DWORD start = 0;
    HRESULT hr = method->lpVtbl->GetInstructions(method, &graph);
    bool wrap = SUCCEEDED(hr) && can_wrap(method, graph);
    clrie_plugin_release(graph);
    if (SUCCEEDED(hr) && !wrap)
        return S_FALSE; /* left as it is */
    if (SUCCEEDED(hr))
        hr = clrie_plugin_rewrite_init(&rw, method);
    if (SUCCEEDED(hr))
        hr = method->lpVtbl->GetExceptionSection(method, &clauses);
    if (SUCCEEDED(hr))
        hr = make_exit(method, &rw, &exit);
    if (SUCCEEDED(hr))
        hr = clrie_plugin_element_type(method, ELEMENT_TYPE_I8, &int64);
    if (SUCCEEDED(hr))
        hr = clrie_plugin_add_local(method, int64, &start);

    /* The try block: from the first instruction to the one before the exit (or the end). */
    if (SUCCEEDED(hr))
        hr = rw.graph->lpVtbl->GetFirstInstruction(rw.graph, &first);
    if (SUCCEEDED(hr))
        hr = exit ? exit->lpVtbl->GetPreviousInstruction(exit, &try_last)
                  : rw.graph->lpVtbl->GetLastInstruction(rw.graph, &try_last);

    /* finally { Probe.Exit(name, start, output); } right after the try block */
    if (SUCCEEDED(hr))
        hr = rw.factory->lpVtbl->CreateTokenOperandInstruction(rw.factory, Cee_Ldstr, timed->name,
                                                               &handler[0]);
    if (SUCCEEDED(hr))
        hr = rw.factory->lpVtbl->CreateLoadLocalInstruction(rw.factory, (USHORT)start, &handler[1]);
    if (SUCCEEDED(hr))
        hr = plan->output != mdTokenNil
                 ? rw.factory->lpVtbl->CreateTokenOperandInstruction(rw.factory, Cee_Ldstr,
                                                                     plan->output, &handler[2])
                 : rw.factory->lpVtbl->CreateInstruction(rw.factory, Cee_Ldnull, &handler[2]);
    if (SUCCEEDED(hr))
        hr = rw.factory->lpVtbl->CreateTokenOperandInstruction(rw.factory, Cee_Call, plan->exit,
                                                               &handler[3]);
    if (SUCCEEDED(hr))
        hr = rw.factory->lpVtbl->CreateInstruction(rw.factory, Cee_Endfinally, &handler[4]);
    if (SUCCEEDED(hr))
        hr = insert_after(rw.graph, try_last, handler, 5);

    /* start = Probe.Enter(name), before the try block (not retargeted: a loop back to the
     * first instruction stays inside the try). */
    if (SUCCEEDED(hr))
        hr = rw.factory->lpVtbl->CreateTokenOperandInstruction(rw.factory, Cee_Ldstr, timed->name,
                                                               &entry[0]);
    if (SUCCEEDED(hr))
        hr = rw.factory->lpVtbl->CreateTokenOperandInstruction(rw.factory, Cee_Call, plan->enter,
                                                               &entry[1]);
    if (SUCCEEDED(hr))
        hr = rw.factory->lpVtbl->CreateStoreLocalInstruction(rw.factory, (USHORT)start, &entry[2]);
    if (SUCCEEDED(hr))
        hr = rw.graph->lpVtbl->InsertBefore(rw.graph, first, entry[0]);
    if (SUCCEEDED(hr))
        hr = insert_after(rw.graph, entry[0], entry + 1, 2);

    if (SUCCEEDED(hr))
        hr = clauses->lpVtbl->AddNewExceptionClause(clauses, CLAUSE_FINALLY, first, try_last,
                                                    handler[0], handler[4], NULL, mdTokenNil,
                                                    &clause);
    clrie_plugin_release(clause);
    for (size_t i = 0; i < 5; i++)
        clrie_plugin_release(handler[i]);
    for (size_t i = 0; i < 3; i++)
        clrie_plugin_release(entry[i]);
    clrie_plugin_release(int64);
    clrie_plugin_release(try_last);
    clrie_plugin_release(exit);
    clrie_plugin_release(first);
    clrie_plugin_release(clauses);
    clrie_plugin_rewrite_finish(&rw);
    return hr;
}
