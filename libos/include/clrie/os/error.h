/* clrie/os/error.h: words for the negative errno values libos returns. */
#ifndef CLRIE_OS_ERROR_H
#define CLRIE_OS_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A description of the errno value err (positive), written into buf and returned; never
 * NULL, also for a value the system does not know. Thread-safe. */
const char *clrie_os_strerror(int err, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
