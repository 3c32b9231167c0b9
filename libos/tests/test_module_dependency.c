/* Windows: a module loaded by clrie_os_module_load finds the DLLs it imports in its own
 * folder (LoadLibraryExW with LOAD_WITH_ALTERED_SEARCH_PATH), as CLRIE's plugins expect: a
 * plugin and its dependency copied into a folder named outside ASCII load together, though
 * neither the program's folder nor PATH holds the dependency. argv[1], argv[2]: the dependent
 * DLL and its dependency, as built. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "clrie/os/module.h"
#include "support.h"

static const char *dependent, *dependency;

static void a_module_finds_what_it_imports_in_its_own_folder(void **state)
{
    (void)state;
    char *root = test_tree_new();
    test_tree_copy(root, "pl\xc3\xbcgin-\xe4\xb8\xad/os_dependent.dll", dependent);
    test_tree_copy(root, "pl\xc3\xbcgin-\xe4\xb8\xad/os_dependency.dll", dependency);
    char *path = test_path(root, "pl\xc3\xbcgin-\xe4\xb8\xad/os_dependent.dll");
    struct clrie_os_module *module = NULL;
    char why[256] = "";
    int r = clrie_os_module_load(path, &module, why, sizeof(why));
    if (r != 0)
        fail_msg("%s", why);
    int (*value)(void) =
        (int (*)(void))clrie_os_module_function(module, "clrie_os_dependent_value");
    assert_non_null(value);
    assert_int_equal(value(), 42);
    clrie_os_module_unload(module);
    free(path);
    test_tree_free(root);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s DEPENDENT-DLL DEPENDENCY-DLL\n", argv[0]);
        return 2;
    }
    dependent = argv[1];
    dependency = argv[2];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_module_finds_what_it_imports_in_its_own_folder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
