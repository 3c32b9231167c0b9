/* libFuzzer target for the version parser. Input: one or two candidate versions separated by
 * a newline. Checks the invariants every parse and comparison must keep. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clrie/version.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct clrie_version *v, const char *text, size_t len)
{
    const struct clrie_version_number *numbers[] = {&v->major, &v->minor, &v->patch, &v->build};
    for (size_t i = 0; i < 4; i++) {
        const struct clrie_version_number *n = numbers[i];
        if (n->len > 0 &&
            (n->digits < text || n->digits + n->len > text + len || n->digits[0] == '0'))
            abort();
    }
    if (v->build.len > 0 && !v->is_preview)
        abort();
    if (clrie_version_compare(v, v) != 0 || clrie_version_compare_total(v, v) != 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const char *newline = memchr(text, '\n', size);
    size_t first_len = newline ? (size_t)(newline - text) : size;

    struct clrie_version a, b;
    struct clrie_version_diag diag;
    int ra = clrie_version_parse(text, first_len, &a, &diag);
    if (ra == 0)
        check(&a, text, first_len);
    else if (diag.offset > first_len || memchr(diag.message, '\0', sizeof(diag.message)) == NULL)
        abort();

    if (!newline)
        return 0;
    const char *second = newline + 1;
    size_t second_len = size - first_len - 1;
    if (clrie_version_parse(second, second_len, &b, NULL) == 0) {
        check(&b, second, second_len);
        if (ra == 0) {
            int ab = clrie_version_compare(&a, &b), ba = clrie_version_compare(&b, &a);
            int tab = clrie_version_compare_total(&a, &b);
            int tba = clrie_version_compare_total(&b, &a);
            if ((ab > 0) != (ba < 0) || (ab == 0) != (ba == 0) || (tab > 0) != (tba < 0))
                abort();
            if (ab != 0 && (ab > 0) != (tab > 0)) /* total order refines rank order */
                abort();
        }
    }
    return 0;
}
