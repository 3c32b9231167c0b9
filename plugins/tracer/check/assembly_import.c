/* IMetaDataImport over the tool's assembly reader (assembly_import.h). Implemented: EnumTypeDefs,
 * EnumMethods, CloseEnum, GetTypeDefProps, GetNestedClassProps, GetMethodProps,
 * GetTypeRefProps, as CoreCLR's metadata answers them (names `Namespace.Name` in UTF-16, the
 * global type <Module> not enumerated, S_FALSE at the end of an enumeration); every read goes
 * through the reader, which checks each row and heap index of a hostile file. */
#include "assembly_import.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <clrie/plugin.h>

#define RECORD_NOT_FOUND ((HRESULT)0x80131130) /* CLDB_E_RECORD_NOTFOUND */

struct import {
    IMetaDataImport iface;
    atomic_int refs;
    const struct asm_assembly *assembly;
};

static struct import *from_iface(IMetaDataImport *iface)
{
    return (struct import *)(void *)iface;
}

/* ---- the methods nobody calls ------------------------------------------------------------- */

#define NOTIMPL_BODY_HRESULT return E_NOTIMPL;
#define NOTIMPL_BODY_ULONG return 0;
#define NOTIMPL_BODY_BOOL return FALSE;
#define NOTIMPL_BODY_void
#define NOT_IMPLEMENTED(ret, name, params, args)                                                   \
    static ret STDMETHODCALLTYPE ni_##name params                                                  \
    {                                                                                              \
        NOTIMPL_BODY_##ret                                                                         \
    }
CLRIE_IMETADATAIMPORT_METHODS(NOT_IMPLEMENTED, IMetaDataImport *This, This)
#define NOT_IMPLEMENTED_SLOT(ret, name, params, args) .name = ni_##name,

/* ---- IUnknown ------------------------------------------------------------------------------- */

static HRESULT STDMETHODCALLTYPE import_QueryInterface(IMetaDataImport *This, REFIID riid,
                                                       void **out)
{
    if (!out)
        return E_POINTER;
    if (IsEqualIID(riid, &IID_IUnknown) || IsEqualIID(riid, &IID_IMetaDataImport)) {
        This->lpVtbl->AddRef(This);
        *out = This;
        return S_OK;
    }
    *out = NULL;
    return E_NOINTERFACE;
}

static ULONG STDMETHODCALLTYPE import_AddRef(IMetaDataImport *This)
{
    return (ULONG)atomic_fetch_add(&from_iface(This)->refs, 1) + 1;
}

static ULONG STDMETHODCALLTYPE import_Release(IMetaDataImport *This)
{
    int left = atomic_fetch_sub(&from_iface(This)->refs, 1) - 1;
    if (left == 0)
        free(from_iface(This));
    return (ULONG)left;
}

/* ---- enumerations --------------------------------------------------------------------------- */

/* A cursor: the rows of `rows` still to give, from next to last; `owner` (MethodDef rows through
 * a MethodPtr table) filters by owning TypeDef. */
struct cursor {
    uint32_t next, last, owner;
};

static HRESULT give_rows(struct import *s, struct cursor *c, uint32_t table, mdToken out[],
                         ULONG max, ULONG *count)
{
    ULONG n = 0;
    while (n < max && c->next <= c->last) {
        uint32_t row = c->next++;
        if (c->owner) {
            struct asm_methoddef m;
            if (asm_methoddef_get(s->assembly, row, &m, NULL) != 0 || m.owner != c->owner)
                continue;
        }
        out[n++] = ASM_TOKEN(table, row);
    }
    if (count)
        *count = n;
    return n > 0 ? S_OK : S_FALSE;
}

static struct cursor *cursor_of(HCORENUM *e, uint32_t first, uint32_t last, uint32_t owner)
{
    if (*e)
        return *e;
    struct cursor *c = malloc(sizeof *c);
    if (c)
        *c = (struct cursor){first, last, owner};
    *e = c;
    return c;
}

static void STDMETHODCALLTYPE import_CloseEnum(IMetaDataImport *This, HCORENUM e)
{
    (void)This;
    free(e);
}

static HRESULT STDMETHODCALLTYPE import_EnumTypeDefs(IMetaDataImport *This, HCORENUM *e,
                                                     mdTypeDef types[], ULONG max, ULONG *count)
{
    struct import *s = from_iface(This);
    if (!e || !types)
        return E_POINTER;
    /* row 1 is the global type <Module>, which the runtime's enumeration leaves out */
    struct cursor *c = cursor_of(e, 2, asm_table_rows(s->assembly, ASM_TABLE_TYPE_DEF), 0);
    if (!c)
        return E_OUTOFMEMORY;
    return give_rows(s, c, ASM_TABLE_TYPE_DEF, types, max, count);
}

static HRESULT STDMETHODCALLTYPE import_EnumMethods(IMetaDataImport *This, HCORENUM *e,
                                                    mdTypeDef type, mdMethodDef methods[],
                                                    ULONG max, ULONG *count)
{
    struct import *s = from_iface(This);
    if (!e || !methods)
        return E_POINTER;
    if (!*e) {
        struct asm_typedef t;
        if (ASM_TOKEN_TABLE(type) != ASM_TABLE_TYPE_DEF ||
            asm_typedef_get(s->assembly, ASM_TOKEN_ROW(type), &t, NULL) != 0)
            return RECORD_NOT_FOUND;
        uint32_t first = t.method_list, last = t.method_list + t.method_count - 1, owner = 0;
        if (asm_table_rows(s->assembly, ASM_TABLE_METHOD_PTR) > 0) {
            /* the list indexes MethodPtr rows: every MethodDef, kept by its owner */
            first = 1;
            last = asm_table_rows(s->assembly, ASM_TABLE_METHOD_DEF);
            owner = ASM_TOKEN_ROW(type);
        } else if (t.method_count == 0) {
            first = 1, last = 0;
        }
        if (!cursor_of(e, first, last, owner))
            return E_OUTOFMEMORY;
    }
    return give_rows(s, *e, ASM_TABLE_METHOD_DEF, methods, max, count);
}

/* ---- properties ----------------------------------------------------------------------------- */

/* `namespace.name` (or `name`) into out[0..capacity) as CoreCLR gives it; *len the units with
 * the terminator. */
static void give_name(const char *namespace_, const char *name, WCHAR *out, ULONG capacity,
                      ULONG *len)
{
    WCHAR full[2 * CLRIE_PLUGIN_NAME_UNITS];
    full[0] = 0;
    if (namespace_ && namespace_[0]) {
        clrie_plugin_wcs_append_utf8(full, sizeof full / sizeof full[0], namespace_);
        clrie_plugin_wcs_append_utf8(full, sizeof full / sizeof full[0], ".");
    }
    clrie_plugin_wcs_append_utf8(full, sizeof full / sizeof full[0], name);
    size_t units = clrie_plugin_wcs_len(full) + 1;
    if (len)
        *len = (ULONG)units;
    if (out && capacity > 0) {
        size_t n = units <= capacity ? units : capacity;
        memcpy(out, full, n * sizeof *out);
        out[n - 1] = 0;
    }
}

static HRESULT STDMETHODCALLTYPE import_GetTypeDefProps(IMetaDataImport *This, mdTypeDef type,
                                                        LPWSTR name, ULONG capacity, ULONG *len,
                                                        DWORD *flags, mdToken *extends)
{
    struct asm_typedef t;
    if (ASM_TOKEN_TABLE(type) != ASM_TABLE_TYPE_DEF ||
        asm_typedef_get(from_iface(This)->assembly, ASM_TOKEN_ROW(type), &t, NULL) != 0)
        return RECORD_NOT_FOUND;
    give_name(t.namespace_, t.name, name, capacity, len);
    if (flags)
        *flags = t.flags;
    if (extends)
        *extends = t.extends ? t.extends : mdTokenNil;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE import_GetNestedClassProps(IMetaDataImport *This, mdTypeDef type,
                                                            mdTypeDef *enclosing)
{
    struct asm_typedef t;
    if (ASM_TOKEN_TABLE(type) != ASM_TABLE_TYPE_DEF ||
        asm_typedef_get(from_iface(This)->assembly, ASM_TOKEN_ROW(type), &t, NULL) != 0 ||
        t.enclosing == 0)
        return RECORD_NOT_FOUND;
    if (enclosing)
        *enclosing = ASM_TOKEN(ASM_TABLE_TYPE_DEF, t.enclosing);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE import_GetMethodProps(IMetaDataImport *This, mdMethodDef method,
                                                       mdTypeDef *owner, LPWSTR name,
                                                       ULONG capacity, ULONG *len,
                                                       DWORD *attributes, PCCOR_SIGNATURE *sig,
                                                       ULONG *sig_len, ULONG *rva, DWORD *impl)
{
    struct asm_methoddef m;
    if (ASM_TOKEN_TABLE(method) != ASM_TABLE_METHOD_DEF ||
        asm_methoddef_get(from_iface(This)->assembly, ASM_TOKEN_ROW(method), &m, NULL) != 0)
        return RECORD_NOT_FOUND;
    if (owner)
        *owner = m.owner ? ASM_TOKEN(ASM_TABLE_TYPE_DEF, m.owner) : mdTokenNil;
    give_name(NULL, m.name, name, capacity, len);
    if (attributes)
        *attributes = m.flags;
    if (sig)
        *sig = m.signature.data;
    if (sig_len)
        *sig_len = (ULONG)m.signature.len;
    if (rva)
        *rva = m.rva;
    if (impl)
        *impl = m.impl_flags;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE import_GetTypeRefProps(IMetaDataImport *This, mdTypeRef type,
                                                        mdToken *scope, LPWSTR name, ULONG capacity,
                                                        ULONG *len)
{
    struct asm_typeref t;
    if (ASM_TOKEN_TABLE(type) != ASM_TABLE_TYPE_REF ||
        asm_typeref_get(from_iface(This)->assembly, ASM_TOKEN_ROW(type), &t, NULL) != 0)
        return RECORD_NOT_FOUND;
    if (scope)
        *scope = t.resolution_scope ? t.resolution_scope : mdTokenNil;
    give_name(t.namespace_, t.name, name, capacity, len);
    return S_OK;
}

/* The implemented methods override the E_NOTIMPL defaults: a vtable built once, at the first
 * import made (the tool has one thread). */
static struct IMetaDataImportVtbl vtbl = {
    CLRIE_IMETADATAIMPORT_METHODS(NOT_IMPLEMENTED_SLOT, IMetaDataImport *This, This)};

int clrie_tracer_check_import_new(const struct asm_assembly *assembly, IMetaDataImport **out)
{
    struct import *s = calloc(1, sizeof *s);
    if (!s)
        return -ENOMEM;
    vtbl.QueryInterface = import_QueryInterface;
    vtbl.AddRef = import_AddRef;
    vtbl.Release = import_Release;
    vtbl.CloseEnum = import_CloseEnum;
    vtbl.EnumTypeDefs = import_EnumTypeDefs;
    vtbl.EnumMethods = import_EnumMethods;
    vtbl.GetTypeDefProps = import_GetTypeDefProps;
    vtbl.GetNestedClassProps = import_GetNestedClassProps;
    vtbl.GetMethodProps = import_GetMethodProps;
    vtbl.GetTypeRefProps = import_GetTypeRefProps;
    s->iface.lpVtbl = &vtbl;
    atomic_init(&s->refs, 1);
    s->assembly = assembly;
    *out = &s->iface;
    return 0;
}
