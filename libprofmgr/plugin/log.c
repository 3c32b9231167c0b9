/* The log and the engine's services (clrie/plugin.h): lines through the engine's
 * IProfilerManagerLogging, the references a plugin takes in Initialize (the runtime's
 * ICorProfilerInfo among them), and one-write lines to a file. */
#include "clrie/plugin.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "clrie/os/log_file.h"

void clrie_plugin_log(IProfilerManagerLogging *logging, bool error, const char *text)
{
    if (!logging) {
        fprintf(stderr, "%s\n", text);
        return;
    }
    WCHAR wide[1024];
    wide[0] = 0;
    clrie_plugin_wcs_append_utf8(wide, sizeof wide / sizeof wide[0], text);
    if (error)
        logging->lpVtbl->LogError(logging, wide);
    else
        logging->lpVtbl->LogMessage(logging, wide);
}

void clrie_plugin_host_init(struct clrie_plugin_host *host, IProfilerManager *manager,
                            const char *name)
{
    host->name = name;
    host->logging = NULL;
    host->strings = NULL;
    if (!manager)
        return;
    if (FAILED(manager->lpVtbl->GetLoggingInstance(manager, &host->logging)))
        host->logging = NULL;
    if (FAILED(manager->lpVtbl->QueryInterface(manager, &IID_IProfilerStringManager,
                                               (void **)&host->strings)))
        host->strings = NULL;
}

void clrie_plugin_host_finish(struct clrie_plugin_host *host)
{
    clrie_plugin_release(host->logging);
    clrie_plugin_release(host->strings);
    host->logging = NULL;
    host->strings = NULL;
}

void clrie_plugin_host_log(const struct clrie_plugin_host *host, bool error, const char *format,
                           ...)
{
    char text[1024];
    int len = snprintf(text, sizeof text, "%s: ", host->name ? host->name : "plugin");
    if (len < 0 || (size_t)len >= sizeof text)
        len = 0;
    va_list ap;
    va_start(ap, format);
    vsnprintf(text + len, sizeof text - (size_t)len, format, ap);
    va_end(ap);
    clrie_plugin_log(host->logging, error, text);
}

char *clrie_plugin_host_take_utf8(const struct clrie_plugin_host *host, HRESULT hr, BSTR *text)
{
    return clrie_plugin_take_utf8(host->strings, hr, text);
}

HRESULT clrie_plugin_profiler_info(IProfilerManager *manager, REFIID riid, void **out)
{
    if (!out)
        return E_POINTER;
    *out = NULL;
    if (!manager)
        return E_POINTER;
    IUnknown *unknown = NULL;
    HRESULT hr = manager->lpVtbl->GetCorProfilerInfo(manager, &unknown);
    if (SUCCEEDED(hr) && !unknown)
        hr = E_NOINTERFACE;
    if (SUCCEEDED(hr))
        hr = unknown->lpVtbl->QueryInterface(unknown, riid, out);
    if (FAILED(hr))
        *out = NULL;
    clrie_plugin_release(unknown);
    return hr;
}

int clrie_plugin_append_line(int fd, const char *format, ...)
{
    if (fd < 0)
        return -EBADF;
    char line[4096];
    va_list ap;
    va_start(ap, format);
    int len = vsnprintf(line, sizeof line - 1, format, ap);
    va_end(ap);
    if (len < 0)
        return -EINVAL;
    if ((size_t)len > sizeof line - 2)
        len = (int)(sizeof line - 2);
    line[len++] = '\n';
    ssize_t written;
    do
        written = write(fd, line, (size_t)len);
    while (written < 0 && errno == EINTR);
    return written < 0 ? -errno : 0;
}

int clrie_plugin_open_lines(const char *path, bool truncate, int *fd)
{
    return clrie_os_line_file_open(path, truncate, fd);
}

void clrie_plugin_close_lines(int fd)
{
    if (fd >= 0)
        clrie_os_close(fd);
}
