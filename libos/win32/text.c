/* UTF-8 and UTF-16 at the Win32 boundary, and Win32 errors as errno values (text.h). */
#include "text.h"

#include <errno.h>
#include <stdlib.h>
#include <wchar.h>

int clrie_os__utf16(const char *text, wchar_t **out)
{
    int units = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, text, -1, NULL, 0);
    if (units <= 0)
        return -EILSEQ;
    wchar_t *wide = malloc((size_t)units * sizeof(*wide));
    if (!wide)
        return -ENOMEM;
    if (MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, text, -1, wide, units) != units) {
        free(wide);
        return -EILSEQ;
    }
    *out = wide;
    return 0;
}

int clrie_os__utf8(const wchar_t *text, char **out)
{
    int bytes = WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, text, -1, NULL, 0, NULL, NULL);
    if (bytes <= 0)
        return -EILSEQ;
    char *narrow = malloc((size_t)bytes);
    if (!narrow)
        return -ENOMEM;
    if (WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, text, -1, narrow, bytes, NULL, NULL) !=
        bytes) {
        free(narrow);
        return -EILSEQ;
    }
    *out = narrow;
    return 0;
}

int clrie_os__error(DWORD code)
{
    switch (code) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_DRIVE:
    case ERROR_BAD_NETPATH:
    case ERROR_BAD_NET_NAME:
    case ERROR_BAD_PATHNAME:
    case ERROR_INVALID_NAME:
        return -ENOENT;
    case ERROR_DIRECTORY:
        return -ENOTDIR;
    case ERROR_ACCESS_DENIED:
    case ERROR_SHARING_VIOLATION:
    case ERROR_LOCK_VIOLATION:
        return -EACCES;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY:
        return -ENOMEM;
    case ERROR_FILE_EXISTS:
    case ERROR_ALREADY_EXISTS:
        return -EEXIST;
    case ERROR_FILENAME_EXCED_RANGE:
        return -ENAMETOOLONG;
    default:
        return -EIO;
    }
}

int clrie_os__final_path(HANDLE h, char **out)
{
    DWORD flags = FILE_NAME_NORMALIZED | VOLUME_NAME_DOS;
    DWORD units = GetFinalPathNameByHandleW(h, NULL, 0, flags);
    if (units == 0)
        return clrie_os__error(GetLastError());
    wchar_t *wide = malloc(((size_t)units + 1) * sizeof(*wide));
    if (!wide)
        return -ENOMEM;
    DWORD got = GetFinalPathNameByHandleW(h, wide, units + 1, flags);
    if (got == 0 || got > units) {
        int r = got == 0 ? clrie_os__error(GetLastError()) : -EIO;
        free(wide);
        return r;
    }
    /* \\?\C:\x becomes C:\x; \\?\UNC\server\share becomes \\server\share. */
    wchar_t *path = wide;
    if (wcsncmp(path, L"\\\\?\\UNC\\", 8) == 0) {
        path += 6;
        path[0] = L'\\';
    } else if (wcsncmp(path, L"\\\\?\\", 4) == 0) {
        path += 4;
    }
    int r = clrie_os__utf8(path, out);
    free(wide);
    return r;
}
