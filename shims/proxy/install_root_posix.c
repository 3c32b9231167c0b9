/* Linux has no fixed install location: an install is found from the proxy's own folder (or
 * InstrumentationEngineProxy_RootPath). */
#include "install_root.h"

#include <errno.h>
#include <stdio.h>

int proxy_install_root(char **root, char *why, size_t why_size)
{
    *root = NULL;
    snprintf(why, why_size, "this system has no fixed install location");
    return -ENOENT;
}
