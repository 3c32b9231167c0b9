/* Parsing and ordering of engine version strings. */
#include "clrie/version.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char preview_tag[] = "-build";

struct cursor {
    const char *text;
    size_t len;
    size_t pos;
};

static bool at_digit(const struct cursor *c)
{
    return c->pos < c->len && c->text[c->pos] >= '0' && c->text[c->pos] <= '9';
}

static bool at_literal(const struct cursor *c, const char *lit)
{
    size_t n = strlen(lit);
    return c->len - c->pos >= n && memcmp(c->text + c->pos, lit, n) == 0;
}

static int fail(const struct cursor *c, struct clrie_version_diag *diag, const char *expected)
{
    if (diag) {
        diag->offset = c->pos;
        if (c->pos < c->len) {
            unsigned char ch = (unsigned char)c->text[c->pos];
            if (ch >= 0x20 && ch < 0x7f)
                snprintf(diag->message, sizeof(diag->message), "expected %s, found '%c'", expected,
                         ch);
            else
                snprintf(diag->message, sizeof(diag->message), "expected %s, found byte 0x%02x",
                         expected, ch);
        } else {
            snprintf(diag->message, sizeof(diag->message), "expected %s, found end of text",
                     expected);
        }
    }
    return -EILSEQ;
}

/* Reads one or more ASCII digits; the number keeps only its significant digits. */
static bool read_number(struct cursor *c, struct clrie_version_number *n)
{
    if (!at_digit(c))
        return false;
    size_t start = c->pos;
    while (at_digit(c))
        c->pos++;
    while (start < c->pos && c->text[start] == '0')
        start++;
    n->digits = c->text + start;
    n->len = c->pos - start;
    return true;
}

int clrie_version_parse(const char *text, size_t len, struct clrie_version *out,
                        struct clrie_version_diag *diag)
{
    if (!text || !out)
        return -EINVAL;

    struct cursor c = {text, len, 0};
    struct clrie_version v = {.text = text, .text_len = len};

    if (!read_number(&c, &v.major))
        return fail(&c, diag, "a digit (major version)");
    if (!at_literal(&c, "."))
        return fail(&c, diag, "'.' after the major version");
    c.pos++;
    if (!read_number(&c, &v.minor))
        return fail(&c, diag, "a digit (minor version)");
    if (!at_literal(&c, "."))
        return fail(&c, diag, "'.' after the minor version");
    c.pos++;
    if (!read_number(&c, &v.patch))
        return fail(&c, diag, "a digit (patch version)");

    if (at_literal(&c, preview_tag)) {
        c.pos += strlen(preview_tag);
        if (!read_number(&c, &v.build))
            return fail(&c, diag, "a digit (preview build number)");
        v.is_preview = true;
    }
    if (at_literal(&c, "_Debug") || at_literal(&c, "_debug")) {
        c.pos += strlen("_Debug");
        v.is_debug = true;
    }
    if (c.pos != c.len) {
        if (v.is_debug)
            return fail(&c, diag, "end of text after the debug suffix");
        if (v.is_preview)
            return fail(&c, diag, "'_Debug', '_debug' or end of text");
        return fail(&c, diag, "'-build<n>', '_Debug', '_debug' or end of text");
    }

    *out = v;
    return 0;
}

int clrie_version_number_compare(const struct clrie_version_number *a,
                                 const struct clrie_version_number *b)
{
    if (a->len != b->len)
        return a->len < b->len ? -1 : 1;
    if (a->len == 0)
        return 0;
    int r = memcmp(a->digits, b->digits, a->len);
    return (r > 0) - (r < 0);
}

bool clrie_version_number_equals(const struct clrie_version_number *n, uint64_t value)
{
    char buf[3 * sizeof(value) + 1];
    int len = value == 0 ? 0 : snprintf(buf, sizeof(buf), "%" PRIu64, value);
    return n->len == (size_t)len && memcmp(n->digits, buf, n->len) == 0;
}

int clrie_version_compare(const struct clrie_version *a, const struct clrie_version *b)
{
    int r = clrie_version_number_compare(&a->major, &b->major);
    if (r == 0)
        r = clrie_version_number_compare(&a->minor, &b->minor);
    if (r == 0)
        r = clrie_version_number_compare(&a->patch, &b->patch);
    if (r != 0)
        return r;
    if (a->is_preview != b->is_preview)
        return a->is_preview ? -1 : 1;
    return clrie_version_number_compare(&a->build, &b->build);
}

int clrie_version_compare_total(const struct clrie_version *a, const struct clrie_version *b)
{
    int r = clrie_version_compare(a, b);
    if (r != 0)
        return r;
    if (a->text_len != b->text_len)
        return a->text_len < b->text_len ? 1 : -1;
    r = memcmp(a->text, b->text, a->text_len);
    return (r > 0) - (r < 0);
}
