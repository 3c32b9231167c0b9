/* IAssemblyInfo: one loaded assembly.
 *
 * Its name, domain and manifest module ID come from ICorProfilerInfo::GetAssemblyInfo; its
 * metadata token, flags and public key from the manifest module's IMetaDataAssemblyImport when
 * that module attaches (until then GetMetaDataToken fails and the key is empty).
 *
 * CoreCLR assemblies have exactly one module, the manifest module, so GetModuleForMethod answers
 * the manifest module and GetModuleForType looks the type up there. (CLRIE leaves both
 * unimplemented: S_OK with a NULL module / nil token.)
 *
 * GetPublicKeyToken is computed as the runtime does (the last 8 bytes of the key's SHA-1, in
 * reverse order), printed as 16 upper-case hex digits as CLRIE does on Windows; CLRIE cannot
 * compute it on Linux and fails there. An assembly without a public key fails with E_FAIL. */
#include "domains_private.h"

#include <stdlib.h>
#include <string.h>

#include "sha1.h"

#define AF_PUBLIC_KEY 0x0001u /* CorAssemblyFlags.afPublicKey: the blob is the full key */
#define E_NOT_SUFFICIENT_BUFFER CLRIE_HRESULT(0x8007007Au)

static struct clrie_pm_assembly *from_iface(IAssemblyInfo *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct clrie_pm_assembly, iface);
}

static IModuleInfo *module_iface(struct clrie_pm_module *m)
{
    return (IModuleInfo *)(void *)&m->iface;
}

static void assembly_destroy(void *object)
{
    struct clrie_pm_assembly *a = object;
    clrie_pm_data_container_finish(&a->data);
    clrie_pm_text_finish(&a->name);
    clrie_pm_ptr_list_finish(&a->modules);
    free(a->public_key);
    CLRIE_PM_RELEASE(a->appdomain);
    CLRIE_PM_RELEASE(a->domains);
    free(a);
}

static const struct clrie_plugin_com_iface assembly_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IAssemblyInfo, struct clrie_pm_assembly, iface),
    CLRIE_PLUGIN_COM_IFACE(&IID_IDataContainer, struct clrie_pm_assembly, data.iface),
};
CLRIE_PM_COM_CLASS(assembly_class, "IAssemblyInfo", struct clrie_pm_assembly, com, assembly_destroy,
                   assembly_ifaces);
CLRIE_PLUGIN_COM_IUNKNOWN(assembly, IAssemblyInfo, struct clrie_pm_assembly, iface, com)

static HRESULT STDMETHODCALLTYPE assembly_GetAppDomainInfo(IAssemblyInfo *This,
                                                           IAppDomainInfo **ppAppDomainInfo)
{
    struct clrie_pm_assembly *a = from_iface(This);
    if (!ppAppDomainInfo)
        return E_POINTER;
    CLRIE_PM_ADDREF(a->appdomain);
    *ppAppDomainInfo = &a->appdomain->iface;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE assembly_GetModuleCount(IAssemblyInfo *This, ULONG *pcModuleInfos)
{
    struct clrie_pm_assembly *a = from_iface(This);
    if (!pcModuleInfos)
        return E_POINTER;
    clrie_os_mutex_lock(&a->domains->lock);
    *pcModuleInfos = (ULONG)a->modules.count;
    clrie_os_mutex_unlock(&a->domains->lock);
    return S_OK;
}

/* cModuleInfos is unused, as in CLRIE: the enumerator holds every module. */
static HRESULT STDMETHODCALLTYPE assembly_GetModules(IAssemblyInfo *This, ULONG cModuleInfos,
                                                     IEnumModuleInfo **pModuleInfos)
{
    struct clrie_pm_assembly *a = from_iface(This);
    return clrie_pm_enum_from_list(a->domains, &IID_IEnumModuleInfo, &a->modules, NULL, NULL,
                                   (void **)pModuleInfos);
}

static HRESULT STDMETHODCALLTYPE assembly_GetModuleById(IAssemblyInfo *This, ModuleID moduleId,
                                                        IModuleInfo **ppModuleInfo)
{
    struct clrie_pm_assembly *a = from_iface(This);
    if (!ppModuleInfo)
        return E_POINTER;
    clrie_os_mutex_lock(&a->domains->lock);
    struct clrie_pm_module *m = clrie_pm_id_map_get(&a->domains->module_map, moduleId);
    if (m && m->assembly == a)
        CLRIE_PM_ADDREF(m);
    else
        m = NULL;
    clrie_os_mutex_unlock(&a->domains->lock);
    *ppModuleInfo = m ? module_iface(m) : NULL;
    return m ? S_OK : E_FAIL;
}

static HRESULT STDMETHODCALLTYPE assembly_GetModuleByMvid(IAssemblyInfo *This, GUID *pMvid,
                                                          IModuleInfo **ppModuleInfo)
{
    struct clrie_pm_assembly *a = from_iface(This);
    if (!ppModuleInfo)
        return E_POINTER;
    *ppModuleInfo = NULL;
    if (!pMvid)
        return E_POINTER;
    struct clrie_pm_module *found = NULL;
    clrie_os_mutex_lock(&a->domains->lock);
    for (size_t i = 0; i < a->modules.count && !found; i++)
        if (clrie_pm_module_has_mvid(a->modules.items[i], pMvid))
            found = a->modules.items[i];
    if (found)
        CLRIE_PM_ADDREF(found);
    clrie_os_mutex_unlock(&a->domains->lock);
    if (!found)
        return E_FAIL;
    *ppModuleInfo = module_iface(found);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE assembly_GetModulesByName(IAssemblyInfo *This, BSTR pszModuleName,
                                                           IEnumModuleInfo **ppModuleInfo)
{
    struct clrie_pm_assembly *a = from_iface(This);
    if (!pszModuleName) {
        if (ppModuleInfo)
            *ppModuleInfo = NULL;
        return E_POINTER;
    }
    return clrie_pm_enum_from_list(a->domains, &IID_IEnumModuleInfo, &a->modules,
                                   clrie_pm_module_has_name, pszModuleName, (void **)ppModuleInfo);
}

/* The manifest module, AddRef'd, or NULL. */
static struct clrie_pm_module *manifest_of(struct clrie_pm_assembly *a)
{
    clrie_os_mutex_lock(&a->domains->lock);
    struct clrie_pm_module *m = a->manifest;
    if (m)
        CLRIE_PM_ADDREF(m);
    clrie_os_mutex_unlock(&a->domains->lock);
    return m;
}

static HRESULT STDMETHODCALLTYPE assembly_GetManifestModule(IAssemblyInfo *This,
                                                            IModuleInfo **ppModuleInfo)
{
    if (!ppModuleInfo)
        return E_POINTER;
    struct clrie_pm_module *m = manifest_of(from_iface(This));
    *ppModuleInfo = m ? module_iface(m) : NULL;
    return m ? S_OK : E_FAIL;
}

/* Every method of a CoreCLR assembly is in its only module. */
static HRESULT STDMETHODCALLTYPE assembly_GetModuleForMethod(IAssemblyInfo *This, mdToken token,
                                                             IModuleInfo **ppModuleInfo)
{
    return assembly_GetManifestModule(This, ppModuleInfo);
}

/* The TypeDef named pszTypeName (namespace-qualified) in the manifest module; nested in
 * tkResolutionScope when that is a TypeDef. */
static HRESULT STDMETHODCALLTYPE assembly_GetModuleForType(IAssemblyInfo *This, BSTR pszTypeName,
                                                           mdToken tkResolutionScope,
                                                           mdToken *pTkTypeDef)
{
    if (!pTkTypeDef)
        return E_POINTER;
    *pTkTypeDef = mdTokenNil;
    if (!pszTypeName)
        return E_POINTER;
    struct clrie_pm_module *m = manifest_of(from_iface(This));
    if (!m)
        return E_FAIL;
    IMetaDataImport2 *import = (IMetaDataImport2 *)(void *)m->import;
    mdToken enclosing =
        CLRIE_TOKEN_TYPE(tkResolutionScope) == mdtTypeDef ? tkResolutionScope : mdTokenNil;
    HRESULT hr = import->lpVtbl->FindTypeDefByName(import, pszTypeName, enclosing, pTkTypeDef);
    CLRIE_PM_RELEASE(m);
    return hr;
}

static HRESULT STDMETHODCALLTYPE assembly_GetPublicKey(IAssemblyInfo *This, ULONG cbBytes,
                                                       BYTE *pbBytes)
{
    struct clrie_pm_assembly *a = from_iface(This);
    if (!pbBytes)
        return E_POINTER;
    HRESULT hr = S_OK;
    clrie_os_mutex_lock(&a->domains->lock);
    if (cbBytes < a->public_key_size)
        hr = E_NOT_SUFFICIENT_BUFFER;
    else if (a->public_key_size)
        memcpy(pbBytes, a->public_key, a->public_key_size);
    clrie_os_mutex_unlock(&a->domains->lock);
    return hr;
}

static HRESULT STDMETHODCALLTYPE assembly_GetPublicKeySize(IAssemblyInfo *This, ULONG *pcbBytes)
{
    struct clrie_pm_assembly *a = from_iface(This);
    if (!pcbBytes)
        return E_POINTER;
    clrie_os_mutex_lock(&a->domains->lock);
    *pcbBytes = a->public_key_size;
    clrie_os_mutex_unlock(&a->domains->lock);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE assembly_GetPublicKeyToken(IAssemblyInfo *This,
                                                            BSTR *pbstrPublicKeyToken)
{
    struct clrie_pm_assembly *a = from_iface(This);
    if (!pbstrPublicKeyToken)
        return E_POINTER;
    *pbstrPublicKeyToken = NULL;

    BYTE token[8];
    bool have = false;
    clrie_os_mutex_lock(&a->domains->lock);
    if (a->public_key_size == sizeof(token) && !(a->flags & AF_PUBLIC_KEY)) {
        memcpy(token, a->public_key, sizeof(token)); /* already a token */
        have = true;
    } else if (a->public_key_size) {
        uint8_t digest[CLRIE_PM_SHA1_SIZE];
        clrie_pm_sha1(a->public_key, a->public_key_size, digest);
        for (size_t i = 0; i < sizeof(token); i++)
            token[i] = digest[CLRIE_PM_SHA1_SIZE - 1 - i];
        have = true;
    }
    clrie_os_mutex_unlock(&a->domains->lock);
    if (!have)
        return E_FAIL;

    static const char hex[] = "0123456789ABCDEF";
    char16_t text[16];
    for (size_t i = 0; i < sizeof(token); i++) {
        text[2 * i] = (char16_t)hex[token[i] >> 4];
        text[2 * i + 1] = (char16_t)hex[token[i] & 0xF];
    }
    return clrie_pm_text_to_bstr(text, 16, pbstrPublicKeyToken);
}

static HRESULT STDMETHODCALLTYPE assembly_GetID(IAssemblyInfo *This, AssemblyID *pAssemblyId)
{
    if (!pAssemblyId)
        return E_POINTER;
    *pAssemblyId = from_iface(This)->id;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE assembly_GetName(IAssemblyInfo *This, BSTR *pbstrName)
{
    struct clrie_pm_assembly *a = from_iface(This);
    if (!pbstrName)
        return E_POINTER;
    clrie_os_mutex_lock(&a->domains->lock);
    HRESULT hr = clrie_pm_text_to_bstr(a->name.text, a->name.len, pbstrName);
    clrie_os_mutex_unlock(&a->domains->lock);
    return hr;
}

static HRESULT STDMETHODCALLTYPE assembly_GetMetaDataToken(IAssemblyInfo *This, DWORD *pdwToken)
{
    struct clrie_pm_assembly *a = from_iface(This);
    if (!pdwToken)
        return E_POINTER;
    clrie_os_mutex_lock(&a->domains->lock);
    mdAssembly token = a->have_identity ? a->token : mdTokenNil;
    clrie_os_mutex_unlock(&a->domains->lock);
    *pdwToken = token;
    return token != mdTokenNil ? S_OK : E_FAIL;
}

static const struct IAssemblyInfoVtbl assembly_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(assembly),
    .GetAppDomainInfo = assembly_GetAppDomainInfo,
    .GetModuleCount = assembly_GetModuleCount,
    .GetModules = assembly_GetModules,
    .GetModuleById = assembly_GetModuleById,
    .GetModuleByMvid = assembly_GetModuleByMvid,
    .GetModulesByName = assembly_GetModulesByName,
    .GetModuleForMethod = assembly_GetModuleForMethod,
    .GetModuleForType = assembly_GetModuleForType,
    .GetManifestModule = assembly_GetManifestModule,
    .GetPublicKey = assembly_GetPublicKey,
    .GetPublicKeySize = assembly_GetPublicKeySize,
    .GetPublicKeyToken = assembly_GetPublicKeyToken,
    .GetID = assembly_GetID,
    .GetName = assembly_GetName,
    .GetMetaDataToken = assembly_GetMetaDataToken,
};

bool clrie_pm_assembly_has_name(void *assembly, const void *name)
{
    struct clrie_pm_assembly *a = assembly;
    return clrie_pm_text_equal(a->name.text, a->name.len, name);
}

HRESULT clrie_pm_assembly_read_identity(IUnknown *assembly_import, mdAssembly *token, DWORD *flags,
                                        BYTE **public_key, ULONG *public_key_size)
{
    IMetaDataAssemblyImport *import = (IMetaDataAssemblyImport *)(void *)assembly_import;
    const void *key = NULL;
    ULONG key_size = 0;
    *token = mdTokenNil;
    *flags = 0;
    *public_key = NULL;
    *public_key_size = 0;

    HRESULT hr = import->lpVtbl->GetAssemblyFromScope(import, token);
    if (FAILED(hr))
        return hr;
    hr = import->lpVtbl->GetAssemblyProps(import, *token, &key, &key_size, NULL, NULL, 0, NULL,
                                          NULL, flags);
    if (FAILED(hr))
        return hr;
    if (key && key_size) {
        *public_key = malloc(key_size);
        if (!*public_key)
            return E_OUTOFMEMORY;
        memcpy(*public_key, key, key_size);
        *public_key_size = key_size;
    }
    return S_OK;
}

HRESULT clrie_pm_assembly_new(struct clrie_pm_domains *domains,
                              struct clrie_pm_appdomain *appdomain, AssemblyID id,
                              ModuleID manifest_id, struct clrie_pm_text name,
                              struct clrie_pm_assembly **out)
{
    struct clrie_pm_assembly *a = calloc(1, sizeof(*a));
    if (!a) {
        clrie_pm_text_finish(&name);
        return E_OUTOFMEMORY;
    }
    a->iface.lpVtbl = &assembly_vtbl;
    clrie_pm_data_container_init(&a->data, CLRIE_PM_UNKNOWN(a));
    clrie_plugin_com_init(&a->com, &assembly_class);
    CLRIE_PM_ADDREF(domains);
    a->domains = domains;
    CLRIE_PM_ADDREF(appdomain);
    a->appdomain = appdomain;
    a->id = id;
    a->manifest_id = manifest_id;
    a->name = name;
    *out = a;
    return S_OK;
}
