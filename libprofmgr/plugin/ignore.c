/* Events a plugin ignores (clrie/plugin.h): vtable slots that do nothing and return S_OK. */
#include "clrie/plugin.h"

HRESULT STDMETHODCALLTYPE clrie_plugin_ignore_app_domain(IInstrumentationMethod *This,
                                                         IAppDomainInfo *info)
{
    (void)This, (void)info;
    return S_OK;
}

HRESULT STDMETHODCALLTYPE clrie_plugin_ignore_assembly(IInstrumentationMethod *This,
                                                       IAssemblyInfo *info)
{
    (void)This, (void)info;
    return S_OK;
}

HRESULT STDMETHODCALLTYPE clrie_plugin_ignore_module(IInstrumentationMethod *This,
                                                     IModuleInfo *info)
{
    (void)This, (void)info;
    return S_OK;
}

HRESULT STDMETHODCALLTYPE clrie_plugin_ignore_shutdown(IInstrumentationMethod *This)
{
    (void)This;
    return S_OK;
}

HRESULT STDMETHODCALLTYPE clrie_plugin_ignore_method(IInstrumentationMethod *This,
                                                     IMethodInfo *method, BOOL isRejit)
{
    (void)This, (void)method, (void)isRejit;
    return S_OK;
}

HRESULT STDMETHODCALLTYPE clrie_plugin_instrument_nothing(IInstrumentationMethod *This,
                                                          IMethodInfo *method, BOOL isRejit,
                                                          BOOL *instrument)
{
    (void)This, (void)method, (void)isRejit;
    if (!instrument)
        return E_POINTER;
    *instrument = FALSE;
    return S_OK;
}

HRESULT STDMETHODCALLTYPE clrie_plugin_allow_every_inline(IInstrumentationMethod *This,
                                                          IMethodInfo *inlinee, IMethodInfo *caller,
                                                          BOOL *allow)
{
    (void)This, (void)inlinee, (void)caller;
    if (!allow)
        return E_POINTER;
    *allow = TRUE;
    return S_OK;
}

HRESULT STDMETHODCALLTYPE clrie_plugin_ignore_jit_started(IInstrumentationMethodJitEvents2 *This,
                                                          FunctionID functionID, BOOL isRejit)
{
    (void)This, (void)functionID, (void)isRejit;
    return S_OK;
}

HRESULT STDMETHODCALLTYPE clrie_plugin_ignore_jit_complete(IInstrumentationMethodJitEvents2 *This,
                                                           FunctionID functionID, BOOL isRejit,
                                                           HRESULT jitResult)
{
    (void)This, (void)functionID, (void)isRejit, (void)jitResult;
    return S_OK;
}

HRESULT STDMETHODCALLTYPE clrie_plugin_ignore_exception_method(
    IInstrumentationMethodExceptionEvents *This, IMethodInfo *method)
{
    (void)This, (void)method;
    return S_OK;
}

HRESULT STDMETHODCALLTYPE
clrie_plugin_ignore_exception_event(IInstrumentationMethodExceptionEvents *This)
{
    (void)This;
    return S_OK;
}
