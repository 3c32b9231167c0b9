/* clrie/os/module.h on a real module of the build: loading it (also from a folder outside
 * ASCII), calling what it exports, finding it loaded, the file that holds an address, and what
 * a missing file or a file that is no module gives. argv[1]: the sample module. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clrie/os/fs.h"
#include "clrie/os/module.h"
#include "support.h"

/* "ü-ñ-中" in UTF-8: outside ASCII, and beyond Latin-1. */
#define WIDE_NAME "\xc3\xbc-\xc3\xb1-\xe4\xb8\xad"

static const char *sample;

/* The address of a function as data (ISO C casts neither way; the systems agree on it). */
static const void *address_of(clrie_os_function f)
{
    union {
        clrie_os_function function;
        const void *object;
    } u = {.function = f};
    return u.object;
}

static const char *file_name(const char *path)
{
    const char *name = path;
    for (const char *p = path; *p; p++)
        if (clrie_os_is_separator(*p))
            name = p + 1;
    return name;
}

static void loading_and_calling(void **state)
{
    (void)state;
    char *root = test_tree_new();
    char relative[256];
    snprintf(relative, sizeof(relative), WIDE_NAME "/%s", file_name(sample));
    test_tree_copy(root, relative, sample);
    char *path = test_path(root, relative);

    struct clrie_os_module *module = NULL;
    char why[256] = "";
    assert_int_equal(clrie_os_module_load(path, &module, why, sizeof(why)), 0);
    clrie_os_function exported = clrie_os_module_function(module, "clrie_os_sample_answer");
    assert_non_null(exported);
    int (*answer)(void) = (int (*)(void))exported;
    assert_int_equal(answer(), 42);
    assert_null(clrie_os_module_function(module, "no_such_function"));

    /* Found by its file name while loaded; the file that holds its function is that file. */
    struct clrie_os_module *again = NULL;
    assert_int_equal(clrie_os_module_find(file_name(sample), &again), 0);
    assert_ptr_equal(again, module);
    clrie_os_module_unload(again);
    char *holder = NULL, *expected = NULL;
    assert_int_equal(clrie_os_module_path_of(address_of(exported), &holder), 0);
    assert_int_equal(clrie_os_path_canonical(path, &expected), 0);
    char *canonical_holder = NULL;
    assert_int_equal(clrie_os_path_canonical(holder, &canonical_holder), 0);
    assert_string_equal(canonical_holder, expected);
    assert_int_equal(clrie_os_module_pin(address_of(exported)), 0);
    clrie_os_module_unload(module);
    /* Pinned: still there after its last reference. */
    assert_int_equal(answer(), 42);
    free(canonical_holder);
    free(holder);
    free(expected);
    free(path);
    test_tree_free(root);
}

static void what_is_no_module(void **state)
{
    (void)state;
    char *root = test_tree_new();
    test_tree_write(root, "text.dll", "not a module", 12);
    char *missing = test_path(root, "missing.dll");
    char *text = test_path(root, "text.dll");
    struct clrie_os_module *module = NULL;
    char why[256] = "";
    assert_int_equal(clrie_os_module_load(missing, &module, why, sizeof(why)), -ENOENT);
    assert_true(strlen(why) > 0);
    why[0] = '\0';
    assert_int_equal(clrie_os_module_load(text, &module, why, sizeof(why)), -ENOEXEC);
    printf("loader: %s\n", why);
    assert_true(strlen(why) > 0);
    assert_int_equal(clrie_os_module_find("clrie-no-such-module.dll", &module), -ENOENT);
    clrie_os_module_unload(NULL);
    free(missing);
    free(text);
    test_tree_free(root);
}

static void the_program_holds_its_own_code(void **state)
{
    (void)state;
    char *path = NULL;
    assert_int_equal(clrie_os_module_path_of(&sample, &path), 0);
    assert_true(clrie_os_path_is_absolute(path));
    assert_non_null(strstr(path, "test-os-module"));
    free(path);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s SAMPLE-MODULE\n", argv[0]);
        return 2;
    }
    sample = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(loading_and_calling),
        cmocka_unit_test(what_is_no_module),
        cmocka_unit_test(the_program_holds_its_own_code),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
