/* Words for errno values on POSIX systems (clrie/os/error.h). */
#include "clrie/os/error.h"

#include <stdio.h>
#include <string.h>

const char *clrie_os_strerror(int err, char *buf, size_t len)
{
    /* The XSI strerror_r (what _POSIX_C_SOURCE selects) fills buf and returns an int. */
    if (strerror_r(err, buf, len) != 0)
        snprintf(buf, len, "error %d", err);
    return buf;
}
