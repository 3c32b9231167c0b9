/* ILocalVariableCollection(2): a method's LOCAL_SIG as plugins edit it. The collection holds the
 * current blob; AddLocal appends a type to it (libilgraph's clrie_il_sig_local_append),
 * ReplaceSignature swaps it, CommitSignature turns it into a StandAloneSig token once.
 *
 * Differences from CLRIE:
 *  - ReplaceSignature is allowed at any time (CLRIE refused it after any other call) and checks
 *    the whole blob: the LOCAL_SIG marker, the count, and exactly that many types (CLRIE checked
 *    two bytes and one bit).
 *  - GetEnum lists every current local, added ones included (CLRIE listed only the method's
 *    original locals, although GetCount counted the added ones).
 *  - CommitSignature records the token and returns it to the JIT pipeline
 * (clrie_pm_types_locals_commit) instead of calling IMethodInfo::SetLocalVarSigToken; committing
 * the same blob again emits nothing, and a blob the module already has (the module's token map,
 * sig_tokens.c) costs no runtime call. As CLRIE: a read-only collection
 * (IMethodInfo2::GetOriginalLocalVariables) refuses every change with E_FAIL; CommitSignature with
 * nothing changed is S_FALSE; GetCorSignature of a method without locals is the empty LOCAL_SIG 07
 * 00.
 *
 * The collection belongs to one method info and is used by one JIT callback at a time, so it has
 * no lock of its own (its IDataContainer has one). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "clrie/ilgraph.h"
#include "log.h"
#include "types_private.h"

struct blob {
    uint8_t *bytes; /* malloc'd, NULL when len is 0 */
    size_t len;
};

struct types_locals {
    ILocalVariableCollection2 iface; /* first */
    struct clrie_pm_data_container data;
    struct clrie_plugin_com com; /* for its class: references are the outer's */
    IUnknown *outer;             /* borrowed: it owns the collection; may be NULL */
    ITypeCreator *creator;       /* strong */
    IMetaDataEmit *emit;         /* strong, may be NULL */
    struct clrie_pm_types_sig_tokens *sig_tokens; /* borrowed, may be NULL */
    bool read_only;
    bool initialized;
    struct blob original;
    mdSignature original_token;
    struct blob current;
    bool committed; /* committed_blob has a token */
    struct blob committed_blob;
    mdSignature committed_token;
    unsigned long edits; /* AddLocal and ReplaceSignature calls that changed the signature */
    /* Set when the method's instrumentation is over: changes then answer E_UNEXPECTED. */
    atomic_bool closed;
    struct clrie_pm_log_name method_name; /* set with closed */
    struct clrie_pm_log *log; /* the runtime's, for misuse lines; set before handed out */
};

_Static_assert(offsetof(struct types_locals, iface) == 0, "iface first");

static struct types_locals *from_iface(ILocalVariableCollection2 *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct types_locals, iface);
}

/* A change after the method's instrumentation was over: logged, E_UNEXPECTED. */
static bool too_late(struct types_locals *l, const char *call)
{
    if (!atomic_load_explicit(&l->closed, memory_order_acquire))
        return false;
    if (l->log)
        CLRIE_PM_LOG_ERROR(l->log,
                           "%s: ILocalVariableCollection::%s called after the method's "
                           "instrumentation was over (E_UNEXPECTED); the plugin kept an IL "
                           "object past its callback, and the edit cannot reach the runtime",
                           clrie_pm_log_name_get(&l->method_name), call);
    return true;
}

static int blob_set(struct blob *b, const uint8_t *bytes, size_t len)
{
    uint8_t *copy = NULL;
    if (len) {
        if (!(copy = malloc(len)))
            return -ENOMEM;
        memcpy(copy, bytes, len);
    }
    free(b->bytes);
    b->bytes = copy;
    b->len = len;
    return 0;
}

static bool blob_equal(const struct blob *b, const uint8_t *bytes, size_t len)
{
    return b->len == len && (len == 0 || memcmp(b->bytes, bytes, len) == 0);
}

static const struct clrie_plugin_com_iface locals_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_ILocalVariableCollection, struct types_locals, iface),
    CLRIE_PLUGIN_COM_IFACE(&IID_ILocalVariableCollection2, struct types_locals, iface),
    CLRIE_PLUGIN_COM_IFACE(&IID_IDataContainer, struct types_locals, data.iface),
};
/* The collection lives as long as its owner (clrie_pm_types_locals_free): references go to the
 * owner. */
#define LOG_OF(l) ((l)->log)
CLRIE_PM_COM_CLASS_LOGGED(locals_class, "ILocalVariableCollection", struct types_locals, com, NULL,
                          locals_ifaces, LOG_OF);
#define OWNER_OF(l) ((l)->outer)
CLRIE_PM_COM_OWNED(locals, ILocalVariableCollection2, struct types_locals, iface, com, OWNER_OF)

/* Nothing to load: the blob came with the collection. S_FALSE after the first call, as CLRIE. */
static HRESULT STDMETHODCALLTYPE locals_Initialize(ILocalVariableCollection2 *This)
{
    struct types_locals *l = from_iface(This);
    if (l->initialized)
        return S_FALSE;
    l->initialized = true;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE locals_GetCorSignature(ILocalVariableCollection2 *This,
                                                        ISignatureBuilder **ppSignature)
{
    static const uint8_t no_locals[2] = {CLRIE_IL_CALLCONV_LOCAL_SIG, 0};
    struct types_locals *l = from_iface(This);
    if (!ppSignature)
        return E_POINTER;
    *ppSignature = NULL;
    l->initialized = true;
    if (l->current.len == 0)
        return clrie_pm__types_builder_new_with(no_locals, sizeof(no_locals), ppSignature);
    return clrie_pm__types_builder_new_with(l->current.bytes, l->current.len, ppSignature);
}

static HRESULT STDMETHODCALLTYPE locals_GetCount(ILocalVariableCollection2 *This, DWORD *pdwCount)
{
    struct types_locals *l = from_iface(This);
    if (!pdwCount)
        return E_POINTER;
    l->initialized = true;
    uint32_t count;
    if (clrie_il_sig_local_header(l->current.bytes, l->current.len, &count, NULL) < 0)
        return E_FAIL;
    *pdwCount = count;
    return S_OK;
}

/* The bytes of any IType: ours directly, a plugin's through its AddToSignature. *scratch is a
 * builder to release afterwards (NULL when none was needed). */
static HRESULT type_bytes(IType *type, const uint8_t **bytes, size_t *len,
                          ISignatureBuilder **scratch)
{
    *scratch = NULL;
    if ((*bytes = clrie_pm__types_type_bytes(type, len)))
        return S_OK;
    ISignatureBuilder *b;
    HRESULT hr = clrie_pm_types_signature_builder_new(&b);
    if (FAILED(hr))
        return hr;
    if (FAILED(hr = type->lpVtbl->AddToSignature(type, b)) ||
        FAILED(hr = clrie_pm__types_builder_view(b, bytes, len))) {
        b->lpVtbl->Release(b);
        return hr;
    }
    *scratch = b;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE locals_AddLocal(ILocalVariableCollection2 *This, IType *pType,
                                                 DWORD *pIndex)
{
    struct types_locals *l = from_iface(This);
    if (too_late(l, "AddLocal"))
        return E_UNEXPECTED;
    if (!pType)
        return E_POINTER;
    l->initialized = true;
    if (l->read_only)
        return E_FAIL;
    const uint8_t *bytes;
    size_t len;
    ISignatureBuilder *scratch;
    HRESULT hr = type_bytes(pType, &bytes, &len, &scratch);
    if (FAILED(hr))
        return hr;
    uint8_t *sig = NULL;
    size_t sig_len;
    uint32_t index;
    int r = len == 0 ? -EILSEQ
                     : clrie_il_sig_local_append(l->current.bytes, l->current.len, bytes, len, &sig,
                                                 &sig_len, &index);
    if (scratch)
        scratch->lpVtbl->Release(scratch);
    if (r < 0)
        return r == -ENOMEM ? E_OUTOFMEMORY : r == -ERANGE ? E_FAIL : E_INVALIDARG;
    free(l->current.bytes);
    l->current.bytes = sig;
    l->current.len = sig_len;
    l->edits++;
    if (pIndex)
        *pIndex = index;
    return S_OK;
}

/* A LOCAL_SIG blob: the marker, a count, and exactly that many types. */
static HRESULT check_locals(struct types_locals *l, const uint8_t *sig, size_t len)
{
    IType **types;
    uint32_t count;
    HRESULT hr = clrie_pm__types_parse_locals(l->creator, sig, len, &types, &count);
    if (FAILED(hr))
        return hr;
    clrie_pm__types_release_all(types, count);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE locals_ReplaceSignature(ILocalVariableCollection2 *This,
                                                         const BYTE *pSignature, DWORD dwSigSize)
{
    struct types_locals *l = from_iface(This);
    if (too_late(l, "ReplaceSignature"))
        return E_UNEXPECTED;
    l->initialized = true;
    if (l->read_only)
        return E_FAIL;
    if (!pSignature)
        return E_POINTER;
    if (dwSigSize < 2)
        return E_INVALIDARG;
    return clrie_pm_types_locals_replace(l, pSignature, dwSigSize);
}

static HRESULT STDMETHODCALLTYPE locals_CommitSignature(ILocalVariableCollection2 *This)
{
    struct types_locals *l = from_iface(This);
    if (too_late(l, "CommitSignature"))
        return E_UNEXPECTED;
    if (blob_equal(&l->original, l->current.bytes, l->current.len) ||
        (l->committed && blob_equal(&l->committed_blob, l->current.bytes, l->current.len)))
        return S_FALSE;
    mdSignature token;
    return clrie_pm_types_locals_commit(l, &token);
}

static HRESULT STDMETHODCALLTYPE locals_GetEnum(ILocalVariableCollection2 *This,
                                                IEnumMethodLocals **ppEnumMethodLocals)
{
    struct types_locals *l = from_iface(This);
    if (!ppEnumMethodLocals)
        return E_POINTER;
    *ppEnumMethodLocals = NULL;
    l->initialized = true;
    IType **types;
    uint32_t count;
    HRESULT hr =
        clrie_pm__types_parse_locals(l->creator, l->current.bytes, l->current.len, &types, &count);
    if (FAILED(hr))
        return hr;
    void *e;
    hr = clrie_pm__types_enum_wrapping(TYPES_ENUM_LOCALS, types, count, &e);
    clrie_pm__types_release_all(types, count);
    if (SUCCEEDED(hr))
        *ppEnumMethodLocals = e;
    return hr;
}

static const struct ILocalVariableCollection2Vtbl locals_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(locals),
    .Initialize = locals_Initialize,
    .GetCorSignature = locals_GetCorSignature,
    .GetCount = locals_GetCount,
    .AddLocal = locals_AddLocal,
    .ReplaceSignature = locals_ReplaceSignature,
    .CommitSignature = locals_CommitSignature,
    .GetEnum = locals_GetEnum,
};

/* ---- the contract ------------------------------------------------------------------------- */

HRESULT clrie_pm_types_locals_new(IUnknown *outer, ITypeCreator *creator, IMetaDataEmit *emit,
                                  const uint8_t *sig, size_t len, mdSignature token, bool read_only,
                                  struct types_locals **out)
{
    if (!creator || !out || (len && !sig))
        return E_POINTER;
    *out = NULL;
    uint32_t count;
    if (clrie_il_sig_local_header(sig, len, &count, NULL) < 0)
        return E_INVALIDARG;
    struct types_locals *l = calloc(1, sizeof(*l));
    if (!l)
        return E_OUTOFMEMORY;
    if (blob_set(&l->original, sig, len) < 0 || blob_set(&l->current, sig, len) < 0) {
        free(l->original.bytes);
        free(l);
        return E_OUTOFMEMORY;
    }
    l->iface.lpVtbl = &locals_vtbl;
    clrie_pm_data_container_init(&l->data, (IUnknown *)&l->iface);
    clrie_plugin_com_init(&l->com, &locals_class);
    l->outer = outer;
    creator->lpVtbl->AddRef(creator);
    l->creator = creator;
    if ((l->emit = emit))
        emit->lpVtbl->AddRef(emit);
    l->original_token = token;
    l->read_only = read_only;
    *out = l;
    return S_OK;
}

void clrie_pm_types_locals_free(struct types_locals *l)
{
    if (!l)
        return;
    clrie_pm_data_container_finish(&l->data);
    l->creator->lpVtbl->Release(l->creator);
    if (l->emit)
        l->emit->lpVtbl->Release(l->emit);
    free(l->original.bytes);
    free(l->current.bytes);
    free(l->committed_blob.bytes);
    free(l);
}

void clrie_pm_types_locals_use_sig_tokens(struct types_locals *l,
                                          struct clrie_pm_types_sig_tokens *tokens)
{
    l->sig_tokens = tokens;
}

ILocalVariableCollection2 *clrie_pm_types_locals_collection(struct types_locals *l)
{
    return &l->iface;
}

void clrie_pm_types_locals_signature(struct types_locals *l, const uint8_t **sig, size_t *len)
{
    *sig = l->current.bytes;
    *len = l->current.len;
}

bool clrie_pm_types_locals_changed(const struct types_locals *l)
{
    return !blob_equal(&l->original, l->current.bytes, l->current.len);
}

HRESULT clrie_pm_types_locals_replace(struct types_locals *l, const uint8_t *sig, size_t len)
{
    if (!l || (len && !sig))
        return E_POINTER;
    if (l->read_only)
        return E_FAIL;
    HRESULT hr = check_locals(l, sig, len);
    if (FAILED(hr))
        return hr;
    if (blob_set(&l->current, sig, len) < 0)
        return E_OUTOFMEMORY;
    l->edits++;
    return S_OK;
}

unsigned long clrie_pm_types_locals_edits(const struct types_locals *l)
{
    return l ? l->edits : 0;
}

void clrie_pm_types_locals_use_log(struct types_locals *l, struct clrie_pm_log *log)
{
    l->log = log;
}

void clrie_pm_types_locals_close(struct types_locals *l, struct clrie_pm_log_name method_name)
{
    if (!l)
        return;
    l->method_name = method_name;
    atomic_store_explicit(&l->closed, true, memory_order_release);
}

bool clrie_pm_types_locals_committed_token(const struct types_locals *l, mdSignature *token)
{
    if (!l || !l->committed || !blob_equal(&l->committed_blob, l->current.bytes, l->current.len))
        return false;
    *token = l->committed_token;
    return true;
}

HRESULT clrie_pm_types_locals_commit(struct types_locals *l, mdSignature *token)
{
    if (!l || !token)
        return E_POINTER;
    if (!clrie_pm_types_locals_changed(l)) {
        *token = l->original_token;
        return S_OK;
    }
    if (l->committed && blob_equal(&l->committed_blob, l->current.bytes, l->current.len)) {
        *token = l->committed_token;
        return S_OK;
    }
    if (l->read_only)
        return E_FAIL;
    if (!l->emit)
        return E_NOTIMPL;
    if (l->current.len == 0) { /* every local removed: the method names no signature */
        *token = mdTokenNil;
        return S_OK;
    }
    if (l->current.len > UINT32_MAX)
        return E_FAIL;
    mdSignature made = mdTokenNil;
    HRESULT hr = l->sig_tokens ? clrie_pm_types_sig_tokens_get(l->sig_tokens, l->current.bytes,
                                                               l->current.len, &made)
                               : l->emit->lpVtbl->GetTokenFromSig(l->emit, l->current.bytes,
                                                                  (ULONG)l->current.len, &made);
    if (FAILED(hr))
        return hr;
    if (blob_set(&l->committed_blob, l->current.bytes, l->current.len) < 0)
        return E_OUTOFMEMORY;
    l->committed = true;
    l->committed_token = made;
    *token = made;
    return S_OK;
}
