/* A message from the managed library made one log line (clrie_tracer_log, watch.c). */
#include "match.h"

#include <string.h>

void clrie_tracer_one_line(const char *message, char *out, size_t size)
{
    if (size == 0)
        return;
    size_t n = strlen(message), keep = n;
    bool cut = n > size - 1;
    if (cut) {
        keep = size > 4 ? size - 4 : 0; /* room for "..." and the NUL */
        while (keep > 0 && ((unsigned char)message[keep] & 0xC0) == 0x80)
            keep--; /* not inside a UTF-8 sequence */
    }
    for (size_t i = 0; i < keep; i++) {
        unsigned char c = (unsigned char)message[i];
        out[i] = c < 0x20 || c == 0x7F ? ' ' : (char)c;
    }
    if (cut && size > 4) {
        memcpy(out + keep, "...", 4);
    } else {
        out[keep] = '\0';
    }
}
