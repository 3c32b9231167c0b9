/* Paths on POSIX: the engine this build installs (its path fixed by Meson), and a path made
 * absolute against getcwd. */
#define _GNU_SOURCE
#include "paths.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef CLRIE_ATTACH_DEFAULT_ENGINE
#define CLRIE_ATTACH_DEFAULT_ENGINE "libInstrumentationEngine.so"
#endif

int attach_default_engine(char **out)
{
    *out = strdup(CLRIE_ATTACH_DEFAULT_ENGINE);
    return *out ? 0 : -ENOMEM;
}

int attach_path_absolute(const char *path, char **out)
{
    if (path[0] == '/') {
        *out = strdup(path);
        return *out ? 0 : -ENOMEM;
    }
    char *cwd = getcwd(NULL, 0);
    if (!cwd)
        return -errno;
    int n = asprintf(out, "%s/%s", cwd, path);
    free(cwd);
    return n < 0 ? -ENOMEM : 0;
}
