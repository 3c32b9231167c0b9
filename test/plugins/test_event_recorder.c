/* The event-recorder plugin driven as an engine would drive it, through its exported
 * DllGetClassObject only, with a fake profiler manager, ICorProfilerInfo and info objects:
 * two class IDs make two independent instances, each records its events to the shared file
 * under its own tag, asks for the event mask its configuration says, fails Initialize when
 * told to or when no output file is set, and returns every reference and string it took.
 *
 * Argument: the built plugin (.so). */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "clrie/abi/corprof.h"
#include "clrie/abi/instrumentation.h"
#include "clrie/abi/metadata.h"
#include "clrie/os/thread.h"

typedef LPFNGETCLASSOBJECT get_class_object_fn;
typedef LPFNCANUNLOADNOW can_unload_fn;

static const char *plugin_path;
static void *plugin;
static get_class_object_fn get_class_object;
static can_unload_fn can_unload_now;
static char output_path[64];

static const CLSID clsid_a = {0xA1A1A1A1, 0x0000, 0x4000, {0x80, 0, 0, 0, 0, 0, 0, 0x01}};
static const CLSID clsid_b = {0xB2B2B2B2, 0x0000, 0x4000, {0x80, 0, 0, 0, 0, 0, 0, 0x02}};

/* References the plugin holds on fake objects (AddRef - Release) and engine strings it was
 * given but has not freed: both must be 0 once the plugin's instances are gone. */
static atomic_int fake_refs;
static atomic_int strings_out;
static _Thread_local BSTR last_string; /* the latest string handed out on this thread */

/* ---- engine strings ------------------------------------------------------------------------ */

static BSTR bstr_from_ascii(const char *text)
{
    size_t n = strlen(text);
    char *block = malloc(4 + (n + 1) * sizeof(WCHAR));
    assert_non_null(block);
    uint32_t bytes = (uint32_t)(n * sizeof(WCHAR));
    memcpy(block, &bytes, 4);
    WCHAR *s = (WCHAR *)(void *)(block + 4);
    for (size_t i = 0; i <= n; i++)
        s[i] = (WCHAR)(unsigned char)text[i];
    atomic_fetch_add(&strings_out, 1);
    last_string = s;
    return s;
}

/* ---- the fake manager and what it hands out ----------------------------------------------- */

struct fake_manager {
    IProfilerManager manager;
    IProfilerStringManager strings;
    IProfilerManagerLogging logging;
    ICorProfilerInfo info;
    IMetaDataImport import;
    bool has_string_manager;
    int mask_calls;
    DWORD mask;
    char last_error[1024];
    char last_message[1024];
};

static ULONG fake_add_ref(void)
{
    return (ULONG)(atomic_fetch_add(&fake_refs, 1) + 1);
}

static ULONG fake_release(void)
{
    int left = atomic_fetch_sub(&fake_refs, 1) - 1;
    assert_true(left >= 0);
    return (ULONG)left;
}

#define MANAGER_OF(ptr, member) CLRIE_CONTAINER_OF(ptr, struct fake_manager, member)

/* The plugin only asks for IProfilerManager and IProfilerStringManager of the manager. */
static HRESULT STDMETHODCALLTYPE manager_QueryInterface(IProfilerManager *This, REFIID riid,
                                                        void **out)
{
    struct fake_manager *fm = MANAGER_OF(This, manager);
    *out = NULL;
    if (IsEqualIID(riid, &IID_IUnknown) || IsEqualIID(riid, &IID_IProfilerManager))
        *out = &fm->manager;
    else if (IsEqualIID(riid, &IID_IProfilerStringManager) && fm->has_string_manager)
        *out = &fm->strings;
    else
        return E_NOINTERFACE;
    fake_add_ref();
    return S_OK;
}

static ULONG STDMETHODCALLTYPE manager_AddRef(IProfilerManager *This)
{
    return fake_add_ref();
}

static ULONG STDMETHODCALLTYPE manager_Release(IProfilerManager *This)
{
    return fake_release();
}

static HRESULT STDMETHODCALLTYPE manager_GetCorProfilerInfo(IProfilerManager *This,
                                                            IUnknown **ppCorProfiler)
{
    *ppCorProfiler = (IUnknown *)&MANAGER_OF(This, manager)->info;
    fake_add_ref();
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE manager_GetLoggingInstance(IProfilerManager *This,
                                                            IProfilerManagerLogging **out)
{
    *out = &MANAGER_OF(This, manager)->logging;
    fake_add_ref();
    return S_OK;
}

#define MANAGER_STUB(ret, name, params, args)                                                      \
    static ret STDMETHODCALLTYPE manager_stub_##name params                                        \
    {                                                                                              \
        return (ret)E_NOTIMPL;                                                                     \
    }
#define MANAGER_INIT(ret, name, params, args) .name = manager_stub_##name,
CLRIE_IPROFILERMANAGER_METHODS(MANAGER_STUB, IProfilerManager *This, This)

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
// clang-format off
static const struct IProfilerManagerVtbl manager_vtbl = {
    CLRIE_IPROFILERMANAGER_METHODS(MANAGER_INIT, IProfilerManager *This, This)
    .QueryInterface = manager_QueryInterface,
    .AddRef = manager_AddRef,
    .Release = manager_Release,
    .GetCorProfilerInfo = manager_GetCorProfilerInfo,
    .GetLoggingInstance = manager_GetLoggingInstance,
};
// clang-format on
#pragma GCC diagnostic pop

static HRESULT STDMETHODCALLTYPE strings_QueryInterface(IProfilerStringManager *This, REFIID riid,
                                                        void **out)
{
    return E_NOINTERFACE;
}

static ULONG STDMETHODCALLTYPE strings_AddRef(IProfilerStringManager *This)
{
    return fake_add_ref();
}

static ULONG STDMETHODCALLTYPE strings_Release(IProfilerStringManager *This)
{
    return fake_release();
}

static HRESULT STDMETHODCALLTYPE strings_FreeString(IProfilerStringManager *This, BSTR bstr)
{
    if (bstr) {
        free((char *)bstr - 4);
        atomic_fetch_sub(&strings_out, 1);
    }
    return S_OK;
}

static const struct IProfilerStringManagerVtbl strings_vtbl = {
    .QueryInterface = strings_QueryInterface,
    .AddRef = strings_AddRef,
    .Release = strings_Release,
    .FreeString = strings_FreeString,
};

static void narrow(const WCHAR *text, char *out, size_t size)
{
    size_t n = 0;
    for (; text[n] && n + 1 < size; n++)
        out[n] = (char)text[n];
    out[n] = '\0';
}

static HRESULT STDMETHODCALLTYPE logging_QueryInterface(IProfilerManagerLogging *This, REFIID riid,
                                                        void **out)
{
    return E_NOINTERFACE;
}

static ULONG STDMETHODCALLTYPE logging_AddRef(IProfilerManagerLogging *This)
{
    return fake_add_ref();
}

static ULONG STDMETHODCALLTYPE logging_Release(IProfilerManagerLogging *This)
{
    return fake_release();
}

static HRESULT STDMETHODCALLTYPE logging_LogMessage(IProfilerManagerLogging *This,
                                                    const WCHAR *text)
{
    struct fake_manager *fm = MANAGER_OF(This, logging);
    narrow(text, fm->last_message, sizeof fm->last_message);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE logging_LogError(IProfilerManagerLogging *This, const WCHAR *text)
{
    struct fake_manager *fm = MANAGER_OF(This, logging);
    narrow(text, fm->last_error, sizeof fm->last_error);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE logging_LogDumpMessage(IProfilerManagerLogging *This,
                                                        const WCHAR *text)
{
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE
logging_EnableDiagnosticLogToDebugPort(IProfilerManagerLogging *This, BOOL enable)
{
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE logging_GetLoggingFlags(IProfilerManagerLogging *This,
                                                         LoggingFlags *flags)
{
    *flags = LoggingFlags_Errors | LoggingFlags_Trace;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE logging_SetLoggingFlags(IProfilerManagerLogging *This,
                                                         LoggingFlags flags)
{
    return S_OK;
}

static const struct IProfilerManagerLoggingVtbl logging_vtbl = {
    .QueryInterface = logging_QueryInterface,
    .AddRef = logging_AddRef,
    .Release = logging_Release,
    .LogMessage = logging_LogMessage,
    .LogError = logging_LogError,
    .LogDumpMessage = logging_LogDumpMessage,
    .EnableDiagnosticLogToDebugPort = logging_EnableDiagnosticLogToDebugPort,
    .GetLoggingFlags = logging_GetLoggingFlags,
    .SetLoggingFlags = logging_SetLoggingFlags,
};

/* ICorProfilerInfo: the event mask, and the object -> class -> type name path. */
#define THROWN_OBJECT ((ObjectID)0x1234)
#define THROWN_CLASS ((ClassID)0x5678)
#define THROWN_MODULE ((ModuleID)0x9ABC)
#define THROWN_TYPEDEF ((mdTypeDef)0x02000005)

static HRESULT STDMETHODCALLTYPE info_QueryInterface(ICorProfilerInfo *This, REFIID riid,
                                                     void **out)
{
    *out = NULL;
    if (!IsEqualIID(riid, &IID_IUnknown) && !IsEqualIID(riid, &IID_ICorProfilerInfo))
        return E_NOINTERFACE;
    *out = This;
    fake_add_ref();
    return S_OK;
}

static ULONG STDMETHODCALLTYPE info_AddRef(ICorProfilerInfo *This)
{
    return fake_add_ref();
}

static ULONG STDMETHODCALLTYPE info_Release(ICorProfilerInfo *This)
{
    return fake_release();
}

static HRESULT STDMETHODCALLTYPE info_SetEventMask(ICorProfilerInfo *This, DWORD mask)
{
    struct fake_manager *fm = MANAGER_OF(This, info);
    fm->mask_calls++;
    fm->mask = mask;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE info_GetClassFromObject(ICorProfilerInfo *This, ObjectID object,
                                                         ClassID *klass)
{
    if (object != THROWN_OBJECT)
        return E_INVALIDARG;
    *klass = THROWN_CLASS;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE info_GetClassIDInfo(ICorProfilerInfo *This, ClassID klass,
                                                     ModuleID *module, mdTypeDef *type)
{
    if (klass != THROWN_CLASS)
        return E_INVALIDARG;
    *module = THROWN_MODULE;
    *type = THROWN_TYPEDEF;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE info_GetModuleMetaData(ICorProfilerInfo *This, ModuleID module,
                                                        DWORD flags, REFIID riid, IUnknown **out)
{
    *out = NULL;
    if (module != THROWN_MODULE || !IsEqualIID(riid, &IID_IMetaDataImport))
        return E_INVALIDARG;
    *out = (IUnknown *)&MANAGER_OF(This, info)->import;
    fake_add_ref();
    return S_OK;
}

#define INFO_STUB(ret, name, params, args)                                                         \
    static ret STDMETHODCALLTYPE info_stub_##name params                                           \
    {                                                                                              \
        return (ret)E_NOTIMPL;                                                                     \
    }
#define INFO_INIT(ret, name, params, args) .name = info_stub_##name,
CLRIE_ICORPROFILERINFO_METHODS(INFO_STUB, ICorProfilerInfo *This, This)

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
// clang-format off
static const struct ICorProfilerInfoVtbl info_vtbl = {
    CLRIE_ICORPROFILERINFO_METHODS(INFO_INIT, ICorProfilerInfo *This, This)
    .QueryInterface = info_QueryInterface,
    .AddRef = info_AddRef,
    .Release = info_Release,
    .SetEventMask = info_SetEventMask,
    .GetClassFromObject = info_GetClassFromObject,
    .GetClassIDInfo = info_GetClassIDInfo,
    .GetModuleMetaData = info_GetModuleMetaData,
};
// clang-format on
#pragma GCC diagnostic pop

static HRESULT STDMETHODCALLTYPE import_QueryInterface(IMetaDataImport *This, REFIID riid,
                                                       void **out)
{
    return E_NOINTERFACE;
}

static ULONG STDMETHODCALLTYPE import_AddRef(IMetaDataImport *This)
{
    return fake_add_ref();
}

static ULONG STDMETHODCALLTYPE import_Release(IMetaDataImport *This)
{
    return fake_release();
}

static HRESULT STDMETHODCALLTYPE import_GetTypeDefProps(IMetaDataImport *This, mdTypeDef td,
                                                        LPWSTR name, ULONG cch, ULONG *pch,
                                                        DWORD *flags, mdToken *extends)
{
    static const char type_name[] = "System.InvalidOperationException";
    if (td != THROWN_TYPEDEF)
        return E_INVALIDARG;
    ULONG n = (ULONG)sizeof type_name; /* with the 0, as the runtime counts */
    if (pch)
        *pch = n;
    if (name) {
        for (ULONG i = 0; i < n && i < cch; i++)
            name[i] = (WCHAR)type_name[i];
    }
    if (flags)
        *flags = 0x00100001;
    if (extends)
        *extends = 0x01000001;
    return S_OK;
}

/* Only these slots of the metadata import are ever called; the rest stay NULL. */
static const struct IMetaDataImportVtbl import_vtbl = {
    .QueryInterface = import_QueryInterface,
    .AddRef = import_AddRef,
    .Release = import_Release,
    .GetTypeDefProps = import_GetTypeDefProps,
};

static void fake_manager_init(struct fake_manager *fm, bool has_string_manager)
{
    memset(fm, 0, sizeof *fm);
    fm->manager.lpVtbl = &manager_vtbl;
    fm->strings.lpVtbl = &strings_vtbl;
    fm->logging.lpVtbl = &logging_vtbl;
    fm->info.lpVtbl = &info_vtbl;
    fm->import.lpVtbl = &import_vtbl;
    fm->has_string_manager = has_string_manager;
}

/* ---- info objects with names ------------------------------------------------------------- */

struct fake_named {
    union {
        IAppDomainInfo domain;
        IAssemblyInfo assembly;
        IModuleInfo module;
        IMethodInfo method;
    } u;
    const char *name;
};

#define NAMED_OF(ptr) ((struct fake_named *)(void *)(ptr))

#define DOMAIN_STUB(ret, name, params, args)                                                       \
    static ret STDMETHODCALLTYPE domain_stub_##name params                                         \
    {                                                                                              \
        return (ret)E_NOTIMPL;                                                                     \
    }
#define ASSEMBLY_STUB(ret, name, params, args)                                                     \
    static ret STDMETHODCALLTYPE assembly_stub_##name params                                       \
    {                                                                                              \
        return (ret)E_NOTIMPL;                                                                     \
    }
#define MODULE_STUB(ret, name, params, args)                                                       \
    static ret STDMETHODCALLTYPE module_stub_##name params                                         \
    {                                                                                              \
        return (ret)E_NOTIMPL;                                                                     \
    }
#define METHOD_STUB(ret, name, params, args)                                                       \
    static ret STDMETHODCALLTYPE method_stub_##name params                                         \
    {                                                                                              \
        return (ret)E_NOTIMPL;                                                                     \
    }
CLRIE_IAPPDOMAININFO_METHODS(DOMAIN_STUB, IAppDomainInfo *This, This)
CLRIE_IASSEMBLYINFO_METHODS(ASSEMBLY_STUB, IAssemblyInfo *This, This)
CLRIE_IMODULEINFO_METHODS(MODULE_STUB, IModuleInfo *This, This)
CLRIE_IMETHODINFO_METHODS(METHOD_STUB, IMethodInfo *This, This)

static HRESULT STDMETHODCALLTYPE domain_GetName(IAppDomainInfo *This, BSTR *out)
{
    *out = bstr_from_ascii(NAMED_OF(This)->name);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE assembly_GetName(IAssemblyInfo *This, BSTR *out)
{
    *out = bstr_from_ascii(NAMED_OF(This)->name);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE module_GetModuleName(IModuleInfo *This, BSTR *out)
{
    *out = bstr_from_ascii(NAMED_OF(This)->name);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE method_GetFullName(IMethodInfo *This, BSTR *out)
{
    *out = bstr_from_ascii(NAMED_OF(This)->name);
    return S_OK;
}

#define DOMAIN_INIT(ret, name, params, args) .name = domain_stub_##name,
#define ASSEMBLY_INIT(ret, name, params, args) .name = assembly_stub_##name,
#define MODULE_INIT(ret, name, params, args) .name = module_stub_##name,
#define METHOD_INIT(ret, name, params, args) .name = method_stub_##name,
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
// clang-format off
static const struct IAppDomainInfoVtbl domain_vtbl = {
    CLRIE_IAPPDOMAININFO_METHODS(DOMAIN_INIT, IAppDomainInfo *This, This)
    .GetName = domain_GetName,
};
static const struct IAssemblyInfoVtbl assembly_vtbl = {
    CLRIE_IASSEMBLYINFO_METHODS(ASSEMBLY_INIT, IAssemblyInfo *This, This)
    .GetName = assembly_GetName,
};
static const struct IModuleInfoVtbl module_vtbl = {
    CLRIE_IMODULEINFO_METHODS(MODULE_INIT, IModuleInfo *This, This)
    .GetModuleName = module_GetModuleName,
};
static const struct IMethodInfoVtbl method_vtbl = {
    CLRIE_IMETHODINFO_METHODS(METHOD_INIT, IMethodInfo *This, This)
    .GetFullName = method_GetFullName,
};
// clang-format on
#pragma GCC diagnostic pop

static struct fake_named domain = {.u.domain = {&domain_vtbl}, .name = "clrhost"};
static struct fake_named corelib = {.u.assembly = {&assembly_vtbl},
                                    .name = "System.Private.CoreLib"};
static struct fake_named corelib_module = {.u.module = {&module_vtbl},
                                           .name = "System.Private.CoreLib.dll"};
static struct fake_named catcher = {.u.method = {&method_vtbl}, .name = "Program.Main"};

/* ---- helpers ------------------------------------------------------------------------------ */

static char *read_output(void)
{
    FILE *f = fopen(output_path, "r");
    if (!f)
        return calloc(1, 1);
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    return strdup(text);
}

static IInstrumentationMethod *create(const CLSID *clsid)
{
    IClassFactory *factory = NULL;
    assert_int_equal(get_class_object(clsid, &IID_IClassFactory, (void **)&factory), S_OK);
    assert_non_null(factory);
    IInstrumentationMethod *method = NULL;
    assert_int_equal(factory->lpVtbl->CreateInstance(factory, NULL, &IID_IInstrumentationMethod,
                                                     (void **)&method),
                     S_OK);
    assert_non_null(method);
    assert_int_equal(factory->lpVtbl->Release(factory), 0);
    return method;
}

static void clear_environment(void)
{
    unsetenv("CLRIE_EVENT_RECORDER_FILE");
    const char *ids[] = {"A1A1A1A1", "B2B2B2B2"};
    const char *names[] = {"TAG", "EXCEPTIONS", "FAIL_INITIALIZE", "FILE"};
    char var[96];
    for (size_t i = 0; i < 2; i++) {
        for (size_t j = 0; j < 4; j++) {
            snprintf(var, sizeof var, "CLRIE_EVENT_RECORDER_%s_%s", ids[i], names[j]);
            unsetenv(var);
        }
    }
}

static int setup(void **state)
{
    clear_environment();
    strcpy(output_path, "/tmp/clrie-recorder-XXXXXX");
    int fd = mkstemp(output_path);
    assert_true(fd >= 0);
    close(fd);
    unlink(output_path); /* the plugin creates it */
    atomic_store(&fake_refs, 0);
    atomic_store(&strings_out, 0);
    return 0;
}

static int teardown(void **state)
{
    unlink(output_path);
    clear_environment();
    return 0;
}

/* ---- tests -------------------------------------------------------------------------------- */

static void two_class_ids_are_two_instances_recording_under_their_tags(void **state)
{
    setenv("CLRIE_EVENT_RECORDER_FILE", output_path, 1);
    setenv("CLRIE_EVENT_RECORDER_A1A1A1A1_TAG", "A", 1);
    setenv("CLRIE_EVENT_RECORDER_B2B2B2B2_TAG", "B", 1);
    setenv("CLRIE_EVENT_RECORDER_A1A1A1A1_EXCEPTIONS", "1", 1);

    struct fake_manager ma, mb;
    fake_manager_init(&ma, true);
    fake_manager_init(&mb, true);
    IInstrumentationMethod *a = create(&clsid_a);
    IInstrumentationMethod *b = create(&clsid_b);
    assert_int_equal(can_unload_now(), S_FALSE);

    assert_int_equal(a->lpVtbl->Initialize(a, &ma.manager), S_OK);
    assert_int_equal(b->lpVtbl->Initialize(b, &mb.manager), S_OK);
    assert_int_equal(ma.mask_calls, 1);
    assert_int_equal(ma.mask, COR_PRF_MONITOR_APPDOMAIN_LOADS | COR_PRF_MONITOR_ASSEMBLY_LOADS |
                                  COR_PRF_MONITOR_MODULE_LOADS | COR_PRF_MONITOR_EXCEPTIONS);
    assert_int_equal(mb.mask_calls, 1);
    assert_int_equal(mb.mask, COR_PRF_MONITOR_APPDOMAIN_LOADS | COR_PRF_MONITOR_ASSEMBLY_LOADS |
                                  COR_PRF_MONITOR_MODULE_LOADS);
    assert_int_equal(a->lpVtbl->Initialize(a, &ma.manager), E_UNEXPECTED);

    IInstrumentationMethod *both[] = {b, a};
    for (int i = 0; i < 2; i++) {
        IInstrumentationMethod *m = both[i];
        assert_int_equal(m->lpVtbl->OnAppDomainCreated(m, &domain.u.domain), S_OK);
        assert_int_equal(m->lpVtbl->OnAssemblyLoaded(m, &corelib.u.assembly), S_OK);
        assert_int_equal(m->lpVtbl->OnModuleLoaded(m, &corelib_module.u.module), S_OK);
    }
    for (int i = 0; i < 2; i++) {
        IInstrumentationMethod *m = both[i];
        assert_int_equal(m->lpVtbl->OnModuleUnloaded(m, &corelib_module.u.module), S_OK);
        assert_int_equal(m->lpVtbl->OnAssemblyUnloaded(m, &corelib.u.assembly), S_OK);
        assert_int_equal(m->lpVtbl->OnAppDomainShutdown(m, &domain.u.domain), S_OK);
        assert_int_equal(m->lpVtbl->OnShutdown(m), S_OK);
    }

    char *text = read_output();
    assert_string_equal(text, "B OnAppDomainCreated clrhost\n"
                              "B OnAssemblyLoaded System.Private.CoreLib\n"
                              "B OnModuleLoaded System.Private.CoreLib.dll\n"
                              "A OnAppDomainCreated clrhost\n"
                              "A OnAssemblyLoaded System.Private.CoreLib\n"
                              "A OnModuleLoaded System.Private.CoreLib.dll\n"
                              "B OnModuleUnloaded System.Private.CoreLib.dll\n"
                              "B OnAssemblyUnloaded System.Private.CoreLib\n"
                              "B OnAppDomainShutdown clrhost\n"
                              "B OnShutdown\n"
                              "A OnModuleUnloaded System.Private.CoreLib.dll\n"
                              "A OnAssemblyUnloaded System.Private.CoreLib\n"
                              "A OnAppDomainShutdown clrhost\n"
                              "A OnShutdown\n");
    free(text);
    assert_int_equal(atomic_load(&strings_out), 0);
    assert_non_null(strstr(ma.last_message, "recording to"));

    assert_int_equal(a->lpVtbl->Release(a), 0);
    assert_int_equal(b->lpVtbl->Release(b), 0);
    assert_int_equal(atomic_load(&fake_refs), 0);
    assert_int_equal(can_unload_now(), S_OK);
}

static void the_default_tag_is_the_braced_class_id(void **state)
{
    setenv("CLRIE_EVENT_RECORDER_FILE", output_path, 1);
    struct fake_manager fm;
    fake_manager_init(&fm, true);
    IInstrumentationMethod *b = create(&clsid_b);
    assert_int_equal(b->lpVtbl->Initialize(b, &fm.manager), S_OK);
    assert_int_equal(b->lpVtbl->OnShutdown(b), S_OK);
    char *text = read_output();
    assert_string_equal(text, "{B2B2B2B2-0000-4000-8000-000000000002} OnShutdown\n");
    free(text);
    assert_int_equal(b->lpVtbl->Release(b), 0);
    assert_int_equal(atomic_load(&fake_refs), 0);
}

static void exceptions_are_recorded_with_the_thrown_class(void **state)
{
    setenv("CLRIE_EVENT_RECORDER_FILE", output_path, 1);
    setenv("CLRIE_EVENT_RECORDER_A1A1A1A1_TAG", "A", 1);
    setenv("CLRIE_EVENT_RECORDER_A1A1A1A1_EXCEPTIONS", "true", 1);
    struct fake_manager fm;
    fake_manager_init(&fm, true);
    IInstrumentationMethod *a = create(&clsid_a);
    assert_int_equal(a->lpVtbl->Initialize(a, &fm.manager), S_OK);
    assert_true(fm.mask & COR_PRF_MONITOR_EXCEPTIONS);

    IInstrumentationMethodExceptionEvents *ex = NULL;
    assert_int_equal(
        a->lpVtbl->QueryInterface(a, &IID_IInstrumentationMethodExceptionEvents, (void **)&ex),
        S_OK);
    assert_non_null(ex);
    assert_int_equal(ex->lpVtbl->ExceptionThrown(ex, THROWN_OBJECT), S_OK);
    assert_int_equal(ex->lpVtbl->ExceptionSearchFunctionEnter(ex, &catcher.u.method), S_OK);
    assert_int_equal(ex->lpVtbl->ExceptionSearchCatcherFound(ex, &catcher.u.method), S_OK);
    assert_int_equal(ex->lpVtbl->ExceptionCatcherEnter(ex, &catcher.u.method, THROWN_OBJECT), S_OK);
    assert_int_equal(ex->lpVtbl->ExceptionCatcherLeave(ex), S_OK);
    assert_int_equal(ex->lpVtbl->ExceptionThrown(ex, (UINT_PTR)0x1), S_OK); /* unknown object */

    char *text = read_output();
    assert_string_equal(text, "A ExceptionThrown System.InvalidOperationException\n"
                              "A ExceptionCatcherEnter Program.Main\n"
                              "A ExceptionThrown ?\n");
    free(text);
    assert_int_equal(atomic_load(&strings_out), 0);

    /* the metadata import was released again; only the instance's own references remain */
    assert_int_equal(ex->lpVtbl->Release(ex), 1);
    assert_int_equal(a->lpVtbl->Release(a), 0);
    assert_int_equal(atomic_load(&fake_refs), 0);
}

static void fail_initialize_switch_fails_with_a_logged_reason(void **state)
{
    setenv("CLRIE_EVENT_RECORDER_FILE", output_path, 1);
    setenv("CLRIE_EVENT_RECORDER_B2B2B2B2_FAIL_INITIALIZE", "1", 1);
    struct fake_manager fa, fb;
    fake_manager_init(&fa, true);
    fake_manager_init(&fb, true);
    IInstrumentationMethod *a = create(&clsid_a);
    IInstrumentationMethod *b = create(&clsid_b);
    assert_int_equal(b->lpVtbl->Initialize(b, &fb.manager), E_FAIL);
    assert_non_null(strstr(fb.last_error, "FAIL_INITIALIZE"));
    assert_int_equal(fb.mask_calls, 0);
    /* the other instance is not affected */
    assert_int_equal(a->lpVtbl->Initialize(a, &fa.manager), S_OK);
    assert_string_equal(fa.last_error, "");
    /* a failed instance records nothing, even if an engine sent it events */
    assert_int_equal(b->lpVtbl->OnShutdown(b), S_OK);
    char *text = read_output();
    assert_string_equal(text, "");
    free(text);
    assert_int_equal(b->lpVtbl->Release(b), 0);
    assert_int_equal(a->lpVtbl->Release(a), 0);
    assert_int_equal(atomic_load(&fake_refs), 0);
}

static void without_an_output_file_initialize_fails_and_says_why(void **state)
{
    struct fake_manager fm;
    fake_manager_init(&fm, true);
    IInstrumentationMethod *a = create(&clsid_a);
    assert_int_equal(a->lpVtbl->Initialize(a, &fm.manager), E_FAIL);
    assert_non_null(strstr(fm.last_error, "CLRIE_EVENT_RECORDER_FILE"));
    assert_int_equal(a->lpVtbl->Release(a), 0);
    assert_int_equal(atomic_load(&fake_refs), 0);

    /* an output file that cannot be opened is a failure too */
    setenv("CLRIE_EVENT_RECORDER_FILE", "/nonexistent-dir/out.txt", 1);
    fake_manager_init(&fm, true);
    a = create(&clsid_a);
    assert_int_equal(a->lpVtbl->Initialize(a, &fm.manager), E_FAIL);
    assert_non_null(strstr(fm.last_error, "/nonexistent-dir/out.txt"));
    assert_int_equal(a->lpVtbl->Release(a), 0);
    assert_int_equal(atomic_load(&fake_refs), 0);
}

static void a_per_instance_file_overrides_the_shared_one(void **state)
{
    char own[80];
    snprintf(own, sizeof own, "%s.own", output_path);
    setenv("CLRIE_EVENT_RECORDER_FILE", output_path, 1);
    setenv("CLRIE_EVENT_RECORDER_A1A1A1A1_FILE", own, 1);
    setenv("CLRIE_EVENT_RECORDER_A1A1A1A1_TAG", "A", 1);
    struct fake_manager fm;
    fake_manager_init(&fm, true);
    IInstrumentationMethod *a = create(&clsid_a);
    assert_int_equal(a->lpVtbl->Initialize(a, &fm.manager), S_OK);
    assert_int_equal(a->lpVtbl->OnShutdown(a), S_OK);
    assert_int_equal(a->lpVtbl->Release(a), 0);
    char *text = read_output();
    assert_string_equal(text, "");
    free(text);
    FILE *f = fopen(own, "r");
    assert_non_null(f);
    char line[64] = "";
    assert_non_null(fgets(line, sizeof line, f));
    fclose(f);
    unlink(own);
    assert_string_equal(line, "A OnShutdown\n");
}

static void bad_arguments_are_refused_not_crashed_on(void **state)
{
    void *out = (void *)&out;
    assert_int_equal(get_class_object(&clsid_a, &IID_IClassFactory, NULL), E_POINTER);
    assert_int_equal(get_class_object(NULL, &IID_IClassFactory, &out), E_INVALIDARG);
    assert_null(out);
    out = (void *)&out;
    assert_int_equal(get_class_object(&clsid_a, &IID_IInstrumentationMethod, &out), E_NOINTERFACE);
    assert_null(out);

    IClassFactory *factory = NULL;
    assert_int_equal(get_class_object(&clsid_a, &IID_IClassFactory, (void **)&factory), S_OK);
    IUnknown outer = {NULL};
    out = (void *)&out;
    assert_int_equal(factory->lpVtbl->CreateInstance(factory, &outer, &IID_IUnknown, &out),
                     CLASS_E_NOAGGREGATION);
    assert_null(out);
    assert_int_equal(factory->lpVtbl->CreateInstance(factory, NULL, &IID_IUnknown, NULL),
                     E_POINTER);
    assert_int_equal(factory->lpVtbl->CreateInstance(factory, NULL, &IID_IClassFactory, &out),
                     E_NOINTERFACE);
    assert_null(out);
    assert_int_equal(factory->lpVtbl->Release(factory), 0);
    assert_int_equal(can_unload_now(), S_OK);

    IInstrumentationMethod *a = create(&clsid_a);
    assert_int_equal(a->lpVtbl->QueryInterface(a, &IID_IInstrumentationMethod, NULL), E_POINTER);
    assert_int_equal(a->lpVtbl->QueryInterface(a, &IID_IProfilerManager, &out), E_NOINTERFACE);
    assert_int_equal(a->lpVtbl->Initialize(a, NULL), E_POINTER);
    assert_int_equal(a->lpVtbl->OnAppDomainCreated(a, NULL), E_POINTER);
    assert_int_equal(a->lpVtbl->OnAssemblyLoaded(a, NULL), E_POINTER);
    assert_int_equal(a->lpVtbl->OnModuleLoaded(a, NULL), E_POINTER);
    assert_int_equal(a->lpVtbl->OnModuleUnloaded(a, NULL), E_POINTER);
    BOOL flag = TRUE;
    assert_int_equal(a->lpVtbl->ShouldInstrumentMethod(a, &catcher.u.method, FALSE, &flag), S_OK);
    assert_false(flag);
    assert_int_equal(a->lpVtbl->ShouldInstrumentMethod(a, &catcher.u.method, FALSE, NULL),
                     E_POINTER);
    flag = FALSE;
    assert_int_equal(a->lpVtbl->AllowInlineSite(a, &catcher.u.method, &catcher.u.method, &flag),
                     S_OK);
    assert_true(flag);
    assert_int_equal(a->lpVtbl->BeforeInstrumentMethod(a, &catcher.u.method, TRUE), S_OK);
    assert_int_equal(a->lpVtbl->InstrumentMethod(a, &catcher.u.method, TRUE), S_OK);
    assert_int_equal(a->lpVtbl->OnInstrumentationComplete(a, &catcher.u.method, TRUE), S_OK);
    /* events before Initialize record nothing and do not crash */
    assert_int_equal(a->lpVtbl->OnShutdown(a), S_OK);
    IInstrumentationMethodExceptionEvents *ex = NULL;
    assert_int_equal(
        a->lpVtbl->QueryInterface(a, &IID_IInstrumentationMethodExceptionEvents, (void **)&ex),
        S_OK);
    assert_int_equal(ex->lpVtbl->ExceptionThrown(ex, THROWN_OBJECT), S_OK);
    assert_int_equal(ex->lpVtbl->ExceptionCatcherEnter(ex, NULL, 0), S_OK);
    assert_int_equal(ex->lpVtbl->Release(ex), 1);
    assert_int_equal(a->lpVtbl->Release(a), 0);
    assert_int_equal(atomic_load(&fake_refs), 0);
    assert_int_equal(can_unload_now(), S_OK);
}

static void without_a_string_manager_nothing_is_misfreed(void **state)
{
    setenv("CLRIE_EVENT_RECORDER_FILE", output_path, 1);
    setenv("CLRIE_EVENT_RECORDER_A1A1A1A1_TAG", "A", 1);
    struct fake_manager fm;
    fake_manager_init(&fm, false);
    IInstrumentationMethod *a = create(&clsid_a);
    assert_int_equal(a->lpVtbl->Initialize(a, &fm.manager), S_OK);
    assert_int_equal(a->lpVtbl->OnAssemblyLoaded(a, &corelib.u.assembly), S_OK);
    char *text = read_output();
    assert_string_equal(text, "A OnAssemblyLoaded System.Private.CoreLib\n");
    free(text);
    assert_int_equal(a->lpVtbl->Release(a), 0);
    assert_int_equal(atomic_load(&fake_refs), 0);
    /* the string could not be given back (no engine loaded here): it is left, not freed wrongly */
    assert_int_equal(atomic_load(&strings_out), 1);
    free((char *)last_string - 4);
}

#define WRITER_LINES 2000

static void write_events(void *arg)
{
    IInstrumentationMethod *m = arg;
    for (int i = 0; i < WRITER_LINES; i++)
        m->lpVtbl->OnModuleLoaded(m, &corelib_module.u.module);
}

static void lines_of_concurrent_instances_never_interleave(void **state)
{
    setenv("CLRIE_EVENT_RECORDER_FILE", output_path, 1);
    setenv("CLRIE_EVENT_RECORDER_A1A1A1A1_TAG", "A", 1);
    setenv("CLRIE_EVENT_RECORDER_B2B2B2B2_TAG", "B", 1);
    struct fake_manager ma, mb;
    fake_manager_init(&ma, true);
    fake_manager_init(&mb, true);
    IInstrumentationMethod *a = create(&clsid_a);
    IInstrumentationMethod *b = create(&clsid_b);
    assert_int_equal(a->lpVtbl->Initialize(a, &ma.manager), S_OK);
    assert_int_equal(b->lpVtbl->Initialize(b, &mb.manager), S_OK);
    struct clrie_os_thread threads[4];
    IInstrumentationMethod *who[4] = {a, b, a, b};
    for (int i = 0; i < 4; i++)
        assert_int_equal(clrie_os_thread_start(&threads[i], write_events, who[i]), 0);
    for (int i = 0; i < 4; i++)
        clrie_os_thread_join(&threads[i]);

    char *text = read_output();
    int counts[2] = {0, 0};
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (strcmp(line, "A OnModuleLoaded System.Private.CoreLib.dll") == 0)
            counts[0]++;
        else if (strcmp(line, "B OnModuleLoaded System.Private.CoreLib.dll") == 0)
            counts[1]++;
        else
            fail_msg("broken line: '%s'", line);
    }
    free(text);
    assert_int_equal(counts[0], 2 * WRITER_LINES);
    assert_int_equal(counts[1], 2 * WRITER_LINES);
    assert_int_equal(a->lpVtbl->Release(a), 0);
    assert_int_equal(b->lpVtbl->Release(b), 0);
    assert_int_equal(atomic_load(&strings_out), 0);
    assert_int_equal(atomic_load(&fake_refs), 0);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s PLUGIN.so\n", argv[0]);
        return 2;
    }
    plugin_path = argv[1];
    plugin = dlopen(plugin_path, RTLD_NOW | RTLD_LOCAL);
    if (!plugin) {
        fprintf(stderr, "cannot load %s: %s\n", plugin_path, dlerror());
        return 1;
    }
    void *sym = dlsym(plugin, "DllGetClassObject");
    memcpy(&get_class_object, &sym, sizeof sym);
    sym = dlsym(plugin, "DllCanUnloadNow");
    memcpy(&can_unload_now, &sym, sizeof sym);
    if (!get_class_object || !can_unload_now) {
        fprintf(stderr, "%s lacks the COM exports\n", plugin_path);
        return 1;
    }

    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(two_class_ids_are_two_instances_recording_under_their_tags,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(the_default_tag_is_the_braced_class_id, setup, teardown),
        cmocka_unit_test_setup_teardown(exceptions_are_recorded_with_the_thrown_class, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(fail_initialize_switch_fails_with_a_logged_reason, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(without_an_output_file_initialize_fails_and_says_why, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_per_instance_file_overrides_the_shared_one, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(bad_arguments_are_refused_not_crashed_on, setup, teardown),
        cmocka_unit_test_setup_teardown(without_a_string_manager_nothing_is_misfreed, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(lines_of_concurrent_instances_never_interleave, setup,
                                        teardown),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    dlclose(plugin);
    return failed;
}
