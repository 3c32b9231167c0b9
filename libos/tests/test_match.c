/* clrie/os/match.h: shell patterns as fnmatch with no flags, case folding, and malformed sets;
 * where the C library has fnmatch, every case is also checked against it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#ifdef CLRIE_TEST_HAVE_FNMATCH
#include <fnmatch.h>
#endif

#include "clrie/os/match.h"

struct match_case {
    const char *pattern, *text;
    int expected;
};

static const struct match_case cases[] = {
    {"", "", 1},
    {"", "a", 0},
    {"*", "", 1},
    {"*", "anything/at.all", 1},
    {"a*", "abc", 1},
    {"a*", "bac", 0},
    {"*c", "abc", 1},
    {"*b*", "abc", 1},
    {"a*b*c", "aXbYbZc", 1},
    {"a*b*c", "aXbYbZ", 0},
    {"**a", "ba", 1},
    {"?", "", 0},
    {"?", "x", 1},
    {"??", "x", 0},
    {"a?c", "abc", 1},
    {"[abc]", "b", 1},
    {"[abc]", "d", 0},
    {"[a-c]x", "bx", 1},
    {"[!a-c]x", "bx", 0},
    {"[!a-c]x", "dx", 1},
    {"[^a-c]", "d", 1},
    {"[]]", "]", 1},
    {"[!]]", "]", 0},
    {"[a-]", "-", 1},
    {"[", "[", 1},
    {"[a", "[a", 1},
    {"\\*", "*", 1},
    {"\\*", "a", 0},
    {"a\\?c", "a?c", 1},
    {"a\\?c", "abc", 0},
    {"*.dll", "System.Private.CoreLib.dll", 1},
    {"System.*", "System.Runtime", 1},
    {"*/dotnet", "/usr/bin/dotnet", 1},
    {".*", ".hidden", 1},
    {"*", ".hidden", 1},
    {"*Test*Host*", "testhost", 0},
    {"a*a*a*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 0},
    {"\xc3\xbc?",
     "\xc3\xbc"
     "x",
     1},
    {"?", "\xc3\xbc", 0}, /* two bytes */
};

static void as_fnmatch(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int got = clrie_os_match(cases[i].pattern, cases[i].text, 0);
        if (got != cases[i].expected)
            fail_msg("'%s' against '%s': %d, expected %d", cases[i].pattern, cases[i].text, got,
                     cases[i].expected);
#ifdef CLRIE_TEST_HAVE_FNMATCH
        int libc = fnmatch(cases[i].pattern, cases[i].text, 0) == 0;
        if (got != libc)
            fail_msg("'%s' against '%s': %d, the C library's fnmatch %d", cases[i].pattern,
                     cases[i].text, got, libc);
#endif
    }
}

static void either_case(void **state)
{
    (void)state;
    assert_true(clrie_os_match("*DOTNET*", "/usr/bin/dotnet", CLRIE_OS_MATCH_CASEFOLD));
    assert_false(clrie_os_match("*DOTNET*", "/usr/bin/dotnet", 0));
    assert_true(clrie_os_match("[A-C]x", "bX", CLRIE_OS_MATCH_CASEFOLD));
    assert_true(clrie_os_match("testhost*", "TestHost.exe", CLRIE_OS_MATCH_CASEFOLD));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(as_fnmatch),
        cmocka_unit_test(either_case),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
