/* Taking paths apart (clrie/os/fs.h): the same on every system, with its separators
 * (clrie_os_is_separator). */
#include "clrie/os/fs.h"

#include <stddef.h>

const char *clrie_os_path_last_separator(const char *path)
{
    const char *last = NULL;
    for (const char *c = path; *c; c++)
        if (clrie_os_is_separator(*c))
            last = c;
    return last;
}

const char *clrie_os_path_name(const char *path)
{
    const char *last = clrie_os_path_last_separator(path);
    return last ? last + 1 : path;
}
