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

#include "timer.h"

static void release(void *unknown)
{
    if (unknown)
        ((IUnknown *)unknown)->lpVtbl->Release((IUnknown *)unknown);
}

static ILOrdinalOpcode opcode_of(IInstruction *instruction)
{
    ILOrdinalOpcode op = Cee_Invalid;
    if (!instruction || FAILED(instruction->lpVtbl->GetOpCode(instruction, &op)))
        return Cee_Invalid;
    return op;
}

/* Where the exit line goes: single-ret's shared exit, else the last `ret` that does not end a
 * tail call (NULL for a method that only throws). Returned AddRef'd. */
static IInstruction *exit_of(IInstructionGraph *graph, ISingleRetDefaultInstrumentation *single)
{
    ISingleRetDefaultInstrumentation2 *single2 = NULL;
    IInstruction *exit = NULL;
    if (SUCCEEDED(single->lpVtbl->QueryInterface(single, &IID_ISingleRetDefaultInstrumentation2,
                                                 (void **)&single2))) {
        if (FAILED(single2->lpVtbl->GetBranchTargetInstruction(single2, &exit)))
            exit = NULL;
        release(single2);
    }
    if (exit)
        return exit;
    IInstruction *at = NULL;
    if (FAILED(graph->lpVtbl->GetLastInstruction(graph, &at)))
        return NULL;
    while (at) {
        IInstruction *previous = NULL;
        if (FAILED(at->lpVtbl->GetPreviousInstruction(at, &previous)))
            previous = NULL;
        if (opcode_of(at) == Cee_Ret) {
            /* `tail. call X; [pop;] ret` must stay as it is */
            IInstruction *p = previous, *pp = NULL, *ppp = NULL;
            if (p && opcode_of(p) == Cee_Pop)
                p->lpVtbl->GetPreviousInstruction(p, &pp);
            else if (p)
                p->lpVtbl->AddRef(p), pp = p;
            if (pp)
                pp->lpVtbl->GetPreviousInstruction(pp, &ppp);
            bool tail = ppp && opcode_of(ppp) == Cee_Tailcall;
            release(ppp);
            release(pp);
            if (!tail) {
                release(previous);
                return at;
            }
        }
        release(at);
        at = previous;
    }
    return NULL;
}

#define CLAUSE_FINALLY 0x0002 /* COR_ILEXCEPTION_CLAUSE_FINALLY */

static HRESULT new_local(IMethodInfo *method, IType *type, DWORD *index)
{
    ILocalVariableCollection *locals = NULL;
    HRESULT hr = method->lpVtbl->GetLocalVariables(method, &locals);
    if (SUCCEEDED(hr))
        hr = locals->lpVtbl->AddLocal(locals, type, index);
    release(locals);
    return hr;
}

static HRESULT int64_type(IMethodInfo *method, IType **out)
{
    IModuleInfo *module = NULL;
    ITypeCreator *types = NULL;
    HRESULT hr = method->lpVtbl->GetModuleInfo(method, &module);
    if (SUCCEEDED(hr))
        hr = module->lpVtbl->CreateTypeFactory(module, &types);
    if (SUCCEEDED(hr))
        hr = types->lpVtbl->FromCorElement(types, ELEMENT_TYPE_I8, out);
    release(types);
    release(module);
    return hr;
}

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
        release(result);
        return false;
    }
    release(result);
    if (kind == ELEMENT_TYPE_BYREF)
        return false;
    IInstruction *at = NULL;
    graph->lpVtbl->GetFirstInstruction(graph, &at);
    bool tail = false;
    while (at && !tail) {
        tail = opcode_of(at) == Cee_Tailcall;
        IInstruction *next = NULL;
        if (FAILED(at->lpVtbl->GetNextInstruction(at, &next)))
            next = NULL;
        release(at);
        at = next;
    }
    release(at);
    return !tail;
}

/* Makes the method's single exit `exit` (AddRef'd) and turns every way to it into a `leave`.
 * After ISingleRetDefaultInstrumentation the exit is its branch target and the ways to it
 * are its `br`s; when single-ret changed nothing (one return), the return itself becomes
 * `[stloc result;] leave exit` with `exit: [ldloc result;] ret` appended. *exit is NULL for a
 * method that never returns (it only throws). */
static HRESULT make_exit(IMethodInfo *method, IInstructionGraph *graph,
                         IInstructionFactory *factory, ISingleRetDefaultInstrumentation *single,
                         IInstruction **exit)
{
    *exit = NULL;
    ISingleRetDefaultInstrumentation2 *single2 = NULL;
    IInstruction *target = NULL;
    HRESULT hr = single->lpVtbl->QueryInterface(single, &IID_ISingleRetDefaultInstrumentation2,
                                                (void **)&single2);
    if (SUCCEEDED(hr) && FAILED(single2->lpVtbl->GetBranchTargetInstruction(single2, &target)))
        target = NULL;
    release(single2);
    if (FAILED(hr))
        return hr;

    if (!target) {
        IInstruction *ret = exit_of(graph, single);
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
            hr = new_local(method, result, &local);
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
        release(to_exit);
        release(new_ret);
        release(load);
        release(store);
        release(last);
        release(result);
        release(ret);
        if (FAILED(hr)) {
            release(target);
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
        ILOrdinalOpcode op = opcode_of(at);
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
                release(leave);
            }
            release(to);
            release(branch);
        }
        release(at);
        at = next;
    }
    release(at);
    if (FAILED(hr)) {
        release(target);
        return hr;
    }
    *exit = target;
    return S_OK;
}

HRESULT timer_rewrite(IMethodInfo *method, const struct timed_method *timed,
                      const struct module_plan *plan)
{
    IInstructionGraph *graph = NULL;
    IInstructionFactory *factory = NULL;
    IExceptionSection *clauses = NULL;
    ISingleRetDefaultInstrumentation *single = NULL;
    IInstruction *first = NULL, *exit = NULL, *try_last = NULL;
    IInstruction *entry[3] = {NULL, NULL, NULL}, *handler[5] = {NULL, NULL, NULL, NULL, NULL};
    IType *int64 = NULL;
    IExceptionClause *clause = NULL;
    DWORD start = 0;
    HRESULT hr = method->lpVtbl->GetInstructions(method, &graph);
    if (SUCCEEDED(hr) && !can_wrap(method, graph)) {
        release(graph);
        return S_FALSE; /* left as it is */
    }
    if (SUCCEEDED(hr))
        hr = method->lpVtbl->GetInstructionFactory(method, &factory);
    if (SUCCEEDED(hr))
        hr = method->lpVtbl->GetExceptionSection(method, &clauses);
    if (SUCCEEDED(hr))
        hr = method->lpVtbl->GetSingleRetDefaultInstrumentation(method, &single);
    if (SUCCEEDED(hr))
        hr = single->lpVtbl->Initialize(single, graph);
    if (SUCCEEDED(hr))
        hr = single->lpVtbl->ApplySingleRetDefaultInstrumentation(single);
    if (SUCCEEDED(hr))
        hr = make_exit(method, graph, factory, single, &exit);
    if (SUCCEEDED(hr))
        hr = int64_type(method, &int64);
    if (SUCCEEDED(hr))
        hr = new_local(method, int64, &start);

    /* The try block: from the first instruction to the one before the exit (or the end). */
    if (SUCCEEDED(hr))
        hr = graph->lpVtbl->GetFirstInstruction(graph, &first);
    if (SUCCEEDED(hr))
        hr = exit ? exit->lpVtbl->GetPreviousInstruction(exit, &try_last)
                  : graph->lpVtbl->GetLastInstruction(graph, &try_last);

    /* finally { Probe.Exit(name, start, output); } right after the try block */
    if (SUCCEEDED(hr))
        hr = factory->lpVtbl->CreateTokenOperandInstruction(factory, Cee_Ldstr, timed->name,
                                                            &handler[0]);
    if (SUCCEEDED(hr))
        hr = factory->lpVtbl->CreateLoadLocalInstruction(factory, (USHORT)start, &handler[1]);
    if (SUCCEEDED(hr))
        hr = plan->output != mdTokenNil
                 ? factory->lpVtbl->CreateTokenOperandInstruction(factory, Cee_Ldstr, plan->output,
                                                                  &handler[2])
                 : factory->lpVtbl->CreateInstruction(factory, Cee_Ldnull, &handler[2]);
    if (SUCCEEDED(hr))
        hr = factory->lpVtbl->CreateTokenOperandInstruction(factory, Cee_Call, plan->exit,
                                                            &handler[3]);
    if (SUCCEEDED(hr))
        hr = factory->lpVtbl->CreateInstruction(factory, Cee_Endfinally, &handler[4]);
    if (SUCCEEDED(hr))
        hr = insert_after(graph, try_last, handler, 5);

    /* start = Probe.Enter(name), before the try block (not retargeted: a loop back to the
     * first instruction stays inside the try). */
    if (SUCCEEDED(hr))
        hr = factory->lpVtbl->CreateTokenOperandInstruction(factory, Cee_Ldstr, timed->name,
                                                            &entry[0]);
    if (SUCCEEDED(hr))
        hr = factory->lpVtbl->CreateTokenOperandInstruction(factory, Cee_Call, plan->enter,
                                                            &entry[1]);
    if (SUCCEEDED(hr))
        hr = factory->lpVtbl->CreateStoreLocalInstruction(factory, (USHORT)start, &entry[2]);
    if (SUCCEEDED(hr))
        hr = graph->lpVtbl->InsertBefore(graph, first, entry[0]);
    if (SUCCEEDED(hr))
        hr = insert_after(graph, entry[0], entry + 1, 2);

    if (SUCCEEDED(hr))
        hr = clauses->lpVtbl->AddNewExceptionClause(clauses, CLAUSE_FINALLY, first, try_last,
                                                    handler[0], handler[4], NULL, mdTokenNil,
                                                    &clause);
    release(clause);
    for (size_t i = 0; i < 5; i++)
        release(handler[i]);
    for (size_t i = 0; i < 3; i++)
        release(entry[i]);
    release(int64);
    release(try_last);
    release(exit);
    release(first);
    release(single);
    release(clauses);
    release(factory);
    release(graph);
    return hr;
}
