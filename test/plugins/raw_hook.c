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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clrie/abi/corprof.h"
#include "clrie/os/fs.h"
#include "clrie/plugin.h"

#include "hook_common.h"

/* ASCII-only narrowing is enough for assembly and module names in a test log. */
static void narrow(const WCHAR *text, ULONG len, char *out, size_t size)
{
    size_t n = 0;
    for (ULONG i = 0; i < len && text[i] && n + 1 < size; i++)
        out[n++] = text[i] >= 0x20 && text[i] < 0x7F ? (char)text[i] : '?';
    out[n] = '\0';
}

static void write_line(struct test_hook *hook, const char *event, const char *detail)
{
    clrie_plugin_append_line(hook->fd, "raw %s%s%s", event, detail ? " " : "",
                             detail ? detail : "");
}

/* ---- the slots that do something --------------------------------------------------------- */

static HRESULT STDMETHODCALLTYPE hook_Initialize(ICorProfilerCallback11 *This,
                                                 IUnknown *pICorProfilerInfoUnk)
{
    struct test_hook *hook = test_hook_from_iface(This);
    test_hook_open_file(hook, "CLRIE_RAW_HOOK_FILE");
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

static HRESULT STDMETHODCALLTYPE hook_Shutdown(ICorProfilerCallback11 *This)
{
    write_line(test_hook_from_iface(This), "Shutdown", NULL);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE hook_AppDomainCreationFinished(ICorProfilerCallback11 *This,
                                                                AppDomainID appDomainId,
                                                                HRESULT hrStatus)
{
    write_line(test_hook_from_iface(This), "AppDomainCreationFinished", NULL);
    return S_OK;
}

static void write_assembly_line(struct test_hook *hook, const char *event, AssemblyID assemblyId)
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

static HRESULT STDMETHODCALLTYPE hook_AssemblyLoadFinished(ICorProfilerCallback11 *This,
                                                           AssemblyID assemblyId, HRESULT hrStatus)
{
    write_assembly_line(test_hook_from_iface(This), "AssemblyLoadFinished", assemblyId);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE hook_AssemblyUnloadStarted(ICorProfilerCallback11 *This,
                                                            AssemblyID assemblyId)
{
    write_assembly_line(test_hook_from_iface(This), "AssemblyUnloadStarted", assemblyId);
    return S_OK;
}

static void write_module_line(struct test_hook *hook, const char *event, ModuleID moduleId)
{
    char name[512] = "?";
    WCHAR wide[512];
    ULONG len = 0;
    LPCBYTE base = NULL;
    AssemblyID assembly = 0;
    if (hook->info && SUCCEEDED(hook->info->lpVtbl->GetModuleInfo(hook->info, moduleId, &base, 512,
                                                                  &len, wide, &assembly))) {
        narrow(wide, len, name, sizeof name);
        const char *file = clrie_os_path_name(name);
        if (*file)
            memmove(name, file, strlen(file) + 1);
    }
    write_line(hook, event, name);
}

static HRESULT STDMETHODCALLTYPE hook_ModuleLoadFinished(ICorProfilerCallback11 *This,
                                                         ModuleID moduleId, HRESULT hrStatus)
{
    write_module_line(test_hook_from_iface(This), "ModuleLoadFinished", moduleId);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE hook_ModuleUnloadStarted(ICorProfilerCallback11 *This,
                                                          ModuleID moduleId)
{
    write_module_line(test_hook_from_iface(This), "ModuleUnloadStarted", moduleId);
    return S_OK;
}

/* Events a test checks the hook hears only when its own mask asks for them. */
#define RECORD(name, params)                                                                       \
    static HRESULT STDMETHODCALLTYPE record_##name params                                          \
    {                                                                                              \
        write_line(test_hook_from_iface(This), #name, NULL);                                       \
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
static const struct ICorProfilerCallback11Vtbl hook_vtbl = {
    TEST_HOOK_SLOTS,
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
    return test_hook_create(sizeof(struct test_hook), &hook_vtbl, riid, out);
}

CLRIE_PLUGIN_EXPORT_CLASS_FACTORY(create_hook)
