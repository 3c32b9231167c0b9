/* Helpers shared by the unit tests: temporary file trees, running code as another user, and
 * finding the machine's .NET. */
#ifndef CLRIE_TEST_SUPPORT_H
#define CLRIE_TEST_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

/* Creates a new empty folder under $TMPDIR (or /tmp), mode 0755. Returns a malloc'd path. */
char *test_tree_new(void);

/* Removes a tree made by test_tree_new, restoring permissions on the way. Frees path. */
void test_tree_free(char *path);

/* Makes every missing folder of root/relative (like mkdir -p). Aborts the test on failure. */
void test_tree_mkdir(const char *root, const char *relative);

/* Writes a file root/relative with the given bytes, creating its folders. */
void test_tree_write(const char *root, const char *relative, const void *data, size_t len);

/* Makes a file root/relative of size bytes that were never written (zeros when read), sparse
 * where the file system allows it, so that a huge file takes no disk. */
void test_tree_sparse(const char *root, const char *relative, uint64_t size);

/* Copies the file at source to root/relative, keeping its mode. */
void test_tree_copy(const char *root, const char *relative, const char *source);

/* Whether this system has POSIX files: symbolic links, permission bits, other users (not on
 * Windows, where test_tree_symlink, test_tree_chmod and test_as_ordinary_user cannot run). */
bool test_posix_files(void);

/* Makes a symbolic link root/relative pointing at target. */
void test_tree_symlink(const char *root, const char *relative, const char *target);

/* Changes the mode of root/relative. */
void test_tree_chmod(const char *root, const char *relative, unsigned mode);

/* Returns a malloc'd root/relative. */
char *test_path(const char *root, const char *relative);

/* Writes the other separator of this system's paths as '/' in text, in place ('\' on
 * Windows; elsewhere nothing changes), so that expected paths read alike on every system. */
void test_slashes(char *text);

/* Windows only (test/support_win32.c): text in UTF-16, malloc'd; aborts on text that is not
 * UTF-8 and when memory is short. */
wchar_t *test_utf16(const char *text);

/* Reads a whole file into a malloc'd NUL-terminated buffer; NULL if it cannot be read. */
char *test_read_file(const char *path, size_t *len);

/* Sets the environment variable name to value, or removes it when value is NULL, where both
 * the system and the C library see it (on Windows the process's UTF-16 block, which libos
 * reads, and the C runtime's copy, which getenv reads). Aborts the test on failure. */
void test_env_set(const char *name, const char *value);

/* Standard error (descriptor 2) sent to a new file until test_stderr_release. */
struct test_stderr;

/* Sends descriptor 2 to a new file, byte for byte (no line-end translation on Windows).
 * Aborts the test on failure. */
struct test_stderr *test_stderr_capture(void);

/* Gives descriptor 2 back and returns what was written to it, malloc'd and NUL-terminated;
 * frees capture. */
char *test_stderr_release(struct test_stderr *capture);

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

/* Calls visit with the path of every .dll of every runtime version under that framework
 * folder. Returns how many it visited, or -1 when the machine has no .NET. With
 * CLRIE_TEST_RUNTIME=<major> (the runtime matrix of docs/testing.md) it visits instead the
 * managed assemblies of that version's runtime pack as the real-runtime tests restored it from
 * NuGet (the newest patch in the NuGet package folder), and -1 when none was restored. Prints
 * which runtime's assemblies it reads, as a line "runtime: .NET <version> (...)". */
long test_dotnet_each_dll(void (*visit)(const char *path, void *ctx), void *ctx);

/* The exit code of a test that found no assemblies to read: 77 (skipped), but 1 (failed) when
 * CLRIE_TEST_RUNTIME names a runtime and CI is true, where a missing runtime pack must fail. */
int test_dotnet_missing_status(void);

#endif
