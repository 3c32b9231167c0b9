/* The default engine on POSIX: the one this build installs (its path fixed by Meson). */
#define _GNU_SOURCE /* strdup */
#include "paths.h"

#include <errno.h>
#include <string.h>

#ifndef CLRIE_ATTACH_DEFAULT_ENGINE
#define CLRIE_ATTACH_DEFAULT_ENGINE "libInstrumentationEngine.so"
#endif

int attach_default_engine(char **out)
{
    *out = strdup(CLRIE_ATTACH_DEFAULT_ENGINE);
    return *out ? 0 : -ENOMEM;
}
