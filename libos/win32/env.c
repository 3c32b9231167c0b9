/* The environment on Windows (clrie/os/env.h): the UTF-16 environment block, as UTF-8. */
#include "clrie/os/env.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
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

static char ascii_lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

const char *clrie_os_env_entry_after(const char *entry, const char *prefix)
{
    for (; *prefix; entry++, prefix++)
        if (ascii_lower(*entry) != ascii_lower(*prefix)) /* also where entry ends first */
            return NULL;
    return entry;
}

/* The last UTF-8 copy clrie_os_environ made, and the UTF-16 block it was made from. */
static SRWLOCK environ_lock = SRWLOCK_INIT;
static char **environ_copy;
static wchar_t *environ_wide;
static size_t environ_wide_units;

char *const *clrie_os_environ(void)
{
    wchar_t *strings = GetEnvironmentStringsW();
    if (!strings)
        return environ_copy;
    size_t units = 0;
    while (strings[units] || strings[units + 1])
        units++;
    units += 2;
    AcquireSRWLockExclusive(&environ_lock);
    if (!environ_copy || units != environ_wide_units ||
        memcmp(strings, environ_wide, units * sizeof(*strings)) != 0) {
        char **copy = NULL;
        wchar_t *wide = malloc(units * sizeof(*wide));
        if (wide && clrie_os_env_block(&copy) == 0) {
            memcpy(wide, strings, units * sizeof(*wide));
            /* The copies before stay allocated: a caller may still be reading one. */
            environ_copy = copy;
            environ_wide = wide;
            environ_wide_units = units;
        } else {
            free(wide);
        }
    }
    char *const *answer = environ_copy;
    ReleaseSRWLockExclusive(&environ_lock);
    FreeEnvironmentStringsW(strings);
    return answer;
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
