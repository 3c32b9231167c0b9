/* IModuleInfo, IModuleInfo2, IModuleInfo3: one module, as the runtime described it when it
 * attached to its assembly. Everything is recorded then and never changes: the path and flags
 * (ICorProfilerInfo3::GetModuleInfo2), the metadata interfaces (GetModuleMetaData is only
 * allowed inside callbacks, so they are obtained at attach time and kept), the MVID and the PE
 * headers (libilgraph's PE reader, clrie_il_pe_image_*). The three interface versions share one
 * vtable and one pointer.
 *
 * Choices where CLRIE gives no useful answer on CoreCLR:
 *  - GetIsMscorlib is TRUE only for a module named "mscorlib.dll", as in CLRIE: FALSE for
 *    CoreCLR's core library System.Private.CoreLib.dll, TRUE for the type-forwarding facade
 *    mscorlib.dll that .NET loads for old libraries. Compatible rather than "useful" on purpose:
 *    plugins that work with CLRIE on CoreCLR never took their mscorlib branch there, and such
 *    branches do .NET Framework work (injecting helpers or references into the core library)
 *    that can break CoreCLR (dotnet/corefx#31281). A plugin that wants CoreLib checks the name.
 *  - GetIsILOnly reads COMIMAGE_FLAGS_ILONLY from the CLI header (CLRIE's test is inverted);
 *    FALSE without a CLI header (dynamic modules).
 *  - GetIs64bit is TRUE for a PE32+ image (an AnyCPU IL assembly is PE32, so FALSE).
 *  - ResolveRva also works for flat-layout images, through the section table.
 *  - GetModuleVersion is E_NOTIMPL: VS_FIXEDFILEINFO is a Windows resource (CLRIE reads it only
 *    on Windows).
 * CreateTypeFactory answers a type creator over the module's metadata import (types.h).
 * RequestRejit and the per-method records it uses are in module_methods.c. ImportModule is
 * E_NOTIMPL (on Linux in CLRIE too). */
#include "domains_private.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "types.h"
#include "utf16.h"

static struct clrie_pm_module *from_iface(IModuleInfo3 *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct clrie_pm_module, iface);
}

static void release_unknown(IUnknown *unknown)
{
    if (unknown)
        unknown->lpVtbl->Release(unknown);
}

static void module_destroy(void *object)
{
    struct clrie_pm_module *m = object;
    clrie_pm_data_container_finish(&m->data);
    clrie_pm_module_methods_finish(m);
    clrie_pm_user_strings_finish(&m->user_strings);
    clrie_pm_token_answers_finish(&m->verify_answers);
    clrie_pm_types_sig_tokens_free(m->sig_tokens);
    release_unknown(m->import);
    release_unknown(m->assembly_import);
    release_unknown(m->emit);
    release_unknown(m->assembly_emit);
    clrie_il_pe_image_finish(&m->image);
    clrie_pm_text_finish(&m->path);
    CLRIE_PM_RELEASE(m->assembly);
    CLRIE_PM_RELEASE(m->appdomain);
    CLRIE_PM_RELEASE(m->domains);
    free(m);
}

static const struct clrie_plugin_com_iface module_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IModuleInfo, struct clrie_pm_module, iface),
    CLRIE_PLUGIN_COM_IFACE(&IID_IModuleInfo2, struct clrie_pm_module, iface),
    CLRIE_PLUGIN_COM_IFACE(&IID_IModuleInfo3, struct clrie_pm_module, iface),
    CLRIE_PLUGIN_COM_IFACE(&IID_IDataContainer, struct clrie_pm_module, data.iface),
};
CLRIE_PM_COM_CLASS(module_class, "IModuleInfo", struct clrie_pm_module, com, module_destroy,
                   module_ifaces);
CLRIE_PLUGIN_COM_IUNKNOWN(module, IModuleInfo3, struct clrie_pm_module, iface, com)

static HRESULT STDMETHODCALLTYPE module_GetModuleName(IModuleInfo3 *This, BSTR *pbstrModuleName)
{
    struct clrie_pm_module *m = from_iface(This);
    return clrie_pm_text_to_bstr(m->path.text + m->name_offset, m->path.len - m->name_offset,
                                 pbstrModuleName);
}

static HRESULT STDMETHODCALLTYPE module_GetFullPath(IModuleInfo3 *This, BSTR *pbstrFullPath)
{
    struct clrie_pm_module *m = from_iface(This);
    return clrie_pm_text_to_bstr(m->path.text, m->path.len, pbstrFullPath);
}

static HRESULT STDMETHODCALLTYPE module_GetAssemblyInfo(IModuleInfo3 *This,
                                                        IAssemblyInfo **ppAssemblyInfo)
{
    struct clrie_pm_module *m = from_iface(This);
    if (!ppAssemblyInfo)
        return E_POINTER;
    CLRIE_PM_ADDREF(m->assembly);
    *ppAssemblyInfo = &m->assembly->iface;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE module_GetAppDomainInfo(IModuleInfo3 *This,
                                                         IAppDomainInfo **ppAppDomainInfo)
{
    struct clrie_pm_module *m = from_iface(This);
    if (!ppAppDomainInfo)
        return E_POINTER;
    CLRIE_PM_ADDREF(m->appdomain);
    *ppAppDomainInfo = &m->appdomain->iface;
    return S_OK;
}

/* A cached metadata interface, AddRef'd; E_FAIL when the runtime refused it at attach time. */
static HRESULT copy_metadata(IUnknown *cached, IUnknown **out)
{
    if (!out)
        return E_POINTER;
    *out = cached;
    if (!cached)
        return E_FAIL;
    cached->lpVtbl->AddRef(cached);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE module_GetMetaDataImport(IModuleInfo3 *This,
                                                          IUnknown **ppMetaDataImport)
{
    return copy_metadata(from_iface(This)->import, ppMetaDataImport);
}

static HRESULT STDMETHODCALLTYPE
module_GetMetaDataAssemblyImport(IModuleInfo3 *This, IUnknown **ppMetaDataAssemblyImport)
{
    return copy_metadata(from_iface(This)->assembly_import, ppMetaDataAssemblyImport);
}

static HRESULT STDMETHODCALLTYPE module_GetMetaDataEmit(IModuleInfo3 *This,
                                                        IUnknown **ppMetaDataEmit)
{
    return copy_metadata(from_iface(This)->emit, ppMetaDataEmit);
}

static HRESULT STDMETHODCALLTYPE module_GetMetaDataAssemblyEmit(IModuleInfo3 *This,
                                                                IUnknown **ppMetaDataAssemblyEmit)
{
    return copy_metadata(from_iface(This)->assembly_emit, ppMetaDataAssemblyEmit);
}

static HRESULT STDMETHODCALLTYPE module_GetModuleID(IModuleInfo3 *This, ModuleID *pModuleId)
{
    if (!pModuleId)
        return E_POINTER;
    *pModuleId = from_iface(This)->id;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE module_GetMVID(IModuleInfo3 *This, GUID *pguidMvid)
{
    if (!pguidMvid)
        return E_POINTER;
    *pguidMvid = from_iface(This)->mvid;
    return S_OK;
}

static HRESULT answer(BOOL *out, bool value)
{
    if (!out)
        return E_POINTER;
    *out = value ? TRUE : FALSE;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE module_GetIsILOnly(IModuleInfo3 *This, BOOL *pbValue)
{
    struct clrie_pm_module *m = from_iface(This);
    return answer(pbValue, m->have_image && m->image.has_cli_header &&
                               (m->image.cli_flags & CLRIE_IL_COMIMAGE_FLAGS_ILONLY));
}

static HRESULT STDMETHODCALLTYPE module_GetIsMscorlib(IModuleInfo3 *This, BOOL *pbValue)
{
    return answer(pbValue, clrie_pm_module_has_name(from_iface(This), u"mscorlib.dll"));
}

static HRESULT STDMETHODCALLTYPE module_GetIsDynamic(IModuleInfo3 *This, BOOL *pbValue)
{
    struct clrie_pm_module *m = from_iface(This);
    return answer(pbValue, (m->flags & COR_PRF_MODULE_DYNAMIC) || m->base == NULL);
}

static HRESULT STDMETHODCALLTYPE module_GetIsNgen(IModuleInfo3 *This, BOOL *pbValue)
{
    return answer(pbValue, from_iface(This)->flags & COR_PRF_MODULE_NGEN);
}

static HRESULT STDMETHODCALLTYPE module_GetIsWinRT(IModuleInfo3 *This, BOOL *pbValue)
{
    return answer(pbValue, from_iface(This)->flags & COR_PRF_MODULE_WINDOWS_RUNTIME);
}

static HRESULT STDMETHODCALLTYPE module_GetIs64bit(IModuleInfo3 *This, BOOL *pbValue)
{
    struct clrie_pm_module *m = from_iface(This);
    return answer(pbValue, m->have_image && m->image.pe32_plus);
}

static HRESULT STDMETHODCALLTYPE module_GetImageBase(IModuleInfo3 *This, LPCBYTE *pbValue)
{
    if (!pbValue)
        return E_POINTER;
    *pbValue = from_iface(This)->base;
    return S_OK;
}

/* Copies up to cbValue bytes of the IMAGE_COR20_HEADER (72 bytes); E_FAIL without one. */
static HRESULT STDMETHODCALLTYPE module_GetCorHeader(IModuleInfo3 *This, DWORD cbValue,
                                                     BYTE *pbValue)
{
    struct clrie_pm_module *m = from_iface(This);
    if (!pbValue)
        return E_POINTER;
    if (!m->have_image || !m->image.has_cli_header)
        return E_FAIL;
    size_t n = cbValue < CLRIE_IL_PE_CLI_HEADER_SIZE ? cbValue : CLRIE_IL_PE_CLI_HEADER_SIZE;
    memcpy(pbValue, m->image.cli_header, n);
    return S_OK;
}

/* E_FAIL when the module has no entry point (as CLRIE), e.g. a library. */
static HRESULT STDMETHODCALLTYPE module_GetEntrypointToken(IModuleInfo3 *This,
                                                           DWORD *pdwEntrypointToken)
{
    struct clrie_pm_module *m = from_iface(This);
    if (!pdwEntrypointToken)
        return E_POINTER;
    *pdwEntrypointToken = m->have_image ? m->image.entry_point_token : mdTokenNil;
    return *pdwEntrypointToken != mdTokenNil ? S_OK : E_FAIL;
}

static HRESULT STDMETHODCALLTYPE module_GetModuleVersion(IModuleInfo3 *This, DWORD cbValue,
                                                         BYTE *pbValue)
{
    return pbValue ? E_NOTIMPL : E_POINTER;
}

static HRESULT STDMETHODCALLTYPE module_RequestRejit(IModuleInfo3 *This, mdToken methodToken)
{
    return clrie_pm_module_request_rejit(from_iface(This), methodToken);
}

/* A new factory each call, as CLRIE; it holds the module and its metadata import. */
static HRESULT STDMETHODCALLTYPE module_CreateTypeFactory(IModuleInfo3 *This,
                                                          ITypeCreator **ppTypeFactory)
{
    struct clrie_pm_module *m = from_iface(This);
    return clrie_pm_types_creator_new((IModuleInfo *)This, (IMetaDataImport *)(void *)m->import,
                                      ppTypeFactory);
}

/* Info-only method infos (no IL), made by the manager's method factory. */
static HRESULT STDMETHODCALLTYPE module_GetMethodInfoById(IModuleInfo3 *This, FunctionID functionID,
                                                          IMethodInfo **ppMethodInfo)
{
    struct clrie_pm_domains *d = from_iface(This)->domains;
    if (!ppMethodInfo)
        return E_POINTER;
    *ppMethodInfo = NULL;
    if (!d->method_factory.by_function)
        return E_NOTIMPL;
    return d->method_factory.by_function(d->method_factory.ctx, functionID, ppMethodInfo);
}

static HRESULT STDMETHODCALLTYPE module_GetMethodInfoByToken(IModuleInfo3 *This, mdToken token,
                                                             IMethodInfo **ppMethodInfo)
{
    struct clrie_pm_domains *d = from_iface(This)->domains;
    if (!ppMethodInfo)
        return E_POINTER;
    *ppMethodInfo = NULL;
    if ((token & 0xFF000000u) != mdtMethodDef || (token & 0x00FFFFFFu) == 0)
        return E_INVALIDARG;
    if (!d->method_factory.by_token)
        return E_NOTIMPL;
    return d->method_factory.by_token(d->method_factory.ctx, (IModuleInfo *)(void *)This, token,
                                      ppMethodInfo);
}

static HRESULT STDMETHODCALLTYPE module_ImportModule(IModuleInfo3 *This,
                                                     IUnknown *pSourceModuleMetadataImport,
                                                     LPCBYTE *pSourceImage)
{
    return E_NOTIMPL;
}

static HRESULT STDMETHODCALLTYPE module_GetIsFlatLayout(IModuleInfo3 *This, BOOL *pbValue)
{
    return answer(pbValue, from_iface(This)->flags & COR_PRF_MODULE_FLAT_LAYOUT);
}

/* The address of an RVA in the loaded image: base + rva when mapped, through the section table
 * when flat. E_NOTIMPL for a module without an image (dynamic, as CLRIE), E_INVALIDARG for an
 * RVA outside the image. */
static HRESULT STDMETHODCALLTYPE module_ResolveRva(IModuleInfo3 *This, DWORD rva,
                                                   LPCBYTE *ppbResolvedAddress)
{
    struct clrie_pm_module *m = from_iface(This);
    if (!ppbResolvedAddress)
        return E_POINTER;
    *ppbResolvedAddress = NULL;
    if (!m->have_image)
        return E_NOTIMPL;
    *ppbResolvedAddress = clrie_il_pe_image_resolve(&m->image, rva, 1);
    return *ppbResolvedAddress ? S_OK : E_INVALIDARG;
}

static HRESULT STDMETHODCALLTYPE module_GetIsLoadedFromDisk(IModuleInfo3 *This, BOOL *pbValue)
{
    return answer(pbValue, from_iface(This)->flags & COR_PRF_MODULE_DISK);
}

static const struct IModuleInfo3Vtbl module_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(module),
    .GetModuleName = module_GetModuleName,
    .GetFullPath = module_GetFullPath,
    .GetAssemblyInfo = module_GetAssemblyInfo,
    .GetAppDomainInfo = module_GetAppDomainInfo,
    .GetMetaDataImport = module_GetMetaDataImport,
    .GetMetaDataAssemblyImport = module_GetMetaDataAssemblyImport,
    .GetMetaDataEmit = module_GetMetaDataEmit,
    .GetMetaDataAssemblyEmit = module_GetMetaDataAssemblyEmit,
    .GetModuleID = module_GetModuleID,
    .GetMVID = module_GetMVID,
    .GetIsILOnly = module_GetIsILOnly,
    .GetIsMscorlib = module_GetIsMscorlib,
    .GetIsDynamic = module_GetIsDynamic,
    .GetIsNgen = module_GetIsNgen,
    .GetIsWinRT = module_GetIsWinRT,
    .GetIs64bit = module_GetIs64bit,
    .GetImageBase = module_GetImageBase,
    .GetCorHeader = module_GetCorHeader,
    .GetEntrypointToken = module_GetEntrypointToken,
    .GetModuleVersion = module_GetModuleVersion,
    .RequestRejit = module_RequestRejit,
    .CreateTypeFactory = module_CreateTypeFactory,
    .GetMethodInfoById = module_GetMethodInfoById,
    .GetMethodInfoByToken = module_GetMethodInfoByToken,
    .ImportModule = module_ImportModule,
    .GetIsFlatLayout = module_GetIsFlatLayout,
    .ResolveRva = module_ResolveRva,
    .GetIsLoadedFromDisk = module_GetIsLoadedFromDisk,
};

bool clrie_pm_module_has_name(void *module, const void *name)
{
    struct clrie_pm_module *m = module;
    return clrie_pm_text_equal(m->path.text + m->name_offset, m->path.len - m->name_offset, name);
}

bool clrie_pm_module_has_mvid(void *module, const void *mvid)
{
    struct clrie_pm_module *m = module;
    return IsEqualGUID(&m->mvid, (const GUID *)mvid);
}

struct clrie_pm_user_strings *clrie_pm_module_user_strings(IModuleInfo *module)
{
    return &from_iface((IModuleInfo3 *)(void *)module)->user_strings;
}

IMetaDataImport2 *clrie_pm_module_import(IModuleInfo *module)
{
    return (IMetaDataImport2 *)(void *)from_iface((IModuleInfo3 *)(void *)module)->import;
}

IMetaDataEmit2 *clrie_pm_module_emit(IModuleInfo *module)
{
    return (IMetaDataEmit2 *)(void *)from_iface((IModuleInfo3 *)(void *)module)->emit;
}

struct clrie_pm_token_answers *clrie_pm_module_verify_answers(IModuleInfo *module)
{
    return &from_iface((IModuleInfo3 *)(void *)module)->verify_answers;
}

struct clrie_pm_types_sig_tokens *clrie_pm_module_sig_tokens(IModuleInfo *module)
{
    return from_iface((IModuleInfo3 *)(void *)module)->sig_tokens;
}

static void drop_facts(struct clrie_pm_module_facts *facts)
{
    clrie_pm_text_finish(&facts->path);
    release_unknown(facts->import);
    release_unknown(facts->assembly_import);
    release_unknown(facts->emit);
    release_unknown(facts->assembly_emit);
    facts->import = facts->assembly_import = facts->emit = facts->assembly_emit = NULL;
}

HRESULT clrie_pm_module_new(struct clrie_pm_domains *domains, struct clrie_pm_assembly *assembly,
                            struct clrie_pm_module_facts *facts, struct clrie_pm_module **out)
{
    struct clrie_pm_module *m = calloc(1, sizeof(*m));
    if (!m) {
        drop_facts(facts);
        return E_OUTOFMEMORY;
    }
    m->iface.lpVtbl = &module_vtbl;
    clrie_pm_data_container_init(&m->data, CLRIE_PM_UNKNOWN(m));
    clrie_os_mutex_init(&m->methods_lock);
    clrie_pm_user_strings_init(&m->user_strings);
    clrie_pm_token_answers_init(&m->verify_answers);
    clrie_plugin_com_init(&m->com, &module_class);
    CLRIE_PM_ADDREF(domains);
    m->domains = domains;
    CLRIE_PM_ADDREF(assembly);
    m->assembly = assembly;
    CLRIE_PM_ADDREF(assembly->appdomain);
    m->appdomain = assembly->appdomain;

    m->id = facts->id;
    m->path = facts->path;
    facts->path = (struct clrie_pm_text){0};
    m->name_offset = 0;
    for (size_t i = 0; i < m->path.len; i++)
        if (m->path.text[i] == u'/' || m->path.text[i] == u'\\')
            m->name_offset = i + 1;
    m->base = facts->base;
    m->flags = facts->flags;
    m->mvid = facts->mvid;
    m->import = facts->import;
    m->assembly_import = facts->assembly_import;
    m->emit = facts->emit;
    m->assembly_emit = facts->assembly_emit;
    facts->import = facts->assembly_import = facts->emit = facts->assembly_emit = NULL;
    /* Both are the interfaces module_attached asked for (IMetaDataImport2, IMetaDataEmit2),
     * which begin with IMetaDataImport's and IMetaDataEmit's slots. */
    if (m->emit &&
        FAILED(clrie_pm_types_sig_tokens_new((IMetaDataImport *)(void *)m->import,
                                             (IMetaDataEmit *)(void *)m->emit, &m->sig_tokens))) {
        CLRIE_PM_RELEASE(m);
        return E_OUTOFMEMORY;
    }

    if (m->base && !(m->flags & COR_PRF_MODULE_DYNAMIC)) {
        struct clrie_il_diag problem;
        int rc = clrie_il_pe_image_init(&m->image, m->base, 0,
                                        (m->flags & COR_PRF_MODULE_FLAT_LAYOUT) != 0, &problem);
        if (rc == 0) {
            m->have_image = true;
        } else if (rc != -ENOMEM) {
            char *path = NULL;
            size_t path_len = 0;
            if (clrie_pm_utf16_to_utf8(m->path.text, m->path.len, true, &path, &path_len) != 0)
                path = NULL;
            CLRIE_PM_LOG_ERROR(domains->log,
                               "module 0x%llx (%s): cannot read its PE headers: %s; its image "
                               "queries (GetCorHeader, ResolveRva, ...) will fail",
                               (unsigned long long)m->id, path ? path : "?", problem.message);
            free(path);
        } else {
            CLRIE_PM_RELEASE(m);
            return E_OUTOFMEMORY;
        }
    }
    *out = m;
    return S_OK;
}
