/* UTF-8 and UTF-16 at the Win32 boundary, and Win32 errors as errno values (text.h). */
#include "text.h"

#include <errno.h>
#include <stdlib.h>

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
