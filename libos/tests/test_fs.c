/* clrie/os/fs.h on a real folder: kinds of paths, paths made absolute, a listing with names outside ASCII, and the
 * errors a missing or wrong path gives. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clrie/os/fs.h"
#include "support.h"

/* "ü-ñ-中" in UTF-8: outside ASCII, and beyond Latin-1. */
#define WIDE_NAME "\xc3\xbc-\xc3\xb1-\xe4\xb8\xad"

static void kinds_of_paths(void **state)
{
    (void)state;
    char *root = test_tree_new();
    test_tree_write(root, "file", "x", 1);
    test_tree_mkdir(root, "folder");
    test_tree_write(root, WIDE_NAME "/inside", "y", 1);
    enum clrie_os_kind kind = 0;

    char *path = test_path(root, "file");
    assert_int_equal(clrie_os_path_kind(path, &kind), 0);
    assert_int_equal(kind, CLRIE_OS_FILE);
    free(path);
    path = test_path(root, "folder");
    assert_int_equal(clrie_os_path_kind(path, &kind), 0);
    assert_int_equal(kind, CLRIE_OS_DIRECTORY);
    free(path);
    path = test_path(root, WIDE_NAME "/inside");
    assert_int_equal(clrie_os_path_kind(path, &kind), 0);
    assert_int_equal(kind, CLRIE_OS_FILE);
    free(path);
    path = test_path(root, "missing");
    assert_int_equal(clrie_os_path_kind(path, &kind), -ENOENT);
    free(path);
    path = test_path(root, "file/below");
    int r = clrie_os_path_kind(path, &kind);
    assert_true(r == -ENOTDIR || r == -ENOENT);
    free(path);
    test_tree_free(root);
}

/* The name after the last separator: '/' everywhere, '\\' too on Windows (where the runtime
 * gives module paths such as C:\\app\\app.dll). */
static void the_name_in_a_path(void **state)
{
    (void)state;
    assert_string_equal(clrie_os_path_name("/srv/app/app.dll"), "app.dll");
    assert_string_equal(clrie_os_path_name("app.dll"), "app.dll");
    assert_string_equal(clrie_os_path_name("/srv/app/"), "");
    assert_string_equal(clrie_os_path_name(""), "");
    assert_null(clrie_os_path_last_separator("app.dll"));
    const char *windows = "C:\\Program Files/app\\app.dll";
    const char *last = clrie_os_path_last_separator(windows);
    if (CLRIE_OS_SEPARATOR == '\\') {
        assert_ptr_equal(last, windows + strlen("C:\\Program Files/app"));
        assert_string_equal(clrie_os_path_name(windows), "app.dll");
    } else {
        assert_ptr_equal(last, windows + strlen("C:\\Program Files"));
        assert_string_equal(clrie_os_path_name(windows), "app\\app.dll");
    }
}

/* A path made absolute need not exist: a relative one goes after the current folder, an
 * absolute one stays as it is. */
static void absolute_paths(void **state)
{
    (void)state;
    char *cwd = NULL, *out = NULL;
    assert_int_equal(clrie_os_path_canonical(".", &cwd), 0);
    assert_int_equal(clrie_os_path_absolute(cwd, &out), 0);
    assert_string_equal(out, cwd);
    free(out);

    const char *relative = "not-there-" WIDE_NAME;
    assert_int_equal(clrie_os_path_absolute(relative, &out), 0);
    size_t n = strlen(cwd);
    assert_true(clrie_os_path_is_absolute(out));
    assert_memory_equal(out, cwd, n);
    assert_true(clrie_os_is_separator(out[n]));
    assert_string_equal(out + n + 1, relative);
    free(out);
    free(cwd);
}

static void a_listing_gives_every_entry_once(void **state)
{
    (void)state;
    char *root = test_tree_new();
    test_tree_write(root, "b", "x", 1);
    test_tree_mkdir(root, "a");
    test_tree_mkdir(root, WIDE_NAME);
    struct clrie_os_dir *dir = NULL;
    assert_int_equal(clrie_os_dir_open(root, &dir), 0);
    bool seen_a = false, seen_b = false, seen_wide = false;
    int count = 0, r;
    const char *name;
    while ((r = clrie_os_dir_next(dir, &name)) == 1) {
        count++;
        seen_a |= strcmp(name, "a") == 0;
        seen_b |= strcmp(name, "b") == 0;
        seen_wide |= strcmp(name, WIDE_NAME) == 0;
    }
    assert_int_equal(r, 0);
    assert_int_equal(count, 3);
    assert_true(seen_a && seen_b && seen_wide);
    clrie_os_dir_close(dir);
    test_tree_free(root);
}

static void listing_what_is_no_folder_fails(void **state)
{
    (void)state;
    char *root = test_tree_new();
    test_tree_write(root, "file", "x", 1);
    struct clrie_os_dir *dir = NULL;
    char *path = test_path(root, "missing");
    assert_int_equal(clrie_os_dir_open(path, &dir), -ENOENT);
    free(path);
    path = test_path(root, "file");
    int r = clrie_os_dir_open(path, &dir);
    assert_true(r == -ENOTDIR || r == -ENOENT);
    free(path);
    clrie_os_dir_close(NULL);
    test_tree_free(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kinds_of_paths),
        cmocka_unit_test(the_name_in_a_path),
        cmocka_unit_test(absolute_paths),
        cmocka_unit_test(a_listing_gives_every_entry_once),
        cmocka_unit_test(listing_what_is_no_folder_fails),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
