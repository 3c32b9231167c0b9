/* An edit several test plugins make (plugin_edits.h). */
#include "plugin_edits.h"

HRESULT test_plugin_add_before_rets(IMethodInfo *mi, int32_t value)
{
    IInstructionGraph *graph = NULL;
    IInstructionFactory *factory = NULL;
    IInstruction *at = NULL;
    HRESULT hr = mi->lpVtbl->GetInstructions(mi, &graph);
    if (SUCCEEDED(hr))
        hr = mi->lpVtbl->GetInstructionFactory(mi, &factory);
    if (SUCCEEDED(hr))
        hr = graph->lpVtbl->GetFirstInstruction(graph, &at);
    while (SUCCEEDED(hr) && at) {
        if (clrie_plugin_opcode(at) == Cee_Ret) {
            IInstruction *load = NULL, *add = NULL;
            hr = factory->lpVtbl->CreateLoadConstInstruction(factory, value, &load);
            if (SUCCEEDED(hr))
                hr = factory->lpVtbl->CreateInstruction(factory, Cee_Add, &add);
            if (SUCCEEDED(hr))
                hr = graph->lpVtbl->InsertBeforeAndRetargetOffsets(graph, at, load);
            if (SUCCEEDED(hr))
                hr = graph->lpVtbl->InsertBefore(graph, at, add);
            clrie_plugin_release(load);
            clrie_plugin_release(add);
        }
        if (SUCCEEDED(hr))
            clrie_plugin_next_instruction(&at);
    }
    clrie_plugin_release(at);
    clrie_plugin_release(factory);
    clrie_plugin_release(graph);
    return hr;
}
