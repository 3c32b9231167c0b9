/* A plugin for attaching to a running process (test/dotnet/test_attach.py). It implements
 * IInstrumentationMethodAttach and reads its settings from the context InitializeForAttach
 * hands it:
 *
 *   Report   the file it appends its lines to
 *   Module   the file name of the app's module ("service.dll")
 *   Methods  names of Service.Program methods to instrument: every ret gets `ldc.i4.1; add`
 *            before it, so the method returns one more
 *   Rejit    names of those methods to ask a ReJIT for (IModuleInfo::RequestRejit) when the
 *            app's module is announced: the ones compiled before the attach
 *   Detach   a file: once it exists, the plugin asks to detach (IProfilerManager2::
 *            DisableProfiling after attach), from a thread of its own
 *
 * Loaded at start-up it reads the same settings in Initialize (Detach aside), writes
 * `initialize`, and logs `attach-probe: instruments <Methods> of <Module>` through the engine.
 *
 * Lines: `attach settings=<n>`, `module <name>`, `requestrejit <method> hr=<hr>`,
 * `instrument <method> rejit=<0|1>`, `attachcomplete`, `detach hr=<hr>`.
 *
 * It builds on Linux and Windows (test/windows): files and threads through libos.
 *
 * Test code: never load it in a real application. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clrie/abi/instrumentation.h"
#include "clrie/abi/metadata.h"
#include "clrie/os/fs.h"
#include "clrie/os/thread.h"
#include "clrie/plugin.h"
#include "plugin_edits.h"

struct probe {
    IInstrumentationMethod iface;
    IInstrumentationMethodAttach attach;
    struct clrie_plugin_com com;
    int fd;
    IProfilerManager *manager;
    char module[256], methods[512], rejit[512], detach[1024];
    struct clrie_os_thread watcher;
    bool watching;
    volatile bool stop;
};

#define record(p, ...) ((void)clrie_plugin_append_line((p)->fd, __VA_ARGS__))

static struct probe *from_iface(IInstrumentationMethod *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct probe, iface);
}

static struct probe *from_attach(IInstrumentationMethodAttach *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct probe, attach);
}

/* Whether name is one of the comma-separated list. */
static bool listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        if (len == n && strncmp(p, name, n) == 0)
            return true;
        p += len;
        if (*p)
            p++;
    }
    return false;
}

static void ascii_of(const WCHAR *text, char *out, size_t size)
{
    size_t i = 0;
    for (; text && text[i] && i + 1 < size; i++)
        out[i] = text[i] < 128 ? (char)text[i] : '?';
    out[i] = '\0';
}

/* ---- IInstrumentationMethod ------------------------------------------------------------------ */

static void probe_destroy(void *object)
{
    struct probe *p = object;
    if (p->watching) {
        p->stop = true;
        clrie_os_thread_join(&p->watcher);
    }
    if (p->fd >= 0)
        clrie_plugin_close_lines(p->fd);
    clrie_plugin_release(p->manager);
    free(p);
}

static const struct clrie_plugin_com_iface probe_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethod, struct probe, iface),
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethodAttach, struct probe, attach),
};

static const struct clrie_plugin_com_class probe_class = {
    .name = "attach-probe",
    .ifaces = probe_ifaces,
    .iface_count = CLRIE_PLUGIN_COM_COUNT(probe_ifaces),
    .com_offset = offsetof(struct probe, com),
    .destroy = probe_destroy,
    .module_ref = true,
};

CLRIE_PLUGIN_COM_IUNKNOWN(probe, IInstrumentationMethod, struct probe, iface, com)
CLRIE_PLUGIN_COM_IUNKNOWN(probe_attach, IInstrumentationMethodAttach, struct probe, attach, com)

static void read_settings(struct probe *p, IProfilerManager *manager)
{
    char report[1024];
    if (clrie_plugin_setting(manager, "Report", report, sizeof(report)) == 0)
        clrie_plugin_open_lines(report, false, &p->fd);
    clrie_plugin_setting(manager, "Module", p->module, sizeof(p->module));
    clrie_plugin_setting(manager, "Methods", p->methods, sizeof(p->methods));
    clrie_plugin_setting(manager, "Rejit", p->rejit, sizeof(p->rejit));
}

/* Loaded at start-up (the two-runtimes test): the same settings, no ReJIT needed. */
static HRESULT STDMETHODCALLTYPE probe_Initialize(IInstrumentationMethod *This,
                                                  IProfilerManager *pProfilerManager)
{
    struct probe *p = from_iface(This);
    read_settings(p, pProfilerManager);
    record(p, "initialize");
    struct clrie_plugin_host host;
    clrie_plugin_host_init(&host, pProfilerManager, "attach-probe");
    clrie_plugin_host_log(&host, false, "instruments %s of %s", p->methods, p->module);
    clrie_plugin_host_finish(&host);
    return S_OK;
}

struct found {
    struct probe *p;
    IModuleInfo *module;
};

static HRESULT on_method_def(void *data, mdMethodDef token, const WCHAR *full_name, ULONG rva)
{
    (void)rva;
    struct found *f = data;
    char full[512];
    ascii_of(full_name, full, sizeof(full));
    const char *prefix = "Service.Program::";
    if (strncmp(full, prefix, strlen(prefix)) != 0 || !listed(f->p->rejit, full + strlen(prefix)))
        return S_OK;
    HRESULT hr = f->module->lpVtbl->RequestRejit(f->module, token);
    record(f->p, "requestrejit %s hr=0x%08X", full + strlen(prefix), (unsigned)hr);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE probe_OnModuleLoaded(IInstrumentationMethod *This,
                                                      IModuleInfo *pModuleInfo)
{
    struct probe *p = from_iface(This);
    BSTR name = NULL;
    char text[512];
    if (FAILED(pModuleInfo->lpVtbl->GetModuleName(pModuleInfo, &name)))
        return S_OK;
    ascii_of(name, text, sizeof(text));
    clrie_plugin_free_bstr(NULL, name);
    if (strcmp(text, p->module) != 0)
        return S_OK;
    record(p, "module %s", text);
    IMetaDataImport *import = NULL;
    if (SUCCEEDED(
            clrie_plugin_module_metadata(pModuleInfo, &IID_IMetaDataImport, (void **)&import))) {
        struct found f = {p, pModuleInfo};
        clrie_plugin_method_defs_each(import, on_method_def, &f);
        clrie_plugin_release(import);
    }
    return S_OK;
}

static bool wanted(struct probe *p, IMethodInfo *mi, char *name, size_t size)
{
    char full[512];
    clrie_plugin_method_name(mi, NULL, name, size);
    clrie_plugin_method_full_name(mi, NULL, full, sizeof(full));
    return strncmp(full, "Service.Program.", 16) == 0 && listed(p->methods, name);
}

static HRESULT STDMETHODCALLTYPE probe_ShouldInstrumentMethod(IInstrumentationMethod *This,
                                                              IMethodInfo *pMethodInfo,
                                                              BOOL isRejit, BOOL *pbInstrument)
{
    char name[256];
    (void)isRejit;
    *pbInstrument = wanted(from_iface(This), pMethodInfo, name, sizeof(name));
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE probe_InstrumentMethod(IInstrumentationMethod *This,
                                                        IMethodInfo *pMethodInfo, BOOL isRejit)
{
    struct probe *p = from_iface(This);
    char name[256];
    wanted(p, pMethodInfo, name, sizeof(name));
    record(p, "instrument %s rejit=%d", name, isRejit ? 1 : 0);
    return test_plugin_add_before_rets(pMethodInfo, 1);
}

static const struct IInstrumentationMethodVtbl method_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(probe),
    .Initialize = probe_Initialize,
    CLRIE_PLUGIN_IGNORE_DOMAIN_AND_ASSEMBLY_EVENTS,
    .OnModuleLoaded = probe_OnModuleLoaded,
    .OnModuleUnloaded = clrie_plugin_ignore_module,
    .OnShutdown = clrie_plugin_ignore_shutdown,
    .ShouldInstrumentMethod = probe_ShouldInstrumentMethod,
    .BeforeInstrumentMethod = clrie_plugin_ignore_method,
    .InstrumentMethod = probe_InstrumentMethod,
    .OnInstrumentationComplete = clrie_plugin_ignore_method,
    .AllowInlineSite = clrie_plugin_allow_every_inline,
};

/* ---- IInstrumentationMethodAttach -------------------------------------------------------------
 */

/* Waits for the Detach file, then asks the engine to detach. */
static void watch(void *arg)
{
    struct probe *p = arg;
    enum clrie_os_kind kind;
    while (!p->stop && clrie_os_path_kind(p->detach, &kind) != 0)
        clrie_os_sleep_ms(50);
    if (p->stop)
        return;
    IProfilerManager2 *m2 = NULL;
    HRESULT hr =
        p->manager->lpVtbl->QueryInterface(p->manager, &IID_IProfilerManager2, (void **)&m2);
    if (SUCCEEDED(hr)) {
        hr = m2->lpVtbl->DisableProfiling(m2);
        clrie_plugin_release(m2);
    }
    record(p, "detach hr=0x%08X", (unsigned)hr);
}

static HRESULT STDMETHODCALLTYPE
probe_InitializeForAttach(IInstrumentationMethodAttach *This, IProfilerManager *pProfilerManager,
                          IInstrumentationMethodAttachContext *pContext)
{
    struct probe *p = from_attach(This);
    read_settings(p, pProfilerManager);
    /* The context the engine passes holds the same settings. */
    unsigned count = 0;
    IEnumInstrumentationMethodSettings *settings = NULL;
    if (pContext && SUCCEEDED(pContext->lpVtbl->EnumSettings(pContext, &settings))) {
        IInstrumentationMethodSetting *item = NULL;
        ULONG got = 0;
        while (settings->lpVtbl->Next(settings, 1, &item, &got) == S_OK && got == 1) {
            count++;
            clrie_plugin_release(item);
        }
        clrie_plugin_release(settings);
    }
    record(p, "attach settings=%u", count);
    pProfilerManager->lpVtbl->AddRef(pProfilerManager);
    p->manager = pProfilerManager;
    if (clrie_plugin_setting(pProfilerManager, "Detach", p->detach, sizeof(p->detach)) == 0)
        p->watching = clrie_os_thread_start(&p->watcher, watch, p) == 0;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE probe_AttachComplete(IInstrumentationMethodAttach *This)
{
    record(from_attach(This), "attachcomplete");
    return S_OK;
}

static const struct IInstrumentationMethodAttachVtbl attach_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(probe_attach),
    .InitializeForAttach = probe_InitializeForAttach,
    .AttachComplete = probe_AttachComplete,
};

static HRESULT create_instance(const CLSID *clsid, REFIID riid, void **out)
{
    (void)clsid;
    struct probe *p = calloc(1, sizeof *p);
    if (!p)
        return E_OUTOFMEMORY;
    p->iface.lpVtbl = &method_vtbl;
    p->attach.lpVtbl = &attach_vtbl;
    p->fd = -1;
    clrie_plugin_com_init(&p->com, &probe_class);
    return clrie_plugin_com_give(&p->com, riid, out);
}

CLRIE_PLUGIN_EXPORT_CLASS_FACTORY(create_instance)
