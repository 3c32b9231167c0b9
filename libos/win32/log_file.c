/* The engine's log file on Windows (clrie/os/log_file.h): a file opened for appending through
 * its UTF-16 path and handed to the C runtime as a descriptor, and the debugger's output. */
#include "clrie/os/log_file.h"

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include "text.h"

/* path, or ProfilerLog_<pid>.txt in it when it is a folder, as UTF-16 (malloc'd). */
static int target_of(const char *path, wchar_t **out)
{
    wchar_t *wide = NULL;
    int r = clrie_os__utf16(path, &wide);
    if (r != 0)
        return r;
    DWORD attributes = GetFileAttributesW(wide);
    if (attributes == INVALID_FILE_ATTRIBUTES || !(attributes & FILE_ATTRIBUTE_DIRECTORY)) {
        *out = wide;
        return 0;
    }
    size_t n = wcslen(wide);
    wchar_t name[64];
    swprintf(name, 64, L"ProfilerLog_%lu.txt", (unsigned long)GetCurrentProcessId());
    wchar_t *joined = malloc((n + 2 + wcslen(name)) * sizeof(*joined));
    if (!joined) {
        free(wide);
        return -ENOMEM;
    }
    memcpy(joined, wide, n * sizeof(*joined));
    if (n == 0 || (wide[n - 1] != L'\\' && wide[n - 1] != L'/'))
        joined[n++] = L'\\';
    wcscpy(joined + n, name);
    free(wide);
    *out = joined;
    return 0;
}

int clrie_os_log_file_open(const char *path, int *fd, const char **why)
{
    *fd = -1;
    *why = NULL;
    wchar_t *target = NULL;
    int r = target_of(path, &target);
    if (r != 0)
        return r;
    HANDLE h = CreateFileW(target, FILE_APPEND_DATA | SYNCHRONIZE,
                           FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                           OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
    free(target);
    if (h == INVALID_HANDLE_VALUE)
        return clrie_os__error(GetLastError());
    DWORD type = GetFileType(h);
    if (type != FILE_TYPE_DISK && type != FILE_TYPE_CHAR) {
        CloseHandle(h);
        *why = "it is a pipe or another kind of file, not a regular file or a character device";
        return -EPERM;
    }
    int descriptor = _open_osfhandle((intptr_t)h, _O_APPEND | _O_WRONLY | _O_BINARY);
    if (descriptor < 0) {
        CloseHandle(h);
        return -EMFILE;
    }
    *fd = descriptor;
    return 0;
}

bool clrie_os_log_file_deleted(int fd)
{
    HANDLE h = (HANDLE)_get_osfhandle(fd);
    FILE_STANDARD_INFO info;
    return h != INVALID_HANDLE_VALUE && GetFileType(h) == FILE_TYPE_DISK &&
           GetFileInformationByHandleEx(h, FileStandardInfo, &info, sizeof(info)) &&
           (info.DeletePending || info.NumberOfLinks == 0);
}

int clrie_os_log_file_replace(int fd, const char *path, const void *first, size_t len,
                              const char **why)
{
    int fresh = -1;
    int r = clrie_os_log_file_open(path, &fresh, why);
    if (r != 0)
        return r;
    r = clrie_os_write_all(fresh, first, len);
    if (r == 0)
        r = _dup2(fresh, fd) == 0 ? 0 : -errno;
    _close(fresh);
    /* The C runtime duplicates into an inheritable handle; a child must not hold the log. */
    if (r == 0)
        SetHandleInformation((HANDLE)_get_osfhandle(fd), HANDLE_FLAG_INHERIT, 0);
    return r;
}

int clrie_os_line_file_open(const char *path, bool truncate, int *fd)
{
    *fd = -1;
    wchar_t *wide = NULL;
    int r = clrie_os__utf16(path, &wide);
    if (r != 0)
        return r;
    HANDLE h = CreateFileW(wide, FILE_APPEND_DATA | SYNCHRONIZE | (truncate ? GENERIC_WRITE : 0),
                           FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                           truncate ? CREATE_ALWAYS : OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
    free(wide);
    if (h == INVALID_HANDLE_VALUE)
        return clrie_os__error(GetLastError());
    int descriptor = _open_osfhandle((intptr_t)h, _O_APPEND | _O_WRONLY | _O_BINARY);
    if (descriptor < 0) {
        CloseHandle(h);
        return -EMFILE;
    }
    *fd = descriptor;
    return 0;
}

int clrie_os_write_all(int fd, const void *text, size_t len)
{
    const char *p = text;
    while (len > 0) {
        unsigned chunk = len > (1u << 30) ? (1u << 30) : (unsigned)len;
        int n = _write(fd, p, chunk);
        if (n < 0)
            return -errno;
        if (n == 0)
            return -EIO;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

void clrie_os_close(int fd)
{
    _close(fd);
}

void clrie_os_debug_output(const char *text, size_t len)
{
    char *copy = malloc(len + 1);
    if (!copy)
        return;
    memcpy(copy, text, len);
    copy[len] = '\0';
    wchar_t *wide = NULL;
    if (clrie_os__utf16(copy, &wide) == 0) {
        OutputDebugStringW(wide);
        free(wide);
    }
    free(copy);
}
