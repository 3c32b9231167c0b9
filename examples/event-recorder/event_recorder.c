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
 * opened for appending, so several instances (and processes) can share one file without their
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
#define _GNU_SOURCE /* strcasecmp in a strict -std=c11 build */
#endif

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
    struct clrie_plugin_com com;
    CLSID clsid;
    char data1[9];
    char tag[128];
    char log_name[160]; /* `event-recorder <tag>`, starting each log line */
    int fd;             /* -1 until Initialize succeeds */
    bool wants_exceptions;
    ICorProfilerInfo *info;        /* held from Initialize to the last Release */
    struct clrie_plugin_host host; /* logging may be NULL; strings too (the engine's export) */
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

/* ---- logging through the engine -------------------------------------------------------- */

static void log_to_engine(struct recorder *rec, bool error, const char *format, ...)
    __attribute__((format(__printf__, 3, 4)));

static void log_to_engine(struct recorder *rec, bool error, const char *format, ...)
{
    if (!rec->host.logging && !error)
        return; /* without the engine's log, only errors reach stderr */
    char text[1024];
    va_list ap;
    va_start(ap, format);
    vsnprintf(text, sizeof text, format, ap);
    va_end(ap);
    clrie_plugin_host_log(&rec->host, error, "%s", text);
}

/* ---- engine strings ---------------------------------------------------------------------- */

/* Converts an engine BSTR to UTF-8 in out and frees it. */
static void take_name(struct recorder *rec, HRESULT hr, BSTR name, char *out, size_t size)
{
    if (SUCCEEDED(hr) && name)
        clrie_plugin_bstr_to_utf8_buf(name, out, size);
    else
        snprintf(out, size, "?");
    clrie_plugin_free_bstr(rec->host.strings, name); /* else the engine's export */
}

/* ---- output -------------------------------------------------------------------------------- */

/* Appends `<tag> <event>[ <name>]\n` with one write(). */
static void record(struct recorder *rec, const char *event, const char *name)
{
    clrie_plugin_append_line(rec->fd, "%s %s%s%s", rec->tag, event, name ? " " : "",
                             name ? name : "");
}

/* ---- the instance's COM object ------------------------------------------------------------- */

static struct recorder *from_method(IInstrumentationMethod *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct recorder, method);
}

static struct recorder *from_exceptions(IInstrumentationMethodExceptionEvents *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct recorder, exceptions);
}

static void recorder_destroy(void *object)
{
    struct recorder *rec = object;
    record(rec, "Released", NULL);
    clrie_plugin_close_lines(rec->fd);
    clrie_plugin_release(rec->info);
    clrie_plugin_host_finish(&rec->host);
    free(rec);
}

static const struct clrie_plugin_com_iface recorder_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethod, struct recorder, method),
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethodExceptionEvents, struct recorder, exceptions),
};

static const struct clrie_plugin_com_class recorder_class = {
    .name = "event-recorder",
    .ifaces = recorder_ifaces,
    .iface_count = CLRIE_PLUGIN_COM_COUNT(recorder_ifaces),
    .com_offset = offsetof(struct recorder, com),
    .destroy = recorder_destroy,
    .module_ref = true,
};

CLRIE_PLUGIN_COM_IUNKNOWN(im, IInstrumentationMethod, struct recorder, method, com)
CLRIE_PLUGIN_COM_IUNKNOWN(ex, IInstrumentationMethodExceptionEvents, struct recorder, exceptions,
                          com)

/* ---- IInstrumentationMethod ------------------------------------------------------------- */

/* Takes what Initialize needs from the manager: logging first (so later failures are
 * reported), then the way to free strings, then ICorProfilerInfo. */
static HRESULT attach_to_manager(struct recorder *rec, IProfilerManager *manager)
{
    clrie_plugin_host_init(&rec->host, manager, rec->log_name);

    IUnknown *unknown = NULL;
    HRESULT hr = manager->lpVtbl->GetCorProfilerInfo(manager, &unknown);
    if (FAILED(hr) || !unknown) {
        log_to_engine(rec, true, "IProfilerManager::GetCorProfilerInfo failed (hr 0x%08X)",
                      (unsigned)hr);
        return FAILED(hr) ? hr : E_FAIL;
    }
    hr = unknown->lpVtbl->QueryInterface(unknown, &IID_ICorProfilerInfo, (void **)&rec->info);
    clrie_plugin_release(unknown);
    if (FAILED(hr) || !rec->info) {
        rec->info = NULL;
        log_to_engine(rec, true, "no ICorProfilerInfo (hr 0x%08X)", (unsigned)hr);
        return FAILED(hr) ? hr : E_NOINTERFACE;
    }
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE im_Initialize(IInstrumentationMethod *This,
                                               IProfilerManager *pProfilerManager)
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
    clrie_plugin_release(manager);
    if (FAILED(hr))
        return hr;

    if (clrie_plugin_is_true(instance_setting(rec, "FAIL_INITIALIZE"))) {
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

    rec->wants_exceptions = clrie_plugin_is_true(instance_setting(rec, "EXCEPTIONS"));
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

    int fd;
    int r = clrie_plugin_open_lines(path, false, &fd);
    if (r != 0) {
        log_to_engine(rec, true, "cannot open '%s': %s", path, strerror(-r));
        return E_FAIL;
    }
    rec->fd = fd;
    log_to_engine(rec, false, "recording to '%s'%s", path,
                  rec->wants_exceptions ? " with exceptions" : "");
    return S_OK;
}

static void record_appdomain(struct recorder *rec, const char *event, IAppDomainInfo *domain)
{
    char name[LINE_MAX_BYTES / 2];
    BSTR text = NULL;
    HRESULT hr = domain->lpVtbl->GetName(domain, &text);
    take_name(rec, hr, text, name, sizeof name);
    record(rec, event, name);
}

static HRESULT STDMETHODCALLTYPE im_OnAppDomainCreated(IInstrumentationMethod *This,
                                                       IAppDomainInfo *pAppDomainInfo)
{
    if (!pAppDomainInfo)
        return E_POINTER;
    record_appdomain(from_method(This), "OnAppDomainCreated", pAppDomainInfo);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE im_OnAppDomainShutdown(IInstrumentationMethod *This,
                                                        IAppDomainInfo *pAppDomainInfo)
{
    if (!pAppDomainInfo)
        return E_POINTER;
    record_appdomain(from_method(This), "OnAppDomainShutdown", pAppDomainInfo);
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

static HRESULT STDMETHODCALLTYPE im_OnAssemblyLoaded(IInstrumentationMethod *This,
                                                     IAssemblyInfo *pAssemblyInfo)
{
    if (!pAssemblyInfo)
        return E_POINTER;
    record_assembly(from_method(This), "OnAssemblyLoaded", pAssemblyInfo);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE im_OnAssemblyUnloaded(IInstrumentationMethod *This,
                                                       IAssemblyInfo *pAssemblyInfo)
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

static HRESULT STDMETHODCALLTYPE im_OnModuleLoaded(IInstrumentationMethod *This,
                                                   IModuleInfo *pModuleInfo)
{
    if (!pModuleInfo)
        return E_POINTER;
    record_module(from_method(This), "OnModuleLoaded", pModuleInfo);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE im_OnModuleUnloaded(IInstrumentationMethod *This,
                                                     IModuleInfo *pModuleInfo)
{
    if (!pModuleInfo)
        return E_POINTER;
    record_module(from_method(This), "OnModuleUnloaded", pModuleInfo);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE im_OnShutdown(IInstrumentationMethod *This)
{
    record(from_method(This), "OnShutdown", NULL);
    return S_OK;
}

static const struct IInstrumentationMethodVtbl method_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(im),
    .Initialize = im_Initialize,
    .OnAppDomainCreated = im_OnAppDomainCreated,
    .OnAppDomainShutdown = im_OnAppDomainShutdown,
    .OnAssemblyLoaded = im_OnAssemblyLoaded,
    .OnAssemblyUnloaded = im_OnAssemblyUnloaded,
    .OnModuleLoaded = im_OnModuleLoaded,
    .OnModuleUnloaded = im_OnModuleUnloaded,
    .OnShutdown = im_OnShutdown,
    CLRIE_PLUGIN_INSTRUMENT_NOTHING,
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
    clrie_plugin_release(import);
}

static HRESULT STDMETHODCALLTYPE ex_ExceptionThrown(IInstrumentationMethodExceptionEvents *This,
                                                    UINT_PTR thrownObjectId)
{
    struct recorder *rec = from_exceptions(This);
    char name[NAME_MAX_UNITS];
    exception_class_name(rec, thrownObjectId, name, sizeof name);
    record(rec, "ExceptionThrown", name);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE ex_ExceptionCatcherEnter(
    IInstrumentationMethodExceptionEvents *This, IMethodInfo *pMethodInfo, UINT_PTR objectId)
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

static const struct IInstrumentationMethodExceptionEventsVtbl exceptions_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(ex),
    .ExceptionCatcherEnter = ex_ExceptionCatcherEnter,
    .ExceptionThrown = ex_ExceptionThrown,
    CLRIE_PLUGIN_IGNORE_EXCEPTION_SEARCH_AND_UNWIND_EVENTS,
};

/* ---- the class factory and exports ---------------------------------------------------- */

/* Any class ID: the instance made by this factory is configured by that ID's DATA1. */
static HRESULT create_instance(const CLSID *clsid, REFIID riid, void **out)
{
    struct recorder *rec = calloc(1, sizeof *rec);
    if (!rec)
        return E_OUTOFMEMORY;
    rec->method.lpVtbl = &method_vtbl;
    rec->exceptions.lpVtbl = &exceptions_vtbl;
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
    snprintf(rec->log_name, sizeof rec->log_name, "event-recorder %s", rec->tag);
    rec->host.name = rec->log_name;
    clrie_plugin_com_init(&rec->com, &recorder_class);
    return clrie_plugin_com_give(&rec->com, riid, out);
}

CLRIE_PLUGIN_EXPORT_CLASS_FACTORY(create_instance)
