/* UTF-8/UTF-16 conversion and BSTRs as plugins see them. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "utf16.h"

static void converts_every_plane_both_ways(void **state)
{
    const char *text = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80z"; /* a é € 😀 z */
    char16_t *units;
    size_t n;
    assert_int_equal(clrie_pm_utf8_to_utf16(text, strlen(text), &units, &n), 0);
    const char16_t expected[] = {u'a', 0x00E9, 0x20AC, 0xD83D, 0xDE00, u'z', 0};
    assert_int_equal(n, 6);
    assert_memory_equal(units, expected, sizeof(expected));
    assert_int_equal(clrie_pm_utf16_len(units), 6);

    char *back;
    size_t back_len;
    assert_int_equal(clrie_pm_utf16_to_utf8(units, n, false, &back, &back_len), 0);
    assert_string_equal(back, text);
    assert_int_equal(back_len, strlen(text));
    free(back);
    free(units);
}

static void rejects_invalid_utf8(void **state)
{
    const char *bad[] = {
        "\xc0\xaf",         /* overlong '/' */
        "\xe0\x80\xaf",     /* overlong */
        "\xed\xa0\x80",     /* a surrogate */
        "\xf4\x90\x80\x80", /* past U+10FFFF */
        "\xe2\x82",         /* truncated */
        "\x80",             /* a lone continuation byte */
        "\xff",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char16_t *units = (char16_t *)"untouched";
        assert_int_equal(clrie_pm_utf8_to_utf16(bad[i], strlen(bad[i]), &units, NULL), -EILSEQ);
        assert_string_equal((const char *)units, "untouched");
    }
}

static void unpaired_surrogates_fail_or_become_replacement_characters(void **state)
{
    const char16_t lone[] = {u'x', 0xD800, u'y', 0xDC00};
    char *out;
    assert_int_equal(clrie_pm_utf16_to_utf8(lone, 4, false, &out, NULL), -EILSEQ);
    assert_int_equal(clrie_pm_utf16_to_utf8(lone, 4, true, &out, NULL), 0);
    assert_string_equal(out, "x\xef\xbf\xbdy\xef\xbf\xbd");
    free(out);
}

static void bstrs_carry_their_byte_length_before_the_text(void **state)
{
    char16_t *b = clrie_pm_bstr_from_utf8("System.Private.CoreLib");
    assert_non_null(b);
    assert_int_equal(clrie_pm_bstr_len(b), 22);
    uint32_t prefix;
    memcpy(&prefix, (const unsigned char *)b - 4, 4);
    assert_int_equal(prefix, 44);
    assert_int_equal(b[22], 0);
    assert_int_equal(b[0], u'S');
    clrie_pm_bstr_free(b);

    char16_t *empty = clrie_pm_bstr_new(NULL, 0);
    assert_int_equal(clrie_pm_bstr_len(empty), 0);
    assert_int_equal(empty[0], 0);
    clrie_pm_bstr_free(empty);
    clrie_pm_bstr_free(NULL);
    assert_null(clrie_pm_bstr_from_utf8("\xff"));
    assert_null(clrie_pm_bstr_new(NULL, SIZE_MAX / 2));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(converts_every_plane_both_ways),
        cmocka_unit_test(rejects_invalid_utf8),
        cmocka_unit_test(unpaired_surrogates_fail_or_become_replacement_characters),
        cmocka_unit_test(bstrs_carry_their_byte_length_before_the_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
