/* A plugin that installs its own IProfilerManagerLoggingHost (test/dotnet/test_two_runtimes.py):
 * in Initialize it hands the engine a host that appends every line it receives to the file its
 * setting LogHost names, one line each, "error: ", "message: " or "dump: " and the line. It
 * logs `log-host-probe: host installed` right after, and `log-host-probe: shutdown` from
 * OnShutdown, both through the engine. It rewrites nothing.
 *
 * The host is a second interface of the plugin object: the engine's reference to it keeps the
 * object (and its file) alive for as long as the engine may write to it.
 *
 * Test code: never load it in a real application. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "clrie/abi/instrumentation.h"
#include "clrie/plugin.h"

struct probe {
    IInstrumentationMethod method;
    IProfilerManagerLoggingHost logging_host;
    struct clrie_plugin_com com;
    struct clrie_plugin_host host; /* the engine's logging, for the plugin's own lines */
    int fd;                        /* the LogHost file, or -1 */
};

static void probe_destroy(void *object)
{
    struct probe *p = object;
    clrie_plugin_host_finish(&p->host);
    if (p->fd >= 0)
        close(p->fd);
    free(p);
}

static const struct clrie_plugin_com_iface probe_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethod, struct probe, method),
    CLRIE_PLUGIN_COM_IFACE(&IID_IProfilerManagerLoggingHost, struct probe, logging_host),
};

static const struct clrie_plugin_com_class probe_class = {
    .name = "log-host-probe",
    .ifaces = probe_ifaces,
    .iface_count = CLRIE_PLUGIN_COM_COUNT(probe_ifaces),
    .com_offset = offsetof(struct probe, com),
    .destroy = probe_destroy,
    .module_ref = true,
};

CLRIE_PLUGIN_COM_IUNKNOWN(probe, IInstrumentationMethod, struct probe, method, com)
CLRIE_PLUGIN_COM_IUNKNOWN(sink, IProfilerManagerLoggingHost, struct probe, logging_host, com)

/* ---- IProfilerManagerLoggingHost --------------------------------------------------------------
 */

static HRESULT record(IProfilerManagerLoggingHost *This, const char *kind, const WCHAR *line)
{
    struct probe *p = CLRIE_CONTAINER_OF(This, struct probe, logging_host);
    char text[2048];
    size_t n = 0;
    for (; line && line[n] && n + 1 < sizeof(text); n++)
        text[n] = line[n] < 0x80 && line[n] != '\n' ? (char)line[n] : '?';
    text[n] = '\0';
    if (p->fd >= 0)
        clrie_plugin_append_line(p->fd, "%s: %s", kind, text);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE sink_LogMessage(IProfilerManagerLoggingHost *This,
                                                 const WCHAR *wszMessage)
{
    return record(This, "message", wszMessage);
}

static HRESULT STDMETHODCALLTYPE sink_LogError(IProfilerManagerLoggingHost *This,
                                               const WCHAR *wszError)
{
    return record(This, "error", wszError);
}

static HRESULT STDMETHODCALLTYPE sink_LogDumpMessage(IProfilerManagerLoggingHost *This,
                                                     const WCHAR *wszMessage)
{
    return record(This, "dump", wszMessage);
}

static const struct IProfilerManagerLoggingHostVtbl sink_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(sink),
    .LogMessage = sink_LogMessage,
    .LogError = sink_LogError,
    .LogDumpMessage = sink_LogDumpMessage,
};

/* ---- IInstrumentationMethod ------------------------------------------------------------------ */

static HRESULT STDMETHODCALLTYPE probe_Initialize(IInstrumentationMethod *This,
                                                  IProfilerManager *manager)
{
    struct probe *p = CLRIE_CONTAINER_OF(This, struct probe, method);
    char path[1024];
    clrie_plugin_host_init(&p->host, manager, "log-host-probe");
    if (clrie_plugin_setting(manager, "LogHost", path, sizeof(path)) != 0) {
        clrie_plugin_host_log(&p->host, true, "no LogHost setting");
        return E_FAIL;
    }
    p->fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (p->fd < 0) {
        clrie_plugin_host_log(&p->host, true, "cannot open '%s'", path);
        return E_FAIL;
    }
    HRESULT hr = manager->lpVtbl->SetLoggingHost(manager, &p->logging_host);
    if (FAILED(hr)) {
        clrie_plugin_host_log(&p->host, true, "SetLoggingHost returned 0x%08X", (unsigned)hr);
        return hr;
    }
    clrie_plugin_host_log(&p->host, false, "host installed");
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE probe_OnShutdown(IInstrumentationMethod *This)
{
    clrie_plugin_host_log(&CLRIE_CONTAINER_OF(This, struct probe, method)->host, false, "shutdown");
    return S_OK;
}

static const struct IInstrumentationMethodVtbl probe_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(probe),
    .Initialize = probe_Initialize,
    CLRIE_PLUGIN_IGNORE_DOMAIN_AND_ASSEMBLY_EVENTS,
    .OnModuleLoaded = clrie_plugin_ignore_module,
    .OnModuleUnloaded = clrie_plugin_ignore_module,
    .OnShutdown = probe_OnShutdown,
    CLRIE_PLUGIN_INSTRUMENT_NOTHING,
};

static HRESULT create_instance(const CLSID *clsid, REFIID riid, void **out)
{
    (void)clsid;
    struct probe *p = calloc(1, sizeof *p);
    if (!p)
        return E_OUTOFMEMORY;
    p->method.lpVtbl = &probe_vtbl;
    p->logging_host.lpVtbl = &sink_vtbl;
    p->fd = -1;
    clrie_plugin_com_init(&p->com, &probe_class);
    return clrie_plugin_com_give(&p->com, riid, out);
}

CLRIE_PLUGIN_EXPORT_CLASS_FACTORY(create_instance)
