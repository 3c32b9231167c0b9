/* Metadata (clrie/plugin.h): type and method names read through IMetaDataImport, a module's
 * metadata interfaces, and its AssemblyRefs. */
#include "clrie/plugin.h"

#include <stdlib.h>
#include <string.h>

static HRESULT type_name(IMetaDataImport *import, mdTypeDef type, WCHAR *out, size_t capacity,
                         int depth)
{
    WCHAR name[CLRIE_PLUGIN_NAME_UNITS];
    ULONG len = 0;
    DWORD flags = 0;
    mdToken extends = mdTokenNil;
    HRESULT hr = import->lpVtbl->GetTypeDefProps(import, type, name, CLRIE_PLUGIN_NAME_UNITS, &len,
                                                 &flags, &extends);
    if (FAILED(hr))
        return hr;
    name[CLRIE_PLUGIN_NAME_UNITS - 1] = 0;
    out[0] = 0;
    mdTypeDef enclosing = mdTokenNil;
    if (depth < 16 && SUCCEEDED(import->lpVtbl->GetNestedClassProps(import, type, &enclosing)) &&
        enclosing != mdTokenNil) {
        if (SUCCEEDED(type_name(import, enclosing, out, capacity, depth + 1)))
            clrie_plugin_wcs_append_utf8(out, capacity, "+");
    }
    clrie_plugin_wcs_append(out, capacity, name);
    return S_OK;
}

HRESULT clrie_plugin_type_name(IMetaDataImport *import, mdTypeDef type, WCHAR *out, size_t capacity)
{
    return type_name(import, type, out, capacity, 0);
}

static HRESULT type_methods_each(IMetaDataImport *import, mdTypeDef type,
                                 clrie_plugin_method_def_fn fn, void *data)
{
    WCHAR full[2 * CLRIE_PLUGIN_NAME_UNITS + 4];
    if (FAILED(clrie_plugin_type_name(import, type, full, CLRIE_PLUGIN_NAME_UNITS)))
        return S_OK; /* a type without a readable name: its methods are skipped */
    clrie_plugin_wcs_append_utf8(full, sizeof full / sizeof full[0], "::");
    size_t prefix = clrie_plugin_wcs_len(full);
    HCORENUM methods = NULL;
    mdMethodDef tokens[64];
    ULONG count = 0;
    HRESULT hr = S_OK;
    while (SUCCEEDED(hr) &&
           import->lpVtbl->EnumMethods(import, &methods, type, tokens, 64, &count) == S_OK &&
           count > 0) {
        for (ULONG m = 0; m < count && SUCCEEDED(hr); m++) {
            WCHAR method[CLRIE_PLUGIN_NAME_UNITS];
            ULONG len = 0, sig_len, rva;
            mdTypeDef owner;
            DWORD attributes, impl;
            PCCOR_SIGNATURE sig;
            if (FAILED(import->lpVtbl->GetMethodProps(import, tokens[m], &owner, method,
                                                      CLRIE_PLUGIN_NAME_UNITS, &len, &attributes,
                                                      &sig, &sig_len, &rva, &impl)))
                continue;
            method[CLRIE_PLUGIN_NAME_UNITS - 1] = 0;
            full[prefix] = 0;
            clrie_plugin_wcs_append(full, sizeof full / sizeof full[0], method);
            hr = fn(data, tokens[m], full, rva);
        }
    }
    import->lpVtbl->CloseEnum(import, methods);
    return hr;
}

HRESULT clrie_plugin_method_defs_each(IMetaDataImport *import, clrie_plugin_method_def_fn fn,
                                      void *data)
{
    HCORENUM types = NULL;
    mdTypeDef tokens[64];
    ULONG count = 0;
    HRESULT hr = S_OK;
    while (SUCCEEDED(hr) &&
           import->lpVtbl->EnumTypeDefs(import, &types, tokens, 64, &count) == S_OK && count > 0) {
        for (ULONG t = 0; t < count && SUCCEEDED(hr); t++)
            hr = type_methods_each(import, tokens[t], fn, data);
    }
    import->lpVtbl->CloseEnum(import, types);
    return hr;
}

HRESULT clrie_plugin_module_metadata(IModuleInfo *module, REFIID riid, void **out)
{
    if (!out)
        return E_POINTER;
    *out = NULL;
    IUnknown *unknown = NULL;
    HRESULT hr;
    if (IsEqualIID(riid, &IID_IMetaDataImport))
        hr = module->lpVtbl->GetMetaDataImport(module, &unknown);
    else if (IsEqualIID(riid, &IID_IMetaDataEmit))
        hr = module->lpVtbl->GetMetaDataEmit(module, &unknown);
    else if (IsEqualIID(riid, &IID_IMetaDataAssemblyImport))
        hr = module->lpVtbl->GetMetaDataAssemblyImport(module, &unknown);
    else if (IsEqualIID(riid, &IID_IMetaDataAssemblyEmit))
        hr = module->lpVtbl->GetMetaDataAssemblyEmit(module, &unknown);
    else
        return E_NOINTERFACE;
    if (SUCCEEDED(hr) && !unknown)
        hr = E_NOINTERFACE;
    if (SUCCEEDED(hr))
        hr = unknown->lpVtbl->QueryInterface(unknown, riid, out);
    clrie_plugin_release(unknown);
    return hr;
}

HRESULT clrie_plugin_metadata_init(struct clrie_plugin_metadata *metadata, IModuleInfo *module)
{
    memset(metadata, 0, sizeof *metadata);
    HRESULT hr =
        clrie_plugin_module_metadata(module, &IID_IMetaDataImport, (void **)&metadata->import);
    if (SUCCEEDED(hr))
        hr = clrie_plugin_module_metadata(module, &IID_IMetaDataEmit, (void **)&metadata->emit);
    if (SUCCEEDED(hr))
        hr = clrie_plugin_module_metadata(module, &IID_IMetaDataAssemblyImport,
                                          (void **)&metadata->assembly_import);
    if (SUCCEEDED(hr))
        hr = clrie_plugin_module_metadata(module, &IID_IMetaDataAssemblyEmit,
                                          (void **)&metadata->assembly_emit);
    if (FAILED(hr))
        clrie_plugin_metadata_finish(metadata);
    return hr;
}

void clrie_plugin_metadata_finish(struct clrie_plugin_metadata *metadata)
{
    clrie_plugin_release(metadata->assembly_emit);
    clrie_plugin_release(metadata->assembly_import);
    clrie_plugin_release(metadata->emit);
    clrie_plugin_release(metadata->import);
    memset(metadata, 0, sizeof *metadata);
}

mdAssemblyRef clrie_plugin_find_assembly_ref(IMetaDataAssemblyImport *assemblies, const char *name,
                                             ASSEMBLYMETADATA *version)
{
    HCORENUM e = NULL;
    mdAssemblyRef refs[64];
    ULONG count = 0;
    mdAssemblyRef found = mdTokenNil;
    while (found == mdTokenNil &&
           assemblies->lpVtbl->EnumAssemblyRefs(assemblies, &e, refs, 64, &count) == S_OK &&
           count > 0) {
        for (ULONG i = 0; i < count && found == mdTokenNil; i++) {
            WCHAR text[CLRIE_PLUGIN_NAME_UNITS];
            ULONG len = 0;
            ASSEMBLYMETADATA meta;
            memset(&meta, 0, sizeof meta);
            const void *key = NULL, *hash = NULL;
            ULONG key_len = 0, hash_len = 0;
            DWORD flags = 0;
            if (FAILED(assemblies->lpVtbl->GetAssemblyRefProps(assemblies, refs[i], &key, &key_len,
                                                               text, CLRIE_PLUGIN_NAME_UNITS, &len,
                                                               &meta, &hash, &hash_len, &flags)))
                continue;
            text[CLRIE_PLUGIN_NAME_UNITS - 1] = 0;
            char *utf8 = clrie_plugin_bstr_to_utf8(text);
            if (utf8 && strcmp(utf8, name) == 0) {
                found = refs[i];
                if (version)
                    *version = meta;
            }
            free(utf8);
        }
    }
    assemblies->lpVtbl->CloseEnum(assemblies, e);
    return found;
}
