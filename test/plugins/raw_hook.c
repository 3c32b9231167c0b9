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
 *   raw JITCompilationStarted
 *   raw ExceptionThrown
 *   raw ThreadCreated
 *   raw ClassLoadFinished
 *   raw Shutdown
 *
 * In Initialize it sets its event mask to CLRIE_RAW_HOOK_MASK (hexadecimal; app domain,
 * assembly and module loads when unset), reads it back and writes "raw GetEventMask 0x<mask>".
 *
 * Each line is one write() on an O_APPEND descriptor. The same module also works as the
 * process's only profiler (CORECLR_PROFILER_PATH), which lets the tests check it without
 * the engine. DllGetClassObject accepts any class ID (libclrie-plugin's class factory). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clrie/abi/corprof.h"
#include "clrie/plugin.h"

struct hook {
    ICorProfilerCallback11 iface;
    struct clrie_plugin_com com;
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
    clrie_plugin_append_line(hook->fd, "raw %s%s%s", event, detail ? " " : "", detail ? detail : "");
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

static void hook_destroy(void *object)
{
    struct hook *hook = object;
    if (hook->fd >= 0)
        close(hook->fd);
    clrie_plugin_release(hook->info);
    free(hook);
}

static const struct clrie_plugin_com_iface hook_ifaces[] = {
    CLRIE_PLUGIN_COM_PROFILER_CALLBACK_IFACES(struct hook, iface),
};

static const struct clrie_plugin_com_class hook_class = {
    .name = "raw-hook",
    .ifaces = hook_ifaces,
    .iface_count = CLRIE_PLUGIN_COM_COUNT(hook_ifaces),
    .com_offset = offsetof(struct hook, com),
    .destroy = hook_destroy,
    .module_ref = true,
};

CLRIE_PLUGIN_COM_IUNKNOWN(hook, ICorProfilerCallback11, struct hook, iface, com)

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
        DWORD mask = COR_PRF_MONITOR_APPDOMAIN_LOADS | COR_PRF_MONITOR_ASSEMBLY_LOADS |
                     COR_PRF_MONITOR_MODULE_LOADS;
        const char *asked = getenv("CLRIE_RAW_HOOK_MASK");
        if (asked && *asked)
            mask = (DWORD)strtoul(asked, NULL, 16);
        HRESULT hr = hook->info->lpVtbl->SetEventMask(hook->info, mask);
        char detail[32];
        if (FAILED(hr)) {
            snprintf(detail, sizeof detail, "SetEventMask 0x%08X", (unsigned)hr);
            write_line(hook, "failed", detail);
        }
        DWORD seen = 0;
        if (SUCCEEDED(hook->info->lpVtbl->GetEventMask(hook->info, &seen))) {
            snprintf(detail, sizeof detail, "0x%08X", (unsigned)seen);
            write_line(hook, "GetEventMask", detail);
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

/* Events a test checks the hook hears only when its own mask asks for them. */
#define RECORD(name, params)                                                                       \
    static HRESULT record_##name params                                                            \
    {                                                                                              \
        write_line(from_iface(This), #name, NULL);                                                 \
        return S_OK;                                                                               \
    }
RECORD(JITCompilationStarted, (ICorProfilerCallback11 * This, FunctionID f, BOOL safe))
RECORD(ExceptionThrown, (ICorProfilerCallback11 * This, ObjectID thrown))
RECORD(ThreadCreated, (ICorProfilerCallback11 * This, ThreadID thread))
RECORD(ClassLoadFinished, (ICorProfilerCallback11 * This, ClassID c, HRESULT status))

/* The generated S_OK slots, then the ones above in their place. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
// clang-format off
#define INIT_STUB(ret, name, params, args) .name = stub_##name,
static const struct ICorProfilerCallback11Vtbl hook_vtbl = {
    CLRIE_ICORPROFILERCALLBACK11_METHODS(INIT_STUB, ICorProfilerCallback11 *This, This)
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(hook),
    .Initialize = hook_Initialize,
    .Shutdown = hook_Shutdown,
    .AppDomainCreationFinished = hook_AppDomainCreationFinished,
    .AssemblyLoadFinished = hook_AssemblyLoadFinished,
    .ModuleLoadFinished = hook_ModuleLoadFinished,
    .ModuleUnloadStarted = hook_ModuleUnloadStarted,
    .AssemblyUnloadStarted = hook_AssemblyUnloadStarted,
    .JITCompilationStarted = record_JITCompilationStarted,
    .ExceptionThrown = record_ExceptionThrown,
    .ThreadCreated = record_ThreadCreated,
    .ClassLoadFinished = record_ClassLoadFinished,
};
// clang-format on
#pragma GCC diagnostic pop

/* ---- DllGetClassObject: any class ID, one new hook per CreateInstance --------------------- */

static HRESULT create_hook(const CLSID *clsid, REFIID riid, void **out)
{
    (void)clsid;
    struct hook *hook = calloc(1, sizeof *hook);
    if (!hook)
        return E_OUTOFMEMORY;
    hook->iface.lpVtbl = &hook_vtbl;
    hook->fd = -1;
    clrie_plugin_com_init(&hook->com, &hook_class);
    return clrie_plugin_com_give(&hook->com, riid, out);
}

CLRIE_PLUGIN_EXPORT_CLASS_FACTORY(create_hook)
