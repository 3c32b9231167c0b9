/* The trust rule: who may have changed a file that decides what code runs in the process.
 * One rule for every such file: configuration files (files.c), the Modules they name
 * (paths.c), and, through clrie_config_module_check (module.c), the plugins added through the
 * API, the raw profiler hook and the engine the proxy loads. What "may have changed" means is
 * the system's: trust_posix.c and trust_win32.c. */
#include "config_private.h"

#include <errno.h>

#include "clrie/os/file.h"

int clrie_config_trust_check(int fd, const char *canonical_path, char *why, size_t why_len)
{
    if (!canonical_path)
        return -EINVAL;
    struct clrie_os_file *file = NULL;
    int r = clrie_os_file_wrap(fd, &file);
    if (r != 0) {
        clrie_config__why(why, why_len, "not an open file");
        return r;
    }
    r = clrie_config__trust_file(file, canonical_path, why, why_len);
    clrie_os_file_close(file);
    return r;
}
