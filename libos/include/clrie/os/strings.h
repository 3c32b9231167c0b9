/* clrie/os/strings.h: the string helpers that not every C library has (Windows' lacks
 * strndup), and freeing the string arrays libos hands out.
 *
 * Threads: pure functions. */
#ifndef CLRIE_OS_STRINGS_H
#define CLRIE_OS_STRINGS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The first n bytes of text (fewer if it ends first) as a new string, or NULL when out of
 * memory: strndup. */
char *clrie_os_strndup(const char *text, size_t n);

/* Frees a NULL-terminated array of malloc'd strings and the array; NULL is fine. */
void clrie_os_strings_free(char **strings);

#ifdef __cplusplus
}
#endif

#endif
