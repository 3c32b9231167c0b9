/* ISignatureBuilder: a growing byte buffer plugins write signature blobs into (compressed
 * unsigned and signed integers, TypeDefOrRef tokens, element types, raw bytes, other builders).
 *
 * Differences from CLRIE, which writes whatever its encoders return: a value that cannot be
 * encoded (an unsigned value past 2^29-1, a signed one outside [-2^28, 2^28-1], a token that is
 * not a TypeDef, TypeRef or TypeSpec, an element type past 0xFF) is E_INVALIDARG and leaves the
 * builder unchanged, where CLRIE appended garbage or moved its length backwards.
 *
 * A builder is used by one thread at a time (as in CLRIE); its IDataContainer is thread-safe. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "clrie/ilgraph.h"
#include "types_private.h"

struct builder {
    ISignatureBuilder iface; /* first */
    struct clrie_pm_data_container data;
    struct clrie_plugin_com com;
    uint8_t *bytes;
    size_t len, capacity;
};

_Static_assert(offsetof(struct builder, iface) == 0, "iface first");

/* A signature never comes near this; it keeps DWORD sizes exact. */
#define MAX_SIZE 0x7FFFFFFFu

static const struct ISignatureBuilderVtbl builder_vtbl;

static struct builder *from_iface(ISignatureBuilder *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct builder, iface);
}

static void builder_destroy(void *object)
{
    struct builder *b = object;
    clrie_pm_data_container_finish(&b->data);
    free(b->bytes);
    free(b);
}

static const struct clrie_plugin_com_iface builder_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_ISignatureBuilder, struct builder, iface),
    CLRIE_PLUGIN_COM_IFACE(&IID_IDataContainer, struct builder, data.iface),
};
CLRIE_PM_COM_CLASS(builder_class, "ISignatureBuilder", struct builder, com, builder_destroy,
                   builder_ifaces);
CLRIE_PLUGIN_COM_IUNKNOWN(builder, ISignatureBuilder, struct builder, iface, com)

static HRESULT append(struct builder *b, const uint8_t *bytes, size_t len)
{
    if (len == 0)
        return S_OK;
    if (len > MAX_SIZE - b->len)
        return E_OUTOFMEMORY;
    if (b->len + len > b->capacity) {
        size_t capacity = b->capacity ? b->capacity : 16;
        while (capacity < b->len + len)
            capacity *= 2;
        uint8_t *grown = realloc(b->bytes, capacity);
        if (!grown)
            return E_OUTOFMEMORY;
        b->bytes = grown;
        b->capacity = capacity;
    }
    memcpy(b->bytes + b->len, bytes, len);
    b->len += len;
    return S_OK;
}

/* Appends what an encoder wrote to enc: n bytes, or E_INVALIDARG when it could not (n < 0). */
static HRESULT append_encoded(ISignatureBuilder *This, const uint8_t enc[4], int n)
{
    return n < 0 ? E_INVALIDARG : append(from_iface(This), enc, (size_t)n);
}

static HRESULT STDMETHODCALLTYPE builder_Add(ISignatureBuilder *This, DWORD value)
{
    uint8_t enc[4];
    int n = clrie_il_sig_write_uint(value, enc);
    return append_encoded(This, enc, n);
}

static HRESULT STDMETHODCALLTYPE builder_AddSignedInt(ISignatureBuilder *This, LONG value)
{
    uint8_t enc[4];
    int n = clrie_il_sig_write_int(value, enc);
    return append_encoded(This, enc, n);
}

static HRESULT STDMETHODCALLTYPE builder_AddToken(ISignatureBuilder *This, mdToken token)
{
    uint8_t enc[4];
    int n = clrie_il_sig_write_token(token, enc);
    return append_encoded(This, enc, n);
}

static HRESULT STDMETHODCALLTYPE builder_AddElementType(ISignatureBuilder *This,
                                                        CorElementType type)
{
    if ((uint32_t)type > 0xFF)
        return E_INVALIDARG;
    uint8_t byte = (uint8_t)type;
    return append(from_iface(This), &byte, 1);
}

static HRESULT STDMETHODCALLTYPE builder_AddData(ISignatureBuilder *This, const BYTE *pData,
                                                 DWORD cbSize)
{
    if (cbSize == 0)
        return S_OK;
    if (!pData)
        return E_POINTER;
    return append(from_iface(This), pData, cbSize);
}

static HRESULT STDMETHODCALLTYPE builder_AddSignature(ISignatureBuilder *This,
                                                      ISignatureBuilder *pSignature)
{
    if (!pSignature)
        return E_POINTER;
    const uint8_t *bytes;
    size_t len;
    HRESULT hr = clrie_pm__types_builder_view(pSignature, &bytes, &len);
    if (FAILED(hr))
        return hr;
    if (pSignature == This) { /* appending itself: the buffer moves while it is copied */
        uint8_t *copy = len ? malloc(len) : NULL;
        if (len && !copy)
            return E_OUTOFMEMORY;
        if (len)
            memcpy(copy, bytes, len);
        hr = append(from_iface(This), copy, len);
        free(copy);
        return hr;
    }
    return append(from_iface(This), bytes, len);
}

static HRESULT STDMETHODCALLTYPE builder_Clear(ISignatureBuilder *This)
{
    struct builder *b = from_iface(This);
    free(b->bytes);
    b->bytes = NULL;
    b->len = b->capacity = 0;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE builder_GetSize(ISignatureBuilder *This, DWORD *pcbSize)
{
    if (!pcbSize)
        return E_POINTER;
    *pcbSize = (DWORD)from_iface(This)->len;
    return S_OK;
}

/* As CLRIE: a NULL buffer asks for the size only; a buffer that is too small is E_INVALIDARG. */
static HRESULT STDMETHODCALLTYPE builder_GetCorSignature(ISignatureBuilder *This, DWORD cbBuffer,
                                                         BYTE *pCorSignature, DWORD *pcbSignature)
{
    struct builder *b = from_iface(This);
    if (pCorSignature) {
        if (cbBuffer < b->len)
            return E_INVALIDARG;
        if (b->len)
            memcpy(pCorSignature, b->bytes, b->len);
    }
    if (pcbSignature)
        *pcbSignature = (DWORD)b->len;
    return S_OK;
}

/* S_FALSE with NULL for an empty builder, as CLRIE. */
static HRESULT STDMETHODCALLTYPE builder_GetCorSignaturePtr(ISignatureBuilder *This,
                                                            const BYTE **ppSignature)
{
    struct builder *b = from_iface(This);
    if (!ppSignature)
        return E_POINTER;
    *ppSignature = b->len ? b->bytes : NULL;
    return b->len ? S_OK : S_FALSE;
}

static const struct ISignatureBuilderVtbl builder_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(builder),
    .Add = builder_Add,
    .AddSignedInt = builder_AddSignedInt,
    .AddToken = builder_AddToken,
    .AddElementType = builder_AddElementType,
    .AddData = builder_AddData,
    .AddSignature = builder_AddSignature,
    .Clear = builder_Clear,
    .GetSize = builder_GetSize,
    .GetCorSignature = builder_GetCorSignature,
    .GetCorSignaturePtr = builder_GetCorSignaturePtr,
};

HRESULT clrie_pm_types_signature_builder_new(ISignatureBuilder **out)
{
    if (!out)
        return E_POINTER;
    *out = NULL;
    struct builder *b = calloc(1, sizeof(*b));
    if (!b)
        return E_OUTOFMEMORY;
    b->iface.lpVtbl = &builder_vtbl;
    clrie_plugin_com_init(&b->com, &builder_class);
    clrie_pm_data_container_init(&b->data, (IUnknown *)&b->iface);
    *out = &b->iface;
    return S_OK;
}

HRESULT clrie_pm__types_builder_new_with(const uint8_t *bytes, size_t len, ISignatureBuilder **out)
{
    ISignatureBuilder *b;
    HRESULT hr = clrie_pm_types_signature_builder_new(&b);
    if (FAILED(hr))
        return hr;
    if (FAILED(hr = append(from_iface(b), bytes, len))) {
        b->lpVtbl->Release(b);
        return hr;
    }
    *out = b;
    return S_OK;
}

HRESULT clrie_pm__types_builder_view(ISignatureBuilder *builder, const uint8_t **bytes, size_t *len)
{
    if (!builder)
        return E_POINTER;
    if (builder->lpVtbl == &builder_vtbl) {
        struct builder *b = from_iface(builder);
        *bytes = b->bytes;
        *len = b->len;
        return S_OK;
    }
    /* A plugin's own builder: trust only what its two answers agree on. */
    DWORD size = 0;
    const BYTE *p = NULL;
    HRESULT hr = builder->lpVtbl->GetSize(builder, &size);
    if (FAILED(hr))
        return hr;
    if (size == 0) {
        *bytes = NULL;
        *len = 0;
        return S_OK;
    }
    hr = builder->lpVtbl->GetCorSignaturePtr(builder, &p);
    if (FAILED(hr))
        return hr;
    if (!p)
        return E_FAIL;
    *bytes = p;
    *len = size;
    return S_OK;
}
