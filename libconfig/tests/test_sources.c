/* libconfig, where configuration comes from on POSIX systems: modules on disk (links
 * followed), the trust rule's modes, unreadable files and what is not a regular file, folders,
 * and the environment's ':'-separated lists of '/' paths. Windows' own are
 * test_modules_win32.c's; the documents a parser must survive are test_documents.c's. */
#define _DEFAULT_SOURCE /* mkfifo */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "clrie/config.h"
#include "helpers.h"
#include "support.h"

/* --- modules ------------------------------------------------------------------------------- */

static void resolves_modules_relative_to_the_config_folder_or_absolute(void **state)
{
    char *root = new_tree();
    test_tree_mkdir(root, "conf/sub");
    write_text(root, "lib/real.so", "x");
    char *real = test_path(root, "lib/real.so");
    test_tree_symlink(root, "lib/link.so", "real.so");
    char *canonical = realpath(real, NULL);
    char *doc = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&doc, &n);
    fprintf(f,
            HEAD "<InstrumentationMethod><Name>Rel</Name><Module>../lib/real.so</Module>"
                 "<ClassGuid>" GUID_B "</ClassGuid></InstrumentationMethod>\n"
                 "<InstrumentationMethod><Name>Dots</Name><Module>sub/../../lib/./link.so</Module>"
                 "<ClassGuid>" GUID_C "</ClassGuid></InstrumentationMethod>\n"
                 "<InstrumentationMethod><Name>Abs</Name><Module>%s</Module>"
                 "<ClassGuid>" GUID_D "</ClassGuid></InstrumentationMethod>\n" TAIL,
            real);
    fclose(f);
    write_text(root, "conf/c.config", doc);
    /* A configuration reached through a symbolic link resolves from where the file is. */
    test_tree_mkdir(root, "elsewhere");
    char *target = test_path(root, "conf/c.config");
    test_tree_symlink(root, "elsewhere/c.config", target);
    char *via_link = test_path(root, "elsewhere/c.config");
    struct clrie_config *config = clrie_config_new();
    assert_int_equal(clrie_config_load_file(config, via_link, NULL), 0);
    expect_problems(config, root, "");
    assert_int_equal(clrie_config_method_count(config), 3);
    for (size_t i = 0; i < 3; i++)
        assert_string_equal(clrie_config_method_at(config, i)->module_path, canonical);
    assert_string_equal(clrie_config_method_at(config, 2)->module, real);
    clrie_config_free(config);
    free(doc);
    free(target);
    free(via_link);
    free(real);
    free(canonical);
    test_tree_free(root);
}

static void rejects_missing_and_non_file_modules(void **state)
{
    char *root = new_tree();
    test_tree_mkdir(root, "folder.so");
    test_tree_symlink(root, "dangling.so", "nowhere.so");
    const char *doc =
        HEAD "<InstrumentationMethod><Name>M</Name><Module>missing.so</Module>"
             "<ClassGuid>" GUID_B "</ClassGuid></InstrumentationMethod>\n"
             "<InstrumentationMethod><Name>F</Name><Module>folder.so</Module>"
             "<ClassGuid>" GUID_C "</ClassGuid></InstrumentationMethod>\n"
             "<InstrumentationMethod><Name>D</Name><Module>dangling.so</Module>"
             "<ClassGuid>" GUID_D "</ClassGuid></InstrumentationMethod>\n"
             "<InstrumentationMethod><Name>A</Name><Module>/no/such/plugin.so</Module>"
             "<ClassGuid>" GUID_A "</ClassGuid></InstrumentationMethod>\n" TAIL;
    write_text(root, "m.config", doc);
    char *path = test_path(root, "m.config");
    struct clrie_config *config = clrie_config_new();
    assert_int_equal(clrie_config_load_file(config, path, NULL), -EILSEQ);
    assert_int_equal(clrie_config_method_count(config), 0);
    char *canonical_root = realpath(root, NULL);
    char *got = problems(config, canonical_root);
    char *got2 = relative_to(got, root);
    assert_string_equal(
        got2,
        "ROOT/m.config:2:38: error: <Module> 'missing.so' (ROOT/missing.so): No such file or "
        "directory\n"
        "ROOT/m.config:3:38: error: <Module> 'folder.so' (ROOT/folder.so): not a regular file\n"
        "ROOT/m.config:4:38: error: <Module> 'dangling.so' (ROOT/dangling.so): No such file "
        "or directory\n"
        "ROOT/m.config:5:38: error: <Module> '/no/such/plugin.so' (/no/such/plugin.so): No "
        "such file or directory\n");
    free(got);
    free(got2);
    free(canonical_root);

    /* From memory without a folder, a relative Module cannot be resolved. */
    clrie_config_free(config);
    config = clrie_config_new();
    char *m = method("R", GUID_B, NULL);
    char *d = document(m, NULL);
    assert_int_equal(clrie_config_load_memory(config, d, strlen(d), NULL, NULL, NULL), -EILSEQ);
    expect_problems(config, NULL,
                    "<memory>:2:40: error: <Module> 'plugin.so' is relative, and there is no "
                    "folder to resolve it in\n");
    clrie_config_free(config);
    free(m);
    free(d);
    free(path);
    test_tree_free(root);
}

/* --- trust ---------------------------------------------------------------------------------- */

static void refuses_files_and_modules_others_can_change(void **state)
{
    char *root = new_tree();
    write_methods(root, "shared.config", 1, method("S", GUID_B, NULL));
    test_tree_chmod(root, "shared.config", 0664);
    write_methods(root, "foreign.config", 1, method("F", GUID_C, NULL));
    char *foreign = test_path(root, "foreign.config");
    assert_int_equal(chown(foreign, 65534, 65534), 0);
    char *shared = test_path(root, "shared.config");

    struct clrie_config *config = clrie_config_new();
    assert_int_equal(clrie_config_load_file(config, shared, NULL), -EACCES);
    assert_int_equal(clrie_config_load_file(config, foreign, NULL), -EPERM);
    assert_int_equal(clrie_config_method_count(config), 0);
    expect_problems(config, root,
                    "ROOT/shared.config:0:0: error: the file is writable by group or others "
                    "(owner 0, mode 0664); refused unless "
                    "MicrosoftInstrumentationEngine_DisableCodeSignatureValidation=1\n"
                    "ROOT/foreign.config:0:0: error: the file is owned by another user than the "
                    "current one or root (owner 65534, mode 0644); refused unless "
                    "MicrosoftInstrumentationEngine_DisableCodeSignatureValidation=1\n");
    clrie_config_free(config);

    /* Turned off, both load. */
    struct clrie_config_options off = {.trust_check = false};
    config = clrie_config_new();
    assert_int_equal(clrie_config_load_file(config, shared, &off), 0);
    assert_int_equal(clrie_config_load_file(config, foreign, &off), 0);
    expect_list(config, "- " GUID_B " S\n- " GUID_C " F\n");
    clrie_config_free(config);

    /* The same for modules. */
    test_tree_chmod(root, "plugin.so", 0646);
    write_text(root, "owned.so", "x");
    char *owned = test_path(root, "owned.so");
    assert_int_equal(chown(owned, 65534, 0), 0);
    const char *doc = HEAD "<InstrumentationMethod><Name>W</Name><Module>plugin.so</Module>"
                           "<ClassGuid>" GUID_B "</ClassGuid></InstrumentationMethod>\n"
                           "<InstrumentationMethod><Name>O</Name><Module>owned.so</Module>"
                           "<ClassGuid>" GUID_C "</ClassGuid></InstrumentationMethod>\n" TAIL;
    config = clrie_config_new();
    char *canonical_root = realpath(root, NULL);
    assert_int_equal(load_text(config, canonical_root, doc), -EILSEQ);
    expect_problems(config, canonical_root,
                    "t.config:2:38: error: <Module> 'plugin.so' (ROOT/plugin.so): the file is "
                    "writable by "
                    "group or others (owner 0, mode 0646); refused unless "
                    "MicrosoftInstrumentationEngine_DisableCodeSignatureValidation=1\n"
                    "t.config:3:38: error: <Module> 'owned.so' (ROOT/owned.so): the file is owned "
                    "by another "
                    "user than the current one or root (owner 65534, mode 0644); refused unless "
                    "MicrosoftInstrumentationEngine_DisableCodeSignatureValidation=1\n");
    clrie_config_free(config);
    config = clrie_config_new();
    assert_int_equal(clrie_config_load_memory(config, doc, strlen(doc), "t", canonical_root, &off),
                     0);
    assert_int_equal(clrie_config_method_count(config), 2);
    clrie_config_free(config);
    free(canonical_root);
    free(owned);
    free(shared);
    free(foreign);
    test_tree_free(root);
}

static void check_unreadable(const char *root)
{
    struct clrie_config *config = clrie_config_new();
    char *file = test_path(root, "secret.config"), *folder = test_path(root, "locked");
    struct clrie_config_options off = {.trust_check = false};
    if (clrie_config_load_file(config, file, &off) != -EACCES)
        _exit(1);
    if (clrie_config_load_path(config, folder, &off) != -EACCES)
        _exit(2);
    char *got = problems(config, root);
    if (strcmp(got, "ROOT/secret.config:0:0: error: cannot open: Permission denied\n"
                    "ROOT/locked:0:0: error: cannot read the folder: Permission denied\n") != 0) {
        fprintf(stderr, "got: %s", got);
        _exit(4);
    }
    free(got);
    free(file);
    free(folder);
    clrie_config_free(config);
}

static void reports_unreadable_files_and_folders(void **state)
{
    char *root = new_tree();
    write_methods(root, "secret.config", 1, method("S", GUID_B, NULL));
    test_tree_chmod(root, "secret.config", 0600);
    write_methods(root, "locked/a.config", 1, method("L", GUID_B, NULL));
    test_tree_chmod(root, "locked", 0700);
    assert_true(test_as_ordinary_user(check_unreadable, root));
    test_tree_free(root);
}

static void refuses_what_is_not_a_regular_file(void **state)
{
    char *root = new_tree();
    char *fifo = test_path(root, "pipe.config");
    assert_int_equal(mkfifo(fifo, 0644), 0);
    struct clrie_config *config = clrie_config_new();
    assert_int_equal(clrie_config_load_file(config, fifo, NULL), -EINVAL); /* and no hang */
    assert_int_equal(clrie_config_load_file(config, root, NULL), -EISDIR);
    char *missing = test_path(root, "missing.config");
    assert_int_equal(clrie_config_load_file(config, missing, NULL), -ENOENT);
    expect_problems(config, root,
                    "ROOT/pipe.config:0:0: error: not a regular file\n"
                    "ROOT:0:0: error: is a folder, not a configuration file\n"
                    "ROOT/missing.config:0:0: error: cannot open: No such file or directory\n");
    assert_int_equal(clrie_config_load_file(NULL, fifo, NULL), -EINVAL);
    assert_int_equal(clrie_config_load_file(config, NULL, NULL), -EINVAL);
    assert_int_equal(clrie_config_load_path(config, NULL, NULL), -EINVAL);
    assert_int_equal(clrie_config_load_memory(config, NULL, 3, NULL, NULL, NULL), -EINVAL);
    assert_int_equal(clrie_config_load_env(config, NULL), -EINVAL);
    assert_int_equal(clrie_config_diag_count(config), 3);
    clrie_config_free(config);
    clrie_config_free(NULL);
    assert_int_equal(clrie_config_method_count(NULL), 0);
    assert_null(clrie_config_diag_at(NULL, 0));
    free(fifo);
    free(missing);
    test_tree_free(root);
}

/* --- hostile files ---------------------------------------------------------------------------- */

/* --- folders and the environment ---------------------------------------------------------- */

static void a_folder_contributes_its_config_and_xml_files_in_name_order(void **state)
{
    char *root = new_tree();
    write_text(root, "dir/plugin.so", "x");
    write_methods(root, "dir/b.xml", 1, method("B", GUID_B, NULL));
    write_methods(root, "dir/a.config", 1, method("A", GUID_A, NULL));
    write_methods(root, "dir/C.xml", 1, method("C", GUID_C, NULL));
    write_text(root, "dir/notes.txt", "not a config");
    write_text(root, "dir/.hidden.xml", "<broken");
    write_text(root, "dir/x.config.bak", "<broken");
    write_methods(root, "dir/sub/d.config", 1, method("D", GUID_D, NULL));
    test_tree_mkdir(root, "empty");
    char *dir = test_path(root, "dir"), *empty = test_path(root, "empty");
    struct clrie_config *config = clrie_config_new();
    assert_int_equal(clrie_config_load_path(config, dir, NULL), 0);
    assert_int_equal(clrie_config_load_path(config, empty, NULL), 0);
    expect_list(config, "- " GUID_C " C\n- " GUID_A " A\n- " GUID_B " B\n");
    expect_problems(config, root,
                    "ROOT/empty:0:0: warning: the folder has no *.config or *.xml file\n");
    clrie_config_free(config);
    free(dir);
    free(empty);
    test_tree_free(root);
}

static void discovers_from_the_environment_in_order(void **state)
{
    char *root = new_tree();
    write_methods(root, "first.config", 2,
                  method("F50", "{00000000-0000-0000-0000-000000000001}", "50"),
                  method("Fnone", "{00000000-0000-0000-0000-000000000002}", NULL));
    write_text(root, "list/plugin.so", "x");
    write_methods(root, "list/a.xml", 1,
                  method("A50", "{00000000-0000-0000-0000-000000000003}", "50"));
    write_methods(root, "list/b.config", 1,
                  method("B10", "{00000000-0000-0000-0000-000000000004}", "10"));
    write_methods(root, "second.config", 2,
                  method("S50", "{00000000-0000-0000-0000-000000000005}", "50"),
                  method("Dup", "{00000000-0000-0000-0000-000000000001}", "0"));
    write_methods(root, "ignored.config", 1, method("Ignored", GUID_D, NULL));
    char vars[6][1024];
    snprintf(vars[0], sizeof(vars[0]), "PATH=/usr/bin");
    snprintf(vars[1], sizeof(vars[1]), CLRIE_CONFIG_ENV_PREFIX "Zeta=%s/first.config", root);
    snprintf(vars[2], sizeof(vars[2]),
             "microsoftinstrumentationengine_configpath64_X=%s/ignored.config", root);
    snprintf(vars[3], sizeof(vars[3]), CLRIE_CONFIG_ENV_PREFIX "=%s/missing.config::%s/list", root,
             root);
    snprintf(vars[4], sizeof(vars[4]), CLRIE_CONFIG_ENV_PREFIX "A=%s/second.config", root);
    snprintf(vars[5], sizeof(vars[5]),
             "MicrosoftInstrumentationEngine_ConfigPath32_A=%s/ignored.config", root);
    char *envp[] = {vars[0], vars[1], vars[2], vars[3], vars[4], vars[5], NULL};
    struct clrie_config *config = clrie_config_new();
    assert_int_equal(clrie_config_load_env(config, envp), -ENOENT);
    expect_list(config, "10 {00000000-0000-0000-0000-000000000004} B10\n"
                        "50 {00000000-0000-0000-0000-000000000001} F50\n"
                        "50 {00000000-0000-0000-0000-000000000003} A50\n"
                        "50 {00000000-0000-0000-0000-000000000005} S50\n"
                        "- {00000000-0000-0000-0000-000000000002} Fnone\n");
    expect_problems(config, root,
                    "ROOT/missing.config:0:0: error: cannot open: No such file or directory "
                    "(listed in " CLRIE_CONFIG_ENV_PREFIX ")\n" CLRIE_CONFIG_ENV_PREFIX
                    ":0:0: warning: an empty entry in the path list is "
                    "ignored\n"
                    "ROOT/second.config:3:3: warning: ClassGuid "
                    "{00000000-0000-0000-0000-000000000001} is already declared by 'F50' at "
                    "ROOT/first.config:2:3; 'Dup' is ignored\n");
    clrie_config_free(config);

    char *none[] = {vars[0], NULL};
    config = clrie_config_new();
    assert_int_equal(clrie_config_load_env(config, none), 0);
    assert_int_equal(clrie_config_method_count(config), 0);
    assert_int_equal(clrie_config_diag_count(config), 0);
    clrie_config_free(config);
    test_tree_free(root);
}

static void keeps_clrie_locator_test_order_and_reports_what_clrie_dropped(void **state)
{
    /* CLRIE's ConfigurationLocatorTests.GetConfigurationPathsExpandsPathCorrectly: it keeps 3
     * sources [., config1, config2] and silently drops the two missing paths. */
    char *root = new_tree();
    write_text(root, "cwd/plugin.so", "x");
    write_methods(root, "cwd/here.config", 1, method("Here", GUID_A, NULL));
    write_methods(root, "config1.xml", 1, method("One", GUID_B, NULL));
    write_methods(root, "config2.xml", 1, method("Two", GUID_C, NULL));
    char a[256], b[256], c[1024];
    snprintf(a, sizeof(a), CLRIE_CONFIG_ENV_PREFIX "FeatureA=/non/existing/path");
    snprintf(b, sizeof(b), CLRIE_CONFIG_ENV_PREFIX "FeatureB=.");
    snprintf(c, sizeof(c),
             CLRIE_CONFIG_ENV_PREFIX "FeatureC=%s/config1.xml:/non/existing/path:%s/config2.xml",
             root, root);
    char *envp[] = {a, b, c, NULL};
    char *saved = getcwd(NULL, 0);
    char *cwd = test_path(root, "cwd");
    assert_int_equal(chdir(cwd), 0);
    struct clrie_config *config = clrie_config_new();
    int r = clrie_config_load_env(config, envp);
    assert_int_equal(chdir(saved), 0);
    assert_int_equal(r, -ENOENT);
    expect_list(config, "- " GUID_A " Here\n- " GUID_B " One\n- " GUID_C " Two\n");
    expect_problems(config, root,
                    "/non/existing/path:0:0: error: cannot open: No such file or directory "
                    "(listed in " CLRIE_CONFIG_ENV_PREFIX "FeatureA)\n"
                    "/non/existing/path:0:0: error: cannot open: No such file or directory "
                    "(listed in " CLRIE_CONFIG_ENV_PREFIX "FeatureC)\n");
    clrie_config_free(config);
    free(saved);
    free(cwd);
    test_tree_free(root);
}

static void the_environment_can_turn_the_trust_check_off(void **state)
{
    char *root = new_tree();
    write_methods(root, "open.config", 1, method("Open", GUID_B, NULL));
    test_tree_chmod(root, "open.config", 0666);
    char var[1024];
    snprintf(var, sizeof(var), CLRIE_CONFIG_ENV_PREFIX "=%s/open.config", root);
    char off[] = CLRIE_CONFIG_ENV_DISABLE_TRUST "=1";
    char not_one[] = CLRIE_CONFIG_ENV_DISABLE_TRUST "=true";
    char *checked[] = {var, not_one, NULL};
    char *unchecked[] = {var, off, NULL};
    struct clrie_config *config = clrie_config_new();
    assert_int_equal(clrie_config_load_env(config, checked), -EACCES);
    assert_int_equal(clrie_config_method_count(config), 0);
    assert_non_null(
        strstr(clrie_config_diag_at(config, 0)->message, "writable by group or others"));
    clrie_config_free(config);
    config = clrie_config_new();
    assert_int_equal(clrie_config_load_env(config, unchecked), 0);
    expect_list(config, "- " GUID_B " Open\n");
    clrie_config_free(config);
    test_tree_free(root);
}

/* CLRIE's Linux name (ConfigPath64_) is read on every architecture. On aarch64 the ARM64 name
 * is read too, and when both are set the ARM64 variables win; each ignored ConfigPath64_
 * variable gets a warning. */
static void clries_linux_name_is_read_and_the_arm64_name_wins_on_aarch64(void **state)
{
    char *root = new_tree();
    write_methods(root, "sixty-four.config", 1, method("SixtyFour", GUID_A, NULL));
    write_methods(root, "arm64.config", 1, method("Arm64", GUID_B, NULL));
    char only64[1024], arm64[1024];
    snprintf(only64, sizeof(only64), CLRIE_CONFIG_ENV_PREFIX_64 "X=%s/sixty-four.config", root);
    snprintf(arm64, sizeof(arm64),
             "MicrosoftInstrumentationEngine_ConfigPathARM64_Y=%s/arm64.config", root);

    char *linux_name[] = {only64, NULL};
    assert_string_equal(clrie_config_env_prefix(linux_name), CLRIE_CONFIG_ENV_PREFIX_64);
    struct clrie_config *config = clrie_config_new();
    assert_int_equal(clrie_config_load_env(config, linux_name), 0);
    expect_list(config, "- " GUID_A " SixtyFour\n");
    clrie_config_free(config);

    char *both[] = {only64, arm64, NULL};
    config = clrie_config_new();
    assert_int_equal(clrie_config_load_env(config, both), 0);
#if defined(__aarch64__)
    assert_string_equal(clrie_config_env_prefix(both), CLRIE_CONFIG_ENV_PREFIX);
    expect_list(config, "- " GUID_B " Arm64\n");
    expect_problems(config, root,
                    CLRIE_CONFIG_ENV_PREFIX_64 "X:0:0: warning: ignored: " CLRIE_CONFIG_ENV_PREFIX
                                               "* variables are set, and they take precedence\n");
#else
    /* x86_64 reads ConfigPath64_ only: the ARM64 name is another architecture's */
    assert_string_equal(clrie_config_env_prefix(both), CLRIE_CONFIG_ENV_PREFIX_64);
    expect_list(config, "- " GUID_A " SixtyFour\n");
    assert_int_equal(clrie_config_diag_count(config), 0);
#endif
    clrie_config_free(config);

    char *nothing[] = {"PATH=/usr/bin", NULL};
    assert_null(clrie_config_env_prefix(nothing));
    test_tree_free(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(resolves_modules_relative_to_the_config_folder_or_absolute),
        cmocka_unit_test(rejects_missing_and_non_file_modules),
        cmocka_unit_test(refuses_files_and_modules_others_can_change),
        cmocka_unit_test(reports_unreadable_files_and_folders),
        cmocka_unit_test(refuses_what_is_not_a_regular_file),
        cmocka_unit_test(a_folder_contributes_its_config_and_xml_files_in_name_order),
        cmocka_unit_test(discovers_from_the_environment_in_order),
        cmocka_unit_test(keeps_clrie_locator_test_order_and_reports_what_clrie_dropped),
        cmocka_unit_test(the_environment_can_turn_the_trust_check_off),
        cmocka_unit_test(clries_linux_name_is_read_and_the_arm64_name_wins_on_aarch64),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
