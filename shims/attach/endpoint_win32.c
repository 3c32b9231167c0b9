/* The diagnostics pipe of a process on Windows: \\.\pipe\dotnet-diagnostic-<pid>, which the
 * runtime's diagnostics server keeps one listening instance of (it makes the next once a client
 * connects). A pipe is busy while another client holds the listening instance: WaitNamedPipeW
 * waits for the next. The answer is read overlapped, so that a timeout can end the wait. */
#include "endpoint.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <windows.h>

struct attach_endpoint {
    HANDLE pipe;
    HANDLE event; /* signalled when an overlapped read or write ends */
};

/* A Win32 error in words (the system's, in English where it has them), without the line end. */
static void error_words(DWORD code, char *out, size_t size)
{
    wchar_t text[256];
    DWORD n = FormatMessageW(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, code,
                             MAKELANGID(LANG_ENGLISH, SUBLANG_DEFAULT), text,
                             sizeof(text) / sizeof(text[0]), NULL);
    if (n == 0)
        n = FormatMessageW(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, code,
                           0, text, sizeof(text) / sizeof(text[0]), NULL);
    while (n > 0 && (text[n - 1] == L'\r' || text[n - 1] == L'\n' || text[n - 1] == L' ' ||
                     text[n - 1] == L'.'))
        n--;
    text[n] = L'\0';
    if (n == 0 || WideCharToMultiByte(CP_UTF8, 0, text, -1, out, (int)size, NULL, NULL) == 0)
        snprintf(out, size, "Windows error %lu", (unsigned long)code);
}

static int errno_of(DWORD code)
{
    switch (code) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
        return -ENOENT;
    case ERROR_ACCESS_DENIED:
        return -EACCES;
    case ERROR_BROKEN_PIPE:
    case ERROR_NO_DATA:
    case ERROR_PIPE_NOT_CONNECTED:
        return -EPIPE;
    case ERROR_SEM_TIMEOUT:
        return -ETIMEDOUT;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY:
        return -ENOMEM;
    default:
        return -EIO;
    }
}

/* How long a pipe that is not there is looked for again: the runtime makes the next listening
 * instance just after a client connected, and between the two there is none. */
#define ABSENT_RETRY_MS 500u

int attach_endpoint_open(unsigned long pid, unsigned timeout_ms, struct attach_endpoint **out,
                         char *why, size_t why_size)
{
    wchar_t name[64];
    char shown[64];
    _snwprintf(name, sizeof(name) / sizeof(name[0]), L"\\\\.\\pipe\\dotnet-diagnostic-%lu", pid);
    name[sizeof(name) / sizeof(name[0]) - 1] = L'\0';
    snprintf(shown, sizeof(shown), "\\\\.\\pipe\\dotnet-diagnostic-%lu", pid);
    ULONGLONG start = GetTickCount64();
    HANDLE pipe;
    DWORD code;
    for (;;) {
        pipe = CreateFileW(name, GENERIC_READ | GENERIC_WRITE, 0, NULL, OPEN_EXISTING,
                           FILE_FLAG_OVERLAPPED, NULL);
        if (pipe != INVALID_HANDLE_VALUE)
            break;
        code = GetLastError();
        ULONGLONG spent = GetTickCount64() - start;
        if (code == ERROR_PIPE_BUSY && spent < timeout_ms) {
            WaitNamedPipeW(name, (DWORD)(timeout_ms - spent));
            continue;
        }
        if (code == ERROR_FILE_NOT_FOUND && spent < ABSENT_RETRY_MS) {
            Sleep(50);
            continue;
        }
        break;
    }
    if (pipe == INVALID_HANDLE_VALUE) {
        char words[256];
        error_words(code, words, sizeof(words));
        if (code == ERROR_FILE_NOT_FOUND)
            snprintf(why, why_size,
                     "process %lu has no diagnostics pipe %s: it is not a .NET process, or its "
                     "diagnostics are off (DOTNET_EnableDiagnostics=0)",
                     pid, shown);
        else if (code == ERROR_ACCESS_DENIED)
            snprintf(why, why_size,
                     "permission denied on %s: process %lu runs as another user (or elevated); "
                     "run clrie-attach as that user, or as an administrator",
                     shown, pid);
        else if (code == ERROR_PIPE_BUSY)
            snprintf(why, why_size, "cannot connect to %s: another client held it for %u s (%s)",
                     shown, (timeout_ms + 999) / 1000, words);
        else
            snprintf(why, why_size, "cannot connect to %s: %s (has the process exited?)", shown,
                     words);
        return code == ERROR_PIPE_BUSY ? -EBUSY : errno_of(code);
    }
    struct attach_endpoint *e = malloc(sizeof(*e));
    HANDLE event = CreateEventW(NULL, TRUE, FALSE, NULL);
    if (!e || !event) {
        free(e);
        if (event)
            CloseHandle(event);
        CloseHandle(pipe);
        return -ENOMEM;
    }
    e->pipe = pipe;
    e->event = event;
    *out = e;
    return 0;
}

/* One overlapped read or write of up to len bytes, waiting until deadline (GetTickCount64):
 * 0 and *done; -ETIMEDOUT (the operation is cancelled); a negative errno value with *code. */
static int transfer(struct attach_endpoint *e, bool write, void *buf, DWORD len, ULONGLONG deadline,
                    DWORD *done, DWORD *code)
{
    OVERLAPPED o = {.hEvent = e->event};
    ResetEvent(e->event);
    BOOL ok =
        write ? WriteFile(e->pipe, buf, len, NULL, &o) : ReadFile(e->pipe, buf, len, NULL, &o);
    if (!ok && GetLastError() != ERROR_IO_PENDING) {
        *code = GetLastError();
        return errno_of(*code);
    }
    ULONGLONG now = GetTickCount64();
    DWORD wait = now < deadline ? (DWORD)(deadline - now) : 0;
    if (WaitForSingleObject(e->event, wait) != WAIT_OBJECT_0) {
        CancelIoEx(e->pipe, &o);
        GetOverlappedResult(e->pipe, &o, done, TRUE); /* the buffer is ours again */
        return -ETIMEDOUT;
    }
    if (!GetOverlappedResult(e->pipe, &o, done, FALSE)) {
        *code = GetLastError();
        return errno_of(*code);
    }
    return 0;
}

/* Sends (write) or reads len bytes of buf through the pipe, in overlapped transfers until
 * deadline; a failure other than a timeout or a closed pipe is said in why. */
static int transfer_all(struct attach_endpoint *e, bool write, uint8_t *buf, size_t len,
                        ULONGLONG deadline, char *why, size_t why_size)
{
    DWORD code = 0, done = 0;
    int r = 0;
    for (size_t moved = 0; r == 0 && moved < len; moved += done) {
        r = transfer(e, write, buf + moved, (DWORD)(len - moved), deadline, &done, &code);
        if (r == 0 && done == 0)
            r = -EPIPE;
    }
    if (r != 0 && r != -ETIMEDOUT && r != -EPIPE) {
        char words[256];
        error_words(code, words, sizeof(words));
        snprintf(why, why_size, "%s failed: %s",
                 write ? "sending the request" : "reading the answer", words);
    }
    return r;
}

int attach_endpoint_exchange(struct attach_endpoint *e, const uint8_t *request, size_t len,
                             uint8_t *answer, size_t answer_len, unsigned timeout_ms, char *why,
                             size_t why_size)
{
    ULONGLONG deadline = GetTickCount64() + timeout_ms;
    int r = transfer_all(e, true, (uint8_t *)request, len, deadline, why, why_size);
    return r != 0 ? r : transfer_all(e, false, answer, answer_len, deadline, why, why_size);
}

void attach_endpoint_close(struct attach_endpoint *e)
{
    if (!e)
        return;
    CloseHandle(e->pipe);
    CloseHandle(e->event);
    free(e);
}
