/* Files and folders on Windows (clrie/os/fs.h): UTF-16 at every call into the system. */
#include "clrie/os/fs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <windows.h>

#include "text.h"

int clrie_os_is_separator(char c)
{
    return c == '/' || c == '\\';
}

int clrie_os_path_is_absolute(const char *path)
{
    if (clrie_os_is_separator(path[0]))
        return clrie_os_is_separator(path[1]); /* \\server\share; "\x" is relative to a drive */
    return ((path[0] >= 'A' && path[0] <= 'Z') || (path[0] >= 'a' && path[0] <= 'z')) &&
           path[1] == ':' && clrie_os_is_separator(path[2]);
}

/* Opens what path leads to with no access asked, links followed, only to ask about it (a
 * folder opens only with backup semantics): 0 and *h, to be closed. */
static int open_to_ask(const char *path, HANDLE *h)
{
    wchar_t *wide = NULL;
    int r = clrie_os__utf16(path, &wide);
    if (r != 0)
        return r;
    *h = CreateFileW(wide, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                     OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
    free(wide);
    return *h == INVALID_HANDLE_VALUE ? clrie_os__error(GetLastError()) : 0;
}

int clrie_os_path_absolute(const char *path, char **out)
{
    wchar_t *wide = NULL;
    int r = clrie_os__utf16(path, &wide);
    if (r != 0)
        return r;
    DWORD size = GetFullPathNameW(wide, 0, NULL, NULL);
    wchar_t *full = size ? malloc(size * sizeof(*full)) : NULL;
    if (size == 0)
        r = clrie_os__error(GetLastError());
    else if (!full)
        r = -ENOMEM;
    else if (GetFullPathNameW(wide, size, full, NULL) == 0)
        r = clrie_os__error(GetLastError());
    else
        r = clrie_os__utf8(full, out);
    free(full);
    free(wide);
    return r;
}

int clrie_os_path_canonical(const char *path, char **out)
{
    HANDLE h;
    int r = open_to_ask(path, &h);
    if (r != 0)
        return r;
    r = clrie_os__final_path(h, out);
    CloseHandle(h);
    return r;
}

int clrie_os_path_kind(const char *path, enum clrie_os_kind *kind)
{
    HANDLE h;
    int r = open_to_ask(path, &h);
    if (r != 0)
        return r;
    BY_HANDLE_FILE_INFORMATION info;
    if (!GetFileInformationByHandle(h, &info)) {
        r = clrie_os__error(GetLastError());
    } else if (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) {
        *kind = CLRIE_OS_DIRECTORY;
    } else {
        *kind = GetFileType(h) == FILE_TYPE_DISK ? CLRIE_OS_FILE : CLRIE_OS_OTHER;
    }
    CloseHandle(h);
    return r;
}

struct clrie_os_dir {
    HANDLE find;
    WIN32_FIND_DATAW data;
    int pending; /* data holds an entry not given yet */
    char *name;  /* the last name given */
};

int clrie_os_dir_open(const char *path, struct clrie_os_dir **out)
{
    size_t n = strlen(path);
    char *pattern = malloc(n + 3);
    if (!pattern)
        return -ENOMEM;
    memcpy(pattern, path, n);
    if (n > 0 && !clrie_os_is_separator(path[n - 1]))
        pattern[n++] = '\\';
    pattern[n++] = '*';
    pattern[n] = '\0';
    wchar_t *wide = NULL;
    int r = clrie_os__utf16(pattern, &wide);
    free(pattern);
    if (r != 0)
        return r;
    struct clrie_os_dir *d = calloc(1, sizeof(*d));
    if (!d) {
        free(wide);
        return -ENOMEM;
    }
    d->find = FindFirstFileExW(wide, FindExInfoBasic, &d->data, FindExSearchNameMatch, NULL, 0);
    DWORD error = GetLastError();
    free(wide);
    if (d->find == INVALID_HANDLE_VALUE) {
        free(d);
        /* An empty folder has "." and ".." at least; a missing one says so. */
        return error == ERROR_FILE_NOT_FOUND ? -ENOENT : clrie_os__error(error);
    }
    d->pending = 1;
    *out = d;
    return 0;
}

int clrie_os_dir_next(struct clrie_os_dir *dir, const char **name)
{
    for (;;) {
        if (!dir->pending) {
            if (!FindNextFileW(dir->find, &dir->data)) {
                DWORD error = GetLastError();
                return error == ERROR_NO_MORE_FILES ? 0 : clrie_os__error(error);
            }
        }
        dir->pending = 0;
        const wchar_t *entry = dir->data.cFileName;
        if (wcscmp(entry, L".") == 0 || wcscmp(entry, L"..") == 0)
            continue;
        free(dir->name);
        dir->name = NULL;
        int r = clrie_os__utf8(entry, &dir->name);
        if (r == -EILSEQ)
            continue;
        if (r != 0)
            return r;
        *name = dir->name;
        return 1;
    }
}

void clrie_os_dir_close(struct clrie_os_dir *dir)
{
    if (!dir)
        return;
    FindClose(dir->find);
    free(dir->name);
    free(dir);
}
