#include "utf16.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

size_t clrie_pm_utf16_len(const char16_t *text)
{
    size_t n = 0;
    if (text)
        while (text[n])
            n++;
    return n;
}

/* Decodes one UTF-8 sequence at text[*pos]; returns the code point or -1 if invalid. */
static int32_t next_utf8(const unsigned char *text, size_t len, size_t *pos)
{
    unsigned char lead = text[*pos];
    size_t need;
    uint32_t cp, min;
    if (lead < 0x80) {
        (*pos)++;
        return lead;
    } else if (lead >= 0xC2 && lead <= 0xDF) {
        need = 1, cp = lead & 0x1F, min = 0x80;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        need = 2, cp = lead & 0x0F, min = 0x800;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        need = 3, cp = lead & 0x07, min = 0x10000;
    } else {
        return -1;
    }
    if (len - *pos <= need)
        return -1;
    for (size_t i = 1; i <= need; i++) {
        unsigned char c = text[*pos + i];
        if ((c & 0xC0) != 0x80)
            return -1;
        cp = (cp << 6) | (c & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return -1;
    *pos += need + 1;
    return (int32_t)cp;
}

int clrie_pm_utf8_to_utf16(const char *text, size_t len, char16_t **out, size_t *out_len)
{
    if (!text || !out)
        return -EINVAL;
    /* Each byte yields at most one unit (4-byte sequences yield two units). */
    char16_t *units = malloc((len + 1) * sizeof(*units));
    if (!units)
        return -ENOMEM;
    const unsigned char *bytes = (const unsigned char *)text;
    size_t pos = 0, n = 0;
    while (pos < len) {
        int32_t cp = next_utf8(bytes, len, &pos);
        if (cp < 0) {
            free(units);
            return -EILSEQ;
        }
        if (cp >= 0x10000) {
            cp -= 0x10000;
            units[n++] = (char16_t)(0xD800 + (cp >> 10));
            units[n++] = (char16_t)(0xDC00 + (cp & 0x3FF));
        } else {
            units[n++] = (char16_t)cp;
        }
    }
    units[n] = 0;
    *out = units;
    if (out_len)
        *out_len = n;
    return 0;
}

static size_t put_utf8(char *dst, uint32_t cp)
{
    if (cp < 0x80) {
        dst[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        dst[0] = (char)(0xC0 | (cp >> 6));
        dst[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        dst[0] = (char)(0xE0 | (cp >> 12));
        dst[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        dst[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    dst[0] = (char)(0xF0 | (cp >> 18));
    dst[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    dst[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    dst[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

int clrie_pm_utf16_to_utf8(const char16_t *text, size_t len, bool lossy, char **out,
                           size_t *out_len)
{
    if ((!text && len) || !out)
        return -EINVAL;
    if (len > (SIZE_MAX - 1) / 3)
        return -ENOMEM;
    /* A unit yields at most 3 bytes; a surrogate pair (2 units) yields 4. */
    char *bytes = malloc(len * 3 + 1);
    if (!bytes)
        return -ENOMEM;
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        uint32_t cp = text[i];
        if (cp >= 0xD800 && cp <= 0xDBFF && i + 1 < len && text[i + 1] >= 0xDC00 &&
            text[i + 1] <= 0xDFFF) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (text[i + 1] - 0xDC00u);
            i++;
        } else if (cp >= 0xD800 && cp <= 0xDFFF) {
            if (!lossy) {
                free(bytes);
                return -EILSEQ;
            }
            cp = 0xFFFD;
        }
        n += put_utf8(bytes + n, cp);
    }
    bytes[n] = '\0';
    *out = bytes;
    if (out_len)
        *out_len = n;
    return 0;
}

#define BSTR_PREFIX sizeof(uint32_t)

char16_t *clrie_pm_bstr_new(const char16_t *text, size_t len)
{
    if (len > (UINT32_MAX - BSTR_PREFIX) / sizeof(char16_t) - 1)
        return NULL;
    unsigned char *block = malloc(BSTR_PREFIX + (len + 1) * sizeof(char16_t));
    if (!block)
        return NULL;
    uint32_t bytes = (uint32_t)(len * sizeof(char16_t));
    memcpy(block, &bytes, sizeof(bytes));
    char16_t *bstr = (char16_t *)(void *)(block + BSTR_PREFIX);
    if (text)
        memcpy(bstr, text, len * sizeof(char16_t));
    else
        memset(bstr, 0, len * sizeof(char16_t));
    bstr[len] = 0;
    return bstr;
}

char16_t *clrie_pm_bstr_from_utf8(const char *text)
{
    char16_t *units;
    size_t n;
    if (!text || clrie_pm_utf8_to_utf16(text, strlen(text), &units, &n) != 0)
        return NULL;
    char16_t *bstr = clrie_pm_bstr_new(units, n);
    free(units);
    return bstr;
}

size_t clrie_pm_bstr_len(const char16_t *bstr)
{
    if (!bstr)
        return 0;
    uint32_t bytes;
    memcpy(&bytes, (const unsigned char *)bstr - BSTR_PREFIX, sizeof(bytes));
    return bytes / sizeof(char16_t);
}

void clrie_pm_bstr_free(char16_t *bstr)
{
    if (bstr)
        free((unsigned char *)bstr - BSTR_PREFIX);
}
