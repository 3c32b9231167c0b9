/* Words for errno values on Windows (clrie/os/error.h), from the C runtime. */
#include "clrie/os/error.h"

#include <stdio.h>
#include <string.h>

const char *clrie_os_strerror(int err, char *buf, size_t len)
{
    if (len == 0)
        return buf;
    if (strerror_s(buf, len, err) != 0)
        snprintf(buf, len, "error %d", err);
    return buf;
}
