/* ITypeCreator and ISignatureParser: a module's type factory (IModuleInfo::CreateTypeFactory),
 * which turns signature bytes, element types and tokens into ITypes, and method, local and
 * type-sequence signatures into enumerators of them. Also what IMethodInfo builds on: the
 * parameters, return type and declaring type of a method.
 *
 * Differences from CLRIE, which reads past the end of truncated blobs: every blob is measured by
 * libilgraph first and a malformed, truncated or too deeply nested one is E_INVALIDARG (CLRIE
 * answered E_UNEXPECTED, or E_NOTIMPL for an unknown element type). The optional out-parameters
 * the IDL marks optional are optional here too (FromSignature's size was required by CLRIE).
 * FromCorElement also takes TYPEDBYREF, and refuses what is not a plain element with
 * E_INVALIDARG (CLRIE: E_NOTIMPL); FromToken refuses a token that is not a TypeDef, TypeRef or
 * TypeSpec.
 *
 * The creator is immutable and may be used from any thread. */
#include <stdlib.h>
#include <string.h>

#include "clrie/ilgraph.h"
#include "types_private.h"
#include "utf16.h"

#define CREATOR_OF(ptr, member) CLRIE_CONTAINER_OF(ptr, struct types_creator, member)

/* CorTypeAttr bits IsValueType looks at */
#define TD_INTERFACE 0x20u
#define TD_ABSTRACT 0x80u
#define TD_SEALED 0x100u

static void creator_destroy(void *object)
{
    struct types_creator *c = object;
    clrie_pm_data_container_finish(&c->data);
    if (c->import)
        c->import->lpVtbl->Release(c->import);
    if (c->module)
        c->module->lpVtbl->Release(c->module);
    free(c);
}

static const struct clrie_plugin_com_iface creator_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_ITypeCreator, struct types_creator, iface),
    CLRIE_PLUGIN_COM_IFACE(&IID_ISignatureParser, struct types_creator, parser),
    CLRIE_PLUGIN_COM_IFACE(&IID_IDataContainer, struct types_creator, data.iface),
};
CLRIE_PM_COM_CLASS(creator_class, "ITypeCreator", struct types_creator, com, creator_destroy,
                   creator_ifaces);
CLRIE_PLUGIN_COM_IUNKNOWN(creator, ITypeCreator, struct types_creator, iface, com)
CLRIE_PLUGIN_COM_IUNKNOWN(parser, ISignatureParser, struct types_creator, parser, com)

/* ---- ITypeCreator ------------------------------------------------------------------------- */

static HRESULT STDMETHODCALLTYPE creator_FromSignature(ITypeCreator *This, DWORD cbBuffer,
                                                       const BYTE *pCorSignature, IType **ppType,
                                                       DWORD *pdwSigSize)
{
    if (!ppType)
        return E_POINTER;
    *ppType = NULL;
    if (pdwSigSize)
        *pdwSigSize = 0;
    if (!pCorSignature)
        return E_POINTER;
    if (cbBuffer == 0)
        return E_INVALIDARG;
    size_t used;
    /* A lone sentinel-prefixed type, as CLRIE allowed. */
    HRESULT hr = clrie_pm__types_type_parse(This, pCorSignature, cbBuffer, true, ppType, &used);
    if (SUCCEEDED(hr) && pdwSigSize)
        *pdwSigSize = (DWORD)used;
    return hr;
}

static HRESULT STDMETHODCALLTYPE creator_FromCorElement(ITypeCreator *This, CorElementType type,
                                                        IType **ppType)
{
    if (!ppType)
        return E_POINTER;
    *ppType = NULL;
    if ((uint32_t)type > 0xFF || !clrie_il_sig_element_is_simple((uint8_t)type))
        return E_INVALIDARG;
    uint8_t byte = (uint8_t)type;
    return clrie_pm__types_type_parse(This, &byte, 1, false, ppType, NULL);
}

static HRESULT STDMETHODCALLTYPE creator_FromToken(ITypeCreator *This, CorElementType type,
                                                   mdToken token, IType **ppType)
{
    if (!ppType)
        return E_POINTER;
    *ppType = NULL;
    if (type != ELEMENT_TYPE_CLASS && type != ELEMENT_TYPE_VALUETYPE)
        return E_INVALIDARG;
    uint8_t bytes[5] = {(uint8_t)type};
    int n = clrie_il_sig_write_token(token, bytes + 1);
    if (n < 0)
        return E_INVALIDARG;
    return clrie_pm__types_type_parse(This, bytes, 1 + (size_t)n, false, ppType, NULL);
}

static const struct ITypeCreatorVtbl creator_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(creator),
    .FromSignature = creator_FromSignature,
    .FromCorElement = creator_FromCorElement,
    .FromToken = creator_FromToken,
};

/* ---- sequences ---------------------------------------------------------------------------- */

void clrie_pm__types_release_all(IType **types, size_t count)
{
    for (size_t i = 0; i < count; i++)
        types[i]->lpVtbl->Release(types[i]);
    free(types);
}

HRESULT clrie_pm__types_parse_sequence(ITypeCreator *creator, const uint8_t *p, size_t len,
                                       uint32_t count, bool allow_sentinel, IType ***types,
                                       size_t *used)
{
    IType **list = NULL;
    size_t n = 0, capacity = 0, at = 0;
    HRESULT hr = S_OK;
    /* Every type takes at least one byte, so a hostile count stops at the end of the blob. */
    while (n < count) {
        if (n == capacity) {
            capacity = capacity ? capacity * 2 : 8;
            IType **grown = realloc(list, capacity * sizeof(*list));
            if (!grown) {
                hr = E_OUTOFMEMORY;
                goto fail;
            }
            list = grown;
        }
        size_t type_len;
        if (at >= len) {
            hr = E_INVALIDARG;
            goto fail;
        }
        if (FAILED(hr = clrie_pm__types_type_parse(creator, p + at, len - at, allow_sentinel,
                                                   &list[n], &type_len)))
            goto fail;
        n++;
        at += type_len;
    }
    *types = list;
    *used = at;
    return S_OK;
fail:
    clrie_pm__types_release_all(list, n);
    return hr;
}

HRESULT clrie_pm__types_parse_locals(ITypeCreator *creator, const uint8_t *sig, size_t len,
                                     IType ***types, uint32_t *count)
{
    uint32_t n;
    size_t at, used;
    if (len == 0) {
        *types = NULL;
        *count = 0;
        return S_OK;
    }
    if (clrie_il_sig_local_header(sig, len, &n, &at) < 0)
        return E_INVALIDARG;
    IType **list;
    HRESULT hr =
        clrie_pm__types_parse_sequence(creator, sig + at, len - at, n, false, &list, &used);
    if (FAILED(hr))
        return hr;
    if (at + used != len) { /* bytes after the last local */
        clrie_pm__types_release_all(list, n);
        return E_INVALIDARG;
    }
    *types = list;
    *count = n;
    return S_OK;
}

/* An IEnumTypes over types (the enumerator takes its own references; types is released). */
static HRESULT enum_of(IType **types, size_t count, IEnumTypes **out)
{
    void *e;
    HRESULT hr = clrie_pm_enum_from_array(&IID_IEnumTypes, types, count, NULL,
                                          CLRIE_PM_ENUM_DATA_CONTAINER, &e);
    clrie_pm__types_release_all(types, count);
    if (SUCCEEDED(hr))
        *out = e;
    return hr;
}

/* ---- ISignatureParser --------------------------------------------------------------------- */

struct method_parts {
    ULONG calling_convention;
    ULONG generic_count;
    IType *ret;
    IType **params;
    uint32_t param_count;
    size_t used;
};

static void method_parts_finish(struct method_parts *m)
{
    if (m->ret)
        m->ret->lpVtbl->Release(m->ret);
    clrie_pm__types_release_all(m->params, m->param_count);
}

static HRESULT parse_method(ITypeCreator *creator, const uint8_t *sig, size_t len,
                            struct method_parts *out)
{
    struct clrie_il_method_sig m;
    if (!creator || !sig)
        return E_POINTER;
    if (clrie_il_sig_parse_method(sig, len, &m, NULL) < 0)
        return E_INVALIDARG;
    memset(out, 0, sizeof(*out));
    out->calling_convention = m.calling_convention;
    out->generic_count = m.generic_count;
    size_t used;
    HRESULT hr =
        clrie_pm__types_type_parse(creator, sig + m.ret_offset, m.ret_len, false, &out->ret, &used);
    if (FAILED(hr))
        return hr;
    size_t at = m.ret_offset + m.ret_len;
    hr = clrie_pm__types_parse_sequence(creator, sig + at, len - at, m.param_count, true,
                                        &out->params, &used);
    if (FAILED(hr)) {
        out->ret->lpVtbl->Release(out->ret);
        out->ret = NULL;
        return hr;
    }
    out->param_count = m.param_count;
    out->used = at + used;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE parser_ParseMethodSignature(
    ISignatureParser *This, const BYTE *pSignature, ULONG cbSignature, ULONG *pCallingConvention,
    IType **ppReturnType, IEnumTypes **ppEnumParameterTypes, ULONG *pcGenericTypeParameters,
    ULONG *pcbRead)
{
    if (ppReturnType)
        *ppReturnType = NULL;
    if (ppEnumParameterTypes)
        *ppEnumParameterTypes = NULL;
    struct method_parts m;
    HRESULT hr = parse_method(&CREATOR_OF(This, parser)->iface, pSignature, cbSignature, &m);
    if (FAILED(hr))
        return hr;
    if (ppEnumParameterTypes) {
        hr = enum_of(m.params, m.param_count, ppEnumParameterTypes);
        m.params = NULL;
        m.param_count = 0;
        if (FAILED(hr)) {
            method_parts_finish(&m);
            return hr;
        }
    }
    if (pCallingConvention)
        *pCallingConvention = m.calling_convention;
    if (pcGenericTypeParameters)
        *pcGenericTypeParameters = m.generic_count;
    if (pcbRead)
        *pcbRead = (ULONG)m.used;
    if (ppReturnType) {
        *ppReturnType = m.ret;
        m.ret = NULL;
    }
    method_parts_finish(&m);
    return S_OK;
}

/* Parses count types from p[0..len) into an IEnumTypes in *out (only measures them when out is
 * NULL); *used is their total length. */
static HRESULT parse_sequence_into(ISignatureParser *This, const uint8_t *p, size_t len,
                                   uint32_t count, bool allow_sentinel, IEnumTypes **out,
                                   size_t *used)
{
    IType **types;
    HRESULT hr = clrie_pm__types_parse_sequence(&CREATOR_OF(This, parser)->iface, p, len, count,
                                                allow_sentinel, &types, used);
    if (FAILED(hr))
        return hr;
    if (out)
        return enum_of(types, count, out);
    clrie_pm__types_release_all(types, count);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE
parser_ParseLocalVarSignature(ISignatureParser *This, const BYTE *pSignature, ULONG cbSignature,
                              ULONG *pCallingConvention, IEnumTypes **ppEnumTypes, ULONG *pcbRead)
{
    if (ppEnumTypes)
        *ppEnumTypes = NULL;
    if (!pSignature)
        return E_POINTER;
    uint32_t count;
    size_t at, used;
    if (cbSignature == 0 || clrie_il_sig_local_header(pSignature, cbSignature, &count, &at) < 0)
        return E_INVALIDARG;
    HRESULT hr = parse_sequence_into(This, pSignature + at, cbSignature - at, count, false,
                                     ppEnumTypes, &used);
    if (FAILED(hr))
        return hr;
    if (pCallingConvention)
        *pCallingConvention = CLRIE_IL_CALLCONV_LOCAL_SIG;
    if (pcbRead)
        *pcbRead = (ULONG)(at + used);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE parser_ParseTypeSequence(ISignatureParser *This,
                                                          const BYTE *pBuffer, ULONG cbBuffer,
                                                          ULONG cTypes, IEnumTypes **ppEnumTypes,
                                                          ULONG *pcbRead)
{
    if (ppEnumTypes)
        *ppEnumTypes = NULL;
    if (!pBuffer)
        return E_POINTER;
    size_t used;
    HRESULT hr = parse_sequence_into(This, pBuffer, cbBuffer, cTypes, true, ppEnumTypes, &used);
    if (FAILED(hr))
        return hr;
    if (pcbRead)
        *pcbRead = (ULONG)used;
    return S_OK;
}

static const struct ISignatureParserVtbl parser_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(parser),
    .ParseMethodSignature = parser_ParseMethodSignature,
    .ParseLocalVarSignature = parser_ParseLocalVarSignature,
    .ParseTypeSequence = parser_ParseTypeSequence,
};

/* ---- the contract ------------------------------------------------------------------------- */

HRESULT clrie_pm_types_creator_new(IModuleInfo *module, IMetaDataImport *import, ITypeCreator **out)
{
    if (!out)
        return E_POINTER;
    *out = NULL;
    struct types_creator *c = calloc(1, sizeof(*c));
    if (!c)
        return E_OUTOFMEMORY;
    c->iface.lpVtbl = &creator_vtbl;
    c->parser.lpVtbl = &parser_vtbl;
    clrie_plugin_com_init(&c->com, &creator_class);
    clrie_pm_data_container_init(&c->data, (IUnknown *)&c->iface);
    if ((c->module = module))
        module->lpVtbl->AddRef(module);
    if ((c->import = import))
        import->lpVtbl->AddRef(import);
    *out = &c->iface;
    return S_OK;
}

/* parse_method for a function whose out-parameter (a pointer to an interface pointer) is
 * cleared first: E_POINTER when it is NULL. */
static HRESULT parse_method_for_out(ITypeCreator *creator, const uint8_t *sig, size_t len,
                                    void *out, struct method_parts *m)
{
    if (!out)
        return E_POINTER;
    memset(out, 0, sizeof(void *));
    return parse_method(creator, sig, len, m);
}

HRESULT clrie_pm_types_method_parameters(ITypeCreator *creator, const uint8_t *method_sig,
                                         size_t len, IEnumMethodParameters **out)
{
    struct method_parts m;
    HRESULT hr = parse_method_for_out(creator, method_sig, len, out, &m);
    if (FAILED(hr))
        return hr;
    void *e;
    hr = clrie_pm__types_enum_wrapping(TYPES_ENUM_PARAMETERS, m.params, m.param_count, &e);
    method_parts_finish(&m);
    if (SUCCEEDED(hr))
        *out = e;
    return hr;
}

HRESULT clrie_pm_types_return_type(ITypeCreator *creator, const uint8_t *method_sig, size_t len,
                                   IType **out)
{
    struct method_parts m;
    HRESULT hr = parse_method_for_out(creator, method_sig, len, out, &m);
    if (FAILED(hr))
        return hr;
    *out = m.ret;
    m.ret = NULL;
    method_parts_finish(&m);
    return S_OK;
}

static bool utf16_equals(const char16_t *a, const char *ascii)
{
    size_t n = strlen(ascii);
    if (clrie_pm_bstr_len(a) != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (a[i] != (char16_t)ascii[i])
            return false;
    return true;
}

/* As CLRIE's IsValueType: a sealed, non-abstract class whose base is System.ValueType or
 * System.Enum. */
static HRESULT is_value_type(IMetaDataImport *import, mdTypeDef type, bool *value_type)
{
    DWORD flags = 0;
    mdToken extends = mdTokenNil;
    *value_type = false;
    HRESULT hr = import->lpVtbl->GetTypeDefProps(import, type, NULL, 0, NULL, &flags, &extends);
    if (FAILED(hr))
        return hr;
    if ((flags & TD_INTERFACE) || (flags & TD_ABSTRACT) || !(flags & TD_SEALED) ||
        ((extends >> 24) != 0x02 && (extends >> 24) != 0x01))
        return S_OK;
    BSTR base;
    if (FAILED(hr = clrie_pm__types_token_name(import, extends, &base)))
        return hr;
    *value_type = utf16_equals(base, "System.ValueType") || utf16_equals(base, "System.Enum");
    clrie_pm_bstr_free(base);
    return S_OK;
}

HRESULT clrie_pm_types_declaring_type(ITypeCreator *creator, mdTypeDef type, IType **out)
{
    if (!creator || !out)
        return E_POINTER;
    *out = NULL;
    if ((type >> 24) != 0x02)
        return E_INVALIDARG;
    bool value_type = false;
    IMetaDataImport *import = types_creator_import(creator);
    if (import) {
        HRESULT hr = is_value_type(import, type, &value_type);
        if (FAILED(hr))
            return hr;
    }
    return creator->lpVtbl->FromToken(
        creator, value_type ? ELEMENT_TYPE_VALUETYPE : ELEMENT_TYPE_CLASS, type, out);
}
