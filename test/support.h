/* Helpers shared by the unit tests: temporary file trees, running code as another user, and
 * finding the machine's .NET. */
#ifndef CLRIE_TEST_SUPPORT_H
#define CLRIE_TEST_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>

/* Creates a new empty folder under $TMPDIR (or /tmp), mode 0755. Returns a malloc'd path. */
char *test_tree_new(void);

/* Removes a tree made by test_tree_new, restoring permissions on the way. Frees path. */
void test_tree_free(char *path);

/* Makes every missing folder of root/relative (like mkdir -p). Aborts the test on failure. */
void test_tree_mkdir(const char *root, const char *relative);

/* Writes a file root/relative with the given bytes, creating its folders. */
void test_tree_write(const char *root, const char *relative, const void *data, size_t len);

/* Copies the file at source to root/relative, keeping its mode. */
void test_tree_copy(const char *root, const char *relative, const char *source);

/* Makes a symbolic link root/relative pointing at target. */
void test_tree_symlink(const char *root, const char *relative, const char *target);

/* Changes the mode of root/relative. */
void test_tree_chmod(const char *root, const char *relative, unsigned mode);

/* Returns a malloc'd root/relative. */
char *test_path(const char *root, const char *relative);

/* Reads a whole file into a malloc'd NUL-terminated buffer; NULL if it cannot be read. */
char *test_read_file(const char *path, size_t *len);

/* When running as root, permission bits do not stop us; tests of unreadable folders call this
 * in a child process first to become an ordinary user. Returns false if that is impossible. */
bool test_drop_root(void);

/* Runs fn(root) in a child process that is not root, so permission bits apply. Returns true
 * when the child became an ordinary user, ran fn and exited 0 (a failed assertion in fn makes
 * the child exit non-zero). */
bool test_as_ordinary_user(void (*fn)(const char *root), const char *root);

/* The shared framework folder of the machine's .NET, <dotnet root>/shared/Microsoft.NETCore.App
 * (malloc'd), for tests of real assemblies; NULL when there is none. The dotnet host is the
 * one CLRIE_DOTNET names (a path, or a name looked up on PATH), else `dotnet` on PATH. */
char *test_dotnet_framework_root(void);

/* Calls fn(path, data) for every *.dll of every version folder under root (a framework root as
 * test_dotnet_framework_root gives it), in directory order. Returns how many there were. */
size_t test_dotnet_each_framework_dll(const char *root, void (*fn)(const char *path, void *data),
                                      void *data);

#endif
