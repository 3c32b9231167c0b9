/* Values of configuration elements: GUIDs in registry form and priorities. */
#include "config_private.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

bool clrie_config__is_xml_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Reads `digits` hex digits at text into *out. */
static bool read_hex(const char *text, size_t digits, uint32_t *out)
{
    uint32_t v = 0;
    for (size_t i = 0; i < digits; i++) {
        int h = hex_value(text[i]);
        if (h < 0)
            return false;
        v = v << 4 | (uint32_t)h;
    }
    *out = v;
    return true;
}

int clrie_config_guid_parse(const char *text, size_t len, struct clrie_config_guid *out)
{
    if (!text || !out)
        return -EINVAL;
    /* {XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}: offsets of the fixed characters. */
    if (len != CLRIE_CONFIG_GUID_TEXT_LEN || text[0] != '{' || text[9] != '-' || text[14] != '-' ||
        text[19] != '-' || text[24] != '-' || text[37] != '}')
        return -EILSEQ;
    struct clrie_config_guid g;
    uint32_t v;
    if (!read_hex(text + 1, 8, &v))
        return -EILSEQ;
    g.data1 = v;
    if (!read_hex(text + 10, 4, &v))
        return -EILSEQ;
    g.data2 = (uint16_t)v;
    if (!read_hex(text + 15, 4, &v))
        return -EILSEQ;
    g.data3 = (uint16_t)v;
    static const size_t byte_at[8] = {20, 22, 25, 27, 29, 31, 33, 35};
    for (size_t i = 0; i < 8; i++) {
        if (!read_hex(text + byte_at[i], 2, &v))
            return -EILSEQ;
        g.data4[i] = (uint8_t)v;
    }
    *out = g;
    return 0;
}

void clrie_config_guid_format(const struct clrie_config_guid *g,
                              char buf[CLRIE_CONFIG_GUID_TEXT_LEN + 1])
{
    snprintf(buf, CLRIE_CONFIG_GUID_TEXT_LEN + 1,
             "{%08X-%04X-%04X-%02X%02X-%02X%02X%02X%02X%02X%02X}", (unsigned)g->data1,
             (unsigned)g->data2, (unsigned)g->data3, g->data4[0], g->data4[1], g->data4[2],
             g->data4[3], g->data4[4], g->data4[5], g->data4[6], g->data4[7]);
}

/* Decimal digits only (leading zeros allowed), 0..4294967295. Returns 0, -EILSEQ for
 * anything that is not digits, -ERANGE for a number too large. */
int clrie_config__parse_priority(const char *text, uint32_t *out)
{
    if (!*text)
        return -EILSEQ;
    uint64_t v = 0;
    for (const char *p = text; *p; p++) {
        if (*p < '0' || *p > '9')
            return -EILSEQ;
        if (v <= UINT32_MAX)
            v = v * 10 + (uint64_t)(*p - '0');
    }
    if (v > UINT32_MAX)
        return -ERANGE;
    *out = (uint32_t)v;
    return 0;
}
