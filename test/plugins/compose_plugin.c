/* The plugin half of the raw-hook composition test (test/dotnet/test_hook_compose.py, app
 * test/dotnet/compose; the hook half is rewriting_hook.c). Through the engine's IL graph it
 * adds M to what `Program.Value` returns (`ldc.i4 M; add` before each `ret`):
 *
 *   first JIT   M = 10
 *   ReJIT       M = 10 * (rejit count + 1)
 *
 * and when `Program.RejitByPlugin` is instrumented, a thread of its own asks the engine to
 * rejit Value (IModuleInfo::RequestRejit); when `Program.RevertByPlugin` is, to revert it
 * (ICorProfilerInfo4::RequestRevert through the info the engine gives the plugin). Lines,
 * appended to CLRIE_COMPOSE_PLUGIN_FILE:
 *
 * With CLRIE_COMPOSE_PLUGIN_CODEGEN=<hex> it also sets those code-gen flags on Value at every
 * ReJIT (IMethodInfo::SetRejitCodeGenFlags).
 *
 *   edited Value rejit=<count> with +<M>
 *   requested rejit hr=0x<hr>
 *   requested revert hr=0x<hr> status=0x<hr>
 */
#define _GNU_SOURCE /* usleep */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <clrie/os/thread.h>
#include <clrie/plugin.h>

#include "plugin_edits.h"

struct compose {
    IInstrumentationMethod method;
    struct clrie_plugin_com com;
    struct clrie_plugin_host host;
    ICorProfilerInfo4 *info;
    int fd;
    struct clrie_os_mutex lock;
    IModuleInfo *value_module; /* Value's, once instrumented */
    mdMethodDef value_token;
};

static struct compose *of(IInstrumentationMethod *This)
{
    return CLRIE_CONTAINER_OF(This, struct compose, method);
}

static HRESULT STDMETHODCALLTYPE compose_Initialize(IInstrumentationMethod *This,
                                                    IProfilerManager *manager)
{
    struct compose *p = of(This);
    clrie_plugin_host_init(&p->host, manager, "compose");
    IUnknown *unknown = NULL;
    if (SUCCEEDED(manager->lpVtbl->GetCorProfilerInfo(manager, &unknown)) && unknown) {
        if (FAILED(unknown->lpVtbl->QueryInterface(unknown, &IID_ICorProfilerInfo4,
                                                   (void **)&p->info)))
            p->info = NULL;
        unknown->lpVtbl->Release(unknown);
    }
    const char *path = getenv("CLRIE_COMPOSE_PLUGIN_FILE");
    if (path && *path)
        p->fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    return S_OK;
}

static void name_of(struct compose *p, IMethodInfo *mi, char *name, size_t size)
{
    if (FAILED(clrie_plugin_method_full_name(mi, p->host.strings, name, size)))
        name[0] = '\0';
}

static HRESULT STDMETHODCALLTYPE compose_ShouldInstrumentMethod(IInstrumentationMethod *This,
                                                                IMethodInfo *mi, BOOL isRejit,
                                                                BOOL *pbInstrument)
{
    char name[256];
    name_of(of(This), mi, name, sizeof name);
    *pbInstrument = !strcmp(name, "Program.Value") || !strcmp(name, "Program.RejitByPlugin") ||
                    !strcmp(name, "Program.RevertByPlugin");
    return S_OK;
}

struct request {
    struct compose *p;
    IModuleInfo *module;
    mdMethodDef token;
    bool revert;
};

static void request_rejit(void *arg)
{
    struct request *r = arg;
    usleep(50 * 1000);
    if (r->revert) {
        ModuleID module_id = 0;
        HRESULT status = E_FAIL;
        HRESULT hr = r->module->lpVtbl->GetModuleID(r->module, &module_id);
        if (SUCCEEDED(hr))
            hr = r->p->info ? r->p->info->lpVtbl->RequestRevert(r->p->info, 1, &module_id,
                                                                &r->token, &status)
                            : E_NOINTERFACE;
        clrie_plugin_append_line(r->p->fd, "requested revert hr=0x%08X status=0x%08X", (unsigned)hr,
                                 (unsigned)status);
    } else {
        HRESULT hr = r->module->lpVtbl->RequestRejit(r->module, r->token);
        clrie_plugin_append_line(r->p->fd, "requested rejit hr=0x%08X", (unsigned)hr);
    }
    clrie_plugin_release(r->module);
    clrie_plugin_com_release(&r->p->com);
    free(r);
}

static HRESULT STDMETHODCALLTYPE compose_InstrumentMethod(IInstrumentationMethod *This,
                                                          IMethodInfo *mi, BOOL isRejit)
{
    struct compose *p = of(This);
    char name[256];
    name_of(p, mi, name, sizeof name);
    IModuleInfo *module = NULL;
    mdMethodDef token = 0;
    if (FAILED(mi->lpVtbl->GetModuleInfo(mi, &module)) ||
        FAILED(mi->lpVtbl->GetMethodToken(mi, &token)))
        return E_FAIL;
    HRESULT hr = S_OK;
    if (!strcmp(name, "Program.Value")) {
        DWORD count = 0;
        mi->lpVtbl->GetRejitCount(mi, &count);
        int32_t add = 10 * (int32_t)(isRejit ? count + 1 : 1);
        hr = test_plugin_add_before_rets(mi, add);
        const char *codegen = getenv("CLRIE_COMPOSE_PLUGIN_CODEGEN");
        if (SUCCEEDED(hr) && isRejit && codegen && *codegen)
            hr = mi->lpVtbl->SetRejitCodeGenFlags(mi, (DWORD)strtoul(codegen, NULL, 16));
        clrie_plugin_append_line(p->fd, "edited Value rejit=%u with +%d hr=0x%08X", (unsigned)count,
                                 add, (unsigned)hr);
        clrie_os_mutex_lock(&p->lock);
        if (!p->value_module) {
            module->lpVtbl->AddRef(module);
            p->value_module = module;
            p->value_token = token;
        }
        clrie_os_mutex_unlock(&p->lock);
    } else {
        clrie_os_mutex_lock(&p->lock);
        struct request *r = p->value_module ? malloc(sizeof *r) : NULL;
        if (r) {
            p->value_module->lpVtbl->AddRef(p->value_module);
            clrie_plugin_com_add_ref(&p->com);
            *r = (struct request){p, p->value_module, p->value_token,
                                  !strcmp(name, "Program.RevertByPlugin")};
            if (clrie_os_thread_start_detached(request_rejit, r) != 0)
                request_rejit(r);
        }
        clrie_os_mutex_unlock(&p->lock);
    }
    clrie_plugin_release(module);
    return hr;
}

CLRIE_PLUGIN_COM_IUNKNOWN(compose, IInstrumentationMethod, struct compose, method, com)

static const struct IInstrumentationMethodVtbl compose_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(compose),
    .Initialize = compose_Initialize,
    CLRIE_PLUGIN_IGNORE_DOMAIN_AND_ASSEMBLY_EVENTS,
    .OnModuleLoaded = clrie_plugin_ignore_module,
    .OnModuleUnloaded = clrie_plugin_ignore_module,
    .OnShutdown = clrie_plugin_ignore_shutdown,
    .ShouldInstrumentMethod = compose_ShouldInstrumentMethod,
    .BeforeInstrumentMethod = clrie_plugin_ignore_method,
    .InstrumentMethod = compose_InstrumentMethod,
    .OnInstrumentationComplete = clrie_plugin_ignore_method,
    .AllowInlineSite = clrie_plugin_allow_every_inline,
};

static void compose_destroy(void *object)
{
    struct compose *p = object;
    clrie_plugin_release(p->value_module);
    clrie_plugin_release(p->info);
    clrie_plugin_host_finish(&p->host);
    if (p->fd >= 0)
        close(p->fd);
    clrie_os_mutex_finish(&p->lock);
    free(p);
}

static const struct clrie_plugin_com_iface compose_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethod, struct compose, method),
};

static const struct clrie_plugin_com_class compose_class = {
    .name = "compose",
    .ifaces = compose_ifaces,
    .iface_count = CLRIE_PLUGIN_COM_COUNT(compose_ifaces),
    .com_offset = offsetof(struct compose, com),
    .destroy = compose_destroy,
    .module_ref = true,
};

static HRESULT compose_create(const CLSID *clsid, REFIID riid, void **out)
{
    (void)clsid;
    struct compose *p = calloc(1, sizeof *p);
    if (!p)
        return E_OUTOFMEMORY;
    p->method.lpVtbl = &compose_vtbl;
    p->fd = -1;
    clrie_os_mutex_init(&p->lock);
    clrie_plugin_com_init(&p->com, &compose_class);
    return clrie_plugin_com_give(&p->com, riid, out);
}

CLRIE_PLUGIN_EXPORT_CLASS_FACTORY(compose_create)
