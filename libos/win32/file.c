/* Reading files on Windows (clrie/os/file.h): UTF-16 paths, one HANDLE per open file. */
#include "clrie/os/file.h"

#include <errno.h>
#include <io.h>
#include <stdlib.h>
#include <windows.h>

#include "text.h"

struct clrie_os_file {
    HANDLE handle;
    int owned; /* opened here, closed by clrie_os_file_close */
};

static int make(HANDLE handle, int owned, struct clrie_os_file **out)
{
    struct clrie_os_file *f = malloc(sizeof(*f));
    if (!f)
        return -ENOMEM;
    f->handle = handle;
    f->owned = owned;
    *out = f;
    return 0;
}

int clrie_os_file_open(const char *path, unsigned flags, struct clrie_os_file **out)
{
    (void)flags; /* a reparse point is followed, as the loader follows it */
    wchar_t *wide = NULL;
    int r = clrie_os__utf16(path, &wide);
    if (r != 0)
        return r;
    /* Others may go on reading, writing and renaming it; a folder opens only with backup
     * semantics, so that it can be told apart from a file rather than fail to open. */
    HANDLE h = CreateFileW(wide, GENERIC_READ | READ_CONTROL,
                           FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                           OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
    free(wide);
    if (h == INVALID_HANDLE_VALUE)
        return clrie_os__error(GetLastError());
    r = make(h, 1, out);
    if (r != 0)
        CloseHandle(h);
    return r;
}

int clrie_os_file_wrap(int descriptor, struct clrie_os_file **out)
{
    intptr_t h = descriptor >= 0 ? _get_osfhandle(descriptor) : -1;
    if (h == -1 || h == -2)
        return -EBADF;
    return make((HANDLE)h, 0, out);
}

void clrie_os_file_close(struct clrie_os_file *file)
{
    if (!file)
        return;
    if (file->owned)
        CloseHandle(file->handle);
    free(file);
}

int clrie_os_file_info(struct clrie_os_file *file, struct clrie_os_file_info *info)
{
    BY_HANDLE_FILE_INFORMATION bh;
    if (GetFileType(file->handle) != FILE_TYPE_DISK) {
        info->kind = CLRIE_OS_OTHER;
        info->size = 0;
        return 0;
    }
    if (!GetFileInformationByHandle(file->handle, &bh))
        return clrie_os__error(GetLastError());
    info->kind =
        (bh.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) ? CLRIE_OS_DIRECTORY : CLRIE_OS_FILE;
    info->size = ((uint64_t)bh.nFileSizeHigh << 32) | bh.nFileSizeLow;
    return 0;
}

/* ReadFile takes a DWORD count: larger reads go in pieces. */
#define MAX_READ ((DWORD)1 << 30)

int clrie_os_file_read(struct clrie_os_file *file, void *buf, size_t len, size_t *got)
{
    DWORD n = 0;
    if (!ReadFile(file->handle, buf, len > MAX_READ ? MAX_READ : (DWORD)len, &n, NULL)) {
        DWORD error = GetLastError();
        if (error != ERROR_HANDLE_EOF && error != ERROR_BROKEN_PIPE)
            return clrie_os__error(error);
        n = 0;
    }
    *got = n;
    return 0;
}

int clrie_os_file_read_at(struct clrie_os_file *file, uint64_t offset, void *buf, size_t len,
                          size_t *got)
{
    size_t done = 0;
    while (done < len) {
        uint64_t at = offset + done;
        OVERLAPPED where = {.Offset = (DWORD)at, .OffsetHigh = (DWORD)(at >> 32)};
        size_t want = len - done;
        DWORD n = 0;
        if (!ReadFile(file->handle, (char *)buf + done, want > MAX_READ ? MAX_READ : (DWORD)want,
                      &n, &where)) {
            DWORD error = GetLastError();
            if (error == ERROR_HANDLE_EOF)
                break;
            return clrie_os__error(error);
        }
        if (n == 0)
            break;
        done += n;
    }
    *got = done;
    return 0;
}

int clrie_os_file_path(struct clrie_os_file *file, char **out)
{
    return clrie_os__final_path(file->handle, out);
}

intptr_t clrie_os_file_native(const struct clrie_os_file *file)
{
    return (intptr_t)file->handle;
}
