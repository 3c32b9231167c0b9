/* CLRIE's install location on Windows: <Program Files of the proxy's bitness>\Microsoft CLR
 * Instrumentation Engine. A 32-bit proxy on 64-bit Windows reads %ProgramFiles(x86)% (a 32-bit
 * process sees the same folder in %ProgramFiles%); on 32-bit Windows that variable is not set
 * and %ProgramFiles% is the only one. */
#include "install_root.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clrie/os/env.h"

#define INSTALL_FOLDER "Microsoft CLR Instrumentation Engine"

int proxy_install_root(char **root, char *why, size_t why_size)
{
    static const char *const names[] = {
#if defined(_M_IX86) || defined(__i386__)
        "ProgramFiles(x86)",
#endif
        "ProgramFiles",
    };
    *root = NULL;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        char *folder = NULL;
        int r = clrie_os_env_get(names[i], &folder);
        if (r == -ENOENT || (r == 0 && folder[0] == '\0')) {
            free(folder);
            continue;
        }
        if (r != 0) {
            snprintf(why, why_size, "cannot read %%%s%%", names[i]);
            return r;
        }
        size_t n = strlen(folder);
        while (n > 0 && (folder[n - 1] == '\\' || folder[n - 1] == '/'))
            n--;
        *root = malloc(n + sizeof("\\" INSTALL_FOLDER));
        if (*root) {
            memcpy(*root, folder, n);
            memcpy(*root + n, "\\" INSTALL_FOLDER, sizeof("\\" INSTALL_FOLDER));
        }
        free(folder);
        return *root ? 0 : -ENOMEM;
    }
    snprintf(why, why_size, "%%ProgramFiles%% is not set");
    return -ENOENT;
}
