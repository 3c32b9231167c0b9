/* The test helpers of support.h on Windows: temporary trees, files and paths, in UTF-8 with
 * UTF-16 at every call into the system. What needs POSIX (links, permission bits, another
 * user) says it cannot run here: test_posix_files() is false, and a test checks it first. */
#include "support.h"

#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <wchar.h>
#include <windows.h>

#include "clrie/os/fs.h"

static void die(const char *what, const char *path)
{
    fprintf(stderr, "test support: %s %s: Windows error %lu\n", what, path,
            (unsigned long)GetLastError());
    abort();
}

wchar_t *test_utf16(const char *text)
{
    int units = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, text, -1, NULL, 0);
    wchar_t *w = units > 0 ? malloc((size_t)units * sizeof(*w)) : NULL;
    if (!w || MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, text, -1, w, units) != units)
        abort();
    return w;
}

static char *narrow(const wchar_t *text)
{
    int bytes = WideCharToMultiByte(CP_UTF8, 0, text, -1, NULL, 0, NULL, NULL);
    char *n = bytes > 0 ? malloc((size_t)bytes) : NULL;
    if (!n || WideCharToMultiByte(CP_UTF8, 0, text, -1, n, bytes, NULL, NULL) != bytes)
        abort();
    return n;
}

char *test_path(const char *root, const char *relative)
{
    size_t n = strlen(root) + strlen(relative) + 2;
    char *p = malloc(n);
    if (!p)
        abort();
    snprintf(p, n, "%s\\%s", root, relative);
    for (char *c = p; *c; c++)
        if (*c == '/')
            *c = '\\';
    return p;
}

void test_slashes(char *text)
{
    for (char *c = text; *c; c++)
        if (*c == '\\')
            *c = '/';
}

char *test_tree_new(void)
{
    wchar_t temp[MAX_PATH + 1];
    DWORD n = GetTempPathW(MAX_PATH + 1, temp);
    if (n == 0 || n > MAX_PATH)
        die("GetTempPathW", "");
    if (n > 0 && temp[n - 1] == L'\\')
        temp[n - 1] = L'\0'; /* test_path adds the separator */
    char *base = narrow(temp);
    for (unsigned attempt = 0;; attempt++) {
        char name[64];
        snprintf(name, sizeof(name), "clrie-test-%lu-%lu-%u", (unsigned long)GetCurrentProcessId(),
                 (unsigned long)GetTickCount(), attempt);
        char *path = test_path(base, name);
        wchar_t *w = test_utf16(path);
        BOOL made = CreateDirectoryW(w, NULL);
        DWORD error = GetLastError();
        free(w);
        if (made) {
            free(base);
            return path;
        }
        free(path);
        if (error != ERROR_ALREADY_EXISTS || attempt > 1000)
            die("CreateDirectoryW", name);
    }
}

static void remove_tree(const char *path)
{
    enum clrie_os_kind kind;
    if (clrie_os_path_kind(path, &kind) != 0)
        return;
    wchar_t *w = test_utf16(path);
    if (kind == CLRIE_OS_DIRECTORY) {
        struct clrie_os_dir *dir = NULL;
        const char *name;
        if (clrie_os_dir_open(path, &dir) == 0) {
            while (clrie_os_dir_next(dir, &name) == 1) {
                char *child = test_path(path, name);
                remove_tree(child);
                free(child);
            }
            clrie_os_dir_close(dir);
        }
        RemoveDirectoryW(w);
    } else {
        SetFileAttributesW(w, FILE_ATTRIBUTE_NORMAL);
        DeleteFileW(w);
    }
    free(w);
}

void test_tree_free(char *path)
{
    if (!path)
        return;
    remove_tree(path);
    free(path);
}

static void mkdir_p(char *path)
{
    for (char *c = path + 1; *c; c++) {
        if (*c != '\\' || c[-1] == ':')
            continue;
        *c = '\0';
        wchar_t *w = test_utf16(path);
        if (!CreateDirectoryW(w, NULL) && GetLastError() != ERROR_ALREADY_EXISTS)
            die("CreateDirectoryW", path);
        free(w);
        *c = '\\';
    }
    wchar_t *w = test_utf16(path);
    if (!CreateDirectoryW(w, NULL) && GetLastError() != ERROR_ALREADY_EXISTS)
        die("CreateDirectoryW", path);
    free(w);
}

void test_tree_mkdir(const char *root, const char *relative)
{
    char *path = test_path(root, relative);
    mkdir_p(path);
    free(path);
}

static void make_parent(const char *path)
{
    char *copy = strdup(path);
    char *slash = copy ? strrchr(copy, '\\') : NULL;
    if (!copy)
        abort();
    if (slash) {
        *slash = '\0';
        mkdir_p(copy);
    }
    free(copy);
}

void test_tree_write(const char *root, const char *relative, const void *data, size_t len)
{
    char *path = test_path(root, relative);
    make_parent(path);
    wchar_t *w = test_utf16(path);
    HANDLE h = CreateFileW(w, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
    free(w);
    DWORD written = 0;
    if (h == INVALID_HANDLE_VALUE ||
        (len > 0 && (!WriteFile(h, data, (DWORD)len, &written, NULL) || written != len)))
        die("write", path);
    CloseHandle(h);
    free(path);
}

void test_tree_sparse(const char *root, const char *relative, uint64_t size)
{
    char *path = test_path(root, relative);
    make_parent(path);
    wchar_t *w = test_utf16(path);
    HANDLE h = CreateFileW(w, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
    free(w);
    if (h == INVALID_HANDLE_VALUE)
        die("CreateFileW", path);
    /* Marked sparse first, so that NTFS reserves no clusters for the new end; a file system
     * without sparse files only extends it. */
    DWORD unused;
    DeviceIoControl(h, FSCTL_SET_SPARSE, NULL, 0, NULL, 0, &unused, NULL);
    LARGE_INTEGER end = {.QuadPart = (LONGLONG)size};
    if (size > (uint64_t)INT64_MAX || !SetFilePointerEx(h, end, NULL, FILE_BEGIN) ||
        !SetEndOfFile(h))
        die("SetEndOfFile", path);
    CloseHandle(h);
    free(path);
}

char *test_read_file(const char *path, size_t *len)
{
    wchar_t *w = test_utf16(path);
    HANDLE h = CreateFileW(w, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING,
                           FILE_ATTRIBUTE_NORMAL, NULL);
    free(w);
    if (h == INVALID_HANDLE_VALUE)
        return NULL;
    LARGE_INTEGER size;
    char *data = NULL;
    DWORD got = 0;
    if (GetFileSizeEx(h, &size) && size.QuadPart < 0x7fffffff &&
        (data = malloc((size_t)size.QuadPart + 1)) &&
        (size.QuadPart == 0 || ReadFile(h, data, (DWORD)size.QuadPart, &got, NULL)) &&
        got == (DWORD)size.QuadPart) {
        data[got] = '\0';
        if (len)
            *len = got;
    } else {
        free(data);
        data = NULL;
    }
    CloseHandle(h);
    return data;
}

void test_tree_copy(const char *root, const char *relative, const char *source)
{
    char *path = test_path(root, relative);
    make_parent(path);
    wchar_t *from = test_utf16(source), *to = test_utf16(path);
    if (!CopyFileW(from, to, FALSE))
        die("CopyFileW", path);
    free(from);
    free(to);
    free(path);
}

bool test_posix_files(void)
{
    return false;
}

void test_tree_symlink(const char *root, const char *relative, const char *target)
{
    (void)target;
    fprintf(stderr, "test support: no symbolic links on Windows (%s\\%s)\n", root, relative);
    abort();
}

void test_tree_chmod(const char *root, const char *relative, unsigned mode)
{
    (void)mode;
    fprintf(stderr, "test support: no permission bits on Windows (%s\\%s)\n", root, relative);
    abort();
}

void test_env_set(const char *name, const char *value)
{
    wchar_t *wide_name = test_utf16(name), *wide_value = value ? test_utf16(value) : NULL;
    /* The C runtime's copy first (it removes a variable set to ""), then the system's block
     * exactly, where an empty value stays set. */
    if (_wputenv_s(wide_name, wide_value ? wide_value : L"") != 0 ||
        !SetEnvironmentVariableW(wide_name, wide_value))
        die("setting the variable", name);
    free(wide_name);
    free(wide_value);
}

struct test_stderr {
    char *tree;
    char *path;
    int saved;
};

struct test_stderr *test_stderr_capture(void)
{
    struct test_stderr *c = malloc(sizeof(*c));
    if (!c)
        abort();
    c->tree = test_tree_new();
    c->path = test_path(c->tree, "stderr.txt");
    fflush(stderr);
    wchar_t *w = test_utf16(c->path);
    /* Binary, so that the text is the bytes written: _dup2 gives descriptor 2 this mode. */
    int fd = _wopen(w, _O_WRONLY | _O_CREAT | _O_TRUNC | _O_BINARY, _S_IREAD | _S_IWRITE);
    free(w);
    if (fd < 0 || (c->saved = _dup(2)) < 0 || _dup2(fd, 2) != 0)
        die("redirecting stderr to", c->path);
    _close(fd);
    return c;
}

char *test_stderr_release(struct test_stderr *c)
{
    fflush(stderr);
    _dup2(c->saved, 2);
    _close(c->saved);
    char *text = test_read_file(c->path, NULL);
    if (!text)
        die("read", c->path);
    free(c->path);
    test_tree_free(c->tree);
    free(c);
    return text;
}

bool test_drop_root(void)
{
    return false;
}

bool test_as_ordinary_user(void (*fn)(const char *root), const char *root)
{
    (void)fn, (void)root;
    return false;
}
