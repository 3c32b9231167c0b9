/* What a module and a configuration must be on Windows: the PE check of a real DLL of this
 * build, of copies cut short and of one for another machine; a program that is not a DLL;
 * paths outside ASCII, ';'-separated lists and a <Module> relative to its configuration's
 * folder; and the trust rule on the files Wine gives. argv[1]: the sample DLL. */
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

#include <windows.h>
#include <aclapi.h>

#include "clrie/config.h"
#include "support.h"

/* "ü-ñ-中" in UTF-8: outside ASCII, and beyond Latin-1. */
#define WIDE_NAME "\xc3\xbc-\xc3\xb1-\xe4\xb8\xad"
#define SAMPLE_GUID "{249E89A6-12D9-4E03-82FF-7FEAA41310E9}"
#define OTHER_GUID "{249E89A6-12D9-4E03-82FF-7FEAA41310EA}"

static const char *sample_dll;
static const char *this_program;

static void a_real_dll_passes(void **state)
{
    (void)state;
    size_t len = 0;
    char *data = test_read_file(sample_dll, &len);
    assert_non_null(data);
    char why[CLRIE_CONFIG_REASON_SIZE] = "";
    assert_int_equal(clrie_config_pe_check_memory(data, len, why, sizeof(why)), 0);
    char *canonical = NULL;
    assert_int_equal(clrie_config_module_check(sample_dll, CLRIE_CONFIG_CHECK_IMAGE, &canonical,
                                               why, sizeof(why)),
                     0);
    assert_non_null(canonical);
    free(canonical);
    free(data);
}

static void copies_cut_short_are_refused(void **state)
{
    (void)state;
    size_t len = 0;
    char *data = test_read_file(sample_dll, &len);
    assert_non_null(data);
    /* Where the last section's bytes end: what follows (the COFF symbols of a build with
     * debugging information) is not loaded, and cutting it loses nothing. */
    const unsigned char *u = (const unsigned char *)data;
    uint32_t pe = u[0x3c] | u[0x3d] << 8 | u[0x3e] << 16 | (uint32_t)u[0x3f] << 24;
    unsigned sections = u[pe + 6] | u[pe + 7] << 8;
    const unsigned char *table = u + pe + 24 + (u[pe + 20] | u[pe + 21] << 8);
    size_t end = 0;
    for (unsigned i = 0; i < sections; i++) {
        const unsigned char *sh = table + 40 * i;
        size_t raw = sh[20] | sh[21] << 8 | sh[22] << 16 | (size_t)sh[23] << 24;
        size_t raw_size = sh[16] | sh[17] << 8 | sh[18] << 16 | (size_t)sh[19] << 24;
        if (raw_size && raw + raw_size > end)
            end = raw + raw_size;
    }
    assert_true(end > 0 && end <= len);
    char why[CLRIE_CONFIG_REASON_SIZE];
    size_t refused = 0, tried = 0;
    for (size_t cut = 0; cut < end; cut += end / 97 + 1, tried++) {
        why[0] = '\0';
        if (clrie_config_pe_check_memory(data, cut, why, sizeof(why)) == -ENOEXEC)
            refused++;
        assert_non_null(strstr(why, "not a complete DLL for this machine"));
    }
    /* Every cut loses part of a header or of a section. */
    assert_int_equal(refused, tried);

    /* The same through a file on disk, as the engine meets it. */
    char *root = test_tree_new();
    test_tree_write(root, "half.dll", data, len / 2);
    char *path = test_path(root, "half.dll");
    assert_int_equal(
        clrie_config_module_check(path, CLRIE_CONFIG_CHECK_IMAGE, NULL, why, sizeof(why)),
        -ENOEXEC);
    assert_non_null(strstr(why, "cut short"));
    free(path);
    test_tree_free(root);
    free(data);
}

static void a_dll_for_another_machine_is_named(void **state)
{
    (void)state;
    size_t len = 0;
    unsigned char *data = (unsigned char *)test_read_file(sample_dll, &len);
    assert_non_null(data);
    uint32_t pe = data[0x3c] | data[0x3d] << 8 | data[0x3e] << 16 | (uint32_t)data[0x3f] << 24;
    assert_true(pe + 6 < len);
    unsigned native = data[pe + 4] | data[pe + 5] << 8;
    unsigned other = native == 0x14c ? 0x8664 : 0x14c;
    data[pe + 4] = other & 0xff;
    data[pe + 5] = other >> 8;
    char why[CLRIE_CONFIG_REASON_SIZE] = "";
    assert_int_equal(clrie_config_pe_check_memory(data, len, why, sizeof(why)), -ENOEXEC);
    assert_non_null(strstr(why, other == 0x14c ? "built for machine 0x14c (x86), not x64"
                                               : "built for machine 0x8664 (x64), not x86"));
    free(data);
}

static void a_program_is_not_a_dll(void **state)
{
    (void)state;
    char why[CLRIE_CONFIG_REASON_SIZE] = "";
    assert_int_equal(
        clrie_config_module_check(this_program, CLRIE_CONFIG_CHECK_IMAGE, NULL, why, sizeof(why)),
        -ENOEXEC);
    assert_non_null(strstr(why, "not a DLL"));
    /* ELF is not what Windows loads. */
    static const unsigned char elf[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
    assert_int_equal(clrie_config_pe_check_memory(elf, sizeof(elf), why, sizeof(why)), -ENOEXEC);
    assert_non_null(strstr(why, "no MZ header"));
}

static void write_config(const char *root, const char *relative, const char *module,
                         const char *guid)
{
    char text[1024];
    int n = snprintf(text, sizeof(text),
                     "<InstrumentationEngineConfiguration>\n"
                     "  <InstrumentationMethod>\n"
                     "    <Name>Sample</Name>\n"
                     "    <Module>%s</Module>\n"
                     "    <ClassGuid>%s</ClassGuid>\n"
                     "  </InstrumentationMethod>\n"
                     "</InstrumentationEngineConfiguration>\n",
                     module, guid);
    test_tree_write(root, relative, text, (size_t)n);
}

/* Configurations in a folder outside ASCII, listed with ';' beside a drive-letter path, with a
 * Module relative to their own folder (written with '/' and with '\'). */
static void paths_outside_ascii_and_lists(void **state)
{
    (void)state;
    char *root = test_tree_new();
    test_tree_copy(root, WIDE_NAME "/bin/sample.dll", sample_dll);
    write_config(root, WIDE_NAME "/a.config", "bin/sample.dll", SAMPLE_GUID);
    write_config(root, "other/b.config", "..\\" WIDE_NAME "\\bin\\sample.dll", OTHER_GUID);
    char *a = test_path(root, WIDE_NAME "/a.config");
    char *b = test_path(root, "other");
    assert_true(a[1] == ':'); /* a drive letter: ':' cannot separate the list */
    char variable[2048];
    snprintf(variable, sizeof(variable), CLRIE_CONFIG_ENV_PREFIX "Test=%s;;%s", a, b);
    char *envp[] = {variable, CLRIE_CONFIG_ENV_DISABLE_TRUST "=1", NULL};

    struct clrie_config *config = clrie_config_new();
    assert_non_null(config);
    assert_int_equal(clrie_config_load_env(config, envp), 0);
    assert_int_equal(clrie_config_error_count(config), 0);
    assert_int_equal(clrie_config_diag_count(config), 1); /* the empty entry */
    assert_int_equal(clrie_config_method_count(config), 2);
    char *expected = NULL;
    char *dll = test_path(root, WIDE_NAME "/bin/sample.dll");
    assert_int_equal(clrie_config_module_check(dll, 0, &expected, NULL, 0), 0);
    for (size_t i = 0; i < 2; i++) {
        const struct clrie_config_method *m = clrie_config_method_at(config, i);
        assert_string_equal(m->module_path, expected);
        assert_non_null(strstr(m->module_path, WIDE_NAME "\\bin\\sample.dll"));
    }
    clrie_config_free(config);
    free(expected);
    free(dll);
    free(a);
    free(b);
    test_tree_free(root);
}

/* The 64-bit variables name 64-bit plugins: a 32-bit engine reads ConfigPath32_ only. */
static void variables_of_this_bitness(void **state)
{
    (void)state;
    char *envp64[] = {"MicrosoftInstrumentationEngine_ConfigPath64_X=C:\\x.config", NULL};
    char *envp32[] = {"MicrosoftInstrumentationEngine_ConfigPath32_X=C:\\x.config", NULL};
    const char *p64 = clrie_config_env_prefix(envp64), *p32 = clrie_config_env_prefix(envp32);
    if (sizeof(void *) == 8) {
        assert_string_equal(p64, "MicrosoftInstrumentationEngine_ConfigPath64_");
        assert_null(p32);
    } else {
        assert_null(p64);
        assert_string_equal(p32, "MicrosoftInstrumentationEngine_ConfigPath32_");
    }
}

/* What the trust rule says of files this test made itself, in its own temporary folder. On
 * Windows that folder and the file belong to the current user and nobody else may write them,
 * so both are trusted; the test prints the reason whenever the system says otherwise (Wine
 * gives every file the same synthetic access list, docs/platforms.md). */
static void the_trust_rule_on_the_tests_own_files(void **state)
{
    (void)state;
    char *root = test_tree_new();
    test_tree_copy(root, "sample.dll", sample_dll);
    char *path = test_path(root, "sample.dll");
    char why[CLRIE_CONFIG_REASON_SIZE] = "";
    int r = clrie_config_module_check(path, CLRIE_CONFIG_CHECK_TRUST | CLRIE_CONFIG_CHECK_IMAGE,
                                      NULL, why, sizeof(why));
    printf("trust rule on %s: %d %s\n", path, r, why);
    assert_int_equal(r, 0);

    /* A configuration refused by the rule says how to turn it off; here, a Module that is a
     * folder is refused with or without it. */
    write_config(root, "c.config", ".", SAMPLE_GUID);
    struct clrie_config *config = clrie_config_new();
    char *c = test_path(root, "c.config");
    assert_int_not_equal(clrie_config_load_file(config, c, NULL), 0);
    assert_int_equal(clrie_config_method_count(config), 0);
    assert_non_null(strstr(clrie_config_diag_at(config, 0)->message, "not a regular file"));
    clrie_config_free(config);
    free(c);
    free(path);
    test_tree_free(root);
}

/* Gives Everyone the right to write path (an explicit allowing entry), as a careless installer
 * or a shared folder would. Returns false when the system keeps no access list there. */
static bool let_everyone_write(const char *path)
{
    wchar_t wide[1024];
    if (!MultiByteToWideChar(CP_UTF8, 0, path, -1, wide, 1024))
        return false;
    BYTE sid[SECURITY_MAX_SID_SIZE];
    DWORD sid_size = sizeof(sid);
    if (!CreateWellKnownSid(WinWorldSid, NULL, sid, &sid_size))
        return false;
    EXPLICIT_ACCESSW grant = {
        .grfAccessPermissions = FILE_GENERIC_WRITE,
        .grfAccessMode = GRANT_ACCESS,
        .grfInheritance = NO_INHERITANCE,
        .Trustee = {.TrusteeForm = TRUSTEE_IS_SID, .ptstrName = (LPWSTR)sid},
    };
    PACL old = NULL, updated = NULL;
    PSECURITY_DESCRIPTOR sd = NULL;
    if (GetNamedSecurityInfoW(wide, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL, &old,
                              NULL, &sd) != ERROR_SUCCESS)
        return false;
    bool done = SetEntriesInAclW(1, &grant, old, &updated) == ERROR_SUCCESS &&
                SetNamedSecurityInfoW(wide, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL,
                                      updated, NULL) == ERROR_SUCCESS;
    LocalFree(updated);
    LocalFree(sd);
    return done;
}

/* A module, or a folder above it, that everyone may write is refused, naming who may; the
 * switch of the rule lets it through. */
static void what_everyone_may_write_is_refused(void **state)
{
    (void)state;
    char *root = test_tree_new();
    test_tree_copy(root, "open/sample.dll", sample_dll);
    test_tree_copy(root, "closed/sample.dll", sample_dll);
    char *file = test_path(root, "open/sample.dll");
    char *folder = test_path(root, "closed");
    char *below = test_path(root, "closed/sample.dll");
    if (!let_everyone_write(file) || !let_everyone_write(folder)) {
        printf("access lists cannot be set here: the refusal is not checked\n");
        skip();
    }
    char why[CLRIE_CONFIG_REASON_SIZE] = "";
    assert_int_equal(
        clrie_config_module_check(file, CLRIE_CONFIG_CHECK_TRUST, NULL, why, sizeof(why)), -EACCES);
    printf("refused: %s\n", why);
    assert_non_null(strstr(why, "the file '"));
    assert_non_null(strstr(why, "can be changed by"));
    assert_non_null(strstr(why, "Everyone"));
    assert_int_equal(
        clrie_config_module_check(below, CLRIE_CONFIG_CHECK_TRUST, NULL, why, sizeof(why)),
        -EACCES);
    printf("refused: %s\n", why);
    assert_non_null(strstr(why, "the folder '"));
    assert_int_equal(clrie_config_module_check(below, CLRIE_CONFIG_CHECK_IMAGE, NULL, NULL, 0), 0);
    free(file);
    free(folder);
    free(below);
    test_tree_free(root);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s SAMPLE.dll\n", argv[0]);
        return 2;
    }
    sample_dll = argv[1];
    this_program = argv[0];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_real_dll_passes),
        cmocka_unit_test(copies_cut_short_are_refused),
        cmocka_unit_test(a_dll_for_another_machine_is_named),
        cmocka_unit_test(a_program_is_not_a_dll),
        cmocka_unit_test(paths_outside_ascii_and_lists),
        cmocka_unit_test(variables_of_this_bitness),
        cmocka_unit_test(the_trust_rule_on_the_tests_own_files),
        cmocka_unit_test(what_everyone_may_write_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
