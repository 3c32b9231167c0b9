/* A plugin that records what an engine shows a plugin, so that the same run under clrie and
 * under Microsoft's CLRIE can be compared (test/dotnet/test_compat.py):
 *
 *   - the names IMethodInfo::GetName and GetFullName give for every method of the app's
 *     module that the JIT compiles: `name <GetName> | <GetFullName>`;
 *   - its log lines: in Initialize it writes one message, one error and one dump through
 *     IProfilerManagerLogging (text `compat-probe message`, `... error`, `... dump`) and
 *     records GetLoggingFlags: `logging-flags 0xN`;
 *   - its settings as clrie_plugin_host_read_settings_for finds them (the engine's, then
 *     CLRIE_SETTING_<class ID>_<name>): `setting <name>=<value>`;
 *   - every exception event, in order: `<Event> [<method full name>]`;
 *   - it inserts a `nop` at the start of the method named CLRIE_COMPAT_PROBE_METHOD (its full
 *     name), so that the engine has a method to dump.
 *
 * Configured by the environment, which both engines pass on unchanged:
 * CLRIE_COMPAT_PROBE_FILE (required, the record), CLRIE_COMPAT_PROBE_MODULE (the app's module
 * file name), CLRIE_COMPAT_PROBE_METHOD. It loads into either engine: it uses only the ABI
 * headers and libclrie-plugin. */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <clrie/plugin.h>

#define PREFIX "CLRIE_COMPAT_PROBE_"
#define NAME_BYTES 1024

struct probe {
    IInstrumentationMethod method;
    IInstrumentationMethodExceptionEvents exceptions;
    struct clrie_plugin_com com;
    CLSID clsid;
    int fd;
    struct clrie_plugin_host host;
};

static struct probe *from_method(IInstrumentationMethod *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct probe, method);
}

static struct probe *from_exceptions(IInstrumentationMethodExceptionEvents *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct probe, exceptions);
}

static void probe_destroy(void *object)
{
    struct probe *p = object;
    if (p->fd >= 0)
        close(p->fd);
    clrie_plugin_host_finish(&p->host);
    free(p);
}

static const struct clrie_plugin_com_iface probe_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethod, struct probe, method),
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethodExceptionEvents, struct probe, exceptions),
};

static const struct clrie_plugin_com_class probe_class = {
    .name = "compat-probe",
    .ifaces = probe_ifaces,
    .iface_count = CLRIE_PLUGIN_COM_COUNT(probe_ifaces),
    .com_offset = offsetof(struct probe, com),
    .destroy = probe_destroy,
    .module_ref = true,
};

CLRIE_PLUGIN_COM_IUNKNOWN(im, IInstrumentationMethod, struct probe, method, com)
CLRIE_PLUGIN_COM_IUNKNOWN(ex, IInstrumentationMethodExceptionEvents, struct probe, exceptions, com)

static void log_utf8(IProfilerManagerLogging *logging, int kind, const char *text)
{
    WCHAR wide[128] = {0};
    clrie_plugin_wcs_append_utf8(wide, 128, text);
    if (kind == 0)
        logging->lpVtbl->LogMessage(logging, wide);
    else if (kind == 1)
        logging->lpVtbl->LogError(logging, wide);
    else
        logging->lpVtbl->LogDumpMessage(logging, wide);
}

static void record_setting(void *data, const char *name, const char *value)
{
    struct probe *p = data;
    clrie_plugin_append_line(p->fd, "setting %s=%s", name, value);
}

static HRESULT STDMETHODCALLTYPE im_Initialize(IInstrumentationMethod *This,
                                               IProfilerManager *manager)
{
    struct probe *p = from_method(This);
    const char *path = getenv(PREFIX "FILE");
    if (!manager || !path)
        return E_FAIL;
    p->fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (p->fd < 0)
        return E_FAIL;
    clrie_plugin_host_init(&p->host, manager, "compat-probe");

    IProfilerManagerLogging *logging = p->host.logging;
    if (logging) {
        LoggingFlags flags = 0;
        logging->lpVtbl->GetLoggingFlags(logging, &flags);
        clrie_plugin_append_line(p->fd, "logging-flags 0x%X", (unsigned)flags);
        log_utf8(logging, 0, "compat-probe message");
        log_utf8(logging, 1, "compat-probe error");
        log_utf8(logging, 2, "compat-probe dump");
    }

    clrie_plugin_host_read_settings_for(&p->host, manager, &p->clsid, record_setting, p);

    ICorProfilerInfo *info = NULL;
    if (SUCCEEDED(clrie_plugin_profiler_info(manager, &IID_ICorProfilerInfo, (void **)&info))) {
        DWORD mask = 0;
        info->lpVtbl->GetEventMask(info, &mask);
        info->lpVtbl->SetEventMask(info, mask | COR_PRF_MONITOR_EXCEPTIONS);
    }
    clrie_plugin_release(info);
    return S_OK;
}

/* Whether the method is in the app's module. */
static bool in_app(struct probe *p, IMethodInfo *method)
{
    const char *want = getenv(PREFIX "MODULE");
    IModuleInfo *module = NULL;
    if (!want || FAILED(method->lpVtbl->GetModuleInfo(method, &module)) || !module)
        return false;
    BSTR text = NULL;
    char *name =
        clrie_plugin_host_take_utf8(&p->host, module->lpVtbl->GetModuleName(module, &text), &text);
    bool yes = name && strcmp(name, want) == 0;
    free(name);
    clrie_plugin_release(module);
    return yes;
}

static HRESULT STDMETHODCALLTYPE im_ShouldInstrumentMethod(IInstrumentationMethod *This,
                                                           IMethodInfo *method, BOOL isRejit,
                                                           BOOL *instrument)
{
    struct probe *p = from_method(This);
    *instrument = FALSE;
    if (!in_app(p, method))
        return S_OK;
    char name[NAME_BYTES], full[NAME_BYTES];
    clrie_plugin_method_name(method, p->host.strings, name, sizeof name);
    clrie_plugin_method_full_name(method, p->host.strings, full, sizeof full);
    clrie_plugin_append_line(p->fd, "name %s | %s", name, full);
    const char *target = getenv(PREFIX "METHOD");
    *instrument = target && strcmp(target, full) == 0;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE im_InstrumentMethod(IInstrumentationMethod *This,
                                                     IMethodInfo *method, BOOL isRejit)
{
    IInstructionGraph *graph = NULL;
    IInstructionFactory *factory = NULL;
    IInstruction *first = NULL, *nop = NULL;
    HRESULT hr;
    if (FAILED(hr = method->lpVtbl->GetInstructions(method, &graph)) ||
        FAILED(hr = method->lpVtbl->GetInstructionFactory(method, &factory)) ||
        FAILED(hr = graph->lpVtbl->GetFirstInstruction(graph, &first)) ||
        FAILED(hr = factory->lpVtbl->CreateInstruction(factory, Cee_Nop, &nop)))
        goto out;
    hr = graph->lpVtbl->InsertBefore(graph, first, nop);
out:
    clrie_plugin_release(nop);
    clrie_plugin_release(first);
    clrie_plugin_release(factory);
    clrie_plugin_release(graph);
    return hr;
}

static HRESULT STDMETHODCALLTYPE im_nothing(IInstrumentationMethod *This, IMethodInfo *method,
                                            BOOL isRejit)
{
    return S_OK;
}

static const struct IInstrumentationMethodVtbl method_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(im),
    .Initialize = im_Initialize,
    CLRIE_PLUGIN_IGNORE_DOMAIN_AND_ASSEMBLY_EVENTS,
    .OnModuleLoaded = clrie_plugin_ignore_module,
    .OnModuleUnloaded = clrie_plugin_ignore_module,
    .OnShutdown = clrie_plugin_ignore_shutdown,
    .ShouldInstrumentMethod = im_ShouldInstrumentMethod,
    .BeforeInstrumentMethod = im_nothing,
    .InstrumentMethod = im_InstrumentMethod,
    .OnInstrumentationComplete = im_nothing,
    .AllowInlineSite = clrie_plugin_allow_every_inline,
};

/* ---- exception events: one line each, with the method's full name where there is one ---- */

static void record_event(IInstrumentationMethodExceptionEvents *This, const char *event,
                         IMethodInfo *method)
{
    struct probe *p = from_exceptions(This);
    char full[NAME_BYTES] = "";
    if (method)
        clrie_plugin_method_full_name(method, p->host.strings, full, sizeof full);
    clrie_plugin_append_line(p->fd, "%s%s%s", event, method ? " " : "", full);
}

#define EVENT_WITH_METHOD(Name)                                                                    \
    static HRESULT STDMETHODCALLTYPE ex_##Name(IInstrumentationMethodExceptionEvents *This,        \
                                               IMethodInfo *method)                                \
    {                                                                                              \
        record_event(This, #Name, method);                                                         \
        return S_OK;                                                                               \
    }
#define EVENT_WITHOUT_METHOD(Name)                                                                 \
    static HRESULT STDMETHODCALLTYPE ex_##Name(IInstrumentationMethodExceptionEvents *This)        \
    {                                                                                              \
        record_event(This, #Name, NULL);                                                           \
        return S_OK;                                                                               \
    }

EVENT_WITH_METHOD(ExceptionSearchCatcherFound)
EVENT_WITH_METHOD(ExceptionSearchFilterEnter)
EVENT_WITH_METHOD(ExceptionSearchFunctionEnter)
EVENT_WITH_METHOD(ExceptionUnwindFinallyEnter)
EVENT_WITH_METHOD(ExceptionUnwindFunctionEnter)
EVENT_WITHOUT_METHOD(ExceptionCatcherLeave)
EVENT_WITHOUT_METHOD(ExceptionSearchFilterLeave)
EVENT_WITHOUT_METHOD(ExceptionSearchFunctionLeave)
EVENT_WITHOUT_METHOD(ExceptionUnwindFinallyLeave)
EVENT_WITHOUT_METHOD(ExceptionUnwindFunctionLeave)

static HRESULT STDMETHODCALLTYPE ex_ExceptionCatcherEnter(
    IInstrumentationMethodExceptionEvents *This, IMethodInfo *method, UINT_PTR object)
{
    record_event(This, "ExceptionCatcherEnter", method);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE ex_ExceptionThrown(IInstrumentationMethodExceptionEvents *This,
                                                    UINT_PTR object)
{
    record_event(This, "ExceptionThrown", NULL);
    return S_OK;
}

static const struct IInstrumentationMethodExceptionEventsVtbl exceptions_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(ex),
    .ExceptionCatcherEnter = ex_ExceptionCatcherEnter,
    .ExceptionCatcherLeave = ex_ExceptionCatcherLeave,
    .ExceptionSearchCatcherFound = ex_ExceptionSearchCatcherFound,
    .ExceptionSearchFilterEnter = ex_ExceptionSearchFilterEnter,
    .ExceptionSearchFilterLeave = ex_ExceptionSearchFilterLeave,
    .ExceptionSearchFunctionEnter = ex_ExceptionSearchFunctionEnter,
    .ExceptionSearchFunctionLeave = ex_ExceptionSearchFunctionLeave,
    .ExceptionThrown = ex_ExceptionThrown,
    .ExceptionUnwindFinallyEnter = ex_ExceptionUnwindFinallyEnter,
    .ExceptionUnwindFinallyLeave = ex_ExceptionUnwindFinallyLeave,
    .ExceptionUnwindFunctionEnter = ex_ExceptionUnwindFunctionEnter,
    .ExceptionUnwindFunctionLeave = ex_ExceptionUnwindFunctionLeave,
};

static HRESULT create_instance(const CLSID *clsid, REFIID riid, void **out)
{
    struct probe *p = calloc(1, sizeof *p);
    if (!p)
        return E_OUTOFMEMORY;
    p->method.lpVtbl = &method_vtbl;
    p->exceptions.lpVtbl = &exceptions_vtbl;
    p->fd = -1;
    p->clsid = *clsid;
    clrie_plugin_com_init(&p->com, &probe_class);
    return clrie_plugin_com_give(&p->com, riid, out);
}

CLRIE_PLUGIN_EXPORT_CLASS_FACTORY(create_instance)
