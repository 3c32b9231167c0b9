/* A fake CoreCLR for the JIT pipeline's tests: see pipeline_fakes.h. */
#include "pipeline_fakes.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clrie/os/thread.h"
#include "fake_runtime.h" /* fake_pe_image, fake_give_string */
#include "fake_slots.h"
#include "manager.h" /* clrie_pm__info_iid */

/* Generated vtables name every slot and then the implemented ones again. */
#if defined(__clang__)
#pragma clang diagnostic ignored "-Winitializer-overrides"
#else
#pragma GCC diagnostic ignored "-Woverride-init"
#endif

#define CORPROF_E_FUNCTION_IS_COLLECTIBLE_OR_JITTED CLRIE_HRESULT(0x80131388u)

/* One allocation the engine made through IMethodMalloc. */
struct allocation {
    struct allocation *next;
    size_t size;
    uint8_t bytes[];
};

#define MAX_RECORDS 64

static struct {
    struct clrie_os_mutex lock; /* protects everything below but the atomics */
    struct allocation *allocations;
    struct pf_body bodies[MAX_RECORDS];
    size_t body_count;
    struct {
        FunctionID function;
        COR_IL_MAP *map;
        size_t count;
    } maps[MAX_RECORDS];
    size_t map_count;
    ModuleID rejit_modules[16];
    mdMethodDef rejit_tokens[16];
    size_t rejit_count;
    bool rejit_with_inliners;
    DWORD event_mask;
    atomic_int info_refs;
    atomic_int allocators_live;
    atomic_int foreign_bodies;
    atomic_int rejit_requests;
    atomic_bool refuse_bodies;
} pf = {.lock = CLRIE_OS_MUTEX_INIT};

static uint8_t *image; /* the mapped PE image of PF_MODULE */

void pf_reset(void)
{
    clrie_os_mutex_lock(&pf.lock);
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
    pf.rejit_count = 0;
    pf.event_mask = 0;

    if (!image)
        image = fake_pe_image(false, true, 1 /* ILONLY */, 0);
    clrie_os_mutex_unlock(&pf.lock);
    atomic_store(&pf.info_refs, 1);
    atomic_store(&pf.allocators_live, 0);
    atomic_store(&pf.foreign_bodies, 0);
    atomic_store(&pf.rejit_requests, 0);
    atomic_store(&pf.refuse_bodies, false);
    pf_methods_reset();
}

void pf_refuse_bodies(void)
{
    atomic_store(&pf.refuse_bodies, true);
}

/* ---- generated do-nothing slots -------------------------------------------------------------- */

#define NI_INFO(ret, name, params, args) FAKE_NOT_IMPLEMENTED(info, ret, name, params)
CLRIE_ICORPROFILERINFO15_METHODS(NI_INFO, ICorProfilerInfo15 *This, This)
#define SLOT_INFO(ret, name, params, args) .name = info_ni_##name,

/* ---- IMethodMalloc ------------------------------------------------------------------------- */

struct allocator {
    IMethodMalloc iface;
    atomic_int refs;
};

static HRESULT STDMETHODCALLTYPE malloc_QueryInterface(IMethodMalloc *This, REFIID riid, void **ppv)
{
    *ppv = NULL;
    return E_NOINTERFACE;
}

static ULONG STDMETHODCALLTYPE malloc_AddRef(IMethodMalloc *This)
{
    return (ULONG)atomic_fetch_add(&((struct allocator *)(void *)This)->refs, 1) + 1;
}

static ULONG STDMETHODCALLTYPE malloc_Release(IMethodMalloc *This)
{
    struct allocator *a = (struct allocator *)(void *)This;
    int left = atomic_fetch_sub(&a->refs, 1) - 1;
    if (left == 0) {
        free(a);
        atomic_fetch_sub(&pf.allocators_live, 1);
    }
    return (ULONG)left;
}

static PVOID STDMETHODCALLTYPE malloc_Alloc(IMethodMalloc *This, ULONG cb)
{
    struct allocation *a = calloc(1, sizeof(*a) + cb);
    if (!a)
        return NULL;
    a->size = cb;
    clrie_os_mutex_lock(&pf.lock);
    a->next = pf.allocations;
    pf.allocations = a;
    clrie_os_mutex_unlock(&pf.lock);
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

static HRESULT STDMETHODCALLTYPE info_QueryInterface(ICorProfilerInfo15 *This, REFIID riid,
                                                     void **ppv)
{
    for (int v = 0; clrie_pm__info_iid(v); v++) {
        if (IsEqualIID(riid, clrie_pm__info_iid(v))) {
            atomic_fetch_add(&pf.info_refs, 1);
            *ppv = This;
            return S_OK;
        }
    }
    *ppv = NULL;
    return E_NOINTERFACE;
}

static ULONG STDMETHODCALLTYPE info_AddRef(ICorProfilerInfo15 *This)
{
    return (ULONG)atomic_fetch_add(&pf.info_refs, 1) + 1;
}

static ULONG STDMETHODCALLTYPE info_Release(ICorProfilerInfo15 *This)
{
    int left = atomic_fetch_sub(&pf.info_refs, 1) - 1;
    assert_true(left >= 0);
    return (ULONG)left;
}

static HRESULT STDMETHODCALLTYPE info_SetEventMask(ICorProfilerInfo15 *This, DWORD dwEvents)
{
    clrie_os_mutex_lock(&pf.lock);
    pf.event_mask = dwEvents;
    clrie_os_mutex_unlock(&pf.lock);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE info_SetEventMask2(ICorProfilerInfo15 *This, DWORD low, DWORD high)
{
    return info_SetEventMask(This, low);
}

static HRESULT STDMETHODCALLTYPE info_GetEventMask2(ICorProfilerInfo15 *This, DWORD *low,
                                                    DWORD *high)
{
    *low = pf_event_mask();
    *high = 0;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE info_GetAppDomainInfo(ICorProfilerInfo15 *This,
                                                       AppDomainID appDomainId, ULONG cchName,
                                                       ULONG *pcchName, WCHAR szName[],
                                                       ProcessID *pProcessId)
{
    if (appDomainId != PF_DOMAIN)
        return E_INVALIDARG;
    fake_give_string("clrhost", cchName, pcchName, szName);
    if (pProcessId)
        *pProcessId = 4242;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE info_GetAssemblyInfo(ICorProfilerInfo15 *This,
                                                      AssemblyID assemblyId, ULONG cchName,
                                                      ULONG *pcchName, WCHAR szName[],
                                                      AppDomainID *pAppDomainId,
                                                      ModuleID *pModuleId)
{
    if (assemblyId != PF_ASSEMBLY)
        return E_INVALIDARG;
    fake_give_string("Fake", cchName, pcchName, szName);
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

static HRESULT STDMETHODCALLTYPE info_GetModuleInfo2(ICorProfilerInfo15 *This, ModuleID moduleId,
                                                     LPCBYTE *ppBaseLoadAddress, ULONG cchName,
                                                     ULONG *pcchName, WCHAR szName[],
                                                     AssemblyID *pAssemblyId, DWORD *pdwModuleFlags)
{
    if (!known_module(moduleId))
        return E_INVALIDARG;
    bool dynamic = moduleId == PF_DYNAMIC_MODULE;
    if (ppBaseLoadAddress)
        *ppBaseLoadAddress = dynamic ? NULL : image;
    fake_give_string(dynamic ? "" : "/app/Fake.dll", cchName, pcchName, szName);
    if (pAssemblyId)
        *pAssemblyId = PF_ASSEMBLY;
    if (pdwModuleFlags)
        *pdwModuleFlags = dynamic ? COR_PRF_MODULE_DYNAMIC : COR_PRF_MODULE_DISK;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE info_GetModuleInfo(ICorProfilerInfo15 *This, ModuleID moduleId,
                                                    LPCBYTE *ppBaseLoadAddress, ULONG cchName,
                                                    ULONG *pcchName, WCHAR szName[],
                                                    AssemblyID *pAssemblyId)
{
    return info_GetModuleInfo2(This, moduleId, ppBaseLoadAddress, cchName, pcchName, szName,
                               pAssemblyId, NULL);
}

static HRESULT STDMETHODCALLTYPE info_GetModuleMetaData(ICorProfilerInfo15 *This, ModuleID moduleId,
                                                        DWORD dwOpenFlags, REFIID riid,
                                                        IUnknown **ppOut)
{
    *ppOut = NULL;
    if (!known_module(moduleId))
        return E_INVALIDARG;
    return pf_metadata_new(moduleId, riid, ppOut);
}

static HRESULT STDMETHODCALLTYPE info_GetFunctionInfo(ICorProfilerInfo15 *This,
                                                      FunctionID functionId, ClassID *pClassId,
                                                      ModuleID *pModuleId, mdToken *pToken)
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

static HRESULT STDMETHODCALLTYPE info_GetILFunctionBody(ICorProfilerInfo15 *This, ModuleID moduleId,
                                                        mdMethodDef methodId,
                                                        LPCBYTE *ppMethodHeader,
                                                        ULONG *pcbMethodSize)
{
    if (moduleId != PF_MODULE)
        return E_INVALIDARG;
    const uint8_t *body = NULL;
    ULONG size = 0;
    HRESULT hr = pf_method_body(methodId, &body, &size);
    if (FAILED(hr))
        return hr;
    *ppMethodHeader = body;
    if (pcbMethodSize)
        *pcbMethodSize = size;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE info_GetILFunctionBodyAllocator(ICorProfilerInfo15 *This,
                                                                 ModuleID moduleId,
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

static HRESULT STDMETHODCALLTYPE info_SetILFunctionBody(ICorProfilerInfo15 *This, ModuleID moduleId,
                                                        mdMethodDef methodid,
                                                        LPCBYTE pbNewILMethodHeader)
{
    clrie_os_mutex_lock(&pf.lock);
    struct allocation *a = pf.allocations;
    while (a && a->bytes != pbNewILMethodHeader)
        a = a->next;
    HRESULT hr = S_OK;
    if (atomic_load(&pf.refuse_bodies)) {
        hr = CORPROF_E_FUNCTION_IS_COLLECTIBLE_OR_JITTED;
    } else if (!a || moduleId != PF_MODULE ||
               !pf_method_replace_body(methodid, a->bytes, (ULONG)a->size)) {
        atomic_fetch_add(&pf.foreign_bodies, 1);
        hr = E_INVALIDARG;
    } else if (pf.body_count == MAX_RECORDS) {
        hr = E_OUTOFMEMORY;
    } else {
        struct pf_body *b = &pf.bodies[pf.body_count++];
        *b = (struct pf_body){moduleId, methodid, malloc(a->size), a->size};
        assert_non_null(b->bytes);
        memcpy(b->bytes, a->bytes, a->size);
    }
    clrie_os_mutex_unlock(&pf.lock);
    return hr;
}

static HRESULT STDMETHODCALLTYPE info_SetILInstrumentedCodeMap(ICorProfilerInfo15 *This,
                                                               FunctionID functionId,
                                                               BOOL fStartJit, ULONG cILMapEntries,
                                                               COR_IL_MAP rgILMapEntries[])
{
    COR_IL_MAP *copy = malloc(cILMapEntries * sizeof(*copy) + 1);
    assert_non_null(copy);
    if (cILMapEntries) /* an empty map may come as NULL */
        memcpy(copy, rgILMapEntries, cILMapEntries * sizeof(*copy));
    clrie_os_mutex_lock(&pf.lock);
    assert_true(pf.map_count < MAX_RECORDS);
    pf.maps[pf.map_count].function = functionId;
    pf.maps[pf.map_count].map = copy;
    pf.maps[pf.map_count].count = cILMapEntries;
    pf.map_count++;
    clrie_os_mutex_unlock(&pf.lock);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE info_GetCodeInfo2(ICorProfilerInfo15 *This, FunctionID functionID,
                                                   ULONG32 cCodeInfos, ULONG32 *pcCodeInfos,
                                                   COR_PRF_CODE_INFO codeInfos[])
{
    *pcCodeInfos = 1;
    if (cCodeInfos >= 1)
        codeInfos[0] = (COR_PRF_CODE_INFO){.startAddress = PF_CODE_START(functionID), .size = 16};
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE info_GetILToNativeMapping(ICorProfilerInfo15 *This,
                                                           FunctionID functionId, ULONG32 cMap,
                                                           ULONG32 *pcMap,
                                                           COR_DEBUG_IL_TO_NATIVE_MAP map[])
{
    *pcMap = 1;
    if (cMap >= 1)
        map[0] = (COR_DEBUG_IL_TO_NATIVE_MAP){
            .ilOffset = 0, .nativeStartOffset = 0, .nativeEndOffset = 16};
    return S_OK;
}

/* A ReJIT's code starts 0x100 later than the first JIT's. */
static HRESULT STDMETHODCALLTYPE info_GetCodeInfo3(ICorProfilerInfo15 *This, FunctionID functionID,
                                                   ReJITID reJitId, ULONG32 cCodeInfos,
                                                   ULONG32 *pcCodeInfos,
                                                   COR_PRF_CODE_INFO codeInfos[])
{
    HRESULT hr = info_GetCodeInfo2(This, functionID, cCodeInfos, pcCodeInfos, codeInfos);
    if (SUCCEEDED(hr) && cCodeInfos >= 1)
        codeInfos[0].startAddress += 0x100 * reJitId;
    return hr;
}

static HRESULT STDMETHODCALLTYPE info_GetILToNativeMapping2(ICorProfilerInfo15 *This,
                                                            FunctionID functionId, ReJITID reJitId,
                                                            ULONG32 cMap, ULONG32 *pcMap,
                                                            COR_DEBUG_IL_TO_NATIVE_MAP map[])
{
    return info_GetILToNativeMapping(This, functionId, cMap, pcMap, map);
}

static void record_rejit(ULONG count, const ModuleID *modules, const mdMethodDef *tokens,
                         bool with_inliners)
{
    atomic_fetch_add(&pf.rejit_requests, 1);
    clrie_os_mutex_lock(&pf.lock);
    pf.rejit_count = count < 16 ? count : 16;
    memcpy(pf.rejit_modules, modules, pf.rejit_count * sizeof(*modules));
    memcpy(pf.rejit_tokens, tokens, pf.rejit_count * sizeof(*tokens));
    pf.rejit_with_inliners = with_inliners;
    clrie_os_mutex_unlock(&pf.lock);
}

static HRESULT STDMETHODCALLTYPE info_RequestReJIT(ICorProfilerInfo15 *This, ULONG cFunctions,
                                                   ModuleID moduleIds[], mdMethodDef methodIds[])
{
    record_rejit(cFunctions, moduleIds, methodIds, false);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE info_RequestReJITWithInliners(ICorProfilerInfo15 *This,
                                                               DWORD dwRejitFlags, ULONG cFunctions,
                                                               ModuleID moduleIds[],
                                                               mdMethodDef methodIds[])
{
    record_rejit(cFunctions, moduleIds, methodIds, true);
    return S_OK;
}

/* ---- EnumModules: PF_MODULE, with a hook before it is handed out ---------------------------- */

static void (*enum_hook)(void *ctx);
static void *enum_hook_ctx;

void pf_set_enum_modules_hook(void (*hook)(void *ctx), void *ctx)
{
    enum_hook = hook;
    enum_hook_ctx = ctx;
}

struct module_enum {
    ICorProfilerModuleEnum iface;
    atomic_int refs;
    ULONG next;
};

static const ModuleID enum_ids[] = {PF_MODULE};
#define ENUM_IDS (sizeof(enum_ids) / sizeof(enum_ids[0]))

static HRESULT STDMETHODCALLTYPE me_QueryInterface(ICorProfilerModuleEnum *This, REFIID riid,
                                                   void **out)
{
    *out = NULL;
    return E_NOINTERFACE;
}

static ULONG STDMETHODCALLTYPE me_AddRef(ICorProfilerModuleEnum *This)
{
    return (ULONG)atomic_fetch_add(&((struct module_enum *)(void *)This)->refs, 1) + 1;
}

static ULONG STDMETHODCALLTYPE me_Release(ICorProfilerModuleEnum *This)
{
    struct module_enum *e = (struct module_enum *)(void *)This;
    int left = atomic_fetch_sub(&e->refs, 1) - 1;
    if (left == 0)
        free(e);
    return (ULONG)left;
}

static HRESULT STDMETHODCALLTYPE me_Next(ICorProfilerModuleEnum *This, ULONG celt, ModuleID ids[],
                                         ULONG *fetched)
{
    struct module_enum *e = (struct module_enum *)(void *)This;
    if (e->next == 0 && enum_hook)
        enum_hook(enum_hook_ctx); /* what happens while the profiler walks the list */
    ULONG n = 0;
    while (n < celt && e->next < ENUM_IDS)
        ids[n++] = enum_ids[e->next++];
    if (fetched)
        *fetched = n;
    return n == celt ? S_OK : S_FALSE;
}

static HRESULT STDMETHODCALLTYPE me_GetCount(ICorProfilerModuleEnum *This, ULONG *count)
{
    *count = ENUM_IDS;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE me_Skip(ICorProfilerModuleEnum *This, ULONG celt)
{
    return E_NOTIMPL;
}

static HRESULT STDMETHODCALLTYPE me_Reset(ICorProfilerModuleEnum *This)
{
    ((struct module_enum *)(void *)This)->next = 0;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE me_Clone(ICorProfilerModuleEnum *This,
                                          ICorProfilerModuleEnum **out)
{
    return E_NOTIMPL;
}

static const struct ICorProfilerModuleEnumVtbl module_enum_vtbl = {
    .QueryInterface = me_QueryInterface,
    .AddRef = me_AddRef,
    .Release = me_Release,
    .Skip = me_Skip,
    .Reset = me_Reset,
    .Clone = me_Clone,
    .GetCount = me_GetCount,
    .Next = me_Next,
};

static HRESULT STDMETHODCALLTYPE info_EnumModules(ICorProfilerInfo15 *This,
                                                  ICorProfilerModuleEnum **out)
{
    struct module_enum *e = calloc(1, sizeof(*e));
    if (!e)
        return E_OUTOFMEMORY;
    e->iface.lpVtbl = &module_enum_vtbl;
    atomic_init(&e->refs, 1);
    *out = &e->iface;
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
    .GetCodeInfo3 = info_GetCodeInfo3,
    .GetILToNativeMapping2 = info_GetILToNativeMapping2,
    .RequestReJIT = info_RequestReJIT,
    .RequestReJITWithInliners = info_RequestReJITWithInliners,
    .EnumModules = info_EnumModules,
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

int pf_allocators_live(void)
{
    return atomic_load(&pf.allocators_live);
}

DWORD pf_event_mask(void)
{
    clrie_os_mutex_lock(&pf.lock);
    DWORD mask = pf.event_mask;
    clrie_os_mutex_unlock(&pf.lock);
    return mask;
}

size_t pf_set_body_count(void)
{
    clrie_os_mutex_lock(&pf.lock);
    size_t n = pf.body_count;
    clrie_os_mutex_unlock(&pf.lock);
    return n;
}

bool pf_set_body(mdMethodDef token, struct pf_body *out)
{
    bool found = false;
    clrie_os_mutex_lock(&pf.lock);
    for (size_t i = pf.body_count; i-- > 0 && !found;)
        if (pf.bodies[i].token == token)
            *out = pf.bodies[i], found = true;
    clrie_os_mutex_unlock(&pf.lock);
    return found;
}

int pf_foreign_bodies(void)
{
    return atomic_load(&pf.foreign_bodies);
}

size_t pf_map_count(void)
{
    clrie_os_mutex_lock(&pf.lock);
    size_t n = pf.map_count;
    clrie_os_mutex_unlock(&pf.lock);
    return n;
}

bool pf_map(FunctionID function, COR_IL_MAP *map, size_t cap, size_t *count)
{
    bool found = false;
    clrie_os_mutex_lock(&pf.lock);
    for (size_t i = pf.map_count; i-- > 0 && !found;) {
        if (pf.maps[i].function == function) {
            *count = pf.maps[i].count;
            memcpy(map, pf.maps[i].map, (*count < cap ? *count : cap) * sizeof(*map));
            found = true;
        }
    }
    clrie_os_mutex_unlock(&pf.lock);
    return found;
}

int pf_rejit_requests(void)
{
    return atomic_load(&pf.rejit_requests);
}

size_t pf_last_rejit(ModuleID *modules, mdMethodDef *tokens, size_t cap, bool *with_inliners)
{
    clrie_os_mutex_lock(&pf.lock);
    size_t n = pf.rejit_count < cap ? pf.rejit_count : cap;
    memcpy(modules, pf.rejit_modules, n * sizeof(*modules));
    memcpy(tokens, pf.rejit_tokens, n * sizeof(*tokens));
    *with_inliners = pf.rejit_with_inliners;
    clrie_os_mutex_unlock(&pf.lock);
    return n;
}

/* ---- ICorProfilerFunctionControl ------------------------------------------------------------- */

static struct pf_control *control_of(ICorProfilerFunctionControl *This)
{
    return CLRIE_CONTAINER_OF(This, struct pf_control, iface);
}

static HRESULT STDMETHODCALLTYPE fc_QueryInterface(ICorProfilerFunctionControl *This, REFIID riid,
                                                   void **ppv)
{
    *ppv = NULL;
    return E_NOINTERFACE;
}

static ULONG STDMETHODCALLTYPE fc_AddRef(ICorProfilerFunctionControl *This)
{
    return (ULONG)++control_of(This)->refs;
}

static ULONG STDMETHODCALLTYPE fc_Release(ICorProfilerFunctionControl *This)
{
    return (ULONG)--control_of(This)->refs;
}

static HRESULT STDMETHODCALLTYPE fc_SetCodegenFlags(ICorProfilerFunctionControl *This, DWORD flags)
{
    control_of(This)->codegen_flags = flags;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE fc_SetILFunctionBody(ICorProfilerFunctionControl *This, ULONG cb,
                                                      LPCBYTE body)
{
    struct pf_control *c = control_of(This);
    free(c->body);
    c->body = malloc(cb);
    assert_non_null(c->body);
    memcpy(c->body, body, cb);
    c->body_len = cb;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE fc_SetILInstrumentedCodeMap(ICorProfilerFunctionControl *This,
                                                             ULONG count, COR_IL_MAP map[])
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
