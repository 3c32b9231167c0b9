/* ISingleRetDefaultInstrumentation(2): one shared return point, by libilgraph's single-ret
 * transform, with the return-value local added to the method's LOCAL_SIG. */
#include "il_private.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

static struct il_single_ret *of_single_ret(ISingleRetDefaultInstrumentation2 *This)
{
    return CLRIE_CONTAINER_OF(This, struct il_single_ret, iface);
}

static const struct clrie_plugin_com_iface single_ret_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_ISingleRetDefaultInstrumentation, struct il_single_ret, iface),
    CLRIE_PLUGIN_COM_IFACE(&IID_ISingleRetDefaultInstrumentation2, struct il_single_ret, iface),
    CLRIE_PLUGIN_COM_IFACE(&IID_IDataContainer, struct il_single_ret, data.iface),
};
CLRIE_PM_COM_CLASS_LOGGED(single_ret_class, "ISingleRetDefaultInstrumentation",
                          struct il_single_ret, com, NULL, single_ret_ifaces, IL_LOG_OF);
CLRIE_PM_COM_OWNED(sr, ISingleRetDefaultInstrumentation2, struct il_single_ret, iface, com,
                   IL_OWNER)

static HRESULT STDMETHODCALLTYPE sr_Initialize(ISingleRetDefaultInstrumentation2 *This,
                                               IInstructionGraph *pGraph)
{
    IL_EDIT(of_single_ret(This)->body, "ISingleRetDefaultInstrumentation::Initialize");
    struct il_single_ret *sr = of_single_ret(This);
    if (!pGraph)
        return E_POINTER;
    struct il_graph_view *view = clrie_pm__il_graph_view_from(pGraph);
    if (!view || view->body != sr->body || view->fragment) {
        IL_LOG(sr->body, "ISingleRetDefaultInstrumentation::Initialize: the graph is not the "
                         "method's own");
        return E_INVALIDARG;
    }
    sr->initialized = true;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE sr_Apply(ISingleRetDefaultInstrumentation2 *This)
{
    IL_EDIT(of_single_ret(This)->body, "ISingleRetDefaultInstrumentation::ApplySingleRetDefaultInstrumentation");
    struct il_single_ret *sr = of_single_ret(This);
    struct il_body *body = sr->body;
    const char *what = "ISingleRetDefaultInstrumentation::ApplySingleRetDefaultInstrumentation";
    if (!sr->initialized) {
        IL_LOG(body, "%s: call Initialize with the method's graph first", what);
        return E_UNEXPECTED;
    }
    if (!body->params.method_sig_len) {
        IL_LOG(body, "%s: the method's signature is not known", what);
        return E_FAIL;
    }
    struct clrie_il_method_context m = {
        .method_sig = body->params.method_sig,
        .method_sig_len = body->params.method_sig_len,
    };
    const struct il_body_locals *locals = &body->params.locals;
    if (locals->get) {
        HRESULT hr = locals->get(locals->ctx, &m.local_sig, &m.local_sig_len);
        if (FAILED(hr))
            return hr;
    }
    struct clrie_il_transform_result res;
    struct clrie_il_diag diag = {0};
    int r = clrie_il_transform_single_ret(body->graph, &m, &res, &diag);
    if (r < 0) {
        IL_LOG(body, "%s: %s", what, r == -EILSEQ ? diag.message : "the transform failed");
        return clrie_pm__il_hresult(r);
    }
    HRESULT hr = S_OK;
    if (res.local_sig) {
        hr = locals->set ? locals->set(locals->ctx, res.local_sig, res.local_sig_len) : E_FAIL;
        if (FAILED(hr))
            IL_LOG(body, "%s: the return-value local could not be added (0x%08X)", what,
                   (unsigned)hr);
        free(res.local_sig);
    }
    if (res.changed) {
        sr->exit = res.exit;
        body->edits++;
    }
    return hr;
}

static HRESULT STDMETHODCALLTYPE
sr_GetBranchTargetInstruction(ISingleRetDefaultInstrumentation2 *This, IInstruction **ppInstruction)
{
    struct il_single_ret *sr = of_single_ret(This);
    HRESULT hr =
        clrie_pm__il_instruction_give(sr->body, sr->body->graph, sr->exit, S_FALSE, ppInstruction);
    return hr;
}

static const struct ISingleRetDefaultInstrumentation2Vtbl single_ret_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(sr),
    .Initialize = sr_Initialize,
    .ApplySingleRetDefaultInstrumentation = sr_Apply,
    .GetBranchTargetInstruction = sr_GetBranchTargetInstruction,
};

_Static_assert(CLRIE_ABI_SLOT_COUNT(CLRIE_ISINGLERETDEFAULTINSTRUMENTATION2_METHODS) == 6,
               "ISingleRetDefaultInstrumentation2");
_Static_assert(offsetof(struct ISingleRetDefaultInstrumentation2Vtbl,
                        ApplySingleRetDefaultInstrumentation) ==
                   offsetof(struct ISingleRetDefaultInstrumentationVtbl,
                            ApplySingleRetDefaultInstrumentation),
               "version 2 extends version 1");

void clrie_pm__il_single_ret_init(struct il_single_ret *obj, struct il_body *body)
{
    obj->iface.lpVtbl = &single_ret_vtbl;
    clrie_plugin_com_init(&obj->com, &single_ret_class);
    obj->body = body;
    clrie_pm_data_container_init(&obj->data, (IUnknown *)&obj->iface);
}
