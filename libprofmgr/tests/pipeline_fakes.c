/* A fake CoreCLR for the JIT pipeline's tests: see pipeline_fakes.h. */
#include "pipeline_fakes.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fake_runtime.h" /* fake_pe_image */

/* Generated vtables name every slot and then the implemented ones again. */
#if defined(__clang__)
#pragma clang diagnostic ignored "-Winitializer-overrides"
#else
#pragma GCC diagnostic ignored "-Woverride-init"
#endif

#define CLDB_E_RECORD_NOTFOUND CLRIE_HRESULT(0x80131130u)
#define CORPROF_E_FUNCTION_IS_COLLECTIBLE_OR_JITTED CLRIE_HRESULT(0x80131388u)

/* ---- the methods the runtime knows ---------------------------------------------------------- */

static const uint8_t sig_int32_void[] = {0x00, 0x00, 0x08};        /* static int32 () */
static const uint8_t sig_int32_int32[] = {0x00, 0x01, 0x08, 0x08}; /* static int32 (int32) */
static const uint8_t multi_locals_sig[] = {0x07, 0x01, 0x08};      /* LOCAL_SIG: int32 */
static const uint8_t method_spec_sig[] = {0x0A, 0x01, 0x08};       /* GENERICINST <int32> */

static const uint8_t tiny_body[] = {0x0A, 0x17, 0x2A};  /* ldc.i4.1; ret */
static const uint8_t small_body[] = {0x0A, 0x18, 0x2A}; /* ldc.i4.2; ret */

/* Fat, InitLocals, one int32 local, a try/finally, two rets:
 *   0 ldarg.0; 1 brfalse.s 5; 3 ldc.i4.1; 4 ret;
 *   5 ldc.i4.2; 6 stloc.0; 7 leave.s 11;  (try 5..9)
 *   9 nop; 10 endfinally;                  (finally 9..11)
 *   11 ldloc.0; 12 ret */
const uint8_t pf_multi_body[] = {
    0x1B, 0x30, 0x01, 0x00, 0x0D, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x11,       /* header */
    0x02, 0x2C, 0x02, 0x17, 0x2A, 0x18, 0x0A, 0xDE, 0x02, 0x00, 0xDC, 0x06, 0x2A, /* code */
    0x00, 0x00, 0x00,                                                             /* pad */
    0x01, 0x10, 0x00, 0x00, /* small EH section, one clause */
    0x02, 0x00, 0x05, 0x00, 0x04, 0x09, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, /* finally */
};
const size_t pf_multi_body_size = sizeof(pf_multi_body);

struct method {
    mdMethodDef token;
    char name[16];
    mdTypeDef type;
    const uint8_t *sig;
    ULONG sig_len;
    const uint8_t *original;
    ULONG original_size;
    uint8_t worker_body[4];
    /* what GetILFunctionBody answers now (changed by SetILFunctionBody) */
    const uint8_t *current;
    ULONG current_size;
};

#define METHOD_COUNT (5 + PF_WORKERS)

/* One allocation the engine made through IMethodMalloc. */
struct allocation {
    struct allocation *next;
    size_t size;
    uint8_t bytes[];
};

#define MAX_RECORDS 64

static struct {
    pthread_mutex_t lock; /* protects everything below but the atomics */
    struct method methods[METHOD_COUNT];
    struct allocation *allocations;
    struct pf_body bodies[MAX_RECORDS];
    size_t body_count;
    struct {
        FunctionID function;
        COR_IL_MAP *map;
        size_t count;
    } maps[MAX_RECORDS];
    size_t map_count;
    uint8_t last_sig[64];
    size_t last_sig_len;
    ModuleID rejit_modules[16];
    mdMethodDef rejit_tokens[16];
    size_t rejit_count;
    bool rejit_with_inliners;
    DWORD event_mask;
    atomic_int info_refs;
    atomic_int metadata_live;
    atomic_int allocators_live;
    atomic_int foreign_bodies;
    atomic_int token_from_sig_calls;
    atomic_int rejit_requests;
    atomic_bool refuse_bodies;
} pf = {.lock = PTHREAD_MUTEX_INITIALIZER};

static uint8_t *image; /* the mapped PE image of PF_MODULE */

static void set_method(struct method *m, mdMethodDef token, const char *name, mdTypeDef type,
                       const uint8_t *sig, ULONG sig_len, const uint8_t *body, ULONG size)
{
    *m = (struct method){.token = token,
                         .type = type,
                         .sig = sig,
                         .sig_len = sig_len,
                         .original = body,
                         .original_size = size};
    snprintf(m->name, sizeof(m->name), "%s", name);
    m->current = body;
    m->current_size = size;
}

void pf_reset(void)
{
    pthread_mutex_lock(&pf.lock);
    for (struct allocation *a = pf.allocations, *next; a; a = next) {
        next = a->next;
        free(a);
    }
    pf.allocations = NULL;
    for (size_t i = 0; i < pf.body_count; i++)
        free(pf.bodies[i].bytes);
    pf.body_count = 0;
    for (size_t i = 0; i < pf.map_count; i++)
        free(pf.maps[i].map);
    pf.map_count = 0;
    pf.last_sig_len = 0;
    pf.rejit_count = 0;
    pf.event_mask = 0;

    struct method *m = pf.methods;
    set_method(m++, PF_TOKEN_TINY, "Tiny", PF_TYPE_PROGRAM, sig_int32_void, 3, tiny_body, 3);
    set_method(m++, PF_TOKEN_MULTI, "Multi", PF_TYPE_INNER, sig_int32_int32, 4, pf_multi_body,
               (ULONG)sizeof(pf_multi_body));
    set_method(m++, PF_TOKEN_ABSTRACT, "Abstract", PF_TYPE_PROGRAM, sig_int32_void, 3, NULL, 0);
    set_method(m++, PF_TOKEN_SMALL, "Small", PF_TYPE_PROGRAM, sig_int32_void, 3, small_body, 3);
    set_method(m++, PF_TOKEN_DEEP, "Deep", PF_TYPE_PROGRAM, sig_int32_void, 3, tiny_body, 3);
    for (int i = 0; i < PF_WORKERS; i++, m++) {
        char name[16];
        snprintf(name, sizeof(name), "Worker%d", i);
        set_method(m, PF_TOKEN_WORKER + (mdMethodDef)i, name, PF_TYPE_PROGRAM, sig_int32_void, 3,
                   NULL, 0);
        /* ldc.i4.s i; ret */
        m->worker_body[0] = 0x0E, m->worker_body[1] = 0x1F, m->worker_body[2] = (uint8_t)i;
        m->worker_body[3] = 0x2A;
        m->original = m->current = m->worker_body;
        m->original_size = m->current_size = 4;
    }
    if (!image)
        image = fake_pe_image(false, true, 1 /* ILONLY */, 0);
    pthread_mutex_unlock(&pf.lock);
    atomic_store(&pf.info_refs, 1);
    atomic_store(&pf.metadata_live, 0);
    atomic_store(&pf.allocators_live, 0);
    atomic_store(&pf.foreign_bodies, 0);
    atomic_store(&pf.token_from_sig_calls, 0);
    atomic_store(&pf.rejit_requests, 0);
    atomic_store(&pf.refuse_bodies, false);
}

void pf_refuse_bodies(void)
{
    atomic_store(&pf.refuse_bodies, true);
}

/* Call with the lock. */
static struct method *method_locked(mdToken token)
{
    for (size_t i = 0; i < METHOD_COUNT; i++)
        if (pf.methods[i].token == token)
            return &pf.methods[i];
    return NULL;
}

/* The runtime's string convention: *pcch gets the length with the terminator; the buffer gets
 * as much as fits, terminated. */
static void give_string(const char *ascii, ULONG cch, ULONG *pcch, WCHAR *buffer)
{
    size_t len = strlen(ascii);
    if (pcch)
        *pcch = (ULONG)len + 1;
    if (buffer && cch) {
        size_t n = len < cch - 1 ? len : cch - 1;
        for (size_t i = 0; i < n; i++)
            buffer[i] = (WCHAR)ascii[i];
        buffer[n] = 0;
    }
}

/* ---- generated do-nothing slots ----------------------------------------------------------------
 */

#define NOTIMPL_BODY_HRESULT return E_NOTIMPL;
#define NOTIMPL_BODY_ULONG return 0;
#define NOTIMPL_BODY_BOOL return FALSE;
#define NOTIMPL_BODY_PVOID return NULL;
#define NOTIMPL_BODY_void

#define NI_INFO(ret, name, params, args)                                                           \
    __attribute__((unused)) static ret ni_info_##name params                                       \
    {                                                                                              \
        NOTIMPL_BODY_##ret                                                                         \
    }
#define NI_MDI(ret, name, params, args)                                                            \
    __attribute__((unused)) static ret ni_mdi_##name params                                        \
    {                                                                                              \
        NOTIMPL_BODY_##ret                                                                         \
    }
#define NI_MDA(ret, name, params, args)                                                            \
    __attribute__((unused)) static ret ni_mda_##name params                                        \
    {                                                                                              \
        NOTIMPL_BODY_##ret                                                                         \
    }
#define NI_MDE(ret, name, params, args)                                                            \
    __attribute__((unused)) static ret ni_mde_##name params                                        \
    {                                                                                              \
        NOTIMPL_BODY_##ret                                                                         \
    }
#define NI_MDAE(ret, name, params, args)                                                           \
    __attribute__((unused)) static ret ni_mdae_##name params                                       \
    {                                                                                              \
        NOTIMPL_BODY_##ret                                                                         \
    }
CLRIE_ICORPROFILERINFO15_METHODS(NI_INFO, ICorProfilerInfo15 *This, This)
CLRIE_IMETADATAIMPORT2_METHODS(NI_MDI, IMetaDataImport2 *This, This)
CLRIE_IMETADATAASSEMBLYIMPORT_METHODS(NI_MDA, IMetaDataAssemblyImport *This, This)
CLRIE_IMETADATAEMIT2_METHODS(NI_MDE, IMetaDataEmit2 *This, This)
CLRIE_IMETADATAASSEMBLYEMIT_METHODS(NI_MDAE, IMetaDataAssemblyEmit *This, This)

#define SLOT_INFO(ret, name, params, args) .name = ni_info_##name,
#define SLOT_MDI(ret, name, params, args) .name = ni_mdi_##name,
#define SLOT_MDA(ret, name, params, args) .name = ni_mda_##name,
#define SLOT_MDE(ret, name, params, args) .name = ni_mde_##name,
#define SLOT_MDAE(ret, name, params, args) .name = ni_mdae_##name,

/* ---- metadata: one object per GetModuleMetaData call, with all four interfaces ------------ */

struct metadata {
    IMetaDataImport2 import;
    IMetaDataAssemblyImport assembly_import;
    IMetaDataEmit2 emit;
    IMetaDataAssemblyEmit assembly_emit;
    atomic_int refs;
    ModuleID module;
};

static const struct IMetaDataImport2Vtbl import_vtbl;
static const struct IMetaDataAssemblyImportVtbl assembly_import_vtbl;
static const struct IMetaDataEmit2Vtbl emit_vtbl;
static const struct IMetaDataAssemblyEmitVtbl assembly_emit_vtbl;

static HRESULT md_query(struct metadata *md, REFIID riid, void **ppv)
{
    if (IsEqualIID(riid, &IID_IUnknown) || IsEqualIID(riid, &IID_IMetaDataImport) ||
        IsEqualIID(riid, &IID_IMetaDataImport2))
        *ppv = &md->import;
    else if (IsEqualIID(riid, &IID_IMetaDataAssemblyImport))
        *ppv = &md->assembly_import;
    else if (IsEqualIID(riid, &IID_IMetaDataEmit) || IsEqualIID(riid, &IID_IMetaDataEmit2))
        *ppv = &md->emit;
    else if (IsEqualIID(riid, &IID_IMetaDataAssemblyEmit))
        *ppv = &md->assembly_emit;
    else {
        *ppv = NULL;
        return E_NOINTERFACE;
    }
    atomic_fetch_add(&md->refs, 1);
    return S_OK;
}

static ULONG md_release(struct metadata *md)
{
    int left = atomic_fetch_sub(&md->refs, 1) - 1;
    assert_true(left >= 0);
    if (left == 0) {
        free(md);
        atomic_fetch_sub(&pf.metadata_live, 1);
    }
    return (ULONG)left;
}

#define MD_UNKNOWN(prefix, Iface, member)                                                          \
    static struct metadata *prefix##_md(Iface *This)                                               \
    {                                                                                              \
        return CLRIE_CONTAINER_OF(This, struct metadata, member);                                  \
    }                                                                                              \
    static HRESULT prefix##_QueryInterface(Iface *This, REFIID riid, void **ppv)                   \
    {                                                                                              \
        return md_query(prefix##_md(This), riid, ppv);                                             \
    }                                                                                              \
    static ULONG prefix##_AddRef(Iface *This)                                                      \
    {                                                                                              \
        return (ULONG)atomic_fetch_add(&prefix##_md(This)->refs, 1) + 1;                           \
    }                                                                                              \
    static ULONG prefix##_Release(Iface *This)                                                     \
    {                                                                                              \
        return md_release(prefix##_md(This));                                                      \
    }
MD_UNKNOWN(mdi, IMetaDataImport2, import)
MD_UNKNOWN(mda, IMetaDataAssemblyImport, assembly_import)
MD_UNKNOWN(mde, IMetaDataEmit2, emit)
MD_UNKNOWN(mdae, IMetaDataAssemblyEmit, assembly_emit)

static HRESULT mdi_GetScopeProps(IMetaDataImport2 *This, LPWSTR szName, ULONG cchName,
                                 ULONG *pchName, GUID *pmvid)
{
    give_string("Fake.dll", cchName, pchName, szName);
    if (pmvid)
        *pmvid = (GUID){0x12345678, 1, 2, {3, 4, 5, 6, 7, 8, 9, 10}};
    return S_OK;
}

static HRESULT mdi_GetMethodProps(IMetaDataImport2 *This, mdMethodDef mb, mdTypeDef *pClass,
                                  LPWSTR szMethod, ULONG cchMethod, ULONG *pchMethod,
                                  DWORD *pdwAttr, PCCOR_SIGNATURE *ppvSigBlob, ULONG *pcbSigBlob,
                                  ULONG *pulCodeRVA, DWORD *pdwImplFlags)
{
    pthread_mutex_lock(&pf.lock);
    struct method *m = method_locked(mb);
    struct method copy = m ? *m : (struct method){0};
    pthread_mutex_unlock(&pf.lock);
    if (!m)
        return CLDB_E_RECORD_NOTFOUND;
    if (pClass)
        *pClass = copy.type;
    give_string(copy.name, cchMethod, pchMethod, szMethod);
    if (pdwAttr)
        *pdwAttr = 0x0016; /* public static */
    if (ppvSigBlob)
        *ppvSigBlob = copy.sig;
    if (pcbSigBlob)
        *pcbSigBlob = copy.sig_len;
    if (pulCodeRVA)
        *pulCodeRVA = copy.original ? 0x2050 + (mb & 0xFF) * 0x10 : 0;
    if (pdwImplFlags)
        *pdwImplFlags = 0;
    return S_OK;
}

static HRESULT mdi_GetTypeDefProps(IMetaDataImport2 *This, mdTypeDef td, LPWSTR szTypeDef,
                                   ULONG cchTypeDef, ULONG *pchTypeDef, DWORD *pdwTypeDefFlags,
                                   mdToken *ptkExtends)
{
    const char *name = td == PF_TYPE_PROGRAM ? "Fake.Program"
                       : td == PF_TYPE_INNER ? "Inner"
                                             : NULL;
    if (!name)
        return CLDB_E_RECORD_NOTFOUND;
    give_string(name, cchTypeDef, pchTypeDef, szTypeDef);
    if (pdwTypeDefFlags)
        *pdwTypeDefFlags = td == PF_TYPE_INNER ? 0x2 /* nested public */ : 0x1;
    if (ptkExtends)
        *ptkExtends = 0x01000001;
    return S_OK;
}

static HRESULT mdi_GetNestedClassProps(IMetaDataImport2 *This, mdTypeDef tdNestedClass,
                                       mdTypeDef *ptdEnclosingClass)
{
    if (tdNestedClass != PF_TYPE_INNER)
        return CLDB_E_RECORD_NOTFOUND;
    *ptdEnclosingClass = PF_TYPE_PROGRAM;
    return S_OK;
}

static HRESULT mdi_GetMemberRefProps(IMetaDataImport2 *This, mdMemberRef mr, mdToken *ptk,
                                     LPWSTR szMember, ULONG cchMember, ULONG *pchMember,
                                     PCCOR_SIGNATURE *ppvSigBlob, ULONG *pbSig)
{
    if (mr != PF_MEMBER_REF)
        return CLDB_E_RECORD_NOTFOUND;
    if (ptk)
        *ptk = 0x01000002;
    give_string("Helper", cchMember, pchMember, szMember);
    if (ppvSigBlob)
        *ppvSigBlob = sig_int32_void;
    if (pbSig)
        *pbSig = sizeof(sig_int32_void);
    return S_OK;
}

static HRESULT mdi_GetMethodSpecProps(IMetaDataImport2 *This, mdMethodSpec mi, mdToken *tkParent,
                                      PCCOR_SIGNATURE *ppvSigBlob, ULONG *pcbSigBlob)
{
    if (mi != PF_METHOD_SPEC)
        return CLDB_E_RECORD_NOTFOUND;
    if (tkParent)
        *tkParent = PF_MEMBER_REF;
    if (ppvSigBlob)
        *ppvSigBlob = method_spec_sig;
    if (pcbSigBlob)
        *pcbSigBlob = sizeof(method_spec_sig);
    return S_OK;
}

static HRESULT mdi_GetSigFromToken(IMetaDataImport2 *This, mdSignature mdSig,
                                   PCCOR_SIGNATURE *ppvSig, ULONG *pcbSig)
{
    if (mdSig != PF_MULTI_LOCALS)
        return CLDB_E_RECORD_NOTFOUND;
    *ppvSig = multi_locals_sig;
    *pcbSig = sizeof(multi_locals_sig);
    return S_OK;
}

static HRESULT mda_GetAssemblyFromScope(IMetaDataAssemblyImport *This, mdAssembly *ptkAssembly)
{
    *ptkAssembly = 0x20000001;
    return S_OK;
}

static HRESULT mda_GetAssemblyProps(IMetaDataAssemblyImport *This, mdAssembly mda,
                                    const void **ppbPublicKey, ULONG *pcbPublicKey,
                                    ULONG *pulHashAlgId, LPWSTR szName, ULONG cchName,
                                    ULONG *pchName, ASSEMBLYMETADATA *pMetaData,
                                    DWORD *pdwAssemblyFlags)
{
    if (ppbPublicKey)
        *ppbPublicKey = NULL;
    if (pcbPublicKey)
        *pcbPublicKey = 0;
    if (pulHashAlgId)
        *pulHashAlgId = 0x8004;
    give_string("Fake", cchName, pchName, szName);
    if (pMetaData)
        memset(pMetaData, 0, sizeof(*pMetaData));
    if (pdwAssemblyFlags)
        *pdwAssemblyFlags = 0;
    return S_OK;
}

static HRESULT mde_GetTokenFromSig(IMetaDataEmit2 *This, PCCOR_SIGNATURE pvSig, ULONG cbSig,
                                   mdSignature *pmsig)
{
    if (!pvSig || !pmsig)
        return E_POINTER;
    int n = atomic_fetch_add(&pf.token_from_sig_calls, 1);
    pthread_mutex_lock(&pf.lock);
    pf.last_sig_len = cbSig < sizeof(pf.last_sig) ? cbSig : sizeof(pf.last_sig);
    memcpy(pf.last_sig, pvSig, pf.last_sig_len);
    pthread_mutex_unlock(&pf.lock);
    *pmsig = PF_FIRST_NEW_SIG + (mdSignature)n;
    return S_OK;
}

static const struct IMetaDataImport2Vtbl import_vtbl = {
    CLRIE_IMETADATAIMPORT2_METHODS(SLOT_MDI, IMetaDataImport2 *This, This).QueryInterface =
        mdi_QueryInterface,
    .AddRef = mdi_AddRef,
    .Release = mdi_Release,
    .GetScopeProps = mdi_GetScopeProps,
    .GetMethodProps = mdi_GetMethodProps,
    .GetTypeDefProps = mdi_GetTypeDefProps,
    .GetNestedClassProps = mdi_GetNestedClassProps,
    .GetMemberRefProps = mdi_GetMemberRefProps,
    .GetMethodSpecProps = mdi_GetMethodSpecProps,
    .GetSigFromToken = mdi_GetSigFromToken,
};
static const struct IMetaDataAssemblyImportVtbl assembly_import_vtbl = {
    CLRIE_IMETADATAASSEMBLYIMPORT_METHODS(SLOT_MDA, IMetaDataAssemblyImport *This, This)
        .QueryInterface = mda_QueryInterface,
    .AddRef = mda_AddRef,
    .Release = mda_Release,
    .GetAssemblyFromScope = mda_GetAssemblyFromScope,
    .GetAssemblyProps = mda_GetAssemblyProps,
};
static const struct IMetaDataEmit2Vtbl emit_vtbl = {
    CLRIE_IMETADATAEMIT2_METHODS(SLOT_MDE, IMetaDataEmit2 *This, This).QueryInterface =
        mde_QueryInterface,
    .AddRef = mde_AddRef,
    .Release = mde_Release,
    .GetTokenFromSig = mde_GetTokenFromSig,
};
static const struct IMetaDataAssemblyEmitVtbl assembly_emit_vtbl = {
    CLRIE_IMETADATAASSEMBLYEMIT_METHODS(SLOT_MDAE, IMetaDataAssemblyEmit *This, This)
        .QueryInterface = mdae_QueryInterface,
    .AddRef = mdae_AddRef,
    .Release = mdae_Release,
};

/* ---- IMethodMalloc ------------------------------------------------------------------------- */

struct allocator {
    IMethodMalloc iface;
    atomic_int refs;
};

static HRESULT malloc_QueryInterface(IMethodMalloc *This, REFIID riid, void **ppv)
{
    *ppv = NULL;
    return E_NOINTERFACE;
}

static ULONG malloc_AddRef(IMethodMalloc *This)
{
    return (ULONG)atomic_fetch_add(&((struct allocator *)(void *)This)->refs, 1) + 1;
}

static ULONG malloc_Release(IMethodMalloc *This)
{
    struct allocator *a = (struct allocator *)(void *)This;
    int left = atomic_fetch_sub(&a->refs, 1) - 1;
    if (left == 0) {
        free(a);
        atomic_fetch_sub(&pf.allocators_live, 1);
    }
    return (ULONG)left;
}

static PVOID malloc_Alloc(IMethodMalloc *This, ULONG cb)
{
    struct allocation *a = calloc(1, sizeof(*a) + cb);
    if (!a)
        return NULL;
    a->size = cb;
    pthread_mutex_lock(&pf.lock);
    a->next = pf.allocations;
    pf.allocations = a;
    pthread_mutex_unlock(&pf.lock);
    return a->bytes;
}

static const struct IMethodMallocVtbl malloc_vtbl = {
    .QueryInterface = malloc_QueryInterface,
    .AddRef = malloc_AddRef,
    .Release = malloc_Release,
    .Alloc = malloc_Alloc,
};

/* ---- ICorProfilerInfo15 ---------------------------------------------------------------------- */

static ICorProfilerInfo15 info;

static HRESULT info_QueryInterface(ICorProfilerInfo15 *This, REFIID riid, void **ppv)
{
    static const IID *const known[] = {
        &IID_IUnknown,           &IID_ICorProfilerInfo,   &IID_ICorProfilerInfo2,
        &IID_ICorProfilerInfo3,  &IID_ICorProfilerInfo4,  &IID_ICorProfilerInfo5,
        &IID_ICorProfilerInfo6,  &IID_ICorProfilerInfo7,  &IID_ICorProfilerInfo8,
        &IID_ICorProfilerInfo9,  &IID_ICorProfilerInfo10, &IID_ICorProfilerInfo11,
        &IID_ICorProfilerInfo12, &IID_ICorProfilerInfo13, &IID_ICorProfilerInfo14,
        &IID_ICorProfilerInfo15,
    };
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        if (IsEqualIID(riid, known[i])) {
            atomic_fetch_add(&pf.info_refs, 1);
            *ppv = This;
            return S_OK;
        }
    }
    *ppv = NULL;
    return E_NOINTERFACE;
}

static ULONG info_AddRef(ICorProfilerInfo15 *This)
{
    return (ULONG)atomic_fetch_add(&pf.info_refs, 1) + 1;
}

static ULONG info_Release(ICorProfilerInfo15 *This)
{
    int left = atomic_fetch_sub(&pf.info_refs, 1) - 1;
    assert_true(left >= 0);
    return (ULONG)left;
}

static HRESULT info_SetEventMask(ICorProfilerInfo15 *This, DWORD dwEvents)
{
    pthread_mutex_lock(&pf.lock);
    pf.event_mask = dwEvents;
    pthread_mutex_unlock(&pf.lock);
    return S_OK;
}

static HRESULT info_SetEventMask2(ICorProfilerInfo15 *This, DWORD low, DWORD high)
{
    return info_SetEventMask(This, low);
}

static HRESULT info_GetEventMask2(ICorProfilerInfo15 *This, DWORD *low, DWORD *high)
{
    *low = pf_event_mask();
    *high = 0;
    return S_OK;
}

static HRESULT info_GetAppDomainInfo(ICorProfilerInfo15 *This, AppDomainID appDomainId,
                                     ULONG cchName, ULONG *pcchName, WCHAR szName[],
                                     ProcessID *pProcessId)
{
    if (appDomainId != PF_DOMAIN)
        return E_INVALIDARG;
    give_string("clrhost", cchName, pcchName, szName);
    if (pProcessId)
        *pProcessId = 4242;
    return S_OK;
}

static HRESULT info_GetAssemblyInfo(ICorProfilerInfo15 *This, AssemblyID assemblyId, ULONG cchName,
                                    ULONG *pcchName, WCHAR szName[], AppDomainID *pAppDomainId,
                                    ModuleID *pModuleId)
{
    if (assemblyId != PF_ASSEMBLY)
        return E_INVALIDARG;
    give_string("Fake", cchName, pcchName, szName);
    if (pAppDomainId)
        *pAppDomainId = PF_DOMAIN;
    if (pModuleId)
        *pModuleId = PF_MODULE;
    return S_OK;
}

static bool known_module(ModuleID id)
{
    return id == PF_MODULE || id == PF_DYNAMIC_MODULE || id == PF_UNKNOWN_MODULE;
}

static HRESULT info_GetModuleInfo2(ICorProfilerInfo15 *This, ModuleID moduleId,
                                   LPCBYTE *ppBaseLoadAddress, ULONG cchName, ULONG *pcchName,
                                   WCHAR szName[], AssemblyID *pAssemblyId, DWORD *pdwModuleFlags)
{
    if (!known_module(moduleId))
        return E_INVALIDARG;
    bool dynamic = moduleId == PF_DYNAMIC_MODULE;
    if (ppBaseLoadAddress)
        *ppBaseLoadAddress = dynamic ? NULL : image;
    give_string(dynamic ? "" : "/app/Fake.dll", cchName, pcchName, szName);
    if (pAssemblyId)
        *pAssemblyId = PF_ASSEMBLY;
    if (pdwModuleFlags)
        *pdwModuleFlags = dynamic ? COR_PRF_MODULE_DYNAMIC : COR_PRF_MODULE_DISK;
    return S_OK;
}

static HRESULT info_GetModuleInfo(ICorProfilerInfo15 *This, ModuleID moduleId,
                                  LPCBYTE *ppBaseLoadAddress, ULONG cchName, ULONG *pcchName,
                                  WCHAR szName[], AssemblyID *pAssemblyId)
{
    return info_GetModuleInfo2(This, moduleId, ppBaseLoadAddress, cchName, pcchName, szName,
                               pAssemblyId, NULL);
}

static HRESULT info_GetModuleMetaData(ICorProfilerInfo15 *This, ModuleID moduleId,
                                      DWORD dwOpenFlags, REFIID riid, IUnknown **ppOut)
{
    *ppOut = NULL;
    if (!known_module(moduleId))
        return E_INVALIDARG;
    struct metadata *md = calloc(1, sizeof(*md));
    assert_non_null(md);
    md->import.lpVtbl = &import_vtbl;
    md->assembly_import.lpVtbl = &assembly_import_vtbl;
    md->emit.lpVtbl = &emit_vtbl;
    md->assembly_emit.lpVtbl = &assembly_emit_vtbl;
    md->module = moduleId;
    atomic_init(&md->refs, 0);
    atomic_fetch_add(&pf.metadata_live, 1);
    void *out = NULL;
    HRESULT hr = md_query(md, riid, &out);
    if (FAILED(hr)) {
        free(md);
        atomic_fetch_sub(&pf.metadata_live, 1);
        return hr;
    }
    *ppOut = out;
    return S_OK;
}

static HRESULT info_GetFunctionInfo(ICorProfilerInfo15 *This, FunctionID functionId,
                                    ClassID *pClassId, ModuleID *pModuleId, mdToken *pToken)
{
    ModuleID module = PF_MODULE;
    mdToken token;
    switch (functionId) {
    case PF_FN_TINY:
        token = PF_TOKEN_TINY;
        break;
    case PF_FN_MULTI:
        token = PF_TOKEN_MULTI;
        break;
    case PF_FN_ABSTRACT:
        token = PF_TOKEN_ABSTRACT;
        break;
    case PF_FN_SMALL:
        token = PF_TOKEN_SMALL;
        break;
    case PF_FN_DEEP:
        token = PF_TOKEN_DEEP;
        break;
    case PF_FN_DYNAMIC:
        module = PF_DYNAMIC_MODULE, token = PF_TOKEN_TINY;
        break;
    case PF_FN_UNKNOWN:
        module = PF_UNKNOWN_MODULE, token = PF_TOKEN_TINY;
        break;
    default:
        if (functionId < PF_FN_WORKER || functionId >= PF_FN_WORKER + PF_WORKERS)
            return E_INVALIDARG;
        token = PF_TOKEN_WORKER + (mdToken)(functionId - PF_FN_WORKER);
    }
    if (pClassId)
        *pClassId = 0x5000;
    if (pModuleId)
        *pModuleId = module;
    if (pToken)
        *pToken = token;
    return S_OK;
}

static HRESULT info_GetILFunctionBody(ICorProfilerInfo15 *This, ModuleID moduleId,
                                      mdMethodDef methodId, LPCBYTE *ppMethodHeader,
                                      ULONG *pcbMethodSize)
{
    if (moduleId != PF_MODULE)
        return E_INVALIDARG;
    pthread_mutex_lock(&pf.lock);
    struct method *m = method_locked(methodId);
    const uint8_t *body = m ? m->current : NULL;
    ULONG size = m ? m->current_size : 0;
    pthread_mutex_unlock(&pf.lock);
    if (!m)
        return E_INVALIDARG;
    if (!body)
        return CORPROF_E_FUNCTION_NOT_IL;
    *ppMethodHeader = body;
    if (pcbMethodSize)
        *pcbMethodSize = size;
    return S_OK;
}

static HRESULT info_GetILFunctionBodyAllocator(ICorProfilerInfo15 *This, ModuleID moduleId,
                                               IMethodMalloc **ppMalloc)
{
    if (moduleId != PF_MODULE)
        return E_INVALIDARG;
    struct allocator *a = calloc(1, sizeof(*a));
    assert_non_null(a);
    a->iface.lpVtbl = &malloc_vtbl;
    atomic_init(&a->refs, 1);
    atomic_fetch_add(&pf.allocators_live, 1);
    *ppMalloc = &a->iface;
    return S_OK;
}

static HRESULT info_SetILFunctionBody(ICorProfilerInfo15 *This, ModuleID moduleId,
                                      mdMethodDef methodid, LPCBYTE pbNewILMethodHeader)
{
    pthread_mutex_lock(&pf.lock);
    struct allocation *a = pf.allocations;
    while (a && a->bytes != pbNewILMethodHeader)
        a = a->next;
    struct method *m = method_locked(methodid);
    HRESULT hr = S_OK;
    if (atomic_load(&pf.refuse_bodies)) {
        hr = CORPROF_E_FUNCTION_IS_COLLECTIBLE_OR_JITTED;
    } else if (!a || !m || moduleId != PF_MODULE) {
        atomic_fetch_add(&pf.foreign_bodies, 1);
        hr = E_INVALIDARG;
    } else if (pf.body_count == MAX_RECORDS) {
        hr = E_OUTOFMEMORY;
    } else {
        struct pf_body *b = &pf.bodies[pf.body_count++];
        *b = (struct pf_body){moduleId, methodid, malloc(a->size), a->size};
        assert_non_null(b->bytes);
        memcpy(b->bytes, a->bytes, a->size);
        m->current = a->bytes;
        m->current_size = (ULONG)a->size;
    }
    pthread_mutex_unlock(&pf.lock);
    return hr;
}

static HRESULT info_SetILInstrumentedCodeMap(ICorProfilerInfo15 *This, FunctionID functionId,
                                             BOOL fStartJit, ULONG cILMapEntries,
                                             COR_IL_MAP rgILMapEntries[])
{
    COR_IL_MAP *copy = malloc(cILMapEntries * sizeof(*copy) + 1);
    assert_non_null(copy);
    memcpy(copy, rgILMapEntries, cILMapEntries * sizeof(*copy));
    pthread_mutex_lock(&pf.lock);
    assert_true(pf.map_count < MAX_RECORDS);
    pf.maps[pf.map_count].function = functionId;
    pf.maps[pf.map_count].map = copy;
    pf.maps[pf.map_count].count = cILMapEntries;
    pf.map_count++;
    pthread_mutex_unlock(&pf.lock);
    return S_OK;
}

static HRESULT info_GetCodeInfo2(ICorProfilerInfo15 *This, FunctionID functionID,
                                 ULONG32 cCodeInfos, ULONG32 *pcCodeInfos,
                                 COR_PRF_CODE_INFO codeInfos[])
{
    *pcCodeInfos = 1;
    if (cCodeInfos >= 1)
        codeInfos[0] = (COR_PRF_CODE_INFO){.startAddress = 0x7000 + functionID, .size = 16};
    return S_OK;
}

static HRESULT info_GetILToNativeMapping(ICorProfilerInfo15 *This, FunctionID functionId,
                                         ULONG32 cMap, ULONG32 *pcMap,
                                         COR_DEBUG_IL_TO_NATIVE_MAP map[])
{
    *pcMap = 1;
    if (cMap >= 1)
        map[0] = (COR_DEBUG_IL_TO_NATIVE_MAP){
            .ilOffset = 0, .nativeStartOffset = 0, .nativeEndOffset = 16};
    return S_OK;
}

static void record_rejit(ULONG count, const ModuleID *modules, const mdMethodDef *tokens,
                         bool with_inliners)
{
    atomic_fetch_add(&pf.rejit_requests, 1);
    pthread_mutex_lock(&pf.lock);
    pf.rejit_count = count < 16 ? count : 16;
    memcpy(pf.rejit_modules, modules, pf.rejit_count * sizeof(*modules));
    memcpy(pf.rejit_tokens, tokens, pf.rejit_count * sizeof(*tokens));
    pf.rejit_with_inliners = with_inliners;
    pthread_mutex_unlock(&pf.lock);
}

static HRESULT info_RequestReJIT(ICorProfilerInfo15 *This, ULONG cFunctions, ModuleID moduleIds[],
                                 mdMethodDef methodIds[])
{
    record_rejit(cFunctions, moduleIds, methodIds, false);
    return S_OK;
}

static HRESULT info_RequestReJITWithInliners(ICorProfilerInfo15 *This, DWORD dwRejitFlags,
                                             ULONG cFunctions, ModuleID moduleIds[],
                                             mdMethodDef methodIds[])
{
    record_rejit(cFunctions, moduleIds, methodIds, true);
    return S_OK;
}

static const struct ICorProfilerInfo15Vtbl info_vtbl = {
    CLRIE_ICORPROFILERINFO15_METHODS(SLOT_INFO, ICorProfilerInfo15 *This, This).QueryInterface =
        info_QueryInterface,
    .AddRef = info_AddRef,
    .Release = info_Release,
    .SetEventMask = info_SetEventMask,
    .SetEventMask2 = info_SetEventMask2,
    .GetEventMask2 = info_GetEventMask2,
    .GetAppDomainInfo = info_GetAppDomainInfo,
    .GetAssemblyInfo = info_GetAssemblyInfo,
    .GetModuleInfo = info_GetModuleInfo,
    .GetModuleInfo2 = info_GetModuleInfo2,
    .GetModuleMetaData = info_GetModuleMetaData,
    .GetFunctionInfo = info_GetFunctionInfo,
    .GetILFunctionBody = info_GetILFunctionBody,
    .GetILFunctionBodyAllocator = info_GetILFunctionBodyAllocator,
    .SetILFunctionBody = info_SetILFunctionBody,
    .SetILInstrumentedCodeMap = info_SetILInstrumentedCodeMap,
    .GetCodeInfo2 = info_GetCodeInfo2,
    .GetILToNativeMapping = info_GetILToNativeMapping,
    .RequestReJIT = info_RequestReJIT,
    .RequestReJITWithInliners = info_RequestReJITWithInliners,
};

static ICorProfilerInfo15 info = {&info_vtbl};

IUnknown *pf_info(void)
{
    return (IUnknown *)(void *)&info;
}

int pf_info_refs(void)
{
    return atomic_load(&pf.info_refs);
}

int pf_metadata_live(void)
{
    return atomic_load(&pf.metadata_live);
}

int pf_allocators_live(void)
{
    return atomic_load(&pf.allocators_live);
}

DWORD pf_event_mask(void)
{
    pthread_mutex_lock(&pf.lock);
    DWORD mask = pf.event_mask;
    pthread_mutex_unlock(&pf.lock);
    return mask;
}

size_t pf_set_body_count(void)
{
    pthread_mutex_lock(&pf.lock);
    size_t n = pf.body_count;
    pthread_mutex_unlock(&pf.lock);
    return n;
}

bool pf_set_body(mdMethodDef token, struct pf_body *out)
{
    bool found = false;
    pthread_mutex_lock(&pf.lock);
    for (size_t i = pf.body_count; i-- > 0 && !found;)
        if (pf.bodies[i].token == token)
            *out = pf.bodies[i], found = true;
    pthread_mutex_unlock(&pf.lock);
    return found;
}

int pf_foreign_bodies(void)
{
    return atomic_load(&pf.foreign_bodies);
}

size_t pf_map_count(void)
{
    pthread_mutex_lock(&pf.lock);
    size_t n = pf.map_count;
    pthread_mutex_unlock(&pf.lock);
    return n;
}

bool pf_map(FunctionID function, COR_IL_MAP *map, size_t cap, size_t *count)
{
    bool found = false;
    pthread_mutex_lock(&pf.lock);
    for (size_t i = pf.map_count; i-- > 0 && !found;) {
        if (pf.maps[i].function == function) {
            *count = pf.maps[i].count;
            memcpy(map, pf.maps[i].map, (*count < cap ? *count : cap) * sizeof(*map));
            found = true;
        }
    }
    pthread_mutex_unlock(&pf.lock);
    return found;
}

int pf_token_from_sig_calls(void)
{
    return atomic_load(&pf.token_from_sig_calls);
}

size_t pf_last_token_sig(uint8_t *buf, size_t cap)
{
    pthread_mutex_lock(&pf.lock);
    size_t n = pf.last_sig_len < cap ? pf.last_sig_len : cap;
    memcpy(buf, pf.last_sig, n);
    pthread_mutex_unlock(&pf.lock);
    return n;
}

int pf_rejit_requests(void)
{
    return atomic_load(&pf.rejit_requests);
}

size_t pf_last_rejit(ModuleID *modules, mdMethodDef *tokens, size_t cap, bool *with_inliners)
{
    pthread_mutex_lock(&pf.lock);
    size_t n = pf.rejit_count < cap ? pf.rejit_count : cap;
    memcpy(modules, pf.rejit_modules, n * sizeof(*modules));
    memcpy(tokens, pf.rejit_tokens, n * sizeof(*tokens));
    *with_inliners = pf.rejit_with_inliners;
    pthread_mutex_unlock(&pf.lock);
    return n;
}

/* ---- ICorProfilerFunctionControl ------------------------------------------------------------- */

static struct pf_control *control_of(ICorProfilerFunctionControl *This)
{
    return CLRIE_CONTAINER_OF(This, struct pf_control, iface);
}

static HRESULT fc_QueryInterface(ICorProfilerFunctionControl *This, REFIID riid, void **ppv)
{
    *ppv = NULL;
    return E_NOINTERFACE;
}

static ULONG fc_AddRef(ICorProfilerFunctionControl *This)
{
    return (ULONG)++control_of(This)->refs;
}

static ULONG fc_Release(ICorProfilerFunctionControl *This)
{
    return (ULONG)--control_of(This)->refs;
}

static HRESULT fc_SetCodegenFlags(ICorProfilerFunctionControl *This, DWORD flags)
{
    control_of(This)->codegen_flags = flags;
    return S_OK;
}

static HRESULT fc_SetILFunctionBody(ICorProfilerFunctionControl *This, ULONG cb, LPCBYTE body)
{
    struct pf_control *c = control_of(This);
    free(c->body);
    c->body = malloc(cb);
    assert_non_null(c->body);
    memcpy(c->body, body, cb);
    c->body_len = cb;
    return S_OK;
}

static HRESULT fc_SetILInstrumentedCodeMap(ICorProfilerFunctionControl *This, ULONG count,
                                           COR_IL_MAP map[])
{
    struct pf_control *c = control_of(This);
    free(c->map);
    c->map = malloc(count * sizeof(*map) + 1);
    assert_non_null(c->map);
    memcpy(c->map, map, count * sizeof(*map));
    c->map_count = count;
    return S_OK;
}

static const struct ICorProfilerFunctionControlVtbl control_vtbl = {
    .QueryInterface = fc_QueryInterface,
    .AddRef = fc_AddRef,
    .Release = fc_Release,
    .SetCodegenFlags = fc_SetCodegenFlags,
    .SetILFunctionBody = fc_SetILFunctionBody,
    .SetILInstrumentedCodeMap = fc_SetILInstrumentedCodeMap,
};

void pf_control_init(struct pf_control *c)
{
    *c = (struct pf_control){.iface = {&control_vtbl}, .refs = 1};
}

void pf_control_finish(struct pf_control *c)
{
    free(c->body);
    free(c->map);
    *c = (struct pf_control){0};
}

/* ---- stack effects for verifying what the runtime received ---------------------------------- */

int pf_stack_effect(void *ctx, uint16_t opcode, uint32_t token, struct clrie_il_stack_effect *out)
{
    const uint8_t *sig = NULL;
    size_t len = 0;
    mdToken method = (mdToken)(uintptr_t)ctx;
    if (opcode == CLRIE_IL_OP_RET)
        token = method;
    if (token == PF_MEMBER_REF || token == PF_METHOD_SPEC) {
        sig = sig_int32_void, len = sizeof(sig_int32_void);
    } else {
        pthread_mutex_lock(&pf.lock);
        struct method *m = method_locked(token);
        if (m)
            sig = m->sig, len = m->sig_len;
        pthread_mutex_unlock(&pf.lock);
    }
    if (!sig)
        return -2; /* -ENOENT */
    struct clrie_il_method_sig parsed;
    int rc = clrie_il_sig_parse_method(sig, len, &parsed);
    return rc ? rc : clrie_il_sig_stack_effect(&parsed, opcode, out);
}
