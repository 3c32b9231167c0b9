/* The environment on Windows (clrie/os/env.h): the UTF-16 environment block, as UTF-8. */
#include "clrie/os/env.h"

#include <errno.h>
#include <stdlib.h>
#include <wchar.h>
#include <windows.h>

#include "text.h"

int clrie_os_env_get(const char *name, char **value)
{
    wchar_t *wide = NULL;
    int r = clrie_os__utf16(name, &wide);
    if (r != 0)
        return r;
    SetLastError(ERROR_SUCCESS);
    DWORD units = GetEnvironmentVariableW(wide, NULL, 0);
    wchar_t *text = NULL;
    for (;;) {
        if (units == 0) {
            /* Unset, or set to the empty string (units is then 1). */
            r = GetLastError() == ERROR_ENVVAR_NOT_FOUND ? -ENOENT : -EIO;
            goto out;
        }
        wchar_t *bigger = realloc(text, (size_t)units * sizeof(*text));
        if (!bigger) {
            r = -ENOMEM;
            goto out;
        }
        text = bigger;
        DWORD got = GetEnvironmentVariableW(wide, text, units);
        if (got < units) { /* it fit: got excludes the terminating 0 */
            r = clrie_os__utf8(text, value);
            goto out;
        }
        units = got; /* it grew in between */
    }
out:
    free(wide);
    free(text);
    return r;
}

int clrie_os_env_block(char ***out)
{
    wchar_t *strings = GetEnvironmentStringsW();
    if (!strings)
        return -ENOMEM;
    size_t count = 0;
    for (const wchar_t *e = strings; *e; e += wcslen(e) + 1)
        count++;
    char **block = calloc(count + 1, sizeof(*block));
    int r = block ? 0 : -ENOMEM;
    size_t n = 0;
    for (const wchar_t *e = strings; r == 0 && *e; e += wcslen(e) + 1) {
        /* A variable that is not UTF-16 (an unpaired surrogate) cannot be named in UTF-8. */
        r = clrie_os__utf8(e, &block[n]);
        if (r == 0)
            n++;
        else if (r == -EILSEQ)
            r = 0;
    }
    FreeEnvironmentStringsW(strings);
    if (r != 0) {
        clrie_os_env_block_free(block);
        return r;
    }
    *out = block;
    return 0;
}
