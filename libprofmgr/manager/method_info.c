/* IMethodInfo and IMethodInfo2 (method_info.h): construction from the runtime's IDs, the
 * metadata answers, and the IL objects made on first use. */
#include "method_info.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manager.h"
#include "utf16.h"

/* Method attribute bits (CorMethodAttr) the getters read. */
#define MD_ACCESS_MASK 0x0007u
#define MD_PRIVATE 0x0001u
#define MD_PUBLIC 0x0006u
#define MD_STATIC 0x0010u
#define MD_VIRTUAL 0x0040u
#define MD_SPECIAL_NAME 0x0800u

/* Nesting deeper than this is not a name a person reads; the rest is elided. */
#define MAX_NESTING 32

static struct method_info *from_iface(IMethodInfo2 *iface)
{
    return (struct method_info *)(void *)iface;
}

static IUnknown *as_unknown(struct method_info *mi)
{
    return (IUnknown *)(void *)&mi->iface;
}

static void release_unknown(void *object)
{
    if (object)
        ((IUnknown *)object)->lpVtbl->Release((IUnknown *)object);
}

/* ---- construction ---------------------------------------------------------------------- */

static const struct IMethodInfo2Vtbl method_info_vtbl;
static const struct clrie_plugin_com_class method_info_class;

/* A generic method's name carries its type parameters as CLRIE writes them: `Max<!!0>`,
 * `Zip<!!0,!!1>`. Plugins match on GetName and GetFullName, so they must read the same in
 * both engines. */
static HRESULT append_generic_arity(struct method_info *mi)
{
    /* Only a generic method's signature starts with the GENERIC calling convention bit. */
    if (!mi->sig || mi->sig_len == 0 || !(mi->sig[0] & CLRIE_IL_CALLCONV_GENERIC))
        return S_OK;
    struct clrie_il_method_sig parsed;
    if (clrie_il_sig_parse_method(mi->sig, mi->sig_len, &parsed, NULL) != 0 ||
        parsed.generic_count == 0)
        return S_OK;
    char suffix[16];
    size_t extra = 1; /* '>' */
    for (uint32_t i = 0; i < parsed.generic_count; i++)
        extra += (size_t)snprintf(suffix, sizeof(suffix), ",!!%" PRIu32, i);
    char16_t *grown = realloc(mi->name, (mi->name_len + extra + 1) * sizeof(char16_t));
    if (!grown)
        return E_OUTOFMEMORY;
    mi->name = grown;
    for (uint32_t i = 0; i < parsed.generic_count; i++) {
        int n = snprintf(suffix, sizeof(suffix), "%c!!%" PRIu32, i ? ',' : '<', i);
        for (int k = 0; k < n; k++)
            mi->name[mi->name_len++] = (char16_t)suffix[k];
    }
    mi->name[mi->name_len++] = u'>';
    mi->name[mi->name_len] = 0;
    return S_OK;
}

/* One metadata call for the usual name (a second one only for a name past the buffer). */
static HRESULT read_method_props(struct method_info *mi)
{
    IMetaDataImport2 *import = mi->import;
    char16_t buf[256];
    ULONG name_len = 0;
    HRESULT hr = import->lpVtbl->GetMethodProps(
        import, mi->token, &mi->declaring_type, (LPWSTR)buf, sizeof(buf) / sizeof(buf[0]),
        &name_len, &mi->attributes, &mi->sig, &mi->sig_len, &mi->rva, &mi->impl_flags);
    if (FAILED(hr))
        return hr;
    mi->name = calloc((size_t)name_len + 1, sizeof(char16_t));
    if (!mi->name)
        return E_OUTOFMEMORY;
    if (name_len <= sizeof(buf) / sizeof(buf[0])) {
        memcpy(mi->name, buf, (size_t)name_len * sizeof(char16_t));
        mi->name[name_len] = 0;
    } else {
        hr = import->lpVtbl->GetMethodProps(import, mi->token, NULL, (LPWSTR)mi->name, name_len,
                                            &name_len, NULL, NULL, NULL, NULL, NULL);
        if (FAILED(hr))
            return hr;
    }
    mi->name_len = clrie_pm_utf16_len(mi->name);
    return append_generic_arity(mi);
}

static HRESULT create(struct manager *m, IModuleInfo *module, mdMethodDef token,
                      struct method_info **out)
{
    struct method_info *mi = calloc(1, sizeof(*mi));
    if (!mi)
        return E_OUTOFMEMORY;
    mi->iface.lpVtbl = &method_info_vtbl;
    clrie_pm_data_container_init(&mi->data, as_unknown(mi));
    clrie_plugin_com_init(&mi->com, &method_info_class);
    mi->owner = m;
    module->lpVtbl->AddRef(module);
    mi->module = module;
    mi->token = token;

    HRESULT hr = module->lpVtbl->GetModuleID(module, &mi->module_id);
    if (SUCCEEDED(hr)) {
        mi->import = clrie_pm_module_import(module);
        mi->emit = (IMetaDataEmit *)(void *)clrie_pm_module_emit(module);
        hr = mi->import ? read_method_props(mi) : E_NOINTERFACE;
    }
    if (FAILED(hr)) {
        clrie_pm__method_info_release(mi);
        return hr;
    }
    *out = mi;
    return S_OK;
}

/* The module and token of a function ID, and its class; S_FALSE when the engine does not know
 * the module or it is dynamic (no IL the engine can see). */
static HRESULT resolve_function(struct manager *m, FunctionID function, IModuleInfo **module,
                                mdMethodDef *token, ClassID *class_id)
{
    ModuleID module_id = 0;
    HRESULT hr = m->info->lpVtbl->GetFunctionInfo(m->info, function, class_id, &module_id, token);
    if (FAILED(hr))
        return hr;
    if (!m->domains || FAILED(clrie_pm_domains_find_module(m->domains, module_id, module)))
        return S_FALSE;
    BOOL dynamic = FALSE;
    if (SUCCEEDED((*module)->lpVtbl->GetIsDynamic(*module, &dynamic)) && dynamic) {
        (*module)->lpVtbl->Release(*module);
        return S_FALSE;
    }
    return S_OK;
}

/* The method of a function ID, knowing that ID and its class's; with_il also with the body the
 * module holds for it (has_il), a method without IL then being S_FALSE. S_FALSE also where
 * resolve_function says so. */
static HRESULT create_for_function(struct manager *m, FunctionID function, bool with_il,
                                   struct method_info **out)
{
    IModuleInfo *module = NULL;
    mdMethodDef token = 0;
    ClassID class_id = 0;
    LPCBYTE body = NULL;
    ULONG size = 0;
    *out = NULL;
    HRESULT hr = resolve_function(m, function, &module, &token, &class_id);
    if (hr != S_OK)
        return hr;
    if (with_il)
        hr = clrie_pm_module_original_il(module, token, &body, &size);
    if (SUCCEEDED(hr))
        hr = create(m, module, token, out);
    module->lpVtbl->Release(module);
    if (FAILED(hr))
        return with_il && hr == CORPROF_E_FUNCTION_NOT_IL ? S_FALSE : hr;
    (*out)->function_id = function;
    (*out)->class_id = class_id;
    (*out)->has_il = with_il;
    (*out)->original_body = body;
    (*out)->original_size = size;
    return S_OK;
}

HRESULT clrie_pm__method_info_by_function(struct manager *m, FunctionID function,
                                          struct method_info **out)
{
    HRESULT hr = create_for_function(m, function, false, out);
    return hr == S_FALSE ? E_FAIL : hr;
}

HRESULT clrie_pm__method_info_by_token(struct manager *m, IModuleInfo *module, mdMethodDef token,
                                       struct method_info **out)
{
    *out = NULL;
    return create(m, module, token, out);
}

HRESULT clrie_pm__method_info_for_jit(struct manager *m, FunctionID function,
                                      struct method_info **out)
{
    return create_for_function(m, function, true, out);
}

HRESULT clrie_pm__method_info_for_rejit(struct manager *m, ModuleID module_id, mdMethodDef token,
                                        struct method_info **out)
{
    IModuleInfo *module = NULL;
    *out = NULL;
    if (!m->domains || FAILED(clrie_pm_domains_find_module(m->domains, module_id, &module)))
        return S_FALSE;
    LPCBYTE body = NULL;
    ULONG size = 0;
    HRESULT hr = clrie_pm_module_original_il(module, token, &body, &size);
    if (SUCCEEDED(hr))
        hr = create(m, module, token, out);
    if (SUCCEEDED(hr)) {
        (*out)->has_il = true;
        (*out)->is_rejit = true;
        (*out)->rejit_count = clrie_pm_module_next_rejit(module, token);
        (*out)->original_body = body;
        (*out)->original_size = size;
    }
    module->lpVtbl->Release(module);
    return FAILED(hr) && hr == CORPROF_E_FUNCTION_NOT_IL ? S_FALSE : hr;
}

void clrie_pm__method_info_release(struct method_info *mi)
{
    if (mi)
        mi->iface.lpVtbl->Release(&mi->iface);
}

static void destroy(void *object)
{
    struct method_info *mi = object;
    clrie_pm_il_body_free(mi->body);
    clrie_pm_types_locals_free(mi->locals);
    clrie_pm_types_locals_free(mi->original_locals);
    release_unknown(mi->types);
    release_unknown(mi->module);
    clrie_pm_data_container_finish(&mi->data);
    free(mi->name);
    free(mi->full_name_utf8);
    free(mi);
}

static const struct clrie_plugin_com_iface method_info_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IMethodInfo, struct method_info, iface),
    CLRIE_PLUGIN_COM_IFACE(&IID_IMethodInfo2, struct method_info, iface),
    CLRIE_PLUGIN_COM_IFACE(&IID_IDataContainer, struct method_info, data.iface),
};
CLRIE_PM_COM_CLASS(method_info_class, "IMethodInfo", struct method_info, com, destroy,
                   method_info_ifaces);
CLRIE_PLUGIN_COM_IUNKNOWN(mi, IMethodInfo2, struct method_info, iface, com)

/* ---- lazily made parts ------------------------------------------------------------------ */

/* The module's type factory, made once (two threads may race: one result stays). */
static HRESULT types_of(struct method_info *mi, ITypeCreator **out)
{
    ITypeCreator *types = __atomic_load_n(&mi->types, __ATOMIC_ACQUIRE);
    if (!types) {
        ITypeCreator *made = NULL;
        HRESULT hr =
            clrie_pm_types_creator_new(mi->module, (IMetaDataImport *)(void *)mi->import, &made);
        if (FAILED(hr))
            return hr;
        ITypeCreator *expected = NULL;
        if (__atomic_compare_exchange_n(&mi->types, &expected, made, false, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE)) {
            types = made;
        } else {
            release_unknown(made);
            types = expected;
        }
    }
    *out = types;
    return S_OK;
}

/* The local-variable signature token of the original header (0: none). */
static mdSignature header_local_sig_token(const struct method_info *mi)
{
    struct clrie_il_body_layout body;
    if (!mi->original_body ||
        clrie_il_body_measure(mi->original_body, mi->original_size, &body, NULL) != 0)
        return 0;
    return body.header.local_sig_token; /* 0 for a tiny header: no locals */
}

static HRESULT locals_get(void *ctx, const uint8_t **sig, size_t *len)
{
    clrie_pm_types_locals_signature(((struct method_info *)ctx)->locals, sig, len);
    return S_OK;
}

static HRESULT locals_set(void *ctx, const uint8_t *sig, size_t len)
{
    return clrie_pm_types_locals_replace(((struct method_info *)ctx)->locals, sig, len);
}

static HRESULT local_sig_blob(struct method_info *mi, mdSignature token, PCCOR_SIGNATURE *sig,
                              ULONG *len)
{
    *sig = NULL;
    *len = 0;
    if (!token)
        return S_OK;
    return mi->import->lpVtbl->GetSigFromToken(mi->import, token, sig, len);
}

static HRESULT prepare_il(struct method_info *mi)
{
    ITypeCreator *types = NULL;
    HRESULT hr = types_of(mi, &types);
    if (FAILED(hr))
        return hr;
    mi->local_sig_token = header_local_sig_token(mi);
    PCCOR_SIGNATURE locals_sig = NULL;
    ULONG locals_len = 0;
    hr = local_sig_blob(mi, mi->local_sig_token, &locals_sig, &locals_len);
    if (FAILED(hr))
        return hr;
    hr = clrie_pm_types_locals_new(as_unknown(mi), types, mi->emit, locals_sig, locals_len,
                                   mi->local_sig_token, false, &mi->locals);
    if (FAILED(hr))
        return hr;
    clrie_pm_types_locals_use_log(mi->locals, mi->owner->log);
    clrie_pm_types_locals_use_sig_tokens(mi->locals, clrie_pm_module_sig_tokens(mi->module));
    struct il_body_params params = {
        .outer = as_unknown(mi),
        .method = method_info_iface(mi),
        .method_sig = mi->sig,
        .method_sig_len = mi->sig_len,
        .locals = {.get = locals_get, .set = locals_set, .ctx = mi},
        .resolve = clrie_pm__method_info_stack_effect,
        .resolve_ctx = mi,
        .log = mi->owner->log,
    };
    hr = clrie_pm_il_body_new(&params, mi->original_body, mi->original_size, &mi->body);
    if (SUCCEEDED(hr))
        clrie_pm_il_body_allow_baseline(mi->body, mi->baseline_allowed);
    return hr;
}

unsigned long clrie_pm__method_info_edits(struct method_info *mi)
{
    return (mi->body ? clrie_pm_il_body_edits(mi->body) : 0) +
           clrie_pm_types_locals_edits(mi->locals) + mi->sig_token_sets;
}

/* The method's name for the lines of its closed IL objects, made only if one is written. */
static const char *name_of(void *mi)
{
    return clrie_pm__method_info_full_name(mi);
}

void clrie_pm__method_info_close(struct method_info *mi)
{
    struct clrie_pm_log_name name = {name_of, mi};
    atomic_store_explicit(&mi->closed, true, memory_order_release);
    if (mi->body)
        clrie_pm_il_body_close(mi->body, name);
    clrie_pm_types_locals_close(mi->locals, name);
}

void clrie_pm__method_info_allow_baseline(struct method_info *mi, bool allow)
{
    mi->baseline_allowed = allow;
    if (mi->body)
        clrie_pm_il_body_allow_baseline(mi->body, allow);
}

HRESULT clrie_pm__method_info_il(struct method_info *mi)
{
    if (!mi->has_il) {
        CLRIE_PM_LOG_MESSAGE(mi->owner->log,
                             "%s: this method info describes the method but is not being "
                             "instrumented; it has no IL to edit",
                             clrie_pm__method_info_full_name(mi));
        return E_UNEXPECTED;
    }
    if (!mi->il_ready) {
        mi->il_error = prepare_il(mi);
        mi->il_ready = true;
        if (FAILED(mi->il_error))
            CLRIE_PM_LOG_ERROR(mi->owner->log, "%s: cannot prepare its IL (hr 0x%08X)",
                               clrie_pm__method_info_full_name(mi), (unsigned)mi->il_error);
        else if (atomic_load_explicit(&mi->closed, memory_order_acquire))
            clrie_pm__method_info_close(mi); /* first asked for after the callbacks */
    }
    return mi->il_error;
}

/* Appends the UTF-16 name of a type definition, enclosing types first ("Outer+Inner"). */
static void append_type_name(IMetaDataImport2 *import, mdTypeDef type, char16_t *buf, size_t cap,
                             size_t *len, int depth)
{
    mdTypeDef enclosing = 0;
    if (depth < MAX_NESTING &&
        SUCCEEDED(import->lpVtbl->GetNestedClassProps(import, type, &enclosing)) && enclosing) {
        append_type_name(import, enclosing, buf, cap, len, depth + 1);
        if (*len + 1 < cap)
            buf[(*len)++] = u'+';
    }
    ULONG got = 0;
    if (*len + 1 < cap &&
        SUCCEEDED(import->lpVtbl->GetTypeDefProps(import, type, (LPWSTR)buf + *len,
                                                  (ULONG)(cap - *len), &got, NULL, NULL)) &&
        got > 0)
        *len += clrie_pm_utf16_len(buf + *len);
}

/* "Namespace.Type.Method" as UTF-16 in buf (cap units, 0-terminated); returns its length. */
static size_t full_name(struct method_info *mi, char16_t *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = 0;
    if (mi->declaring_type && (mi->declaring_type & 0x00FFFFFFu) != 1) /* 1: <Module> */
        append_type_name(mi->import, mi->declaring_type, buf, cap, &len, 0);
    if (len && len + 1 < cap)
        buf[len++] = u'.';
    for (size_t i = 0; i < mi->name_len && len + 1 < cap; i++)
        buf[len++] = mi->name[i];
    buf[len] = 0;
    return len;
}

const char *clrie_pm__method_info_full_name(struct method_info *mi)
{
    char *made = __atomic_load_n(&mi->full_name_utf8, __ATOMIC_ACQUIRE);
    if (made)
        return made;
    char16_t buf[1024];
    size_t len = full_name(mi, buf, sizeof(buf) / sizeof(buf[0]));
    size_t made_len = 0;
    if (clrie_pm_utf16_to_utf8(buf, len, true, &made, &made_len) != 0)
        return "(unnamed method)";
    char *expected = NULL;
    if (!__atomic_compare_exchange_n(&mi->full_name_utf8, &expected, made, false, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        free(made);
        made = expected;
    }
    return made;
}

/* ---- stack effects for max stack and verification ------------------------------------- */

static HRESULT signature_of(IMetaDataImport2 *import, mdToken token, PCCOR_SIGNATURE *sig,
                            ULONG *len, int depth)
{
    switch (token & 0xFF000000u) {
    case mdtMethodDef:
        return import->lpVtbl->GetMethodProps(import, token, NULL, NULL, 0, NULL, NULL, sig, len,
                                              NULL, NULL);
    case mdtMemberRef:
        return import->lpVtbl->GetMemberRefProps(import, token, NULL, NULL, 0, NULL, sig, len);
    case mdtMethodSpec: {
        mdToken parent = 0;
        HRESULT hr = import->lpVtbl->GetMethodSpecProps(import, token, &parent, NULL, NULL);
        if (FAILED(hr) || depth > 0)
            return FAILED(hr) ? hr : E_INVALIDARG;
        return signature_of(import, parent, sig, len, depth + 1);
    }
    case mdtSignature:
        return import->lpVtbl->GetSigFromToken(import, token, sig, len);
    default:
        return E_INVALIDARG;
    }
}

int clrie_pm__method_info_stack_effect(void *ctx, uint16_t opcode, uint32_t token,
                                       struct clrie_il_stack_effect *out)
{
    struct method_info *mi = ctx;
    PCCOR_SIGNATURE sig = mi->sig;
    ULONG len = mi->sig_len;
    if (opcode != CLRIE_IL_OP_RET && FAILED(signature_of(mi->import, token, &sig, &len, 0)))
        return -ENOENT;
    struct clrie_il_method_sig parsed;
    int rc = clrie_il_sig_parse_method(sig, len, &parsed, NULL);
    return rc ? rc : clrie_il_sig_stack_effect(&parsed, opcode, out);
}

/* ---- the factory the domains use -------------------------------------------------------- */

static HRESULT factory_by_function(void *ctx, FunctionID id, IMethodInfo **out)
{
    struct method_info *mi = NULL;
    HRESULT hr = clrie_pm__method_info_by_function(ctx, id, &mi);
    *out = SUCCEEDED(hr) ? method_info_iface(mi) : NULL;
    return hr;
}

static HRESULT factory_by_token(void *ctx, IModuleInfo *module, mdMethodDef token,
                                IMethodInfo **out)
{
    struct method_info *mi = NULL;
    HRESULT hr = clrie_pm__method_info_by_token(ctx, module, token, &mi);
    *out = SUCCEEDED(hr) ? method_info_iface(mi) : NULL;
    return hr;
}

void clrie_pm__method_info_install_factory(struct manager *m)
{
    const struct clrie_pm_method_factory factory = {
        .by_function = factory_by_function,
        .by_token = factory_by_token,
        .ctx = m,
    };
    clrie_pm_domains_set_method_factory(m->domains, &factory);
}

/* ---- IUnknown ------------------------------------------------------------------------- */

/* ---- IMethodInfo: identity and metadata --------------------------------------------------- */

static HRESULT answer_bool(BOOL *out, bool value)
{
    if (!out)
        return E_POINTER;
    *out = value ? TRUE : FALSE;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE mi_GetModuleInfo(IMethodInfo2 *This, IModuleInfo **ppModuleInfo)
{
    struct method_info *mi = from_iface(This);
    if (!ppModuleInfo)
        return E_POINTER;
    mi->module->lpVtbl->AddRef(mi->module);
    *ppModuleInfo = mi->module;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE mi_GetName(IMethodInfo2 *This, BSTR *pbstrName)
{
    struct method_info *mi = from_iface(This);
    if (!pbstrName)
        return E_POINTER;
    *pbstrName = clrie_pm_bstr_new(mi->name, mi->name_len);
    return *pbstrName ? S_OK : E_OUTOFMEMORY;
}

static HRESULT STDMETHODCALLTYPE mi_GetFullName(IMethodInfo2 *This, BSTR *pbstrFullName)
{
    char16_t buf[1024];
    if (!pbstrFullName)
        return E_POINTER;
    size_t len = full_name(from_iface(This), buf, sizeof(buf) / sizeof(buf[0]));
    *pbstrFullName = clrie_pm_bstr_new(buf, len);
    return *pbstrFullName ? S_OK : E_OUTOFMEMORY;
}

static HRESULT STDMETHODCALLTYPE mi_GetClassId(IMethodInfo2 *This, ClassID *pClassId)
{
    if (!pClassId)
        return E_POINTER;
    *pClassId = from_iface(This)->class_id;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE mi_GetFunctionId(IMethodInfo2 *This, FunctionID *pFunctionID)
{
    if (!pFunctionID)
        return E_POINTER;
    *pFunctionID = from_iface(This)->function_id;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE mi_GetMethodToken(IMethodInfo2 *This, mdToken *pToken)
{
    if (!pToken)
        return E_POINTER;
    *pToken = from_iface(This)->token;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE mi_GetGenericParameterCount(IMethodInfo2 *This, DWORD *pCount)
{
    struct method_info *mi = from_iface(This);
    struct clrie_il_method_sig parsed;
    if (!pCount)
        return E_POINTER;
    if (clrie_il_sig_parse_method(mi->sig, mi->sig_len, &parsed, NULL) != 0)
        return E_FAIL;
    *pCount = parsed.generic_count;
    return S_OK;
}

static bool name_starts(const struct method_info *mi, const char *ascii)
{
    size_t n = strlen(ascii);
    if (mi->name_len < n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (mi->name[i] != (char16_t)ascii[i])
            return false;
    return true;
}

static bool name_is(const struct method_info *mi, const char *ascii)
{
    return mi->name_len == strlen(ascii) && name_starts(mi, ascii);
}

static HRESULT STDMETHODCALLTYPE mi_GetIsStatic(IMethodInfo2 *This, BOOL *pbValue)
{
    return answer_bool(pbValue, from_iface(This)->attributes & MD_STATIC);
}

static HRESULT STDMETHODCALLTYPE mi_GetIsPublic(IMethodInfo2 *This, BOOL *pbValue)
{
    return answer_bool(pbValue, (from_iface(This)->attributes & MD_ACCESS_MASK) == MD_PUBLIC);
}

static HRESULT STDMETHODCALLTYPE mi_GetIsPrivate(IMethodInfo2 *This, BOOL *pbValue)
{
    return answer_bool(pbValue, (from_iface(This)->attributes & MD_ACCESS_MASK) == MD_PRIVATE);
}

static HRESULT STDMETHODCALLTYPE mi_GetIsPropertyGetter(IMethodInfo2 *This, BOOL *pbValue)
{
    struct method_info *mi = from_iface(This);
    return answer_bool(pbValue, (mi->attributes & MD_SPECIAL_NAME) && name_starts(mi, "get_"));
}

static HRESULT STDMETHODCALLTYPE mi_GetIsPropertySetter(IMethodInfo2 *This, BOOL *pbValue)
{
    struct method_info *mi = from_iface(This);
    return answer_bool(pbValue, (mi->attributes & MD_SPECIAL_NAME) && name_starts(mi, "set_"));
}

static HRESULT STDMETHODCALLTYPE mi_GetIsFinalizer(IMethodInfo2 *This, BOOL *pbValue)
{
    struct method_info *mi = from_iface(This);
    return answer_bool(pbValue, name_is(mi, "Finalize") && (mi->attributes & MD_VIRTUAL) &&
                                    !(mi->attributes & MD_STATIC));
}

static HRESULT STDMETHODCALLTYPE mi_GetIsConstructor(IMethodInfo2 *This, BOOL *pbValue)
{
    return answer_bool(pbValue, name_is(from_iface(This), ".ctor"));
}

static HRESULT STDMETHODCALLTYPE mi_GetIsStaticConstructor(IMethodInfo2 *This, BOOL *pbValue)
{
    return answer_bool(pbValue, name_is(from_iface(This), ".cctor"));
}

/* The common start of the type queries: checks and clears the out-parameter, then gives the
 * module's type factory. */
static HRESULT start_type_query(struct method_info *mi, void *out, ITypeCreator **types)
{
    if (!out)
        return E_POINTER;
    *(void **)out = NULL;
    return types_of(mi, types);
}

static HRESULT STDMETHODCALLTYPE mi_GetParameters(IMethodInfo2 *This,
                                                  IEnumMethodParameters **pMethodArgs)
{
    struct method_info *mi = from_iface(This);
    ITypeCreator *types = NULL;
    HRESULT hr = start_type_query(mi, pMethodArgs, &types);
    return FAILED(hr) ? hr
                      : clrie_pm_types_method_parameters(types, mi->sig, mi->sig_len, pMethodArgs);
}

static HRESULT STDMETHODCALLTYPE mi_GetDeclaringType(IMethodInfo2 *This, IType **ppType)
{
    struct method_info *mi = from_iface(This);
    ITypeCreator *types = NULL;
    HRESULT hr = start_type_query(mi, ppType, &types);
    return FAILED(hr) ? hr : clrie_pm_types_declaring_type(types, mi->declaring_type, ppType);
}

static HRESULT STDMETHODCALLTYPE mi_GetReturnType(IMethodInfo2 *This, IType **ppType)
{
    struct method_info *mi = from_iface(This);
    ITypeCreator *types = NULL;
    HRESULT hr = start_type_query(mi, ppType, &types);
    return FAILED(hr) ? hr : clrie_pm_types_return_type(types, mi->sig, mi->sig_len, ppType);
}

/* NULL buffer: size query. A buffer too small gets E_NOT_SUFFICIENT_BUFFER with the size. */
static HRESULT STDMETHODCALLTYPE mi_GetCorSignature(IMethodInfo2 *This, DWORD cbBuffer,
                                                    BYTE *pCorSignature, DWORD *pcbSignature)
{
    struct method_info *mi = from_iface(This);
    if (!pcbSignature)
        return E_POINTER;
    *pcbSignature = mi->sig_len;
    if (!pCorSignature)
        return S_OK;
    if (cbBuffer < mi->sig_len)
        return CLRIE_HRESULT(0x8007007Au); /* E_NOT_SUFFICIENT_BUFFER */
    memcpy(pCorSignature, mi->sig, mi->sig_len);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE mi_GetLocalVarSigToken(IMethodInfo2 *This, mdToken *pToken)
{
    struct method_info *mi = from_iface(This);
    if (!pToken)
        return E_POINTER;
    if (!mi->local_sig_token_set && !mi->original_body) {
        LPCBYTE body = NULL;
        ULONG size = 0;
        if (SUCCEEDED(clrie_pm_module_original_il(mi->module, mi->token, &body, &size))) {
            mi->original_body = body;
            mi->original_size = size;
        }
    }
    mdSignature committed = 0;
    if (mi->local_sig_token_set)
        *pToken = mi->local_sig_token;
    else if (clrie_pm_types_locals_committed_token(mi->locals, &committed))
        *pToken = committed; /* the plugin's CommitSignature */
    else
        *pToken = header_local_sig_token(mi);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE mi_SetLocalVarSigToken(IMethodInfo2 *This, mdToken token)
{
    struct method_info *mi = from_iface(This);
    if (token && (token & 0xFF000000u) != mdtSignature)
        return E_INVALIDARG;
    if (!mi->has_il)
        return E_UNEXPECTED;
    if (atomic_load_explicit(&mi->closed, memory_order_acquire)) {
        CLRIE_PM_LOG_ERROR(mi->owner->log,
                           "%s: IMethodInfo::SetLocalVarSigToken called after the method's "
                           "instrumentation was over (E_UNEXPECTED); the plugin kept the method "
                           "info past its callback, and the change cannot reach the runtime",
                           clrie_pm__method_info_full_name(mi));
        return E_UNEXPECTED;
    }
    mi->local_sig_token = token;
    mi->local_sig_token_set = true;
    mi->sig_token_sets++;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE mi_GetAttributes(IMethodInfo2 *This, DWORD *pCorMethodAttr)
{
    if (!pCorMethodAttr)
        return E_POINTER;
    *pCorMethodAttr = from_iface(This)->attributes;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE mi_GetRejitCodeGenFlags(IMethodInfo2 *This, DWORD *pRefitFlags)
{
    if (!pRefitFlags)
        return E_POINTER;
    *pRefitFlags = from_iface(This)->codegen_flags;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE mi_GetCodeRva(IMethodInfo2 *This, DWORD *pRva)
{
    if (!pRva)
        return E_POINTER;
    *pRva = from_iface(This)->rva;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE mi_MethodImplFlags(IMethodInfo2 *This, UINT *pCorMethodImpl)
{
    if (!pCorMethodImpl)
        return E_POINTER;
    *pCorMethodImpl = from_iface(This)->impl_flags;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE mi_SetRejitCodeGenFlags(IMethodInfo2 *This, DWORD dwFlags)
{
    from_iface(This)->codegen_flags = dwFlags;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE mi_GetRejitCount(IMethodInfo2 *This, DWORD *pdwRejitCount)
{
    if (!pdwRejitCount)
        return E_POINTER;
    *pdwRejitCount = from_iface(This)->rejit_count;
    return S_OK;
}

/* ---- IMethodInfo: the IL ------------------------------------------------------------------ */

/* The start of a getter of what the IL body holds: checks and clears *out and reads the body
 * if that has not been done yet. */
static HRESULT begin_il_getter(struct method_info *mi, void **out)
{
    if (!out)
        return E_POINTER;
    *out = NULL;
    return clrie_pm__method_info_il(mi);
}

/* Hands out one of the body's borrowed interfaces, AddRef'd. */
#define IL_GETTER(name, type, accessor)                                                            \
    static HRESULT STDMETHODCALLTYPE mi_##name(IMethodInfo2 *This, type **out)                     \
    {                                                                                              \
        struct method_info *mi = from_iface(This);                                                 \
        HRESULT hr = begin_il_getter(mi, (void **)out);                                            \
        if (FAILED(hr))                                                                            \
            return hr;                                                                             \
        type *iface = (type *)(void *)accessor(mi->body);                                          \
        iface->lpVtbl->AddRef(iface);                                                              \
        *out = iface;                                                                              \
        return S_OK;                                                                               \
    }
IL_GETTER(GetInstructions, IInstructionGraph, clrie_pm_il_body_graph)
IL_GETTER(GetExceptionSection, IExceptionSection, clrie_pm_il_body_exceptions)
IL_GETTER(GetInstructionFactory, IInstructionFactory, clrie_pm_il_body_factory)
IL_GETTER(GetSingleRetDefaultInstrumentation, ISingleRetDefaultInstrumentation,
          clrie_pm_il_body_single_ret)

static HRESULT STDMETHODCALLTYPE mi_GetLocalVariables(IMethodInfo2 *This,
                                                      ILocalVariableCollection **out)
{
    struct method_info *mi = from_iface(This);
    HRESULT hr = begin_il_getter(mi, (void **)out);
    if (FAILED(hr))
        return hr;
    ILocalVariableCollection2 *locals = clrie_pm_types_locals_collection(mi->locals);
    locals->lpVtbl->AddRef(locals);
    *out = (ILocalVariableCollection *)(void *)locals;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE mi_GetOriginalLocalVariables(IMethodInfo2 *This,
                                                              ILocalVariableCollection **out)
{
    struct method_info *mi = from_iface(This);
    HRESULT hr = begin_il_getter(mi, (void **)out);
    if (FAILED(hr))
        return hr;
    if (!mi->original_locals) {
        PCCOR_SIGNATURE sig = NULL;
        ULONG len = 0;
        mdSignature token = header_local_sig_token(mi);
        hr = local_sig_blob(mi, token, &sig, &len);
        if (SUCCEEDED(hr))
            hr = clrie_pm_types_locals_new(as_unknown(mi), mi->types, NULL, sig, len, token, true,
                                           &mi->original_locals);
        if (FAILED(hr))
            return hr;
        clrie_pm_types_locals_use_log(mi->original_locals, mi->owner->log);
    }
    ILocalVariableCollection2 *locals = clrie_pm_types_locals_collection(mi->original_locals);
    locals->lpVtbl->AddRef(locals);
    *out = (ILocalVariableCollection *)(void *)locals;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE mi_GetMaxStack(IMethodInfo2 *This, DWORD *pMaxStack)
{
    struct method_info *mi = from_iface(This);
    if (!pMaxStack)
        return E_POINTER;
    HRESULT hr = clrie_pm__method_info_il(mi);
    if (FAILED(hr))
        return hr;
    uint32_t max = 0;
    struct clrie_il_diag diag = {0};
    if (clrie_il_graph_max_stack(clrie_pm_il_body_ilgraph(mi->body),
                                 clrie_pm__method_info_stack_effect, mi, &max, &diag) != 0)
        return E_FAIL;
    *pMaxStack = max;
    return S_OK;
}

static const struct IMethodInfo2Vtbl method_info_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(mi),
    .GetModuleInfo = mi_GetModuleInfo,
    .GetName = mi_GetName,
    .GetFullName = mi_GetFullName,
    .GetInstructions = mi_GetInstructions,
    .GetLocalVariables = mi_GetLocalVariables,
    .GetClassId = mi_GetClassId,
    .GetFunctionId = mi_GetFunctionId,
    .GetMethodToken = mi_GetMethodToken,
    .GetGenericParameterCount = mi_GetGenericParameterCount,
    .GetIsStatic = mi_GetIsStatic,
    .GetIsPublic = mi_GetIsPublic,
    .GetIsPrivate = mi_GetIsPrivate,
    .GetIsPropertyGetter = mi_GetIsPropertyGetter,
    .GetIsPropertySetter = mi_GetIsPropertySetter,
    .GetIsFinalizer = mi_GetIsFinalizer,
    .GetIsConstructor = mi_GetIsConstructor,
    .GetIsStaticConstructor = mi_GetIsStaticConstructor,
    .GetParameters = mi_GetParameters,
    .GetDeclaringType = mi_GetDeclaringType,
    .GetReturnType = mi_GetReturnType,
    .GetCorSignature = mi_GetCorSignature,
    .GetLocalVarSigToken = mi_GetLocalVarSigToken,
    .SetLocalVarSigToken = mi_SetLocalVarSigToken,
    .GetAttributes = mi_GetAttributes,
    .GetRejitCodeGenFlags = mi_GetRejitCodeGenFlags,
    .GetCodeRva = mi_GetCodeRva,
    .MethodImplFlags = mi_MethodImplFlags,
    .SetRejitCodeGenFlags = mi_SetRejitCodeGenFlags,
    .GetExceptionSection = mi_GetExceptionSection,
    .GetInstructionFactory = mi_GetInstructionFactory,
    .GetRejitCount = mi_GetRejitCount,
    .GetMaxStack = mi_GetMaxStack,
    .GetSingleRetDefaultInstrumentation = mi_GetSingleRetDefaultInstrumentation,
    .GetOriginalLocalVariables = mi_GetOriginalLocalVariables,
};
