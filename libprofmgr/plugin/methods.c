/* Methods (clrie/plugin.h): an IMethodInfo's names as UTF-8 and its (module, token) key. */
#include "clrie/plugin.h"

static HRESULT method_name(IMethodInfo *method, IProfilerStringManager *strings, bool full,
                           char *buf, size_t size)
{
    BSTR text = NULL;
    HRESULT hr =
        full ? method->lpVtbl->GetFullName(method, &text) : method->lpVtbl->GetName(method, &text);
    if (size)
        buf[0] = '\0';
    if (SUCCEEDED(hr))
        clrie_plugin_bstr_to_utf8_buf(text, buf, size);
    clrie_plugin_free_bstr(strings, text);
    return hr;
}

HRESULT clrie_plugin_method_full_name(IMethodInfo *method, IProfilerStringManager *strings,
                                      char *buf, size_t size)
{
    return method_name(method, strings, true, buf, size);
}

HRESULT clrie_plugin_method_name(IMethodInfo *method, IProfilerStringManager *strings, char *buf,
                                 size_t size)
{
    return method_name(method, strings, false, buf, size);
}

HRESULT clrie_plugin_method_key(IMethodInfo *method, ModuleID *module, mdMethodDef *token)
{
    IModuleInfo *info = NULL;
    HRESULT hr = method->lpVtbl->GetModuleInfo(method, &info);
    if (SUCCEEDED(hr) && !info)
        hr = E_FAIL;
    if (SUCCEEDED(hr))
        hr = info->lpVtbl->GetModuleID(info, module);
    clrie_plugin_release(info);
    if (SUCCEEDED(hr))
        hr = method->lpVtbl->GetMethodToken(method, token);
    return hr;
}
