/* The fake runtime's methods and metadata, for the JIT pipeline's tests: see pipeline_fakes.h. */
#include "pipeline_fakes.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clrie/os/thread.h"
#include "fake_runtime.h" /* fake_give_string, fake_assembly_props */
#include "fake_slots.h"

/* Generated vtables name every slot and then the implemented ones again. */
#if defined(__clang__)
#pragma clang diagnostic ignored "-Winitializer-overrides"
#else
#pragma GCC diagnostic ignored "-Woverride-init"
#endif

#define CLDB_E_RECORD_NOTFOUND CLRIE_HRESULT(0x80131130u)

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

static struct {
    struct clrie_os_mutex lock; /* protects methods and last_sig */
    struct method methods[METHOD_COUNT];
    uint8_t last_sig[64];
    size_t last_sig_len;
    atomic_int metadata_live;
    atomic_int token_from_sig_calls;
} md_state = {.lock = CLRIE_OS_MUTEX_INIT};

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

void pf_methods_reset(void)
{
    clrie_os_mutex_lock(&md_state.lock);
    struct method *m = md_state.methods;
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
    md_state.last_sig_len = 0;
    clrie_os_mutex_unlock(&md_state.lock);
    atomic_store(&md_state.metadata_live, 0);
    atomic_store(&md_state.token_from_sig_calls, 0);
}

/* Call with the lock. */
static struct method *method_locked(mdToken token)
{
    for (size_t i = 0; i < METHOD_COUNT; i++)
        if (md_state.methods[i].token == token)
            return &md_state.methods[i];
    return NULL;
}

HRESULT pf_method_body(mdMethodDef token, const uint8_t **body, ULONG *size)
{
    clrie_os_mutex_lock(&md_state.lock);
    struct method *m = method_locked(token);
    *body = m ? m->current : NULL;
    *size = m ? m->current_size : 0;
    clrie_os_mutex_unlock(&md_state.lock);
    if (!m)
        return E_INVALIDARG;
    return *body ? S_OK : CORPROF_E_FUNCTION_NOT_IL;
}

bool pf_method_replace_body(mdMethodDef token, const uint8_t *body, ULONG size)
{
    clrie_os_mutex_lock(&md_state.lock);
    struct method *m = method_locked(token);
    if (m) {
        m->current = body;
        m->current_size = size;
    }
    clrie_os_mutex_unlock(&md_state.lock);
    return m != NULL;
}

/* ---- generated do-nothing slots -------------------------------------------------------------- */

FAKE_METADATA_NOT_IMPLEMENTED

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
        atomic_fetch_sub(&md_state.metadata_live, 1);
    }
    return (ULONG)left;
}

#define MD_UNKNOWN(prefix, Iface, member)                                                          \
    static struct metadata *prefix##_md(Iface *This)                                               \
    {                                                                                              \
        return CLRIE_CONTAINER_OF(This, struct metadata, member);                                  \
    }                                                                                              \
    static HRESULT STDMETHODCALLTYPE prefix##_QueryInterface(Iface *This, REFIID riid, void **ppv) \
    {                                                                                              \
        return md_query(prefix##_md(This), riid, ppv);                                             \
    }                                                                                              \
    static ULONG STDMETHODCALLTYPE prefix##_AddRef(Iface *This)                                    \
    {                                                                                              \
        return (ULONG)atomic_fetch_add(&prefix##_md(This)->refs, 1) + 1;                           \
    }                                                                                              \
    static ULONG STDMETHODCALLTYPE prefix##_Release(Iface *This)                                   \
    {                                                                                              \
        return md_release(prefix##_md(This));                                                      \
    }
MD_UNKNOWN(mdi, IMetaDataImport2, import)
MD_UNKNOWN(mda, IMetaDataAssemblyImport, assembly_import)
MD_UNKNOWN(mde, IMetaDataEmit2, emit)
MD_UNKNOWN(mdae, IMetaDataAssemblyEmit, assembly_emit)

static HRESULT STDMETHODCALLTYPE mdi_GetScopeProps(IMetaDataImport2 *This, LPWSTR szName,
                                                   ULONG cchName, ULONG *pchName, GUID *pmvid)
{
    fake_give_string("Fake.dll", cchName, pchName, szName);
    if (pmvid)
        *pmvid = (GUID){0x12345678, 1, 2, {3, 4, 5, 6, 7, 8, 9, 10}};
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE mdi_GetMethodProps(IMetaDataImport2 *This, mdMethodDef mb,
                                                    mdTypeDef *pClass, LPWSTR szMethod,
                                                    ULONG cchMethod, ULONG *pchMethod,
                                                    DWORD *pdwAttr, PCCOR_SIGNATURE *ppvSigBlob,
                                                    ULONG *pcbSigBlob, ULONG *pulCodeRVA,
                                                    DWORD *pdwImplFlags)
{
    clrie_os_mutex_lock(&md_state.lock);
    struct method *m = method_locked(mb);
    struct method copy = m ? *m : (struct method){0};
    clrie_os_mutex_unlock(&md_state.lock);
    if (!m)
        return CLDB_E_RECORD_NOTFOUND;
    if (pClass)
        *pClass = copy.type;
    fake_give_string(copy.name, cchMethod, pchMethod, szMethod);
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

static HRESULT STDMETHODCALLTYPE mdi_GetTypeDefProps(IMetaDataImport2 *This, mdTypeDef td,
                                                     LPWSTR szTypeDef, ULONG cchTypeDef,
                                                     ULONG *pchTypeDef, DWORD *pdwTypeDefFlags,
                                                     mdToken *ptkExtends)
{
    const char *name = td == PF_TYPE_PROGRAM ? "Fake.Program"
                       : td == PF_TYPE_INNER ? "Inner"
                                             : NULL;
    if (!name)
        return CLDB_E_RECORD_NOTFOUND;
    fake_give_string(name, cchTypeDef, pchTypeDef, szTypeDef);
    if (pdwTypeDefFlags)
        *pdwTypeDefFlags = td == PF_TYPE_INNER ? 0x2 /* nested public */ : 0x1;
    if (ptkExtends)
        *ptkExtends = 0x01000001;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE mdi_GetNestedClassProps(IMetaDataImport2 *This,
                                                         mdTypeDef tdNestedClass,
                                                         mdTypeDef *ptdEnclosingClass)
{
    if (tdNestedClass != PF_TYPE_INNER)
        return CLDB_E_RECORD_NOTFOUND;
    *ptdEnclosingClass = PF_TYPE_PROGRAM;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE mdi_GetMemberRefProps(IMetaDataImport2 *This, mdMemberRef mr,
                                                       mdToken *ptk, LPWSTR szMember,
                                                       ULONG cchMember, ULONG *pchMember,
                                                       PCCOR_SIGNATURE *ppvSigBlob, ULONG *pbSig)
{
    if (mr != PF_MEMBER_REF)
        return CLDB_E_RECORD_NOTFOUND;
    if (ptk)
        *ptk = 0x01000002;
    fake_give_string("Helper", cchMember, pchMember, szMember);
    if (ppvSigBlob)
        *ppvSigBlob = sig_int32_void;
    if (pbSig)
        *pbSig = sizeof(sig_int32_void);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE mdi_GetMethodSpecProps(IMetaDataImport2 *This, mdMethodSpec mi,
                                                        mdToken *tkParent,
                                                        PCCOR_SIGNATURE *ppvSigBlob,
                                                        ULONG *pcbSigBlob)
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

static HRESULT STDMETHODCALLTYPE mdi_GetSigFromToken(IMetaDataImport2 *This, mdSignature mdSig,
                                                     PCCOR_SIGNATURE *ppvSig, ULONG *pcbSig)
{
    if (mdSig != PF_MULTI_LOCALS)
        return CLDB_E_RECORD_NOTFOUND;
    *ppvSig = multi_locals_sig;
    *pcbSig = sizeof(multi_locals_sig);
    return S_OK;
}

/* GetAssemblyProps: the module's assembly, "Fake", without a public key. */
/* The engine's verifier asks whether the tokens of new IL exist: those of the fake's rows. */
static BOOL STDMETHODCALLTYPE mdi_IsValidToken(IMetaDataImport2 *This, mdToken tk)
{
    PCCOR_SIGNATURE sig;
    ULONG len;
    switch (tk & 0xFF000000u) {
    case mdtMemberRef:
        return SUCCEEDED(mdi_GetMemberRefProps(This, tk, NULL, NULL, 0, NULL, NULL, NULL));
    case mdtMethodSpec:
        return SUCCEEDED(mdi_GetMethodSpecProps(This, tk, NULL, NULL, NULL));
    case mdtSignature:
        return SUCCEEDED(mdi_GetSigFromToken(This, tk, &sig, &len));
    case mdtMethodDef:
        return SUCCEEDED(
            mdi_GetMethodProps(This, tk, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL));
    default:
        return TRUE; /* types and strings: the fake's IL names none it lacks */
    }
}

static HRESULT STDMETHODCALLTYPE
mda_fake_assembly_props(IMetaDataAssemblyImport *This, mdAssembly mda, const void **ppbPublicKey,
                        ULONG *pcbPublicKey, ULONG *pulHashAlgId, LPWSTR szName, ULONG cchName,
                        ULONG *pchName, ASSEMBLYMETADATA *pMetaData, DWORD *pdwAssemblyFlags)
{
    static const struct fake_assembly fake = {.name = "Fake"};
    return fake_assembly_props(&fake, ppbPublicKey, pcbPublicKey, pulHashAlgId, szName, cchName,
                               pchName, pMetaData, pdwAssemblyFlags);
}

static HRESULT STDMETHODCALLTYPE mde_GetTokenFromSig(IMetaDataEmit2 *This, PCCOR_SIGNATURE pvSig,
                                                     ULONG cbSig, mdSignature *pmsig)
{
    if (!pvSig || !pmsig)
        return E_POINTER;
    int n = atomic_fetch_add(&md_state.token_from_sig_calls, 1);
    clrie_os_mutex_lock(&md_state.lock);
    md_state.last_sig_len = cbSig < sizeof(md_state.last_sig) ? cbSig : sizeof(md_state.last_sig);
    memcpy(md_state.last_sig, pvSig, md_state.last_sig_len);
    clrie_os_mutex_unlock(&md_state.lock);
    *pmsig = PF_FIRST_NEW_SIG + (mdSignature)n;
    return S_OK;
}

static const struct IMetaDataImport2Vtbl import_vtbl = {
    CLRIE_IMETADATAIMPORT2_METHODS(FAKE_SLOT_MDI, IMetaDataImport2 *This, This).QueryInterface =
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
    .IsValidToken = mdi_IsValidToken,
};
static const struct IMetaDataAssemblyImportVtbl assembly_import_vtbl = {
    CLRIE_IMETADATAASSEMBLYIMPORT_METHODS(FAKE_SLOT_MDA, IMetaDataAssemblyImport *This, This)
        .QueryInterface = mda_QueryInterface,
    .AddRef = mda_AddRef,
    .Release = mda_Release,
    .GetAssemblyFromScope = fake_GetAssemblyFromScope,
    .GetAssemblyProps = mda_fake_assembly_props,
};
static const struct IMetaDataEmit2Vtbl emit_vtbl = {
    CLRIE_IMETADATAEMIT2_METHODS(FAKE_SLOT_MDE, IMetaDataEmit2 *This, This).QueryInterface =
        mde_QueryInterface,
    .AddRef = mde_AddRef,
    .Release = mde_Release,
    .GetTokenFromSig = mde_GetTokenFromSig,
};
static const struct IMetaDataAssemblyEmitVtbl assembly_emit_vtbl = {
    CLRIE_IMETADATAASSEMBLYEMIT_METHODS(FAKE_SLOT_MDAE, IMetaDataAssemblyEmit *This, This)
        .QueryInterface = mdae_QueryInterface,
    .AddRef = mdae_AddRef,
    .Release = mdae_Release,
};

HRESULT pf_metadata_new(ModuleID module, REFIID riid, IUnknown **out)
{
    struct metadata *md = calloc(1, sizeof(*md));
    assert_non_null(md);
    md->import.lpVtbl = &import_vtbl;
    md->assembly_import.lpVtbl = &assembly_import_vtbl;
    md->emit.lpVtbl = &emit_vtbl;
    md->assembly_emit.lpVtbl = &assembly_emit_vtbl;
    md->module = module;
    atomic_init(&md->refs, 0);
    atomic_fetch_add(&md_state.metadata_live, 1);
    HRESULT hr = md_query(md, riid, (void **)out);
    if (FAILED(hr)) {
        free(md);
        atomic_fetch_sub(&md_state.metadata_live, 1);
    }
    return hr;
}

int pf_metadata_live(void)
{
    return atomic_load(&md_state.metadata_live);
}

int pf_token_from_sig_calls(void)
{
    return atomic_load(&md_state.token_from_sig_calls);
}

size_t pf_last_token_sig(uint8_t *buf, size_t cap)
{
    clrie_os_mutex_lock(&md_state.lock);
    size_t n = md_state.last_sig_len < cap ? md_state.last_sig_len : cap;
    memcpy(buf, md_state.last_sig, n);
    clrie_os_mutex_unlock(&md_state.lock);
    return n;
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
        clrie_os_mutex_lock(&md_state.lock);
        struct method *m = method_locked(token);
        if (m)
            sig = m->sig, len = m->sig_len;
        clrie_os_mutex_unlock(&md_state.lock);
    }
    if (!sig)
        return -2; /* -ENOENT */
    struct clrie_il_method_sig parsed;
    int rc = clrie_il_sig_parse_method(sig, len, &parsed, NULL);
    return rc ? rc : clrie_il_sig_stack_effect(&parsed, opcode, out);
}
