/* event-recorder: a CLR Instrumentation Engine plugin ("instrumentation method") that writes
 * one line per runtime event to a file. It is an example of a real consumer of clrie's
 * installed ABI headers, and the plugin the engine's end-to-end tests load.
 *
 * Configuration (environment; DATA1 is the first 8 hex digits of the instance's class ID,
 * upper case, e.g. 5D3B0E11 for {5D3B0E11-...}):
 *
 *   CLRIE_EVENT_RECORDER_FILE=/path          the output file, shared by every instance
 *                                            (required: without it Initialize logs an error
 *                                            and fails with E_FAIL)
 *   CLRIE_EVENT_RECORDER_<DATA1>_FILE=/path  this instance's own output file instead
 *   CLRIE_EVENT_RECORDER_<DATA1>_TAG=name    the instance tag starting each line
 *                                            (default: the braced class ID)
 *   CLRIE_EVENT_RECORDER_<DATA1>_EXCEPTIONS=1        also ask for exception events
 *   CLRIE_EVENT_RECORDER_<DATA1>_FAIL_INITIALIZE=1   Initialize fails with E_FAIL (to test
 *                                                    how an engine copes with a bad plugin)
 *
 * Output: one line per event, `<tag> <Event> <name>`, appended with a single write() to a file
 * opened O_APPEND, so several instances (and processes) can share one file without their
 * lines interleaving:
 *
 *   A OnAppDomainCreated clrhost
 *   A OnAssemblyLoaded System.Private.CoreLib
 *   A OnModuleLoaded System.Private.CoreLib.dll
 *   A ExceptionThrown System.InvalidOperationException
 *   A ExceptionCatcherEnter Exceptions.Run
 *   A OnShutdown
 *   A Released        (the instance's last Release: the engine let go of it)
 *
 * The class factory accepts any class ID: the engine's config file names the module and a
 * ClassGuid, and two config entries with different ClassGuids and the same module are two
 * independent instances, each configured by its own DATA1.
 *
 * The plugin never instruments a method and always allows inlining. It records whatever
 * events the engine delivers: exception lines for an instance that did not ask for exceptions
 * mean the engine sent events nobody asked for. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NOLOAD, in clrie/plugin.h */
#endif

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <clrie/abi/corprof.h>
#include <clrie/abi/instrumentation.h>
#include <clrie/abi/metadata.h>
#include <clrie/plugin.h>

#define ENV_PREFIX "CLRIE_EVENT_RECORDER_"
#define LINE_MAX_BYTES 4096 /* one write(); longer names are cut */
#define NAME_MAX_UNITS 1024

struct recorder {
    IInstrumentationMethod method;
    IInstrumentationMethodExceptionEvents exceptions;
    atomic_ulong refs;
    CLSID clsid;
    char data1[9];
    char tag[128];
    int fd; /* -1 until Initialize succeeds */
    bool wants_exceptions;
    ICorProfilerInfo *info;           /* held from Initialize to the last Release */
    IProfilerManagerLogging *logging; /* may be NULL */
    IProfilerStringManager *strings;  /* how engine BSTRs are freed, if the engine has it */
};

/* ---- text helpers ---------------------------------------------------------------------- */

static void format_guid(const GUID *g, char out[39])
{
    snprintf(out, 39, "{%08X-%04X-%04X-%02X%02X-%02X%02X%02X%02X%02X%02X}", (unsigned)g->Data1,
             g->Data2, g->Data3, g->Data4[0], g->Data4[1], g->Data4[2], g->Data4[3], g->Data4[4],
             g->Data4[5], g->Data4[6], g->Data4[7]);
}

/* CLRIE_EVENT_RECORDER_<DATA1>_<name>, or NULL. */
static const char *instance_setting(const struct recorder *rec, const char *name)
{
    char var[96];
    snprintf(var, sizeof var, ENV_PREFIX "%s_%s", rec->data1, name);
    const char *value = getenv(var);
    return value && *value ? value : NULL;
}

static bool is_true(const char *value)
{
    return value && (strcmp(value, "1") == 0 || strcasecmp(value, "true") == 0 ||
                     strcasecmp(value, "yes") == 0 || strcasecmp(value, "on") == 0);
}

/* ---- logging through the engine -------------------------------------------------------- */

static void log_to_engine(struct recorder *rec, bool error, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static void log_to_engine(struct recorder *rec, bool error, const char *format, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, format);
    int len = snprintf(text, sizeof text, "event-recorder %s: ", rec->tag);
    if (len < 0 || (size_t)len >= sizeof text)
        len = 0;
    vsnprintf(text + len, sizeof text - (size_t)len, format, ap);
    va_end(ap);

    if (rec->logging || error) /* without the engine's log, only errors reach stderr */
        clrie_plugin_log(rec->logging, error, text);
}

/* ---- engine strings ---------------------------------------------------------------------- */

/* Converts an engine BSTR to UTF-8 in out and frees it. */
static void take_name(struct recorder *rec, HRESULT hr, BSTR name, char *out, size_t size)
{
    if (SUCCEEDED(hr) && name)
        clrie_plugin_bstr_to_utf8_buf(name, out, size);
    else
        snprintf(out, size, "?");
    clrie_plugin_free_bstr(rec->strings, name); /* else the engine's export */
}

/* ---- output -------------------------------------------------------------------------------- */

/* Appends `<tag> <event>[ <name>]\n` with one write(). */
static void record(struct recorder *rec, const char *event, const char *name)
{
    if (rec->fd < 0)
        return;
    char line[LINE_MAX_BYTES];
    int len = name ? snprintf(line, sizeof line - 1, "%s %s %s", rec->tag, event, name)
                   : snprintf(line, sizeof line - 1, "%s %s", rec->tag, event);
    if (len < 0)
        return;
    if ((size_t)len > sizeof line - 2)
        len = (int)(sizeof line - 2);
    line[len++] = '\n';
    ssize_t written;
    do
        written = write(rec->fd, line, (size_t)len);
    while (written < 0 && errno == EINTR);
}

/* ---- IUnknown of the instance -------------------------------------------------------------- */

static struct recorder *from_method(IInstrumentationMethod *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct recorder, method);
}

static struct recorder *from_exceptions(IInstrumentationMethodExceptionEvents *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct recorder, exceptions);
}

static HRESULT recorder_query(struct recorder *rec, REFIID riid, void **out)
{
    if (!out)
        return E_POINTER;
    *out = NULL;
    if (!riid)
        return E_INVALIDARG;
    if (IsEqualIID(riid, &IID_IUnknown) || IsEqualIID(riid, &IID_IInstrumentationMethod))
        *out = &rec->method;
    else if (IsEqualIID(riid, &IID_IInstrumentationMethodExceptionEvents))
        *out = &rec->exceptions;
    else
        return E_NOINTERFACE;
    atomic_fetch_add(&rec->refs, 1);
    return S_OK;
}

static ULONG recorder_add_ref(struct recorder *rec)
{
    return (ULONG)(atomic_fetch_add(&rec->refs, 1) + 1);
}

static ULONG recorder_release(struct recorder *rec)
{
    unsigned long left = atomic_fetch_sub(&rec->refs, 1) - 1;
    if (left == 0) {
        record(rec, "Released", NULL);
        if (rec->fd >= 0)
            close(rec->fd);
        if (rec->info)
            rec->info->lpVtbl->Release(rec->info);
        if (rec->logging)
            rec->logging->lpVtbl->Release(rec->logging);
        if (rec->strings)
            rec->strings->lpVtbl->Release(rec->strings);
        free(rec);
        clrie_plugin_module_unref();
    }
    return (ULONG)left;
}

static HRESULT im_QueryInterface(IInstrumentationMethod *This, REFIID riid, void **out)
{
    return recorder_query(from_method(This), riid, out);
}

static ULONG im_AddRef(IInstrumentationMethod *This)
{
    return recorder_add_ref(from_method(This));
}

static ULONG im_Release(IInstrumentationMethod *This)
{
    return recorder_release(from_method(This));
}

/* ---- IInstrumentationMethod ------------------------------------------------------------- */

/* Takes what Initialize needs from the manager: logging first (so later failures are
 * reported), then the way to free strings, then ICorProfilerInfo. */
static HRESULT attach_to_manager(struct recorder *rec, IProfilerManager *manager)
{
    if (FAILED(manager->lpVtbl->GetLoggingInstance(manager, &rec->logging)))
        rec->logging = NULL;

    if (FAILED(manager->lpVtbl->QueryInterface(manager, &IID_IProfilerStringManager,
                                               (void **)&rec->strings)))
        rec->strings = NULL;

    IUnknown *unknown = NULL;
    HRESULT hr = manager->lpVtbl->GetCorProfilerInfo(manager, &unknown);
    if (FAILED(hr) || !unknown) {
        log_to_engine(rec, true, "IProfilerManager::GetCorProfilerInfo failed (hr 0x%08X)",
                      (unsigned)hr);
        return FAILED(hr) ? hr : E_FAIL;
    }
    hr = unknown->lpVtbl->QueryInterface(unknown, &IID_ICorProfilerInfo, (void **)&rec->info);
    unknown->lpVtbl->Release(unknown);
    if (FAILED(hr) || !rec->info) {
        rec->info = NULL;
        log_to_engine(rec, true, "no ICorProfilerInfo (hr 0x%08X)", (unsigned)hr);
        return FAILED(hr) ? hr : E_NOINTERFACE;
    }
    return S_OK;
}

static HRESULT im_Initialize(IInstrumentationMethod *This, IProfilerManager *pProfilerManager)
{
    struct recorder *rec = from_method(This);
    if (!pProfilerManager)
        return E_POINTER;
    if (rec->fd >= 0 || rec->info)
        return E_UNEXPECTED; /* initialized already */

    IProfilerManager *manager = NULL;
    HRESULT hr = pProfilerManager->lpVtbl->QueryInterface(pProfilerManager, &IID_IProfilerManager,
                                                          (void **)&manager);
    if (FAILED(hr) || !manager)
        return FAILED(hr) ? hr : E_NOINTERFACE;
    hr = attach_to_manager(rec, manager);
    manager->lpVtbl->Release(manager);
    if (FAILED(hr))
        return hr;

    if (is_true(instance_setting(rec, "FAIL_INITIALIZE"))) {
        log_to_engine(rec, true, "failing Initialize as " ENV_PREFIX "%s_FAIL_INITIALIZE asks",
                      rec->data1);
        return E_FAIL;
    }

    const char *path = instance_setting(rec, "FILE");
    if (!path)
        path = getenv(ENV_PREFIX "FILE");
    if (!path || !*path) {
        log_to_engine(rec, true,
                      "no output file: set " ENV_PREFIX "FILE (or " ENV_PREFIX
                      "%s_FILE for this instance)",
                      rec->data1);
        return E_FAIL;
    }

    rec->wants_exceptions = is_true(instance_setting(rec, "EXCEPTIONS"));
    DWORD mask = COR_PRF_MONITOR_APPDOMAIN_LOADS | COR_PRF_MONITOR_ASSEMBLY_LOADS |
                 COR_PRF_MONITOR_MODULE_LOADS;
    if (rec->wants_exceptions)
        mask |= COR_PRF_MONITOR_EXCEPTIONS;
    hr = rec->info->lpVtbl->SetEventMask(rec->info, mask);
    if (FAILED(hr)) {
        log_to_engine(rec, true, "SetEventMask(0x%08X) failed (hr 0x%08X)", (unsigned)mask,
                      (unsigned)hr);
        return hr;
    }

    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        log_to_engine(rec, true, "cannot open '%s': %s", path, strerror(errno));
        return E_FAIL;
    }
    rec->fd = fd;
    log_to_engine(rec, false, "recording to '%s'%s", path,
                  rec->wants_exceptions ? " with exceptions" : "");
    return S_OK;
}

static HRESULT im_OnAppDomainCreated(IInstrumentationMethod *This, IAppDomainInfo *pAppDomainInfo)
{
    struct recorder *rec = from_method(This);
    if (!pAppDomainInfo)
        return E_POINTER;
    char name[LINE_MAX_BYTES / 2];
    BSTR text = NULL;
    HRESULT hr = pAppDomainInfo->lpVtbl->GetName(pAppDomainInfo, &text);
    take_name(rec, hr, text, name, sizeof name);
    record(rec, "OnAppDomainCreated", name);
    return S_OK;
}

static HRESULT im_OnAppDomainShutdown(IInstrumentationMethod *This, IAppDomainInfo *pAppDomainInfo)
{
    struct recorder *rec = from_method(This);
    if (!pAppDomainInfo)
        return E_POINTER;
    char name[LINE_MAX_BYTES / 2];
    BSTR text = NULL;
    HRESULT hr = pAppDomainInfo->lpVtbl->GetName(pAppDomainInfo, &text);
    take_name(rec, hr, text, name, sizeof name);
    record(rec, "OnAppDomainShutdown", name);
    return S_OK;
}

static void record_assembly(struct recorder *rec, const char *event, IAssemblyInfo *assembly)
{
    char name[LINE_MAX_BYTES / 2];
    BSTR text = NULL;
    HRESULT hr = assembly->lpVtbl->GetName(assembly, &text);
    take_name(rec, hr, text, name, sizeof name);
    record(rec, event, name);
}

static HRESULT im_OnAssemblyLoaded(IInstrumentationMethod *This, IAssemblyInfo *pAssemblyInfo)
{
    if (!pAssemblyInfo)
        return E_POINTER;
    record_assembly(from_method(This), "OnAssemblyLoaded", pAssemblyInfo);
    return S_OK;
}

static HRESULT im_OnAssemblyUnloaded(IInstrumentationMethod *This, IAssemblyInfo *pAssemblyInfo)
{
    if (!pAssemblyInfo)
        return E_POINTER;
    record_assembly(from_method(This), "OnAssemblyUnloaded", pAssemblyInfo);
    return S_OK;
}

static void record_module(struct recorder *rec, const char *event, IModuleInfo *module)
{
    char name[LINE_MAX_BYTES / 2];
    BSTR text = NULL;
    HRESULT hr = module->lpVtbl->GetModuleName(module, &text);
    take_name(rec, hr, text, name, sizeof name);
    record(rec, event, name);
}

static HRESULT im_OnModuleLoaded(IInstrumentationMethod *This, IModuleInfo *pModuleInfo)
{
    if (!pModuleInfo)
        return E_POINTER;
    record_module(from_method(This), "OnModuleLoaded", pModuleInfo);
    return S_OK;
}

static HRESULT im_OnModuleUnloaded(IInstrumentationMethod *This, IModuleInfo *pModuleInfo)
{
    if (!pModuleInfo)
        return E_POINTER;
    record_module(from_method(This), "OnModuleUnloaded", pModuleInfo);
    return S_OK;
}

static HRESULT im_OnShutdown(IInstrumentationMethod *This)
{
    record(from_method(This), "OnShutdown", NULL);
    return S_OK;
}

static HRESULT im_ShouldInstrumentMethod(IInstrumentationMethod *This, IMethodInfo *pMethodInfo,
                                         BOOL isRejit, BOOL *pbInstrument)
{
    (void)This, (void)pMethodInfo, (void)isRejit;
    if (!pbInstrument)
        return E_POINTER;
    *pbInstrument = FALSE;
    return S_OK;
}

static HRESULT im_BeforeInstrumentMethod(IInstrumentationMethod *This, IMethodInfo *pMethodInfo,
                                         BOOL isRejit)
{
    (void)This, (void)pMethodInfo, (void)isRejit;
    return S_OK;
}

static HRESULT im_InstrumentMethod(IInstrumentationMethod *This, IMethodInfo *pMethodInfo,
                                   BOOL isRejit)
{
    (void)This, (void)pMethodInfo, (void)isRejit;
    return S_OK;
}

static HRESULT im_OnInstrumentationComplete(IInstrumentationMethod *This, IMethodInfo *pMethodInfo,
                                            BOOL isRejit)
{
    (void)This, (void)pMethodInfo, (void)isRejit;
    return S_OK;
}

static HRESULT im_AllowInlineSite(IInstrumentationMethod *This, IMethodInfo *pMethodInfoInlinee,
                                  IMethodInfo *pMethodInfoCaller, BOOL *pbAllowInline)
{
    (void)This, (void)pMethodInfoInlinee, (void)pMethodInfoCaller;
    if (!pbAllowInline)
        return E_POINTER;
    *pbAllowInline = TRUE;
    return S_OK;
}

static const struct IInstrumentationMethodVtbl method_vtbl = {
    .QueryInterface = im_QueryInterface,
    .AddRef = im_AddRef,
    .Release = im_Release,
    .Initialize = im_Initialize,
    .OnAppDomainCreated = im_OnAppDomainCreated,
    .OnAppDomainShutdown = im_OnAppDomainShutdown,
    .OnAssemblyLoaded = im_OnAssemblyLoaded,
    .OnAssemblyUnloaded = im_OnAssemblyUnloaded,
    .OnModuleLoaded = im_OnModuleLoaded,
    .OnModuleUnloaded = im_OnModuleUnloaded,
    .OnShutdown = im_OnShutdown,
    .ShouldInstrumentMethod = im_ShouldInstrumentMethod,
    .BeforeInstrumentMethod = im_BeforeInstrumentMethod,
    .InstrumentMethod = im_InstrumentMethod,
    .OnInstrumentationComplete = im_OnInstrumentationComplete,
    .AllowInlineSite = im_AllowInlineSite,
};

/* ---- IInstrumentationMethodExceptionEvents ------------------------------------------------ */

/* The thrown object's class name, through the runtime's metadata: "?" when any step fails
 * (arrays and generic instantiations have no plain TypeDef name here). */
static void exception_class_name(struct recorder *rec, UINT_PTR object, char *out, size_t size)
{
    snprintf(out, size, "?");
    ICorProfilerInfo *info = rec->info;
    ClassID klass = 0;
    ModuleID module = 0;
    mdTypeDef type = mdTokenNil;
    if (!info || !object || FAILED(info->lpVtbl->GetClassFromObject(info, object, &klass)) ||
        FAILED(info->lpVtbl->GetClassIDInfo(info, klass, &module, &type)) || type == mdTokenNil)
        return;
    IUnknown *unknown = NULL;
    if (FAILED(info->lpVtbl->GetModuleMetaData(info, module, 0 /* ofRead */, &IID_IMetaDataImport,
                                               &unknown)) ||
        !unknown)
        return;
    IMetaDataImport *import = (IMetaDataImport *)unknown;
    WCHAR name[NAME_MAX_UNITS];
    ULONG len = 0;
    DWORD flags = 0;
    mdToken extends = mdTokenNil;
    if (SUCCEEDED(import->lpVtbl->GetTypeDefProps(import, type, name, NAME_MAX_UNITS, &len, &flags,
                                                  &extends))) {
        name[NAME_MAX_UNITS - 1] = 0;
        clrie_plugin_bstr_to_utf8_buf(name, out, size);
    }
    import->lpVtbl->Release(import);
}

static HRESULT ex_QueryInterface(IInstrumentationMethodExceptionEvents *This, REFIID riid,
                                 void **out)
{
    return recorder_query(from_exceptions(This), riid, out);
}

static ULONG ex_AddRef(IInstrumentationMethodExceptionEvents *This)
{
    return recorder_add_ref(from_exceptions(This));
}

static ULONG ex_Release(IInstrumentationMethodExceptionEvents *This)
{
    return recorder_release(from_exceptions(This));
}

static HRESULT ex_ExceptionThrown(IInstrumentationMethodExceptionEvents *This,
                                  UINT_PTR thrownObjectId)
{
    struct recorder *rec = from_exceptions(This);
    char name[NAME_MAX_UNITS];
    exception_class_name(rec, thrownObjectId, name, sizeof name);
    record(rec, "ExceptionThrown", name);
    return S_OK;
}

static HRESULT ex_ExceptionCatcherEnter(IInstrumentationMethodExceptionEvents *This,
                                        IMethodInfo *pMethodInfo, UINT_PTR objectId)
{
    (void)objectId;
    struct recorder *rec = from_exceptions(This);
    char name[LINE_MAX_BYTES / 2] = "?";
    if (pMethodInfo) {
        BSTR text = NULL;
        HRESULT hr = pMethodInfo->lpVtbl->GetFullName(pMethodInfo, &text);
        take_name(rec, hr, text, name, sizeof name);
    }
    record(rec, "ExceptionCatcherEnter", name);
    return S_OK;
}

static HRESULT ex_ExceptionCatcherLeave(IInstrumentationMethodExceptionEvents *This)
{
    (void)This;
    return S_OK;
}

static HRESULT ex_with_method(IInstrumentationMethodExceptionEvents *This, IMethodInfo *pMethodInfo)
{
    (void)This, (void)pMethodInfo;
    return S_OK;
}

static HRESULT ex_without_method(IInstrumentationMethodExceptionEvents *This)
{
    (void)This;
    return S_OK;
}

static const struct IInstrumentationMethodExceptionEventsVtbl exceptions_vtbl = {
    .QueryInterface = ex_QueryInterface,
    .AddRef = ex_AddRef,
    .Release = ex_Release,
    .ExceptionCatcherEnter = ex_ExceptionCatcherEnter,
    .ExceptionCatcherLeave = ex_ExceptionCatcherLeave,
    .ExceptionSearchCatcherFound = ex_with_method,
    .ExceptionSearchFilterEnter = ex_with_method,
    .ExceptionSearchFilterLeave = ex_without_method,
    .ExceptionSearchFunctionEnter = ex_with_method,
    .ExceptionSearchFunctionLeave = ex_without_method,
    .ExceptionThrown = ex_ExceptionThrown,
    .ExceptionUnwindFinallyEnter = ex_with_method,
    .ExceptionUnwindFinallyLeave = ex_without_method,
    .ExceptionUnwindFunctionEnter = ex_with_method,
    .ExceptionUnwindFunctionLeave = ex_without_method,
};

static struct recorder *recorder_new(const CLSID *clsid)
{
    struct recorder *rec = calloc(1, sizeof *rec);
    if (!rec)
        return NULL;
    rec->method.lpVtbl = &method_vtbl;
    rec->exceptions.lpVtbl = &exceptions_vtbl;
    atomic_init(&rec->refs, 1);
    rec->clsid = *clsid;
    rec->fd = -1;
    snprintf(rec->data1, sizeof rec->data1, "%08X", (unsigned)clsid->Data1);
    const char *tag = instance_setting(rec, "TAG");
    if (tag) {
        snprintf(rec->tag, sizeof rec->tag, "%s", tag);
        for (char *c = rec->tag; *c; c++) /* a tag is one word */
            if (isspace((unsigned char)*c))
                *c = '_';
    } else {
        format_guid(clsid, rec->tag);
    }
    clrie_plugin_module_ref();
    return rec;
}

/* ---- the class factory and exports ---------------------------------------------------- */

/* Any class ID: the instance made by this factory is configured by that ID's DATA1. */
static HRESULT create_instance(const CLSID *clsid, REFIID riid, void **out)
{
    struct recorder *rec = recorder_new(clsid);
    if (!rec)
        return E_OUTOFMEMORY;
    HRESULT hr = recorder_query(rec, riid, out);
    recorder_release(rec);
    return hr;
}

CLRIE_PLUGIN_EXPORT_CLASS_FACTORY(create_instance)
