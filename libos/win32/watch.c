/* Folder watches on Windows (clrie/os/watch.h): ReadDirectoryChangesW on the folder opened for
 * overlapped reads, and an event that stops the wait. */
#include "clrie/os/watch.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include "text.h"

#define WATCHED_CHANGES                                                                        \
    (FILE_NOTIFY_CHANGE_FILE_NAME | FILE_NOTIFY_CHANGE_DIR_NAME |                              \
     FILE_NOTIFY_CHANGE_LAST_WRITE | FILE_NOTIFY_CHANGE_SIZE)

struct clrie_os_watch {
    HANDLE folder;
    HANDLE changed; /* the event of the read in progress */
    HANDLE stop;    /* set once by clrie_os_watch_stop, never reset */
    OVERLAPPED read;
    bool reading;
    DWORD records[1024]; /* what the system says changed, read only to be asked again */
};

/* Asks the system for the next changes, without waiting for them. */
static int start_read(struct clrie_os_watch *w)
{
    memset(&w->read, 0, sizeof(w->read));
    w->read.hEvent = w->changed;
    ResetEvent(w->changed);
    if (!ReadDirectoryChangesW(w->folder, w->records, sizeof(w->records), FALSE,
                               WATCHED_CHANGES, NULL, &w->read, NULL))
        return clrie_os__error(GetLastError());
    w->reading = true;
    return 0;
}

int clrie_os_watch_open(const char *path, struct clrie_os_watch **out)
{
    wchar_t *wide = NULL;
    int r = clrie_os__utf16(path, &wide);
    if (r != 0)
        return r;
    struct clrie_os_watch *w = calloc(1, sizeof(*w));
    if (!w) {
        free(wide);
        return -ENOMEM;
    }
    w->folder = CreateFileW(wide, FILE_LIST_DIRECTORY,
                            FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                            OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OVERLAPPED,
                            NULL);
    free(wide);
    BY_HANDLE_FILE_INFORMATION info;
    if (w->folder == INVALID_HANDLE_VALUE)
        r = clrie_os__error(GetLastError());
    else if (!GetFileInformationByHandle(w->folder, &info))
        r = clrie_os__error(GetLastError());
    else if (!(info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY))
        r = -ENOTDIR;
    else if (!(w->changed = CreateEventW(NULL, TRUE, FALSE, NULL)) ||
             !(w->stop = CreateEventW(NULL, TRUE, FALSE, NULL)))
        r = clrie_os__error(GetLastError());
    else
        r = start_read(w);
    if (r != 0) {
        clrie_os_watch_close(w);
        return r;
    }
    *out = w;
    return 0;
}

int clrie_os_watch_wait(struct clrie_os_watch *w, int timeout_ms)
{
    if (WaitForSingleObject(w->stop, 0) == WAIT_OBJECT_0)
        return -ECANCELED;
    if (!w->reading) {
        int r = start_read(w);
        if (r != 0)
            return r;
    }
    HANDLE events[2] = {w->stop, w->changed};
    DWORD waited = WaitForMultipleObjects(2, events, FALSE,
                                          timeout_ms < 0 ? INFINITE : (DWORD)timeout_ms);
    if (waited == WAIT_OBJECT_0)
        return -ECANCELED;
    if (waited == WAIT_TIMEOUT)
        return 0;
    if (waited != WAIT_OBJECT_0 + 1)
        return clrie_os__error(GetLastError());
    DWORD bytes = 0;
    w->reading = false;
    /* No records (bytes 0) or ERROR_NOTIFY_ENUM_DIR: more changed than the buffer held. */
    if (!GetOverlappedResult(w->folder, &w->read, &bytes, FALSE) &&
        GetLastError() != ERROR_NOTIFY_ENUM_DIR)
        return clrie_os__error(GetLastError());
    return 1;
}

void clrie_os_watch_stop(struct clrie_os_watch *w)
{
    SetEvent(w->stop);
}

void clrie_os_watch_close(struct clrie_os_watch *w)
{
    if (!w)
        return;
    if (w->reading) { /* the system writes into records until the read is cancelled */
        DWORD bytes;
        CancelIoEx(w->folder, &w->read);
        GetOverlappedResult(w->folder, &w->read, &bytes, TRUE);
    }
    if (w->folder && w->folder != INVALID_HANDLE_VALUE)
        CloseHandle(w->folder);
    if (w->changed)
        CloseHandle(w->changed);
    if (w->stop)
        CloseHandle(w->stop);
    free(w);
}
