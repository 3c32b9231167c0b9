/* The environment on POSIX systems (clrie/os/env.h): environ is already the bytes the process
 * was given. */
#include "clrie/os/env.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

char *const *clrie_os_environ(void)
{
    return environ;
}

const char *clrie_os_env_entry_after(const char *entry, const char *prefix)
{
    size_t n = strlen(prefix);
    return strncmp(entry, prefix, n) == 0 ? entry + n : NULL;
}

int clrie_os_env_get(const char *name, char **value)
{
    const char *v = getenv(name);
    if (!v)
        return -ENOENT;
    char *copy = strdup(v);
    if (!copy)
        return -ENOMEM;
    *value = copy;
    return 0;
}

int clrie_os_env_block(char ***out)
{
    size_t count = 0;
    while (environ && environ[count])
        count++;
    char **block = calloc(count + 1, sizeof(*block));
    if (!block)
        return -ENOMEM;
    for (size_t i = 0; i < count; i++) {
        if (!(block[i] = strdup(environ[i]))) {
            clrie_os_env_block_free(block);
            return -ENOMEM;
        }
    }
    *out = block;
    return 0;
}
