#define _DEFAULT_SOURCE /* setgroups, nftw */
#define _XOPEN_SOURCE 700
#include "support.h"

#include <grp.h>
#include <errno.h>
#include <fcntl.h>
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

void test_slashes(char *text)
{
    (void)text; /* '/' is the only separator */
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

void test_tree_sparse(const char *root, const char *relative, uint64_t size)
{
    char *p = test_path(root, relative);
    make_parent(p);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || size > (uint64_t)INT64_MAX || ftruncate(fd, (off_t)size) != 0)
        die("ftruncate", p);
    close(fd);
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
