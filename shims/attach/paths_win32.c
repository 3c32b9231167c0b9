/* Paths on Windows: the engine of the install the program sits in (its Tools folder's parent),
 * and a path made absolute by GetFullPathNameW. */
#include "paths.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include "clrie/os/fs.h"
#include "clrie/os/process.h"

#ifndef CLRIE_ATTACH_ENGINE_FILE
#define CLRIE_ATTACH_ENGINE_FILE "MicrosoftInstrumentationEngine_x64.dll"
#endif

int attach_default_engine(char **out)
{
    char *program = NULL;
    int r = clrie_os_process_program(&program);
    if (r != 0)
        return r;
    /* <install>\Tools\clrie-attach.exe: cut the name, then the Tools folder. */
    for (int up = 0; up < 2; up++) {
        char *cut = (char *)clrie_os_path_last_separator(program);
        if (cut)
            *cut = '\0';
    }
    size_t n = strlen(program);
    *out = malloc(n + sizeof("\\" CLRIE_ATTACH_ENGINE_FILE));
    if (*out) {
        memcpy(*out, program, n);
        memcpy(*out + n, "\\" CLRIE_ATTACH_ENGINE_FILE, sizeof("\\" CLRIE_ATTACH_ENGINE_FILE));
    }
    free(program);
    return *out ? 0 : -ENOMEM;
}

int attach_path_absolute(const char *path, char **out)
{
    int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, NULL, 0);
    if (n <= 0)
        return -EILSEQ;
    wchar_t *wide = malloc((size_t)n * sizeof(*wide));
    if (!wide)
        return -ENOMEM;
    MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, wide, n);
    int r = -EIO;
    DWORD size = GetFullPathNameW(wide, 0, NULL, NULL);
    wchar_t *full = size ? malloc(size * sizeof(*full)) : NULL;
    if (full && GetFullPathNameW(wide, size, full, NULL) > 0) {
        int len = WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, full, -1, NULL, 0, NULL, NULL);
        *out = len > 0 ? malloc((size_t)len) : NULL;
        if (*out) {
            WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, full, -1, *out, len, NULL, NULL);
            r = 0;
        } else {
            r = len > 0 ? -ENOMEM : -EILSEQ;
        }
    } else if (size && !full) {
        r = -ENOMEM;
    }
    free(full);
    free(wide);
    return r;
}
