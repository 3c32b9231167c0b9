/* The default engine on Windows: the one of the install the program sits in (its Tools
 * folder's parent). */
#include "paths.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "clrie/os/fs.h"
#include "clrie/os/process.h"

#ifndef CLRIE_ATTACH_ENGINE_FILE
#define CLRIE_ATTACH_ENGINE_FILE "MicrosoftInstrumentationEngine_x64.dll"
#endif

int attach_default_engine(char **out)
{
    char *program = NULL;
    int r = clrie_os_process_program(&program);
    if (r != 0)
        return r;
    /* <install>\Tools\clrie-attach.exe: cut the name, then the Tools folder. */
    for (int up = 0; up < 2; up++) {
        char *cut = (char *)clrie_os_path_last_separator(program);
        if (cut)
            *cut = '\0';
    }
    size_t n = strlen(program);
    *out = malloc(n + sizeof("\\" CLRIE_ATTACH_ENGINE_FILE));
    if (*out) {
        memcpy(*out, program, n);
        memcpy(*out + n, "\\" CLRIE_ATTACH_ENGINE_FILE, sizeof("\\" CLRIE_ATTACH_ENGINE_FILE));
    }
    free(program);
    return *out ? 0 : -ENOMEM;
}
