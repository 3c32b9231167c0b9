/* A fake CoreCLR for libprofmgr's tests: see fake_runtime.h. */
#include "fake_runtime.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clrie/os/fs.h"
#include "clrie/os/thread.h"
#include "fake_slots.h"
#include "utf16.h"

/* ---- fake runtime state ------------------------------------------------------------------ */

#define MAX_FAKES 256

static struct {
    struct clrie_os_mutex lock;
    struct fake_domain domains[MAX_FAKES];
    size_t domain_count;
    struct fake_assembly assemblies[MAX_FAKES];
    size_t assembly_count;
    struct fake_module modules[MAX_FAKES];
    size_t module_count;
    atomic_int info_refs;
    atomic_int metadata_live; /* fake metadata objects not yet destroyed */
    atomic_int metadata_requests;
} fake = {.lock = CLRIE_OS_MUTEX_INIT};

static void reset_state(void)
{
    clrie_os_mutex_lock(&fake.lock);
    fake.domain_count = fake.assembly_count = fake.module_count = 0;
    clrie_os_mutex_unlock(&fake.lock);
    atomic_store(&fake.info_refs, 1);
    atomic_store(&fake.metadata_live, 0);
    atomic_store(&fake.metadata_requests, 0);
}

void fake_add_domain(struct fake_domain d)
{
    clrie_os_mutex_lock(&fake.lock);
    assert_true(fake.domain_count < MAX_FAKES);
    fake.domains[fake.domain_count++] = d;
    clrie_os_mutex_unlock(&fake.lock);
}

void fake_add_assembly(struct fake_assembly a)
{
    clrie_os_mutex_lock(&fake.lock);
    assert_true(fake.assembly_count < MAX_FAKES);
    fake.assemblies[fake.assembly_count++] = a;
    clrie_os_mutex_unlock(&fake.lock);
}

void fake_add_module(struct fake_module m)
{
    clrie_os_mutex_lock(&fake.lock);
    assert_true(fake.module_count < MAX_FAKES);
    fake.modules[fake.module_count++] = m;
    clrie_os_mutex_unlock(&fake.lock);
}

/* Copies of the entries, so callers need not hold the lock. */
static bool get_domain(AppDomainID id, struct fake_domain *out)
{
    bool found = false;
    clrie_os_mutex_lock(&fake.lock);
    for (size_t i = 0; i < fake.domain_count && !found; i++)
        if (fake.domains[i].id == id)
            *out = fake.domains[i], found = true;
    clrie_os_mutex_unlock(&fake.lock);
    return found;
}

void fake_set_domain_complete(AppDomainID id)
{
    clrie_os_mutex_lock(&fake.lock);
    for (size_t i = 0; i < fake.domain_count; i++)
        if (fake.domains[i].id == id)
            fake.domains[i].incomplete = false;
    clrie_os_mutex_unlock(&fake.lock);
}

static bool get_assembly(AssemblyID id, struct fake_assembly *out)
{
    bool found = false;
    clrie_os_mutex_lock(&fake.lock);
    for (size_t i = 0; i < fake.assembly_count && !found; i++)
        if (fake.assemblies[i].id == id)
            *out = fake.assemblies[i], found = true;
    clrie_os_mutex_unlock(&fake.lock);
    return found;
}

static bool get_module(ModuleID id, struct fake_module *out)
{
    bool found = false;
    clrie_os_mutex_lock(&fake.lock);
    for (size_t i = 0; i < fake.module_count && !found; i++)
        if (fake.modules[i].id == id)
            *out = fake.modules[i], found = true;
    clrie_os_mutex_unlock(&fake.lock);
    return found;
}

void fake_give_string(const char *utf8, ULONG cch, ULONG *pcch, WCHAR *buffer)
{
    char16_t *text;
    size_t len;
    assert_int_equal(clrie_pm_utf8_to_utf16(utf8, strlen(utf8), &text, &len), 0);
    if (pcch)
        *pcch = (ULONG)len + 1;
    if (buffer && cch) {
        size_t n = len < cch - 1 ? len : cch - 1;
        memcpy(buffer, text, n * sizeof(WCHAR));
        buffer[n] = 0;
    }
    free(text);
}

/* ---- do-nothing slots, generated from the method tables -------------------------------- */

#define NI_INFO(ret, name, params, args) FAKE_NOT_IMPLEMENTED(info, ret, name, params)
CLRIE_ICORPROFILERINFO3_METHODS(NI_INFO, ICorProfilerInfo3 *This, This)
FAKE_METADATA_NOT_IMPLEMENTED

#define SLOT_INFO(ret, name, params, args) .name = info_ni_##name,

/* ---- fake metadata ------------------------------------------------------------------------ */

/* One object per GetModuleMetaData call; lpVtbl is whichever interface was asked for. */
struct fake_metadata {
    const void *lpVtbl;
    atomic_int refs;
    ModuleID module;
};

static struct fake_metadata *md(void *iface)
{
    return iface;
}

static HRESULT md_query_interface(void *This, REFIID riid, void **ppv)
{
    *ppv = NULL;
    return E_NOINTERFACE; /* not needed by the engine */
}

static ULONG md_add_ref(void *This)
{
    return (ULONG)atomic_fetch_add(&md(This)->refs, 1) + 1;
}

static ULONG md_release(void *This)
{
    int left = atomic_fetch_sub(&md(This)->refs, 1) - 1;
    assert_true(left >= 0);
    if (left == 0) {
        free(This);
        atomic_fetch_sub(&fake.metadata_live, 1);
    }
    return (ULONG)left;
}

#define MD_UNKNOWN(prefix, Iface)                                                                  \
    static HRESULT STDMETHODCALLTYPE prefix##_qi(Iface *This, REFIID riid, void **ppv)             \
    {                                                                                              \
        return md_query_interface(This, riid, ppv);                                                \
    }                                                                                              \
    static ULONG STDMETHODCALLTYPE prefix##_addref(Iface *This)                                    \
    {                                                                                              \
        return md_add_ref(This);                                                                   \
    }                                                                                              \
    static ULONG STDMETHODCALLTYPE prefix##_release(Iface *This)                                   \
    {                                                                                              \
        return md_release(This);                                                                   \
    }
MD_UNKNOWN(mdi, IMetaDataImport2)
MD_UNKNOWN(mda, IMetaDataAssemblyImport)
MD_UNKNOWN(mde, IMetaDataEmit2)
MD_UNKNOWN(mdae, IMetaDataAssemblyEmit)

#define CLDB_E_RECORD_NOTFOUND CLRIE_HRESULT(0x80131130u)

static HRESULT STDMETHODCALLTYPE mdi_GetScopeProps(IMetaDataImport2 *This, LPWSTR szName,
                                                   ULONG cchName, ULONG *pchName, GUID *pmvid)
{
    struct fake_module m = {0};
    assert_true(get_module(md(This)->module, &m));
    fake_give_string(clrie_os_path_name(m.path), cchName, pchName, szName);
    if (pmvid)
        *pmvid = m.mvid;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE mdi_FindTypeDefByName(IMetaDataImport2 *This, LPCWSTR szTypeDef,
                                                       mdToken tkEnclosingClass, mdTypeDef *ptd)
{
    char *name;
    size_t len;
    assert_int_equal(
        clrie_pm_utf16_to_utf8(szTypeDef, clrie_pm_utf16_len(szTypeDef), false, &name, &len), 0);
    bool found = strcmp(name, "Fake.Type") == 0 && tkEnclosingClass == mdTokenNil;
    free(name);
    *ptd = found ? FAKE_TYPE_TOKEN : mdTokenNil;
    return found ? S_OK : CLDB_E_RECORD_NOTFOUND;
}

HRESULT STDMETHODCALLTYPE fake_GetAssemblyFromScope(IMetaDataAssemblyImport *This,
                                                    mdAssembly *ptkAssembly)
{
    *ptkAssembly = FAKE_ASSEMBLY_TOKEN;
    return S_OK;
}

HRESULT fake_assembly_props(const struct fake_assembly *a, const void **ppbPublicKey,
                            ULONG *pcbPublicKey, ULONG *pulHashAlgId, LPWSTR szName, ULONG cchName,
                            ULONG *pchName, ASSEMBLYMETADATA *pMetaData, DWORD *pdwAssemblyFlags)
{
    if (ppbPublicKey)
        *ppbPublicKey = a->key;
    if (pcbPublicKey)
        *pcbPublicKey = a->key_size;
    if (pulHashAlgId)
        *pulHashAlgId = 0x8004; /* SHA-1 */
    fake_give_string(a->name, cchName, pchName, szName);
    if (pMetaData)
        memset(pMetaData, 0, sizeof(*pMetaData));
    if (pdwAssemblyFlags)
        *pdwAssemblyFlags = a->flags;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE mda_GetAssemblyProps(IMetaDataAssemblyImport *This, mdAssembly mda,
                                                      const void **ppbPublicKey,
                                                      ULONG *pcbPublicKey, ULONG *pulHashAlgId,
                                                      LPWSTR szName, ULONG cchName, ULONG *pchName,
                                                      ASSEMBLYMETADATA *pMetaData,
                                                      DWORD *pdwAssemblyFlags)
{
    struct fake_module m = {0};
    struct fake_assembly a = {0};
    assert_int_equal(mda, FAKE_ASSEMBLY_TOKEN);
    assert_true(get_module(md(This)->module, &m));
    assert_true(get_assembly(m.assembly, &a));
    return fake_assembly_props(&a, ppbPublicKey, pcbPublicKey, pulHashAlgId, szName, cchName,
                               pchName, pMetaData, pdwAssemblyFlags);
}

static const struct IMetaDataImport2Vtbl md_import_vtbl_init = {
    CLRIE_IMETADATAIMPORT2_METHODS(FAKE_SLOT_MDI, IMetaDataImport2 *This, This)};
static const struct IMetaDataAssemblyImportVtbl md_assembly_vtbl_init = {
    CLRIE_IMETADATAASSEMBLYIMPORT_METHODS(FAKE_SLOT_MDA, IMetaDataAssemblyImport *This, This)};
static const struct IMetaDataEmit2Vtbl md_emit_vtbl_init = {
    CLRIE_IMETADATAEMIT2_METHODS(FAKE_SLOT_MDE, IMetaDataEmit2 *This, This)};
static const struct IMetaDataAssemblyEmitVtbl md_assembly_emit_vtbl_init = {
    CLRIE_IMETADATAASSEMBLYEMIT_METHODS(FAKE_SLOT_MDAE, IMetaDataAssemblyEmit *This, This)};

static struct IMetaDataImport2Vtbl md_import_vtbl;
static struct IMetaDataAssemblyImportVtbl md_assembly_vtbl;
static struct IMetaDataEmit2Vtbl md_emit_vtbl;
static struct IMetaDataAssemblyEmitVtbl md_assembly_emit_vtbl;

/* ---- fake ICorProfilerInfo3 ------------------------------------------------------------ */

static HRESULT STDMETHODCALLTYPE info_QueryInterface(ICorProfilerInfo3 *This, REFIID riid,
                                                     void **ppv)
{
    *ppv = NULL;
    return E_NOINTERFACE;
}

static ULONG STDMETHODCALLTYPE info_AddRef(ICorProfilerInfo3 *This)
{
    return (ULONG)atomic_fetch_add(&fake.info_refs, 1) + 1;
}

static ULONG STDMETHODCALLTYPE info_Release(ICorProfilerInfo3 *This)
{
    return (ULONG)atomic_fetch_sub(&fake.info_refs, 1) - 1;
}

static HRESULT STDMETHODCALLTYPE info_GetAppDomainInfo(ICorProfilerInfo3 *This,
                                                       AppDomainID appDomainId, ULONG cchName,
                                                       ULONG *pcchName, WCHAR szName[],
                                                       ProcessID *pProcessId)
{
    struct fake_domain d;
    if (!get_domain(appDomainId, &d))
        return E_INVALIDARG;
    if (d.incomplete)
        return CORPROF_E_DATAINCOMPLETE;
    fake_give_string(d.name, cchName, pcchName, szName);
    if (pProcessId)
        *pProcessId = 4242;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE info_GetAssemblyInfo(ICorProfilerInfo3 *This,
                                                      AssemblyID assemblyId, ULONG cchName,
                                                      ULONG *pcchName, WCHAR szName[],
                                                      AppDomainID *pAppDomainId,
                                                      ModuleID *pModuleId)
{
    struct fake_assembly a = {0};
    if (!get_assembly(assemblyId, &a))
        return E_INVALIDARG;
    fake_give_string(a.name, cchName, pcchName, szName);
    if (pAppDomainId)
        *pAppDomainId = a.domain;
    if (pModuleId)
        *pModuleId = a.manifest;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE info_GetModuleInfo2(ICorProfilerInfo3 *This, ModuleID moduleId,
                                                     LPCBYTE *ppBaseLoadAddress, ULONG cchName,
                                                     ULONG *pcchName, WCHAR szName[],
                                                     AssemblyID *pAssemblyId, DWORD *pdwModuleFlags)
{
    struct fake_module m = {0};
    if (!get_module(moduleId, &m))
        return E_INVALIDARG;
    if (ppBaseLoadAddress)
        *ppBaseLoadAddress = m.base;
    fake_give_string(m.path, cchName, pcchName, szName);
    if (pAssemblyId)
        *pAssemblyId = m.assembly;
    if (pdwModuleFlags)
        *pdwModuleFlags = m.flags;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE info_GetModuleInfo(ICorProfilerInfo3 *This, ModuleID moduleId,
                                                    LPCBYTE *ppBaseLoadAddress, ULONG cchName,
                                                    ULONG *pcchName, WCHAR szName[],
                                                    AssemblyID *pAssemblyId)
{
    return info_GetModuleInfo2(This, moduleId, ppBaseLoadAddress, cchName, pcchName, szName,
                               pAssemblyId, NULL);
}

static HRESULT STDMETHODCALLTYPE info_GetModuleMetaData(ICorProfilerInfo3 *This, ModuleID moduleId,
                                                        DWORD dwOpenFlags, REFIID riid,
                                                        IUnknown **ppOut)
{
    struct fake_module m = {0};
    *ppOut = NULL;
    if (!get_module(moduleId, &m))
        return E_INVALIDARG;
    if (m.no_metadata)
        return S_FALSE; /* what CoreCLR says for a resource-only module */
    const void *vtbl;
    if (IsEqualIID(riid, &IID_IMetaDataImport2) || IsEqualIID(riid, &IID_IMetaDataImport))
        vtbl = &md_import_vtbl;
    else if (IsEqualIID(riid, &IID_IMetaDataAssemblyImport))
        vtbl = &md_assembly_vtbl;
    else if (IsEqualIID(riid, &IID_IMetaDataEmit2) || IsEqualIID(riid, &IID_IMetaDataEmit))
        vtbl = &md_emit_vtbl;
    else if (IsEqualIID(riid, &IID_IMetaDataAssemblyEmit))
        vtbl = &md_assembly_emit_vtbl;
    else
        return E_NOINTERFACE;
    if (vtbl == &md_emit_vtbl || vtbl == &md_assembly_emit_vtbl) {
        if (!(dwOpenFlags & 1u) || m.no_emit) /* ofWrite */
            return CLRIE_HRESULT(0x80131363u);
    }
    struct fake_metadata *object = malloc(sizeof(*object));
    assert_non_null(object);
    object->lpVtbl = vtbl;
    atomic_init(&object->refs, 1);
    object->module = moduleId;
    atomic_fetch_add(&fake.metadata_live, 1);
    atomic_fetch_add(&fake.metadata_requests, 1);
    *ppOut = (IUnknown *)(void *)object;
    return S_OK;
}

static struct ICorProfilerInfo3Vtbl info_vtbl;
ICorProfilerInfo3 fake_info = {&info_vtbl};

void fake_runtime_reset(void)
{
    reset_state();
    info_vtbl = (struct ICorProfilerInfo3Vtbl){
        CLRIE_ICORPROFILERINFO3_METHODS(SLOT_INFO, ICorProfilerInfo3 * This, This)};
    info_vtbl.QueryInterface = info_QueryInterface;
    info_vtbl.AddRef = info_AddRef;
    info_vtbl.Release = info_Release;
    info_vtbl.GetAppDomainInfo = info_GetAppDomainInfo;
    info_vtbl.GetAssemblyInfo = info_GetAssemblyInfo;
    info_vtbl.GetModuleInfo = info_GetModuleInfo;
    info_vtbl.GetModuleInfo2 = info_GetModuleInfo2;
    info_vtbl.GetModuleMetaData = info_GetModuleMetaData;

    md_import_vtbl = md_import_vtbl_init;
    md_import_vtbl.QueryInterface = mdi_qi;
    md_import_vtbl.AddRef = mdi_addref;
    md_import_vtbl.Release = mdi_release;
    md_import_vtbl.GetScopeProps = mdi_GetScopeProps;
    md_import_vtbl.FindTypeDefByName = mdi_FindTypeDefByName;

    md_assembly_vtbl = md_assembly_vtbl_init;
    md_assembly_vtbl.QueryInterface = mda_qi;
    md_assembly_vtbl.AddRef = mda_addref;
    md_assembly_vtbl.Release = mda_release;
    md_assembly_vtbl.GetAssemblyFromScope = fake_GetAssemblyFromScope;
    md_assembly_vtbl.GetAssemblyProps = mda_GetAssemblyProps;

    md_emit_vtbl = md_emit_vtbl_init;
    md_emit_vtbl.QueryInterface = mde_qi;
    md_emit_vtbl.AddRef = mde_addref;
    md_emit_vtbl.Release = mde_release;

    md_assembly_emit_vtbl = md_assembly_emit_vtbl_init;
    md_assembly_emit_vtbl.QueryInterface = mdae_qi;
    md_assembly_emit_vtbl.AddRef = mdae_addref;
    md_assembly_emit_vtbl.Release = mdae_release;
}

/* ---- PE images ------------------------------------------------------------------------------ */

void fake_put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8);
}

void fake_put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* A PE32+ image with one .text section holding the CLI header, in the layout asked for. */
uint8_t *fake_pe_image(bool flat, bool pe32_plus, uint32_t cor_flags, uint32_t entry)
{
    uint8_t *image = calloc(1, IMAGE_SIZE);
    assert_non_null(image);
    fake_put16(image, 0x5A4D);
    fake_put32(image + 0x3C, 0x80);
    uint8_t *nt = image + 0x80;
    fake_put32(nt, 0x00004550);
    fake_put16(nt + 4, pe32_plus ? 0x8664 : 0x14C);
    fake_put16(nt + 6, 1);
    uint16_t optional_size = pe32_plus ? 240 : 224;
    fake_put16(nt + 20, optional_size);
    uint8_t *opt = nt + 24;
    fake_put16(opt, pe32_plus ? 0x20B : 0x10B);
    fake_put32(opt + 56, IMAGE_SIZE);
    fake_put32(opt + 60, 0x200);
    fake_put32(opt + (pe32_plus ? 108 : 92), 16);
    uint8_t *dirs = opt + (pe32_plus ? 112 : 96);
    fake_put32(dirs + 14 * 8, COR_RVA);
    fake_put32(dirs + 14 * 8 + 4, 72);
    uint8_t *section = opt + optional_size;
    memcpy(section, ".text", 5);
    fake_put32(section + 8, 0x1000);
    fake_put32(section + 12, TEXT_RVA);
    fake_put32(section + 16, 0x1000);
    fake_put32(section + 20, TEXT_RAW);
    uint8_t *cor = image + (flat ? TEXT_RAW + 8 : COR_RVA);
    fake_put32(cor, 72);
    fake_put16(cor + 4, 2);
    fake_put16(cor + 6, 5);
    fake_put32(cor + 16, cor_flags);
    fake_put32(cor + 20, entry);
    return image;
}

int fake_info_refs(void)
{
    return atomic_load(&fake.info_refs);
}

int fake_metadata_live(void)
{
    return atomic_load(&fake.metadata_live);
}

int fake_metadata_requests(void)
{
    return atomic_load(&fake.metadata_requests);
}

const void *fake_metadata_vtbl(const IID *iid)
{
    if (IsEqualIID(iid, &IID_IMetaDataImport2))
        return &md_import_vtbl;
    if (IsEqualIID(iid, &IID_IMetaDataAssemblyImport))
        return &md_assembly_vtbl;
    if (IsEqualIID(iid, &IID_IMetaDataEmit2))
        return &md_emit_vtbl;
    if (IsEqualIID(iid, &IID_IMetaDataAssemblyEmit))
        return &md_assembly_emit_vtbl;
    return NULL;
}
