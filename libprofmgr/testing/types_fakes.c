/* Fakes for the types tests; see types_fakes.h. */
#include "types_fakes.h"

#include <string.h>
#include <uchar.h>

#define NOTIMPL_BODY_HRESULT return E_NOTIMPL;
#define NOTIMPL_BODY_ULONG return 0;
#define NOTIMPL_BODY_BOOL return FALSE;
#define NOTIMPL_BODY_PVOID return NULL;
#define NOTIMPL_BODY_void

#define NI(prefix, ret, name, params)                                                              \
    static ret STDMETHODCALLTYPE prefix##_ni_##name params                                         \
    {                                                                                              \
        NOTIMPL_BODY_##ret                                                                         \
    }
#define NI_MDI(ret, name, params, args) NI(mdi, ret, name, params)
#define NI_MDE(ret, name, params, args) NI(mde, ret, name, params)
#define NI_MOD(ret, name, params, args) NI(mod, ret, name, params)
#define NI_TYPE(ret, name, params, args) NI(ty, ret, name, params)
CLRIE_IMETADATAIMPORT_METHODS(NI_MDI, IMetaDataImport *This, This)
CLRIE_IMETADATAEMIT_METHODS(NI_MDE, IMetaDataEmit *This, This)
CLRIE_IMODULEINFO_METHODS(NI_MOD, IModuleInfo *This, This)
CLRIE_ITYPE_METHODS(NI_TYPE, IType *This, This)

#define SLOT_MDI(ret, name, params, args) .name = mdi_ni_##name,
#define SLOT_MDE(ret, name, params, args) .name = mde_ni_##name,
#define SLOT_MOD(ret, name, params, args) .name = mod_ni_##name,
#define SLOT_TYPE(ret, name, params, args) .name = ty_ni_##name,

/* The IUnknown of a fake whose struct starts with its interface and then an atomic count. */
struct counted {
    const void *lpVtbl;
    atomic_int refs;
};
#define COUNTED(This) ((struct counted *)(void *)(This))
#define UNKNOWN_SLOTS(prefix, Iface)                                                               \
    static HRESULT STDMETHODCALLTYPE prefix##_QueryInterface(Iface *This, REFIID riid, void **ppv) \
    {                                                                                              \
        *ppv = NULL;                                                                               \
        return E_NOINTERFACE;                                                                      \
    }                                                                                              \
    static ULONG STDMETHODCALLTYPE prefix##_AddRef(Iface *This)                                    \
    {                                                                                              \
        return (ULONG)atomic_fetch_add(&COUNTED(This)->refs, 1) + 1;                               \
    }                                                                                              \
    static ULONG STDMETHODCALLTYPE prefix##_Release(Iface *This)                                   \
    {                                                                                              \
        return (ULONG)atomic_fetch_sub(&COUNTED(This)->refs, 1) - 1;                               \
    }
UNKNOWN_SLOTS(mdi, IMetaDataImport)
UNKNOWN_SLOTS(mde, IMetaDataEmit)
UNKNOWN_SLOTS(mod, IModuleInfo)
UNKNOWN_SLOTS(outer, IUnknown)
UNKNOWN_SLOTS(ty, IType)

/* ---- IMetaDataImport ------------------------------------------------------------------------ */

struct typedef_row {
    mdTypeDef token;
    const char *name;
    DWORD flags;
    mdToken extends;
    mdTypeDef enclosing;
};

static const struct typedef_row typedefs[] = {
    {TD_OUTER, "Ns.Outer", 0x00100001, TR_OBJECT, 0},
    {TD_INNER, "Inner", 0x00100002, TR_OBJECT, TD_OUTER},
    {TD_POINT, "Ns.Point", 0x00100109, TR_VALUETYPE, 0},
    {TD_COLOR, "Ns.Color", 0x00000101, TR_ENUM, 0},
    {TD_KLASS, "Ns.Klass", 0x00100001, TR_OBJECT, 0},
    {TD_LOOP, "Loop", 0x00000001, TR_OBJECT, TD_LOOP},
};

static const struct {
    mdTypeRef token;
    const char *name;
} typerefs[] = {
    {TR_VALUETYPE, "System.ValueType"},
    {TR_OBJECT, "System.Object"},
    {TR_ENUM, "System.Enum"},
};

/* Metadata's string convention: the length with the terminator, the text cut to the buffer. */
static void give_name(const char *name, WCHAR *buffer, ULONG cch, ULONG *pch)
{
    size_t len = strlen(name);
    if (pch)
        *pch = (ULONG)len + 1;
    if (!buffer || cch == 0)
        return;
    size_t n = len < cch - 1 ? len : cch - 1;
    for (size_t i = 0; i < n; i++)
        buffer[i] = (WCHAR)name[i];
    buffer[n] = 0;
}

static const struct typedef_row *find_typedef(mdTypeDef token)
{
    for (size_t i = 0; i < sizeof(typedefs) / sizeof(typedefs[0]); i++)
        if (typedefs[i].token == token)
            return &typedefs[i];
    return NULL;
}

#define CLDB_E_RECORD_NOTFOUND CLRIE_HRESULT(0x80131130u)

static HRESULT STDMETHODCALLTYPE mdi_GetTypeDefProps(IMetaDataImport *This, mdTypeDef td,
                                                     LPWSTR szTypeDef, ULONG cchTypeDef,
                                                     ULONG *pchTypeDef, DWORD *pdwTypeDefFlags,
                                                     mdToken *ptkExtends)
{
    const struct typedef_row *row = find_typedef(td);
    if (!row)
        return CLDB_E_RECORD_NOTFOUND;
    give_name(row->name, szTypeDef, cchTypeDef, pchTypeDef);
    if (pdwTypeDefFlags)
        *pdwTypeDefFlags = row->flags;
    if (ptkExtends)
        *ptkExtends = row->extends;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE mdi_GetTypeRefProps(IMetaDataImport *This, mdTypeRef tr,
                                                     mdToken *ptkResolutionScope, LPWSTR szName,
                                                     ULONG cchName, ULONG *pchName)
{
    for (size_t i = 0; i < sizeof(typerefs) / sizeof(typerefs[0]); i++) {
        if (typerefs[i].token == tr) {
            if (ptkResolutionScope)
                *ptkResolutionScope = 0x23000001;
            give_name(typerefs[i].name, szName, cchName, pchName);
            return S_OK;
        }
    }
    return CLDB_E_RECORD_NOTFOUND;
}

static HRESULT STDMETHODCALLTYPE mdi_GetNestedClassProps(IMetaDataImport *This,
                                                         mdTypeDef tdNestedClass,
                                                         mdTypeDef *ptdEnclosingClass)
{
    const struct typedef_row *row = find_typedef(tdNestedClass);
    if (!row || !row->enclosing)
        return CLDB_E_RECORD_NOTFOUND;
    *ptdEnclosingClass = row->enclosing;
    return S_OK;
}

static struct IMetaDataImportVtbl import_vtbl = {
    CLRIE_IMETADATAIMPORT_METHODS(SLOT_MDI, IMetaDataImport *This, This)};

void fake_import_init(struct fake_import *f)
{
    import_vtbl.QueryInterface = mdi_QueryInterface;
    import_vtbl.AddRef = mdi_AddRef;
    import_vtbl.Release = mdi_Release;
    import_vtbl.GetTypeDefProps = mdi_GetTypeDefProps;
    import_vtbl.GetTypeRefProps = mdi_GetTypeRefProps;
    import_vtbl.GetNestedClassProps = mdi_GetNestedClassProps;
    f->iface.lpVtbl = &import_vtbl;
    atomic_init(&f->refs, 1);
}

/* ---- IMetaDataEmit -------------------------------------------------------------------------- */

static HRESULT STDMETHODCALLTYPE mde_GetTokenFromSig(IMetaDataEmit *This, PCCOR_SIGNATURE pvSig,
                                                     ULONG cbSig, mdSignature *pmsig)
{
    struct fake_emit *f = (struct fake_emit *)(void *)This;
    if (f->fail)
        return f->fail;
    f->calls++;
    f->last_len = cbSig < sizeof(f->last) ? cbSig : sizeof(f->last);
    memcpy(f->last, pvSig, f->last_len);
    *pmsig = 0x11000000u | (mdSignature)(0x100 + f->calls);
    return S_OK;
}

static struct IMetaDataEmitVtbl emit_vtbl = {
    CLRIE_IMETADATAEMIT_METHODS(SLOT_MDE, IMetaDataEmit *This, This)};

void fake_emit_init(struct fake_emit *f)
{
    memset(f, 0, sizeof(*f));
    emit_vtbl.QueryInterface = mde_QueryInterface;
    emit_vtbl.AddRef = mde_AddRef;
    emit_vtbl.Release = mde_Release;
    emit_vtbl.GetTokenFromSig = mde_GetTokenFromSig;
    f->iface.lpVtbl = &emit_vtbl;
    atomic_init(&f->refs, 1);
}

/* ---- IModuleInfo, outer IUnknown, a plugin's IType ------------------------------------------ */

static struct IModuleInfoVtbl module_vtbl = {
    CLRIE_IMODULEINFO_METHODS(SLOT_MOD, IModuleInfo *This, This)};

void fake_module_init(struct fake_module *f)
{
    module_vtbl.QueryInterface = mod_QueryInterface;
    module_vtbl.AddRef = mod_AddRef;
    module_vtbl.Release = mod_Release;
    f->iface.lpVtbl = &module_vtbl;
    atomic_init(&f->refs, 1);
}

static const struct IUnknownVtbl outer_vtbl = {
    .QueryInterface = outer_QueryInterface, .AddRef = outer_AddRef, .Release = outer_Release};

void fake_outer_init(struct fake_outer *f)
{
    f->iface.lpVtbl = &outer_vtbl;
    atomic_init(&f->refs, 1);
}

static HRESULT STDMETHODCALLTYPE ty_AddToSignature(IType *This,
                                                   ISignatureBuilder *pSignatureBuilder)
{
    struct foreign_type *f = (struct foreign_type *)(void *)This;
    if (f->fail)
        return f->fail;
    return pSignatureBuilder->lpVtbl->AddData(pSignatureBuilder, f->bytes, (DWORD)f->len);
}

static struct ITypeVtbl foreign_vtbl = {CLRIE_ITYPE_METHODS(SLOT_TYPE, IType *This, This)};

void foreign_type_init(struct foreign_type *f, const uint8_t *bytes, size_t len)
{
    foreign_vtbl.QueryInterface = ty_QueryInterface;
    foreign_vtbl.AddRef = ty_AddRef;
    foreign_vtbl.Release = ty_Release;
    foreign_vtbl.AddToSignature = ty_AddToSignature;
    f->iface.lpVtbl = &foreign_vtbl;
    atomic_init(&f->refs, 1);
    f->bytes = bytes;
    f->len = len;
    f->fail = S_OK;
}
