/* The one-line reasons libconfig's checks give when they refuse a file (trust*.c, module.c,
 * elf.c, pe.c). */
#include "config_private.h"

#include <stdarg.h>
#include <stdio.h>

void clrie_config__why(char *why, size_t why_len, const char *fmt, ...)
{
    if (!why || why_len == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, why_len, fmt, ap);
    va_end(ap);
}
