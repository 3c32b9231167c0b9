/* Loading modules on Windows (clrie/os/module.h): LoadLibraryExW and its relatives. */
#include "clrie/os/module.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <windows.h>

#include "text.h"

/* The system's message for a loader error, in UTF-8 into why. */
static void describe(DWORD error, char *why, size_t why_len)
{
    if (!why || !why_len)
        return;
    WCHAR text[512];
    DWORD n = FormatMessageW(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL,
                             error, 0, text, 512, NULL);
    while (n > 0 && (text[n - 1] == L'\r' || text[n - 1] == L'\n' || text[n - 1] == L' '))
        text[--n] = 0;
    char *words = NULL;
    if (n > 0 && clrie_os__utf8(text, &words) == 0) {
        snprintf(why, why_len, "%s (Windows error %lu)", words, (unsigned long)error);
        free(words);
    } else {
        snprintf(why, why_len, "Windows error %lu", (unsigned long)error);
    }
}

int clrie_os_module_load(const char *path, struct clrie_os_module **out, char *why, size_t why_len)
{
    wchar_t *wide = NULL;
    int r = clrie_os__utf16(path, &wide);
    if (r != 0)
        return r;
    /* The module's folder first for its own dependencies; no error box for a bad image. */
    UINT mode = SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX);
    HMODULE handle = LoadLibraryExW(wide, NULL, LOAD_WITH_ALTERED_SEARCH_PATH);
    DWORD error = GetLastError();
    SetErrorMode(mode);
    bool present = GetFileAttributesW(wide) != INVALID_FILE_ATTRIBUTES;
    free(wide);
    if (!handle) {
        describe(error, why, why_len);
        switch (error) {
        case ERROR_BAD_EXE_FORMAT:
        case ERROR_INVALID_DLL:
        case ERROR_DLL_INIT_FAILED:
            return -ENOEXEC;
        case ERROR_MOD_NOT_FOUND: /* also a dependency that is missing: the file itself may
                                     be there */
            return present ? -ENOEXEC : -ENOENT;
        default:
            return clrie_os__error(error);
        }
    }
    *out = (struct clrie_os_module *)handle;
    return 0;
}

int clrie_os_module_find(const char *name, struct clrie_os_module **out)
{
    wchar_t *wide = NULL;
    int r = clrie_os__utf16(name, &wide);
    if (r != 0)
        return r;
    HMODULE handle = NULL;
    BOOL found = GetModuleHandleExW(0, wide, &handle);
    free(wide);
    if (!found)
        return -ENOENT;
    *out = (struct clrie_os_module *)handle;
    return 0;
}

clrie_os_function clrie_os_module_function(struct clrie_os_module *module, const char *name)
{
    return (clrie_os_function)(void (*)(void))GetProcAddress((HMODULE)module, name);
}

void clrie_os_module_unload(struct clrie_os_module *module)
{
    if (module)
        FreeLibrary((HMODULE)module);
}

static HMODULE holder(const void *address, DWORD flags)
{
    HMODULE handle = NULL;
    if (!GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | flags, (LPCWSTR)address,
                            &handle))
        return NULL;
    return handle;
}

int clrie_os_module_path_of(const void *address, char **out)
{
    HMODULE handle = holder(address, GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT);
    if (!handle)
        return -ENOENT;
    DWORD capacity = MAX_PATH;
    for (;;) {
        wchar_t *path = malloc(capacity * sizeof(*path));
        if (!path)
            return -ENOMEM;
        DWORD n = GetModuleFileNameW(handle, path, capacity);
        if (n == 0) {
            free(path);
            return clrie_os__error(GetLastError());
        }
        if (n < capacity) {
            int r = clrie_os__utf8(path, out);
            free(path);
            return r;
        }
        free(path);
        if (capacity >= 32768)
            return -ENAMETOOLONG;
        capacity *= 2;
    }
}

int clrie_os_module_pin(const void *address)
{
    return holder(address, GET_MODULE_HANDLE_EX_FLAG_PIN) ? 0 : -ENOENT;
}
