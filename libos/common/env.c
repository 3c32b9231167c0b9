/* Reading an environment array (clrie/os/env.h): the same on every system, names compared as
 * the system does (clrie_os_env_entry_after). */
#include "clrie/os/env.h"

#include <stddef.h>

const char *clrie_os_env_lookup(char *const *envp, const char *name)
{
    for (; envp && *envp; envp++) {
        const char *rest = clrie_os_env_entry_after(*envp, name);
        if (rest && *rest == '=')
            return rest + 1;
    }
    return NULL;
}
