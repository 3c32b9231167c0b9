#define _DEFAULT_SOURCE /* setgroups, nftw */
#define _XOPEN_SOURCE 700
#include "support.h"

#include <dirent.h>
#include <grp.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void die(const char *what, const char *path)
{
    fprintf(stderr, "test support: %s %s: %s\n", what, path, strerror(errno));
    abort();
}

char *test_path(const char *root, const char *relative)
{
    size_t n = strlen(root) + strlen(relative) + 2;
    char *p = malloc(n);
    if (!p)
        abort();
    snprintf(p, n, "%s/%s", root, relative);
    return p;
}

char *test_tree_new(void)
{
    const char *tmp = getenv("TMPDIR");
    char *templ = test_path(tmp && *tmp ? tmp : "/tmp", "clrie-test-XXXXXX");
    if (!mkdtemp(templ))
        die("mkdtemp", templ);
    if (chmod(templ, 0755) != 0)
        die("chmod", templ);
    return templ;
}

static int make_writable(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    if (flag == FTW_D || flag == FTW_DNR)
        chmod(path, 0755);
    return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    remove(path);
    return 0;
}

void test_tree_free(char *path)
{
    if (!path)
        return;
    nftw(path, make_writable, 16, FTW_PHYS);
    nftw(path, remove_entry, 16, FTW_PHYS | FTW_DEPTH);
    free(path);
}

static void mkdir_p(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0755) != 0 && errno != EEXIST)
            die("mkdir", path);
        *p = '/';
    }
    if (mkdir(path, 0755) != 0 && errno != EEXIST)
        die("mkdir", path);
}

void test_tree_mkdir(const char *root, const char *relative)
{
    char *p = test_path(root, relative);
    mkdir_p(p);
    free(p);
}

static void make_parent(const char *path)
{
    char *parent = strdup(path);
    char *slash = parent ? strrchr(parent, '/') : NULL;
    if (!slash)
        abort();
    *slash = '\0';
    mkdir_p(parent);
    free(parent);
}

static void write_file(const char *path, const void *data, size_t len, mode_t mode)
{
    make_parent(path);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    if (fd < 0)
        die("open", path);
    const char *p = data;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n <= 0)
            die("write", path);
        p += n;
        len -= (size_t)n;
    }
    if (fchmod(fd, mode) != 0)
        die("fchmod", path);
    close(fd);
}

void test_tree_write(const char *root, const char *relative, const void *data, size_t len)
{
    char *p = test_path(root, relative);
    write_file(p, data, len, 0644);
    free(p);
}

char *test_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *bigger = realloc(buf, cap * 2 + 1);
            if (!bigger) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = bigger;
            cap *= 2;
        }
    }
    fclose(f);
    if (!buf)
        return NULL;
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

void test_tree_copy(const char *root, const char *relative, const char *source)
{
    struct stat st;
    if (stat(source, &st) != 0)
        die("stat", source);
    size_t len;
    char *data = test_read_file(source, &len);
    if (!data)
        die("read", source);
    char *p = test_path(root, relative);
    write_file(p, data, len, st.st_mode & 07777);
    free(p);
    free(data);
}

bool test_posix_files(void)
{
    return true;
}

void test_tree_symlink(const char *root, const char *relative, const char *target)
{
    char *p = test_path(root, relative);
    make_parent(p);
    if (symlink(target, p) != 0)
        die("symlink", p);
    free(p);
}

void test_tree_chmod(const char *root, const char *relative, unsigned mode)
{
    char *p = test_path(root, relative);
    if (chmod(p, mode) != 0)
        die("chmod", p);
    free(p);
}

void test_env_set(const char *name, const char *value)
{
    if (value ? setenv(name, value, 1) != 0 : unsetenv(name) != 0)
        die("setenv", name);
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
    int fd = open(c->path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || (c->saved = dup(STDERR_FILENO)) < 0 || dup2(fd, STDERR_FILENO) < 0)
        die("redirecting stderr to", c->path);
    close(fd);
    return c;
}

char *test_stderr_release(struct test_stderr *c)
{
    fflush(stderr);
    dup2(c->saved, STDERR_FILENO);
    close(c->saved);
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
    if (geteuid() != 0)
        return true;
    const uid_t nobody = 65534;
    return setgroups(0, NULL) == 0 && setgid(nobody) == 0 && setuid(nobody) == 0 &&
           geteuid() == nobody;
}

static char *find_on_path(const char *name)
{
    const char *path = getenv("PATH");
    if (!path)
        return NULL;
    char *copy = strdup(path);
    char *result = NULL;
    for (char *save = NULL, *dir = strtok_r(copy, ":", &save); dir && !result;
         dir = strtok_r(NULL, ":", &save)) {
        char candidate[PATH_MAX];
        int n = snprintf(candidate, sizeof(candidate), "%s/%s", dir, name);
        if (n > 0 && (size_t)n < sizeof(candidate) && access(candidate, X_OK) == 0)
            result = strdup(candidate);
    }
    free(copy);
    return result;
}

char *test_dotnet_framework_root(void)
{
    const char *configured = getenv("CLRIE_DOTNET");
    char *dotnet = NULL;
    if (configured && *configured)
        dotnet = strchr(configured, '/') ? strdup(configured) : find_on_path(configured);
    else
        dotnet = find_on_path("dotnet");
    if (!dotnet)
        return NULL;
    char resolved[PATH_MAX];
    char *real = realpath(dotnet, resolved);
    free(dotnet);
    if (!real)
        return NULL;
    char *slash = strrchr(resolved, '/');
    if (!slash)
        return NULL;
    *slash = 0;
    char root[PATH_MAX + 32];
    int n = snprintf(root, sizeof(root), "%s/shared/Microsoft.NETCore.App", resolved);
    if (n < 0 || (size_t)n >= sizeof(root))
        return NULL;
    struct stat st;
    return stat(root, &st) == 0 && S_ISDIR(st.st_mode) ? strdup(root) : NULL;
}

bool test_as_ordinary_user(void (*fn)(const char *root), const char *root)
{
    pid_t pid = fork();
    if (pid < 0)
        return false;
    if (pid == 0) {
        if (!test_drop_root())
            _exit(3);
        fn(root);
        _exit(0);
    }
    int status;
    if (waitpid(pid, &status, 0) != pid)
        return false;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Visits the .dll files directly in dir; returns how many. */
static long each_dll_in(const char *dir_path, void (*visit)(const char *, void *), void *ctx)
{
    long count = 0;
    DIR *dir = opendir(dir_path);
    struct dirent *entry;
    while (dir && (entry = readdir(dir))) {
        size_t len = strlen(entry->d_name);
        if (len < 5 || strcmp(entry->d_name + len - 4, ".dll") != 0)
            continue;
        char path[PATH_MAX];
        int n = snprintf(path, sizeof(path), "%s/%s", dir_path, entry->d_name);
        if (n < 0 || (size_t)n >= sizeof(path))
            continue;
        visit(path, ctx);
        count++;
    }
    if (dir)
        closedir(dir);
    return count;
}

/* The major.minor.patch of a version folder name as one comparable number; -1 for other names
 * or another major version. */
static long long version_key(const char *name, long major)
{
    long a, b, c;
    char tail;
    if (sscanf(name, "%ld.%ld.%ld%c", &a, &b, &c, &tail) != 3 || a != major)
        return -1;
    return (a * 1000LL + b) * 100000LL + c;
}

/* The runtime pack of CLRIE_TEST_RUNTIME's major version in the NuGet package folder
 * ($NUGET_PACKAGES, else ~/.nuget/packages): the newest restored patch for CLRIE_TEST_RID (or
 * linux-x64). Visits its managed assemblies (lib/net<major>.0, and System.Private.CoreLib.dll
 * in native/); -1 when no such pack was restored. */
static long each_dll_of_runtime_pack(const char *major_text, void (*visit)(const char *, void *),
                                     void *ctx)
{
    const char *rid = getenv("CLRIE_TEST_RID");
    const char *packages = getenv("NUGET_PACKAGES");
    const char *home = getenv("HOME");
    char root[PATH_MAX];
    int n;
    if (!rid || !*rid)
        rid = "linux-x64";
    if (packages && *packages)
        n = snprintf(root, sizeof(root), "%s/microsoft.netcore.app.runtime.%s", packages, rid);
    else
        n = snprintf(root, sizeof(root), "%s/.nuget/packages/microsoft.netcore.app.runtime.%s",
                     home ? home : "", rid);
    if (n < 0 || (size_t)n >= sizeof(root))
        return -1;
    long major = strtol(major_text, NULL, 10);
    char best[256] = "";
    long long best_key = -1;
    DIR *versions = opendir(root);
    struct dirent *version;
    while (versions && (version = readdir(versions))) {
        long long key = version_key(version->d_name, major);
        if (key > best_key && strlen(version->d_name) < sizeof(best)) {
            best_key = key;
            strcpy(best, version->d_name);
        }
    }
    if (versions)
        closedir(versions);
    if (best_key < 0) {
        printf("runtime: .NET %s: no %s runtime pack restored in %s\n", major_text, rid, root);
        return -1;
    }
    printf("runtime: .NET %s (the assemblies of the %s runtime pack from NuGet, read, not run)\n",
           best, rid);
    char lib[PATH_MAX + 300], native[PATH_MAX + 300];
    snprintf(lib, sizeof(lib), "%s/%s/runtimes/%s/lib/net%ld.0", root, best, rid, major);
    snprintf(native, sizeof(native), "%s/%s/runtimes/%s/native", root, best, rid);
    return each_dll_in(lib, visit, ctx) + each_dll_in(native, visit, ctx);
}

int test_dotnet_missing_status(void)
{
    const char *major = getenv("CLRIE_TEST_RUNTIME");
    const char *ci = getenv("CI");
    if (major && *major && ci && (strcmp(ci, "true") == 0 || strcmp(ci, "1") == 0)) {
        printf("CI=%s: a runtime pack that was not restored fails the test\n", ci);
        return 1;
    }
    return 77;
}

long test_dotnet_each_dll(void (*visit)(const char *path, void *ctx), void *ctx)
{
    const char *major = getenv("CLRIE_TEST_RUNTIME");
    if (major && *major)
        return each_dll_of_runtime_pack(major, visit, ctx);
    char *root = test_dotnet_framework_root();
    if (!root)
        return -1;
    long count = 0;
    DIR *versions = opendir(root);
    struct dirent *version;
    while (versions && (version = readdir(versions))) {
        if (version->d_name[0] == '.')
            continue;
        char dir_path[PATH_MAX];
        int n = snprintf(dir_path, sizeof(dir_path), "%s/%s", root, version->d_name);
        if (n > 0 && (size_t)n < sizeof(dir_path)) {
            printf("runtime: .NET %s (the assemblies of the shared framework in %s, read, not "
                   "run)\n",
                   version->d_name, root);
            count += each_dll_in(dir_path, visit, ctx);
        }
    }
    if (versions)
        closedir(versions);
    free(root);
    return count;
}
