/* A minimal profiler that feeds the data model (domains.h) from the real CoreCLR's callbacks and
 * prints what its objects answer, one line per event on stderr, for test_domains_dotnet.py:
 *
 *   probe: domain name=<name> system=<0|1> shared=<0|1> default=<0|1>
 *   probe: assembly name=<name> token=<public key token or -> md=<metadata token>
 *   probe: module name=<file> assembly=<name> domain=<name> il=.. 64=.. dynamic=.. flat=.. disk=..
 *          ngen=.. mscorlib=.. entry=<token> cb=<CLI header size> metadata=<0|1> bsjb=<0|1>
 *   probe: module-unloaded name=<file> found=<0|1>   (found: still in the tables)
 *   probe: assembly-unloaded name=<name> modules=<n>
 *   probe: shutdown domains=<n> modules=<n>
 *
 * It is not the engine: no plugins, only the events the data model needs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clrie/plugin.h"
#include "domains.h"
#include "utf16.h"

extern char **environ;

static struct clrie_pm_log engine_log;
static struct clrie_pm_domains *domains;
static ICorProfilerInfo3 *info;
static int modules_seen;

/* ---- printing ------------------------------------------------------------------------- */

/* UTF-8 of a BSTR the object gave (freed here); "?" when the call failed. */
static char *utf8(HRESULT hr, BSTR text)
{
    char *out = NULL;
    size_t len;
    if (SUCCEEDED(hr) && text &&
        clrie_pm_utf16_to_utf8(text, clrie_pm_bstr_len(text), true, &out, &len) != 0)
        out = NULL;
    clrie_pm_bstr_free(text);
    return out ? out : strdup("?");
}

static char *domain_name(IAppDomainInfo *d)
{
    BSTR name = NULL;
    HRESULT hr = d->lpVtbl->GetName(d, &name);
    return utf8(hr, name);
}

static char *assembly_name(IAssemblyInfo *a)
{
    BSTR name = NULL;
    HRESULT hr = a->lpVtbl->GetName(a, &name);
    return utf8(hr, name);
}

static void print_domain(IAppDomainInfo *d)
{
    BOOL system = FALSE, shared = FALSE, is_default = FALSE;
    d->lpVtbl->GetIsSystemDomain(d, &system);
    d->lpVtbl->GetIsSharedDomain(d, &shared);
    d->lpVtbl->GetIsDefaultDomain(d, &is_default);
    char *name = domain_name(d);
    fprintf(stderr, "probe: domain name=%s system=%d shared=%d default=%d\n", name, system, shared,
            is_default);
    free(name);
}

static void print_assembly(IAssemblyInfo *a)
{
    BSTR token = NULL;
    HRESULT hr = a->lpVtbl->GetPublicKeyToken(a, &token);
    char *token_text = SUCCEEDED(hr) ? utf8(hr, token) : strdup("-");
    DWORD md = 0;
    a->lpVtbl->GetMetaDataToken(a, &md);
    char *name = assembly_name(a);
    fprintf(stderr, "probe: assembly name=%s token=%s md=%08x\n", name, token_text, md);
    free(name);
    free(token_text);
}

static void print_module(IModuleInfo *m)
{
    IModuleInfo3 *m3 = (IModuleInfo3 *)(void *)m;
    BSTR file = NULL;
    HRESULT hr = m->lpVtbl->GetModuleName(m, &file);
    char *name = utf8(hr, file);
    IAssemblyInfo *a = NULL;
    IAppDomainInfo *d = NULL;
    m->lpVtbl->GetAssemblyInfo(m, &a);
    m->lpVtbl->GetAppDomainInfo(m, &d);
    char *aname = a ? assembly_name(a) : strdup("?");
    char *dname = d ? domain_name(d) : strdup("?");

    BOOL il = 0, is64 = 0, dynamic = 0, flat = 0, disk = 0, ngen = 0, mscorlib = 0;
    m->lpVtbl->GetIsILOnly(m, &il);
    m->lpVtbl->GetIs64bit(m, &is64);
    m->lpVtbl->GetIsDynamic(m, &dynamic);
    m3->lpVtbl->GetIsFlatLayout(m3, &flat);
    m3->lpVtbl->GetIsLoadedFromDisk(m3, &disk);
    m->lpVtbl->GetIsNgen(m, &ngen);
    m->lpVtbl->GetIsMscorlib(m, &mscorlib);
    DWORD entry = 0;
    m->lpVtbl->GetEntrypointToken(m, &entry);
    BYTE header[72] = {0};
    m->lpVtbl->GetCorHeader(m, sizeof(header), header);
    DWORD cb, metadata_rva;
    memcpy(&cb, header, 4);
    memcpy(&metadata_rva, header + 8, 4);
    LPCBYTE metadata = NULL;
    m3->lpVtbl->ResolveRva(m3, metadata_rva, &metadata);
    IUnknown *import = NULL, *emit = NULL;
    bool have_metadata = SUCCEEDED(m->lpVtbl->GetMetaDataImport(m, &import)) &&
                         SUCCEEDED(m->lpVtbl->GetMetaDataEmit(m, &emit));

    fprintf(stderr,
            "probe: module name=%s assembly=%s domain=%s il=%d 64=%d dynamic=%d flat=%d disk=%d "
            "ngen=%d mscorlib=%d entry=%08x cb=%u metadata=%d bsjb=%d\n",
            name, aname, dname, il, is64, dynamic, flat, disk, ngen, mscorlib, entry, cb,
            have_metadata, metadata && memcmp(metadata, "BSJB", 4) == 0);
    if (import)
        import->lpVtbl->Release(import);
    if (emit)
        emit->lpVtbl->Release(emit);
    if (a)
        a->lpVtbl->Release(a);
    if (d)
        d->lpVtbl->Release(d);
    free(name);
    free(aname);
    free(dname);
}

/* ---- ICorProfilerCallback11: S_OK everywhere but the events the data model needs ------- */

#define DEFAULT_SLOT(ret, name, params, args)                                                      \
    static ret STDMETHODCALLTYPE default_##name params                                             \
    {                                                                                              \
        return (ret)S_OK;                                                                          \
    }
CLRIE_ICORPROFILERCALLBACK11_METHODS(DEFAULT_SLOT, ICorProfilerCallback11 *This, This)
#define DEFAULT_INIT(ret, name, params, args) .name = default_##name,

static HRESULT STDMETHODCALLTYPE probe_Initialize(ICorProfilerCallback11 *This, IUnknown *unknown)
{
    if (clrie_pm_log_init(&engine_log, environ) != 0 ||
        FAILED(unknown->lpVtbl->QueryInterface(unknown, &IID_ICorProfilerInfo3, (void **)&info)))
        return E_FAIL;
    info->lpVtbl->SetEventMask(info, COR_PRF_MONITOR_MODULE_LOADS | COR_PRF_MONITOR_ASSEMBLY_LOADS |
                                         COR_PRF_MONITOR_APPDOMAIN_LOADS);
    return clrie_pm_domains_new(info, &engine_log, &domains);
}

static HRESULT STDMETHODCALLTYPE probe_AppDomainCreationFinished(ICorProfilerCallback11 *This,
                                                                 AppDomainID id, HRESULT status)
{
    IAppDomainInfo *d = NULL;
    if (SUCCEEDED(clrie_pm_domains_appdomain_created(domains, id, &d))) {
        print_domain(d);
        d->lpVtbl->Release(d);
    }
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE probe_AssemblyLoadFinished(ICorProfilerCallback11 *This,
                                                            AssemblyID id, HRESULT status)
{
    IAssemblyInfo *a = NULL;
    if (SUCCEEDED(clrie_pm_domains_assembly_loaded(domains, id, &a))) {
        print_assembly(a);
        a->lpVtbl->Release(a);
    }
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE probe_ModuleAttachedToAssembly(ICorProfilerCallback11 *This,
                                                                ModuleID id, AssemblyID assembly)
{
    IModuleInfo *m = NULL;
    if (clrie_pm_domains_module_attached(domains, id, assembly, &m) == S_OK) {
        modules_seen++;
        print_module(m);
        m->lpVtbl->Release(m);
    }
    return S_OK;
}

/* An unloaded object is out of the tables but still answers. */
static HRESULT STDMETHODCALLTYPE probe_ModuleUnloadFinished(ICorProfilerCallback11 *This,
                                                            ModuleID id, HRESULT status)
{
    IModuleInfo *m = NULL, *found = NULL;
    if (clrie_pm_domains_module_unloaded(domains, id, &m) == S_OK) {
        BSTR file = NULL;
        HRESULT hr = m->lpVtbl->GetModuleName(m, &file);
        char *name = utf8(hr, file);
        bool still_found = SUCCEEDED(clrie_pm_domains_find_module(domains, id, &found));
        fprintf(stderr, "probe: module-unloaded name=%s found=%d\n", name, still_found);
        if (found)
            found->lpVtbl->Release(found);
        free(name);
        m->lpVtbl->Release(m);
    }
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE probe_AssemblyUnloadFinished(ICorProfilerCallback11 *This,
                                                              AssemblyID id, HRESULT status)
{
    IAssemblyInfo *a = NULL;
    if (clrie_pm_domains_assembly_unloaded(domains, id, &a) == S_OK) {
        char *name = assembly_name(a);
        ULONG count = 0;
        a->lpVtbl->GetModuleCount(a, &count);
        fprintf(stderr, "probe: assembly-unloaded name=%s modules=%u\n", name, count);
        free(name);
        a->lpVtbl->Release(a);
    }
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE probe_Shutdown(ICorProfilerCallback11 *This)
{
    IAppDomainCollection *c = clrie_pm_domains_collection(domains);
    DWORD count = 0;
    c->lpVtbl->GetAppDomainCount(c, &count);
    fprintf(stderr, "probe: shutdown domains=%u modules=%d\n", count, modules_seen);
    clrie_pm_domains_free(domains);
    info->lpVtbl->Release(info);
    clrie_pm_log_finish(&engine_log);
    return S_OK;
}

/* ---- the profiler object, made by libclrie-plugin's class factory -------------------------- */

struct probe {
    ICorProfilerCallback11 iface;
    struct clrie_plugin_com com;
};

static const struct clrie_plugin_com_iface probe_ifaces[] = {
    CLRIE_PLUGIN_COM_PROFILER_CALLBACK_IFACES(struct probe, iface),
};

static const struct clrie_plugin_com_class probe_class = {
    .name = "domains-probe",
    .ifaces = probe_ifaces,
    .iface_count = CLRIE_PLUGIN_COM_COUNT(probe_ifaces),
    .com_offset = offsetof(struct probe, com),
    .destroy = free,
    .module_ref = true,
};

CLRIE_PLUGIN_COM_IUNKNOWN(probe, ICorProfilerCallback11, struct probe, iface, com)

static const struct ICorProfilerCallback11Vtbl defaults = {
    CLRIE_ICORPROFILERCALLBACK11_METHODS(DEFAULT_INIT, ICorProfilerCallback11 *This, This)};
static struct ICorProfilerCallback11Vtbl probe_vtbl;

static HRESULT create_probe(const CLSID *clsid, REFIID riid, void **out)
{
    (void)clsid;
    struct probe *p = calloc(1, sizeof *p);
    if (!p)
        return E_OUTOFMEMORY;
    probe_vtbl = defaults;
    probe_vtbl.QueryInterface = probe_QueryInterface;
    probe_vtbl.AddRef = probe_AddRef;
    probe_vtbl.Release = probe_Release;
    probe_vtbl.Initialize = probe_Initialize;
    probe_vtbl.Shutdown = probe_Shutdown;
    probe_vtbl.AppDomainCreationFinished = probe_AppDomainCreationFinished;
    probe_vtbl.AssemblyLoadFinished = probe_AssemblyLoadFinished;
    probe_vtbl.ModuleAttachedToAssembly = probe_ModuleAttachedToAssembly;
    probe_vtbl.ModuleUnloadFinished = probe_ModuleUnloadFinished;
    probe_vtbl.AssemblyUnloadFinished = probe_AssemblyUnloadFinished;
    p->iface.lpVtbl = &probe_vtbl;
    clrie_plugin_com_init(&p->com, &probe_class);
    return clrie_plugin_com_give(&p->com, riid, out);
}

CLRIE_PLUGIN_EXPORT_CLASS_FACTORY(create_probe)
