/* clrie/os/file.h, env.h and error.h on real files: reading one open file in pieces and at
 * offsets, its canonical path (also for a name outside ASCII), what a folder or a missing file
 * gives, the environment as UTF-8 with its names compared as the system does, and a file of
 * lines (log_file.h) opened to append or empty. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clrie/os/env.h"
#include "clrie/os/error.h"
#include "clrie/os/file.h"
#include "clrie/os/log_file.h"
#include "support.h"

/* "ü-ñ-中" in UTF-8: outside ASCII, and beyond Latin-1. */
#define WIDE_NAME "\xc3\xbc-\xc3\xb1-\xe4\xb8\xad"

static const char text[] = "0123456789abcdefghij";

static void reading_in_pieces_and_at_offsets(void **state)
{
    (void)state;
    char *root = test_tree_new();
    test_tree_write(root, WIDE_NAME "/data", text, sizeof(text) - 1);
    char *path = test_path(root, WIDE_NAME "/data");
    struct clrie_os_file *f = NULL;
    assert_int_equal(clrie_os_file_open(path, 0, &f), 0);

    struct clrie_os_file_info info;
    assert_int_equal(clrie_os_file_info(f, &info), 0);
    assert_int_equal(info.kind, CLRIE_OS_FILE);
    assert_int_equal(info.size, sizeof(text) - 1);

    char buf[32] = {0};
    size_t got = 0;
    assert_int_equal(clrie_os_file_read_at(f, 10, buf, 4, &got), 0);
    assert_int_equal(got, 4);
    assert_memory_equal(buf, "abcd", 4);
    assert_int_equal(clrie_os_file_read_at(f, 16, buf, 10, &got), 0);
    assert_int_equal(got, 4); /* short only at the end */
    assert_memory_equal(buf, "ghij", 4);
    assert_int_equal(clrie_os_file_read_at(f, 1000, buf, 10, &got), 0);
    assert_int_equal(got, 0);
    clrie_os_file_close(f);

    /* Sequential reads on a fresh open, to the end. */
    assert_int_equal(clrie_os_file_open(path, 0, &f), 0);
    size_t total = 0;
    do {
        assert_int_equal(clrie_os_file_read(f, buf + total, 7, &got), 0);
        total += got;
    } while (got > 0 && total < sizeof(buf) - 7);
    assert_int_equal(total, sizeof(text) - 1);
    assert_memory_equal(buf, text, total);
    clrie_os_file_close(f);
    free(path);
    test_tree_free(root);
}

static void the_canonical_path_of_an_open_file(void **state)
{
    (void)state;
    char *root = test_tree_new();
    test_tree_write(root, WIDE_NAME "/data", "x", 1);
    test_tree_mkdir(root, "other");
    /* Reached through a detour: other/../<wide>/data. */
    char *detour = test_path(root, "other/../" WIDE_NAME "/data");
    char *expected = NULL, *actual = NULL;
    assert_int_equal(clrie_os_path_canonical(detour, &expected), 0);
    assert_true(clrie_os_path_is_absolute(expected));
    assert_null(strstr(expected, ".."));
    assert_non_null(strstr(expected, WIDE_NAME));
    struct clrie_os_file *f = NULL;
    assert_int_equal(clrie_os_file_open(detour, 0, &f), 0);
    assert_int_equal(clrie_os_file_path(f, &actual), 0);
    assert_string_equal(actual, expected);
    clrie_os_file_close(f);
    free(actual);
    free(expected);
    free(detour);
    test_tree_free(root);
}

static void folders_and_missing_files(void **state)
{
    (void)state;
    char *root = test_tree_new();
    struct clrie_os_file *f = NULL;
    struct clrie_os_file_info info;
    assert_int_equal(clrie_os_file_open(root, 0, &f), 0);
    assert_int_equal(clrie_os_file_info(f, &info), 0);
    assert_int_equal(info.kind, CLRIE_OS_DIRECTORY);
    clrie_os_file_close(f);
    char *path = test_path(root, "missing");
    assert_int_equal(clrie_os_file_open(path, 0, &f), -ENOENT);
    char *canonical = NULL;
    assert_int_equal(clrie_os_path_canonical(path, &canonical), -ENOENT);
    free(path);
    clrie_os_file_close(NULL);
    test_tree_free(root);
}

static void absolute_paths(void **state)
{
    (void)state;
    assert_false(clrie_os_path_is_absolute("relative/x"));
    assert_false(clrie_os_path_is_absolute(""));
    if (CLRIE_OS_SEPARATOR == '/') {
        assert_true(clrie_os_path_is_absolute("/usr"));
        assert_false(clrie_os_path_is_absolute("C:\\x"));
    } else {
        assert_true(clrie_os_path_is_absolute("C:\\x"));
        assert_true(clrie_os_path_is_absolute("c:/x"));
        assert_true(clrie_os_path_is_absolute("\\\\server\\share"));
        assert_false(clrie_os_path_is_absolute("\\x")); /* relative to the current drive */
        assert_false(clrie_os_path_is_absolute("C:x"));
    }
}

/* test('os-file') sets CLRIE_OS_TEST_VALUE=value one and CLRIE_OS_TEST_EMPTY= (empty). */
static void the_environment_as_utf8(void **state)
{
    (void)state;
    char *value = NULL;
    assert_int_equal(clrie_os_env_get("CLRIE_OS_TEST_VALUE", &value), 0);
    assert_string_equal(value, "value one");
    free(value);
    assert_int_equal(clrie_os_env_get("CLRIE_OS_TEST_EMPTY", &value), 0);
    assert_string_equal(value, "");
    free(value);
    assert_int_equal(clrie_os_env_get("CLRIE_OS_TEST_NOT_SET_ANYWHERE", &value), -ENOENT);

    char **block = NULL;
    assert_int_equal(clrie_os_env_block(&block), 0);
    bool seen = false;
    for (char **e = block; *e; e++)
        seen |= strcmp(*e, "CLRIE_OS_TEST_VALUE=value one") == 0;
    assert_true(seen);
    clrie_os_env_block_free(block);
}

/* Variable names compare as the system compares them: the system's own lookup of a name in
 * other letter case (found on Windows, not on POSIX) decides what clrie_os_env_lookup must
 * answer for it. */
static void names_compare_as_the_system_compares_them(void **state)
{
    (void)state;
    char *value = NULL;
    bool system_ignores_case = clrie_os_env_get("clrie_os_test_value", &value) == 0;
    free(value);
    assert_true(system_ignores_case == (CLRIE_OS_SEPARATOR == '\\'));

    char *const *environment = clrie_os_environ();
    assert_string_equal(clrie_os_env_lookup(environment, "CLRIE_OS_TEST_VALUE"), "value one");
    assert_string_equal(clrie_os_env_lookup(environment, "CLRIE_OS_TEST_EMPTY"), "");
    assert_null(clrie_os_env_lookup(environment, "CLRIE_OS_TEST_VALU"));
    const char *other_case = clrie_os_env_lookup(environment, "Clrie_Os_Test_Value");
    if (system_ignores_case)
        assert_string_equal(other_case, "value one");
    else
        assert_null(other_case);

    char *entries[] = {"Path=C:\\bin", "PATH=/usr/bin", "A=", "Prefix_Name=1", NULL};
    const char *path = clrie_os_env_lookup(entries, "PATH");
    assert_string_equal(path, system_ignores_case ? "C:\\bin" : "/usr/bin"); /* the first */
    assert_string_equal(clrie_os_env_lookup(entries, "A"), "");
    assert_null(clrie_os_env_lookup(entries, "Prefix"));
    assert_null(clrie_os_env_lookup(NULL, "A"));
    assert_string_equal(clrie_os_env_entry_after("Prefix_Name=1", "Prefix_"), "Name=1");
    assert_true((clrie_os_env_entry_after("PREFIX_Name=1", "Prefix_") != NULL) ==
                system_ignores_case);
    assert_null(clrie_os_env_entry_after("Pre", "Prefix_"));
    assert_null(clrie_os_env_entry_after("Prefix\u00e9", "Prefix\u00c9")); /* ASCII letters only */
}

static void a_file_of_lines_appends_and_empties_when_asked(void **state)
{
    (void)state;
    char *root = test_tree_new();
    test_tree_mkdir(root, WIDE_NAME);
    char *path = test_path(root, WIDE_NAME "/lines.txt");
    int fd = -1;
    assert_int_equal(clrie_os_line_file_open(path, false, &fd), 0); /* made */
    assert_int_equal(clrie_os_write_all(fd, "one\n", 4), 0);
    clrie_os_close(fd);
    assert_int_equal(clrie_os_line_file_open(path, false, &fd), 0); /* appended to */
    assert_int_equal(clrie_os_write_all(fd, "two\n", 4), 0);
    clrie_os_close(fd);
    size_t len = 0;
    char *written = test_read_file(path, &len);
    assert_string_equal(written, "one\ntwo\n");
    free(written);

    assert_int_equal(clrie_os_line_file_open(path, true, &fd), 0); /* emptied first */
    assert_int_equal(clrie_os_write_all(fd, "three\n", 6), 0);
    clrie_os_close(fd);
    written = test_read_file(path, &len);
    assert_string_equal(written, "three\n");
    free(written);

    char *missing = test_path(root, "no such folder/lines.txt");
    assert_int_equal(clrie_os_line_file_open(missing, false, &fd), -ENOENT);
    assert_int_equal(fd, -1);
    free(missing);
    free(path);
    test_tree_free(root);
}

static void error_words(void **state)
{
    (void)state;
    char buf[128];
    assert_true(strlen(clrie_os_strerror(ENOENT, buf, sizeof(buf))) > 0);
    assert_true(strlen(clrie_os_strerror(99999, buf, sizeof(buf))) > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reading_in_pieces_and_at_offsets),
        cmocka_unit_test(the_canonical_path_of_an_open_file),
        cmocka_unit_test(folders_and_missing_files),
        cmocka_unit_test(absolute_paths),
        cmocka_unit_test(the_environment_as_utf8),
        cmocka_unit_test(names_compare_as_the_system_compares_them),
        cmocka_unit_test(a_file_of_lines_appends_and_empties_when_asked),
        cmocka_unit_test(error_words),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
