/* IProfilerManagerLogging for plugins and the engine, and the IProfilerManagerLoggingHost a
 * plugin may install to receive the engine's log. Both belong to the plugin's manager, that is
 * to one runtime: a logger writes to its manager's log (a view of the process log, log.h), and
 * a host receives the lines of that manager and its plugins, not those of another runtime's. */
#include <stdlib.h>
#include <string.h>

#include "manager.h"
#include "utf16.h"

static struct logger *logger_of(IProfilerManagerLogging *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct logger, iface);
}

/* A plugin's logger is part of its host. */
CLRIE_PM_COM_AGGREGATED(logger, IProfilerManagerLogging, struct logger, iface, outer)

/* The engine's own logger is a static object: references keep nothing alive, none is counted. */
struct global_logger {
    struct logger logger;
    struct clrie_plugin_com com; /* for its class */
};
static const struct clrie_plugin_com_iface global_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IProfilerManagerLogging, struct global_logger, logger.iface),
};
CLRIE_PM_COM_CLASS(global_class, "the engine logger", struct global_logger, com, NULL,
                   global_ifaces);
#define NO_OWNER(logger) ((void)(logger), (IUnknown *)NULL)
CLRIE_PM_COM_OWNED(global, IProfilerManagerLogging, struct global_logger, logger.iface, com,
                   NO_OWNER)

static struct clrie_pm_log *log_of(IProfilerManagerLogging *iface)
{
    struct logger *logger = logger_of(iface);
    return logger->log ? logger->log : clrie_pm_process_log();
}

static HRESULT log_utf16(IProfilerManagerLogging *This, enum clrie_pm_log_kind kind,
                         const WCHAR *text)
{
    struct clrie_pm_log *log = log_of(This);
    if (!text)
        return E_POINTER;
    if (!clrie_pm_log_enabled(log, kind))
        return S_OK;
    char *utf8;
    if (clrie_pm_utf16_to_utf8(text, clrie_pm_utf16_len(text), true, &utf8, NULL) != 0)
        return E_OUTOFMEMORY;
    clrie_pm_log_write(log, kind, logger_of(This)->guid36, "%s", utf8);
    free(utf8);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE logger_LogMessage(IProfilerManagerLogging *This,
                                                   const WCHAR *wszMessage)
{
    return log_utf16(This, CLRIE_PM_LOG_MESSAGES, wszMessage);
}

static HRESULT STDMETHODCALLTYPE logger_LogError(IProfilerManagerLogging *This,
                                                 const WCHAR *wszError)
{
    return log_utf16(This, CLRIE_PM_LOG_ERRORS, wszError);
}

static HRESULT STDMETHODCALLTYPE logger_LogDumpMessage(IProfilerManagerLogging *This,
                                                       const WCHAR *wszMessage)
{
    return log_utf16(This, CLRIE_PM_LOG_DUMPS, wszMessage);
}

static HRESULT STDMETHODCALLTYPE
logger_EnableDiagnosticLogToDebugPort(IProfilerManagerLogging *This, BOOL enable)
{
    return S_OK; /* Windows' debug port has no Linux counterpart; stderr is the default sink */
}

static HRESULT STDMETHODCALLTYPE logger_GetLoggingFlags(IProfilerManagerLogging *This,
                                                        LoggingFlags *pLoggingFlags)
{
    if (!pLoggingFlags)
        return E_POINTER;
    struct clrie_pm_log *log = log_of(This);
    const char *guid36 = logger_of(This)->guid36;
    unsigned kinds = guid36 ? clrie_pm_log_kinds_for(log, guid36) : atomic_load(&log->kinds);
    *pLoggingFlags = (LoggingFlags)kinds;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE logger_SetLoggingFlags(IProfilerManagerLogging *This,
                                                        LoggingFlags loggingFlags)
{
    if ((unsigned)loggingFlags & ~(unsigned)CLRIE_LOGGING_FLAGS_ALL)
        return E_INVALIDARG;
    clrie_pm_log_set_kinds(log_of(This), (unsigned)loggingFlags);
    return S_OK;
}

#define LOGGER_SLOTS                                                                               \
    .LogMessage = logger_LogMessage, .LogError = logger_LogError,                                  \
    .LogDumpMessage = logger_LogDumpMessage,                                                       \
    .EnableDiagnosticLogToDebugPort = logger_EnableDiagnosticLogToDebugPort,                       \
    .GetLoggingFlags = logger_GetLoggingFlags, .SetLoggingFlags = logger_SetLoggingFlags

static const struct IProfilerManagerLoggingVtbl logger_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(logger),
    LOGGER_SLOTS,
};

static const struct IProfilerManagerLoggingVtbl global_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(global),
    LOGGER_SLOTS,
};

void clrie_pm__logger_init(struct logger *logger, IUnknown *outer, struct clrie_pm_log *log,
                           const char *guid36)
{
    logger->iface.lpVtbl = &logger_vtbl;
    logger->outer = outer;
    logger->log = log;
    logger->guid36 = guid36;
}

static struct global_logger global_logger = {
    .logger = {.iface = {.lpVtbl = &global_vtbl}},
    .com = {.cls = &global_class, .refs = 1},
};

IProfilerManagerLogging *clrie_pm__logger_global(void)
{
    return &global_logger.logger.iface;
}

/* ---- the plugin's logging host ------------------------------------------------------- */

/* Called by the log (under its host lock) with a formatted UTF-8 line. */
static void to_logging_host(void *context, enum clrie_pm_log_kind kind, const char *line)
{
    IProfilerManagerLoggingHost *host = context;
    char16_t *text;
    size_t n;
    if (clrie_pm_utf8_to_utf16(line, strlen(line), &text, &n) != 0)
        return;
    if (kind == CLRIE_PM_LOG_ERRORS)
        host->lpVtbl->LogError(host, text);
    else if (kind == CLRIE_PM_LOG_DUMPS)
        host->lpVtbl->LogDumpMessage(host, text);
    else
        host->lpVtbl->LogMessage(host, text);
    free(text);
}

/* The manager's log calls to_logging_host under its host lock; the host it held is released
 * after the replacement, so no line is in flight to it. */
HRESULT clrie_pm__logger_set_host(struct manager *m, IProfilerManagerLoggingHost *host)
{
    clrie_os_recursive_mutex_lock(
        &m->load_lock); /* one replacement at a time: the log's and ours agree */
    if (host) {
        host->lpVtbl->AddRef(host);
        clrie_pm_log_set_host(m->log, &(struct clrie_pm_log_host){
                                          .write = to_logging_host,
                                          .context = host,
                                          .kinds = atomic_load(&m->log->stream_kinds),
                                      });
    } else {
        clrie_pm_log_set_host(m->log, NULL);
    }
    IProfilerManagerLoggingHost *old = atomic_exchange(&m->logging_host, host);
    clrie_os_recursive_mutex_unlock(&m->load_lock);
    if (old)
        old->lpVtbl->Release(old);
    return S_OK;
}

void clrie_pm__logger_drop_host(struct manager *m)
{
    clrie_pm__logger_set_host(m, NULL);
}
