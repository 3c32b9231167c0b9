/* libconfig, what a module must be before it is loaded: a complete ELF shared object of this
 * machine (clrie_config_elf_check_*), and a file the trust rule accepts, with the folders
 * above it (clrie_config_trust_check, clrie_config_module_check).
 *
 * Arguments: the folder of malformed ELF files (elf-corpus/), each of which must be refused. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
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
#include <dirent.h>

#include "clrie/config.h"
#include "support.h"

static const char *corpus_dir;

#if defined(__x86_64__)
#define MACHINE EM_X86_64
#else
#define MACHINE EM_AARCH64
#endif

/* The smallest file the check accepts: a header, one program header, one PT_LOAD of the
 * whole file, and a section header table at its end. */
struct tiny {
    Elf64_Ehdr h;
    Elf64_Phdr ph;
    Elf64_Shdr sh[2];
};

static struct tiny tiny_elf(void)
{
    struct tiny t;
    memset(&t, 0, sizeof(t));
    memcpy(t.h.e_ident, ELFMAG, SELFMAG);
    t.h.e_ident[EI_CLASS] = ELFCLASS64;
    t.h.e_ident[EI_DATA] = ELFDATA2LSB;
    t.h.e_ident[EI_VERSION] = EV_CURRENT;
    t.h.e_type = ET_DYN;
    t.h.e_machine = MACHINE;
    t.h.e_version = EV_CURRENT;
    t.h.e_phoff = offsetof(struct tiny, ph);
    t.h.e_phentsize = sizeof(Elf64_Phdr);
    t.h.e_phnum = 1;
    t.h.e_shoff = offsetof(struct tiny, sh);
    t.h.e_shentsize = sizeof(Elf64_Shdr);
    t.h.e_shnum = 2;
    t.h.e_ehsize = sizeof(Elf64_Ehdr);
    t.ph.p_type = PT_LOAD;
    t.ph.p_offset = 0;
    t.ph.p_filesz = sizeof(t);
    t.ph.p_memsz = sizeof(t);
    return t;
}

/* Expects data to be refused with -ENOEXEC and a reason containing needle. */
static void expect_refused(const void *data, size_t size, const char *needle)
{
    char why[CLRIE_CONFIG_REASON_SIZE] = "";
    int r = clrie_config_elf_check_memory(data, size, why, sizeof(why));
    if (r != -ENOEXEC || !strstr(why, needle))
        fail_msg("expected -ENOEXEC with '%s', got %d: %s", needle, r, why);
}

static void accepts_a_minimal_shared_object(void **state)
{
    struct tiny t = tiny_elf();
    char why[CLRIE_CONFIG_REASON_SIZE] = "";
    assert_int_equal(clrie_config_elf_check_memory(&t, sizeof(t), why, sizeof(why)), 0);
}

/* One header mutation and the reason it must give. */
static void refuses_each_malformed_header(void **state)
{
    struct tiny t;
#define MUTATION(change, needle)                                                                   \
    do {                                                                                           \
        t = tiny_elf();                                                                            \
        change;                                                                                    \
        expect_refused(&t, sizeof(t), needle);                                                     \
    } while (0)
    MUTATION(t.h.e_ident[0] = 0, "no ELF magic number");
    MUTATION(t.h.e_ident[EI_CLASS] = ELFCLASS32, "not a 64-bit ELF file");
    MUTATION(t.h.e_ident[EI_DATA] = ELFDATA2MSB, "not little-endian");
    MUTATION(t.h.e_ident[EI_VERSION] = 0, "unknown ELF version");
    MUTATION(t.h.e_version = 2, "unknown ELF version");
    MUTATION(t.h.e_machine = (MACHINE == EM_X86_64 ? EM_AARCH64 : EM_X86_64), "ELF machine");
    MUTATION(t.h.e_type = ET_EXEC, "not a shared object");
    MUTATION(t.h.e_type = ET_REL, "not a shared object");
    MUTATION(t.h.e_phnum = 0, "no program headers");
    MUTATION(t.h.e_phentsize = 32, "no program headers");
    MUTATION(t.h.e_phnum = 60000, "implausibly many");
    MUTATION(t.h.e_phoff = sizeof(t) - 8, "program headers lie past the end");
    MUTATION(t.h.e_phoff = UINT64_MAX - 8, "program headers lie past the end");
    MUTATION(t.ph.p_type = PT_NOTE, "no loadable segment");
    MUTATION(t.ph.p_filesz = sizeof(t) + 1, "loadable segment 0 needs bytes up to");
    MUTATION(t.ph.p_offset = UINT64_MAX, "loadable segment 0");
    MUTATION((t.ph.p_offset = 16, t.ph.p_filesz = UINT64_MAX - 8), "loadable segment 0");
    MUTATION(t.h.e_shoff = sizeof(t), "section headers lie past the end");
    MUTATION(t.h.e_shnum = 3, "section headers lie past the end");
    MUTATION(t.h.e_shentsize = 40, "section headers of an unexpected size");
    MUTATION((t.h.e_shnum = 0, t.h.e_shoff = sizeof(t) - 8), "section headers lie past");
#undef MUTATION
    t = tiny_elf();
    for (size_t size = 0; size < sizeof(t); size++)
        expect_refused(&t, size, size < sizeof(Elf64_Ehdr) ? "shorter than an ELF header" : "");
    /* No section header table at all is fine: dlopen does not need one. */
    t = tiny_elf();
    t.h.e_shoff = 0;
    assert_int_equal(clrie_config_elf_check_memory(&t, sizeof(t), NULL, 0), 0);
}

/* Every file of the corpus (libconfig/tests/elf-corpus) is refused, read from disk. */
static void refuses_every_file_of_the_corpus(void **state)
{
    DIR *dir = opendir(corpus_dir);
    assert_non_null(dir);
    int count = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", corpus_dir, e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        char why[CLRIE_CONFIG_REASON_SIZE] = "";
        int r = clrie_config_elf_check_fd(fd, why, sizeof(why));
        close(fd);
        if (r != -ENOEXEC || !strstr(why, "not a complete ELF shared object"))
            fail_msg("%s: expected a refusal, got %d: %s", e->d_name, r, why);
        count++;
    }
    closedir(dir);
    assert_true(count >= 10);
}

/* A real shared object of this machine: the cmocka library this test is linked with. */
static char *real_shared_object(size_t *len)
{
    Dl_info info;
    union {
        void (*fn)(void);
        void *object;
    } symbol = {.fn = (void (*)(void))_assert_true};
    assert_true(dladdr(symbol.object, &info) && info.dli_fname);
    char *data = test_read_file(info.dli_fname, len);
    assert_non_null(data);
    return data;
}

static void refuses_truncated_copies_of_a_real_shared_object(void **state)
{
    size_t len;
    char *data = real_shared_object(&len);
    char *root = test_tree_new();
    char why[CLRIE_CONFIG_REASON_SIZE];
    test_tree_write(root, "whole.so", data, len);
    char *whole = test_path(root, "whole.so");
    assert_int_equal(clrie_config_module_check(whole,
                                               CLRIE_CONFIG_CHECK_ELF | CLRIE_CONFIG_CHECK_TRUST,
                                               NULL, why, sizeof(why)),
                     0);
    /* Cut at the ends of the segments and tables, and at 97 other places. */
    size_t cuts[128];
    size_t n = 0;
    const Elf64_Ehdr *h = (const void *)data;
    for (unsigned i = 0; i < h->e_phnum && n < 16; i++) {
        const Elf64_Phdr *ph = (const void *)(data + h->e_phoff + i * sizeof(Elf64_Phdr));
        if (ph->p_type == PT_LOAD && ph->p_filesz > 0)
            cuts[n++] = ph->p_offset + ph->p_filesz - 1;
    }
    cuts[n++] = h->e_shoff + 1;
    cuts[n++] = len - 1;
    for (size_t k = 0; k < 97; k++)
        cuts[n++] = len * k / 97;
    char *cut = test_path(root, "cut.so");
    for (size_t k = 0; k < n; k++) {
        test_tree_write(root, "cut.so", data, cuts[k]);
        int r = clrie_config_module_check(cut, CLRIE_CONFIG_CHECK_ELF, NULL, why, sizeof(why));
        if (r != -ENOEXEC || !strstr(why, "not a complete ELF shared object"))
            fail_msg("cut at %zu of %zu: expected a refusal, got %d: %s", cuts[k], len, r, why);
    }
    free(cut);
    free(whole);
    free(data);
    test_tree_free(root);
}

/* --- the trust rule --------------------------------------------------------------------------
 */

static int check(const char *root, const char *relative, char *why)
{
    char *path = test_path(root, relative);
    int r = clrie_config_module_check(path, CLRIE_CONFIG_CHECK_TRUST, NULL, why,
                                      CLRIE_CONFIG_REASON_SIZE);
    free(path);
    return r;
}

static void refuses_a_module_in_a_folder_others_can_write(void **state)
{
    char why[CLRIE_CONFIG_REASON_SIZE];
    char *root = test_tree_new();
    test_tree_write(root, "open/plugin.so", "x", 1);
    test_tree_write(root, "group/plugin.so", "x", 1);
    test_tree_write(root, "sticky/mine.so", "x", 1);
    test_tree_write(root, "sticky/theirs.so", "x", 1);
    test_tree_write(root, "foreign/plugin.so", "x", 1);
    test_tree_write(root, "fine/deeper/plugin.so", "x", 1);
    test_tree_chmod(root, "open", 0777);
    test_tree_chmod(root, "group", 0775);
    test_tree_chmod(root, "sticky", 01777);

    assert_int_equal(check(root, "fine/deeper/plugin.so", why), 0);
    assert_int_equal(check(root, "open/plugin.so", why), -EACCES);
    assert_non_null(strstr(why, "open' is writable by group or others and not sticky"));
    assert_int_equal(check(root, "group/plugin.so", why), -EACCES);
    assert_int_equal(check(root, "sticky/mine.so", why), 0);

    /* The rest needs another user's files: only root can make them. */
    char *theirs = test_path(root, "sticky/theirs.so");
    char *foreign = test_path(root, "foreign");
    if (geteuid() == 0) {
        assert_int_equal(chown(theirs, 65534, 65534), 0);
        assert_int_equal(check(root, "sticky/theirs.so", why), -EPERM); /* the file itself */
        assert_int_equal(chmod(theirs, 0644), 0);
        assert_int_equal(chown(foreign, 65534, 65534), 0);
        assert_int_equal(check(root, "foreign/plugin.so", why), -EPERM);
        assert_non_null(strstr(why, "foreign' is owned by another user"));
    }
    /* The folder rule applies to the canonical path: a link from a safe folder into an open
     * one is refused, a link from an open folder to a safe file is not. */
    char *target = test_path(root, "open/plugin.so");
    test_tree_symlink(root, "fine/link.so", target);
    assert_int_equal(check(root, "fine/link.so", why), -EACCES);
    free(target);
    target = test_path(root, "fine/deeper/plugin.so");
    test_tree_symlink(root, "open/link.so", target);
    assert_int_equal(check(root, "open/link.so", why), 0);

    /* Without the trust rule, only the ELF check (which a one-byte file fails) is left. */
    char *open_module = test_path(root, "open/plugin.so");
    assert_int_equal(clrie_config_module_check(open_module, 0, NULL, why, sizeof(why)), 0);
    assert_int_equal(
        clrie_config_module_check(open_module, CLRIE_CONFIG_CHECK_ELF, NULL, why, sizeof(why)),
        -ENOEXEC);
    free(open_module);
    free(target);
    free(theirs);
    free(foreign);
    test_tree_chmod(root, "open", 0755);
    test_tree_chmod(root, "group", 0755);
    test_tree_free(root);
}

static void configuration_files_in_open_folders_are_refused(void **state)
{
    char *root = test_tree_new();
    test_tree_write(root, "open/a.config", "<InstrumentationEngineConfiguration/>\n",
                    strlen("<InstrumentationEngineConfiguration/>\n"));
    test_tree_chmod(root, "open", 0757);
    char *path = test_path(root, "open/a.config");
    struct clrie_config *config = clrie_config_new();
    assert_int_equal(clrie_config_load_file(config, path, NULL), -EACCES);
    assert_non_null(strstr(clrie_config_diag_at(config, 0)->message,
                           "open' is writable by group or others and not sticky"));
    clrie_config_free(config);
    free(path);
    test_tree_chmod(root, "open", 0755);
    test_tree_free(root);
}

static void module_check_reports_missing_and_odd_files(void **state)
{
    char why[CLRIE_CONFIG_REASON_SIZE];
    char *root = test_tree_new();
    test_tree_mkdir(root, "folder.so");
    char *missing = test_path(root, "missing.so"), *folder = test_path(root, "folder.so");
    assert_int_equal(
        clrie_config_module_check(missing, CLRIE_CONFIG_CHECK_ELF, NULL, why, sizeof(why)),
        -ENOENT);
    assert_int_equal(
        clrie_config_module_check(folder, CLRIE_CONFIG_CHECK_ELF, NULL, why, sizeof(why)), -EINVAL);
    assert_non_null(strstr(why, "not a regular file"));
    assert_int_equal(clrie_config_module_check(NULL, 0, NULL, NULL, 0), -EINVAL);
    free(missing);
    free(folder);
    test_tree_free(root);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s ELF_CORPUS_FOLDER\n", argv[0]);
        return 2;
    }
    corpus_dir = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(accepts_a_minimal_shared_object),
        cmocka_unit_test(refuses_each_malformed_header),
        cmocka_unit_test(refuses_every_file_of_the_corpus),
        cmocka_unit_test(refuses_truncated_copies_of_a_real_shared_object),
        cmocka_unit_test(refuses_a_module_in_a_folder_others_can_write),
        cmocka_unit_test(configuration_files_in_open_folders_are_refused),
        cmocka_unit_test(module_check_reports_missing_and_odd_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
