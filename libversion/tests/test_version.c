/* libversion: the version grammar, its order, and the choice of the newest install. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "clrie/version.h"
#include "support.h"

static struct clrie_version parse_ok(const char *text)
{
    struct clrie_version v;
    struct clrie_version_diag diag = {0};
    int r = clrie_version_parse(text, strlen(text), &v, &diag);
    if (r != 0)
        fail_msg("'%s' should parse, got %d: %s at %zu", text, r, diag.message, diag.offset);
    return v;
}

static void assert_number(struct clrie_version_number n, const char *digits)
{
    assert_int_equal(n.len, strlen(digits));
    assert_memory_equal(n.digits, digits, n.len);
}

static void accepts_release_preview_and_debug_forms(void **state)
{
    struct clrie_version v = parse_ok("1.0.0");
    assert_number(v.major, "1");
    assert_number(v.minor, "");
    assert_number(v.patch, "");
    assert_false(v.is_preview);
    assert_false(v.is_debug);

    v = parse_ok("1.2.3-build45");
    assert_number(v.minor, "2");
    assert_number(v.patch, "3");
    assert_true(v.is_preview);
    assert_number(v.build, "45");

    v = parse_ok("1.0.0_Debug");
    assert_true(v.is_debug);
    assert_false(v.is_preview);
    v = parse_ok("1.0.0_debug");
    assert_true(v.is_debug);

    v = parse_ok("1.0.0-build00001_Debug");
    assert_true(v.is_preview);
    assert_true(v.is_debug);
    assert_number(v.build, "1");
    assert_int_equal(v.text_len, strlen("1.0.0-build00001_Debug"));
}

static void keeps_numbers_of_any_length(void **state)
{
    struct clrie_version v = parse_ok("1.99999999999999999999999999999999999999.0");
    assert_number(v.minor, "99999999999999999999999999999999999999");
    v = parse_ok("0001.000.0100");
    assert_number(v.major, "1");
    assert_number(v.minor, "");
    assert_number(v.patch, "100");
    v = parse_ok("2.0.0"); /* other majors parse; selection filters them */
    assert_number(v.major, "2");
}

struct bad_case {
    const char *text;
    size_t len; /* 0 means strlen(text) */
    size_t offset;
};

static void rejects_everything_else_with_the_offset(void **state)
{
    static const struct bad_case cases[] = {
        {"", 0, 0},
        {"A", 0, 0},
        {"-1", 0, 0},
        {"+1.0.0", 0, 0},
        {"1", 0, 1},
        {"1.0", 0, 3},
        {"1.", 0, 2},
        {"1..0", 0, 2},
        {"1.0.0.0", 0, 5},
        {"v1.0.0", 0, 0},
        {" 1.0.0", 0, 0},
        {"1.0.0 ", 0, 5},
        {"1.0.0\n", 0, 5},
        {"1.-1.0", 0, 2},
        {"1.0.0-build", 0, 11},
        {"1.0.0-BUILD1", 0, 5},
        {"1.0.0-build1x", 0, 12},
        {"1.0.0-buildx", 0, 11},
        {"1.0.0_DEBUG", 0, 5},
        {"1.0.0_Debug-build123", 0, 11},
        {"1.0.0_Debug_Debug", 0, 11},
        {"1.0.0-build1-build2", 0, 12},
        {"1.0.0-rc1", 0, 5},
        {"1.\xd9\xa3.0", 0, 2},     /* ARABIC-INDIC DIGIT THREE */
        {"1.0.\xef\xbc\x91", 0, 4}, /* FULLWIDTH DIGIT ONE */
        {"1.0.0\0garbage", 13, 5},  /* an embedded NUL ends nothing early */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct bad_case *c = &cases[i];
        size_t len = c->len ? c->len : strlen(c->text);
        struct clrie_version v = {.text = "untouched"};
        struct clrie_version_diag diag = {0};
        int r = clrie_version_parse(c->text, len, &v, &diag);
        if (r != -EILSEQ)
            fail_msg("case %zu ('%s') parsed: %d", i, c->text, r);
        if (diag.offset != c->offset)
            fail_msg("case %zu ('%s'): offset %zu, expected %zu (%s)", i, c->text, diag.offset,
                     c->offset, diag.message);
        assert_non_null(strstr(diag.message, "expected"));
        assert_string_equal(v.text, "untouched");
    }
}

static void explains_what_it_expected(void **state)
{
    struct clrie_version v;
    struct clrie_version_diag diag;
    assert_int_equal(clrie_version_parse("1.0.0_Debug-build1", 18, &v, &diag), -EILSEQ);
    assert_string_equal(diag.message, "expected end of text after the debug suffix, found '-'");
    assert_int_equal(clrie_version_parse("1.0", 3, &v, &diag), -EILSEQ);
    assert_string_equal(diag.message, "expected '.' after the minor version, found end of text");
    assert_int_equal(clrie_version_parse("1.\x01", 3, &v, &diag), -EILSEQ);
    assert_string_equal(diag.message, "expected a digit (minor version), found byte 0x01");
    assert_int_equal(clrie_version_parse("1.0.0", 5, &v, NULL), 0);
    assert_int_equal(clrie_version_parse("x", 1, &v, NULL), -EILSEQ);
    assert_int_equal(clrie_version_parse(NULL, 0, &v, NULL), -EINVAL);
    assert_int_equal(clrie_version_parse("1.0.0", 5, NULL, NULL), -EINVAL);
}

static int rank(const char *a, const char *b)
{
    struct clrie_version x = parse_ok(a), y = parse_ok(b);
    return clrie_version_compare(&x, &y);
}

static void assert_older(const char *a, const char *b)
{
    if (rank(a, b) >= 0 || rank(b, a) <= 0)
        fail_msg("expected %s older than %s", a, b);
}

static void orders_numbers_by_value_not_text(void **state)
{
    /* The chain from the design, each step both ways. */
    const char *chain[] = {"1.0.0-build1", "1.0.0-build2", "1.0.0", "1.0.1-build1", "1.0.1"};
    for (size_t i = 0; i + 1 < sizeof(chain) / sizeof(chain[0]); i++)
        assert_older(chain[i], chain[i + 1]);

    assert_older("1.9.0", "1.10.0");
    assert_older("1.0.9", "1.0.10");
    assert_older("1.0.0-build2", "1.0.0-build10");
    assert_older("1.0.0-build10", "1.0.0");
    assert_older("1.0.0", "1.1.0-build1");
    assert_older("1.0.99999999999999999999", "1.1.0");
    assert_older("1.99999999999999999999999999999.0", "1.100000000000000000000000000000.0");
    assert_older("1.18446744073709551615.0", "1.18446744073709551616.0");
    assert_older("0.9.9", "1.0.0");
}

static void ranks_spellings_and_debug_builds_equal(void **state)
{
    assert_int_equal(rank("1.0.0-build01", "1.0.0-build1"), 0);
    assert_int_equal(rank("1.010.0", "1.10.0"), 0);
    assert_int_equal(rank("1.0.0", "1.0.0_Debug"), 0);
    assert_int_equal(rank("1.0.0-build3_debug", "1.0.0-build3"), 0);
    assert_older("1.0.0-build1_Debug", "1.0.0_Debug"); /* CLRIE gets this one backwards */
}

static int total(const char *a, const char *b)
{
    struct clrie_version x = parse_ok(a), y = parse_ok(b);
    return clrie_version_compare_total(&x, &y);
}

static void breaks_ties_by_the_shorter_then_greater_name(void **state)
{
    assert_true(total("1.0.0-build1", "1.0.0-build01") > 0);
    assert_true(total("1.0.0-build01", "1.0.0-build1") < 0);
    assert_true(total("1.0.0", "1.0.00") > 0);
    assert_true(total("1.0.0", "01.0.0") > 0);
    assert_true(total("1.0.0_debug", "1.0.0_Debug") > 0);
    assert_true(total("1.0.0", "1.0.0_Debug") > 0);
    assert_int_equal(total("1.2.3", "1.2.3"), 0);
    assert_true(total("1.10.0", "1.9.0") > 0); /* rank still comes first */
}

static bool major_equals(const char *text, uint64_t value)
{
    struct clrie_version v = parse_ok(text);
    return clrie_version_number_equals(&v.major, value);
}

static void compares_numbers_to_plain_integers(void **state)
{
    assert_true(major_equals("0001.0.0", 1));
    assert_true(major_equals("0.0.0", 0));
    assert_false(major_equals("10.0.0", 1));
    assert_false(major_equals("1.0.0", 10));
    assert_true(major_equals("18446744073709551615.0.0", UINT64_MAX));
    assert_false(major_equals("18446744073709551616.0.0", UINT64_MAX));
}

/* --- selection ------------------------------------------------------------------------ */

#define ENGINE "Instrumentation64/libInstrumentationEngine.so"

static void add_engine(const char *root, const char *version)
{
    char rel[512];
    snprintf(rel, sizeof(rel), "%s/" ENGINE, version);
    test_tree_write(root, rel, "engine", 6);
}

static struct clrie_version_select_options options(const char *root)
{
    return (struct clrie_version_select_options){
        .root = root,
        .major = 1,
        .arch_folder = "Instrumentation64",
        .engine_file = "libInstrumentationEngine.so",
    };
}

static const struct clrie_version_candidate *find(const struct clrie_version_selection *s,
                                                  const char *name)
{
    for (size_t i = 0; i < s->count; i++)
        if (strcmp(s->candidates[i].name, name) == 0)
            return &s->candidates[i];
    fail_msg("no candidate %s", name);
    return NULL;
}

static void assert_verdict(const struct clrie_version_selection *s, const char *name,
                           enum clrie_version_verdict verdict)
{
    const struct clrie_version_candidate *c = find(s, name);
    if (c->verdict != verdict)
        fail_msg("%s: verdict '%s', expected '%s'", name, clrie_version_verdict_string(c->verdict),
                 clrie_version_verdict_string(verdict));
}

static void chooses_the_newest_and_says_why_each_other_entry_lost(void **state)
{
    char *root = test_tree_new();
    add_engine(root, "1.0.0");
    add_engine(root, "1.9.0");
    add_engine(root, "1.10.0");
    test_tree_mkdir(root, "notaversion");
    add_engine(root, "2.0.0");
    add_engine(root, "1.50.0_Debug");
    add_engine(root, "1.60.0-build7");
    test_tree_write(root, "1.70.0", "file", 4);
    test_tree_mkdir(root, "1.80.0/Instrumentation64");
    test_tree_mkdir(root, "1.90.0/" ENGINE);
    bool links = test_posix_files(); /* a link to itself, a dangling link */
    if (links) {
        test_tree_symlink(root, "1.95.0", "1.95.0");
        test_tree_symlink(root, "1.98.0", "nowhere");
    }
    test_tree_write(root, "1.96.0/Instrumentation64", "file", 4);
    add_engine(root, "1.97.0/InstrumentationARM64");

    struct clrie_version_select_options opts = options(root);
    struct clrie_version_selection s;
    assert_int_equal(clrie_version_select(&opts, &s), 0);
    assert_string_equal(s.version, "1.10.0");
    char *expected = test_path(root, "1.10.0/" ENGINE);
    assert_string_equal(s.path, expected);
    free(expected);

    assert_int_equal(s.count, links ? 14 : 12);
    for (size_t i = 1; i < s.count; i++)
        assert_true(strcmp(s.candidates[i - 1].name, s.candidates[i].name) < 0);
    assert_verdict(&s, "1.10.0", CLRIE_VERSION_CHOSEN);
    assert_verdict(&s, "1.0.0", CLRIE_VERSION_OLDER);
    assert_verdict(&s, "1.9.0", CLRIE_VERSION_OLDER);
    assert_verdict(&s, "notaversion", CLRIE_VERSION_BAD_NAME);
    assert_int_equal(find(&s, "notaversion")->offset, 0);
    assert_verdict(&s, "2.0.0", CLRIE_VERSION_WRONG_MAJOR);
    assert_verdict(&s, "1.50.0_Debug", CLRIE_VERSION_DEBUG_MISMATCH);
    assert_verdict(&s, "1.60.0-build7", CLRIE_VERSION_PREVIEW_NOT_ALLOWED);
    assert_verdict(&s, "1.70.0", CLRIE_VERSION_NOT_A_DIRECTORY);
    assert_verdict(&s, "1.80.0", CLRIE_VERSION_ENGINE_MISSING);
    assert_verdict(&s, "1.90.0", CLRIE_VERSION_ENGINE_NOT_A_FILE);
    if (links) {
        assert_verdict(&s, "1.95.0", CLRIE_VERSION_UNREADABLE);
        assert_int_equal(find(&s, "1.95.0")->error, ELOOP);
        assert_verdict(&s, "1.98.0", CLRIE_VERSION_NO_SUCH_FOLDER);
    }
    assert_verdict(&s, "1.96.0", CLRIE_VERSION_ENGINE_MISSING);
    assert_verdict(&s, "1.97.0", CLRIE_VERSION_ENGINE_MISSING);
    clrie_version_selection_finish(&s);
    test_tree_free(root);
}

static void debug_and_preview_switches_change_who_is_eligible(void **state)
{
    char *root = test_tree_new();
    add_engine(root, "1.1.0");
    add_engine(root, "1.1.1-build3");
    add_engine(root, "1.1.1-build12");
    add_engine(root, "1.0.5_Debug");
    add_engine(root, "1.1.1-build20_debug");

    struct clrie_version_select_options opts = options(root);
    struct clrie_version_selection s;

    opts.use_preview = true;
    assert_int_equal(clrie_version_select(&opts, &s), 0);
    assert_string_equal(s.version, "1.1.1-build12");
    assert_verdict(&s, "1.1.1-build3", CLRIE_VERSION_OLDER);
    assert_verdict(&s, "1.1.0", CLRIE_VERSION_OLDER);
    assert_verdict(&s, "1.1.1-build20_debug", CLRIE_VERSION_DEBUG_MISMATCH);
    clrie_version_selection_finish(&s);

    opts.use_preview = false;
    opts.use_debug = true;
    assert_int_equal(clrie_version_select(&opts, &s), 0);
    assert_string_equal(s.version, "1.0.5_Debug");
    assert_verdict(&s, "1.1.0", CLRIE_VERSION_DEBUG_MISMATCH);
    assert_verdict(&s, "1.1.1-build20_debug", CLRIE_VERSION_PREVIEW_NOT_ALLOWED);
    clrie_version_selection_finish(&s);

    opts.use_preview = true;
    assert_int_equal(clrie_version_select(&opts, &s), 0);
    assert_string_equal(s.version, "1.1.1-build20_debug");
    clrie_version_selection_finish(&s);
    test_tree_free(root);
}

static void ties_do_not_depend_on_directory_order(void **state)
{
    char *root = test_tree_new();
    add_engine(root, "1.0.0-build01");
    add_engine(root, "1.0.0-build1");
    add_engine(root, "1.0.0-build001");
    struct clrie_version_select_options opts = options(root);
    opts.use_preview = true;
    struct clrie_version_selection s;
    assert_int_equal(clrie_version_select(&opts, &s), 0);
    assert_string_equal(s.version, "1.0.0-build1");
    clrie_version_selection_finish(&s);
    test_tree_free(root);
}

static void a_specific_version_is_taken_as_named_or_not_at_all(void **state)
{
    char *root = test_tree_new();
    add_engine(root, "1.0.0");
    add_engine(root, "1.5.0");
    add_engine(root, "1.2.0_Debug");
    add_engine(root, "1.3.0-build2");
    test_tree_mkdir(root, "1.4.0");
    add_engine(root, "2.0.0");
    add_engine(root, "weird");
    struct clrie_version_select_options opts = options(root);
    struct clrie_version_selection s;

    opts.specific_version = "1.0.0";
    assert_int_equal(clrie_version_select(&opts, &s), 0);
    assert_string_equal(s.version, "1.0.0");
    assert_int_equal(s.count, 1);
    clrie_version_selection_finish(&s);

    opts.specific_version = "1.2.0_Debug"; /* named explicitly: no debug switch needed */
    assert_int_equal(clrie_version_select(&opts, &s), 0);
    assert_string_equal(s.version, "1.2.0_Debug");
    clrie_version_selection_finish(&s);

    opts.specific_version = "1.3.0-build2";
    assert_int_equal(clrie_version_select(&opts, &s), 0);
    clrie_version_selection_finish(&s);

    opts.specific_version = "1.4.0";
    assert_int_equal(clrie_version_select(&opts, &s), -ENOENT);
    assert_verdict(&s, "1.4.0", CLRIE_VERSION_ENGINE_MISSING);
    assert_null(s.path);
    clrie_version_selection_finish(&s);

    opts.specific_version = "1.6.0";
    assert_int_equal(clrie_version_select(&opts, &s), -ENOENT);
    assert_verdict(&s, "1.6.0", CLRIE_VERSION_NO_SUCH_FOLDER);
    assert_int_equal(s.candidates[0].error, 0);
    clrie_version_selection_finish(&s);

    opts.specific_version = "2.0.0";
    assert_int_equal(clrie_version_select(&opts, &s), -ENOENT);
    assert_verdict(&s, "2.0.0", CLRIE_VERSION_WRONG_MAJOR);
    clrie_version_selection_finish(&s);

    opts.specific_version = "weird";
    assert_int_equal(clrie_version_select(&opts, &s), -ENOENT);
    assert_verdict(&s, "weird", CLRIE_VERSION_BAD_NAME);
    clrie_version_selection_finish(&s);

    opts.specific_version = "../1.5.0";
    assert_int_equal(clrie_version_select(&opts, &s), -EINVAL);
    assert_int_equal(s.count, 0);
    clrie_version_selection_finish(&s);
    test_tree_free(root);
}

static void a_missing_or_wrong_root_is_reported(void **state)
{
    char *root = test_tree_new();
    struct clrie_version_select_options opts = options(root);
    struct clrie_version_selection s;

    assert_int_equal(clrie_version_select(&opts, &s), -ENOENT); /* empty */
    assert_int_equal(s.count, 0);
    assert_int_equal(s.root_error, 0);
    clrie_version_selection_finish(&s);

    char *missing = test_path(root, "missing");
    opts.root = missing;
    assert_int_equal(clrie_version_select(&opts, &s), -ENOENT);
    assert_int_equal(s.root_error, ENOENT);
    clrie_version_selection_finish(&s);
    free(missing);

    test_tree_write(root, "file", "x", 1);
    char *file = test_path(root, "file");
    opts.root = file;
    assert_int_equal(clrie_version_select(&opts, &s), -ENOENT);
    assert_int_equal(s.root_error, ENOTDIR);
    clrie_version_selection_finish(&s);
    free(file);

    opts.root = NULL;
    assert_int_equal(clrie_version_select(&opts, &s), -EINVAL);
    clrie_version_selection_finish(&s);
    clrie_version_selection_finish(NULL);
    test_tree_free(root);
}

static void check_unreadable(const char *root)
{
    struct clrie_version_select_options opts = options(root);
    struct clrie_version_selection s;
    if (clrie_version_select(&opts, &s) != 0 || strcmp(s.version, "1.0.0") != 0)
        _exit(1);
    const struct clrie_version_candidate *c = &s.candidates[1];
    if (strcmp(c->name, "1.1.0") != 0 || c->verdict != CLRIE_VERSION_UNREADABLE ||
        c->error != EACCES)
        _exit(2);
    clrie_version_selection_finish(&s);

    char *locked = test_path(root, "1.1.0");
    opts.root = locked;
    if (clrie_version_select(&opts, &s) != -ENOENT || s.root_error != EACCES)
        _exit(4);
    clrie_version_selection_finish(&s);
    free(locked);
}

static void unreadable_folders_are_reported_not_chosen(void **state)
{
    if (!test_posix_files())
        skip(); /* permission bits and another user */
    char *root = test_tree_new();
    add_engine(root, "1.0.0");
    add_engine(root, "1.1.0");
    test_tree_chmod(root, "1.1.0", 0);
    assert_true(test_as_ordinary_user(check_unreadable, root));
    test_tree_free(root);
}

static void every_verdict_has_a_phrase(void **state)
{
    for (int v = CLRIE_VERSION_CHOSEN; v <= CLRIE_VERSION_UNREADABLE; v++)
        assert_string_not_equal(clrie_version_verdict_string(v), "unknown verdict");
    assert_string_equal(clrie_version_verdict_string((enum clrie_version_verdict)999),
                        "unknown verdict");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(accepts_release_preview_and_debug_forms),
        cmocka_unit_test(keeps_numbers_of_any_length),
        cmocka_unit_test(rejects_everything_else_with_the_offset),
        cmocka_unit_test(explains_what_it_expected),
        cmocka_unit_test(orders_numbers_by_value_not_text),
        cmocka_unit_test(ranks_spellings_and_debug_builds_equal),
        cmocka_unit_test(breaks_ties_by_the_shorter_then_greater_name),
        cmocka_unit_test(compares_numbers_to_plain_integers),
        cmocka_unit_test(chooses_the_newest_and_says_why_each_other_entry_lost),
        cmocka_unit_test(debug_and_preview_switches_change_who_is_eligible),
        cmocka_unit_test(ties_do_not_depend_on_directory_order),
        cmocka_unit_test(a_specific_version_is_taken_as_named_or_not_at_all),
        cmocka_unit_test(a_missing_or_wrong_root_is_reported),
        cmocka_unit_test(unreadable_folders_are_reported_not_chosen),
        cmocka_unit_test(every_verdict_has_a_phrase),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
