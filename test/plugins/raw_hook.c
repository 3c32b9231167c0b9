/* A minimal ordinary CoreCLR profiler, for tests of the engine's "raw profiler hook"
 * (MicrosoftInstrumentationEngine_RawProfilerHook / ..._RawProfilerHookPath_64): every
 * ICorProfilerCallback11 slot answers S_OK, and a few append a line to the file named by
 * CLRIE_RAW_HOOK_FILE (nothing is written when it is unset):
 *
 *   raw Initialize
 *   raw AppDomainCreationFinished
 *   raw AssemblyLoadFinished <assembly name>
 *   raw ModuleLoadFinished <module file name>
 *   raw ModuleUnloadStarted <module file name>
 *   raw AssemblyUnloadStarted <assembly name>
 *   raw Shutdown
 *
 * Each line is one write() on an O_APPEND descriptor. The same module also works as the
 * process's only profiler (CORECLR_PROFILER_PATH), which lets the tests check it without
 * the engine. DllGetClassObject accepts any class ID. */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clrie/abi/corprof.h"

#define EXPORT __attribute__((visibility("default")))

struct hook {
    ICorProfilerCallback11 iface;
    atomic_ulong refs;
    int fd;
    ICorProfilerInfo *info;
};

static struct hook *from_iface(ICorProfilerCallback11 *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct hook, iface);
}

/* ASCII-only narrowing is enough for assembly and module names in a test log. */
static void narrow(const WCHAR *text, ULONG len, char *out, size_t size)
{
    size_t n = 0;
    for (ULONG i = 0; i < len && text[i] && n + 1 < size; i++)
        out[n++] = text[i] >= 0x20 && text[i] < 0x7F ? (char)text[i] : '?';
    out[n] = '\0';
}

static void write_line(struct hook *hook, const char *event, const char *detail)
{
    if (hook->fd < 0)
        return;
    char line[1024];
    int len = detail ? snprintf(line, sizeof line, "raw %s %s\n", event, detail)
                     : snprintf(line, sizeof line, "raw %s\n", event);
    if (len < 0)
        return;
    if ((size_t)len >= sizeof line) {
        len = (int)sizeof line - 1;
        line[len - 1] = '\n';
    }
    ssize_t written;
    do
        written = write(hook->fd, line, (size_t)len);
    while (written < 0 && errno == EINTR);
}

/* ---- every slot: S_OK -------------------------------------------------------------------- */

#define STUB(ret, name, params, args)                                                              \
    static ret stub_##name params                                                                  \
    {                                                                                              \
        (void)This;                                                                                \
        return (ret)S_OK;                                                                          \
    }
CLRIE_ICORPROFILERCALLBACK11_METHODS(STUB, ICorProfilerCallback11 *This, This)

/* ---- the slots that do something --------------------------------------------------------- */

static HRESULT hook_QueryInterface(ICorProfilerCallback11 *This, REFIID riid, void **out)
{
    static const IID *const known[] = {
        &IID_IUnknown,
        &IID_ICorProfilerCallback,
        &IID_ICorProfilerCallback2,
        &IID_ICorProfilerCallback3,
        &IID_ICorProfilerCallback4,
        &IID_ICorProfilerCallback5,
        &IID_ICorProfilerCallback6,
        &IID_ICorProfilerCallback7,
        &IID_ICorProfilerCallback8,
        &IID_ICorProfilerCallback9,
        &IID_ICorProfilerCallback10,
        &IID_ICorProfilerCallback11,
    };
    if (!out)
        return E_POINTER;
    *out = NULL;
    if (!riid)
        return E_INVALIDARG;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        if (IsEqualIID(riid, known[i])) {
            atomic_fetch_add(&from_iface(This)->refs, 1);
            *out = This;
            return S_OK;
        }
    }
    return E_NOINTERFACE;
}

static ULONG hook_AddRef(ICorProfilerCallback11 *This)
{
    return (ULONG)(atomic_fetch_add(&from_iface(This)->refs, 1) + 1);
}

static ULONG hook_Release(ICorProfilerCallback11 *This)
{
    struct hook *hook = from_iface(This);
    unsigned long left = atomic_fetch_sub(&hook->refs, 1) - 1;
    if (left == 0) {
        if (hook->fd >= 0)
            close(hook->fd);
        if (hook->info)
            hook->info->lpVtbl->Release(hook->info);
        free(hook);
    }
    return (ULONG)left;
}

static HRESULT hook_Initialize(ICorProfilerCallback11 *This, IUnknown *pICorProfilerInfoUnk)
{
    struct hook *hook = from_iface(This);
    const char *path = getenv("CLRIE_RAW_HOOK_FILE");
    if (path && *path && hook->fd < 0)
        hook->fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    write_line(hook, "Initialize", NULL);
    if (pICorProfilerInfoUnk && !hook->info &&
        SUCCEEDED(pICorProfilerInfoUnk->lpVtbl->QueryInterface(
            pICorProfilerInfoUnk, &IID_ICorProfilerInfo, (void **)&hook->info)) &&
        hook->info) {
        HRESULT hr = hook->info->lpVtbl->SetEventMask(
            hook->info, COR_PRF_MONITOR_APPDOMAIN_LOADS | COR_PRF_MONITOR_ASSEMBLY_LOADS |
                            COR_PRF_MONITOR_MODULE_LOADS);
        if (FAILED(hr)) {
            char detail[32];
            snprintf(detail, sizeof detail, "SetEventMask 0x%08X", (unsigned)hr);
            write_line(hook, "failed", detail);
        }
    }
    return S_OK;
}

static HRESULT hook_Shutdown(ICorProfilerCallback11 *This)
{
    write_line(from_iface(This), "Shutdown", NULL);
    return S_OK;
}

static HRESULT hook_AppDomainCreationFinished(ICorProfilerCallback11 *This, AppDomainID appDomainId,
                                              HRESULT hrStatus)
{
    write_line(from_iface(This), "AppDomainCreationFinished", NULL);
    return S_OK;
}

static void write_assembly_line(struct hook *hook, const char *event, AssemblyID assemblyId)
{
    char name[256] = "?";
    WCHAR wide[256];
    ULONG len = 0;
    AppDomainID domain = 0;
    ModuleID module = 0;
    if (hook->info && SUCCEEDED(hook->info->lpVtbl->GetAssemblyInfo(hook->info, assemblyId, 256,
                                                                    &len, wide, &domain, &module)))
        narrow(wide, len, name, sizeof name);
    write_line(hook, event, name);
}

static HRESULT hook_AssemblyLoadFinished(ICorProfilerCallback11 *This, AssemblyID assemblyId,
                                         HRESULT hrStatus)
{
    write_assembly_line(from_iface(This), "AssemblyLoadFinished", assemblyId);
    return S_OK;
}

static HRESULT hook_AssemblyUnloadStarted(ICorProfilerCallback11 *This, AssemblyID assemblyId)
{
    write_assembly_line(from_iface(This), "AssemblyUnloadStarted", assemblyId);
    return S_OK;
}

static void write_module_line(struct hook *hook, const char *event, ModuleID moduleId)
{
    char name[512] = "?";
    WCHAR wide[512];
    ULONG len = 0;
    LPCBYTE base = NULL;
    AssemblyID assembly = 0;
    if (hook->info && SUCCEEDED(hook->info->lpVtbl->GetModuleInfo(hook->info, moduleId, &base, 512,
                                                                  &len, wide, &assembly))) {
        narrow(wide, len, name, sizeof name);
        char *slash = strrchr(name, '/');
        if (slash && slash[1])
            memmove(name, slash + 1, strlen(slash + 1) + 1);
    }
    write_line(hook, event, name);
}

static HRESULT hook_ModuleLoadFinished(ICorProfilerCallback11 *This, ModuleID moduleId,
                                       HRESULT hrStatus)
{
    write_module_line(from_iface(This), "ModuleLoadFinished", moduleId);
    return S_OK;
}

static HRESULT hook_ModuleUnloadStarted(ICorProfilerCallback11 *This, ModuleID moduleId)
{
    write_module_line(from_iface(This), "ModuleUnloadStarted", moduleId);
    return S_OK;
}

/* The generated S_OK slots, then the ones above in their place. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
// clang-format off
#define INIT_STUB(ret, name, params, args) .name = stub_##name,
static const struct ICorProfilerCallback11Vtbl hook_vtbl = {
    CLRIE_ICORPROFILERCALLBACK11_METHODS(INIT_STUB, ICorProfilerCallback11 *This, This)
    .QueryInterface = hook_QueryInterface,
    .AddRef = hook_AddRef,
    .Release = hook_Release,
    .Initialize = hook_Initialize,
    .Shutdown = hook_Shutdown,
    .AppDomainCreationFinished = hook_AppDomainCreationFinished,
    .AssemblyLoadFinished = hook_AssemblyLoadFinished,
    .ModuleLoadFinished = hook_ModuleLoadFinished,
    .ModuleUnloadStarted = hook_ModuleUnloadStarted,
    .AssemblyUnloadStarted = hook_AssemblyUnloadStarted,
};
// clang-format on
#pragma GCC diagnostic pop

/* ---- class factory: any class ID, one new hook per CreateInstance ------------------------- */

static HRESULT cf_QueryInterface(IClassFactory *This, REFIID riid, void **out)
{
    if (!out)
        return E_POINTER;
    *out = NULL;
    if (!riid || (!IsEqualIID(riid, &IID_IUnknown) && !IsEqualIID(riid, &IID_IClassFactory)))
        return E_NOINTERFACE;
    *out = This;
    return S_OK;
}

/* The factory is a static object: its count is not tracked. */
static ULONG cf_AddRef(IClassFactory *This)
{
    return 1;
}

static ULONG cf_Release(IClassFactory *This)
{
    return 1;
}

static HRESULT cf_CreateInstance(IClassFactory *This, IUnknown *pUnkOuter, REFIID riid,
                                 void **ppvObject)
{
    if (!ppvObject)
        return E_POINTER;
    *ppvObject = NULL;
    if (pUnkOuter)
        return CLASS_E_NOAGGREGATION;
    struct hook *hook = calloc(1, sizeof *hook);
    if (!hook)
        return E_OUTOFMEMORY;
    hook->iface.lpVtbl = &hook_vtbl;
    atomic_init(&hook->refs, 1);
    hook->fd = -1;
    HRESULT hr = hook_QueryInterface(&hook->iface, riid, ppvObject);
    hook_Release(&hook->iface);
    return hr;
}

static HRESULT cf_LockServer(IClassFactory *This, BOOL fLock)
{
    return S_OK;
}

static const struct IClassFactoryVtbl factory_vtbl = {
    .QueryInterface = cf_QueryInterface,
    .AddRef = cf_AddRef,
    .Release = cf_Release,
    .CreateInstance = cf_CreateInstance,
    .LockServer = cf_LockServer,
};
static IClassFactory factory = {&factory_vtbl};

EXPORT HRESULT DllGetClassObject(REFCLSID rclsid, REFIID riid, void **ppv);
EXPORT HRESULT DllCanUnloadNow(void);

HRESULT DllGetClassObject(REFCLSID rclsid, REFIID riid, void **ppv)
{
    if (!ppv)
        return E_POINTER;
    *ppv = NULL;
    if (!rclsid)
        return E_INVALIDARG;
    return cf_QueryInterface(&factory, riid, ppv);
}

HRESULT DllCanUnloadNow(void)
{
    return S_FALSE; /* a profiler stays loaded for the life of the process */
}
