/* COM and IL (clrie/plugin.h): releasing any interface, walking a graph, the IL lookups a
 * rewrite starts with, and what a rewrite with a single exit holds. */
#include "clrie/plugin.h"

void clrie_plugin_release(void *object)
{
    if (object)
        ((IUnknown *)object)->lpVtbl->Release((IUnknown *)object);
}

ILOrdinalOpcode clrie_plugin_opcode(IInstruction *instruction)
{
    ILOrdinalOpcode op = Cee_Invalid;
    if (!instruction || FAILED(instruction->lpVtbl->GetOpCode(instruction, &op)))
        return Cee_Invalid;
    return op;
}

IInstruction *clrie_plugin_single_ret_exit(ISingleRetDefaultInstrumentation *single)
{
    ISingleRetDefaultInstrumentation2 *single2 = NULL;
    IInstruction *exit = NULL;
    if (SUCCEEDED(single->lpVtbl->QueryInterface(single, &IID_ISingleRetDefaultInstrumentation2,
                                                 (void **)&single2))) {
        if (FAILED(single2->lpVtbl->GetBranchTargetInstruction(single2, &exit)))
            exit = NULL;
        clrie_plugin_release(single2);
    }
    return exit;
}

/* Whether the `ret` after `previous` ends `tail. call X; [pop;] ret`, which must stay as it is. */
static bool ends_tail_call(IInstruction *previous)
{
    IInstruction *call = NULL, *prefix = NULL;
    if (previous && clrie_plugin_opcode(previous) == Cee_Pop)
        previous->lpVtbl->GetPreviousInstruction(previous, &call);
    else if (previous)
        previous->lpVtbl->AddRef(previous), call = previous;
    if (call)
        call->lpVtbl->GetPreviousInstruction(call, &prefix);
    bool tail = prefix && clrie_plugin_opcode(prefix) == Cee_Tailcall;
    clrie_plugin_release(prefix);
    clrie_plugin_release(call);
    return tail;
}

IInstruction *clrie_plugin_last_plain_ret(IInstructionGraph *graph)
{
    IInstruction *at = NULL;
    if (FAILED(graph->lpVtbl->GetLastInstruction(graph, &at)))
        return NULL;
    while (at) {
        IInstruction *previous = NULL;
        if (FAILED(at->lpVtbl->GetPreviousInstruction(at, &previous)))
            previous = NULL;
        if (clrie_plugin_opcode(at) == Cee_Ret && !ends_tail_call(previous)) {
            clrie_plugin_release(previous);
            return at;
        }
        clrie_plugin_release(at);
        at = previous;
    }
    return NULL;
}

void clrie_plugin_next_instruction(IInstruction **at)
{
    IInstruction *next = NULL;
    if (!*at)
        return;
    if (FAILED((*at)->lpVtbl->GetNextInstruction(*at, &next)))
        next = NULL;
    clrie_plugin_release(*at);
    *at = next;
}

HRESULT clrie_plugin_rewrite_init(struct clrie_plugin_rewrite *rw, IMethodInfo *method)
{
    *rw = (struct clrie_plugin_rewrite){0};
    HRESULT hr = method->lpVtbl->GetInstructions(method, &rw->graph);
    if (SUCCEEDED(hr))
        hr = method->lpVtbl->GetInstructionFactory(method, &rw->factory);
    if (SUCCEEDED(hr))
        hr = method->lpVtbl->GetSingleRetDefaultInstrumentation(method, &rw->single);
    if (SUCCEEDED(hr))
        hr = rw->single->lpVtbl->Initialize(rw->single, rw->graph);
    if (SUCCEEDED(hr))
        hr = rw->single->lpVtbl->ApplySingleRetDefaultInstrumentation(rw->single);
    if (FAILED(hr))
        clrie_plugin_rewrite_finish(rw);
    return hr;
}

void clrie_plugin_rewrite_finish(struct clrie_plugin_rewrite *rw)
{
    clrie_plugin_release(rw->single);
    clrie_plugin_release(rw->factory);
    clrie_plugin_release(rw->graph);
    *rw = (struct clrie_plugin_rewrite){0};
}

IInstruction *clrie_plugin_rewrite_exit(const struct clrie_plugin_rewrite *rw)
{
    IInstruction *exit = clrie_plugin_single_ret_exit(rw->single);
    return exit ? exit : clrie_plugin_last_plain_ret(rw->graph);
}

/* The ITypeCreator of the method's module, a new reference in *out. */
static HRESULT type_creator_of(IMethodInfo *method, ITypeCreator **out)
{
    IModuleInfo *module = NULL;
    *out = NULL;
    HRESULT hr = method->lpVtbl->GetModuleInfo(method, &module);
    if (SUCCEEDED(hr))
        hr = module->lpVtbl->CreateTypeFactory(module, out);
    clrie_plugin_release(module);
    return hr;
}

HRESULT clrie_plugin_element_type(IMethodInfo *method, CorElementType element, IType **out)
{
    ITypeCreator *types = NULL;
    HRESULT hr = type_creator_of(method, &types);
    if (SUCCEEDED(hr))
        hr = types->lpVtbl->FromCorElement(types, element, out);
    clrie_plugin_release(types);
    return hr;
}

HRESULT clrie_plugin_signature_type(IMethodInfo *method, const COR_SIGNATURE *sig, ULONG len,
                                    IType **out)
{
    ITypeCreator *types = NULL;
    DWORD used = 0;
    *out = NULL;
    HRESULT hr = type_creator_of(method, &types);
    if (SUCCEEDED(hr))
        hr = types->lpVtbl->FromSignature(types, len, sig, out, &used);
    if (SUCCEEDED(hr) && used != len) {
        clrie_plugin_release(*out);
        *out = NULL;
        hr = E_INVALIDARG; /* more than one type, or a signature cut short */
    }
    clrie_plugin_release(types);
    return hr;
}

HRESULT clrie_plugin_add_local(IMethodInfo *method, IType *type, DWORD *index)
{
    ILocalVariableCollection *locals = NULL;
    HRESULT hr = method->lpVtbl->GetLocalVariables(method, &locals);
    if (SUCCEEDED(hr))
        hr = locals->lpVtbl->AddLocal(locals, type, index);
    clrie_plugin_release(locals);
    return hr;
}
