/* String helpers (clrie/os/strings.h): the same on every system. */
#include "clrie/os/strings.h"

#include <stdlib.h>
#include <string.h>

#include "clrie/os/env.h"
#include "clrie/os/process.h"

char *clrie_os_strndup(const char *text, size_t n)
{
    size_t len = 0;
    while (len < n && text[len])
        len++;
    char *copy = malloc(len + 1);
    if (copy) {
        memcpy(copy, text, len);
        copy[len] = '\0';
    }
    return copy;
}

void clrie_os_strings_free(char **strings)
{
    if (!strings)
        return;
    for (char **s = strings; *s; s++)
        free(*s);
    free(strings);
}

void clrie_os_env_block_free(char **block)
{
    clrie_os_strings_free(block);
}

void clrie_os_process_arguments_free(char **arguments)
{
    clrie_os_strings_free(arguments);
}
