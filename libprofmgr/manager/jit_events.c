/* What plugins hear around a JIT compilation, apart from the instrumentation pipeline itself:
 * IInstrumentationMethodJitEvents::JitStarted, JitComplete (v1, or v2 with an IMethodJitInfo2
 * describing the result), and the inlining veto IInstrumentationMethod::AllowInlineSite, whose
 * accepted sites are recorded so that rejitting a method also rejits where it was inlined. */
#include <stdlib.h>

#include "crash.h"
#include "manager.h"
#include "method_info.h"

/* ---- IMethodJitInfo2 ---------------------------------------------------------------------- */

struct jit_info {
    IMethodJitInfo2 iface; /* first */
    struct clrie_pm_data_container data;
    struct clrie_plugin_com com;
    struct manager *owner;
    FunctionID function;
    ReJITID rejit_id;
    bool is_rejit;
    HRESULT status;
    IModuleInfo *module; /* strong; NULL when the engine does not know the module */
    mdMethodDef token;
};

static struct jit_info *jit_info_of(IMethodJitInfo2 *iface)
{
    return (struct jit_info *)(void *)iface;
}

static void jit_info_destroy(void *object)
{
    struct jit_info *ji = object;
    clrie_pm_data_container_finish(&ji->data);
    if (ji->module)
        ji->module->lpVtbl->Release(ji->module);
    free(ji);
}

static const struct clrie_plugin_com_iface jit_info_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IMethodJitInfo, struct jit_info, iface),
    CLRIE_PLUGIN_COM_IFACE(&IID_IMethodJitInfo2, struct jit_info, iface),
    CLRIE_PLUGIN_COM_IFACE(&IID_IDataContainer, struct jit_info, data.iface),
};
CLRIE_PM_COM_CLASS(jit_info_class, "IMethodJitInfo", struct jit_info, com, jit_info_destroy,
                   jit_info_ifaces);
CLRIE_PLUGIN_COM_IUNKNOWN(ji, IMethodJitInfo2, struct jit_info, iface, com)

static HRESULT STDMETHODCALLTYPE ji_GetFunctionID(IMethodJitInfo2 *This, FunctionID *pFunctionId)
{
    if (!pFunctionId)
        return E_POINTER;
    *pFunctionId = jit_info_of(This)->function;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE ji_GetIsRejit(IMethodJitInfo2 *This, BOOL *pIsRejit)
{
    if (!pIsRejit)
        return E_POINTER;
    *pIsRejit = jit_info_of(This)->is_rejit ? TRUE : FALSE;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE ji_GetRejitId(IMethodJitInfo2 *This, ReJITID *pRejitId)
{
    if (!pRejitId)
        return E_POINTER;
    *pRejitId = jit_info_of(This)->rejit_id;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE ji_GetJitHR(IMethodJitInfo2 *This, HRESULT *pHResult)
{
    if (!pHResult)
        return E_POINTER;
    *pHResult = jit_info_of(This)->status;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE ji_GetILTransformationStatus(IMethodJitInfo2 *This,
                                                              BOOL *pIsTranformed)
{
    struct jit_info *ji = jit_info_of(This);
    ULONG32 needed = 0;
    if (!pIsTranformed)
        return E_POINTER;
    *pIsTranformed = FALSE;
    if (ji->module)
        clrie_pm_module_il_map(ji->module, ji->token, 0, NULL, &needed, pIsTranformed);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE ji_GetModuleInfo(IMethodJitInfo2 *This, IModuleInfo **ppModuleInfo)
{
    struct jit_info *ji = jit_info_of(This);
    if (!ppModuleInfo)
        return E_POINTER;
    *ppModuleInfo = ji->module;
    if (!ji->module)
        return E_FAIL;
    ji->module->lpVtbl->AddRef(ji->module);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE ji_GetILNativeMapping(IMethodJitInfo2 *This, ULONG32 cMaps,
                                                       COR_DEBUG_IL_TO_NATIVE_MAP pMap[],
                                                       ULONG32 *pcNeeded)
{
    struct jit_info *ji = jit_info_of(This);
    ICorProfilerInfo15 *info = ji->owner->info;
    if (!pcNeeded)
        return E_POINTER;
    if (ji->is_rejit)
        return info->lpVtbl->GetILToNativeMapping2(info, ji->function, ji->rejit_id, cMaps,
                                                   pcNeeded, pMap);
    return info->lpVtbl->GetILToNativeMapping(info, ji->function, cMaps, pcNeeded, pMap);
}

static HRESULT STDMETHODCALLTYPE ji_GetILInstrumentationMap(IMethodJitInfo2 *This, ULONG32 cMaps,
                                                            COR_IL_MAP pMap[], ULONG32 *pcNeeded)
{
    struct jit_info *ji = jit_info_of(This);
    BOOL transformed = FALSE;
    if (!pcNeeded)
        return E_POINTER;
    *pcNeeded = 0;
    if (!ji->module)
        return S_OK;
    HRESULT hr = clrie_pm_module_il_map(ji->module, ji->token, cMaps, pMap, pcNeeded, &transformed);
    return FAILED(hr) ? hr : S_OK;
}

static HRESULT STDMETHODCALLTYPE ji_GetMethodToken(IMethodJitInfo2 *This, mdMethodDef *pToken)
{
    if (!pToken)
        return E_POINTER;
    *pToken = jit_info_of(This)->token;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE ji_GetNativeCodeAddress(IMethodJitInfo2 *This,
                                                         UINT_PTR *pCodeAddress)
{
    struct jit_info *ji = jit_info_of(This);
    ICorProfilerInfo15 *info = ji->owner->info;
    COR_PRF_CODE_INFO code[1];
    ULONG32 count = 0;
    if (!pCodeAddress)
        return E_POINTER;
    *pCodeAddress = 0;
    HRESULT hr = ji->is_rejit
                     ? info->lpVtbl->GetCodeInfo3(info, ji->function, ji->rejit_id, 1, &count, code)
                     : info->lpVtbl->GetCodeInfo2(info, ji->function, 1, &count, code);
    if (FAILED(hr))
        return hr;
    if (count == 0)
        return E_FAIL;
    *pCodeAddress = code[0].startAddress;
    return S_OK;
}

static const struct IMethodJitInfo2Vtbl jit_info_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(ji),
    .GetFunctionID = ji_GetFunctionID,
    .GetIsRejit = ji_GetIsRejit,
    .GetRejitId = ji_GetRejitId,
    .GetJitHR = ji_GetJitHR,
    .GetILTransformationStatus = ji_GetILTransformationStatus,
    .GetModuleInfo = ji_GetModuleInfo,
    .GetILNativeMapping = ji_GetILNativeMapping,
    .GetILInstrumentationMap = ji_GetILInstrumentationMap,
    .GetMethodToken = ji_GetMethodToken,
    .GetNativeCodeAddress = ji_GetNativeCodeAddress,
};

static struct jit_info *jit_info_new(struct manager *m, FunctionID function, ReJITID rejit_id,
                                     bool is_rejit, HRESULT status)
{
    struct jit_info *ji = calloc(1, sizeof(*ji));
    if (!ji)
        return NULL;
    ji->iface.lpVtbl = &jit_info_vtbl;
    clrie_pm_data_container_init(&ji->data, (IUnknown *)(void *)&ji->iface);
    clrie_plugin_com_init(&ji->com, &jit_info_class);
    ji->owner = m;
    ji->function = function;
    ji->rejit_id = rejit_id;
    ji->is_rejit = is_rejit;
    ji->status = status;
    ClassID class_id = 0;
    ModuleID module_id = 0;
    if (SUCCEEDED(m->info->lpVtbl->GetFunctionInfo(m->info, function, &class_id, &module_id,
                                                   &ji->token)) &&
        m->domains && FAILED(clrie_pm_domains_find_module(m->domains, module_id, &ji->module)))
        ji->module = NULL;
    return ji;
}

/* ---- events ---------------------------------------------------------------------------------- */

void clrie_pm__jit_events_started(struct manager *m, FunctionID function, bool is_rejit)
{
    struct plugin_list *list = clrie_pm__manager_plugins_enter(m);
    for (size_t i = 0; i < list->count; i++) {
        struct plugin *p = list->items[i];
        IInstrumentationMethodJitEvents *events =
            p->jit_events2 ? (IInstrumentationMethodJitEvents *)(void *)p->jit_events2
                           : p->jit_events;
        if (events)
            CLRIE_PM__IN_PLUGIN(
                p, "JitStarted",
                events->lpVtbl->JitStarted(events, function, is_rejit ? TRUE : FALSE));
    }
    clrie_pm__manager_plugins_leave(m);
}

void clrie_pm__jit_events_finished(struct manager *m, FunctionID function, ReJITID rejit_id,
                                   bool is_rejit, HRESULT status)
{
    struct plugin_list *list = clrie_pm__manager_plugins_enter(m);
    struct jit_info *ji = NULL;
    for (size_t i = 0; i < list->count; i++) {
        struct plugin *p = list->items[i];
        if (p->jit_events2) {
            if (!ji && !(ji = jit_info_new(m, function, rejit_id, is_rejit, status)))
                continue;
            CLRIE_PM__IN_PLUGIN(p, "JitComplete2",
                                p->jit_events2->lpVtbl->JitComplete2(
                                    p->jit_events2, (IMethodJitInfo *)(void *)&ji->iface));
        } else if (p->jit_events) {
            CLRIE_PM__IN_PLUGIN(p, "JitComplete",
                                p->jit_events->lpVtbl->JitComplete(
                                    p->jit_events, function, is_rejit ? TRUE : FALSE, status));
        }
    }
    if (ji)
        ji->iface.lpVtbl->Release(&ji->iface);
    clrie_pm__manager_plugins_leave(m);
}

bool clrie_pm__jit_events_allow_inline(struct manager *m, FunctionID caller, FunctionID callee)
{
    if (clrie_pm__manager_plugins(m)->count == 0)
        return true; /* no plugin: nothing to count or do */
    struct plugin_list *list = clrie_pm__manager_plugins_enter(m);
    struct method_info *inlinee = NULL, *inliner = NULL;
    bool allow = true;
    if (list->count == 0)
        goto out;
    /* A method the engine cannot describe (dynamic module) is inlined as the JIT likes. */
    if (FAILED(clrie_pm__method_info_by_function(m, callee, &inlinee)) ||
        FAILED(clrie_pm__method_info_by_function(m, caller, &inliner)))
        goto out;
    for (size_t i = 0; i < list->count && allow; i++) {
        IInstrumentationMethod *method = list->items[i]->method;
        BOOL yes = TRUE;
        HRESULT hr;
        CLRIE_PM__IN_PLUGIN(list->items[i], "AllowInlineSite",
                            hr = method->lpVtbl->AllowInlineSite(method, method_info_iface(inlinee),
                                                                 method_info_iface(inliner), &yes));
        if (SUCCEEDED(hr))
            allow = yes != FALSE;
    }
    if (allow)
        clrie_pm_module_add_inline_site(inlinee->module, inlinee->token, inliner->module_id,
                                        inliner->token);
out:
    clrie_pm__method_info_release(inlinee);
    clrie_pm__method_info_release(inliner);
    clrie_pm__manager_plugins_leave(m);
    return allow;
}
