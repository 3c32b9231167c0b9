/* IType and its kinds: ITokenType (CLASS/VALUETYPE with a TypeDef, TypeRef or TypeSpec token),
 * ICompositeType (PTR, BYREF, SZARRAY, ARRAY: the element; GENERICINST: the generic type),
 * IGenericParameterType (VAR, MVAR), and plain types (primitives, STRING, OBJECT, TYPEDBYREF,
 * FNPTR, and the runtime's INTERNAL type handle, which CLRIE refused). One object serves every
 * kind; QueryInterface answers the kind's interface only.
 *
 * A type keeps the exact bytes it was read from, custom modifiers, PINNED and a vararg SENTINEL
 * included, and AddToSignature appends exactly those: a type parsed from a signature re-emits it
 * byte for byte (CLRIE rebuilt the bytes and so moved modifiers behind PINNED). The kind,
 * element type and related types describe what follows those prefixes.
 *
 * Names are CLRIE's: element names ("I4", "STRING", "SZARRAY", "GENERICINST", "VAR") for all
 * but token types, which give their metadata name ("System.Object", "Outer+Inner" for nested
 * TypeDefs); a TypeSpec or a creator without metadata has no name (E_FAIL, as CLRIE).
 * IsClass is TRUE for ELEMENT_TYPE_CLASS and for generic instances of a class (CLRIE answers
 * FALSE for every type).
 *
 * Types are immutable and may be shared between threads. Each holds its creator (which holds
 * the module and metadata) and its related types. */
#include <stdlib.h>
#include <string.h>

#include "clrie/ilgraph.h"
#include "types_private.h"
#include "utf16.h"

enum kind { KIND_SIMPLE, KIND_TOKEN, KIND_COMPOSITE, KIND_GENERIC_PARAM };

struct type {
    IType iface; /* first */
    ITokenType token_iface;
    ICompositeType composite_iface;
    IGenericParameterType generic_iface;
    struct clrie_pm_data_container data;
    struct clrie_plugin_com com; /* its class is its kind's */
    ITypeCreator *creator; /* strong */
    enum kind kind;
    CorElementType element; /* the element after the prefixes */
    mdToken token;          /* KIND_TOKEN */
    ULONG position;         /* KIND_GENERIC_PARAM */
    IType *related;         /* KIND_COMPOSITE: strong */
    bool related_is_class;  /* GENERICINST of a CLASS */
    size_t len;
    uint8_t bytes[];
};

_Static_assert(offsetof(struct type, iface) == 0, "iface first");

static const struct ITypeVtbl type_vtbl;

#define TYPE_OF(ptr, member) CLRIE_CONTAINER_OF(ptr, struct type, member)

static void type_destroy(void *object)
{
    struct type *t = object;
    clrie_pm_data_container_finish(&t->data);
    if (t->related)
        t->related->lpVtbl->Release(t->related);
    t->creator->lpVtbl->Release(t->creator);
    free(t);
}

/* Every type answers IType and IDataContainer; token, composite and generic parameter types
 * also answer their kind's interface. */
#define TYPE_IFACES(kind_iface)                                                                    \
    CLRIE_PLUGIN_COM_IFACE(&IID_IType, struct type, iface),                                        \
        CLRIE_PLUGIN_COM_IFACE(&IID_IDataContainer, struct type, data.iface), kind_iface
static const struct clrie_plugin_com_iface simple_ifaces[] = {TYPE_IFACES()};
static const struct clrie_plugin_com_iface token_ifaces[] = {
    TYPE_IFACES(CLRIE_PLUGIN_COM_IFACE(&IID_ITokenType, struct type, token_iface))};
static const struct clrie_plugin_com_iface composite_ifaces[] = {
    TYPE_IFACES(CLRIE_PLUGIN_COM_IFACE(&IID_ICompositeType, struct type, composite_iface))};
static const struct clrie_plugin_com_iface generic_ifaces[] = {
    TYPE_IFACES(CLRIE_PLUGIN_COM_IFACE(&IID_IGenericParameterType, struct type, generic_iface))};

CLRIE_PM_COM_CLASS(simple_class, "IType", struct type, com, type_destroy, simple_ifaces);
CLRIE_PM_COM_CLASS(token_class, "ITokenType", struct type, com, type_destroy, token_ifaces);
CLRIE_PM_COM_CLASS(composite_class, "ICompositeType", struct type, com, type_destroy,
                   composite_ifaces);
CLRIE_PM_COM_CLASS(generic_class, "IGenericParameterType", struct type, com, type_destroy,
                   generic_ifaces);

static const struct clrie_plugin_com_class *const kind_classes[] = {
    [KIND_SIMPLE] = &simple_class,
    [KIND_TOKEN] = &token_class,
    [KIND_COMPOSITE] = &composite_class,
    [KIND_GENERIC_PARAM] = &generic_class,
};

CLRIE_PLUGIN_COM_IUNKNOWN(type, IType, struct type, iface, com)
CLRIE_PLUGIN_COM_IUNKNOWN(token, ITokenType, struct type, token_iface, com)
CLRIE_PLUGIN_COM_IUNKNOWN(composite, ICompositeType, struct type, composite_iface, com)
CLRIE_PLUGIN_COM_IUNKNOWN(generic, IGenericParameterType, struct type, generic_iface, com)

/* ---- IType ----------------------------------------------------------------------------------- */

static HRESULT STDMETHODCALLTYPE type_AddToSignature(IType *This,
                                                     ISignatureBuilder *pSignatureBuilder)
{
    struct type *t = TYPE_OF(This, iface);
    if (!pSignatureBuilder)
        return E_POINTER;
    return pSignatureBuilder->lpVtbl->AddData(pSignatureBuilder, t->bytes, (DWORD)t->len);
}

static HRESULT STDMETHODCALLTYPE type_GetCorElementType(IType *This, CorElementType *pCorType)
{
    if (!pCorType)
        return E_POINTER;
    *pCorType = TYPE_OF(This, iface)->element;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE type_IsPrimitive(IType *This, BOOL *pIsPrimitive)
{
    if (!pIsPrimitive)
        return E_POINTER;
    CorElementType e = TYPE_OF(This, iface)->element;
    *pIsPrimitive = e <= ELEMENT_TYPE_STRING || e == ELEMENT_TYPE_I || e == ELEMENT_TYPE_U;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE type_IsArray(IType *This, BOOL *pIsArray)
{
    if (!pIsArray)
        return E_POINTER;
    CorElementType e = TYPE_OF(This, iface)->element;
    *pIsArray = e == ELEMENT_TYPE_ARRAY || e == ELEMENT_TYPE_SZARRAY;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE type_IsClass(IType *This, BOOL *pIsClass)
{
    if (!pIsClass)
        return E_POINTER;
    struct type *t = TYPE_OF(This, iface);
    *pIsClass = t->element == ELEMENT_TYPE_CLASS || t->related_is_class;
    return S_OK;
}

/* CLRIE's names for element types. */
static const char *element_name(CorElementType e)
{
    static const char *const names[] = {
        [ELEMENT_TYPE_END] = "END",
        [ELEMENT_TYPE_VOID] = "VOID",
        [ELEMENT_TYPE_BOOLEAN] = "BOOLEAN",
        [ELEMENT_TYPE_CHAR] = "CHAR",
        [ELEMENT_TYPE_I1] = "I1",
        [ELEMENT_TYPE_U1] = "U1",
        [ELEMENT_TYPE_I2] = "I2",
        [ELEMENT_TYPE_U2] = "U2",
        [ELEMENT_TYPE_I4] = "I4",
        [ELEMENT_TYPE_U4] = "U4",
        [ELEMENT_TYPE_I8] = "I8",
        [ELEMENT_TYPE_U8] = "U8",
        [ELEMENT_TYPE_R4] = "R4",
        [ELEMENT_TYPE_R8] = "R8",
        [ELEMENT_TYPE_STRING] = "STRING",
        [ELEMENT_TYPE_PTR] = "PTR",
        [ELEMENT_TYPE_BYREF] = "BYREF",
        [ELEMENT_TYPE_VALUETYPE] = "VALUETYPE",
        [ELEMENT_TYPE_CLASS] = "CLASS",
        [ELEMENT_TYPE_VAR] = "VAR",
        [ELEMENT_TYPE_ARRAY] = "ARRAY",
        [ELEMENT_TYPE_GENERICINST] = "GENERICINST",
        [ELEMENT_TYPE_TYPEDBYREF] = "TYPEDBYREF",
        [ELEMENT_TYPE_I] = "I",
        [ELEMENT_TYPE_U] = "U",
        [ELEMENT_TYPE_FNPTR] = "FNPTR",
        [ELEMENT_TYPE_OBJECT] = "OBJECT",
        [ELEMENT_TYPE_SZARRAY] = "SZARRAY",
        [ELEMENT_TYPE_MVAR] = "MVAR",
        [ELEMENT_TYPE_CMOD_REQD] = "CMOD_REQD",
        [ELEMENT_TYPE_CMOD_OPT] = "CMOD_OPT",
        [ELEMENT_TYPE_INTERNAL] = "INTERNAL",
    };
    if ((unsigned)e < sizeof(names) / sizeof(names[0]) && names[e])
        return names[e];
    return "INVALID";
}

static HRESULT STDMETHODCALLTYPE type_GetName(IType *This, BSTR *pbstrName)
{
    struct type *t = TYPE_OF(This, iface);
    if (!pbstrName)
        return E_POINTER;
    *pbstrName = NULL;
    if (t->kind == KIND_TOKEN) {
        IMetaDataImport *import = types_creator_import(t->creator);
        return import ? clrie_pm__types_token_name(import, t->token, pbstrName) : E_FAIL;
    }
    *pbstrName = clrie_pm_bstr_from_utf8(element_name(t->element));
    return *pbstrName ? S_OK : E_OUTOFMEMORY;
}

static const struct ITypeVtbl type_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(type),
    .AddToSignature = type_AddToSignature,
    .GetCorElementType = type_GetCorElementType,
    .IsPrimitive = type_IsPrimitive,
    .IsArray = type_IsArray,
    .IsClass = type_IsClass,
    .GetName = type_GetName,
};

/* ---- ITokenType, ICompositeType, IGenericParameterType ----------------------------------- */

static HRESULT STDMETHODCALLTYPE token_GetToken(ITokenType *This, mdToken *pToken)
{
    if (!pToken)
        return E_POINTER;
    *pToken = TYPE_OF(This, token_iface)->token;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE token_GetOwningModule(ITokenType *This, IModuleInfo **ppModuleInfo)
{
    if (!ppModuleInfo)
        return E_POINTER;
    IModuleInfo *module = types_creator_module(TYPE_OF(This, token_iface)->creator);
    *ppModuleInfo = module;
    if (!module)
        return E_FAIL;
    module->lpVtbl->AddRef(module);
    return S_OK;
}

static const struct ITokenTypeVtbl token_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(token),
    .GetToken = token_GetToken,
    .GetOwningModule = token_GetOwningModule,
};

static HRESULT STDMETHODCALLTYPE composite_GetRelatedType(ICompositeType *This, IType **ppType)
{
    if (!ppType)
        return E_POINTER;
    IType *related = TYPE_OF(This, composite_iface)->related;
    related->lpVtbl->AddRef(related);
    *ppType = related;
    return S_OK;
}

static const struct ICompositeTypeVtbl composite_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(composite),
    .GetRelatedType = composite_GetRelatedType,
};

static HRESULT STDMETHODCALLTYPE generic_GetPosition(IGenericParameterType *This, ULONG *pPosition)
{
    if (!pPosition)
        return E_POINTER;
    *pPosition = TYPE_OF(This, generic_iface)->position;
    return S_OK;
}

static const struct IGenericParameterTypeVtbl generic_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(generic),
    .GetPosition = generic_GetPosition,
};

/* ---- construction ------------------------------------------------------------------------ */

static struct type *type_new(ITypeCreator *creator, const uint8_t *bytes, size_t len)
{
    struct type *t = calloc(1, sizeof(*t) + len);
    if (!t)
        return NULL;
    t->iface.lpVtbl = &type_vtbl;
    t->token_iface.lpVtbl = &token_vtbl;
    t->composite_iface.lpVtbl = &composite_vtbl;
    t->generic_iface.lpVtbl = &generic_vtbl;
    clrie_pm_data_container_init(&t->data, (IUnknown *)&t->iface);
    creator->lpVtbl->AddRef(creator);
    t->creator = creator;
    memcpy(t->bytes, bytes, len);
    t->len = len;
    return t;
}

static HRESULT parse(ITypeCreator *creator, const uint8_t *p, size_t len, bool allow_sentinel,
                     int depth, IType **out, size_t *used);

/* Fills t's kind and related type from its bytes, which libilgraph has measured as one type
 * (prefixes included) of exactly t->len bytes. */
static HRESULT describe(struct type *t, size_t at, int depth)
{
    const uint8_t *p = t->bytes;
    size_t len = t->len, used;
    uint32_t value;
    /* custom modifiers and PINNED, in any order */
    for (;;) {
        if (clrie_il_sig_skip_custom_mods(p + at, len - at, &used) < 0)
            return E_INVALIDARG;
        at += used;
        if (at >= len || p[at] != ELEMENT_TYPE_PINNED)
            break;
        at++;
    }
    if (at >= len)
        return E_INVALIDARG;
    uint8_t e = p[at++];
    t->element = (CorElementType)e;
    if (clrie_il_sig_element_is_simple(e) || e == ELEMENT_TYPE_FNPTR ||
        e == ELEMENT_TYPE_INTERNAL) {
        t->kind = KIND_SIMPLE;
        return S_OK;
    }
    switch (e) {
    case ELEMENT_TYPE_CLASS:
    case ELEMENT_TYPE_VALUETYPE:
        t->kind = KIND_TOKEN;
        if (clrie_il_sig_read_token(p + at, len - at, &t->token, &used) < 0)
            return E_INVALIDARG;
        return S_OK;
    case ELEMENT_TYPE_VAR:
    case ELEMENT_TYPE_MVAR:
        t->kind = KIND_GENERIC_PARAM;
        if (clrie_il_sig_read_uint(p + at, len - at, &value, &used) < 0)
            return E_INVALIDARG;
        t->position = value;
        return S_OK;
    case ELEMENT_TYPE_PTR:
    case ELEMENT_TYPE_BYREF:
    case ELEMENT_TYPE_SZARRAY:
    case ELEMENT_TYPE_ARRAY:
    case ELEMENT_TYPE_GENERICINST: {
        /* the element type, or the generic type (CLASS/VALUETYPE token) being instantiated */
        t->kind = KIND_COMPOSITE;
        IType *related;
        HRESULT hr = parse(t->creator, p + at, len - at, false, depth + 1, &related, &used);
        if (FAILED(hr))
            return hr;
        t->related = related;
        t->related_is_class = e == ELEMENT_TYPE_GENERICINST && p[at] == ELEMENT_TYPE_CLASS;
        return S_OK;
    }
    default: /* libilgraph measures no other element type */
        return E_INVALIDARG;
    }
}

static HRESULT parse(ITypeCreator *creator, const uint8_t *p, size_t len, bool allow_sentinel,
                     int depth, IType **out, size_t *used)
{
    if (!p || !out)
        return E_POINTER;
    *out = NULL;
    if (depth > TYPES_MAX_DEPTH || len == 0)
        return E_INVALIDARG;
    size_t at = allow_sentinel && p[0] == ELEMENT_TYPE_SENTINEL ? 1 : 0;
    size_t type_len;
    if (clrie_il_sig_type_len(p + at, len - at, &type_len) < 0)
        return E_INVALIDARG;
    struct type *t = type_new(creator, p, at + type_len);
    if (!t)
        return E_OUTOFMEMORY;
    HRESULT hr = describe(t, at, depth);
    if (FAILED(hr)) {
        type_destroy(t);
        return hr;
    }
    clrie_plugin_com_init(&t->com, kind_classes[t->kind]); /* describe found the kind */
    *out = &t->iface;
    if (used)
        *used = t->len;
    return S_OK;
}

HRESULT clrie_pm__types_type_parse(ITypeCreator *creator, const uint8_t *p, size_t len,
                                   bool allow_sentinel, IType **out, size_t *used)
{
    return parse(creator, p, len, allow_sentinel, 0, out, used);
}

const uint8_t *clrie_pm__types_type_bytes(IType *type, size_t *len)
{
    if (!type || type->lpVtbl != &type_vtbl)
        return NULL;
    struct type *t = TYPE_OF(type, iface);
    *len = t->len;
    return t->bytes;
}

/* ---- names from metadata ----------------------------------------------------------------- */

/* Longest name asked for; metadata names are far shorter, a hostile answer is not trusted. */
#define MAX_NAME 0x10000u

static HRESULT typedef_name(IMetaDataImport *import, mdTypeDef token, char16_t **name, ULONG *len)
{
    ULONG cch = 0;
    HRESULT hr = import->lpVtbl->GetTypeDefProps(import, token, NULL, 0, &cch, NULL, NULL);
    if (FAILED(hr))
        return hr;
    if (cch == 0 || cch > MAX_NAME)
        return E_FAIL;
    char16_t *buf = calloc(cch, sizeof(*buf));
    if (!buf)
        return E_OUTOFMEMORY;
    ULONG got = 0;
    hr = import->lpVtbl->GetTypeDefProps(import, token, buf, cch, &got, NULL, NULL);
    if (FAILED(hr)) {
        free(buf);
        return hr;
    }
    buf[cch - 1] = 0;
    *name = buf;
    *len = (ULONG)clrie_pm_utf16_len(buf);
    return S_OK;
}

/* Prepends text[0..n) and, when sep, a '+' to the BSTR-to-be in *out (*out_len units). */
static HRESULT prepend(char16_t **out, size_t *out_len, const char16_t *text, size_t n, bool sep)
{
    size_t total = n + sep + *out_len;
    char16_t *joined = malloc((total + 1) * sizeof(*joined));
    if (!joined)
        return E_OUTOFMEMORY;
    memcpy(joined, text, n * sizeof(*joined));
    if (sep)
        joined[n] = u'+';
    if (*out_len)
        memcpy(joined + n + sep, *out, *out_len * sizeof(*joined));
    joined[total] = 0;
    free(*out);
    *out = joined;
    *out_len = total;
    return S_OK;
}

/* Nested TypeDefs nest this deep at most before the chain is taken as a metadata loop. */
#define MAX_NESTING 64

HRESULT clrie_pm__types_token_name(IMetaDataImport *import, mdToken token, BSTR *out)
{
    char16_t *full = NULL, *part = NULL;
    size_t full_len = 0;
    ULONG part_len = 0;
    HRESULT hr = E_FAIL;
    *out = NULL;
    switch (token >> 24) {
    case 0x02: { /* TypeDef: enclosing types first, "Outer+Inner" */
        mdTypeDef current = token, enclosing = 0;
        if (FAILED(hr = typedef_name(import, current, &full, &part_len)))
            goto done;
        full_len = part_len;
        for (int i = 0; i < MAX_NESTING; i++) {
            if (import->lpVtbl->GetNestedClassProps(import, current, &enclosing) != S_OK ||
                enclosing == mdTokenNil)
                break;
            if (FAILED(hr = typedef_name(import, enclosing, &part, &part_len)) ||
                FAILED(hr = prepend(&full, &full_len, part, part_len, true)))
                goto done;
            free(part);
            part = NULL;
            current = enclosing;
        }
        break;
    }
    case 0x01: { /* TypeRef: its namespace-qualified name */
        ULONG cch = 0;
        hr = import->lpVtbl->GetTypeRefProps(import, token, NULL, NULL, 0, &cch);
        if (FAILED(hr))
            goto done;
        if (cch == 0 || cch > MAX_NAME) {
            hr = E_FAIL;
            goto done;
        }
        if (!(full = calloc(cch, sizeof(*full)))) {
            hr = E_OUTOFMEMORY;
            goto done;
        }
        ULONG got = 0;
        if (FAILED(hr = import->lpVtbl->GetTypeRefProps(import, token, NULL, full, cch, &got)))
            goto done;
        full[cch - 1] = 0;
        full_len = clrie_pm_utf16_len(full);
        break;
    }
    default: /* TypeSpec: no name, as CLRIE */
        hr = E_FAIL;
        goto done;
    }
    if (full_len == 0) {
        hr = E_FAIL;
        goto done;
    }
    *out = clrie_pm_bstr_new(full, full_len);
    hr = *out ? S_OK : E_OUTOFMEMORY;
done:
    free(part);
    free(full);
    return hr;
}
