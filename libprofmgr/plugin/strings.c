/* Engine strings and text (clrie/plugin.h): freeing the engine's BSTRs with the engine's own
 * allocator, UTF-16 to UTF-8 and back, UTF-16 buffers for metadata. */
#include "clrie/plugin.h"

#include <stdlib.h>
#include <string.h>

#include "clrie/os/module.h"

/* Found once per plugin .so; the engine, once loaded, stays for the life of the process. */
static clrie_plugin_free_string_fn engine_free_string;

clrie_plugin_free_string_fn clrie_plugin_engine_free_string(void)
{
    clrie_plugin_free_string_fn fn = __atomic_load_n(&engine_free_string, __ATOMIC_ACQUIRE);
    if (fn)
        return fn;
    struct clrie_os_module *engine = NULL;
    if (clrie_os_module_find(CLRIE_ENGINE_FILE_NAME, &engine) != 0)
        return NULL;
    fn = (clrie_plugin_free_string_fn)clrie_os_module_function(engine,
                                                               "InstrumentationEngineFreeString");
    clrie_os_module_unload(engine); /* find took a reference; the engine stays loaded */
    __atomic_store_n(&engine_free_string, fn, __ATOMIC_RELEASE);
    return fn;
}

void clrie_plugin_free_bstr(IProfilerStringManager *strings, BSTR text)
{
    if (!text)
        return;
    if (strings) {
        strings->lpVtbl->FreeString(strings, text);
        return;
    }
    clrie_plugin_free_string_fn fn = clrie_plugin_engine_free_string();
    if (fn)
        fn(text);
    /* else: no way to free the engine's allocation; a few bytes leak, never misfreed */
}

/* The code point at text[*i] (advancing *i past a surrogate pair); unpaired surrogates are
 * U+FFFD. */
static uint32_t utf16_next(const WCHAR *text, size_t *i)
{
    uint32_t c = text[*i];
    if (c >= 0xD800 && c <= 0xDBFF && text[*i + 1] >= 0xDC00 && text[*i + 1] <= 0xDFFF)
        return 0x10000 + ((c - 0xD800) << 10) + (uint32_t)(text[++*i] - 0xDC00);
    return c >= 0xD800 && c <= 0xDFFF ? 0xFFFD : c;
}

/* Writes c as UTF-8 at out; returns the bytes written (1-4). */
static size_t utf8_put(uint32_t c, char *out)
{
    if (c < 0x80) {
        out[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        out[0] = (char)(0xC0 | (c >> 6));
        out[1] = (char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        out[0] = (char)(0xE0 | (c >> 12));
        out[1] = (char)(0x80 | ((c >> 6) & 0x3F));
        out[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (c >> 18));
    out[1] = (char)(0x80 | ((c >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((c >> 6) & 0x3F));
    out[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

char *clrie_plugin_bstr_to_utf8(const WCHAR *text)
{
    size_t len = 0;
    while (text && text[len])
        len++;
    char *out = malloc(len * 3 + 1);
    if (!out)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += utf8_put(utf16_next(text, &i), out + n);
    out[n] = '\0';
    return out;
}

size_t clrie_plugin_bstr_to_utf8_buf(const WCHAR *text, char *out, size_t size)
{
    size_t n = 0;
    for (size_t i = 0; text && text[i] && n + 5 <= size; i++) {
        uint32_t c = utf16_next(text, &i);
        if (c < 0x20 || c == 0x7F)
            c = '?';
        n += utf8_put(c, out + n);
    }
    if (size)
        out[n] = '\0';
    return n;
}

char *clrie_plugin_take_utf8(IProfilerStringManager *strings, HRESULT hr, BSTR *text)
{
    char *utf8 = SUCCEEDED(hr) && *text ? clrie_plugin_bstr_to_utf8(*text) : NULL;
    clrie_plugin_free_bstr(strings, *text);
    *text = NULL;
    return utf8;
}

size_t clrie_plugin_wcs_len(const WCHAR *text)
{
    size_t n = 0;
    while (text[n])
        n++;
    return n;
}

void clrie_plugin_wcs_append(WCHAR *out, size_t capacity, const WCHAR *text)
{
    size_t n = clrie_plugin_wcs_len(out);
    while (*text && n + 1 < capacity)
        out[n++] = *text++;
    out[n] = 0;
}

/* The next code point of UTF-8 text at *p (advancing it); a malformed sequence is U+FFFD. */
static uint32_t utf8_next(const unsigned char **p)
{
    uint32_t c = *(*p)++;
    int more = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
    if ((c >= 0x80 && c < 0xC0) || c >= 0xF8)
        return 0xFFFD;
    c &= more == 3 ? 0x07 : more == 2 ? 0x0F : more == 1 ? 0x1F : 0x7F;
    for (; more > 0; more--, (*p)++) {
        if ((**p & 0xC0) != 0x80)
            return 0xFFFD;
        c = (c << 6) | (**p & 0x3F);
    }
    return c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF) ? 0xFFFD : c;
}

void clrie_plugin_wcs_append_utf8(WCHAR *out, size_t capacity, const char *text)
{
    size_t n = clrie_plugin_wcs_len(out);
    const unsigned char *p = (const unsigned char *)text;
    while (*p && n + 2 < capacity) {
        uint32_t c = utf8_next(&p);
        if (c >= 0x10000) {
            c -= 0x10000;
            out[n++] = (WCHAR)(0xD800 + (c >> 10));
            out[n++] = (WCHAR)(0xDC00 + (c & 0x3FF));
        } else {
            out[n++] = (WCHAR)c;
        }
    }
    out[n] = 0;
}
